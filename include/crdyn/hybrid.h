/* crdyn: the stage that chooses its integrator ("integrator": "auto";
 * docs/dynamics.md, "Automatic switching").
 *
 * An auto stage runs stretches of central-difference or of adaptive
 * generalized-alpha steps, one after another over one motion state (dy).
 * After each step the stretch in progress asks the hybrid whether to go on:
 * it compares the simulated time per unit of cost of the two integrators,
 *   explicit  dt_ex / c_ex                 (the stable step, per explicit step)
 *   implicit  h / (n_it c_it)              (the step the error tolerance allows,
 *                                           per Newton iteration times iterations)
 * and ends the stretch when the other one is faster by more than the
 * stage's switch_margin.  Costs are measured during the run (wall seconds
 * per step, less the output), or fixed by the stage's newton_cost (c_ex = 1,
 * c_it = newton_cost: switching that depends on the motion alone, so that
 * runs and restarts repeat bitwise).  On explicit stretches h is predicted
 * from the accelerations by the implicit scheme's own error estimate,
 * the third derivative taken between means over windows of about h (which
 * filter the modes an implicit step of h does not follow). */
#ifndef CRDYN_HYBRID_H
#define CRDYN_HYBRID_H

#include "crdyn/checkpoint.h"
#include "crdyn/dynamics.h"

typedef struct crd_hybrid crd_hybrid;

/* An auto stage: stretches of either integrator up to st->t_end. */
int crd_auto_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage);

/* After a step of a stretch, its rates in dy and its own figures: 1 when the
 * stretch should end with this step (the other integrator takes over), 0
 * to go on.  h_next: the step the implicit controller proposes next. */
int crd_hybrid_explicit_step(crd_hybrid *hy, const crd_run *r, const crd_dyn *dy, double dt);
int crd_hybrid_implicit_step(crd_hybrid *hy, const crd_run *r, const crd_dyn *dy, double h_next, int iters);
/* The largest rate norm of the auto stage so far (the error estimate's scale). */
double crd_hybrid_v_max(const crd_hybrid *hy);

/* Its state in a checkpoint: text keys in the "run" section, then the
 * window arrays (dyn_checkpoint.c); restored by crd_auto_stage itself. */
void crd_hybrid_ckpt_text(crd_ckpt_writer *w, const crd_hybrid *hy);
int crd_hybrid_ckpt_add(crd_ckpt_writer *w, const crd_hybrid *hy);

#endif
