/* crdyn check: what a run of the case would do, printed before it runs:
 * the model's sizes and its sets, and per analysis step or dynamic stage
 * the step size (the stable estimate for "auto"), the number of steps and
 * the history rows and frames it would write.  So a case that would take
 * 1e9 steps or write 1e6 frames is seen before it runs, and an explicit
 * stage with a given dt above the stable estimate is refused here as the
 * run would refuse it.
 *
 * The stable estimate is that of the initial state; a run estimates it
 * again at each explicit stage's start, from the state the stage starts
 * in.  Implicit steps are counted without the cuts Newton may need. */
#include <math.h>
#include <stdio.h>

#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/run.h"

/* Steps counted one by one; a longer stage gets an upper bound. */
#define CRD_PLAN_WALK 10000000L

typedef struct plan_count {
  double rows, frames;
  int bound; /* the counts are upper bounds, not the counts */
} plan_count;

/* The history rows and frames of the n steps after step s0, from time t0
 * by dt, the last one ending at t1: each step as the run decides it
 * (crd_output_row_due, crd_output_frame_due; the stage's last step always
 * writes both).  Beyond CRD_PLAN_WALK steps: the steps due by step count
 * plus the multiples of the time interval, plus the last. */
static void count_outputs(const crd_output *o, long s0, long n, double t0, double dt, double t1, plan_count *c)
{
  const int frames = crd_output_has_frames(o);
  if (n > CRD_PLAN_WALK) {
    double ns = o->history_every > 0 ? floor((double)n / o->history_every) + 1 : 1;
    double nf = o->vtk_every > 0 ? floor((double)n / o->vtk_every) + 1 : 1;
    if (o->history_dt > 0) ns += floor((t1 - t0) / o->history_dt) + 1;
    if (o->vtk_dt > 0) nf += floor((t1 - t0) / o->vtk_dt) + 1;
    c->rows += fmin(ns, (double)n), c->frames += frames ? fmin(nf, (double)n) : 0.0, c->bound = 1;
    return;
  }
  for (long q = 1; q <= n; ++q) {
    int step = (int)(s0 + q), last = q == n;
    double tp = t0 + (double)(q - 1) * dt, tq = last ? t1 : t0 + (double)q * dt;
    c->rows += last || crd_output_row_due(o, step, tp, tq);
    c->frames += frames && (last || crd_output_frame_due(o, step, tp, tq));
  }
}

static void print_sets(const crd_model *m)
{
  printf("sets     ");
  for (int k = 0; k < m->nsets; ++k)
    printf(" %s (%d nodes, %d elements)%s", m->sets[k].name, m->sets[k].nn, m->sets[k].ne,
           k + 1 < m->nsets ? "," : "\n");
  if (m->nsets == 0) printf(" none\n");
}

static int print_stages(const crd_run *r)
{
  const crd_model *m = r->m;
  const crd_output *o = &m->output;
  crd_dyn *dy;
  CRD_CALL(crd_dyn_create(r->pb, &dy));
  double t = 0.0, steps = 0.0;
  plan_count all = {1.0, crd_output_has_frames(o) ? 1.0 : 0.0, 0}; /* row and frame 0 */
  int rc = 0, atleast = 0; /* an implicit dt "auto" stage: its steps are counted at dt_max, a floor */
  for (int s = 0; s < m->analysis.nstages && !rc; ++s) {
    const crd_stage *st = &m->analysis.stages[s];
    double len = st->t_end - t, dt = st->dt, dt_stable = 0.0;
    int is_auto = st->integrator == CRD_INT_AUTO, explicit_dt = st->integrator == CRD_INT_EXPLICIT;
    if ((explicit_dt || is_auto) &&
        (rc = crd_explicit_choose_dt(dy, r->pb, st, s, len, 0, "at the initial state", &dt, &dt_stable)))
      break;
    if (is_auto) dt = st->dt_max;
    double n = crd_stage_steps(len, dt);
    if (explicit_dt) dt = len / n; /* equal steps */
    plan_count c = {0.0, 0.0, 0};
    count_outputs(o, (long)steps, (long)n, t, dt, st->t_end, &c);
    static const char *const kind[] = {"implicit", "explicit", "auto"};
    printf("stage %d   %s, t %g .. %g: dt %.6g", s, kind[st->integrator], t, st->t_end, dt);
    if (explicit_dt)
      printf(" (%s; stable estimate %.6g at the initial state)", st->dt_auto ? "auto" : "given", dt_stable);
    int adaptive = st->integrator != CRD_INT_EXPLICIT && st->dt_auto;
    if (is_auto)
      printf(" (explicit stretches at %.6g, %g of the stable estimate at the initial state, and implicit ones; "
             "the integrator chosen during the run, %s)", st->safety * dt_stable, st->safety,
             st->newton_cost > 0 ? "costs fixed by newton_cost" : "costs measured");
    if (adaptive)
      printf(" (implicit dt auto, the largest; error tolerance %g, dt from %.6g), at least %.0f steps (the error estimate decides), "
             "%s%.0f history rows, %s%.0f frames\n", st->error_tolerance, st->dt_min, n,
             o->history_dt > 0 ? "" : "at least ", c.rows, o->vtk_dt > 0 ? "" : "at least ", c.frames);
    else
      printf(", %.0f steps%s, %s%.0f history rows, %.0f frames\n", n,
             st->integrator == CRD_INT_IMPLICIT ? " (more if Newton cuts steps)" : "", c.bound ? "at most " : "", c.rows,
             c.frames);
    atleast |= adaptive;
    if (st->integrator == CRD_INT_IMPLICIT && st->dt > len)
      printf("note: stage %d: dt %g exceeds the stage's length %g: one step of %g\n", s, st->dt, len, len);
    t = st->t_end, steps += n, all.rows += c.rows, all.frames += c.frames, all.bound |= c.bound;
  }
  if (!rc)
    printf("in all    %s%.0f steps, %s%.0f history rows, %.0f frames\n", atleast ? "at least " : "", steps,
           atleast ? "about " : all.bound ? "at most " : "", all.rows, all.frames);
  crd_dyn_destroy(&dy);
  return rc;
}

static void print_static_or_modal(const crd_run *r)
{
  const crd_model *m = r->m;
  const crd_output *o = &m->output;
  const crd_analysis *an = &m->analysis;
  if (an->type == CRD_ANALYSIS_MODAL) {
    int n = r->pb ? r->pb->neq : 0, nev = an->modes >= n ? n - 1 : an->modes;
    printf("modes     %d%s, %d frames\n", nev, nev < an->modes ? " (fewer than asked: the model has no more)" : "",
           crd_output_has_frames(o) ? nev : 0);
    if (nev < an->modes)
      printf("note: $.analysis.modes: %d modes asked, the model has %d equations: %d computed\n", an->modes, n, nev);
    return;
  }
  if (an->arc_length)
    printf("steps     arc length, up to load factor %g, %d steps to start with\n",
           an->arc_length_max_factor > 0 ? an->arc_length_max_factor : an->max_load_factor, an->steps);
  else {
    plan_count c = {1.0, crd_output_has_frames(o) ? 1.0 : 0.0, 0}; /* row and frame 0; no time in statics */
    count_outputs(o, 0, an->steps, 0.0, 0.0, 0.0, &c);
    printf("steps     %d load steps to load factor %g (more if Newton cuts them), %.0f history rows, %.0f frames\n",
           an->steps, an->max_load_factor, c.rows, c.frames);
  }
}

int crd_check_print(const crd_run *r)
{
  const crd_model *m = r->m;
  static const char *types[] = {"static", "modal", "dynamic"};
  printf("case      %s\ntitle     %s\nnodes     %d\nelements  %d\nsections  %d\n", m->case_path, m->title, m->nn,
         m->ne, m->nsections);
  print_sets(m);
  printf("supports  %d\nloads     %d\nbodies    %d\nanalysis  %s\n", m->nsupports, m->nloads, m->nbodies,
         types[m->analysis.type]);
  if (r->pb) printf("equations %d\nnnz(K)    %lld\n", r->pb->neq, (long long)r->pb->K->nnz);
  if (m->analysis.type == CRD_ANALYSIS_DYNAMIC && r->pb) CRD_CALL(print_stages(r));
  else if (r->pb) print_static_or_modal(r);
  printf("output    %s\nok\n", r->dir);
  return 0;
}
