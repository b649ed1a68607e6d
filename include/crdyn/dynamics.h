/* crdyn: shell dynamics: the motion state that integrators share, the
 * inertia of the mesh (shell_mass.h) and the stages of a dynamic analysis.
 *
 * STATE: positions and normals live in crd_problem (d, p, l).  Rates are
 * kept here as physical vectors per node: v = d', a = d'' and, for the
 * normal, w = p' and wa = p'' (3-vectors).  The pair rates of a node are
 * the components (n, m) of w and wa (A1 has the identity in rows n, m), so
 * when the independent pair switches (problem.h) the new pair's velocity
 * and acceleration are read off the same vectors: nothing jumps
 * (docs/theory.md §4).
 *
 * Integrators (one stage each, state carried between stages):
 *   implicit.c  generalized-alpha, quasi energy-momentum (docs/dynamics.md)
 *   explicit.c  central difference, lumped mass
 * dynamic.c runs the stages and the history; modal.c the eigen-analysis. */
#ifndef CRDYN_DYNAMICS_H
#define CRDYN_DYNAMICS_H

#include <math.h>

#include "crdyn/run.h"

struct crd_ties;

typedef struct crd_dyn {
  double *C;          /* 16*ne: element mass coefficients C_ij (eq 40a) */
  double *mlump;      /* nn: lumped translational mass (row sums of C) */
  double *plump;      /* nn: lumped director inertia (row sums of h^2/12 C) */
  double *v, *a;      /* 3*nn: translational velocity, acceleration */
  double *w, *wa;     /* 3*nn: p' and p'' */
  double *a_prev, *wa_prev; /* 3*nn: implicit dt "auto": a and p'' at the start of the last accepted step */
  /* intersection nodes (triads.h), explicit stages only (explicit_triad.h) */
  double *tJb;        /* 9*ntriads: the triad's inertia in its own axes (rotational mass scaling not included) */
  double *tpi, *tom;  /* 3*ntriads: spatial angular momentum pi = J om and angular velocity om */
  double *tm;         /* 3*ntriads: the moment of the residual at the node's chart equations */
  double *tRd, *tRdd; /* 9*ntriads: R' and R'' of the triad (implicit stages, fold_dyn.h; E layout of fold_node.h) */
  double t;           /* current time */
  int step;           /* accepted steps over all stages */
  double kinetic, strain, L[3], J[3];  /* of the current state (rigid bodies included) */
  struct crd_ties *ties;              /* rigid bodies of the model and their tied nodes (tie.h), or NULL */
  /* statistics */
  int implicit_steps, explicit_steps, newton_iters, cuts;
  int switches;                        /* auto stages: changes of integrator */
  double max_energy_residual;          /* largest |dE - W| / E per implicit step (rho_inf = 1) */
  int mono_steps, mono_iters;          /* monotone energy: steps solved again with xi > 0, their iterations */
  double xi_max;                       /* monotone energy: the largest xi used */
  double rot_mass_scaling;             /* explicit director inertia factor in use (1 = none) */
  double dt_auto;                      /* last explicit stable step estimate */
  struct crd_hybrid *hybrid;           /* the auto stage in progress (hybrid.h), or NULL */
  /* where the stage in progress stands: what a checkpoint needs beyond the
   * state to continue bitwise (dyn_checkpoint.c) */
  struct {
    int stage;                         /* index of the stage in progress */
    int resume;                        /* 1: continue this stage from a checkpoint (skip its start) */
    double dt;                         /* implicit: step size in use (after cuts); explicit: the step */
    int good;                          /* implicit: accepted steps since the last cut (regrowth) */
    double E_prev;                     /* implicit: total energy at the last step */
    double v_max;                      /* implicit dt "auto": the largest rate norm of the stage so far */
    double h_prev;                     /* implicit dt "auto": the last accepted step (0: none yet in the stage) */
    double xi_kappa;                   /* implicit, monotone energy: xi per unit energy of the last such step */
    double x_roundoff;                 /* implicit: position round-off of the stage's start */
    int n, nsteps;                     /* explicit: steps taken / total in this stage */
    double t0;                         /* explicit: stage start time */
    double E_scale;                    /* watchdog: largest K + U + |W| seen in the stage */
    double E_start;                    /* watchdog (explicit): total energy at the stage start */
    int n_scaled;                      /* watchdog (explicit): steps since the energy scale became nonzero */
  } cur;
} crd_dyn;

int crd_dyn_create(const crd_problem *pb, crd_dyn **dy);
void crd_dyn_destroy(crd_dyn **dy);

/* The rigid velocity field of $.initial on nodes and normals. */
void crd_dyn_set_initial(crd_dyn *dy, const crd_problem *pb);
/* Kinetic energy, L and J about the origin of the current state (into dy). */
void crd_dyn_measure(crd_dyn *dy, const crd_problem *pb);
/* The same with the lumped mass of the explicit scheme (director inertia
 * scaled by rot_scale). */
void crd_dyn_measure_lumped(crd_dyn *dy, const crd_problem *pb, double rot_scale);
/* Zero the rates of fixed slots (translations not prescribed, fixed pair
 * components), keeping w and wa consistent with the pair rates. */
void crd_dyn_constrain(crd_dyn *dy, const crd_problem *pb);
/* The mean diagonal length of the elements over sqrt 2 (the side of a
 * square of the same diagonals): the length that weighs the normals' rates
 * against the translations' in the step error estimates. */
double crd_dyn_element_length(const crd_model *m);
/* sqrt(|v|^2 + len^2 |p'|^2) over all nodes: the rate norm of the state. */
double crd_dyn_rate_norm(const crd_dyn *dy, const crd_problem *pb, double len);
/* beta of the generalized-alpha scheme of spectral radius rho_inf. */
double crd_ga_beta(double rho_inf);
/* Pair values (a, b) of a 3-vector at node i under its current pair. */
void crd_dyn_pair(const crd_problem *pb, int i, const double *vec3, double *ab);
/* Assemble the mass matrix of the current state into A (same pattern as
 * pb->K), scaled by cm and added. */
void crd_dyn_assemble_mass(const crd_dyn *dy, const crd_problem *pb, crd_csr *A, double cm);

/* After each accepted step (the cursor dy->cur up to date): a checkpoint
 * when checkpoint_every says so or a signal arrived; CRD_ERR_INTERRUPTED
 * after a signal's checkpoint (dyn_checkpoint.c). */
int crd_dyn_step_end(crd_run *r, crd_dyn *dy);
int crd_dyn_checkpoint_write(crd_run *r, const crd_dyn *dy);
/* The state of r->restart into dy and r->pb (sizes and case checked). */
int crd_dyn_checkpoint_restore(crd_run *r, crd_dyn *dy);
/* SIGINT/SIGTERM: the handlers only set a flag, read by crd_dyn_step_end. */
void crd_dyn_signals_install(void);
void crd_dyn_signals_restore(void);
int crd_dyn_interrupted(void);
/* Watchdogs (watchdog.c, docs/dynamics.md §7).  An implicit step with no
 * external power (and no prescribed motion) whose total energy rises by
 * more than CRD_WATCH_ENERGY_RISE times the energy scale is refused and
 * cut: the scheme (rho_inf <= 1) must not gain energy, and its measured
 * rises (quasi energy-momentum, rho_inf = 0.8 on the flying plate) stay
 * below 1.1e-4.  An explicit stage whose energy balance |E - E_start|
 * exceeds CRD_WATCH_EXPLICIT_BALANCE times the scale stops (start-up:
 * 4 / n^2 times it, n steps after the energy became nonzero, whichever is
 * larger).  Central difference within its stable step: the strip pulse
 * from rest has 1, 0.23, 0.11, 0.06, 0.04 at steps 1..5 and 0.0099 at 10
 * (the start-up of the trapezoidal work, about 1/n^2), 3.5e-4 at 50,
 * 8e-5 at 100 (mass scaling 100); without mass scaling at most 2.3e-3
 * after step 20 up to dt = the stable estimate.  An unstable step grows
 * the error exponentially to order 1: dt = 1.02, 1.1, 2 times the
 * estimate are caught at steps 26, 9, 5, while the elements are sound. */
#define CRD_WATCH_ENERGY_RISE 1e-3
#define CRD_WATCH_EXPLICIT_BALANCE 0.02
/* The first node whose state or rates are not finite (-1: none). */
int crd_dyn_nonfinite_node(const crd_dyn *dy, const crd_problem *pb);
/* The first equation of F (n) that is not finite (-1: none), and the node
 * and slot of an equation. */
int crd_nonfinite_eq(const double *F, int n);
int crd_problem_eq_node(const crd_problem *pb, int eq, int *slot);
/* Test hook CRDYN_TEST_NAN_STEP=k (r->test_nan_step): from step k on the
 * first nonzero external force is NaN, a planted NaN load (JSON cannot
 * hold one). */
void crd_dyn_test_nan(const crd_run *r, int step, double *Fext, int n);
/* Test hook CRDYN_TEST_ENERGY_STEP=k: from step k on, every implicit step
 * the integrator converged gains 1 % of velocity (energy from nowhere),
 * for the energy watchdog. */
void crd_dyn_test_energy(const crd_run *r, int step, crd_dyn *dy, const crd_problem *pb);

/* Steps of size dt in a stage of `length` (the last one may be shorter by
 * round-off), at most CRD_MAX_STAGE_STEPS (model.h): the loader refuses a
 * given dt that needs more, the explicit stage an estimated one. */
static inline int crd_stage_steps(double length, double dt) { return (int)ceil(length / dt - 1e-9); }

/* Intersection nodes in the explicit step (explicit_triads.c,
 * explicit_triad.h): the inertia J_b of each triad from its corners'
 * director inertia (crd_dyn_create calls it where pb->tr); the initial
 * angular velocity om0 (NULL: the current one) with pi = J om at the
 * rotational mass scaling s; the moments m = M^T (Fe - Fi) at
 * the chart equations; a kick pi += h m (om and the node's w = om x p,
 * wa = om' x p + om x (om x p) with om' = J^-1 (m - om x pi) after it); the
 * drift of the triads by dt (crd_ext_drift); and the triads' share of the
 * measures (K += om . pi / 2, J += pi). */
int crd_ex_triads_create(crd_dyn *dy, const crd_problem *pb);
void crd_ex_triads_initial(crd_dyn *dy, const crd_problem *pb, double s, const double *om0);
void crd_ex_triads_moments(crd_dyn *dy, const crd_problem *pb, const double *Fe, const double *Fi);
void crd_ex_triads_kick(crd_dyn *dy, const crd_problem *pb, double s, double h);
void crd_ex_triads_drift(const crd_dyn *dy, crd_problem *pb, double s, double dt);
void crd_ex_triads_measure(const crd_dyn *dy, const crd_problem *pb, double *K, double *J);

/* Intersection nodes in the implicit step (implicit_triads.c, fold_dyn.h):
 * the generalized-alpha parameters; at a stage's begin the triads' step
 * state and R' = [om]_x R from their spin (not when resumed from a
 * checkpoint: R' is the checkpoint's), at its finish the spin om from
 * R' (for an explicit stage after it); a step's start (saved state, the
 * predictor of the chart variables into du's slots 3, 4 and mid->du3);
 * the state at the end and the midpoint from du (pf, W1, WA1 at the
 * triads' nodes: their e_z and its rates; CRD_WARN_NEWTON_DIVERGED where
 * a triad leaves its chart); Newton's correction of theta_2; the triads
 * back at the step's start; the rates of the end (end = 1) or the start
 * (0) into dy; the charts switched after an accepted step; an element's
 * velocity in its global variables (crd_fold_offsets); the triads' R''
 * from the chart accelerations dx at the stage's start; the fold
 * elements' mass (into A scaled by cm, or NULL) and inertia force f_m
 * (into F, or NULL) at the current state. */
typedef struct crd_im_param {
  double am, af, beta, gamma;
} crd_im_param;
int crd_im_triads_begin(crd_dyn *dy, crd_problem *pb, int resume);
void crd_im_triads_finish(crd_dyn *dy, crd_problem *pb);
void crd_im_triads_start(const crd_dyn *dy, crd_problem *pb, double dt, double *du);
int crd_im_triads_state(crd_problem *pb, const crd_im_param *g, double dt, const double *du, double *pf,
                        double *W1, double *WA1);
void crd_im_triads_correct(crd_problem *pb, const double *dx);
void crd_im_triads_restore(crd_problem *pb);
void crd_im_triads_rates(crd_dyn *dy, const crd_problem *pb, int end);
void crd_im_triads_accept(crd_problem *pb);
void crd_im_triads_velocity(const crd_dyn *dy, const crd_problem *pb, int e, double *ud);
void crd_im_triads_accel(crd_dyn *dy, const crd_problem *pb, const double *dx);
void crd_im_triads_mass(const crd_dyn *dy, const crd_problem *pb, crd_csr *A, double cm, double *F);

/* One stage each; they advance dy->t to st->t_end, recording history rows. */
int crd_implicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage);
int crd_explicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage);
/* The stable step of the explicit scheme (*dt; INFINITY for a model
 * without stiffness) from the element eigenvalue bound the backend gives
 * (ops->lambda_max; Irons: the largest element frequency bounds the
 * mesh's), and the element that sets it (*elem, may be NULL; -1 for a
 * model without one). */
int crd_explicit_stable_dt(const crd_dyn *dy, crd_problem *pb, double rot_scale, double *dt, int *elem);
/* The step of explicit stage istage (len long) at the current state: the
 * dt given, or the safety factor of the stable estimate (*dt_stable).  A
 * given dt above the estimate is refused, naming the element that sets it
 * (unless unstable_ok: a test hook), and so is a stage of more than
 * CRD_MAX_STAGE_STEPS steps.  `where` says of which state the estimate is. */
int crd_explicit_choose_dt(const crd_dyn *dy, crd_problem *pb, const crd_stage *st, int istage, double len,
                           int unstable_ok, const char *where, double *dt, double *dt_stable);

#endif
