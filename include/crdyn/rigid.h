/* crdyn: the rigid bodies of a model (docs/case_format.md "rigid_bodies"): their
 * mass about the reference point, state, loads and time steps with the
 * dual-quaternion variational integrator or Newton-Euler with RK4
 * (rigid_body.h has the mechanics).
 *
 * STATE per body: the pose g (unit dual quaternion, body to world, of the
 * reference point Q), the body velocity chi = (w_B, v_B) and, for the
 * variational integrator, its discrete momentum P (chi = M^-1 P).  The case's
 * `fix` holds Q (a spherical joint to the ground): all three translations
 * or none (a partial fix is refused by crd_rigid_create). */
#ifndef CRDYN_RIGID_H
#define CRDYN_RIGID_H

#include "crdyn/model.h"

enum { CRD_RB_DQVI = 0, CRD_RB_NEWTON_EULER = 1 };

typedef struct crd_body_state {
  double M[36];            /* generalised mass about Q, body axes, (rot, trans) */
  double mass, rg[3];      /* rigid mass and centre of mass from Q (body axes) */
  int fixed, integrator;
  double g[8];             /* pose */
  double chi[6];           /* body velocity */
  double P[6];             /* DQVI discrete momentum (rotation rows only when fixed) */
  double wext;             /* external work done on the body so far */
  int newton_iters;        /* DQVI Newton iterations of the last step */
} crd_body_state;

typedef struct crd_rigid {
  int nb;
  crd_body_state *b;
  const crd_model *m;
  double tol;              /* DQVI Newton tolerance, relative to |P| + h|W| */
  int max_iterations;
  long newton_total, steps;
} crd_rigid;

int crd_rigid_create(const crd_model *m, crd_rigid **rg);
void crd_rigid_destroy(crd_rigid **rg);

/* Advance every body from t to t + h.  Fails, naming the body, when the
 * variational step's Newton does not converge. */
int crd_rigid_step(crd_rigid *rg, double t, double h);

/* The wrench on body ib at time t in its current pose: world force F (at
 * Q) and moment about Q (3 each), and the body-axes wrench (tau_B, f_B). */
void crd_rigid_wrench(const crd_rigid *rg, int ib, double t, const double *g, double *Fw, double *Mw,
                      double *Wb);

/* Kinetic energy, linear momentum and angular momentum about the origin
 * of all bodies, added into K, L, J. */
void crd_rigid_measure(const crd_rigid *rg, double *K, double *L, double *J);
/* Total external work on all bodies so far. */
double crd_rigid_work(const crd_rigid *rg);
/* The 13 history columns of body ib (docs/case_format.md, history.csv). */
void crd_rigid_columns(const crd_rigid *rg, int ib, double *cols);

#endif
