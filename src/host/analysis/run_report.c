/* crdyn: what a run reports about itself: summary.json (status, counts,
 * times, the analysis's figures, the final energies) and the --timing
 * table of the phases, printed and in summary.json (run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cjson/cJSON.h>

#include "crdyn/error.h"
#include "crdyn/run.h"

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
  const crd_solver_stats *ss = crd_solver_get_stats(r->ls->solver);
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
  const crd_solver_stats *ss = crd_solver_get_stats(r->ls->solver);
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

void crd_run_print_timing(const crd_run *r)
{
  const crd_solver_stats *ss = crd_solver_get_stats(r->ls->solver);
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

/* what the run is and how it ended; for dynamics the checkpoint and, when
 * it did not complete, the last good step */
static void summary_status(const crd_run *r, cJSON *js, const char *status, const char *message)
{
  const crd_model *m = r->m;
  cJSON_AddStringToObject(js, "crdyn", CRD_VERSION);
  cJSON_AddStringToObject(js, "case", m->case_path);
  cJSON_AddStringToObject(js, "title", m->title);
  cJSON_AddStringToObject(js, "status", status);
  if (message) cJSON_AddStringToObject(js, "message", message);
  if (r->opts->restart_path) cJSON_AddStringToObject(js, "restarted_from", r->opts->restart_path);
  if (m->analysis.type != CRD_ANALYSIS_DYNAMIC) return;
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

/* where it ran, and the sizes and counts */
static void summary_counts(const crd_run *r, cJSON *js)
{
  const crd_model *m = r->m;
  cJSON_AddStringToObject(js, "backend", r->pb->be->ops->name);
  cJSON_AddStringToObject(js, "device", r->pb->be->device_name);
  cJSON_AddStringToObject(js, "solver", crd_solver_name(r->ls->solver));
  if (!strcmp(r->pb->be->ops->name, "cuda"))
    cJSON_AddStringToObject(js, "assembly", r->pb->be->deterministic ? "deterministic" : "atomic");
  static const char *types[] = {"static", "modal", "dynamic"};
  cJSON_AddStringToObject(js, "analysis", types[m->analysis.type]);
  cJSON *c = cJSON_AddObjectToObject(js, "counts");
  cJSON_AddNumberToObject(c, "nodes", m->nn);
  cJSON_AddNumberToObject(c, "elements", m->ne);
  cJSON_AddNumberToObject(c, "equations", r->pb->neq);
  cJSON_AddNumberToObject(c, "nnz_K", (double)r->pb->K->nnz);
  cJSON_AddNumberToObject(c, "nnz_L", crd_solver_get_stats(r->ls->solver)->nnz_factor);
  if (crd_solver_get_stats(r->ls->solver)->nnz_factor_rank > 0) /* MUMPS over ranks (docs/distributed.md) */
    cJSON_AddNumberToObject(c, "nnz_L_rank_max", crd_solver_get_stats(r->ls->solver)->nnz_factor_rank);
  cJSON_AddNumberToObject(c, "steps", r->steps);
  cJSON_AddNumberToObject(c, "newton_iterations", r->newton_iters);
  cJSON_AddNumberToObject(c, "step_cuts", r->cuts);
  cJSON_AddNumberToObject(c, "history_rows", r->nrows);
  cJSON_AddNumberToObject(c, "frames", r->nframes);
}

/* wall time by phase, the factorization rate, peak memory */
static void summary_times(const crd_run *r, cJSON *js, double wall)
{
  const crd_solver_stats *ss = crd_solver_get_stats(r->ls->solver);
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
}

/* the dynamic or modal analysis's own figures */
static void summary_analysis(const crd_run *r, cJSON *js)
{
  if (r->m->analysis.type == CRD_ANALYSIS_DYNAMIC) {
    cJSON *d = cJSON_AddObjectToObject(js, "dynamics");
    cJSON_AddNumberToObject(d, "implicit_steps", r->dyn.implicit_steps);
    cJSON_AddNumberToObject(d, "explicit_steps", r->dyn.explicit_steps);
    cJSON_AddNumberToObject(d, "integrator_switches", r->dyn.switches);
    cJSON_AddNumberToObject(d, "newton_per_implicit_step",
                            r->dyn.implicit_steps ? (double)r->newton_iters / r->dyn.implicit_steps : 0.0);
    cJSON_AddNumberToObject(d, "max_energy_change_per_step_rho1", r->dyn.max_energy_residual);
    cJSON_AddNumberToObject(d, "monotone_energy_steps", r->dyn.mono_steps);
    cJSON_AddNumberToObject(d, "monotone_energy_iterations", r->dyn.mono_iters);
    cJSON_AddNumberToObject(d, "monotone_energy_max_xi", r->dyn.xi_max);
    cJSON_AddNumberToObject(d, "rotational_mass_scaling", r->dyn.rot_mass_scaling);
    cJSON_AddNumberToObject(d, "explicit_stable_dt", r->dyn.dt_stable);
  }
  if (r->m->analysis.type == CRD_ANALYSIS_MODAL) {
    cJSON *d = cJSON_AddObjectToObject(js, "modal");
    cJSON_AddNumberToObject(d, "modes", r->modal.nmodes);
    cJSON_AddNumberToObject(d, "rigid_body_modes", r->modal.nrigid);
    cJSON_AddNumberToObject(d, "first_elastic_frequency", r->modal.f1);
  }
}

int crd_run_write_summary(const crd_run *r, double wall, const char *status, const char *message)
{
  cJSON *js = cJSON_CreateObject();
  summary_status(r, js, status, message);
  summary_counts(r, js);
  summary_times(r, js, wall);
  summary_analysis(r, js);
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

