/* crdyn: external loads on shells (docs/case_format.md "loads").
 *   force:    a fixed (dead) force on each node of a set;
 *   moment:   a moment M on each node: its work rate is M . w with the
 *             normal's angular velocity w (p' = w x p), so the generalized
 *             force on the normal is g = M x p, on the pair A1^T g;
 *   pressure: follower pressure along the current normal,
 *             f_i = P int N_i (x,xi x x,eta) dxi deta (2x2 Gauss, exact);
 *   gravity:  rho h g int N_i dA over the initial surface.
 * The load stiffness -dF_ext/du is not symmetric for moments and pressure;
 * its symmetric part is added to the tangent (exact for conservative
 * cases such as planar moments), the rest only slows Newton down. */
#ifndef CRDYN_LOADS_H
#define CRDYN_LOADS_H

#include "crdyn/problem.h"

typedef struct crd_loads crd_loads;

int crd_loads_create(const crd_problem *pb, crd_loads **L);
void crd_loads_destroy(crd_loads **L);
/* Amplitude factor of load k at time (dynamics) or load factor (statics). */
double crd_loads_factor(const crd_problem *pb, int k, double t, int is_static);
/* F (neq) = external generalized forces at the current state; when want_K,
 * subtract the symmetric part of the load stiffness from pb->K. */
int crd_loads_assemble(const crd_loads *L, crd_problem *pb, double t, int is_static, double *F, int want_K);
/* Work of the loads from state (d0, p0s) at t0 to the current state at t1
 * (trapezoidal rule in the factor, exact for dead forces). */
double crd_loads_work(const crd_loads *L, const crd_problem *pb, double t0, double t1, int is_static,
                      const double *d0, const double *p0s);
/* 1 when over [t0, t1] the loads are steady: every load either off (its
 * amplitude factor zero at t0, tm and t1) or dead in space (nodal forces
 * and gravity: no moments, no follower pressure, no loads on rigid bodies)
 * with the same factor at the three times (the work of such loads is
 * F . du, whatever time in the step a scheme takes them at). */
int crd_loads_steady(const crd_problem *pb, double t0, double tm, double t1);
/* An amplitude table's factor at time t (linear between its points, held
 * outside them): `dflt` where the load has no table. */
double crd_amplitude_eval(const crd_amplitude *a, double t, double dflt);
/* The first time point of an amplitude table (of a load or a prescribed
 * support) more than `margin` after t; INFINITY where there is none. */
double crd_loads_next_break(const crd_model *m, double t, double margin);
/* Nodal ρ h ∫N_i dA over the initial surface (3 equal entries per node not needed: nn). */
const double *crd_loads_nodal_mass(const crd_loads *L);

#endif
