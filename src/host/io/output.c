/* crdyn: output files (output.h): directories, atomic writes, history.csv,
 * VTU frames and the result.pvd collection.
 *
 * Whatever could be mistaken for a complete result is written under a
 * temporary name (NAME.tmp, history.csv.part) and renamed when complete, so
 * a crash leaves no truncated file under the final name.  No fsync: the
 * threat is a crashed or killed run, not a crashed machine, and fsync per
 * frame costs milliseconds to seconds on network file systems. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "crdyn/checkpoint.h"
#include "crdyn/error.h"
#include "crdyn/output.h"

#define IO_PATH_MAX 4096
/* Large stdio buffer: a 1e6-node frame is ~100 MB of text. */
#define IO_BUFSIZE (1 << 20)

/* "a/b" + "/" + "c" into out; error when it does not fit. */
static int path_join(char *out, size_t size, const char *dir, const char *name)
{
  int len = snprintf(out, size, "%s/%s", dir, name);
  CRD_CHECK(len >= 0 && (size_t)len < size, CRD_ERR_INPUT, "path too long: %s/%s", dir, name);
  return 0;
}

static int path_suffix(char *out, size_t size, const char *path, const char *suffix)
{
  int len = snprintf(out, size, "%s%s", path, suffix);
  CRD_CHECK(len >= 0 && (size_t)len < size, CRD_ERR_INPUT, "path too long: %s%s", path, suffix);
  return 0;
}

/* Characters that would break an XML attribute or a CSV header cell. */
static int bad_name(const char *s, const char *forbidden)
{
  return !s || !*s || strpbrk(s, forbidden) != NULL;
}

int crd_mkdir_p(const char *dir)
{
  CRD_CHECK(dir && *dir, CRD_ERR_INPUT, "crd_mkdir_p: empty directory name");
  char buf[IO_PATH_MAX];
  size_t len = strlen(dir);
  CRD_CHECK(len < sizeof buf, CRD_ERR_INPUT, "directory name too long: %s", dir);
  memcpy(buf, dir, len + 1);
  /* Create every prefix ending before a '/', then the whole path. */
  for (size_t i = 1; i <= len; ++i) {
    if (buf[i] != '/' && buf[i] != '\0') continue;
    if (buf[i - 1] == '/') continue; /* "a//b" */
    char saved = buf[i];
    buf[i] = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return CRD_ERR(CRD_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
    buf[i] = saved;
  }
  struct stat st;
  if (stat(dir, &st) != 0)
    return CRD_ERR(CRD_ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
  CRD_CHECK(S_ISDIR(st.st_mode), CRD_ERR_IO, "cannot create directory %s: a file of that name exists", dir);
  return 0;
}

/* Close f (which wrote tmp) and rename tmp to path; on any failure remove
 * tmp and report the final path with errno's text. */
static int finish_atomic(FILE *f, const char *tmp, const char *path)
{
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  if (fflush(f) != 0 && !err) err = errno;
  if (fclose(f) != 0 && !err) err = errno;
  if (err) {
    unlink(tmp);
    return CRD_ERR(CRD_ERR_IO, "cannot write %s: %s", path, strerror(err));
  }
  if (rename(tmp, path) != 0) {
    err = errno;
    unlink(tmp);
    return CRD_ERR(CRD_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(err));
  }
  return 0;
}

int crd_write_atomic(const char *path, const char *text)
{
  CRD_CHECK(path && *path && text, CRD_ERR_INPUT, "crd_write_atomic: NULL or empty argument");
  char tmp[IO_PATH_MAX];
  CRD_CALL(path_suffix(tmp, sizeof tmp, path, ".tmp"));
  FILE *f = fopen(tmp, "w");
  if (!f) return CRD_ERR(CRD_ERR_IO, "cannot write %s (temporary %s): %s", path, tmp, strerror(errno));
  fputs(text, f);
  CRD_CALL(finish_atomic(f, tmp, path));
  return 0;
}

/* ------------------------------------------------------------------------ */
/* history.csv                                                              */
/* ------------------------------------------------------------------------ */

struct crd_history {
  FILE *f;
  int ncols_extra;
  char *row;               /* one formatted row */
  size_t rowcap;
  int64_t offset;          /* bytes written so far */
  uint64_t hash;           /* FNV-1a 64 of those bytes (checkpoints, restart) */
  char part[IO_PATH_MAX];  /* history.csv.part */
  char final[IO_PATH_MAX]; /* history.csv */
};

static const char history_header[] =
    "step,time,load_factor,iterations,residual,kinetic,strain,external_work,total,"
    "Lx,Ly,Lz,Jx,Jy,Jz";

int crd_history_open(const char *dir, int ncols_extra, const char *const *cols_extra, crd_history **out)
{
  CRD_CHECK(out && dir, CRD_ERR_INPUT, "crd_history_open: NULL argument");
  *out = NULL;
  CRD_CHECK(ncols_extra >= 0 && (ncols_extra == 0 || cols_extra), CRD_ERR_INPUT,
            "crd_history_open: %d extra columns without names", ncols_extra);
  for (int k = 0; k < ncols_extra; ++k)
    CRD_CHECK(!bad_name(cols_extra[k], ",\"\r\n"), CRD_ERR_INPUT,
              "history column %d: empty name or one with a comma, quote or newline ('%s')", k,
              cols_extra[k] ? cols_extra[k] : "(null)");
  CRD_CALL(crd_mkdir_p(dir));

  crd_history *h = NULL;
  CRD_CALL(CRD_CALLOC(1, &h));
  h->ncols_extra = ncols_extra;
  int rc = path_join(h->part, sizeof h->part, dir, "history.csv.part");
  if (!rc) rc = path_join(h->final, sizeof h->final, dir, "history.csv");
  if (rc) { free(h); return CRD_TRACE(rc); }
  /* A history.csv left by an earlier run in this directory would pass for
   * this run's result while it goes on (or after it fails). */
  if (unlink(h->final) != 0 && errno != ENOENT) {
    rc = CRD_ERR(CRD_ERR_IO, "cannot remove the old %s: %s", h->final, strerror(errno));
    free(h);
    return rc;
  }
  h->f = fopen(h->part, "w");
  if (!h->f) {
    rc = CRD_ERR(CRD_ERR_IO, "cannot create %s: %s", h->part, strerror(errno));
    free(h);
    return rc;
  }
  h->hash = CRD_FNV_INIT;
  h->rowcap = 64 + 32 * (size_t)(15 + ncols_extra);
  for (int k = 0; k < ncols_extra; ++k) h->rowcap += strlen(cols_extra[k]) + 1;
  h->row = malloc(h->rowcap);
  if (!h->row) {
    fclose(h->f);
    free(h);
    return CRD_ERR(CRD_ERR_MEM, "out of memory for a history row");
  }
  size_t n = (size_t)snprintf(h->row, h->rowcap, "%s", history_header);
  for (int k = 0; k < ncols_extra; ++k) n += (size_t)snprintf(h->row + n, h->rowcap - n, ",%s", cols_extra[k]);
  n += (size_t)snprintf(h->row + n, h->rowcap - n, "\n");
  fwrite(h->row, 1, n, h->f);
  h->hash = crd_fnv1a(h->hash, h->row, n);
  h->offset = (int64_t)n;
  if (fflush(h->f) != 0 || ferror(h->f)) {
    rc = CRD_ERR(CRD_ERR_IO, "cannot write %s: %s", h->part, strerror(errno));
    fclose(h->f);
    free(h->row);
    free(h);
    return rc;
  }
  *out = h;
  return 0;
}

void crd_history_mark(const crd_history *h, int64_t *offset, uint64_t *hash)
{
  *offset = h->offset;
  *hash = h->hash;
}

int crd_history_resume(const char *dir, int ncols_extra, int64_t offset, uint64_t hash, crd_history **out)
{
  *out = NULL;
  crd_history *h = NULL;
  CRD_CALL(CRD_CALLOC(1, &h));
  h->ncols_extra = ncols_extra;
  int rc = path_join(h->part, sizeof h->part, dir, "history.csv.part");
  if (!rc) rc = path_join(h->final, sizeof h->final, dir, "history.csv");
  if (rc) { free(h); return CRD_TRACE(rc); }
  /* a run that went on to its end after the checkpoint renamed the .part */
  if (access(h->part, F_OK) != 0 && access(h->final, F_OK) == 0 && rename(h->final, h->part) != 0) {
    rc = CRD_ERR(CRD_ERR_IO, "cannot rename %s to %s: %s", h->final, h->part, strerror(errno));
    free(h);
    return rc;
  }
  h->rowcap = 64 + 32 * (size_t)(15 + ncols_extra);
  h->row = malloc(h->rowcap);
  h->f = fopen(h->part, "r+b");
  if (!h->row || !h->f) {
    rc = h->row ? CRD_ERR(CRD_ERR_IO, "restart: cannot open %s (the history the checkpoint continues): %s",
                          h->part, strerror(errno))
                : CRD_ERR(CRD_ERR_MEM, "out of memory for a history row");
    goto fail;
  }
  /* the bytes up to the checkpoint must be the ones it recorded: rows after
   * it (written before the run stopped) are cut off and written again */
  uint64_t x = CRD_FNV_INIT;
  int64_t left = offset;
  char buf[65536];
  while (left > 0) {
    size_t want = left < (int64_t)sizeof buf ? (size_t)left : sizeof buf, got = fread(buf, 1, want, h->f);
    if (got == 0) break;
    x = crd_fnv1a(x, buf, got);
    left -= (int64_t)got;
  }
  if (left > 0) {
    rc = CRD_ERR(CRD_ERR_INPUT, "restart: %s has %lld bytes, shorter than the %lld the checkpoint recorded",
                 h->part, (long long)(offset - left), (long long)offset);
    goto fail;
  }
  if (x != hash) {
    rc = CRD_ERR(CRD_ERR_INPUT, "restart: %s does not match the checkpoint (its first %lld bytes differ from "
                 "the history the checkpoint recorded)", h->part, (long long)offset);
    goto fail;
  }
  if (fflush(h->f) != 0 || ftruncate(fileno(h->f), (off_t)offset) != 0 || fseeko(h->f, (off_t)offset, SEEK_SET) != 0) {
    rc = CRD_ERR(CRD_ERR_IO, "restart: cannot truncate %s to %lld bytes: %s", h->part, (long long)offset,
                 strerror(errno));
    goto fail;
  }
  h->offset = offset;
  h->hash = hash;
  *out = h;
  return 0;
fail:
  if (h->f) fclose(h->f);
  free(h->row);
  free(h);
  return rc;
}

int crd_history_row(crd_history *h, int step, double time, double load_factor, int iterations,
                    double residual, const double energy[4], const double L[3], const double J[3],
                    const double *extra)
{
  CRD_CHECK(h && h->f && energy && L && J && (h->ncols_extra == 0 || extra), CRD_ERR_INPUT,
            "crd_history_row: NULL argument");
  /* %.17g: every double round-trips, so histories compare bitwise.  The
   * row is formatted first: its bytes are counted and hashed (restart). */
  FILE *f = h->f;
  char *b = h->row;
  size_t cap = h->rowcap, n;
  n = (size_t)snprintf(b, cap, "%d,%.17g,%.17g,%d,%.17g", step, time, load_factor, iterations, residual);
  for (int k = 0; k < 4; ++k) n += (size_t)snprintf(b + n, cap - n, ",%.17g", energy[k]);
  for (int k = 0; k < 3; ++k) n += (size_t)snprintf(b + n, cap - n, ",%.17g", L[k]);
  for (int k = 0; k < 3; ++k) n += (size_t)snprintf(b + n, cap - n, ",%.17g", J[k]);
  for (int k = 0; k < h->ncols_extra; ++k) n += (size_t)snprintf(b + n, cap - n, ",%.17g", extra[k]);
  n += (size_t)snprintf(b + n, cap - n, "\n");
  CRD_CHECK(n < cap, CRD_ERR_INPUT, "%s: history row of step %d longer than its buffer", h->part, step);
  fwrite(b, 1, n, f);
  h->offset += (int64_t)n;
  h->hash = crd_fnv1a(h->hash, b, n);
  /* Flushed per row so a user can follow the run (tail -f). */
  if (fflush(f) != 0 || ferror(f))
    return CRD_ERR(CRD_ERR_IO, "cannot write %s (step %d): %s", h->part, step, strerror(errno));
  return 0;
}

int crd_history_close(crd_history **hp, int complete)
{
  if (!hp || !*hp) return 0;
  crd_history *h = *hp;
  *hp = NULL;
  int rc = 0;
  if (h->f) {
    int bad = ferror(h->f);
    if (fclose(h->f) != 0 || bad)
      rc = CRD_ERR(CRD_ERR_IO, "cannot write %s: %s", h->part, strerror(errno ? errno : EIO));
  }
  if (!rc && complete && rename(h->part, h->final) != 0)
    rc = CRD_ERR(CRD_ERR_IO, "cannot rename %s to %s: %s", h->part, h->final, strerror(errno));
  free(h->row);
  free(h);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* VTU                                                                      */
/* ------------------------------------------------------------------------ */

/* Decimal integer without printf's format parsing: connectivity and offsets
 * are most of the numbers of a frame. */
static inline void put_int(FILE *f, int64_t v)
{
  char b[24];
  int k = sizeof b;
  uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
  do { b[--k] = (char)('0' + u % 10); u /= 10; } while (u);
  if (v < 0) b[--k] = '-';
  fwrite(b + k, 1, sizeof b - (size_t)k, f);
}

static void put_doubles(FILE *f, const double *a, int64_t n, int per_line, const char *fmt)
{
  for (int64_t i = 0; i < n; ++i) {
    fprintf(f, fmt, a[i]);
    fputc((i + 1) % per_line == 0 || i + 1 == n ? '\n' : ' ', f);
  }
}

static int check_fields(const char *what, int nf, const crd_vtu_field *fld, const char *path)
{
  CRD_CHECK(nf == 0 || fld, CRD_ERR_INPUT, "%s: %d %s fields but no array", path, nf, what);
  for (int k = 0; k < nf; ++k) {
    CRD_CHECK(!bad_name(fld[k].name, "\"<>&\r\n"), CRD_ERR_INPUT,
              "%s: %s field %d has an empty name or one with XML special characters", path, what, k);
    CRD_CHECK(fld[k].ncomp >= 1 && fld[k].data, CRD_ERR_INPUT,
              "%s: %s field '%s' has %d components or no data", path, what, fld[k].name, fld[k].ncomp);
  }
  return 0;
}

static void put_fields(FILE *f, const char *tag, int nf, const crd_vtu_field *fld, int64_t count)
{
  if (nf == 0) return;
  fprintf(f, "      <%s>\n", tag);
  for (int k = 0; k < nf; ++k) {
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"ascii\">\n",
            fld[k].name, fld[k].ncomp);
    /* %.10g: ten digits are plenty to look at a field. */
    put_doubles(f, fld[k].data, count * fld[k].ncomp, fld[k].ncomp, "%.10g");
    fputs("        </DataArray>\n", f);
  }
  fprintf(f, "      </%s>\n", tag);
}

int crd_vtu_write(const char *path, int nn, const double *x, int ne, const int32_t *quads, int npf,
                  const crd_vtu_field *point_fields, int ncf, const crd_vtu_field *cell_fields)
{
  CRD_CHECK(path && *path, CRD_ERR_INPUT, "crd_vtu_write: empty path");
  CRD_CHECK(nn >= 0 && ne >= 0 && (nn == 0 || x) && (ne == 0 || quads), CRD_ERR_INPUT,
            "%s: bad mesh (%d nodes, %d quads, or NULL arrays)", path, nn, ne);
  CRD_CHECK((int64_t)4 * ne <= INT32_MAX, CRD_ERR_INPUT, "%s: %d quads exceed the Int32 offsets", path, ne);
  for (int64_t k = 0; k < (int64_t)4 * ne; ++k)
    CRD_CHECK(quads[k] >= 0 && quads[k] < nn, CRD_ERR_INPUT, "%s: quad %lld uses node %d (have %d nodes)",
              path, (long long)(k / 4), (int)quads[k], nn);
  CRD_CALL(check_fields("point", npf, point_fields, path));
  CRD_CALL(check_fields("cell", ncf, cell_fields, path));

  char tmp[IO_PATH_MAX];
  CRD_CALL(path_suffix(tmp, sizeof tmp, path, ".tmp"));
  FILE *f = fopen(tmp, "w");
  if (!f) return CRD_ERR(CRD_ERR_IO, "cannot write %s (temporary %s): %s", path, tmp, strerror(errno));
  char *buf = malloc(IO_BUFSIZE);
  if (buf) setvbuf(f, buf, _IOFBF, IO_BUFSIZE);

  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <UnstructuredGrid>\n", f);
  fprintf(f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", nn, ne);
  put_fields(f, "PointData", npf, point_fields, nn);
  put_fields(f, "CellData", ncf, cell_fields, ne);

  /* %.15g for coordinates: small displacements of large models stay visible
   * as differences of positions. */
  fputs("      <Points>\n"
        "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n", f);
  put_doubles(f, x, (int64_t)3 * nn, 3, "%.15g");
  fputs("        </DataArray>\n      </Points>\n      <Cells>\n"
        "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", f);
  for (int64_t e = 0; e < ne; ++e) {
    for (int a = 0; a < 4; ++a) {
      put_int(f, quads[4 * e + a]);
      fputc(a == 3 ? '\n' : ' ', f);
    }
  }
  fputs("        </DataArray>\n"
        "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n", f);
  for (int64_t e = 0; e < ne; ++e) {
    put_int(f, 4 * (e + 1));
    fputc((e + 1) % 16 == 0 || e + 1 == ne ? '\n' : ' ', f);
  }
  fputs("        </DataArray>\n"
        "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n", f);
  for (int64_t e = 0; e < ne; ++e) /* 9 = VTK_QUAD */
    fputs((e + 1) % 32 == 0 || e + 1 == ne ? "9\n" : "9 ", f);
  fputs("        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n", f);

  int rc = finish_atomic(f, tmp, path); /* closes f before buf is freed */
  free(buf);
  CRD_CALL(rc);
  return 0;
}

static void put_pfields(FILE *f, const char *tag, int nf, const crd_vtu_field *fld)
{
  if (nf == 0) return;
  fprintf(f, "    <%s>\n", tag);
  for (int k = 0; k < nf; ++k)
    fprintf(f, "      <PDataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n", fld[k].name,
            fld[k].ncomp);
  fprintf(f, "    </%s>\n", tag);
}

int crd_pvtu_write(const char *path, const char *base, int npieces, int npf, const crd_vtu_field *point_fields,
                   int ncf, const crd_vtu_field *cell_fields)
{
  CRD_CHECK(path && *path && base && npieces >= 1, CRD_ERR_INPUT, "crd_pvtu_write: bad arguments for %s",
            path ? path : "(null)");
  CRD_CHECK(!bad_name(base, "\"<>&\r\n/"), CRD_ERR_INPUT, "%s: bad piece name '%s'", path, base);
  for (int k = 0; k < npf; ++k)
    CRD_CHECK(!bad_name(point_fields[k].name, "\"<>&\r\n"), CRD_ERR_INPUT, "%s: bad point field name", path);
  for (int k = 0; k < ncf; ++k)
    CRD_CHECK(!bad_name(cell_fields[k].name, "\"<>&\r\n"), CRD_ERR_INPUT, "%s: bad cell field name", path);
  char tmp[IO_PATH_MAX];
  CRD_CALL(path_suffix(tmp, sizeof tmp, path, ".tmp"));
  FILE *f = fopen(tmp, "w");
  if (!f) return CRD_ERR(CRD_ERR_IO, "cannot write %s (temporary %s): %s", path, tmp, strerror(errno));
  fputs("<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"PUnstructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <PUnstructuredGrid GhostLevel=\"0\">\n", f);
  put_pfields(f, "PPointData", npf, point_fields);
  put_pfields(f, "PCellData", ncf, cell_fields);
  fputs("    <PPoints>\n      <PDataArray type=\"Float64\" NumberOfComponents=\"3\"/>\n    </PPoints>\n", f);
  for (int k = 0; k < npieces; ++k) fprintf(f, "    <Piece Source=\"%s_p%d.vtu\"/>\n", base, k);
  fputs("  </PUnstructuredGrid>\n</VTKFile>\n", f);
  return finish_atomic(f, tmp, path);
}

/* ------------------------------------------------------------------------ */
/* result.pvd                                                               */
/* ------------------------------------------------------------------------ */

struct crd_pvd {
  char path[IO_PATH_MAX];
  char *body;      /* the <DataSet .../> lines so far */
  size_t len, cap;
};

static const char pvd_head[] =
    "<?xml version=\"1.0\"?>\n"
    "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
    "  <Collection>\n";
static const char pvd_tail[] = "  </Collection>\n</VTKFile>\n";

static int pvd_write(crd_pvd *p)
{
  char *text = NULL;
  size_t nh = sizeof pvd_head - 1, nt = sizeof pvd_tail - 1;
  CRD_CALL(CRD_CALLOC(nh + p->len + nt + 1, &text));
  memcpy(text, pvd_head, nh);
  if (p->len) memcpy(text + nh, p->body, p->len);
  memcpy(text + nh + p->len, pvd_tail, nt + 1);
  int rc = crd_write_atomic(p->path, text);
  free(text);
  CRD_CALL(rc);
  return 0;
}

int crd_pvd_create(const char *dir, crd_pvd **out)
{
  CRD_CHECK(dir && out, CRD_ERR_INPUT, "crd_pvd_create: NULL argument");
  *out = NULL;
  CRD_CALL(crd_mkdir_p(dir));
  crd_pvd *p = NULL;
  CRD_CALL(CRD_CALLOC(1, &p));
  int rc = path_join(p->path, sizeof p->path, dir, "result.pvd");
  /* Written at once, empty: a result.pvd of an earlier run in this
   * directory would list frames this run has not written. */
  if (!rc) rc = pvd_write(p);
  if (rc) {
    free(p);
    return CRD_TRACE(rc);
  }
  *out = p;
  return 0;
}

int crd_pvd_add(crd_pvd *p, double time, const char *relfile)
{
  CRD_CHECK(p, CRD_ERR_INPUT, "crd_pvd_add: NULL collection");
  CRD_CHECK(!bad_name(relfile, "\"<>&\r\n"), CRD_ERR_INPUT,
            "%s: frame file name empty or with XML special characters ('%s')", p->path,
            relfile ? relfile : "(null)");
  char line[IO_PATH_MAX + 128];
  int len = snprintf(line, sizeof line, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s\"/>\n",
                     time, relfile);
  CRD_CHECK(len > 0 && (size_t)len < sizeof line, CRD_ERR_INPUT, "%s: frame file name too long: %s",
            p->path, relfile);
  if (p->len + (size_t)len + 1 > p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 4096;
    while (cap < p->len + (size_t)len + 1) cap *= 2;
    char *nb = realloc(p->body, cap);
    CRD_CHECK(nb, CRD_ERR_MEM, "%s: out of memory for %zu bytes of frame list", p->path, cap);
    p->body = nb;
    p->cap = cap;
  }
  memcpy(p->body + p->len, line, (size_t)len + 1);
  p->len += (size_t)len;
  CRD_CALL(pvd_write(p));
  return 0;
}

const char *crd_pvd_entries(const crd_pvd *p, size_t *len)
{
  *len = p->len;
  return p->len ? p->body : "";
}

int crd_pvd_restore(crd_pvd *p, const char *entries, size_t len)
{
  char *nb = malloc(len + 1);
  CRD_CHECK(nb, CRD_ERR_MEM, "%s: out of memory for %zu bytes of frame list", p->path, len + 1);
  memcpy(nb, entries, len);
  nb[len] = 0;
  free(p->body);
  p->body = nb;
  p->len = len;
  p->cap = len + 1;
  CRD_CALL(pvd_write(p));
  return 0;
}

void crd_pvd_destroy(crd_pvd **p)
{
  if (!p || !*p) return;
  free((*p)->body);
  free(*p);
  *p = NULL;
}
