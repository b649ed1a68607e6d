/* crdyn command line: run | check | devices | plot, --help, --version. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "crdyn/run.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: crdyn run CASE [--out DIR] [--backend cpu|opencl|cuda|auto] [--device N] [--threads N] [--quiet] [--timing]\n"
          "                 [--solver cholmod|cusolver|cudss|auto] [--deterministic]   device solver, repeatable GPU assembly\n"
          "                 [--restart DIR/checkpoint.crd]   continue a dynamic run from its checkpoint\n"
          "       crdyn check CASE      validate a case and print the model summary\n"
          "       crdyn devices         list the OpenCL platforms and devices (index for --device, fp64) and CUDA devices\n"
          "       crdyn plot OUTDIR [--out DIR] [--title T]\n"
          "                             plots of OUTDIR/history.csv (energies, momenta, probes, Newton)\n"
          "       crdyn --help | --version\n"
          "Runs a JSON case (see README.md and CASE_FORMAT.md); writes history.csv, frames/*.vtu,\n"
          "result.pvd and summary.json in the output folder.  --timing prints the per-phase times\n"
          "(element kernels, assembly, factorization, solve, steps, memory) and adds them to summary.json.\n");
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
  const char *env = getenv("CRDYN_PLOT");
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

int main(int argc, char **argv)
{
  if (argc < 2) { usage(stderr); return 2; }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) { usage(stdout); return 0; }
  if (!strcmp(argv[1], "--version")) { puts("crdyn 0.1.0"); return 0; }
  if (!strcmp(argv[1], "plot")) return plot(argc, argv);
  if (!strcmp(argv[1], "devices")) {
    static char buf[16384];
    int n = crd_backend_devices(buf, sizeof buf);
    fputs(buf, stdout);
    crd_backend_cuda_devices(buf, sizeof buf); /* listed; the exit status stays the OpenCL count */
    fputs(buf, stdout);
    printf("backends in this build: %s\n", crd_backend_available());
    return n > 0 ? 0 : 1;
  }
  crd_run_opts o;
  memset(&o, 0, sizeof o);
  o.device = -1;
  if (!strcmp(argv[1], "run")) ;
  else if (!strcmp(argv[1], "check")) o.check_only = 1;
  else { fprintf(stderr, "crdyn: unknown command '%s'\n", argv[1]); usage(stderr); return 2; }
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--out") && i + 1 < argc) o.out_dir = argv[++i];
    else if (!strcmp(a, "--backend") && i + 1 < argc) o.backend = argv[++i];
    else if (!strcmp(a, "--restart") && i + 1 < argc) o.restart_path = argv[++i];
    else if (!strcmp(a, "--solver") && i + 1 < argc) o.solver = argv[++i];
    else if (!strcmp(a, "--deterministic")) o.deterministic = 1;
    else if (!strcmp(a, "--device") && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0 || v > 1000) { fprintf(stderr, "crdyn: --device needs a device index (crdyn devices)\n"); return 2; }
      o.device = (int)v;
    } else if (!strcmp(a, "--threads") && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 4096) { fprintf(stderr, "crdyn: --threads needs a positive integer\n"); return 2; }
      o.threads = (int)v;
    } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o.quiet = 1;
    else if (!strcmp(a, "--timing")) o.timing = 1;
    else if (a[0] == '-') { fprintf(stderr, "crdyn: unknown option '%s'\n", a); usage(stderr); return 2; }
    else if (!o.case_path) o.case_path = a;
    else { fprintf(stderr, "crdyn: more than one case given ('%s')\n", a); return 2; }
  }
  if (!o.case_path) { fprintf(stderr, "crdyn: no case file given\n"); usage(stderr); return 2; }
  int rc = crd_run_case(&o);
  if (rc == CRD_ERR_INTERRUPTED) { /* not an error: stopped on request, resumable */
    fprintf(stderr, "crdyn: %s\n", crd_err_message());
    return 130;
  }
  if (rc) {
    fprintf(stderr, "crdyn: error: %s\n", crd_err_message());
    if (getenv("CRDYN_TRACE")) fprintf(stderr, "%s", crd_err_traceback());
    return 1;
  }
  return 0;
}
