/* crdyn: status codes and the per-run error buffer.
 *
 * Every function that can fail returns int: 0 ok, >0 a recoverable warning
 * (the caller may cut a step and retry), <0 fatal.  The message, with its
 * context (file, JSON path, element, step), is kept in a per-thread buffer;
 * CRD_CALL appends a traceback line "at file:line (func)" as it unwinds. */
#ifndef CRDYN_ERROR_H
#define CRDYN_ERROR_H

#include <stddef.h>

enum {
  CRD_OK = 0,
  CRD_WARN_NEWTON_DIVERGED = 1,
  CRD_WARN_NOT_POSDEF = 2,
  CRD_WARN_ELEM_INVERTED = 3,
  CRD_ERR_MEM = -1,
  CRD_ERR_INPUT = -2,
  CRD_ERR_IO = -3,
  CRD_ERR_BACKEND = -4,
  CRD_ERR_UNSUPPORTED = -5,
  CRD_ERR_NUMERIC = -6,
  CRD_ERR_INTERRUPTED = -7   /* SIGINT/SIGTERM: stopped after a checkpoint */
};

/* Set the message (printf-style) and return code. */
int crd_err_set(int code, const char *file, int line, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Append "at file:line (func)" to the traceback and return code. */
int crd_err_trace(int code, const char *file, int line, const char *func);
/* Context around the error already set: its message becomes the formatted
 * prefix, the message, then `suffix` (NULL: none), e.g. a reader's message
 * prefixed with the JSON path that asked for the file.  Returns code. */
int crd_err_wrap(int code, const char *file, int line, const char *func, const char *suffix, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The message of the last error (without traceback), and the traceback. */
const char *crd_err_message(void);
const char *crd_err_traceback(void);
void crd_err_clear(void);

/* Append this line to the traceback; yields code (a return value, or the
 * status kept for a cleanup path): return rc ? CRD_TRACE(rc) : 0; */
#define CRD_TRACE(code) crd_err_trace((code), __FILE__, __LINE__, __func__)
#define CRD_CALL(x)                                                        \
  do {                                                                     \
    int rc_ = (x);                                                         \
    if (rc_) return CRD_TRACE(rc_);                                        \
  } while (0)
#define CRD_CHECK(c, code, ...)                                            \
  do {                                                                     \
    if (!(c)) return crd_err_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__); \
  } while (0)
#define CRD_ERR(code, ...) crd_err_set((code), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define CRD_WRAP(code, suffix, ...) crd_err_wrap((code), __FILE__, __LINE__, __func__, (suffix), __VA_ARGS__)
/* CRD_CALL for a function with a cleanup path: the status into the int rc
 * in scope, traced, and a jump to `label` where the cleanup is. */
#define CRD_CALL_GOTO(x, label)                                            \
  do {                                                                     \
    if ((rc = (x))) {                                                      \
      rc = CRD_TRACE(rc);                                                  \
      goto label;                                                          \
    }                                                                      \
  } while (0)

/* Allocation helpers: zeroed memory, CRD_ERR_MEM on failure. */
int crd_calloc_(size_t n, size_t size, void *pptr, const char *what);
#define CRD_CALLOC(n, p) crd_calloc_((size_t)(n), sizeof(**(p)), (p), #p)
#define CRD_FREE(p) do { free(p); (p) = NULL; } while (0)

#endif
