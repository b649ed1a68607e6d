/* crdyn: the driver: load a case, build the problem, run the analysis,
 * write history.csv, VTU frames with result.pvd, and summary.json. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <cjson/cJSON.h>

#include "crdyn/checkpoint.h"
#include "crdyn/elem_eval.h"
#include "crdyn/error.h"
#include "crdyn/parallel.h"
#include "crdyn/run.h"
#include "crdyn/trace.h"
#include "crdyn/shell_results.h"
#include "crdyn/tie.h"
#include "crdyn/triads.h"
#include "crdyn/timer.h"
#include "crdyn/switches.h"

/* a progress line rewritten in place on the terminal, not yet ended */
static int progress_open;

void crd_run_progress(crd_run *r, const char *fmt, ...)
{
  if (r->opts->quiet) return;
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (isatty(2)) {
    fprintf(stderr, "\r[%7.1fs] %-70s", crd_wtime() - r->t_start, buf);
    progress_open = 1;
  } else
    printf("[%7.1fs] %s\n", crd_wtime() - r->t_start, buf);
}

void crd_run_progress_break(void)
{
  if (!progress_open) return;
  fputc('\n', stderr);
  progress_open = 0;
}

static int record_out(crd_run *r, int step, double t_last, double time, double lf, int iters, double resid, double kinetic,
                      double strain, const double L[3], const double J[3], int force, double t0);
static int record(crd_run *r, int step, double time, double lf, int iters, double resid, double kinetic,
                  double strain, const double L[3], const double J[3], int force);

/* the output phase, as one profiler range (trace.h) */
int crd_run_record(crd_run *r, int step, double time, double lf, int iters, double resid,
                   double kinetic, double strain, const double L[3], const double J[3], int force)
{
  CRD_RANGE_PUSH("output");
  int rc = record(r, step, time, lf, iters, resid, kinetic, strain, L, J, force);
  CRD_RANGE_POP();
  return rc;
}

static int record(crd_run *r, int step, double time, double lf, int iters, double resid, double kinetic,
                  double strain, const double L[3], const double J[3], int force)
{
  crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  double t0 = crd_wtime();
  int is_static = m->analysis.type == CRD_ANALYSIS_STATIC;
  if (step > 0) {
    if (m->analysis.type == CRD_ANALYSIS_STATIC && !m->analysis.nlgeom)
      r->wext = 2.0 * strain; /* linear: W = u.F = 2U */
    else
      r->wext += crd_loads_work(r->loads, pb, is_static ? r->t_prev : r->t_prev, is_static ? lf : time,
                                is_static, r->d_prev, r->p_prev);
    double wb = crd_ties_work(r->ties); /* the bodies' loads: summed by the bodies step by step */
    r->wext += wb - r->wext_ties;
    r->wext_ties = wb;
  }
  memcpy(r->d_prev, pb->d, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(r->p_prev, pb->p, 3 * sizeof(double) * (size_t)pb->nn);
  if (pb->tr) crd_triads_record(pb->tr);
  double t_last = r->t_prev;
  r->t_prev = is_static ? lf : time;
  return record_out(r, step, t_last, time, lf, iters, resid, kinetic, strain, L, J, force, t0);
}

int crd_run_record_resident(crd_run *r, int step, double time, double kinetic, double strain, const double L[3],
                            const double J[3], int force, int on_host)
{
  double t0 = crd_wtime();
  if (on_host) {
    memcpy(r->d_prev, r->pb->d, 3 * sizeof(double) * (size_t)r->pb->nn);
    memcpy(r->p_prev, r->pb->p, 3 * sizeof(double) * (size_t)r->pb->nn);
  }
  double t_last = r->t_prev;
  r->t_prev = time;
  return record_out(r, step, t_last, time, 1.0, 0, 0.0, kinetic, strain, L, J, force, t0);
}

/* The history row and frame of an accepted step (when due); t_last: the
 * time of the step before (the output times the step passed). */
static int record_out(crd_run *r, int step, double t_last, double time, double lf, int iters, double resid, double kinetic,
                      double strain, const double L[3], const double J[3], int force, double t0)
{
  crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  int is_static = m->analysis.type == CRD_ANALYSIS_STATIC;
  r->strain = strain;
  const crd_output *o = &m->output;
  double t_out = is_static ? 0.0 : time, t_out0 = is_static ? 0.0 : t_last; /* history_dt, vtk_dt: dynamics only */
  if (force || crd_output_row_due(o, step, t_out0, t_out)) {
    for (int k = 0; k < o->nprobes; ++k) {
      int i = o->probes[k].node;
      for (int c = 0; c < 3; ++c) {
        r->extra[6 * k + c] = pb->d[3 * i + c];
        r->extra[6 * k + 3 + c] = pb->p[3 * i + c];
      }
    }
    crd_ties_columns(r->ties, r->extra + 6 * o->nprobes);
    int kx = 6 * o->nprobes + crd_ties_ncols(r->ties);
    if (r->integrator_col) /* 0: the initial state, 1: an explicit step, 2: an implicit one */
      r->extra[kx++] = step == 0 ? 0 : r->integrator == CRD_INT_EXPLICIT ? 1 : 2;
    r->extra[kx] = r->stage;
    double en[4] = {kinetic, strain, r->wext, kinetic + strain - r->wext};
    if (r->hist) CRD_CALL(crd_history_row(r->hist, step, time, lf, iters, resid, en, L, J, r->extra));
    r->nrows++;
  }
  if (crd_output_has_frames(o) && (force || crd_output_frame_due(o, step, t_out0, t_out))) {
    CRD_CALL(crd_run_write_frame(r, is_static ? lf : time)); /* every rank: its piece (run_frame.c) */
  }
  r->time_output += crd_wtime() - t0;
  return 0;
}

static void run_free(crd_run *r)
{
  crd_ckpt_close(&r->restart);
  if (r->hist) crd_history_close(&r->hist, 0);
  crd_pvd_destroy(&r->pvd);
  crd_loads_destroy(&r->loads);
  crd_ties_destroy(&r->ties);
  crd_linsys_destroy(&r->ls);
  crd_problem_destroy(&r->pb);
  crd_model_destroy(&r->m);
  free(r->extra);
  free(r->d_prev);
  free(r->p_prev);
}

/* --solver mumps: MUMPS through PETSc, in MPI builds (docs/distributed.md). */
static int choose_mumps(crd_run *r)
{
#ifdef CRD_HAVE_PETSC
  return crd_linsys_create("mumps", &r->ls);
#else
  (void)r;
  return CRD_ERR(CRD_ERR_UNSUPPORTED, "--solver mumps: this build has no PETSc with MUMPS (it comes with the MPI "
                 "build where PETSc is found: make MPI=1; docs/distributed.md); use --solver cholmod");
#endif
}

/* --solver (solver.h): cholmod (default, host), cusolver (device), mumps
 * (MPI builds); cudss is named so that the message can say why it is not
 * there.  The run's linear system is created with the solver chosen. */
static int choose_solver(crd_run *r)
{
  const char *s = r->opts->solver;
  if (!s || !strcmp(s, "cholmod") || !strcmp(s, "auto")) return crd_linsys_create("cholmod", &r->ls);
  if (!strcmp(s, "mumps")) return choose_mumps(r);
#ifndef CRD_HAVE_CUDSS
  if (!strcmp(s, "cudss"))
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "--solver cudss: this build has no cuDSS (not found at build time; "
                   "docs/cuda.md); use --solver cusolver or cholmod");
#endif
  if (strcmp(s, "cusolver") && strcmp(s, "cudss"))
    return CRD_ERR(CRD_ERR_INPUT, "--solver '%s': unknown linear solver (cholmod, cusolver, cudss, mumps, auto)", s);
#ifndef CRD_HAVE_CUDA
  return CRD_ERR(CRD_ERR_UNSUPPORTED, "--solver cusolver: this build has no CUDA (built without nvcc; "
                 "docs/cuda.md); use --solver cholmod");
#else
  if (strcmp(r->pb->be->ops->name, "cuda") && !r->opts->quiet)
    printf("solver %s with the %s backend: the matrix values are copied to the device for every "
           "factorization\n", s, r->pb->be->ops->name);
  return crd_linsys_create(s, &r->ls);
#endif
}

/* history.csv(.part): its columns (probes, then the rigid bodies' and
 * ties'), new or resumed at the checkpoint's length */
static int open_history(crd_run *r)
{
  const crd_model *m = r->m;
  int rc = 0;
  /* the probes' columns, the ties', the integrator (runs with an auto stage), then the stage */
  for (int s = 0; s < m->analysis.nstages; ++s) r->integrator_col |= m->analysis.stages[s].integrator == CRD_INT_AUTO;
  int np = m->output.nprobes, nt = crd_ties_ncols(r->ties), nx = 6 * np + nt + 1 + r->integrator_col;
  char **names = NULL;
  if ((rc = CRD_CALLOC(nx, &r->extra)) || (rc = CRD_CALLOC(nx, &names)) ||
      (rc = CRD_CALLOC(3 * (size_t)m->nn, &r->d_prev)) || (rc = CRD_CALLOC(3 * (size_t)m->nn, &r->p_prev))) {
    free(names);
    return rc;
  }
  static const char *suf[] = {"ux", "uy", "uz", "px", "py", "pz"};
  for (int k = 0; k < 6 * np; ++k) {
    names[k] = malloc(CRD_NAME_MAX + 4);
    snprintf(names[k], CRD_NAME_MAX + 4, "%s.%s", m->output.probes[k / 6].name, suf[k % 6]);
  }
  for (int k = 6 * np; k < nx; ++k) names[k] = malloc(CRD_NAME_MAX + 16);
  crd_ties_col_names(r->ties, names + 6 * np, CRD_NAME_MAX + 16);
  if (r->integrator_col) snprintf(names[nx - 2], CRD_NAME_MAX + 16, "integrator");
  snprintf(names[nx - 1], CRD_NAME_MAX + 16, "stage");
  if (r->restart) {
    long long hb, hh, v;
    if (!(rc = crd_ckpt_get_int(r->restart, "run", "history.bytes", &hb)) &&
        !(rc = crd_ckpt_get_int(r->restart, "run", "history.hash", &hh)) &&
        !(rc = crd_ckpt_get_int(r->restart, "run", "history.rows", &v))) {
      r->nrows = (int)v;
      if (!(rc = crd_ckpt_get_int(r->restart, "run", "frames", &v))) r->nframes = (int)v;
    }
    if (!rc && crd_par_rank() == 0) rc = crd_history_resume(r->dir, nx, (int64_t)hb, (uint64_t)hh, &r->hist);
  } else if (crd_par_rank() == 0)
    rc = crd_history_open(r->dir, nx, (const char *const *)names, &r->hist);
  for (int k = 0; k < nx; ++k) free(names[k]);
  free(names);
  return rc;
}

/* The output folder, cleared of an earlier run's files (run_folder.c), the
 * frames folder and result.pvd when frames are due, and the history, all
 * taken up where the checkpoint left them when restarting. */
static int open_outputs(crd_run *r)
{
  const crd_model *m = r->m;
  const crd_run_opts *opts = r->opts;
  long long frames_kept = 0;
  if (crd_par_rank() > 0) return open_history(r); /* rank 0 alone writes (parallel.h) */
  if (r->restart) CRD_CALL(crd_ckpt_get_int(r->restart, "run", "frames", &frames_kept));
  CRD_CALL(crd_mkdir_p(r->dir));
  CRD_CALL(crd_run_clear_folder(r->dir, r->restart != NULL, (int)frames_kept));
  char fdir[2 * CRD_PATH_MAX];
  snprintf(fdir, sizeof fdir, "%s/frames", r->dir);
  if (crd_output_has_frames(&m->output)) {
    CRD_CALL(crd_mkdir_p(fdir));
    CRD_CALL(crd_pvd_create(r->dir, &r->pvd));
  }
  if (r->restart && r->pvd) { /* the frames the checkpoint had; later ones are written again */
    size_t plen;
    const char *pe = crd_ckpt_find(r->restart, "pvd", &plen);
    if (!pe) return CRD_ERR(CRD_ERR_INPUT, "%s: checkpoint has no section 'pvd'", opts->restart_path);
    CRD_CALL(crd_pvd_restore(r->pvd, pe, plen > 0 ? plen - 1 : 0));
  }
  return open_history(r);
}

/* Rigid bodies with a shell mesh run in dynamic analyses only (tie.h); a
 * model of rigid bodies only runs on the CPU backend. */
static int check_model_kind(const crd_run *r, const char *be)
{
  const crd_model *m = r->m;
  if (m->nbodies > 0 && m->ne > 0 && m->analysis.type != CRD_ANALYSIS_DYNAMIC)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.rigid_bodies: rigid bodies with a shell mesh run in dynamic analyses "
                   "only (this one is %s)", m->case_path, m->analysis.type == CRD_ANALYSIS_STATIC ? "static" : "modal");
  if (m->ne == 0 && strcmp(be, "cpu") && strcmp(be, "auto"))
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: backend '%s': a model of rigid bodies only runs on the cpu backend",
                   m->case_path, be);
  if (crd_par_size() > 1 && (m->ne == 0 || m->analysis.type == CRD_ANALYSIS_MODAL))
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: %d MPI ranks: static and dynamic analyses of shell models run over "
                   "ranks; %s runs on one process (mpirun -n 1, or without mpirun)", m->case_path, crd_par_size(),
                   m->ne == 0 ? "a model of rigid bodies only" : "a modal analysis");
  if (crd_par_size() > 1 && strcmp(be, "cpu") && strcmp(be, "auto"))
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: backend '%s' over %d MPI ranks: only the cpu backend runs over ranks "
                   "in this version", m->case_path, be, crd_par_size());
  return 0;
}

/* The backend named by --backend or the case (the CPU's is the problem's
 * own); a failure of the case's choice names its JSON path. */
static int choose_backend(crd_run *r, const char *be)
{
  const crd_run_opts *opts = r->opts;
  if (strcmp(be, "cpu") || opts->device >= 0) {
    int rc = crd_problem_set_backend(r->pb, be, opts->device);
    if (rc) {
      if (!opts->backend && strcmp(be, "cpu")) /* from the case file: say so */
        rc = CRD_WRAP(rc, NULL, "%s: $.backend: ", r->m->case_path);
      return rc;
    }
    if (!opts->quiet) printf("backend %s: %s\n", r->pb->be->ops->name, r->pb->be->device_name);
  }
  r->pb->be->deterministic = opts->deterministic;
  if (r->pb->be->note[0]) fprintf(stderr, "crdyn: %s\n", r->pb->be->note);
  return 0;
}

/* A dynamic analysis with intersection nodes: explicit stages
 * (explicit_triads.c) and implicit stages (implicit_triads.c, fold_dyn.h);
 * not auto stages (the hybrid's switches do not carry the triads' rates
 * yet), not moments at the nodes of an implicit stage (their work against
 * the step's triad basis is not derived).  Checkpoints carry the triads'
 * state (dyn_checkpoint.c, "triads.state"). */
static int moment_at_triad(const crd_run *r)
{
  const crd_model *m = r->m;
  for (int l = 0; l < m->nloads; ++l) {
    if (m->loads[l].kind != CRD_LOAD_MOMENT) continue;
    if (m->loads[l].set < 0) return l;
    const crd_set *set = &m->sets[m->loads[l].set];
    for (int k = 0; k < set->nn; ++k)
      if (r->pb->tr->of[set->nodes[k]] >= 0) return l;
  }
  return -1;
}

static int check_triad_stages(const crd_run *r)
{
  const crd_model *m = r->m;
  char list[160];
  crd_triads_list(r->pb->tr, list, sizeof list);
  int ml = moment_at_triad(r);
  for (int s = 0; s < m->analysis.nstages; ++s) {
    int in = m->analysis.stages[s].integrator;
    if (in != CRD_INT_EXPLICIT && in != CRD_INT_IMPLICIT)
      return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.analysis.stages[%d] (auto): auto stages with intersection "
                     "nodes: not yet (%d intersection node(s): %s); explicit and implicit stages run them "
                     "(docs/dynamics.md, \"Intersection nodes in the implicit step\")", m->case_path, s,
                     r->pb->tr->n, list);
    if (in == CRD_INT_IMPLICIT && ml >= 0)
      return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.loads[%d]: a moment at an intersection node in an implicit "
                     "stage ($.analysis.stages[%d]): not yet (%d intersection node(s): %s); explicit stages and "
                     "statics take it", m->case_path, ml, s, r->pb->tr->n, list);
  }
  return 0;
}

/* Intersection nodes (triads.h) run in static, modal and dynamic analyses
 * of shells without rigid bodies, on the CPU backend
 * (crd_problem_set_backend); check_triad_stages says which stages; a note
 * names them, since a coarse mesh of a smooth surface can pass for folded. */
static int check_triads(const crd_run *r)
{
  const crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  if (!pb->tr) return 0;
  if (m->analysis.type == CRD_ANALYSIS_DYNAMIC) CRD_CALL(check_triad_stages(r));
  if (m->nbodies > 0) return crd_problem_refuse_triads(pb, "a model with rigid bodies");
  if (!r->opts->quiet) {
    char list[160];
    crd_triads_list(pb->tr, list, sizeof list);
    fprintf(stderr, "crdyn: note: %d intersection node(s) (%s) where patches of the shell meet at more than "
            "crease_angle = %g degrees (up to %.1f): each carries a triad (docs/element.md); if the surface is "
            "smooth and only the mesh coarse, set \"crease_angle\" above %.1f\n", pb->tr->n, list, m->crease_angle,
            pb->tr->split, pb->tr->split);
  }
  return 0;
}

/* The problem of a shell model (numbering and pattern on the threads asked
 * for, the backend, the loads and the ties) and the run's linear system. */
static int build_problem(crd_run *r, const char *be)
{
  int nthreads = r->opts->threads;
  if (nthreads <= 0) nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  crd_solver_set_blas_threads(nthreads);
  CRD_CALL(crd_problem_create(r->m, nthreads, &r->pb));
  CRD_CALL(check_triads(r));
  CRD_CALL(choose_backend(r, be));
  CRD_CALL(choose_solver(r));
  CRD_CALL(crd_loads_create(r->pb, &r->loads));
  return crd_ties_create(r->m, r->pb, &r->ties);
}

/* The test hooks (tests/cli/restart.sh, watchdog.sh, guards.sh): not for
 * users. */
static void read_test_hooks(crd_run *r)
{
  const char *hook = crd_switch("CRDYN_TEST_SIGINT_STEP");
  r->test_sigint_step = hook ? atoi(hook) : 0;
  hook = crd_switch("CRDYN_TEST_SIGKILL_STEP");
  r->test_sigkill_step = hook ? atoi(hook) : 0;
  hook = crd_switch("CRDYN_TEST_ENERGY_STEP");
  r->test_energy_step = hook ? atoi(hook) : 0;
  hook = crd_switch("CRDYN_TEST_NAN_STEP");
  r->test_nan_step = hook ? atoi(hook) : 0;
  hook = crd_switch("CRDYN_TEST_NAN_K_STEP");
  r->test_nan_k_step = hook ? atoi(hook) : 0;
  hook = crd_switch("CRDYN_TEST_SLIVER_STEP");
  r->test_sliver_step = hook && !strcmp(hook, "1");
  hook = crd_switch("CRDYN_TEST_MONO_CUT");
  r->test_mono_cut = hook && !strcmp(hook, "1");
  hook = crd_switch("CRDYN_TEST_UNSTABLE_DT");
  r->test_unstable_dt = hook && !strcmp(hook, "1");
}

/* --restart: the checkpoint of this very case (its hash), of a dynamic
 * analysis; without it, a note where checkpoints were asked of an analysis
 * that writes none. */
static int open_restart(crd_run *r)
{
  const crd_model *m = r->m;
  const crd_run_opts *opts = r->opts;
  if (!opts->restart_path) {
    if (m->analysis.type != CRD_ANALYSIS_DYNAMIC &&
        (m->output.checkpoint_every_steps > 0 || m->output.checkpoint_every_seconds > 0) && !opts->quiet)
      printf("note: %s: $.output.checkpoint_every: only dynamic analyses write checkpoints\n", m->case_path);
    return 0;
  }
  if (m->analysis.type != CRD_ANALYSIS_DYNAMIC)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "--restart %s: only dynamic analyses have checkpoints (%s is %s)",
                   opts->restart_path, m->case_path, m->analysis.type == CRD_ANALYSIS_STATIC ? "static" : "modal");
  CRD_CALL(crd_ckpt_open(opts->restart_path, &r->restart));
  if (crd_ckpt_case_hash(r->restart) != r->case_hash)
    return CRD_ERR(CRD_ERR_INPUT, "%s: the checkpoint is of another case (case hash %016llx; %s hashes to "
                   "%016llx): refusing to restart", opts->restart_path,
                   (unsigned long long)crd_ckpt_case_hash(r->restart), m->case_path,
                   (unsigned long long)r->case_hash);
  return 0;
}

static int run_analysis(crd_run *r)
{
  switch (r->m->analysis.type) {
  case CRD_ANALYSIS_STATIC: return crd_static_run(r);
  case CRD_ANALYSIS_DYNAMIC: return crd_dynamic_run(r);
  case CRD_ANALYSIS_MODAL: return crd_modal_run(r);
  }
  return 0;
}

/* A run that stopped (rc): the history stays history.csv.part, the last
 * checkpoint is kept, and a dynamic run's summary.json says it did not
 * complete and why (status "failed" or "interrupted", never "complete");
 * a failed static or modal run leaves no summary at all
 * (tests/cli/bad_input.sh).  Returns rc with the message completed. */
static int finish_stopped(crd_run *r, int rc)
{
  const int dynamic = r->m->analysis.type == CRD_ANALYSIS_DYNAMIC;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", crd_err_message());
  if (rc != CRD_ERR_INTERRUPTED && dynamic) {
    size_t len = strlen(msg);
    if (r->ckpt_step >= 0)
      snprintf(msg + len, sizeof msg - len, "; the last good checkpoint, of step %d, is kept in %.1000s", r->ckpt_step,
               r->ckpt_path);
    else
      snprintf(msg + len, sizeof msg - len, "; no checkpoint was written");
  }
  crd_history_close(&r->hist, 0);
  if (dynamic && crd_par_rank() == 0)
    crd_run_write_summary(r, r->wall_before + crd_wtime() - r->t_start, rc == CRD_ERR_INTERRUPTED ? "interrupted" : "failed",
                  msg);
  return crd_err_set(rc, __FILE__, __LINE__, __func__, "%s", msg);
}

/* A complete run: history.csv in place, summary.json last, the timing
 * table and the closing line. */
static int finish_complete(crd_run *r)
{
  CRD_CALL(crd_history_close(&r->hist, 1));
  double wall = r->wall_before + crd_wtime() - r->t_start;
  if (crd_par_rank() == 0) CRD_CALL(crd_run_write_summary(r, wall, "complete", NULL));
  if (r->opts->timing) crd_run_print_timing(r);
  if (!r->opts->quiet)
    printf("done: %d steps, %d Newton iterations, %.2f s (elements %.2f s, factorize %.2f s, solve %.2f s)\n",
           r->steps, r->newton_iters, wall, r->time_eval, crd_solver_get_stats(r->ls->solver)->factor_s,
           crd_solver_get_stats(r->ls->solver)->solve_s);
  return 0;
}

/* A model with a shell mesh: the problem, then (crdyn check) the plan, or
 * the restart, the outputs, the analysis and its end. */
static int run_shell_model(crd_run *r, const char *be)
{
  const crd_model *m = r->m;
  CRD_CALL(build_problem(r, be));
  if (r->opts->check_only) return crd_check_print(r);
  CRD_CALL(crd_hash_file(r->opts->case_path, &r->case_hash));
  snprintf(r->ckpt_path, sizeof r->ckpt_path, "%.1023s/checkpoint.crd", r->dir);
  r->ckpt_step = -1;
  r->ckpt_wall = r->t_start;
  read_test_hooks(r);
  CRD_CALL(open_restart(r));
  /* outputs: only now, when the case is known to be valid */
  CRD_CALL(open_outputs(r));
  if (!r->opts->quiet)
    printf("crdyn %s: %s: %d nodes, %d elements, %d equations -> %s\n", CRD_VERSION, m->title, m->nn, m->ne,
           r->pb->neq, r->dir);
  int rc = run_analysis(r);
  crd_run_progress_break();
  return rc ? finish_stopped(r, rc) : finish_complete(r);
}

int crd_run_case(const crd_run_opts *opts)
{
  crd_run run, *r = &run;
  memset(r, 0, sizeof run);
  r->opts = opts;
  r->t_start = crd_wtime();
  r->stage = 1;
  CRD_CALL(crd_case_load(opts->case_path, &r->m));
  snprintf(r->dir, sizeof r->dir, "%s", opts->out_dir ? opts->out_dir : r->m->output.dir);
  const char *be = opts->backend ? opts->backend : r->m->backend;
  if (crd_par_size() > 1 && !strcmp(be, "auto")) be = "cpu"; /* over ranks: the CPU's element passes */
  int rc = check_model_kind(r, be);
  if (!rc) rc = r->m->ne == 0 ? crd_rigid_run(r) : run_shell_model(r, be);
  if (rc) rc = CRD_TRACE(rc);
  run_free(r);
  return rc;
}
