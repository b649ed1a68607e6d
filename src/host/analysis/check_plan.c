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

/* Multiples of `every` steps in steps (s0, s1]. */
static double by_step(int every, double s0, double s1)
{
  return every > 0 ? floor(s1 / every) - floor(s0 / every) : 0.0;
}

/* Rows (or frames) of steps s0 < s <= s1 over times (t0, t1]: those due by
 * step and those due by time, at most one a step, and the stage's last
 * step, which always writes a row (rows = 1) or, with frames on, a frame. */
static double outputs(int every, double every_dt, double s0, double s1, double t0, double t1, int force_last)
{
  double n = by_step(every, s0, s1);
  if (every_dt > 0) n += floor(t1 / every_dt + 1e-9) - floor(t0 / every_dt + 1e-9);
  if (n > s1 - s0) n = s1 - s0;
  if (force_last && !(every > 0 && fmod(s1, every) == 0)) n += 1;
  return n;
}

static void print_sets(const crd_model *m)
{
  printf("sets     ");
  for (int k = 0; k < m->nsets; ++k)
    printf(" %s (%d nodes, %d elements)%s", m->sets[k].name, m->sets[k].nn, m->sets[k].ne,
           k + 1 < m->nsets ? "," : "\n");
  if (m->nsets == 0) printf(" none\n");
}

/* One explicit stage: the step (given or estimated), refused above the
 * estimate. */
static int explicit_step(const crd_run *r, const crd_dyn *dy, const crd_stage *st, int s, double len, double *dt,
                         double *dt_stable)
{
  int emax;
  *dt_stable = crd_explicit_stable_dt(dy, r->pb, st->mass_scaling > 0 ? st->mass_scaling : 1.0, &emax);
  *dt = st->dt_auto ? st->safety * *dt_stable : st->dt;
  if (!(*dt > 0) || !isfinite(*dt))
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d]: no stable explicit step could be estimated",
                   r->m->case_path, s);
  CRD_CALL(crd_explicit_check_dt(r->pb, s, *dt, *dt_stable, emax, "at the initial state"));
  if (len / *dt > CRD_MAX_STAGE_STEPS)
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d]: %.3g explicit steps of %.4g s (at most %.0f)",
                   r->m->case_path, s, len / *dt, *dt, CRD_MAX_STAGE_STEPS);
  return 0;
}

static int print_stages(const crd_run *r)
{
  const crd_model *m = r->m;
  const crd_output *o = &m->output;
  crd_dyn *dy;
  CRD_CALL(crd_dyn_create(r->pb, &dy));
  double t = 0.0, steps = 0.0, rows = 1.0, frames = crd_output_has_frames(o) ? 1.0 : 0.0;
  int rc = 0;
  for (int s = 0; s < m->analysis.nstages && !rc; ++s) {
    const crd_stage *st = &m->analysis.stages[s];
    double len = st->t_end - t, dt = st->dt, dt_stable = 0.0;
    if (st->integrator == CRD_INT_EXPLICIT && (rc = explicit_step(r, dy, st, s, len, &dt, &dt_stable))) break;
    double n = crd_stage_steps(len, dt);
    if (st->integrator == CRD_INT_EXPLICIT) dt = len / n; /* equal steps */
    double nr = outputs(o->history_every, o->history_dt, steps, steps + n, t, st->t_end, 1);
    double nf = crd_output_has_frames(o) ? outputs(o->vtk_every, o->vtk_dt, steps, steps + n, t, st->t_end, 1) : 0;
    printf("stage %d   %s, t %g .. %g: dt %.6g", s, st->integrator == CRD_INT_EXPLICIT ? "explicit" : "implicit",
           t, st->t_end, dt);
    if (st->integrator == CRD_INT_EXPLICIT)
      printf(" (%s; stable estimate %.6g at the initial state)", st->dt_auto ? "auto" : "given", dt_stable);
    printf(", %.0f steps%s, %.0f history rows, %.0f frames\n", n,
           st->integrator == CRD_INT_IMPLICIT ? " (more if Newton cuts steps)" : "", nr, nf);
    if (st->integrator == CRD_INT_IMPLICIT && st->dt > len)
      printf("note: stage %d: dt %g exceeds the stage's length %g: one step of %g\n", s, st->dt, len, len);
    t = st->t_end, steps += n, rows += nr, frames += nf;
  }
  if (!rc) printf("in all    %.0f steps, %.0f history rows, %.0f frames\n", steps, rows, frames);
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
  else
    printf("steps     %d load steps to load factor %g (more if Newton cuts them), %d history rows, %.0f frames\n",
           an->steps, an->max_load_factor, 1 + (int)outputs(o->history_every, 0, 0, an->steps, 0, 0, 1),
           crd_output_has_frames(o) ? 1 + outputs(o->vtk_every, 0, 0, an->steps, 0, 0, 1) : 0.0);
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
