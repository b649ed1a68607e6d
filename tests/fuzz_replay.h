/* Replays inputs through a libFuzzer harness (fuzz/fuzz_*.c, included by
 * the test with LLVMFuzzerTestOneInput renamed fuzz_one): every file of the
 * folders given, one TAP line each.  The folders hold the fuzz seeds and
 * tests/fuzz/NAME/, where every crash the fuzzer found is kept as a
 * regression input.  A harness check that fails aborts (the run fails); in
 * `make test SAN=1` the sanitizers also watch each input. */
#ifndef CRD_FUZZ_REPLAY_H
#define CRD_FUZZ_REPLAY_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int replay_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 4096, n = 0, got;
  unsigned char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      unsigned char *b = realloc(buf, cap *= 2);
      if (!b) free(buf);
      buf = b;
    }
  }
  fclose(f);
  if (!buf) return -1;
  printf("# %s (%zu bytes)\n", path, n);
  fflush(stdout);
  int rc = fuzz_one(buf, n);
  free(buf);
  return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* All regular files of dir, sorted; returns how many were replayed. */
static int replay_dir(const char *dir)
{
  DIR *d = opendir(dir);
  T_OK(d != NULL, "replay: folder %s exists", dir);
  if (!d) return 0;
  char *names[4096];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 4096)
    if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  for (int k = 0; k < n; ++k) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    int rc = replay_file(path);
    T_OK(rc == 0 || rc == -1, "replay %s: no crash, leak or broken invariant", path);
    free(names[k]);
  }
  return n;
}
#endif
