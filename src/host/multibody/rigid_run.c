/* crdyn: a dynamic analysis of a model made of rigid bodies only (no
 * mesh): the stages one after another with their steps (each body with its
 * own integrator, rigid.h), history.csv with the body columns and
 * summary.json.  The stage's "integrator" chooses nothing here: rigid bodies
 * always step with their "integrator" key (dqvi or newton_euler).
 *
 * CHECKPOINTS (docs/checkpoint.md): the container of the shell runs with a
 * text section "rigid_run" (stage, step in the stage, counters, history
 * offset and hash) and "bodies.state" (per body: pose 8, chi 6, P 6, work 1
 * doubles), so a restart continues bitwise. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "crdyn/checkpoint.h"
#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/rigid.h"
#include "crdyn/run.h"
#include "crdyn/switches.h"
#include "crdyn/timer.h"

static const char *const body_suffix[13] = {"x", "y", "z", "qw", "qx", "qy", "qz",
                                            "vx", "vy", "vz", "wx", "wy", "wz"};

static int record(crd_run *r, const crd_rigid *rg, double *cols, int step, double t, int iters)
{
  double K = 0, L[3] = {0, 0, 0}, J[3] = {0, 0, 0};
  crd_rigid_measure(rg, &K, L, J);
  double W = crd_rigid_work(rg), en[4] = {K, 0.0, W, K - W};
  for (int ib = 0; ib < rg->nb; ++ib) crd_rigid_columns(rg, ib, cols + 13 * ib);
  cols[13 * rg->nb] = r->stage;
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

#define RB_NSTATE 21

static int ckpt_write(crd_run *r, const crd_rigid *rg, int stage, long k, double t0, double t)
{
  int64_t hoff;
  uint64_t hhash;
  crd_history_mark(r->hist, &hoff, &hhash);
  double *st = NULL;
  int rc;
  CRD_CALL(CRD_CALLOC(RB_NSTATE * rg->nb, &st));
  for (int ib = 0; ib < rg->nb; ++ib) {
    const crd_body_state *b = &rg->b[ib];
    double *o = st + RB_NSTATE * ib;
    memcpy(o, b->g, 8 * sizeof(double));
    memcpy(o + 8, b->chi, 6 * sizeof(double));
    memcpy(o + 14, b->P, 6 * sizeof(double));
    o[20] = b->wext;
  }
  crd_ckpt_writer *w;
  if ((rc = crd_ckpt_begin(r->ckpt_path, r->case_hash, &w))) goto out;
  if ((rc = crd_ckpt_text_begin(w, "rigid_run"))) { crd_ckpt_abort(&w); goto out; }
  crd_ckpt_text_int(w, "nbodies", rg->nb);
  crd_ckpt_text_int(w, "stage", stage);
  crd_ckpt_text_int(w, "stage.k", k);
  crd_ckpt_text_dbl(w, "stage.t0", t0);
  crd_ckpt_text_dbl(w, "t", t);
  crd_ckpt_text_int(w, "steps", r->steps);
  crd_ckpt_text_int(w, "rigid.steps", rg->steps);
  crd_ckpt_text_int(w, "rigid.newton_total", rg->newton_total);
  crd_ckpt_text_int(w, "history.rows", r->nrows);
  crd_ckpt_text_int(w, "history.bytes", (long long)hoff);
  crd_ckpt_text_int(w, "history.hash", (long long)hhash);
  if ((rc = crd_ckpt_text_end(w)) || (rc = crd_ckpt_add(w, "bodies.state", st, RB_NSTATE * sizeof(double) * rg->nb))) {
    crd_ckpt_abort(&w);
    goto out;
  }
  if ((rc = crd_ckpt_commit(&w))) goto out;
  r->nckpt++;
  r->ckpt_step = r->steps;
  r->ckpt_wall = crd_wtime();
out:
  free(st);
  return rc ? CRD_TRACE(rc) : 0;
}

#define GETI(key, dst) do { long long v_; CRD_CALL(crd_ckpt_get_int(c, "rigid_run", key, &v_)); (dst) = v_; } while (0)

static int ckpt_restore(crd_run *r, crd_rigid *rg, int *stage, long *k, double *t0, double *t, int64_t *hb,
                        uint64_t *hh)
{
  const crd_ckpt *c = r->restart;
  long long nb, v;
  GETI("nbodies", nb);
  CRD_CHECK(nb == rg->nb, CRD_ERR_INPUT, "%s: the checkpoint holds %lld rigid bodies, the case has %d (wrong sizes)",
            crd_ckpt_path(c), nb, rg->nb);
  GETI("stage", v);
  *stage = (int)v;
  CRD_CHECK(*stage >= 0 && *stage < r->m->analysis.nstages, CRD_ERR_INPUT, "%s: stage %d is not in the case",
            crd_ckpt_path(c), *stage);
  GETI("stage.k", *k);
  CRD_CALL(crd_ckpt_get_dbl(c, "rigid_run", "stage.t0", t0));
  CRD_CALL(crd_ckpt_get_dbl(c, "rigid_run", "t", t));
  GETI("steps", r->steps);
  GETI("rigid.steps", rg->steps);
  GETI("rigid.newton_total", rg->newton_total);
  GETI("history.rows", r->nrows);
  GETI("history.bytes", *hb);
  GETI("history.hash", v);
  *hh = (uint64_t)v;
  double *st = NULL;
  CRD_CALL(CRD_CALLOC(RB_NSTATE * rg->nb, &st));
  int rc = crd_ckpt_get(c, "bodies.state", st, RB_NSTATE * sizeof(double) * rg->nb);
  for (int ib = 0; !rc && ib < rg->nb; ++ib) {
    crd_body_state *b = &rg->b[ib];
    const double *o = st + RB_NSTATE * ib;
    memcpy(b->g, o, 8 * sizeof(double));
    memcpy(b->chi, o + 8, 6 * sizeof(double));
    memcpy(b->P, o + 14, 6 * sizeof(double));
    b->wext = o[20];
  }
  free(st);
  return rc ? CRD_TRACE(rc) : 0;
}

/* Where the step loop starts: the beginning of the first stage, or the
 * stage, step and time a checkpoint recorded; hb, hh: the history's bytes and
 * hash at that checkpoint (crd_history_resume checks them). */
typedef struct {
  int s0;
  long k0;
  double t, t0;
  int64_t hb;
  uint64_t hh;
} rr_pos;

/* What a model of bodies only refuses before anything is built: another
 * analysis than dynamic, or a stage with dt "auto" (the stable step of a
 * shell mesh, which there is none of). */
static int check_case(const crd_run *r)
{
  const crd_model *m = r->m;
  const crd_analysis *an = &m->analysis;
  if (an->type != CRD_ANALYSIS_DYNAMIC)
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.type: a model of rigid bodies only (no mesh) takes a dynamic "
                   "analysis", m->case_path);
  for (int s = 0; s < an->nstages; ++s)
    if (an->stages[s].dt_auto)
      return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d].dt: \"auto\" is chosen from the shell mesh (its "
                     "stable step, or the error estimate of its nodes); a model of rigid bodies only needs a "
                     "number", m->case_path, s);
  if (crd_output_has_frames(&m->output) && !r->opts->quiet)
    printf("note: a model of rigid bodies only writes no VTU frames (output.vtk_every and vtk_dt ignored)\n");
  return 0;
}

/* crdyn check: what the run would be, printed, nothing written. */
static void print_check(const crd_run *r)
{
  const crd_model *m = r->m;
  printf("case      %s\ntitle     %s\nbodies    %d\nanalysis  dynamic\noutput    %s\nok\n", m->case_path, m->title,
         m->nbodies, r->dir);
}

/* --restart: open the checkpoint, refuse one of another case or of a shell
 * run, and take the bodies' state and the loop position from it. */
static int restart_open(crd_run *r, crd_rigid *rg, rr_pos *p)
{
  const crd_model *m = r->m;
  CRD_CALL(crd_ckpt_open(r->opts->restart_path, &r->restart));
  if (crd_ckpt_case_hash(r->restart) != r->case_hash)
    return CRD_ERR(CRD_ERR_INPUT, "%s: the checkpoint is of another case (%s): refusing to restart",
                   r->opts->restart_path, m->case_path);
  if (!crd_ckpt_find(r->restart, "rigid_run", NULL))
    return CRD_ERR(CRD_ERR_INPUT, "%s: not a checkpoint of a model of rigid bodies only (no section 'rigid_run')",
                   r->opts->restart_path);
  CRD_CALL(ckpt_restore(r, rg, &p->s0, &p->k0, &p->t0, &p->t, &p->hb, &p->hh));
  return 0;
}

/* history.csv with nc extra columns: the 13 of each body (pose, velocity),
 * then the stage; a restart continues the one the checkpoint recorded. */
static int history_open(crd_run *r, int nc, const rr_pos *p)
{
  const crd_model *m = r->m;
  if (r->restart) {
    CRD_CALL(crd_history_resume(r->dir, nc, p->hb, p->hh, &r->hist));
    return 0;
  }
  char **names = NULL;
  int rc;
  if ((rc = CRD_CALLOC(nc, &names))) goto out;
  for (int k = 0; k < nc; ++k) {
    if ((rc = CRD_CALLOC(CRD_NAME_MAX + 8, &names[k]))) goto out;
    if (k == nc - 1) snprintf(names[k], CRD_NAME_MAX + 8, "stage");
    else snprintf(names[k], CRD_NAME_MAX + 8, "%s.%s", m->bodies[k / 13].name, body_suffix[k % 13]);
  }
  rc = crd_history_open(r->dir, nc, (const char *const *)names, &r->hist);
out:
  if (names)
    for (int k = 0; k < nc; ++k) free(names[k]);
  free(names);
  return rc ? CRD_TRACE(rc) : 0;
}

/* Checkpoint policy: on SIGINT/SIGTERM (sig), every checkpoint_every_steps
 * steps, or once checkpoint_every_seconds of wall time have passed since the
 * last one. */
static int checkpoint_due(const crd_run *r, int sig)
{
  const crd_output *o = &r->m->output;
  return sig || (o->checkpoint_every_steps > 0 && r->steps % o->checkpoint_every_steps == 0) ||
         (o->checkpoint_every_seconds > 0 && crd_wtime() - r->ckpt_wall >= o->checkpoint_every_seconds);
}

/* After step k of stage s: a checkpoint when one is due, and on a signal the
 * stop, with the command that continues the run. */
static int checkpoint_maybe(crd_run *r, const crd_rigid *rg, int s, long k, const rr_pos *p)
{
  const crd_analysis *an = &r->m->analysis;
  const crd_stage *st = &an->stages[s];
  int sig = crd_dyn_interrupted();
  if (!checkpoint_due(r, sig)) return 0;
  /* the state after step k of stage s; a finished stage resumes in the next one */
  int fin = p->t >= st->t_end * (1.0 - 1e-12);
  CRD_CALL(ckpt_write(r, rg, fin && s + 1 < an->nstages ? s + 1 : s, fin ? 0 : k, fin ? p->t : p->t0, p->t));
  if (sig)
    return CRD_ERR(CRD_ERR_INTERRUPTED, "interrupted at step %d (t = %.9g), checkpoint written to %s; continue "
                   "with: crdyn run %s --restart %s", r->steps, p->t, r->ckpt_path, r->m->case_path, r->ckpt_path);
  return 0;
}

/* Step k of stage s: every body from p->t by the stage's dt (the last step
 * cut to the stage's end), a history row when one is due, the progress line,
 * the test hook's SIGINT (sigint_step > 0), then the checkpoint policy. */
static int stage_step(crd_run *r, crd_rigid *rg, double *cols, int s, long k, rr_pos *p, int sigint_step)
{
  const crd_analysis *an = &r->m->analysis;
  const crd_stage *st = &an->stages[s];
  double h = fmin(st->dt, st->t_end - p->t);
  long before = rg->newton_total;
  double t_last = p->t;
  CRD_CALL(crd_rigid_step(rg, p->t, h));
  p->t = fmin(p->t0 + k * st->dt, st->t_end);  /* no drift from summing h */
  r->steps++;
  int last = s == an->nstages - 1 && p->t >= st->t_end * (1.0 - 1e-12);
  if (last || crd_output_row_due(&r->m->output, r->steps, t_last, p->t))
    CRD_CALL(record(r, rg, cols, r->steps, p->t, (int)(rg->newton_total - before)));
  if (r->steps % 20000 == 0) crd_run_progress(r, "stage %d  t = %.6g / %.6g", s, p->t, st->t_end);
  if (sigint_step > 0 && r->steps == sigint_step) raise(SIGINT);
  CRD_CALL(checkpoint_maybe(r, rg, s, k, p));
  return 0;
}

/* The stages one after another from p (a restart resumes inside its stage),
 * with SIGINT/SIGTERM caught for the checkpoint policy. */
static int run_stages(crd_run *r, crd_rigid *rg, double *cols, rr_pos *p)
{
  const crd_analysis *an = &r->m->analysis;
  const char *hook = crd_switch("CRDYN_TEST_SIGINT_STEP"); /* tests/cli/rigid.sh: not for users */
  int sigint_step = hook ? atoi(hook) : 0, rc = 0;
  crd_dyn_signals_install();
  for (int s = p->s0; s < an->nstages && !rc; ++s) {
    const crd_stage *st = &an->stages[s];
    if (!(r->restart && s == p->s0)) p->t0 = p->t, p->k0 = 0;
    r->stage = s + 1;
    for (long k = p->k0 + 1; p->t < st->t_end * (1.0 - 1e-12); ++k)
      if ((rc = stage_step(r, rg, cols, s, k, p, sigint_step))) break;
  }
  crd_dyn_signals_restore();
  return rc ? CRD_TRACE(rc) : 0;
}

int crd_rigid_run(crd_run *r)
{
  const crd_model *m = r->m;
  CRD_CALL(check_case(r));
  crd_rigid *rg = NULL;
  double *cols = NULL;
  int rc, nc = 13 * m->nbodies + 1; /* the bodies' columns, then the stage */
  CRD_CALL(crd_rigid_create(m, &rg));
  if (r->opts->check_only) {
    print_check(r);
    crd_rigid_destroy(&rg);
    return 0;
  }
  if ((rc = crd_hash_file(r->opts->case_path, &r->case_hash))) goto out;
  snprintf(r->ckpt_path, sizeof r->ckpt_path, "%.1023s/checkpoint.crd", r->dir);
  r->ckpt_step = -1;
  r->ckpt_wall = r->t_start;
  rr_pos p = {0, 0, 0.0, 0.0, 0, 0};
  if (r->opts->restart_path && (rc = restart_open(r, rg, &p))) goto out;
  if ((rc = crd_mkdir_p(r->dir)) || (rc = crd_run_clear_folder(r->dir, r->restart != NULL, 0))) goto out;
  if ((rc = CRD_CALLOC(nc, &cols)) || (rc = history_open(r, nc, &p))) goto out;
  if (!r->opts->quiet) printf("crdyn: %s: %d rigid bodies -> %s\n", m->title, m->nbodies, r->dir);
  if (!r->restart && (rc = record(r, rg, cols, 0, p.t, 0))) goto out;
  if ((rc = run_stages(r, rg, cols, &p))) goto out;
  if ((rc = crd_history_close(&r->hist, 1))) goto out;
  double wall = crd_wtime() - r->t_start;
  if ((rc = write_summary(r, rg, wall))) goto out;
  if (!r->opts->quiet) printf("done: %d steps, %.2f s\n", r->steps, wall);
out:
  free(cols);
  crd_rigid_destroy(&rg);
  return rc ? CRD_TRACE(rc) : 0;
}
