/* crdyn: the output folder of a run: the files crdyn owns there, clearing
 * an earlier run's before a new one writes, and the command that continues
 * an interrupted run (run.h).
 *
 * crdyn owns, in its output folder: summary.json, history.csv and
 * history.csv.part, result.pvd, frames/frame_NNNNNN.vtu (.pvtu and pieces) and
 * frames/mode_NNN.vtu, modes.csv, checkpoint.crd, the plots of `crdyn plot`
 * written into the folder (the PNG names below) and the temporary files of
 * its atomic writes (NAME.tmp).  Any other file is the user's and is never
 * touched.  summary.json goes first: a folder without it holds no complete
 * result (docs/case_format.md), so from the user's view the earlier run
 * ends at that moment, before any of its other files go. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/run.h"

/* files directly in the folder (a restart keeps the ones marked) */
static const struct {
  const char *name;
  int kept_on_restart;
} owned_files[] = {
  {"summary.json", 0},      {"summary.json.tmp", 0}, {"modes.csv", 0},       {"modes.csv.tmp", 0},
  {"history.csv", 1},       {"history.csv.part", 1}, {"result.pvd", 1},      {"result.pvd.tmp", 0},
  {"checkpoint.crd", 1},    {"checkpoint.crd.tmp", 0}, /* a temporary is a write cut short: never kept */
  /* crdyn plot (tools/crdyn_plot.py) */
  {"energy.png", 0},        {"momentum.png", 0},     {"probes.png", 0},      {"bodies.png", 0},
  {"newton.png", 0},        {"modes.png", 0},
};

static int remove_file(const char *dir, const char *name)
{
  char path[2 * CRD_PATH_MAX + 8];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (remove(path) == 0 || errno == ENOENT) return 0;
  return CRD_ERR(CRD_ERR_IO, "%s: cannot remove an earlier run's file: %s", path, strerror(errno));
}

/* frames/frame_NNNNNN.vtu (or .pvtu with its pieces) from index `first`
 * on, and every mode_NNN.vtu (all frames when first is 0) */
static int clear_frames(const char *dir, int first)
{
  char fdir[2 * CRD_PATH_MAX];
  snprintf(fdir, sizeof fdir, "%s/frames", dir);
  DIR *d = opendir(fdir);
  if (!d) return 0;
  struct dirent *de;
  int rc = 0;
  while (!rc && (de = readdir(d))) {
    int k, len = 0;
    char tail;
    const char *nm = de->d_name;
    int is_frame = sscanf(nm, "frame_%6d.vtu%n%c", &k, &len, &tail) == 1 && len == (int)strlen(nm) && len == 16;
    if (!is_frame) /* a parallel frame: frame_NNNNNN.pvtu and its pieces frame_NNNNNN_pR.vtu */
      is_frame = (sscanf(nm, "frame_%6d.pvtu%n%c", &k, &len, &tail) == 1 && len == (int)strlen(nm) && len == 17) ||
                 (sscanf(nm, "frame_%6d_p%*d.vtu%n%c", &k, &len, &tail) == 1 && len == (int)strlen(nm) &&
                  nm[12] == '_');
    int is_mode = sscanf(nm, "mode_%3d.vtu%n%c", &k, &len, &tail) == 1 && len == (int)strlen(nm) && len == 12;
    if ((is_frame && k >= first) || is_mode || (strstr(nm, "vtu.tmp") && strlen(nm) > 8))
      rc = remove_file(fdir, nm);
  }
  closedir(d);
  return rc;
}

int crd_run_clear_folder(const char *dir, int restart, int frames_kept)
{
  int rc = 0;
  for (size_t k = 0; !rc && k < sizeof owned_files / sizeof owned_files[0]; ++k)
    if (!(restart && owned_files[k].kept_on_restart)) rc = remove_file(dir, owned_files[k].name);
  if (!rc) rc = clear_frames(dir, restart ? frames_kept : 0);
  return rc;
}

/* s quoted for a POSIX shell where it holds anything but [A-Za-z0-9_./:=+,-] */
static size_t put_word(char *buf, size_t n, size_t k, const char *s)
{
  int plain = *s != 0;
  for (const char *c = s; *c && plain; ++c)
    plain = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=+,-", *c) != NULL;
  if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s", k ? " " : "");
  if (plain) {
    if (k < n) k += (size_t)snprintf(buf + k, n - k, "%s", s);
    return k;
  }
  if (k < n) k += (size_t)snprintf(buf + k, n - k, "'");
  for (const char *c = s; *c && k < n; ++c)
    k += (size_t)(*c == '\'' ? snprintf(buf + k, n - k, "'\\''") : snprintf(buf + k, n - k, "%c", *c));
  if (k < n) k += (size_t)snprintf(buf + k, n - k, "'");
  return k;
}

/* path made absolute where it exists (so that the command runs from any
 * directory), else as given */
static const char *absolute(const char *path, char *buf)
{
  return realpath(path, buf) ? buf : path;
}

void crd_run_restart_command(const crd_run *r, char *buf, size_t n)
{
  const crd_run_opts *o = r->opts;
  const char *exe = o->argv0 ? o->argv0 : "crdyn";
  char num[32], abs[PATH_MAX];
  size_t k = 0;
  buf[0] = 0;
  k = put_word(buf, n, k, strchr(exe, '/') ? absolute(exe, abs) : exe); /* a bare name is found on PATH */
  k = put_word(buf, n, k, "run");
  k = put_word(buf, n, k, absolute(o->case_path, abs));
  k = put_word(buf, n, k, "--out");
  k = put_word(buf, n, k, absolute(r->dir, abs));
  k = put_word(buf, n, k, "--restart");
  k = put_word(buf, n, k, absolute(r->ckpt_path, abs));
  if (o->backend) k = put_word(buf, n, put_word(buf, n, k, "--backend"), o->backend);
  if (o->device >= 0) {
    snprintf(num, sizeof num, "%d", o->device);
    k = put_word(buf, n, put_word(buf, n, k, "--device"), num);
  }
  if (o->solver) k = put_word(buf, n, put_word(buf, n, k, "--solver"), o->solver);
  if (o->threads > 0) {
    snprintf(num, sizeof num, "%d", o->threads);
    k = put_word(buf, n, put_word(buf, n, k, "--threads"), num);
  }
  if (o->deterministic) k = put_word(buf, n, k, "--deterministic");
  if (o->timing) k = put_word(buf, n, k, "--timing");
  if (o->quiet) put_word(buf, n, k, "--quiet");
}
