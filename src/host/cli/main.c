/* crdyn command line: run | check | devices | plot, --help, --version.
 *
 * The options of run and check come from one table (name, whether it takes
 * a value, help line); a value is checked here where the check needs no
 * model (the backend and solver names, the thread count), so a mistyped
 * command fails at once with the list of what it accepts. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "crdyn/parallel.h"
#include "crdyn/run.h"
#include "crdyn/switches.h"

#define CRD_MAX_THREADS 4096

typedef enum { OPT_OUT, OPT_BACKEND, OPT_DEVICE, OPT_THREADS, OPT_QUIET, OPT_TIMING, OPT_SOLVER,
               OPT_DETERMINISTIC, OPT_RESTART, OPT_HELP } opt_id;

typedef struct cli_opt {
  opt_id id;
  const char *name, *alias, *value; /* value: the placeholder of its value, NULL for a flag */
  const char *help;
} cli_opt;

static const cli_opt run_opts[] = {
  {OPT_OUT, "--out", NULL, "DIR", "output folder (default: the case's output.dir, else out/<case name>);\n"
                                  "relative to the current directory"},
  {OPT_BACKEND, "--backend", NULL, "NAME", "cpu (default), opencl, cuda or auto (CUDA where a device answers)"},
  {OPT_DEVICE, "--device", NULL, "N", "OpenCL or CUDA device index (crdyn devices)"},
  {OPT_THREADS, "--threads", NULL, "N", "threads of the element loops and the BLAS (default: all cores)"},
  {OPT_SOLVER, "--solver", NULL, "NAME", "linear solver: cholmod (default), cusolver, cudss, mumps, auto"},
  {OPT_DETERMINISTIC, "--deterministic", NULL, NULL, "bitwise repeatable device assembly (cuda)"},
  {OPT_RESTART, "--restart", NULL, "FILE", "continue a dynamic run from its checkpoint (DIR/checkpoint.crd)"},
  {OPT_TIMING, "--timing", NULL, NULL, "per-phase timing table in the log and in summary.json"},
  {OPT_QUIET, "--quiet", "-q", NULL, "no progress lines"},
  {OPT_HELP, "--help", "-h", NULL, "this help"},
};
#define N_RUN_OPTS (sizeof run_opts / sizeof run_opts[0])

static const char *const backend_names[] = {"cpu", "opencl", "cuda", "auto", NULL};
static const char *const solver_names[] = {"cholmod", "cusolver", "cudss", "mumps", "auto", NULL};

static void usage(FILE *f)
{
  fprintf(f,
          "usage: crdyn run CASE [options]    run a case (crdyn run --help lists the options)\n"
          "       crdyn check CASE [options]  validate a case and print what a run would do; writes nothing\n"
          "       crdyn devices               list the OpenCL and CUDA devices (index for --device, fp64)\n"
          "       crdyn plot OUTDIR [--out DIR] [--title T]\n"
          "                                   PNG plots of a run's outputs (history, modes)\n"
          "       crdyn switches              the CRDYN_* environment switches and what they do\n"
          "       crdyn --help | --version\n"
          "A case is a JSON file (docs/case_format.md).  A run writes history.csv, frames/*.vtu,\n"
          "result.pvd (open it in ParaView) and summary.json into its output folder.\n");
}

static void run_help(const char *cmd)
{
  printf("usage: crdyn %s CASE [options]\n", cmd);
  printf(!strcmp(cmd, "run") ? "Runs the case and writes its outputs (docs/case_format.md).\n"
                             : "Validates the case, builds the model and prints, per stage, the step size, the\n"
                               "number of steps, history rows and frames a run would write; writes nothing.\n");
  for (size_t k = 0; k < N_RUN_OPTS; ++k) {
    const cli_opt *o = &run_opts[k];
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
             o->value ? " " : "", o->value ? o->value : "");
    const char *h = o->help, *nl;
    printf("  %-22s %.*s\n", head, (int)((nl = strchr(h, '\n')) ? nl - h : (long)strlen(h)), h);
    while (nl) {
      h = nl + 1;
      nl = strchr(h, '\n');
      printf("  %-22s %.*s\n", "", (int)(nl ? nl - h : (long)strlen(h)), h);
    }
  }
  printf("Relative mesh file names in a case resolve from the case file's folder.\n");
}

/* crdyn plot: the plotting tool ships beside the binary's tree as
 * tools/crdyn_plot.py (python3 + matplotlib); run it with the arguments. */
static int plot(int argc, char **argv)
{
  char exe[4096], script[4200];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) { fprintf(stderr, "crdyn: plot: cannot locate the crdyn binary\n"); return 2; }
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  const char *env = crd_switch("CRDYN_PLOT");
  if (env) snprintf(script, sizeof script, "%s", env);
  else snprintf(script, sizeof script, "%s/../tools/crdyn_plot.py", exe);
  if (access(script, R_OK)) {
    fprintf(stderr, "crdyn: plot: %s not found (set CRDYN_PLOT to the path of crdyn_plot.py)\n", script);
    return 2;
  }
  char **av = calloc((size_t)argc + 2, sizeof *av);
  if (!av) return 2;
  av[0] = "python3";
  av[1] = script;
  for (int i = 2; i < argc; ++i) av[i] = argv[i];
  execvp("python3", av);
  fprintf(stderr, "crdyn: plot: cannot run python3 (install python3 and python3-matplotlib)\n");
  free(av);
  return 2;
}

/* The OpenMP runtime reads its wait policy once, when it is loaded, before
 * main: a thread that waits for work spins by default, and on a machine
 * whose cores other jobs also use that spinning takes the time the working
 * threads need (docs/performance.md, "Threads under load").  So when the
 * user has not chosen a policy, crdyn starts itself once more with
 * OMP_WAIT_POLICY=passive: waiting threads then sleep.  Not under valgrind
 * (its preload library is in LD_PRELOAD), whose tool would not follow the
 * exec.  On any failure the run goes on with the runtime's default. */
static void exec_with_passive_wait(char **argv)
{
  if (getenv("OMP_WAIT_POLICY")) return;
  const char *pre = getenv("LD_PRELOAD");
  if (pre && strstr(pre, "vgpreload")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1)) return;
  execv("/proc/self/exe", argv);
}

static int name_in(const char *s, const char *const *names)
{
  for (; *names; ++names)
    if (!strcmp(s, *names)) return 1;
  return 0;
}

static const char *list_of(const char *const *names, char *buf, size_t n)
{
  size_t k = 0;
  buf[0] = 0;
  for (const char *const *p = names; *p && k < n; ++p)
    k += (size_t)snprintf(buf + k, n - k, "%s%s", p == names ? "" : ", ", *p);
  return buf;
}

/* An integer in [min, max] for option `name`, or -1 with a message. */
static long parse_int_in(const char *name, const char *v, long min, long max)
{
  char *end;
  long x = strtol(v, &end, 10);
  if (*v && !*end && x >= min && x <= max) return x;
  fprintf(stderr, "crdyn: %s %s: expected an integer from %ld to %ld\n", name, v, min, max);
  return -1;
}

/* Set option `o` to value `v` (NULL for a flag).  Returns 0, or 2 with the
 * message printed. */
static int set_opt(crd_run_opts *r, const cli_opt *o, const char *v)
{
  char list[128];
  long x;
  switch (o->id) {
  case OPT_OUT: r->out_dir = v; break;
  case OPT_RESTART: r->restart_path = v; break;
  case OPT_BACKEND:
    if (!name_in(v, backend_names)) {
      fprintf(stderr, "crdyn: --backend %s: unknown backend (known: %s; in this build: %s)\n", v,
              list_of(backend_names, list, sizeof list), crd_backend_available());
      return 2;
    }
    r->backend = v;
    break;
  case OPT_SOLVER:
    if (!name_in(v, solver_names)) {
      fprintf(stderr, "crdyn: --solver %s: unknown linear solver (known: %s)\n", v,
              list_of(solver_names, list, sizeof list));
      return 2;
    }
    r->solver = v;
    break;
  case OPT_DEVICE:
    if ((x = parse_int_in("--device", v, 0, 1000)) < 0) return 2;
    r->device = (int)x;
    break;
  case OPT_THREADS:
    if ((x = parse_int_in("--threads", v, 1, CRD_MAX_THREADS)) < 0) return 2;
    r->threads = (int)x;
    break;
  case OPT_QUIET: r->quiet = 1; break;
  case OPT_TIMING: r->timing = 1; break;
  case OPT_DETERMINISTIC: r->deterministic = 1; break;
  case OPT_HELP: break;
  }
  return 0;
}

static const cli_opt *find_opt(const char *a)
{
  for (size_t k = 0; k < N_RUN_OPTS; ++k)
    if (!strcmp(a, run_opts[k].name) || (run_opts[k].alias && !strcmp(a, run_opts[k].alias))) return &run_opts[k];
  return NULL;
}

/* The options of run and check.  Returns 0 to go on, 1 after printing the
 * help (exit 0), 2 on a bad command line (message printed). */
static int parse_run_args(int argc, char **argv, crd_run_opts *o)
{
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i], *v = NULL;
    if (a[0] != '-' || !a[1]) {
      if (o->case_path) { fprintf(stderr, "crdyn: more than one case given ('%s', '%s')\n", o->case_path, a); return 2; }
      o->case_path = a;
      continue;
    }
    const cli_opt *opt = find_opt(a);
    if (!opt) {
      fprintf(stderr, "crdyn: unknown option '%s' (crdyn %s --help lists them)\n", a, argv[1]);
      return 2;
    }
    if (opt->id == OPT_HELP) { run_help(argv[1]); return 1; }
    if (opt->value) {
      if (i + 1 >= argc) { fprintf(stderr, "crdyn: %s needs a value (%s)\n", a, opt->value); return 2; }
      v = argv[++i];
      if (v[0] == '-' && v[1] == '-') {
        fprintf(stderr, "crdyn: %s needs a value (%s), got the option '%s'\n", a, opt->value, v);
        return 2;
      }
    }
    if (set_opt(o, opt, v)) return 2;
  }
  if (!o->case_path) { fprintf(stderr, "crdyn: no case file given (crdyn %s --help)\n", argv[1]); return 2; }
  return 0;
}

static int devices(void)
{
  static char buf[16384];
  int n = crd_backend_devices(buf, sizeof buf);
  fputs(buf, stdout);
  crd_backend_cuda_devices(buf, sizeof buf); /* listed; the exit status stays the OpenCL count */
  fputs(buf, stdout);
  printf("backends in this build: %s\n", crd_backend_available());
  return n > 0 ? 0 : 1;
}

/* A run or check of the case: its exit status (130: interrupted, resumable). */
static int run_status(const crd_run_opts *o)
{
  /* whole lines, at once, also into a file or a pipe: progress lines and
   * messages on stderr then never share a line */
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = crd_run_case(o);
  crd_run_progress_break();
  if (rc == CRD_ERR_INTERRUPTED) { /* not an error: stopped on request, resumable */
    fprintf(stderr, "crdyn: %s\n", crd_err_message());
    return 130;
  }
  if (rc) {
    fprintf(stderr, "crdyn: error: %s\n", crd_err_message());
    if (crd_switch("CRDYN_TRACE")) fprintf(stderr, "%s", crd_err_traceback());
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) { usage(stderr); return 2; }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) { usage(stdout); return 0; }
  if (!strcmp(argv[1], "--version")) { puts("crdyn 0.1.0"); return 0; }
  if (!strcmp(argv[1], "plot")) return plot(argc, argv);
  if (!strcmp(argv[1], "devices")) return devices();
  if (!strcmp(argv[1], "switches")) {
    crd_switches_print(stdout);
    return 0;
  }
  crd_run_opts o;
  memset(&o, 0, sizeof o);
  o.device = -1;
  o.argv0 = argv[0];
  if (!strcmp(argv[1], "check")) o.check_only = 1;
  else if (strcmp(argv[1], "run")) {
    fprintf(stderr, "crdyn: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  int prc = parse_run_args(argc, argv, &o);
  if (prc) return prc == 1 ? 0 : 2;
  exec_with_passive_wait(argv);
  if (crd_par_init(&argc, &argv)) {
    fprintf(stderr, "crdyn: error: %s\n", crd_err_message());
    return 1;
  }
  /* over MPI ranks every rank runs the same steps on the same bits
   * (parallel.h): rank 0 alone speaks and writes */
  if (crd_par_rank() > 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))) return 1;
  int status = run_status(&o);
  crd_par_finalize(status);
  return status;
}
