/* crdyn: rigid-body mechanics shared by host and device (crd_hd.h rules):
 * the 6x6 generalised mass about any reference point, the dual-quaternion
 * variational integrator (DQVI) and the Newton-Euler rates.
 *
 * CONVENTIONS: 6-vectors are ordered (rotation, translation), as the real
 * and dual parts of a dual quaternion (dualquat.h): the body velocity
 * chi = (w_B, v_B) (angular velocity, velocity of the reference point Q, both
 * in body axes), the wrench W = (tau_B, f_B) (moment about Q, force, body
 * axes), the body momentum P = M chi = (angular momentum about Q, linear
 * momentum), body axes.  Matrices are row-major.
 *
 * MASS (docs/theory.md §7.1; Xu and Halse 2016, eq 4.4): the
 * kinetic energy of the mass points Q + rho is
 *   T = 1/2 int |v + w x rho|^2 dm = 1/2 m v.v + m w.(r_g x v) + 1/2 w.J_Q w,
 * r_g the centre of mass from Q, so with S(a) b = a x b
 *   M = [[J_Q, m S(r_g)], [-m S(r_g), m I]] (+ added mass), symmetric.
 *
 * DQVI (Xu and Halse, arXiv:1611.00616, 2016; docs/theory.md §7.3).
 * The pose g_k is a unit dual quaternion, the step's relative pose
 * f = g_k^+ (x) g_{k+1} (body frame of g_k).  The trapezoidal rule on the
 * velocity estimates 2 g^+ (x) g' at both ends of the step,
 * 2 (f - 1)/h and 2 (1 - f^+)/h, whose pure parts are both 2 y/h with
 * y = vec(f) = (vec f_a, vec f_b) in R^6, gives the discrete Lagrangian
 *   L_d = h T(2y/h) = (2/h) y.M y   (+ forcing, below),
 * and y parametrises f without constraint (Xu and Halse 2016, eq 4.29):
 *   f_a = (sqrt(1 - |Phi|^2), Phi),  f_b = (-Phi.Psi / f_aw, Psi),  y = (Phi, Psi)
 * (f_a . f_b = 0 is the unit constraint).  Variations of the poses are
 * left-trivialised, dg = 1/2 g (x) zeta^; then
 *   dg_k     moves f by -1/2 zeta^ (x) f:  dy = -1/2 Lam_L(f) zeta,
 *   dg_{k+1} moves f by  1/2 f (x) zeta^:  dy =  1/2 Lam_R(f) zeta,
 * with (vec of u^ o q = (q_w I - S(q_v)) u, of q o u^ = (q_w I + S(q_v)) u)
 *   Lam_{L,R}(f) = [[a I -+ S(Phi), 0], [b I -+ S(Psi), a I -+ S(Phi)]],
 *   a = f_aw, b = f_bw.
 * The discrete Legendre transforms with the forcing split evenly between
 * the ends (trapezoidal virtual work) give the step
 *   (2/h) Lam_L(f)^T M y = P_k + h/2 W_k          (solve for y: Newton, 6x6)
 *   P_{k+1} = (2/h) Lam_R(f)^T M y + h/2 W_{k+1}.
 * L_d depends on f only, so it is invariant under g -> c g: with no wrench
 * the spatial momentum Ad*_{g^-1} P is conserved exactly (Noether); L_d(y)
 * is even in y, so the scheme is symmetric (second order), and changing
 * the reference point maps y by a constant Ad and M by its congruence,
 * leaving L_d and so the motion unchanged.  A reference point held fixed
 * (spherical joint) keeps Psi = 0: only the rotation rows are solved.
 *
 * NEWTON-EULER (docs/theory.md §7.1, with the material derivative): in body axes
 *   d/dt P = ad*_chi P + W:  d/dt P_w = P_w x w + P_v x v + tau,
 *                            d/dt P_v = P_v x w + f,
 * with g' = 1/2 g (x) chi: q' = 1/2 q o w^, x_Q' = R v. */
#ifndef CRDYN_RIGID_BODY_H
#define CRDYN_RIGID_BODY_H

#include "crdyn/dualquat.h"

/* M (6x6, (rot, trans)) from the mass, J_Q (body axes, about Q), r_g (body
 * axes) and an added mass A given in the case's (translation, rotation)
 * order (NULL: none). */
CRD_HD void crd_rb_mass6(double m, const double *J, const double *rg, const double *A, double *M)
{
  for (int k = 0; k < 36; ++k) M[k] = 0.0;
  double S[9] = {0, -rg[2], rg[1], rg[2], 0, -rg[0], -rg[1], rg[0], 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      M[6 * i + j] = J[3 * i + j];
      M[6 * i + 3 + j] = m * S[3 * i + j];
      M[6 * (3 + i) + j] = -m * S[3 * i + j];
    }
  for (int i = 0; i < 3; ++i) M[6 * (3 + i) + 3 + i] = m;
  if (A) {
    /* case order (v, w) -> (w, v): index k of ours is k+3 mod 6 of the case's */
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) M[6 * i + j] += A[6 * ((i + 3) % 6) + (j + 3) % 6];
  }
}

/* y = M x for a 6x6 M */
CRD_HD void crd_rb_mat6_vec(const double *M, const double *x, double *y)
{
  for (int i = 0; i < 6; ++i) {
    y[i] = 0.0;
    for (int j = 0; j < 6; ++j) y[i] += M[6 * i + j] * x[j];
  }
}

/* 1 when the symmetric 6x6 M is positive definite (Cholesky pivots > 0). */
CRD_HD int crd_rb_posdef6(const double *M)
{
  double L[36];
  for (int j = 0; j < 6; ++j) {
    double d = M[6 * j + j];
    for (int k = 0; k < j; ++k) d -= L[6 * j + k] * L[6 * j + k];
    if (!(d > 0.0)) return 0;
    L[6 * j + j] = sqrt(d);
    for (int i = j + 1; i < 6; ++i) {
      double v = M[6 * i + j];
      for (int k = 0; k < j; ++k) v -= L[6 * i + k] * L[6 * j + k];
      L[6 * i + j] = v / L[6 * j + j];
    }
  }
  return 1;
}

/* Solve the n x n system A x = b (n <= 6) by Gaussian elimination with
 * partial pivoting; A and b are copied.  Returns -1 when singular. */
CRD_HD int crd_rb_solve(int n, const double *Ain, int lda, const double *bin, double *x)
{
  double A[36], b[6];
  for (int i = 0; i < n; ++i) {
    b[i] = bin[i];
    for (int j = 0; j < n; ++j) A[6 * i + j] = Ain[lda * i + j];
  }
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int i = c + 1; i < n; ++i)
      if (fabs(A[6 * i + c]) > fabs(A[6 * piv + c])) piv = i;
    if (!(fabs(A[6 * piv + c]) > 0.0)) return -1;
    if (piv != c) {
      for (int j = 0; j < n; ++j) {
        double t = A[6 * c + j];
        A[6 * c + j] = A[6 * piv + j], A[6 * piv + j] = t;
      }
      double t = b[c];
      b[c] = b[piv], b[piv] = t;
    }
    for (int i = c + 1; i < n; ++i) {
      double l = A[6 * i + c] / A[6 * c + c];
      for (int j = c; j < n; ++j) A[6 * i + j] -= l * A[6 * c + j];
      b[i] -= l * b[c];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < n; ++j) s -= A[6 * i + j] * x[j];
    x[i] = s / A[6 * i + i];
  }
  return 0;
}

/* f (8) from y = (Phi, Psi); -1 when |Phi| >= 1 (a step of 180 degrees). */
CRD_HD int crd_dqvi_f(const double *y, double *f)
{
  double s = 1.0 - crd_dot3(y, y);
  if (!(s > 0.0)) return -1;
  double a = sqrt(s);
  f[0] = a, f[4] = -crd_dot3(y, y + 3) / a;
  for (int k = 0; k < 3; ++k) f[1 + k] = y[k], f[5 + k] = y[3 + k];
  return 0;
}

/* Lam_L (sg = -1) or Lam_R (sg = +1) of the 8-vector f (linear in f). */
CRD_HD void crd_dqvi_lam(const double *f, double sg, double *L)
{
  const double *P = f + 1, *Q = f + 5;
  double SP[9] = {0, -P[2], P[1], P[2], 0, -P[0], -P[1], P[0], 0};
  double SQ[9] = {0, -Q[2], Q[1], Q[2], 0, -Q[0], -Q[1], Q[0], 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = i == j ? 1.0 : 0.0;
      L[6 * i + j] = d * f[0] + sg * SP[3 * i + j];
      L[6 * i + 3 + j] = 0.0;
      L[6 * (3 + i) + j] = d * f[4] + sg * SQ[3 * i + j];
      L[6 * (3 + i) + 3 + j] = d * f[0] + sg * SP[3 * i + j];
    }
}

/* out = (2/h) Lam(f)^T M y for sg = -1 (start) or +1 (end of the step). */
CRD_HD void crd_dqvi_momentum(const double *M, const double *y, const double *f, double sg, double h,
                              double *out)
{
  double L[36], w[6];
  crd_dqvi_lam(f, sg, L);
  crd_rb_mat6_vec(M, y, w);
  for (int j = 0; j < 6; ++j) {
    out[j] = 0.0;
    for (int i = 0; i < 6; ++i) out[j] += L[6 * i + j] * w[i];
    out[j] *= 2.0 / h;
  }
}

/* Residual r(y) = (2/h) Lam_L(f(y))^T M y - b and its Jacobian dr/dy
 * (6x6): with w = M y and Lam linear in f,
 *   dr/dy_j = (2/h) [ (Lam_L^T M)_{:,j} + Lam_L(df/dy_j)^T w ],
 *   df/dy_j: unit in f's slot of y_j, plus the scalar slots
 *   d f_aw/dPhi = -Phi/a, d f_bw/dPhi = -Psi/a - (Phi.Psi) Phi/a^3,
 *   d f_bw/dPsi = -Phi/a.
 * Returns -1 when y leaves |Phi| < 1. */
CRD_HD int crd_dqvi_residual(const double *M, const double *y, const double *b, double h, double *r,
                             double *Jac)
{
  double f[8], L[36], w[6];
  if (crd_dqvi_f(y, f)) return -1;
  crd_dqvi_momentum(M, y, f, -1.0, h, r);
  for (int i = 0; i < 6; ++i) r[i] -= b[i];
  if (!Jac) return 0;
  crd_dqvi_lam(f, -1.0, L);
  crd_rb_mat6_vec(M, y, w);
  double a = f[0], pp = crd_dot3(y, y + 3);
  for (int j = 0; j < 6; ++j) {
    double df[8] = {0, 0, 0, 0, 0, 0, 0, 0}, Ld[36];
    if (j < 3) {
      df[0] = -y[j] / a;
      df[4] = -y[3 + j] / a - pp * y[j] / (a * a * a);
      df[1 + j] = 1.0;
    } else {
      df[4] = -y[j - 3] / a;
      df[5 + j - 3] = 1.0;
    }
    crd_dqvi_lam(df, -1.0, Ld);
    for (int i = 0; i < 6; ++i) {
      double s = 0.0;
      for (int k = 0; k < 6; ++k) s += L[6 * k + i] * M[6 * k + j] + Ld[6 * k + i] * w[k];
      Jac[6 * i + j] = 2.0 / h * s;
    }
  }
  return 0;
}

/* Newton-Euler body rates: dP/dt = ad*_chi P + W (see above); fixed: the
 * reference point held (v = 0), only the rotation rows. */
CRD_HD void crd_rb_ne_dP(const double *M, const double *chi, const double *W, int fixed, double *dP)
{
  double P[6], t[3];
  crd_rb_mat6_vec(M, chi, P);
  crd_cross3(P, chi, dP);
  crd_cross3(P + 3, chi + 3, t);
  for (int k = 0; k < 3; ++k) dP[k] += t[k] + W[k];
  crd_cross3(P + 3, chi, dP + 3);
  for (int k = 0; k < 3; ++k) dP[3 + k] += W[3 + k];
  if (fixed)
    for (int k = 3; k < 6; ++k) dP[k] = 0.0;
}

#endif
