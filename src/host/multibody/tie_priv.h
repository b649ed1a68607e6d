/* crdyn: what the tie modules share (tie.c: set-up and the implicit step;
 * tie_explicit.c: explicit stages; tie_state.c: measures, history columns,
 * checkpoint state).  Private to src/host. */
#ifndef CRD_TIE_PRIV_H
#define CRD_TIE_PRIV_H

#include <math.h>
#include <stdint.h>

#include "crdyn/director.h"
#include "crdyn/dualquat.h" /* crd_sinc */
#include "crdyn/tie.h"

typedef struct tie_body {
  int ib, fixed, na, off;      /* model body, Q held, unknowns (6 or 3), offset among the unknowns */
  int nt;
  int32_t *node;               /* tied nodes */
  double *c, *e;               /* 3*nt: offset from Q and normal, body axes */
  double *Te, *Tf;             /* 30*nt: d(slots)/d(alpha) at the end, virtual motion at the midpoint */
  double *gp;                  /* 3*nt: the normal force g_perp of each tied node (midpoint plane) */
  double *Rt;                  /* 5*nt: the shell residual of each tied node's slots */
  double Mb[16];               /* director mass (4x4) */
  double q[12], v[12], a[12];  /* end state of the step (or the iterate): phi, d_1, d_2, d_3 */
  double q0[12], v0[12], a0[12];
  double qf[12], R[12];        /* midpoint triad, director residual M a_m - F_f */
  double mext[3];              /* applied moment at tf (world) */
  double r[6];                 /* reduced residual */
  double wext, dW, react[6];
  double *Ge, *Gf, *Z;         /* neq x 6 (column-major per unknown) */
  /* explicit stages: the body with its tied nodes' lumped masses, about Q,
   * body axes; momentum P = M6 chi and its rate, the loads' wrench (world
   * force at Q and moment) at the last evaluation */
  double M6[36], P[6], dP[6], chi[6], Fl[6];
  double th[3];                /* the explicit step's rotation vector (world) */
} tie_body;

struct crd_ties {
  const crd_model *m;
  int nb, nunk, neq;
  tie_body *b;
  int32_t *eq_body, *eq_row;   /* neq: body of a tied equation (-1: free), tied node index * 5 + slot */
  double *J, *S, *rhs, *dal;   /* nunk^2, nunk^2, nunk, nunk */
};

/* v + a th x v + b th x (th x v): the rotation by the vector th (Rodrigues,
 * a = sin t / t, b = (1 - cos t) / t^2, t = |th|). */
static inline void tie_rot_apply(const double *th, const double *v, double *out)
{
  double t2 = crd_dot3(th, th), t = sqrt(t2), a, b, c1[3], c2[3];
  a = crd_sinc(t);
  b = t < 1e-4 ? 0.5 - t2 / 24.0 : (1.0 - cos(t)) / t2;
  crd_cross3(th, v, c1);
  crd_cross3(th, c1, c2);
  for (int k = 0; k < 3; ++k) out[k] = v[k] + a * c1[k] + b * c2[k];
}

/* y = (Mb (x) I3) x for 12-vectors */
static inline void tie_mass12(const double *Mb, const double *x, double *y)
{
  for (int I = 0; I < 4; ++I)
    for (int k = 0; k < 3; ++k) {
      double s = 0.0;
      for (int J = 0; J < 4; ++J) s += Mb[4 * I + J] * x[3 * J + k];
      y[3 * I + k] = s;
    }
}

/* world position and normal of tied node a of B at the triad q */
static inline void tie_pose(const tie_body *B, const double *q, int a, double *x, double *p)
{
  const double *c = B->c + 3 * a, *e = B->e + 3 * a;
  for (int k = 0; k < 3; ++k) {
    x[k] = q[k] + c[0] * q[3 + k] + c[1] * q[6 + k] + c[2] * q[9 + k];
    p[k] = e[0] * q[3 + k] + e[1] * q[6 + k] + e[2] * q[9 + k];
  }
}

#endif
