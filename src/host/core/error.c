/* crdyn: per-thread error buffer (see error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"

static _Thread_local char err_msg[2048];
static _Thread_local char err_trace[4096];

int crd_err_set(int code, const char *file, int line, const char *func, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err_msg, sizeof err_msg, fmt, ap);
  va_end(ap);
  snprintf(err_trace, sizeof err_trace, "  at %s:%d (%s)\n", file, line, func);
  return code;
}

int crd_err_trace(int code, const char *file, int line, const char *func)
{
  size_t n = strlen(err_trace);
  if (n + 128 < sizeof err_trace)
    snprintf(err_trace + n, sizeof err_trace - n, "  at %s:%d (%s)\n", file, line, func);
  return code;
}

const char *crd_err_message(void) { return err_msg; }
const char *crd_err_traceback(void) { return err_trace; }
int crd_err_wrap(int code, const char *file, int line, const char *func, const char *suffix, const char *fmt, ...)
{
  char old[sizeof err_msg];
  snprintf(old, sizeof old, "%s", err_msg);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err_msg, sizeof err_msg, fmt, ap);
  va_end(ap);
  size_t k = n < 0 ? 0 : (size_t)n < sizeof err_msg ? (size_t)n : sizeof err_msg - 1;
  snprintf(err_msg + k, sizeof err_msg - k, "%s%s", old, suffix ? suffix : "");
  return crd_err_trace(code, file, line, func);
}

void crd_err_clear(void) { err_msg[0] = 0; err_trace[0] = 0; }

int crd_calloc_(size_t n, size_t size, void *pptr, const char *what)
{
  void **pp = (void **)pptr;
  *pp = NULL;
  if (n == 0) n = 1; /* a valid, freeable pointer for empty arrays */
  *pp = calloc(n, size);
  if (!*pp) return crd_err_set(CRD_ERR_MEM, __FILE__, __LINE__, __func__,
                               "out of memory allocating %zu x %zu bytes for %s", n, size, what);
  return 0;
}
