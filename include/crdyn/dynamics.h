/* crdyn: shell dynamics: the motion state that integrators share, the
 * inertia of the mesh (shell_mass.h) and the stages of a dynamic analysis.
 *
 * STATE: positions and normals live in crd_problem (d, p, l).  Rates are
 * kept here as physical vectors per node: v = d', a = d'' and, for the
 * normal, w = p' and wa = p'' (3-vectors).  The pair rates of a node are
 * the components (n, m) of w and wa (A1 has the identity in rows n, m), so
 * when the independent pair switches (problem.h) the new pair's velocity
 * and acceleration are read off the same vectors: nothing jumps
 * (THEORY.md §4).
 *
 * Integrators (one stage each, state carried between stages):
 *   implicit.c  generalized-alpha, quasi energy-momentum (docs/dynamics.md)
 *   explicit.c  central difference, lumped mass
 * dynamic.c runs the stages and the history; modal.c the eigen-analysis. */
#ifndef CRDYN_DYNAMICS_H
#define CRDYN_DYNAMICS_H

#include "crdyn/run.h"

typedef struct crd_dyn {
  double *C;          /* 16*ne: element mass coefficients C_ij (eq 40a) */
  double *mlump;      /* nn: lumped translational mass (row sums of C) */
  double *plump;      /* nn: lumped director inertia (row sums of h^2/12 C) */
  double *v, *a;      /* 3*nn: translational velocity, acceleration */
  double *w, *wa;     /* 3*nn: p' and p'' */
  double t;           /* current time */
  int step;           /* accepted steps over all stages */
  double kinetic, strain, L[3], J[3];  /* of the current state */
  /* statistics */
  int implicit_steps, explicit_steps, newton_iters, cuts;
  double max_energy_residual;          /* largest |dE - W| / E per implicit step (rho_inf = 1) */
  double rot_mass_scaling;             /* explicit director inertia factor in use (1 = none) */
  double dt_auto;                      /* last explicit stable step estimate */
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
/* Pair values (a, b) of a 3-vector at node i under its current pair. */
void crd_dyn_pair(const crd_problem *pb, int i, const double *vec3, double *ab);
/* Assemble the mass matrix of the current state into A (same pattern as
 * pb->K), scaled by cm and added. */
void crd_dyn_assemble_mass(const crd_dyn *dy, const crd_problem *pb, crd_csr *A, double cm);

/* One stage each; they advance dy->t to st->t_end, recording history rows. */
int crd_implicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage);
int crd_explicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage);
/* The stable step of the explicit scheme from element eigenvalue bounds
 * (Irons: the largest element frequency bounds the mesh's). */
double crd_explicit_stable_dt(const crd_dyn *dy, const crd_problem *pb, double rot_scale);

#endif
