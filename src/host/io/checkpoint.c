/* crdyn: the checkpoint container (checkpoint.h, docs/checkpoint.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/checkpoint.h"
#include "crdyn/error.h"

#define CKPT_PATH_MAX 4096
#define CKPT_NAME 16
#define CKPT_HEADER 32
#define CKPT_BOM 0x01020304u
static const char ckpt_magic[8] = "CRDCKPT";

uint64_t crd_fnv1a(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int crd_hash_file(const char *path, uint64_t *h)
{
  FILE *f = fopen(path, "rb");
  if (!f) return CRD_ERR(CRD_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  unsigned char buf[65536];
  size_t n;
  uint64_t x = CRD_FNV_INIT;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) x = crd_fnv1a(x, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return CRD_ERR(CRD_ERR_IO, "cannot read %s", path);
  *h = x;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* writer                                                                   */
/* ------------------------------------------------------------------------ */

struct crd_ckpt_writer {
  FILE *f;
  int fd_err;                  /* errno of the first failed write */
  uint64_t sum;
  char path[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX + 8];
  char tname[CKPT_NAME];       /* text section being built */
  char *text;
  size_t tlen, tcap;
  int text_oom;
};

static void put(crd_ckpt_writer *w, const void *p, size_t n)
{
  if (n == 0) return;
  if (fwrite(p, 1, n, w->f) != n && !w->fd_err) w->fd_err = errno ? errno : EIO;
  w->sum = crd_fnv1a(w->sum, p, n);
}

int crd_ckpt_begin(const char *path, uint64_t case_hash, crd_ckpt_writer **out)
{
  *out = NULL;
  crd_ckpt_writer *w;
  CRD_CALL(CRD_CALLOC(1, &w));
  int n1 = snprintf(w->path, sizeof w->path, "%s", path), n2 = snprintf(w->tmp, sizeof w->tmp, "%s.tmp", path);
  if (n1 < 0 || (size_t)n1 >= sizeof w->path || n2 < 0 || (size_t)n2 >= sizeof w->tmp) {
    free(w);
    return CRD_ERR(CRD_ERR_INPUT, "checkpoint path too long: %s", path);
  }
  w->f = fopen(w->tmp, "wb");
  if (!w->f) {
    int rc = CRD_ERR(CRD_ERR_IO, "cannot write checkpoint %s (temporary %s): %s", path, w->tmp, strerror(errno));
    free(w);
    return rc;
  }
  w->sum = CRD_FNV_INIT;
  unsigned char h[CKPT_HEADER] = {0};
  uint32_t ver = CRD_CKPT_VERSION, bom = CKPT_BOM;
  memcpy(h, ckpt_magic, 8);
  memcpy(h + 8, &ver, 4);
  memcpy(h + 12, &bom, 4);
  memcpy(h + 16, &case_hash, 8);
  put(w, h, sizeof h);
  *out = w;
  return 0;
}

int crd_ckpt_add(crd_ckpt_writer *w, const char *name, const void *data, size_t len)
{
  char nm[CKPT_NAME] = {0};
  CRD_CHECK(strlen(name) < CKPT_NAME, CRD_ERR_INPUT, "checkpoint section name too long: %s", name);
  memcpy(nm, name, strlen(name));
  uint64_t l = len;
  static const unsigned char zero[8] = {0};
  put(w, nm, sizeof nm);
  put(w, &l, sizeof l);
  put(w, data, len);
  put(w, zero, (8 - len % 8) % 8);
  return 0;
}

int crd_ckpt_text_begin(crd_ckpt_writer *w, const char *name)
{
  CRD_CHECK(strlen(name) < CKPT_NAME, CRD_ERR_INPUT, "checkpoint section name too long: %s", name);
  snprintf(w->tname, sizeof w->tname, "%s", name);
  w->tlen = 0;
  w->text_oom = 0;
  return 0;
}

static void text_line(crd_ckpt_writer *w, const char *fmt, ...)
{
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof line) { w->text_oom = 1; return; }
  if (w->tlen + (size_t)n + 1 > w->tcap) {
    size_t cap = w->tcap ? 2 * w->tcap : 4096;
    char *nb = realloc(w->text, cap);
    if (!nb) { w->text_oom = 1; return; }
    w->text = nb;
    w->tcap = cap;
  }
  memcpy(w->text + w->tlen, line, (size_t)n + 1);
  w->tlen += (size_t)n;
}

void crd_ckpt_text_int(crd_ckpt_writer *w, const char *key, long long v) { text_line(w, "%s %lld\n", key, v); }
/* %a: the exact binary value, read back by strtod. */
void crd_ckpt_text_dbl(crd_ckpt_writer *w, const char *key, double v) { text_line(w, "%s %a\n", key, v); }

int crd_ckpt_text_end(crd_ckpt_writer *w)
{
  CRD_CHECK(!w->text_oom, CRD_ERR_MEM, "checkpoint %s: out of memory for section %s", w->path, w->tname);
  /* the terminating NUL is part of the payload: readers may use string functions */
  return crd_ckpt_add(w, w->tname, w->text ? w->text : "", w->text ? w->tlen + 1 : 1);
}

void crd_ckpt_abort(crd_ckpt_writer **pw)
{
  crd_ckpt_writer *w = *pw;
  if (!w) return;
  if (w->f) fclose(w->f);
  unlink(w->tmp);
  free(w->text);
  free(w);
  *pw = NULL;
}

int crd_ckpt_commit(crd_ckpt_writer **pw)
{
  crd_ckpt_writer *w = *pw;
  uint64_t sum = w->sum;
  CRD_CALL(crd_ckpt_add(w, "end", &sum, sizeof sum));
  int err = w->fd_err;
  if (!err && fflush(w->f) != 0) err = errno;
  /* fsync before the rename: otherwise a power cut can leave the new name
   * on an empty file and the old checkpoint gone */
  if (!err && fsync(fileno(w->f)) != 0) err = errno;
  if (fclose(w->f) != 0 && !err) err = errno;
  w->f = NULL;
  if (!err && rename(w->tmp, w->path) != 0) err = errno;
  if (err) {
    int rc = CRD_ERR(CRD_ERR_IO, "cannot write checkpoint %s: %s", w->path, strerror(err));
    crd_ckpt_abort(pw);
    return rc;
  }
  /* the directory entry too */
  char dir[CKPT_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", w->path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0; else snprintf(dir, sizeof dir, ".");
  int fd = open(dir, O_RDONLY);
  if (fd >= 0) { fsync(fd); close(fd); }
  free(w->text);
  free(w);
  *pw = NULL;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* reader                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct ckpt_sec {
  char name[CKPT_NAME];
  size_t off, len;
} ckpt_sec;

struct crd_ckpt {
  char path[CKPT_PATH_MAX];
  unsigned char *buf;
  size_t size;
  uint64_t case_hash;
  int nsec;
  ckpt_sec *sec;
};

void crd_ckpt_close(crd_ckpt **pc)
{
  crd_ckpt *c = *pc;
  if (!c) return;
  free(c->buf);
  free(c->sec);
  free(c);
  *pc = NULL;
}

static int ckpt_read_all(crd_ckpt *c)
{
  FILE *f = fopen(c->path, "rb");
  if (!f) return CRD_ERR(CRD_ERR_IO, "cannot read checkpoint %s: %s", c->path, strerror(errno));
  size_t cap = 1 << 16, n = 0, k;
  unsigned char *b = malloc(cap);
  while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      unsigned char *nb = realloc(b, 2 * cap);
      if (!nb) { free(b); b = NULL; break; }
      b = nb;
      cap *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!b) return CRD_ERR(CRD_ERR_MEM, "checkpoint %s: out of memory", c->path);
  if (bad) { free(b); return CRD_ERR(CRD_ERR_IO, "cannot read checkpoint %s", c->path); }
  c->buf = b;
  c->size = n;
  return 0;
}

/* The header: magic, format version, byte order, the case's hash. */
static int check_header(crd_ckpt *c, const char *path)
{
  const unsigned char *b = c->buf;
  if (c->size < 8 || memcmp(b, ckpt_magic, 8) != 0)
    return CRD_ERR(CRD_ERR_INPUT, "%s: not a crdyn checkpoint (bad magic: the file does not start with CRDCKPT)", path);
  if (c->size < CKPT_HEADER)
    return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint truncated (%zu bytes, shorter than its header)", path, c->size);
  uint32_t ver, bom;
  memcpy(&ver, b + 8, 4);
  memcpy(&bom, b + 12, 4);
  memcpy(&c->case_hash, b + 16, 8);
  if (bom != CKPT_BOM) return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint written on a machine of the other byte order", path);
  if (ver != CRD_CKPT_VERSION)
    return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint format version %u, this crdyn reads version %u", path, (unsigned)ver,
                   CRD_CKPT_VERSION);
  return 0;
}

/* The section header at byte off into s; the section must fit the file. */
static int read_section(const crd_ckpt *c, const char *path, size_t off, ckpt_sec *s)
{
  const unsigned char *b = c->buf;
  if (c->size - off < CKPT_NAME + 8)
    return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint truncated at byte %zu (no end section: the file was cut short)",
                   path, off);
  memcpy(s->name, b + off, CKPT_NAME);
  /* names are NUL-padded: bytes after the first NUL must be NUL too (the
   * end section's own header is not under the checksum) */
  size_t nl = strnlen(s->name, CKPT_NAME);
  int padded_ok = nl > 0 && nl < CKPT_NAME;
  for (size_t k = nl; k < CKPT_NAME && padded_ok; ++k) padded_ok = s->name[k] == 0;
  if (!padded_ok) return CRD_ERR(CRD_ERR_INPUT, "%s: corrupt checkpoint: bad section name at byte %zu", path, off);
  uint64_t len;
  memcpy(&len, b + off + CKPT_NAME, 8);
  s->off = off + CKPT_NAME + 8;
  size_t padded = len + (8 - len % 8) % 8;
  if (len > c->size || padded > c->size - s->off)
    return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint truncated: section '%s' at byte %zu needs %llu bytes, the file "
                   "ends %zu bytes later", path, s->name, off, (unsigned long long)len, c->size - s->off);
  s->len = (size_t)len;
  return 0;
}

/* The end section at byte off: the checksum of everything before it, and
 * nothing after it. */
static int check_end(const crd_ckpt *c, const char *path, size_t off, const ckpt_sec *s)
{
  const unsigned char *b = c->buf;
  uint64_t want, got = crd_fnv1a(CRD_FNV_INIT, b, off);
  if (s->len != 8) return CRD_ERR(CRD_ERR_INPUT, "%s: corrupt checkpoint: end section of %llu bytes", path,
                                  (unsigned long long)s->len);
  memcpy(&want, b + s->off, 8);
  if (want != got) return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint checksum mismatch (the file is corrupt)", path);
  if (s->off + 8 != c->size)
    return CRD_ERR(CRD_ERR_INPUT, "%s: corrupt checkpoint: %zu bytes after the end section", path,
                   c->size - s->off - 8);
  return 0;
}

int crd_ckpt_open(const char *path, crd_ckpt **out)
{
  *out = NULL;
  crd_ckpt *c;
  CRD_CALL(CRD_CALLOC(1, &c));
  snprintf(c->path, sizeof c->path, "%s", path);
  int rc = ckpt_read_all(c);
  if (!rc) rc = check_header(c, path);
  size_t off = CKPT_HEADER;
  int cap = 0, done = 0;
  while (!rc && !done) {
    ckpt_sec s;
    if ((rc = read_section(c, path, off, &s))) break;
    if (!strcmp(s.name, "end")) {
      if ((rc = check_end(c, path, off, &s))) break;
      done = 1;
    }
    if (c->nsec == cap) {
      cap = cap ? 2 * cap : 16;
      ckpt_sec *ns = realloc(c->sec, (size_t)cap * sizeof *ns);
      if (!ns) { rc = CRD_ERR(CRD_ERR_MEM, "checkpoint %s: out of memory", path); break; }
      c->sec = ns;
    }
    c->sec[c->nsec++] = s;
    off = s.off + s.len + (8 - s.len % 8) % 8;
  }
  if (rc) {
    crd_ckpt_close(&c);
    return rc;
  }
  *out = c;
  return 0;
}

const char *crd_ckpt_path(const crd_ckpt *c) { return c->path; }
uint64_t crd_ckpt_case_hash(const crd_ckpt *c) { return c->case_hash; }

const void *crd_ckpt_find(const crd_ckpt *c, const char *name, size_t *len)
{
  for (int k = 0; k < c->nsec; ++k)
    if (!strcmp(c->sec[k].name, name)) {
      if (len) *len = c->sec[k].len;
      return c->buf + c->sec[k].off;
    }
  return NULL;
}

int crd_ckpt_get(const crd_ckpt *c, const char *name, void *dst, size_t len)
{
  size_t n;
  const void *p = crd_ckpt_find(c, name, &n);
  CRD_CHECK(p, CRD_ERR_INPUT, "%s: checkpoint has no section '%s'", c->path, name);
  CRD_CHECK(n == len, CRD_ERR_INPUT, "%s: checkpoint section '%s' has %zu bytes, this case needs %zu (wrong sizes)",
            c->path, name, n, len);
  memcpy(dst, p, len);
  return 0;
}

/* *val: the text of key in section, NULL when the section has no such key. */
static int text_find(const crd_ckpt *c, const char *section, const char *key, const char **val)
{
  size_t n;
  const char *t = crd_ckpt_find(c, section, &n);
  CRD_CHECK(t, CRD_ERR_INPUT, "%s: checkpoint has no section '%s'", c->path, section);
  CRD_CHECK(n > 0 && t[n - 1] == 0, CRD_ERR_INPUT, "%s: checkpoint section '%s' is not text", c->path, section);
  size_t kl = strlen(key);
  *val = NULL;
  for (const char *line = t; *line;) {
    if (!strncmp(line, key, kl) && line[kl] == ' ') {
      *val = line + kl + 1;
      return 0;
    }
    const char *nl = strchr(line, '\n');
    if (!nl) break;
    line = nl + 1;
  }
  return 0;
}

static int text_value(const crd_ckpt *c, const char *section, const char *key, const char **val)
{
  CRD_CALL(text_find(c, section, key, val));
  CRD_CHECK(*val, CRD_ERR_INPUT, "%s: checkpoint section '%s' has no value '%s'", c->path, section, key);
  return 0;
}

int crd_ckpt_get_dbl(const crd_ckpt *c, const char *section, const char *key, double *v)
{
  const char *s;
  CRD_CALL(text_value(c, section, key, &s));
  char *end;
  *v = strtod(s, &end);
  CRD_CHECK(end != s && (*end == '\n' || *end == 0), CRD_ERR_INPUT, "%s: checkpoint value '%s.%s' is not a number",
            c->path, section, key);
  return 0;
}

int crd_ckpt_get_dbl_or(const crd_ckpt *c, const char *section, const char *key, double dflt, double *v)
{
  const char *s;
  CRD_CALL(text_find(c, section, key, &s));
  if (!s) {
    *v = dflt;
    return 0;
  }
  return crd_ckpt_get_dbl(c, section, key, v);
}

int crd_ckpt_get_int(const crd_ckpt *c, const char *section, const char *key, long long *v)
{
  const char *s;
  CRD_CALL(text_value(c, section, key, &s));
  char *end;
  *v = strtoll(s, &end, 10);
  CRD_CHECK(end != s && (*end == '\n' || *end == 0), CRD_ERR_INPUT, "%s: checkpoint value '%s.%s' is not an integer",
            c->path, section, key);
  return 0;
}
