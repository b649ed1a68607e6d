/* crdyn: explicit stage: central difference with a lumped mass.
 *
 * Translations: m_i a_i = F_ext - F_int (row-sum lumped C).  Normals: with
 * the lumped director inertia P_i (row sums of h^2/12 C, times the optional
 * rotational mass scaling s), the pair equation of node i is the per-node
 * block of eqs 39-42,
 *   s P_i A1^T A1 n'' = F_pair - s P_i A1^T A2(n'),   p'' = A1 n'' + A2,
 * a 2x2 solve per node (1x1 when one component is fixed).  The pair rate in
 * A2 is the velocity at t_n predicted from the last half step (second-order).
 *   v_{n+1/2} = v_n + dt/2 a_n,  d_{n+1} = d_n + dt v_{n+1/2},
 * the pair advanced by dt times the pair rate of p'_{n+1/2} and the third
 * component recomputed; p'_{n+1/2} is then the chord (p_{n+1} - p_n)/dt, so
 * its components in whichever pair the node has next are consistent.
 *   v_{n+1} = v_{n+1/2} + dt/2 a_{n+1}.
 * Energies and momenta of explicit steps use the lumped mass, the one the
 * scheme conserves (linear momentum exactly).
 *
 * Intersection nodes (triads.h): translations as above; the triad by a
 * kick-drift-kick step of its spatial angular momentum with the lumped
 * inertia of its corners and the moment M^T F of its chart force
 * (explicit_triad.h, explicit_triads.c; docs/dynamics.md, "Intersection
 * nodes in the explicit step"), on the host loop only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/dynamics.h"
#include "crdyn/hybrid.h"
#include "crdyn/error.h"
#include "crdyn/elem_isa.h"
#include "crdyn/explicit_node.h"
#include "crdyn/explicit_resident.h"
#include "crdyn/tie.h"
#include "crdyn/trace.h"
#include "crdyn/triads.h"
#include "crdyn/timer.h"

/* The backend's element bound (Irons: the largest element eigenvalue of
 * M^-1 K bounds the mesh's) turned into the central difference's limit
 * 2 / omega_max. */
int crd_explicit_stable_dt(const crd_dyn *dy, crd_problem *pb, double rot_scale, double *dt, int *elem)
{
  double lmax;
  int emax;
  CRD_CALL(pb->be->ops->lambda_max(pb->be, pb, dy->C, rot_scale, &lmax, &emax));
  if (elem) *elem = emax;
  *dt = lmax > 0 ? 2.0 / sqrt(lmax) : INFINITY;
  return 0;
}

int crd_explicit_choose_dt(const crd_dyn *dy, crd_problem *pb, const crd_stage *st, int istage, double len,
                           int unstable_ok, const char *where, double *dt, double *dt_stable)
{
  int elem;
  CRD_CALL(crd_explicit_stable_dt(dy, pb, st->mass_scaling > 0 ? st->mass_scaling : 1.0, dt_stable, &elem));
  *dt = st->dt_auto ? st->safety * *dt_stable : st->dt;
  if (!(*dt > 0) || !isfinite(*dt))
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d]: no stable explicit step could be estimated",
                   pb->m->case_path, istage);
  if (*dt > *dt_stable && !unstable_ok) {
    const int32_t *q = elem >= 0 ? pb->m->quads + 4 * (size_t)elem : NULL;
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d].dt: %.6g exceeds the stable step estimate %.6g "
                   "(%.3gx) %s, set by element %d (nodes %d %d %d %d): give a dt below it, or \"auto\"",
                   pb->m->case_path, istage, *dt, *dt_stable, *dt / *dt_stable, where, elem, q ? q[0] : -1,
                   q ? q[1] : -1, q ? q[2] : -1, q ? q[3] : -1);
  }
  if (len / *dt > CRD_MAX_STAGE_STEPS)
    return CRD_ERR(CRD_ERR_INPUT, "%s: $.analysis.stages[%d]: %.3g explicit steps of %.4g s (at most %.0f): "
                   "the stage is too long for its stable step", pb->m->case_path, istage, len / *dt, *dt,
                   CRD_MAX_STAGE_STEPS);
  return 0;
}

typedef struct ex_work {
  const crd_elem_isa *isa; /* the node accelerations' variant */
  double *Fi, *Fe, *vh, *wh;
  int step;            /* the step being computed (test hook) */
} ex_work;

/* Accelerations a, wa of the current state; w_pred: the normal rates used in
 * the inertia force f_m. */
static int accelerations(crd_run *r, crd_dyn *dy, ex_work *x, double t, double s, const double *w_pred)
{
  crd_problem *pb = r->pb;
  double U, t0 = crd_wtime();
  CRD_CALL(crd_problem_eval(pb, 0, x->Fi, &U));
  CRD_CALL(crd_loads_assemble(r->loads, pb, t, 0, x->Fe, 0));
  crd_dyn_test_nan(r, x->step, x->Fe, pb->neq);
  r->time_eval += crd_wtime() - t0;
  dy->strain = U;
  /* crd_exn_accel node by node, several nodes in vector lanes (elem_isa.h) */
  const crd_exn_accel_args ga = {.eq = pb->eq, .Fe = x->Fe, .Fi = x->Fi, .mlump = dy->mlump, .plump = dy->plump,
                                 .s = s, .p = pb->p, .ln = pb->l, .w_pred = w_pred, .a = dy->a, .wa = dy->wa};
  x->isa->exn_accel_range(0, pb->nn, &ga);
  /* intersection nodes: their moments (the normal rates there are the
   * triads', set by crd_ex_triads_kick / _initial) */
  if (pb->tr) crd_ex_triads_moments(dy, pb, x->Fe, x->Fi);
  return 0;
}

/* Advance positions and normals by dt with the half-step rates; the
 * triads of intersection nodes by their drift (explicit_triad.h). */
static void advance(const crd_dyn *dy, crd_problem *pb, ex_work *x, double dt, double t1, double s)
{
  for (int i = 0; i < pb->nn; ++i) {
    int e5[5];
    for (int k = 0; k < 5; ++k) e5[k] = pb->eq[5 * i + k];
    if (pb->tr && pb->tr->of[i] >= 0) e5[3] = e5[4] = -1; /* the triad turns below */
    crd_exn_advance(e5, dt, x->vh + 3 * i, pb->d + 3 * i, pb->p + 3 * i, pb->l[i], x->wh + 3 * i);
  }
  if (pb->tr) crd_ex_triads_drift(dy, pb, s, dt);
  crd_problem_set_prescribed(pb, t1, 0);
  crd_problem_switch_pairs(pb);
}

/* An explicit step cannot be cut (the step is fixed by stability): a
 * watchdog stops the stage, naming the step and where. */
static int explicit_failed(const crd_dyn *dy, int istage, double t1, const char *why_in)
{
  char why[1024]; /* why_in may be the error buffer itself */
  snprintf(why, sizeof why, "%s", why_in);
  return CRD_ERR(CRD_ERR_NUMERIC, "stage %d (explicit): step %d at t = %.9g failed: %s", istage, dy->step + 1, t1,
                 why);
}

/* A restart: the step, the count and the start time were fixed at the
 * stage's start (dy->cur); the loop goes on after the last step done. */
static void resumed_step(const crd_dyn *dy, crd_ex_loop *lp)
{
  lp->dt = dy->cur.dt;
  lp->nsteps = dy->cur.nsteps;
  lp->n0 = dy->cur.n;
  lp->t0 = dy->cur.t0;
}

/* The stage's step and the count of steps, printed (unless quiet), and
 * the note when a given dt was shortened to fit the stage in equal steps. */
static void print_step(const crd_ex_loop *lp, double dt_stable, double dt_given)
{
  const crd_stage *st = lp->st;
  if (lp->r->opts->quiet) return;
  crd_run_progress_break();
  printf("stage %d explicit: dt = %.4g (stable estimate %.4g%s), %d steps, rotational mass scaling %g\n",
         lp->istage, lp->dt, dt_stable, st->dt_auto ? "" : ", given", lp->nsteps, lp->s);
  if (!st->dt_auto && lp->dt < dt_given * (1 - 1e-9))
    printf("note: stage %d: dt %.6g given, %.6g used: the stage's %.6g s in %d equal steps\n", lp->istage,
           dt_given, lp->dt, st->t_end - lp->dy->t, lp->nsteps);
}

/* A new stage: the step from the stable step estimate (a safety factor of
 * it, or the dt given, checked against it), then the count of equal steps
 * that fills the stage (lp->nsteps < 1: nothing to do). */
static int choose_step(crd_ex_loop *lp)
{
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  crd_problem *pb = r->pb;
  const crd_stage *st = lp->st;
  double dt, dt_stable;
  int rc = crd_explicit_choose_dt(dy, pb, st, lp->istage, st->t_end - dy->t, r->test_unstable_dt,
                                  "at the stage's start", &dt, &dt_stable);
  dy->dt_auto = dt_stable;
  if (rc) return CRD_TRACE(rc);
  lp->nsteps = crd_stage_steps(st->t_end - dy->t, dt);
  if (lp->nsteps < 1) return 0;
  double dt_given = dt;
  lp->dt = (st->t_end - dy->t) / lp->nsteps;
  print_step(lp, dt_stable, dt_given);
  return 0;
}

/* A new stage's start: the accelerations of the start state, the rigid
 * bodies' (tie.h), and the energies the balance watchdog measures from. */
static int stage_start(const crd_ex_loop *lp, ex_work *x)
{
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  crd_problem *pb = r->pb;
  x->step = dy->step;
  if (accelerations(r, dy, x, dy->t, lp->s, dy->w)) return explicit_failed(dy, lp->istage, dy->t, crd_err_message());
  /* rigid bodies and their tied nodes (tie.h): one rigid body each */
  crd_ties_ex_begin(dy->ties, pb, dy->mlump, dy->plump, lp->s, x->Fi, x->Fe, dy->t, 0);
  crd_ties_node_rates(dy->ties, pb, dy->v, dy->a, dy->w, dy->wa);
  if (pb->tr) crd_ex_triads_initial(dy, pb, lp->s, NULL); /* pi = J om at this stage's scaling */
  crd_dyn_measure_lumped(dy, pb, lp->s);
  dy->cur.E_start = dy->kinetic + dy->strain - r->wext;
  dy->cur.E_scale = fmax(dy->kinetic + dy->strain, fabs(r->wext));
  dy->cur.n_scaled = 0;
  return 0;
}

/* The energy balance watchdog: kinetic plus strain energy less the external
 * work (this step's included) drifting from the stage start's by more than
 * the limit (looser over the first steps) means an unstable step; not
 * checked with prescribed motions (their work is not counted). */
static int energy_balance(const crd_ex_loop *lp, double t1)
{
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  crd_problem *pb = r->pb;
  double dW = crd_loads_work(r->loads, pb, r->t_prev, t1, 0, r->d_prev, r->p_prev) + crd_ties_step_work(dy->ties);
  double E = dy->kinetic + dy->strain - (r->wext + dW);
  double scale = fmax(dy->cur.E_scale, fmax(dy->kinetic + dy->strain, fabs(r->wext + dW)));
  if (scale > 0) dy->cur.n_scaled++;
  double nsc = dy->cur.n_scaled, lim = fmax(CRD_WATCH_EXPLICIT_BALANCE, nsc > 0 ? 4.0 / (nsc * nsc) : INFINITY);
  if (pb->npres == 0 && fabs(E - dy->cur.E_start) > lim * scale) {
    char why[256];
    snprintf(why, sizeof why, "energy balance error %.3g (%.3g of the energy scale %.3g, limit %.3g): unstable "
             "step %.4g (stable estimate %.4g)?", E - dy->cur.E_start, fabs(E - dy->cur.E_start) / scale, scale,
             lim, lp->dt, dy->dt_auto);
    return explicit_failed(dy, lp->istage, t1, why);
  }
  dy->cur.E_scale = scale;
  return 0;
}

/* The watchdogs before a step is recorded: a non-finite state or rate,
 * then (with the energies measured) the energy balance. */
static int step_watchdogs(const crd_ex_loop *lp, double t1)
{
  crd_dyn *dy = lp->dy;
  crd_problem *pb = lp->r->pb;
  int bad = crd_dyn_nonfinite_node(dy, pb);
  if (bad >= 0) {
    char why[128];
    snprintf(why, sizeof why, "the state or rates of node %d are not finite", bad);
    return explicit_failed(dy, lp->istage, t1, why);
  }
  crd_dyn_measure_lumped(dy, pb, lp->s);
  return energy_balance(lp, t1);
}

/* Step n, at t1, done: the counters, its history row (and frame; always
 * at the stage's last step and where an auto stage switches: `last`), a
 * progress line every `every` steps, and a checkpoint or a signal
 * (crd_dyn_step_end). */
static int record_step(const crd_ex_loop *lp, int n, double t1, int last)
{
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  crd_ties_accept(dy->ties);
  dy->t = t1;
  dy->step++;
  dy->explicit_steps++;
  r->steps++;
  CRD_CALL(crd_run_record(r, dy->step, dy->t, 1.0, 0, 0.0, dy->kinetic, dy->strain, dy->L, dy->J, last));
  if (n % lp->every == 0 || last)
    crd_run_progress(r, "stage %d explicit: t = %.6g  step %d  E = %.10g", lp->istage, dy->t, dy->step,
                     dy->kinetic + dy->strain - r->wext);
  dy->cur.n = n;
  CRD_CALL(crd_dyn_step_end(r, dy));
  return 0;
}

/* Step n of the host loop: the half-step rates, the move to t1, the
 * accelerations there (with the normal rates predicted at t1 in the inertia
 * force), the full-step rates, the watchdogs, an auto stage's choice
 * (*stop: the stretch ends here), then the record. */
static int host_step(const crd_ex_loop *lp, ex_work *x, int n, int *stop)
{
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  crd_problem *pb = r->pb;
  size_t n3 = 3 * (size_t)pb->nn;
  double dt = lp->dt;
  for (size_t k = 0; k < n3; ++k) {
    x->vh[k] = dy->v[k] + 0.5 * dt * dy->a[k];
    x->wh[k] = dy->w[k] + 0.5 * dt * dy->wa[k];
  }
  if (pb->tr) crd_ex_triads_kick(dy, pb, lp->s, 0.5 * dt); /* pi_{n+1/2} */
  double t1 = (n == lp->nsteps) ? lp->st->t_end : lp->t0 + n * dt;
  CRD_RANGE_PUSH("explicit update");
  advance(dy, pb, x, dt, t1, lp->s);
  crd_ties_ex_move(dy->ties, pb, dt);
  CRD_RANGE_POP();
  /* rates predicted at t_{n+1} for f_m, then the accelerations there */
  for (size_t k = 0; k < n3; ++k) dy->w[k] = x->wh[k] + 0.5 * dt * dy->wa[k];
  x->step = dy->step + 1;
  if (accelerations(r, dy, x, t1, lp->s, dy->w)) return explicit_failed(dy, lp->istage, t1, crd_err_message());
  for (size_t k = 0; k < n3; ++k) {
    dy->v[k] = x->vh[k] + 0.5 * dt * dy->a[k];
    dy->w[k] = x->wh[k] + 0.5 * dt * dy->wa[k];
  }
  if (pb->tr) crd_ex_triads_kick(dy, pb, lp->s, 0.5 * dt); /* pi_{n+1}, om and the triad nodes' w, wa */
  crd_ties_ex_finish(dy->ties, pb, x->Fi, x->Fe, t1, dt, dy->v, dy->a, dy->w, dy->wa);
  CRD_CALL(step_watchdogs(lp, t1));
  *stop = n < lp->nsteps && dy->hybrid && crd_hybrid_explicit_step(dy->hybrid, r, dy, dt);
  return record_step(lp, n, t1, n == lp->nsteps || *stop);
}

/* The step loop: resident on the device where the backend can keep the
 * state (explicit_resident.c), else on the host, step by step.  The host
 * loop's time, less the output's, is counted in r->time_explicit. */
static int step_loop(const crd_ex_loop *lp, ex_work *x)
{
  crd_run *r = lp->r;
  double tl = crd_wtime(), to = r->time_output; /* step-loop time without the output */
  char why[512];
  int dev = lp->dy->hybrid ? 0 : crd_explicit_resident_usable(r, why, sizeof why);
  if (lp->dy->hybrid) snprintf(why, sizeof why, "an auto stage chooses its integrator after each step");
  if (dev > 0) { /* the device keeps the state (explicit_resident.c) */
    if (!r->opts->quiet) printf("stage %d explicit: step loop resident on %s\n", lp->istage, r->pb->be->device_name);
    return crd_explicit_resident(lp);
  }
  if (dev == 0 && !r->opts->quiet) printf("stage %d explicit: step loop on the host: %s\n", lp->istage, why);
  int stop = 0;
  for (int n = lp->n0 + 1; n <= lp->nsteps && !stop; ++n) CRD_CALL(host_step(lp, x, n, &stop));
  r->time_explicit += crd_wtime() - tl - (r->time_output - to);
  return 0;
}

int crd_explicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage)
{
  crd_problem *pb = r->pb;
  size_t n3 = 3 * (size_t)pb->nn;
  double s = st->mass_scaling > 0 ? st->mass_scaling : 1.0;
  int resume = dy->cur.resume && dy->cur.stage == istage;
  dy->cur.resume = 0;
  dy->cur.stage = istage;
  dy->rot_mass_scaling = s;
  r->integrator = CRD_INT_EXPLICIT;
  crd_ex_loop lp = {.r = r, .dy = dy, .st = st, .istage = istage, .s = s, .t0 = dy->t};
  if (resume) {
    resumed_step(dy, &lp);
  } else {
    CRD_CALL(choose_step(&lp));
    if (lp.nsteps < 1) return 0;
  }
  dy->cur.dt = lp.dt;
  dy->cur.nsteps = lp.nsteps;
  dy->cur.t0 = lp.t0;
  lp.every = lp.nsteps > 20 ? lp.nsteps / 20 : 1;
  ex_work x;
  memset(&x, 0, sizeof x);
  x.isa = crd_elem_isa_select();
  int rc = 0;
  if (CRD_CALLOC(pb->neq, &x.Fi) || CRD_CALLOC(pb->neq, &x.Fe) || CRD_CALLOC(n3, &x.vh) || CRD_CALLOC(n3, &x.wh)) {
    rc = CRD_TRACE(CRD_ERR_MEM);
    goto out;
  }
  if (!resume && (rc = stage_start(&lp, &x))) goto out;
  if (resume) crd_ties_ex_begin(dy->ties, pb, dy->mlump, dy->plump, s, NULL, NULL, dy->t, 1);
  rc = step_loop(&lp, &x);
out:
  free(x.Fi); free(x.Fe); free(x.vh); free(x.wh);
  return rc ? CRD_TRACE(rc) : 0;
}
