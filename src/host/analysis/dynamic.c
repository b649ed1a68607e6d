/* crdyn: a dynamic analysis: its stages one after another (explicit and
 * implicit in any order), the state carried from one to the next, and the
 * history from the initial state on. */
#include <stdio.h>
#include <stdlib.h>

#include "crdyn/checkpoint.h"
#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/hybrid.h"
#include "crdyn/tie.h"

int crd_dynamic_run(crd_run *r)
{
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  crd_dyn *dy;
  CRD_CALL(crd_dyn_create(pb, &dy));
  int rc = 0, s0 = 0;
  dy->ties = r->ties;
  r->vel = dy->v;
  r->normal_rate = dy->w;
  double *F = NULL, U = 0.0;
  if (r->restart) { /* continue where the checkpoint stopped: no initial state, no row 0 */
    if ((rc = crd_dyn_checkpoint_restore(r, dy))) goto out;
    s0 = dy->cur.stage;
    crd_run_progress(r, "restart from %s: stage %d, step %d, t = %.9g", crd_ckpt_path(r->restart), s0, dy->step,
                     dy->t);
  } else {
    crd_dyn_set_initial(dy, pb);
    crd_ties_node_rates(r->ties, pb, dy->v, dy->a, dy->w, dy->wa); /* tied nodes move with their bodies */
    crd_dyn_constrain(dy, pb);
    if ((rc = CRD_CALLOC(pb->neq, &F))) goto out;
    crd_problem_set_prescribed(pb, 0.0, 0);
    if ((rc = crd_problem_eval(pb, 0, F, &U))) goto out;
    dy->strain = U;
    if (pb->tr && an->nstages > 0) /* the triads' spin at the first stage's rotational mass scaling */
      crd_ex_triads_initial(dy, pb, an->stages[0].mass_scaling > 0 ? an->stages[0].mass_scaling : 1.0, NULL);
    if (an->nstages > 0 && an->stages[0].integrator != CRD_INT_IMPLICIT) /* auto stages start explicit */
      crd_dyn_measure_lumped(dy, pb, an->stages[0].mass_scaling);
    else
      crd_dyn_measure(dy, pb);
    if ((rc = crd_run_record(r, 0, 0.0, 1.0, 0, 0.0, dy->kinetic, U, dy->L, dy->J, 1))) goto out;
  }
  /* SIGINT/SIGTERM from here on: finish the step, checkpoint, stop */
  crd_dyn_signals_install();
  for (int s = s0; s < an->nstages; ++s) {
    const crd_stage *st = &an->stages[s];
    r->stage = s + 1;
    /* a resumed stage's rates are already the constrained ones of its last step */
    if (!(dy->cur.resume && s == dy->cur.stage)) crd_dyn_constrain(dy, pb);
    rc = st->integrator == CRD_INT_IMPLICIT   ? crd_implicit_stage(r, dy, st, s)
         : st->integrator == CRD_INT_EXPLICIT ? crd_explicit_stage(r, dy, st, s)
                                              : crd_auto_stage(r, dy, st, s);
    if (rc) break;
  }
  crd_dyn_signals_restore();
  r->dyn.implicit_steps = dy->implicit_steps;
  r->dyn.explicit_steps = dy->explicit_steps;
  r->dyn.switches = dy->switches;
  r->dyn.max_energy_residual = dy->max_energy_residual;
  r->dyn.mono_steps = dy->mono_steps;
  r->dyn.mono_iters = dy->mono_iters;
  r->dyn.xi_max = dy->xi_max;
  r->dyn.rot_mass_scaling = dy->rot_mass_scaling;
  r->dyn.dt_stable = dy->dt_auto;
  r->dyn.step = dy->step;
  r->dyn.t = dy->t;
out:
  free(F);
  r->vel = r->normal_rate = NULL;
  crd_dyn_destroy(&dy);
  return rc ? CRD_TRACE(rc) : 0;
}
