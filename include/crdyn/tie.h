/* crdyn: rigid bodies in a shell model and the shell nodes tied to them
 * (docs/case_format.md "rigid_bodies" with "tie"; docs/rigid_bodies.md, "Ties").
 *
 * In a model with a mesh, a body is a director triad: the reference point
 * phi and the body axes d_1, d_2, d_3 as world vectors, q = (phi, d_1, d_2,
 * d_3) (12 values).  A material point at body coordinates X is at
 * phi + X_i d_i, so the kinetic energy is 1/2 v^T M v with the constant
 * mass M = Mb (x) I_3, Mb = [m, m c^T; m c, E] (c: centre of mass from the
 * reference point, E = 1/2 tr(J) I - J the Euler tensor of the inertia J
 * about the reference point, body axes).  A tied node a moves as
 *   x_a = phi + c_ai d_i,   p_a = e_ai d_i
 * (c_a, e_a: its offset and normal in body axes), linear in q: so the
 * Newmark relations of the shell's tied nodes and of the triad are the
 * same relations, and the shell's quasi energy-momentum step acts on the
 * whole system.
 *
 * The implicit step (implicit.c calls these) solves the shell equations
 * of the free DOFs and, per body, the balance reduced by the discrete
 * null space of the orthonormality constraints at the midpoint,
 *   r_b = P_f^T (M a_m - F_f) + sum_a T_f,a^T R_a = 0,
 * P_f = [I 0; 0 -[d_i,f]x]: translations and rotations of the midpoint
 * triad, T_f,a the same virtual motion at the tied node a (its pair rows
 * through the basis B_a of the shell step).  The constraint forces then do
 * no work over the step (the constraints are quadratic: G(q_f) dq =
 * g(q_1) - g(q_0) = 0 when alpha_f = 1/2) and have no moment, so with
 * rho_inf = 1 energy and momenta of hub plus shell are conserved as the
 * shell's are.  Unknowns: the free shell increments and 6 per body (3 when
 * its reference point is fixed): dphi and a rotation dtheta of the triad
 * at the step end (d_i <- Rot(dtheta) d_i: orthonormal to round-off).
 * The Newton matrix is the shell's symmetric K_eff over the free DOFs
 * (factorized as before, the tied rows and columns replaced by the
 * identity) and a small dense block per body, eliminated by its Schur
 * complement: 6 extra solves per body and Newton iteration.
 *
 * Explicit stages (explicit.c calls crd_ties_ex_*): the body and the lumped
 * masses of its tied nodes are one rigid body, advanced by a central-
 * difference Newton-Euler step on the rotation group; the tied nodes follow
 * it (tie.c). */
#ifndef CRDYN_TIE_H
#define CRDYN_TIE_H

#include "crdyn/problem.h"

typedef struct crd_ties crd_ties;

/* What the implicit step shares with the ties each iteration. */
typedef struct crd_tie_step {
  const double *d0, *p0;      /* 3*nn: state at the start of the step */
  const double *df, *pf;      /* 3*nn: midpoint state */
  const double *Bs;           /* 6*nn: the bases B_i (3x2) of the normal equations */
  const double *E_e;          /* 400*ne: the non-symmetric parts of the element Newton matrices */
  double h, am, af, beta, gamma, tf;
} crd_tie_step;

/* The bodies of m (all of them; a body without `tie` is a free director
 * body).  Refuses (naming the JSON path) added mass, partial fix, a tied
 * node with a support or in two ties. */
int crd_ties_create(const crd_model *m, crd_problem *pb, crd_ties **t);
void crd_ties_destroy(crd_ties **t);
int crd_ties_nbodies(const crd_ties *t);
/* Is equation k of a tied node? */
int crd_ties_is_tied_eq(const crd_ties *t, int k);

/* Rates of the tied nodes from their bodies' (v, a: 3*nn translation
 * rates; w, wa: normal rates). */
void crd_ties_node_rates(const crd_ties *t, const crd_problem *pb, double *v, double *a, double *w, double *wa);

/* Implicit step.  begin: save the start state, predict the end state
 * (constant velocities) and write the tied slots of du (5*nn). */
void crd_ties_begin(crd_ties *t, crd_problem *pb, const crd_tie_step *ts, double *du);
/* Body residuals at the current iterate (after the shell's build_state
 * and assembly): Newmark of the triads, their loads at tf, r_b; the tied
 * equations of R are then zeroed.  *r2 += |r_b|^2; *scale = the largest
 * body force.  */
void crd_ties_residual(crd_ties *t, crd_problem *pb, const crd_tie_step *ts, double *R, double *r2, double *scale);
/* Before the factorization: the coupling columns of the tied DOFs out of
 * pb->K, the body blocks, and the tied rows/columns of pb->K replaced by
 * the identity.  */
int crd_ties_condense(crd_ties *t, crd_problem *pb, const crd_tie_step *ts);
/* Zero the tied entries of a vector (neq). */
void crd_ties_zero(const crd_ties *t, double *x);
/* The identity in the tied rows/columns of A (pattern of pb->K). */
void crd_ties_identity(const crd_ties *t, crd_csr *A);
/* After dx = K_ff^-1 R (free part): the body increments by the Schur
 * complement, dx corrected, the triads updated, the tied slots of du
 * rewritten.  *dx2 += |dalpha|^2. */
typedef int (*crd_tie_solve_fn)(void *ctx, const double *b, double *x); /* x = K_ff^-1 b (with E) */
int crd_ties_solve(crd_ties *t, crd_problem *pb, crd_tie_solve_fn solve, void *ctx, const crd_tie_step *ts,
                   double *dx, double *du, double *dx2);
/* The step converged: the end rates become the state, the work is added. */
void crd_ties_accept(crd_ties *t);
/* Back to the start of the step. */
void crd_ties_restore(crd_ties *t);
/* External work on the bodies over the step in progress and so far. */
double crd_ties_step_work(const crd_ties *t);
double crd_ties_work(const crd_ties *t);

/* Explicit stages.  begin: the rigid mass with the tied nodes' lumped
 * masses (mlump, s plump), and unless resuming the momentum and its rate
 * from the forces Fe - Fi (neq) of the current state; move: the half kick
 * and the new pose, the tied nodes' d and p set; finish: the forces of the
 * new state, the second kick, the triad's and the tied nodes' rates. */
void crd_ties_ex_begin(crd_ties *t, const crd_problem *pb, const double *mlump, const double *plump, double s,
                       const double *Fi, const double *Fe, double time, int resume);
void crd_ties_ex_move(crd_ties *t, crd_problem *pb, double h);
void crd_ties_ex_finish(crd_ties *t, const crd_problem *pb, const double *Fi, const double *Fe, double time,
                        double h, double *v, double *a, double *w, double *wa);

/* Kinetic energy, L and J (about the origin) of the bodies, added. */
void crd_ties_measure(const crd_ties *t, double *K, double *L, double *J);
/* History columns: 13 per body (docs/case_format.md) then, for each body with a
 * tie, the force and moment (about its reference point) the tied shell
 * nodes exert on it: ncols_* say how many, names_* write them. */
int crd_ties_ncols(const crd_ties *t);
void crd_ties_col_names(const crd_ties *t, char **names, int namelen);
void crd_ties_columns(const crd_ties *t, double *cols);

/* Checkpoint state: n doubles (crd_ties_state_size) out and in. */
size_t crd_ties_state_size(const crd_ties *t);
void crd_ties_state_get(const crd_ties *t, double *s);
void crd_ties_state_set(crd_ties *t, const double *s);

#endif
