/* crdyn case loader: the JSON-walking helpers (see case_priv.h).  Each reads
 * one value with its JSON path and rejects what is not what the format asks
 * for: wrong types, numbers that are not finite, non-integers where counts
 * and indices are expected, unknown or repeated keys. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "case_priv.h"

int crd_case_bad_(const crd_case_ctx *c, const char *jp, const char *src, int line,
                  const char *func, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return crd_err_set(CRD_ERR_INPUT, src, line, func, "%s: %s: %s", c->file, jp, msg);
}

const char *crd_jp_key(char *buf, const char *parent, const char *key)
{
  snprintf(buf, CRD_JP_MAX, "%s.%s", parent, key);
  return buf;
}

const char *crd_jp_idx(char *buf, const char *parent, int i)
{
  snprintf(buf, CRD_JP_MAX, "%s[%d]", parent, i);
  return buf;
}

const char *crd_json_type(const cJSON *it)
{
  if (!it) return "nothing";
  if (cJSON_IsNumber(it)) return "a number";
  if (cJSON_IsString(it)) return "a string";
  if (cJSON_IsBool(it)) return "a boolean";
  if (cJSON_IsNull(it)) return "null";
  if (cJSON_IsArray(it)) return "an array";
  if (cJSON_IsObject(it)) return "an object";
  return "an invalid value";
}

int crd_json_keys(const crd_case_ctx *c, const cJSON *obj, const char *jp,
                  const char *const *allowed)
{
  char kp[CRD_JP_MAX];
  if (!cJSON_IsObject(obj)) return CASE_BAD(c, jp, "expected an object, got %s", crd_json_type(obj));
  for (const cJSON *it = obj->child; it; it = it->next) {
    int ok = 0;
    for (const char *const *a = allowed; *a && !ok; ++a) ok = !strcmp(*a, it->string);
    crd_jp_key(kp, jp, it->string);
    if (!ok) {
      char list[512] = "";
      size_t n = 0;
      for (const char *const *a = allowed; *a && n < sizeof list; ++a)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a == allowed ? "" : ", ", *a);
      return CASE_BAD(c, kp, "unknown key (expected one of: %s)", list);
    }
    for (const cJSON *pr = obj->child; pr != it; pr = pr->next)
      if (!strcmp(pr->string, it->string)) return CASE_BAD(c, kp, "duplicate key");
  }
  return 0;
}

int crd_json_unique_keys(const crd_case_ctx *c, const cJSON *obj, const char *jp)
{
  char kp[CRD_JP_MAX];
  if (!cJSON_IsObject(obj)) return CASE_BAD(c, jp, "expected an object, got %s", crd_json_type(obj));
  for (const cJSON *it = obj->child; it; it = it->next)
    for (const cJSON *pr = obj->child; pr != it; pr = pr->next)
      if (!strcmp(pr->string, it->string))
        return CASE_BAD(c, crd_jp_key(kp, jp, it->string), "duplicate key");
  return 0;
}

int crd_json_get(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                 int req, const cJSON **out)
{
  *out = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!*out && req) return CASE_BAD(c, jp, "missing required key '%s'", key);
  return 0;
}

int crd_json_array(const crd_case_ctx *c, const cJSON *it, const char *jp, int *n)
{
  if (!cJSON_IsArray(it)) return CASE_BAD(c, jp, "expected an array, got %s", crd_json_type(it));
  *n = cJSON_GetArraySize(it);
  if (*n <= 0) return CASE_BAD(c, jp, "expected a non-empty array");
  return 0;
}

int crd_json_num(const crd_case_ctx *c, const cJSON *it, const char *jp, double *out)
{
  if (!cJSON_IsNumber(it)) return CASE_BAD(c, jp, "expected a number, got %s", crd_json_type(it));
  if (!isfinite(it->valuedouble)) return CASE_BAD(c, jp, "number is not finite");
  *out = it->valuedouble;
  return 0;
}

int crd_json_int(const crd_case_ctx *c, const cJSON *it, const char *jp, int *out)
{
  double v;
  if (!cJSON_IsNumber(it)) return CASE_BAD(c, jp, "expected an integer, got %s", crd_json_type(it));
  CRD_CALL(crd_json_num(c, it, jp, &v));
  if (v != floor(v) || fabs(v) > 2147483647.0)
    return CASE_BAD(c, jp, "expected an integer, got %.17g", v);
  *out = (int)v;
  return 0;
}

int crd_json_vec(const crd_case_ctx *c, const cJSON *it, const char *jp, int n, double *out)
{
  char ep[CRD_JP_MAX];
  if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != n)
    return CASE_BAD(c, jp, "expected an array of %d numbers, got %s", n,
                    cJSON_IsArray(it) ? "an array of another length" : crd_json_type(it));
  int i = 0;
  for (const cJSON *e = it->child; e; e = e->next, ++i)
    CRD_CALL(crd_json_num(c, e, crd_jp_idx(ep, jp, i), &out[i]));
  return 0;
}

int crd_json_mat(const crd_case_ctx *c, const cJSON *it, const char *jp, int n, double *out)
{
  char ep[CRD_JP_MAX];
  if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != n)
    return CASE_BAD(c, jp, "expected a %dx%d matrix (an array of %d rows)", n, n, n);
  int i = 0;
  for (const cJSON *r = it->child; r; r = r->next, ++i)
    CRD_CALL(crd_json_vec(c, r, crd_jp_idx(ep, jp, i), n, out + (size_t)n * i));
  return 0;
}

int crd_json_str(const crd_case_ctx *c, const cJSON *it, const char *jp, int nonempty,
                 char *out, size_t cap)
{
  if (!cJSON_IsString(it) || !it->valuestring)
    return CASE_BAD(c, jp, "expected a string, got %s", crd_json_type(it));
  size_t n = strlen(it->valuestring);
  if (nonempty && n == 0) return CASE_BAD(c, jp, "expected a non-empty string");
  if (n >= cap) return CASE_BAD(c, jp, "string too long (at most %zu characters)", cap - 1);
  memcpy(out, it->valuestring, n + 1);
  return 0;
}

int crd_json_get_num(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, double *out)
{
  const cJSON *it;
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get(c, obj, jp, key, req, &it));
  if (it) CRD_CALL(crd_json_num(c, it, crd_jp_key(kp, jp, key), out));
  return 0;
}

int crd_json_get_int(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int *out)
{
  const cJSON *it;
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get(c, obj, jp, key, req, &it));
  if (it) CRD_CALL(crd_json_int(c, it, crd_jp_key(kp, jp, key), out));
  return 0;
}

int crd_json_get_bool(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                      int req, int *out)
{
  const cJSON *it;
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get(c, obj, jp, key, req, &it));
  if (!it) return 0;
  if (!cJSON_IsBool(it))
    return CASE_BAD(c, crd_jp_key(kp, jp, key), "expected true or false, got %s", crd_json_type(it));
  *out = cJSON_IsTrue(it) ? 1 : 0;
  return 0;
}

int crd_json_get_vec(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int n, double *out)
{
  const cJSON *it;
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get(c, obj, jp, key, req, &it));
  if (it) CRD_CALL(crd_json_vec(c, it, crd_jp_key(kp, jp, key), n, out));
  return 0;
}

int crd_json_get_str(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                     int req, int nonempty, char *out, size_t cap)
{
  const cJSON *it;
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get(c, obj, jp, key, req, &it));
  if (it) CRD_CALL(crd_json_str(c, it, crd_jp_key(kp, jp, key), nonempty, out, cap));
  return 0;
}
