/* crdyn case loader internals, shared by case.c, case_json.c and case_mesh.c
 * (not a public header).
 *
 * Every value is read through the crd_json_* helpers below: each takes the
 * JSON path of what it reads ("$.loads[2].force") and, on bad input, sets a
 * message "FILE: PATH: what is wrong" and returns CRD_ERR_INPUT.  Optional
 * values: the caller stores the default first; a getter leaves *out alone
 * when the key is absent. */
#ifndef CRD_CASE_PRIV_H
#define CRD_CASE_PRIV_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "crdyn/error.h"
#include "crdyn/model.h"

#define CRD_JP_MAX 512                 /* JSON path buffers */

typedef struct crd_case_ctx {
  const char *file;                    /* the case file, as given (messages) */
  char dir[CRD_PATH_MAX];              /* its directory with a trailing '/', or "" */
  double size;                         /* model bounding-box diagonal (1 without a mesh) */
} crd_case_ctx;

/* Message "FILE: JP: ..." with CRD_ERR_INPUT. */
int crd_case_bad_(const crd_case_ctx *c, const char *jp, const char *src, int line,
                  const char *func, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define CASE_BAD(c, jp, ...) crd_case_bad_((c), (jp), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Child paths: buf (CRD_JP_MAX chars) = "parent.key" or "parent[i]"; returns buf. */
const char *crd_jp_key(char *buf, const char *parent, const char *key);
const char *crd_jp_idx(char *buf, const char *parent, int i);
/* "a number", "a string", ... for messages. */
const char *crd_json_type(const cJSON *it);

/* obj must be an object whose keys are all in `allowed` (NULL-terminated), none repeated. */
int crd_json_keys(const crd_case_ctx *c, const cJSON *obj, const char *jp,
                  const char *const *allowed);
/* No key repeated in an object with free keys (set names). */
int crd_json_unique_keys(const crd_case_ctx *c, const cJSON *obj, const char *jp);
/* obj[key] or NULL; with req, a missing key is an error. */
int crd_json_get(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                 int req, const cJSON **out);
/* A non-empty array (n = its size). */
int crd_json_array(const crd_case_ctx *c, const cJSON *it, const char *jp, int *n);

/* Values (it is the item itself, jp its path). */
int crd_json_num(const crd_case_ctx *c, const cJSON *it, const char *jp, double *out);
int crd_json_int(const crd_case_ctx *c, const cJSON *it, const char *jp, int *out);
int crd_json_vec(const crd_case_ctx *c, const cJSON *it, const char *jp, int n, double *out);
/* n x n matrix as n rows of n numbers, row-major. */
int crd_json_mat(const crd_case_ctx *c, const cJSON *it, const char *jp, int n, double *out);
/* A string of at most cap-1 characters; nonempty: reject "". */
int crd_json_str(const crd_case_ctx *c, const cJSON *it, const char *jp, int nonempty,
                 char *out, size_t cap);

/* obj[key] read as above (path jp.key); absent: *out unchanged, or an error with req. */
int crd_json_get_num(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, double *out);
int crd_json_get_int(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int *out);
int crd_json_get_bool(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                      int req, int *out);
int crd_json_get_vec(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int n, double *out);
int crd_json_get_str(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int nonempty, char *out, size_t cap);

/* case_mesh.c: build m->x, m->quads, the "all" set and the mesh's own sets
 * from "mesh" (object or array of parts), validate the elements and set c->size. */
int crd_case_mesh(crd_case_ctx *c, const cJSON *mesh, crd_model *m);
/* The user's "sets" object (after the mesh). */
int crd_case_sets(const crd_case_ctx *c, const cJSON *sets, crd_model *m);
/* Sort and deduplicate a[0..*n). */
void crd_sort_unique(int32_t *a, int *n);

#endif
