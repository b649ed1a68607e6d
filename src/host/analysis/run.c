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
#include "crdyn/run.h"
#include "crdyn/trace.h"
#include "crdyn/shell_results.h"
#include "crdyn/tie.h"
#include "crdyn/timer.h"

#define CRD_VERSION "0.1.0"

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

/* Per-element results of the current state (shell_results.h), as VTU cell
 * fields: the resultants in the co-rotated element frame, that frame's axes,
 * and the strain energy per unit initial area. */
enum { RES_NXX, RES_NYY, RES_NXY, RES_MXX, RES_MYY, RES_MXY, RES_QX, RES_QY, RES_SED, RES_NSCALAR };
static const char *const res_names[RES_NSCALAR] = {"N_xx", "N_yy", "N_xy", "M_xx", "M_yy",
                                                   "M_xy", "Q_x",  "Q_y",  "strain_energy_density"};

static void element_results(const crd_problem *pb, double *sc, double *ex, double *ey)
{
  const crd_model *m = pb->m;
  size_t ne = (size_t)m->ne;
#pragma omp parallel for schedule(static) num_threads(crd_pass_threads(pb, pb->ne, CRD_PASS_MIN_ELEMS))
  for (int e = 0; e < m->ne; ++e) {
    double X0[12], p0[12], d[12], p[12];
    const int32_t *qd = m->quads + 4 * e;
    crd_elem_gather3(qd, m->x, X0);
    crd_elem_gather3(qd, pb->p0, p0);
    crd_elem_gather3(qd, pb->d, d);
    crd_elem_gather3(qd, pb->p, p);
    const crd_section *s = &m->sections[m->elem_section[e]];
    crd_q4_mat mt = {s->E, s->nu, s->thickness, 0.0};
    crd_q4_results res;
    crd_q4_results_global(X0, p0, d, p, &mt, &res);
    const double v[RES_NSCALAR] = {res.N[0], res.N[1], res.N[2], res.M[0], res.M[1],
                                   res.M[2], res.Q[0], res.Q[1], res.u};
    for (int k = 0; k < RES_NSCALAR; ++k) sc[k * ne + (size_t)e] = v[k];
    for (int c = 0; c < 3; ++c) {
      ex[3 * (size_t)e + c] = res.ex[c];
      ey[3 * (size_t)e + c] = res.ey[c];
    }
  }
}

static int write_frame(crd_run *r, double time)
{
  crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  double *xc = NULL, *sc = NULL, *ex = NULL, *ey = NULL;
  size_t ne = (size_t)m->ne;
  int rc;
  if ((rc = CRD_CALLOC(3 * (size_t)m->nn, &xc)) || (rc = CRD_CALLOC(RES_NSCALAR * ne, &sc)) ||
      (rc = CRD_CALLOC(3 * ne, &ex)) || (rc = CRD_CALLOC(3 * ne, &ey)))
    goto out;
  for (int i = 0; i < 3 * m->nn; ++i) xc[i] = m->x[i] + pb->d[i];
  element_results(pb, sc, ex, ey);
  char rel[64], path[CRD_PATH_MAX + 80];
  snprintf(rel, sizeof rel, "frames/frame_%06d.vtu", r->nframes);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  /* rates only where there are any (dynamics): a zero field in a static
   * frame would read as a computed state of rest */
  crd_vtu_field pf[4] = {{"displacement", 3, pb->d}, {"normal", 3, pb->p},
                         {"velocity", 3, r->vel}, {"normal_rate", 3, r->normal_rate}};
  int npf = r->vel && r->normal_rate ? 4 : 2;
  crd_vtu_field cf[RES_NSCALAR + 2];
  for (int k = 0; k < RES_NSCALAR; ++k) {
    cf[k].name = res_names[k];
    cf[k].ncomp = 1;
    cf[k].data = sc + (size_t)k * ne;
  }
  cf[RES_NSCALAR].name = "frame_x";
  cf[RES_NSCALAR].ncomp = 3;
  cf[RES_NSCALAR].data = ex;
  cf[RES_NSCALAR + 1].name = "frame_y";
  cf[RES_NSCALAR + 1].ncomp = 3;
  cf[RES_NSCALAR + 1].data = ey;
  if ((rc = crd_vtu_write(path, m->nn, xc, m->ne, m->quads, npf, pf, RES_NSCALAR + 2, cf))) goto out;
  if ((rc = crd_pvd_add(r->pvd, time, rel))) goto out;
  r->nframes++;
out:
  free(xc);
  free(sc);
  free(ex);
  free(ey);
  return rc;
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
    r->extra[6 * o->nprobes + crd_ties_ncols(r->ties)] = r->stage;
    double en[4] = {kinetic, strain, r->wext, kinetic + strain - r->wext};
    CRD_CALL(crd_history_row(r->hist, step, time, lf, iters, resid, en, L, J, r->extra));
    r->nrows++;
  }
  if (crd_output_has_frames(o) && (force || crd_output_frame_due(o, step, t_out0, t_out)))
    CRD_CALL(write_frame(r, is_static ? lf : time));
  r->time_output += crd_wtime() - t0;
  return 0;
}

static long peak_rss_kib(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* --timing: one row per phase, as printed and as written to summary.json. */
typedef struct timing_row {
  const char *key, *label;
  double count, seconds;  /* count: element evaluations, calls or steps */
} timing_row;

static int timing_rows(const crd_run *r, timing_row *rows)
{
  const crd_phase_times *tm = &r->pb->tm;
  const crd_solver_stats *ss = crd_solver_get_stats(r->pb->solver);
  timing_row t[] = {
    {"element_tangent", "element tangent + force (elements)", (double)tm->nelem_K, tm->elem_K_s},
    {"element_force", "element force only (elements)", (double)tm->nelem_f, tm->elem_f_s},
    {"element_implicit", "element implicit midpoint + inertia (elements)", (double)tm->nelem_mid, tm->elem_mid_s},
    {"element_implicit_tangent", "  of which with the tangent (elements)", (double)tm->nelem_mid_K, tm->elem_mid_K_s},
    {"assembly", "scatter into F and K (calls)", (double)tm->nassemble, tm->assemble_s},
    {"analyse", "solver analyse (calls)", ss->nanalyse, ss->analyse_s},
    {"factorize_first", "first factorization of a pattern", ss->nfactor > 0 ? 1 : 0, ss->factor_first_s},
    {"refactorize", "refactorizations (calls)", ss->nrefactor, ss->refactor_s},
    {"solve", "triangular solves (calls)", ss->nsolve, ss->solve_s},
    {"newton_iteration", "Newton iterations", r->newton_iters, r->time_implicit},
    {"implicit_step", "implicit steps", r->dyn.implicit_steps, r->time_implicit},
    {"explicit_step", "explicit steps", r->dyn.explicit_steps, r->time_explicit},
    {"output", "output (history, frames)", r->nrows + r->nframes, r->time_output},
  };
  int n = (int)(sizeof t / sizeof t[0]);
  memcpy(rows, t, sizeof t);
  return n;
}

static void add_timing(const crd_run *r, cJSON *js)
{
  const crd_solver_stats *ss = crd_solver_get_stats(r->pb->solver);
  timing_row rows[16];
  int n = timing_rows(r, rows);
  cJSON *t = cJSON_AddObjectToObject(js, "timing");
  cJSON_AddNumberToObject(t, "threads", r->pb->nthreads);
  /* the cuda backend times its element kernels and assembly with CUDA events (device time) */
  cJSON_AddStringToObject(t, "element_clock", strcmp(r->pb->be->ops->name, "cuda") ? "wall" : "cuda_events");
  for (int k = 0; k < n; ++k) {
    cJSON *o = cJSON_AddObjectToObject(t, rows[k].key);
    cJSON_AddNumberToObject(o, "count", rows[k].count);
    cJSON_AddNumberToObject(o, "seconds", rows[k].seconds);
    cJSON_AddNumberToObject(o, "seconds_each", rows[k].count > 0 ? rows[k].seconds / rows[k].count : 0.0);
  }
  cJSON_AddNumberToObject(t, "elements_batched", (double)r->pb->tm.nelem_batched);
  cJSON_AddNumberToObject(t, "element_implicit_tangent_fastest_pass_s_each", r->pb->tm.elem_mid_K_fastest_each_s);
  cJSON_AddNumberToObject(t, "refactorize_min_s", ss->refactor_min_s);
  cJSON_AddNumberToObject(t, "factor_flops", ss->flops_factor);
  cJSON_AddNumberToObject(t, "nnz_L", ss->nnz_factor);
  cJSON_AddNumberToObject(t, "nnz_L_stored", ss->nnz_stored);
  if (ss->blas_threads > 0) cJSON_AddNumberToObject(t, "blas_threads", ss->blas_threads);
  cJSON_AddNumberToObject(t, "refactorize_gflops_per_s",
                          ss->refactor_min_s > 0 ? 1e-9 * ss->flops_factor / ss->refactor_min_s : 0.0);
  cJSON_AddNumberToObject(t, "peak_rss_mib", peak_rss_kib() / 1024.0);
}

static void print_timing(const crd_run *r)
{
  const crd_solver_stats *ss = crd_solver_get_stats(r->pb->solver);
  timing_row rows[16];
  int n = timing_rows(r, rows);
  printf("timing (%d threads)\n  %-48s %10s %11s %13s\n", r->pb->nthreads, "phase", "count", "total s",
         "each ms");
  for (int k = 0; k < n; ++k) {
    if (rows[k].count <= 0) continue;
    printf("  %-48s %10.0f %11.4f %13.5f\n", rows[k].label, rows[k].count, rows[k].seconds,
           1e3 * rows[k].seconds / rows[k].count);
  }
  const crd_phase_times *tm = &r->pb->tm;
  long long nev = tm->nelem_K + tm->nelem_f + tm->nelem_mid;
  if (tm->nelem_batched > 0 && nev > 0)
    printf("  element evaluations in SIMD batches: %lld of %lld (%.1f%%)\n", tm->nelem_batched, nev,
           100.0 * (double)tm->nelem_batched / (double)nev);
  printf("  factor: nnz(L) %.4g (%.4g stored), %.4g flops, fastest refactorization %.4f s = %.2f GFLOP/s",
         ss->nnz_factor, ss->nnz_stored, ss->flops_factor, ss->refactor_min_s,
         ss->refactor_min_s > 0 ? 1e-9 * ss->flops_factor / ss->refactor_min_s : 0.0);
  if (ss->blas_threads > 0) printf(", BLAS on %d thread%s", ss->blas_threads, ss->blas_threads > 1 ? "s" : "");
  printf("\n");
  printf("  peak RSS %.1f MiB\n", peak_rss_kib() / 1024.0);
  if (!strcmp(r->pb->be->ops->name, "cuda"))
    printf("  element and assembly rows: device time (CUDA events), %s assembly\n",
           r->pb->be->deterministic ? "deterministic" : "atomic");
}

/* status "complete", or "failed" / "interrupted" with the message and the
 * checkpoint to go on from (a failed run's summary must not look complete). */
static int write_summary(crd_run *r, double wall, const char *status, const char *message)
{
  const crd_model *m = r->m;
  cJSON *js = cJSON_CreateObject();
  cJSON_AddStringToObject(js, "crdyn", CRD_VERSION);
  cJSON_AddStringToObject(js, "case", m->case_path);
  cJSON_AddStringToObject(js, "title", m->title);
  cJSON_AddStringToObject(js, "status", status);
  if (message) cJSON_AddStringToObject(js, "message", message);
  if (r->opts->restart_path) cJSON_AddStringToObject(js, "restarted_from", r->opts->restart_path);
  if (m->analysis.type == CRD_ANALYSIS_DYNAMIC) {
    cJSON *ck = cJSON_AddObjectToObject(js, "checkpoint");
    cJSON_AddNumberToObject(ck, "written", r->nckpt);
    if (r->ckpt_step >= 0) {
      cJSON_AddStringToObject(ck, "path", r->ckpt_path);
      cJSON_AddNumberToObject(ck, "step", r->ckpt_step);
    } else
      cJSON_AddNullToObject(ck, "path");
    if (strcmp(status, "complete")) {
      cJSON_AddNumberToObject(js, "last_good_step", r->dyn.step);
      cJSON_AddNumberToObject(js, "last_good_time", r->dyn.t);
    }
  }
  cJSON_AddStringToObject(js, "backend", r->pb->be->ops->name);
  cJSON_AddStringToObject(js, "device", r->pb->be->device_name);
  cJSON_AddStringToObject(js, "solver", crd_solver_name(r->pb->solver));
  if (!strcmp(r->pb->be->ops->name, "cuda"))
    cJSON_AddStringToObject(js, "assembly", r->pb->be->deterministic ? "deterministic" : "atomic");
  static const char *types[] = {"static", "modal", "dynamic"};
  cJSON_AddStringToObject(js, "analysis", types[m->analysis.type]);
  cJSON *c = cJSON_AddObjectToObject(js, "counts");
  cJSON_AddNumberToObject(c, "nodes", m->nn);
  cJSON_AddNumberToObject(c, "elements", m->ne);
  cJSON_AddNumberToObject(c, "equations", r->pb->neq);
  cJSON_AddNumberToObject(c, "nnz_K", (double)r->pb->K->nnz);
  const crd_solver_stats *ss = crd_solver_get_stats(r->pb->solver);
  cJSON_AddNumberToObject(c, "nnz_L", ss->nnz_factor);
  cJSON_AddNumberToObject(c, "steps", r->steps);
  cJSON_AddNumberToObject(c, "newton_iterations", r->newton_iters);
  cJSON_AddNumberToObject(c, "step_cuts", r->cuts);
  cJSON_AddNumberToObject(c, "history_rows", r->nrows);
  cJSON_AddNumberToObject(c, "frames", r->nframes);
  cJSON *t = cJSON_AddObjectToObject(js, "time_s");
  cJSON_AddNumberToObject(t, "wall", wall);
  cJSON_AddNumberToObject(t, "element_eval_and_assembly", r->time_eval);
  cJSON_AddNumberToObject(t, "analyse", ss->analyse_s);
  cJSON_AddNumberToObject(t, "factorize", ss->factor_s);
  cJSON_AddNumberToObject(t, "solve", ss->solve_s);
  cJSON_AddNumberToObject(t, "output", r->time_output);
  cJSON_AddNumberToObject(js, "factor_gflops_per_s",
                          ss->factor_s > 0 ? 1e-9 * ss->flops_factor * ss->nfactor / ss->factor_s : 0.0);
  cJSON_AddNumberToObject(js, "peak_rss_mib", peak_rss_kib() / 1024.0);
  if (m->analysis.type == CRD_ANALYSIS_DYNAMIC) {
    cJSON *d = cJSON_AddObjectToObject(js, "dynamics");
    cJSON_AddNumberToObject(d, "implicit_steps", r->dyn.implicit_steps);
    cJSON_AddNumberToObject(d, "explicit_steps", r->dyn.explicit_steps);
    cJSON_AddNumberToObject(d, "newton_per_implicit_step",
                            r->dyn.implicit_steps ? (double)r->newton_iters / r->dyn.implicit_steps : 0.0);
    cJSON_AddNumberToObject(d, "max_energy_change_per_step_rho1", r->dyn.max_energy_residual);
    cJSON_AddNumberToObject(d, "monotone_energy_steps", r->dyn.mono_steps);
    cJSON_AddNumberToObject(d, "monotone_energy_iterations", r->dyn.mono_iters);
    cJSON_AddNumberToObject(d, "monotone_energy_max_xi", r->dyn.xi_max);
    cJSON_AddNumberToObject(d, "rotational_mass_scaling", r->dyn.rot_mass_scaling);
    cJSON_AddNumberToObject(d, "explicit_stable_dt", r->dyn.dt_stable);
  }
  if (m->analysis.type == CRD_ANALYSIS_MODAL) {
    cJSON *d = cJSON_AddObjectToObject(js, "modal");
    cJSON_AddNumberToObject(d, "modes", r->modal.nmodes);
    cJSON_AddNumberToObject(d, "rigid_body_modes", r->modal.nrigid);
    cJSON_AddNumberToObject(d, "first_elastic_frequency", r->modal.f1);
  }
  if (r->opts->timing) add_timing(r, js);
  cJSON *f = cJSON_AddObjectToObject(js, "final");
  cJSON_AddNumberToObject(f, "strain_energy", r->strain);
  cJSON_AddNumberToObject(f, "external_work", r->wext);
  char *txt = cJSON_Print(js);
  char path[2 * CRD_PATH_MAX];
  snprintf(path, sizeof path, "%s/summary.json", r->dir);
  int rc = crd_write_atomic(path, txt);
  free(txt);
  cJSON_Delete(js);
  return rc;
}

static void run_free(crd_run *r)
{
  crd_ckpt_close(&r->restart);
  if (r->hist) crd_history_close(&r->hist, 0);
  crd_pvd_destroy(&r->pvd);
  crd_loads_destroy(&r->loads);
  crd_ties_destroy(&r->ties);
  crd_problem_destroy(&r->pb);
  crd_model_destroy(&r->m);
  free(r->extra);
  free(r->d_prev);
  free(r->p_prev);
}

/* --solver (solver.h): cholmod (default, host) or cusolver (device);
 * cudss is named so that the message can say why it is not there. */
static int choose_solver(crd_run *r)
{
  const char *s = r->opts->solver;
  if (!s || !strcmp(s, "cholmod") || !strcmp(s, "auto")) return 0; /* the problem's CHOLMOD */
#ifndef CRD_HAVE_CUDSS
  if (!strcmp(s, "cudss"))
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "--solver cudss: this build has no cuDSS (not found at build time; "
                   "docs/cuda.md); use --solver cusolver or cholmod");
#endif
  if (strcmp(s, "cusolver") && strcmp(s, "cudss"))
    return CRD_ERR(CRD_ERR_INPUT, "--solver '%s': unknown linear solver (cholmod, cusolver, cudss, auto)", s);
#ifndef CRD_HAVE_CUDA
  return CRD_ERR(CRD_ERR_UNSUPPORTED, "--solver cusolver: this build has no CUDA (built without nvcc; "
                 "docs/cuda.md); use --solver cholmod");
#else
  if (strcmp(r->pb->be->ops->name, "cuda") && !r->opts->quiet)
    printf("solver %s with the %s backend: the matrix values are copied to the device for every "
           "factorization\n", s, r->pb->be->ops->name);
  crd_solver *ns;
  CRD_CALL(crd_solver_create(s, &ns));
  crd_solver_destroy(&r->pb->solver);
  r->pb->solver = ns;
  return 0;
#endif
}

/* history.csv(.part): its columns (probes, then the rigid bodies' and
 * ties'), new or resumed at the checkpoint's length */
static int open_history(crd_run *r)
{
  const crd_model *m = r->m;
  int rc = 0;
  /* the probes' columns, the ties', then the stage */
  int np = m->output.nprobes, nt = crd_ties_ncols(r->ties), nx = 6 * np + nt + 1;
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
  snprintf(names[nx - 1], CRD_NAME_MAX + 16, "stage");
  if (r->restart) {
    long long hb, hh, v;
    if (!(rc = crd_ckpt_get_int(r->restart, "run", "history.bytes", &hb)) &&
        !(rc = crd_ckpt_get_int(r->restart, "run", "history.hash", &hh)) &&
        !(rc = crd_ckpt_get_int(r->restart, "run", "history.rows", &v))) {
      r->nrows = (int)v;
      if (!(rc = crd_ckpt_get_int(r->restart, "run", "frames", &v))) r->nframes = (int)v;
    }
    if (!rc) rc = crd_history_resume(r->dir, nx, (int64_t)hb, (uint64_t)hh, &r->hist);
  } else
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

int crd_run_case(const crd_run_opts *opts)
{
  crd_run run, *r = &run;
  memset(r, 0, sizeof run);
  r->opts = opts;
  r->t_start = crd_wtime();
  r->stage = 1;
  int rc = crd_case_load(opts->case_path, &r->m);
  if (rc) return crd_err_trace(rc, __FILE__, __LINE__, __func__);
  crd_model *m = r->m;
  snprintf(r->dir, sizeof r->dir, "%s", opts->out_dir ? opts->out_dir : m->output.dir);
  const char *be = opts->backend ? opts->backend : m->backend;
  if (m->nbodies > 0 && m->ne > 0) { /* tie.h: dynamic analyses only */
    if (m->analysis.type != CRD_ANALYSIS_DYNAMIC) {
      rc = CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.rigid_bodies: rigid bodies with a shell mesh run in dynamic analyses "
                   "only (this one is %s)", m->case_path, m->analysis.type == CRD_ANALYSIS_STATIC ? "static" : "modal");
      goto out;
    }
  }
  if (m->ne == 0) { /* rigid bodies only */
    if (strcmp(be, "cpu") && strcmp(be, "auto")) {
      rc = CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: backend '%s': a model of rigid bodies only runs on the cpu backend",
                   m->case_path, be);
      goto out;
    }
    rc = crd_rigid_run(r);
    goto out;
  }
  int nthreads = opts->threads;
  if (nthreads <= 0) nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  crd_solver_set_blas_threads(nthreads);
  if ((rc = crd_problem_create(m, nthreads, &r->pb))) goto out;
  if (strcmp(be, "cpu") || opts->device >= 0) {
    if ((rc = crd_problem_set_backend(r->pb, be, opts->device))) {
      if (!opts->backend && strcmp(be, "cpu")) { /* from the case file: say so */
        char why[1024];
        snprintf(why, sizeof why, "%s", crd_err_message());
        rc = CRD_ERR(rc, "%s: $.backend: %s", m->case_path, why);
      }
      goto out;
    }
    if (!opts->quiet) printf("backend %s: %s\n", r->pb->be->ops->name, r->pb->be->device_name);
  }
  r->pb->be->deterministic = opts->deterministic;
  if (r->pb->be->note[0]) fprintf(stderr, "crdyn: %s\n", r->pb->be->note);
  if ((rc = choose_solver(r))) goto out;
  if ((rc = crd_loads_create(r->pb, &r->loads))) goto out;
  if ((rc = crd_ties_create(m, r->pb, &r->ties))) goto out;
  if (opts->check_only) {
    rc = crd_check_print(r);
    goto out;
  }
  if ((rc = crd_hash_file(opts->case_path, &r->case_hash))) goto out;
  snprintf(r->ckpt_path, sizeof r->ckpt_path, "%.1023s/checkpoint.crd", r->dir);
  r->ckpt_step = -1;
  r->ckpt_wall = r->t_start;
  /* test hooks (tests/cli/restart.sh, watchdog.sh): not for users */
  const char *hook = getenv("CRDYN_TEST_SIGINT_STEP");
  r->test_sigint_step = hook ? atoi(hook) : 0;
  hook = getenv("CRDYN_TEST_SIGKILL_STEP");
  r->test_sigkill_step = hook ? atoi(hook) : 0;
  hook = getenv("CRDYN_TEST_ENERGY_STEP");
  r->test_energy_step = hook ? atoi(hook) : 0;
  hook = getenv("CRDYN_TEST_NAN_STEP");
  r->test_nan_step = hook ? atoi(hook) : 0;
  hook = getenv("CRDYN_TEST_UNSTABLE_DT");
  r->test_unstable_dt = hook && !strcmp(hook, "1");
  if (opts->restart_path) {
    if (m->analysis.type != CRD_ANALYSIS_DYNAMIC) {
      rc = CRD_ERR(CRD_ERR_UNSUPPORTED, "--restart %s: only dynamic analyses have checkpoints (%s is %s)",
                   opts->restart_path, m->case_path, m->analysis.type == CRD_ANALYSIS_STATIC ? "static" : "modal");
      goto out;
    }
    if ((rc = crd_ckpt_open(opts->restart_path, &r->restart))) goto out;
    if (crd_ckpt_case_hash(r->restart) != r->case_hash) {
      rc = CRD_ERR(CRD_ERR_INPUT, "%s: the checkpoint is of another case (case hash %016llx; %s hashes to "
                   "%016llx): refusing to restart", opts->restart_path,
                   (unsigned long long)crd_ckpt_case_hash(r->restart), m->case_path,
                   (unsigned long long)r->case_hash);
      goto out;
    }
  } else if (m->analysis.type != CRD_ANALYSIS_DYNAMIC &&
             (m->output.checkpoint_every_steps > 0 || m->output.checkpoint_every_seconds > 0) && !opts->quiet)
    printf("note: %s: $.output.checkpoint_every: only dynamic analyses write checkpoints\n", m->case_path);
  /* outputs: only now, when the case is known to be valid */
  if ((rc = open_outputs(r))) goto out;
  if (!opts->quiet)
    printf("crdyn %s: %s: %d nodes, %d elements, %d equations -> %s\n", CRD_VERSION, m->title, m->nn, m->ne,
           r->pb->neq, r->dir);
  switch (m->analysis.type) {
  case CRD_ANALYSIS_STATIC: rc = crd_static_run(r); break;
  case CRD_ANALYSIS_DYNAMIC: rc = crd_dynamic_run(r); break;
  case CRD_ANALYSIS_MODAL: rc = crd_modal_run(r); break;
  }
  crd_run_progress_break();
  if (rc) {
    /* the history stays history.csv.part, the last checkpoint is kept, and
     * summary.json says the run did not complete and why (status "failed"
     * or "interrupted": never "complete") */
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", crd_err_message());
    if (rc != CRD_ERR_INTERRUPTED && m->analysis.type == CRD_ANALYSIS_DYNAMIC) {
      size_t len = strlen(msg);
      if (r->ckpt_step >= 0)
        snprintf(msg + len, sizeof msg - len, "; the last good checkpoint, of step %d, is kept in %.1000s", r->ckpt_step,
                 r->ckpt_path);
      else
        snprintf(msg + len, sizeof msg - len, "; no checkpoint was written");
    }
    crd_history_close(&r->hist, 0);
    /* dynamics only: a failed static or modal run leaves no summary at all
     * (tests/cli/bad_input.sh), a dynamic one says where it stopped */
    if (m->analysis.type == CRD_ANALYSIS_DYNAMIC)
      write_summary(r, r->wall_before + crd_wtime() - r->t_start,
                    rc == CRD_ERR_INTERRUPTED ? "interrupted" : "failed", msg);
    rc = crd_err_set(rc, __FILE__, __LINE__, __func__, "%s", msg);
    goto out;
  }
  if ((rc = crd_history_close(&r->hist, 1))) goto out;
  double wall = r->wall_before + crd_wtime() - r->t_start;
  if ((rc = write_summary(r, wall, "complete", NULL))) goto out;
  if (opts->timing) print_timing(r);
  if (!opts->quiet)
    printf("done: %d steps, %d Newton iterations, %.2f s (elements %.2f s, factorize %.2f s, solve %.2f s)\n",
           r->steps, r->newton_iters, wall, r->time_eval, crd_solver_get_stats(r->pb->solver)->factor_s,
           crd_solver_get_stats(r->pb->solver)->solve_s);
out:
  if (rc) rc = crd_err_trace(rc, __FILE__, __LINE__, __func__);
  run_free(r);
  return rc;
}
