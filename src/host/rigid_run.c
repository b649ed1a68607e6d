/* crdyn: a dynamic analysis of a model made of rigid bodies only (no
 * mesh): the stages one after another with their steps (each body with its
 * own integrator, rigid.h), history.csv with the body columns and
 * summary.json.  The stage's "integrator" chooses nothing here: rigid bodies
 * always step with their "integrator" key (dqvi or newton_euler). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "crdyn/error.h"
#include "crdyn/rigid.h"
#include "crdyn/run.h"
#include "crdyn/timer.h"

static const char *const body_suffix[13] = {"x", "y", "z", "qw", "qx", "qy", "qz",
                                            "vx", "vy", "vz", "wx", "wy", "wz"};

static int record(crd_run *r, const crd_rigid *rg, double *cols, int step, double t, int iters)
{
  double K = 0, L[3] = {0, 0, 0}, J[3] = {0, 0, 0};
  crd_rigid_measure(rg, &K, L, J);
  double W = crd_rigid_work(rg), en[4] = {K, 0.0, W, K - W};
  for (int ib = 0; ib < rg->nb; ++ib) crd_rigid_columns(rg, ib, cols + 13 * ib);
  CRD_CALL(crd_history_row(r->hist, step, t, 1.0, iters, 0.0, en, L, J, cols));
  r->nrows++;
  r->wext = W;
  return 0;
}

static int write_summary(const crd_run *r, const crd_rigid *rg, double wall)
{
  const crd_model *m = r->m;
  cJSON *js = cJSON_CreateObject();
  cJSON_AddStringToObject(js, "case", m->case_path);
  cJSON_AddStringToObject(js, "title", m->title);
  cJSON_AddStringToObject(js, "status", "complete");
  cJSON_AddStringToObject(js, "backend", "cpu");
  cJSON_AddStringToObject(js, "analysis", "dynamic");
  cJSON *c = cJSON_AddObjectToObject(js, "counts");
  cJSON_AddNumberToObject(c, "nodes", 0);
  cJSON_AddNumberToObject(c, "elements", 0);
  cJSON_AddNumberToObject(c, "rigid_bodies", rg->nb);
  cJSON_AddNumberToObject(c, "steps", r->steps);
  cJSON_AddNumberToObject(c, "history_rows", r->nrows);
  cJSON *b = cJSON_AddObjectToObject(js, "rigid_bodies");
  cJSON_AddNumberToObject(b, "dqvi_newton_iterations", (double)rg->newton_total);
  cJSON *t = cJSON_AddObjectToObject(js, "time_s");
  cJSON_AddNumberToObject(t, "wall", wall);
  cJSON *f = cJSON_AddObjectToObject(js, "final");
  cJSON_AddNumberToObject(f, "external_work", r->wext);
  char *txt = cJSON_Print(js), path[2 * CRD_PATH_MAX];
  snprintf(path, sizeof path, "%s/summary.json", r->dir);
  int rc = crd_write_atomic(path, txt);
  free(txt);
  cJSON_Delete(js);
  return rc;
}

int crd_rigid_run(crd_run *r)
{
  const crd_model *m = r->m;
  const crd_analysis *an = &m->analysis;
  if (an->type != CRD_ANALYSIS_DYNAMIC)
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.type: a model of rigid bodies only (no mesh) takes a dynamic "
                   "analysis", m->case_path);
  if (r->opts->restart_path)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: --restart: checkpoints of models of rigid bodies only are not "
                   "supported yet", m->case_path);
  if (m->output.checkpoint_every_steps > 0 || m->output.checkpoint_every_seconds > 0)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.output.checkpoint_every: checkpoints of models of rigid bodies only "
                   "are not supported yet", m->case_path);
  for (int s = 0; s < an->nstages; ++s)
    if (an->stages[s].dt_auto)
      return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d].dt: \"auto\" is the shell mesh's stable step; "
                     "a model of rigid bodies only needs a number", m->case_path, s);
  if (m->output.vtk_every > 0 && !r->opts->quiet)
    printf("note: a model of rigid bodies only writes no VTU frames (output.vtk_every ignored)\n");
  crd_rigid *rg = NULL;
  double *cols = NULL;
  char **names = NULL;
  int rc, nc = 13 * m->nbodies;
  CRD_CALL(crd_rigid_create(m, &rg));
  if (r->opts->check_only) {
    printf("case      %s\ntitle     %s\nbodies    %d\nanalysis  dynamic\noutput    %s\nok\n", m->case_path, m->title,
           m->nbodies, r->dir);
    crd_rigid_destroy(&rg);
    return 0;
  }
  if ((rc = crd_mkdir_p(r->dir))) goto out;
  char sp[2 * CRD_PATH_MAX];
  snprintf(sp, sizeof sp, "%s/summary.json", r->dir);
  remove(sp);
  snprintf(sp, sizeof sp, "%s/history.csv", r->dir);
  remove(sp);
  if ((rc = CRD_CALLOC(nc, &cols)) || (rc = CRD_CALLOC(nc, &names))) goto out;
  for (int k = 0; k < nc; ++k) {
    if ((rc = CRD_CALLOC(CRD_NAME_MAX + 8, &names[k]))) goto out;
    snprintf(names[k], CRD_NAME_MAX + 8, "%s.%s", m->bodies[k / 13].name, body_suffix[k % 13]);
  }
  if ((rc = crd_history_open(r->dir, nc, (const char *const *)names, &r->hist))) goto out;
  if (!r->opts->quiet) printf("crdyn: %s: %d rigid bodies -> %s\n", m->title, m->nbodies, r->dir);
  double t = 0.0;
  if ((rc = record(r, rg, cols, 0, t, 0))) goto out;
  for (int s = 0; s < an->nstages; ++s) {
    const crd_stage *st = &an->stages[s];
    double t0 = t;
    for (long k = 1; t < st->t_end * (1.0 - 1e-12); ++k) {
      double h = fmin(st->dt, st->t_end - t);
      long before = rg->newton_total;
      if ((rc = crd_rigid_step(rg, t, h))) goto out;
      t = fmin(t0 + k * st->dt, st->t_end);  /* no drift from summing h */
      r->steps++;
      int last = s == an->nstages - 1 && t >= st->t_end * (1.0 - 1e-12);
      if (last || r->steps % m->output.history_every == 0)
        if ((rc = record(r, rg, cols, r->steps, t, (int)(rg->newton_total - before)))) goto out;
      if (r->steps % 20000 == 0) crd_run_progress(r, "stage %d  t = %.6g / %.6g", s, t, st->t_end);
    }
  }
  if ((rc = crd_history_close(&r->hist, 1))) goto out;
  double wall = crd_wtime() - r->t_start;
  if ((rc = write_summary(r, rg, wall))) goto out;
  if (!r->opts->quiet) printf("done: %d steps, %.2f s\n", r->steps, wall);
out:
  if (names)
    for (int k = 0; k < nc; ++k) free(names[k]);
  free(names);
  free(cols);
  crd_rigid_destroy(&rg);
  return rc ? crd_err_trace(rc, __FILE__, __LINE__, __func__) : 0;
}
