/* Output files: mkdir -p, atomic writes, history.csv(.part) life cycle and
 * header, a VTU frame that parses minimally, result.pvd listing frames. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crdyn/error.h"
#include "crdyn/output.h"
#include "tap.h"

static int exists(const char *dir, const char *name)
{
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* Whole file as a string (NULL when it cannot be read). */
static char *slurp(const char *dir, const char *name)
{
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

/* Number of whitespace-separated tokens between the first '>' after the
 * tag containing key and the next '<'. */
static int count_tokens_after(const char *s, const char *key)
{
  const char *p = strstr(s, key);
  if (!p) return -1;
  p = strchr(p, '>');
  if (!p) return -1;
  int n = 0, in = 0;
  for (++p; *p && *p != '<'; ++p) {
    int ws = *p == ' ' || *p == '\n';
    if (!ws && !in) ++n;
    in = !ws;
  }
  return n;
}

static int count_str(const char *s, const char *key)
{
  int n = 0;
  for (const char *p = s; (p = strstr(p, key)); p += strlen(key)) ++n;
  return n;
}

int main(void)
{
  char base[] = "/tmp/crd-t320-XXXXXX";
  T_OK(mkdtemp(base) != NULL, "temporary directory %s", base);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/out/run1", base);

  /* mkdir -p, twice (idempotent). */
  int rc = crd_mkdir_p(dir);
  struct stat st;
  T_OK(rc == 0 && stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "crd_mkdir_p creates parents");
  T_OK(crd_mkdir_p(dir) == 0, "crd_mkdir_p on an existing directory");

  /* History with two probe columns. */
  const char *cols[] = {"A.ux", "A.uy"};
  crd_history *h = NULL;
  rc = crd_history_open(dir, 2, cols, &h);
  T_OK(rc == 0 && h, "history open");
  const double en[4] = {1.0, 2.0, 0.5, 2.5}, L[3] = {0.1, 0.2, 0.3}, J[3] = {-1, 0, 1};
  const double ex[2] = {1.0 / 3.0, -2e-300};
  rc = crd_history_row(h, 0, 0.0, 1.0, 0, 0.0, en, L, J, ex);
  rc = rc ? rc : crd_history_row(h, 1, 0.1, 1.0, 3, 1.25e-9, en, L, J, ex);
  T_OK(rc == 0, "two history rows");
  T_OK(exists(dir, "history.csv.part") && !exists(dir, "history.csv"), "running: history.csv.part, no history.csv");
  char *text = slurp(dir, "history.csv.part");
  const char *want_head = "step,time,load_factor,iterations,residual,kinetic,strain,external_work,total,"
                          "Lx,Ly,Lz,Jx,Jy,Jz,A.ux,A.uy\n";
  T_OK(text && !strncmp(text, want_head, strlen(want_head)), "header line exact");
  T_OK(text && strstr(text, "\n1,0.10000000000000001,1,3,1.25e-09,1,2,0.5,2.5,"
                            "0.10000000000000001,0.20000000000000001,0.29999999999999999,-1,0,1,"
                            "0.33333333333333331,-2.0000000000000001e-300\n"),
       "row flushed with integers and %%.17g values");
  /* The printed values read back bitwise. */
  T_OK(strtod("0.33333333333333331", NULL) == 1.0 / 3.0, "%%.17g round-trips");
  free(text);
  rc = crd_history_close(&h, 1);
  T_OK(rc == 0 && !h && exists(dir, "history.csv") && !exists(dir, "history.csv.part"),
       "close(complete=1): history.csv, no .part");

  /* An incomplete run leaves only the .part (and removes the old result). */
  rc = crd_history_open(dir, 0, NULL, &h);
  T_OK(rc == 0 && !exists(dir, "history.csv"), "reopen removes the previous history.csv");
  rc = crd_history_row(h, 0, 0.0, 1.0, 0, 0.0, en, L, J, NULL);
  rc = rc ? rc : crd_history_close(&h, 0);
  T_OK(rc == 0 && exists(dir, "history.csv.part") && !exists(dir, "history.csv"),
       "close(complete=0): only history.csv.part");
  const char *badcol[] = {"a,b"};
  rc = crd_history_open(dir, 1, badcol, &h);
  T_OK(rc == CRD_ERR_INPUT && !h, "a column name with a comma is refused: %s", crd_err_message());

  /* VTU: 2 x 1 quads, a point vector field and a cell scalar. */
  const double x[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0.125};
  const int32_t q[] = {0, 1, 4, 3, 1, 2, 5, 4};
  double u[18], se[2] = {0.5, 0.25};
  for (int k = 0; k < 18; ++k) u[k] = 0.001 * k;
  crd_vtu_field pf[] = {{"displacement", 3, u}};
  crd_vtu_field cf[] = {{"strain_energy", 1, se}};
  char vtu[600];
  snprintf(vtu, sizeof vtu, "%s/frames", dir);
  rc = crd_mkdir_p(vtu);
  snprintf(vtu, sizeof vtu, "%s/frames/f000001.vtu", dir);
  rc = rc ? rc : crd_vtu_write(vtu, 6, x, 2, q, 1, pf, 1, cf);
  T_OK(rc == 0, "vtu written (rc %d%s%s)", rc, rc ? ": " : "", rc ? crd_err_message() : "");
  T_OK(exists(dir, "frames/f000001.vtu") && !exists(dir, "frames/f000001.vtu.tmp"), "vtu in place, no .tmp left");
  text = slurp(dir, "frames/f000001.vtu");
  T_OK(text && strstr(text, "<VTKFile type=\"UnstructuredGrid\" version=\"0.1\"") &&
           strstr(text, "NumberOfPoints=\"6\" NumberOfCells=\"2\""),
       "vtu header with NumberOfPoints and NumberOfCells");
  T_OK(text && count_tokens_after(text, "Name=\"connectivity\"") == 8, "8 connectivity entries");
  T_OK(text && count_tokens_after(text, "Name=\"offsets\"") == 2 && strstr(text, "4 8\n"), "offsets 4 8");
  T_OK(text && count_tokens_after(text, "Name=\"types\"") == 2 && strstr(text, "9 9\n"), "types 9 9 (VTK_QUAD)");
  T_OK(text && count_tokens_after(text, "NumberOfComponents=\"3\" format") == 18 &&
           count_tokens_after(text, "Name=\"displacement\"") == 18,
       "18 point coordinates and 18 displacement values");
  T_OK(text && count_tokens_after(text, "Name=\"strain_energy\"") == 2, "2 cell values");
  T_OK(text && strstr(text, "\n2 1 0.125\n"), "coordinates in full");
  free(text);
  const int32_t qbad[] = {0, 1, 4, 6};
  rc = crd_vtu_write(vtu, 6, x, 1, qbad, 0, NULL, 0, NULL);
  T_OK(rc == CRD_ERR_INPUT && strstr(crd_err_message(), "node 6"), "a quad with a bad node is refused: %s",
       crd_err_message());

  /* PVD: empty at creation, then every frame added. */
  crd_pvd *p = NULL;
  rc = crd_pvd_create(dir, &p);
  text = slurp(dir, "result.pvd");
  T_OK(rc == 0 && text && strstr(text, "<Collection>") && !strstr(text, "<DataSet"), "pvd created empty");
  free(text);
  rc = crd_pvd_add(p, 0.0, "frames/f000000.vtu");
  rc = rc ? rc : crd_pvd_add(p, 0.25, "frames/f000001.vtu");
  text = slurp(dir, "result.pvd");
  T_OK(rc == 0 && text && count_str(text, "<DataSet") == 2 &&
           strstr(text, "timestep=\"0.25\" group=\"\" part=\"0\" file=\"frames/f000001.vtu\"") &&
           strstr(text, "</Collection>\n</VTKFile>\n"),
       "pvd lists both frames");
  T_OK(!exists(dir, "result.pvd.tmp"), "no result.pvd.tmp left");
  free(text);
  crd_pvd_destroy(&p);
  T_OK(p == NULL, "pvd destroy sets the pointer to NULL");

  /* Atomic write: content, and a path that cannot be written. */
  char path[600];
  snprintf(path, sizeof path, "%s/summary.json", dir);
  rc = crd_write_atomic(path, "{\"ok\": true}\n");
  text = slurp(dir, "summary.json");
  T_OK(rc == 0 && text && !strcmp(text, "{\"ok\": true}\n") && !exists(dir, "summary.json.tmp"),
       "crd_write_atomic writes the text, no .tmp left");
  free(text);
  snprintf(path, sizeof path, "%s/no/such/dir/summary.json", dir);
  rc = crd_write_atomic(path, "x");
  T_OK(rc == CRD_ERR_IO && strstr(crd_err_message(), path) && strstr(crd_err_message(), "No such file"),
       "unwritable path: CRD_ERR_IO naming it: %s", crd_err_message());
  snprintf(path, sizeof path, "%s/summary.json/sub", dir);
  rc = crd_mkdir_p(path);
  T_OK(rc == CRD_ERR_IO && strstr(crd_err_message(), "summary.json"), "mkdir -p through a file fails: %s",
       crd_err_message());

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  T_OK(system(cmd) == 0, "cleanup");
  return T_DONE();
}
