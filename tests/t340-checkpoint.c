/* The checkpoint container (checkpoint.h, docs/checkpoint.md): sections
 * round-trip bitwise, text values exactly, a section a later version adds
 * (e.g. "bodies") is ignored by readers that do not ask for it, and every
 * truncation, a flipped byte, bad magic and another version are refused
 * with the file named.  History resume: cut back to the recorded length. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/checkpoint.h"
#include "crdyn/error.h"
#include "crdyn/output.h"
#include "tap.h"

static unsigned char *slurp(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)len + 1);
  *n = fread(b, 1, (size_t)len, f);
  fclose(f);
  return b;
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
  FILE *f = fopen(path, "wb");
  fwrite(b, 1, n, f);
  fclose(f);
}

static int refused(const char *path, const char *what)
{
  crd_ckpt *c = NULL;
  int rc = crd_ckpt_open(path, &c);
  int ok = rc < 0 && c == NULL && strstr(crd_err_message(), path) && strstr(crd_err_message(), what);
  if (!ok) printf("# rc %d: %s\n", rc, crd_err_message());
  crd_ckpt_close(&c);
  return ok;
}

int main(void)
{
  char dir[] = "/tmp/crd-t330-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[256], bad[300];
  snprintf(path, sizeof path, "%s/checkpoint.crd", dir);
  snprintf(bad, sizeof bad, "%s/bad.crd", dir);
  double x[5] = {1.0 / 3.0, -0.0, 1e-310, 6.02e23, -2.5};
  int l[3] = {0, 2, 1};
  const double tricky = 0.1 + 0.2;

  crd_ckpt_writer *w = NULL;
  int rc = crd_ckpt_begin(path, 0x1234567890abcdefull, &w);
  if (!rc) rc = crd_ckpt_text_begin(w, "run");
  if (!rc) {
    crd_ckpt_text_int(w, "step", 4567);
    crd_ckpt_text_dbl(w, "t", tricky);
    crd_ckpt_text_dbl(w, "stage.dt", 1e-300);
    rc = crd_ckpt_text_end(w);
  }
  if (!rc) rc = crd_ckpt_add(w, "node.x", x, sizeof x);
  if (!rc) rc = crd_ckpt_add(w, "node.l", l, sizeof l); /* 12 bytes: padded */
  if (!rc) rc = crd_ckpt_add(w, "bodies", "a later version's section", 26);
  if (!rc) rc = crd_ckpt_commit(&w);
  T_OK(rc == 0 && access(path, F_OK) == 0, "checkpoint written (%s)", rc ? crd_err_message() : "ok");
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  T_OK(access(tmp, F_OK) != 0, "no temporary left after the rename");

  crd_ckpt *c = NULL;
  rc = crd_ckpt_open(path, &c);
  T_OK(rc == 0 && c, "read back (%s)", rc ? crd_err_message() : "ok");
  if (!c) return T_DONE();
  T_OK(crd_ckpt_case_hash(c) == 0x1234567890abcdefull, "case hash");
  double y[5];
  int m[3];
  T_OK(crd_ckpt_get(c, "node.x", y, sizeof y) == 0 && memcmp(x, y, sizeof x) == 0, "f64 section bitwise (-0, subnormal)");
  T_OK(crd_ckpt_get(c, "node.l", m, sizeof m) == 0 && memcmp(l, m, sizeof l) == 0, "i32 section of 12 bytes (padded)");
  long long step;
  double t, dt;
  T_OK(crd_ckpt_get_int(c, "run", "step", &step) == 0 && step == 4567, "text integer");
  T_OK(crd_ckpt_get_dbl(c, "run", "t", &t) == 0 && memcmp(&t, &tricky, sizeof t) == 0, "text double exact (hex)");
  T_OK(crd_ckpt_get_dbl(c, "run", "stage.dt", &dt) == 0 && dt == 1e-300, "text double 1e-300");
  T_OK(crd_ckpt_get_dbl(c, "run", "stage", &dt) < 0 && strstr(crd_err_message(), "no value 'stage'"),
       "a key that is only a prefix of another is missing: %s", crd_err_message());
  T_OK(crd_ckpt_get(c, "node.x", y, sizeof y - 8) < 0 && strstr(crd_err_message(), "wrong sizes"),
       "a section of another size is refused: %s", crd_err_message());
  T_OK(crd_ckpt_get(c, "node.q", y, sizeof y) < 0 && strstr(crd_err_message(), "no section 'node.q'"),
       "a missing section is named: %s", crd_err_message());
  size_t bl;
  T_OK(crd_ckpt_find(c, "bodies", &bl) && bl == 26, "an extra section is there for who asks, ignored otherwise");
  crd_ckpt_close(&c);

  size_t n;
  unsigned char *b = slurp(path, &n);
  int all = 1;
  for (size_t k = 0; k < n; ++k) { /* every truncation */
    spit(bad, b, k);
    crd_ckpt *cc = NULL;
    if (crd_ckpt_open(bad, &cc) >= 0 || !strstr(crd_err_message(), bad)) all = 0;
    crd_ckpt_close(&cc);
  }
  T_OK(all, "every one of the %zu truncations is refused, naming the file", n);
  spit(bad, b, n / 2);
  T_OK(refused(bad, "truncated"), "a file cut in half: 'truncated'");
  all = 1;
  for (size_t k = 0; k < n; ++k) { /* every byte flipped, header included */
    b[k] ^= 0x10;
    spit(bad, b, n);
    crd_ckpt *cc = NULL;
    if (crd_ckpt_open(bad, &cc) >= 0) all = 0;
    crd_ckpt_close(&cc);
    b[k] ^= 0x10;
  }
  T_OK(all, "every flipped byte is refused (checksum or structure)");
  b[100] ^= 1;
  spit(bad, b, n);
  b[100] ^= 1;
  T_OK(refused(bad, "checksum"), "a flipped payload byte: 'checksum'");
  b[0] = 'X';
  spit(bad, b, n);
  b[0] = 'C';
  T_OK(refused(bad, "bad magic"), "bad magic");
  b[8] = 2;
  spit(bad, b, n);
  b[8] = 1;
  T_OK(refused(bad, "version 2"), "another format version");
  free(b);

  /* history resume: rows after the recorded mark are cut off */
  const char *cols[1] = {"P.ux"};
  crd_history *h = NULL;
  double en[4] = {1, 2, 3, 4}, L[3] = {0, 0, 0}, J[3] = {0, 0, 0}, ex[1] = {0.5};
  int64_t off;
  uint64_t hh;
  rc = crd_history_open(dir, 1, cols, &h);
  for (int s = 0; s < 3 && !rc; ++s) rc = crd_history_row(h, s, 0.1 * s, 1, 0, 0, en, L, J, ex);
  crd_history_mark(h, &off, &hh);
  for (int s = 3; s < 6 && !rc; ++s) rc = crd_history_row(h, s, 0.1 * s, 1, 0, 0, en, L, J, ex);
  crd_history_close(&h, 0);
  rc = crd_history_resume(dir, 1, off, hh, &h);
  for (int s = 3; s < 6 && !rc; ++s) rc = crd_history_row(h, s, 0.1 * s, 1, 0, 0, en, L, J, ex);
  if (!rc) rc = crd_history_close(&h, 1);
  char hp[300];
  snprintf(hp, sizeof hp, "%s/history.csv", dir);
  unsigned char *hb = slurp(hp, &n);
  int lines = 0;
  for (size_t k = 0; hb && k < n; ++k) lines += hb[k] == '\n';
  T_OK(rc == 0 && lines == 7, "history resumed at the mark: header + 6 rows (%d lines)", lines);
  free(hb);
  rc = crd_history_resume(dir, 1, off, hh ^ 1, &h);
  T_OK(rc < 0 && strstr(crd_err_message(), "does not match"), "a history that is not the recorded one is refused: %s",
       crd_err_message());

  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return T_DONE();
}
