/* crdyn: the internal force of the quasi energy-momentum step
 * (docs/theory.md §6, eq 58).
 *
 * Over a step from state a (t_n) to state b (t_{n+1}), the balance is taken
 * at the generalized midpoint t_f = t_{n+1-alpha_f}.  The element's strain
 * variables q (local translations and rotation measures, shell_q4.h) are
 * computed at both ends; the strains, B and dB/dq used in the step are the
 * means (1-w) (.)_a + w (.)_b with w = 1 - alpha_f (crd_q4_local_avg), which
 * gives the local force f_q.  It is carried to the global variables by the
 * Jacobian of q(u_G) at the midpoint configuration u_G,f (translations and
 * pair components interpolated with the same weights, the normal kept unit):
 *   f_G = (dq/du_G)(u_f)^T f_q,
 *   K   = (dq/du_G)^T k_q (dq/du_G) + sum_a f_q,a d2q_a/du_G2   at u_f.
 * f_G is the gradient at u_f of the rigid-motion invariant function
 * u_G -> f_q . q(u_G), so its resultant force and moment about the origin
 * (with the positions and normals of u_f) vanish exactly: the internal
 * forces change neither linear nor angular momentum.  With w = 1/2 the
 * local energy change is exact, U(q_b) - U(q_a) = f_q . (q_b - q_a); what
 * remains is the midpoint rule for q_b - q_a = int dq/du_G du_G, of order
 * |du_G|^3 per step: hence "quasi".
 *
 * K is symmetric.  It is the derivative of f_G with respect to u_f up to
 * terms of the order of the step (B(qbar) against B(q_b) in k_q, and the
 * motion of the state a, which is fixed): Newton on it converges fast, and
 * the converged answer does not depend on it. */
#ifndef CRDYN_SHELL_DYN_H
#define CRDYN_SHELL_DYN_H

#include "crdyn/cr_frame.h"

/* The Cholesky factor of the 6x6 SPD A (L in the lower triangle of Lf;
 * a non-positive pivot becomes 1e-300, so that the factor stays finite).
 * Returns the smallest pivot before its square root: > 0 for an SPD A. */
CRD_HD double crd_dyn_chol6(const double *Ain, double *A)
{
  double pmin = 0.0;
  for (int a = 0; a < 36; ++a) A[a] = Ain[a];
  for (int j = 0; j < 6; ++j) {
    double d = A[6 * j + j];
    for (int k = 0; k < j; ++k) d -= A[6 * j + k] * A[6 * j + k];
    pmin = j == 0 ? d : CRD_SEL_LT(pmin, d, pmin, d); /* a NaN pivot is kept */
    d = d > 0 ? sqrt(d) : 1e-300;
    A[6 * j + j] = d;
    for (int i = j + 1; i < 6; ++i) {
      double v = A[6 * i + j];
      for (int k = 0; k < j; ++k) v -= A[6 * i + k] * A[6 * j + k];
      A[6 * i + j] = v / d;
    }
  }
  return pmin;
}

/* x = A^-1 b from the factor of crd_dyn_chol6. */
CRD_HD void crd_dyn_chol6_solve(const double *A, const double *b, double *x)
{
  double y[6];
  for (int i = 0; i < 6; ++i) {
    double v = b[i];
    for (int k = 0; k < i; ++k) v -= A[6 * i + k] * y[k];
    y[i] = v / A[6 * i + i];
  }
  for (int i = 5; i >= 0; --i) {
    double v = y[i];
    for (int k = i + 1; k < 6; ++k) v -= A[6 * k + i] * x[k];
    x[i] = v / A[6 * i + i];
  }
}

/* Solve the 6x6 SPD system A x = b (Cholesky, in place of a copy); returns
 * the smallest pivot (crd_dyn_chol6). */
CRD_HD double crd_dyn_solve6(const double *Ain, const double *b, double *x)
{
  double A[36];
  double pmin = crd_dyn_chol6(Ain, A);
  crd_dyn_chol6_solve(A, b, x);
  return pmin;
}

/* The rigid motions of the midpoint state as a 24 x 6 matrix G, used
 * through its structure: columns t_k (translations: e_k on every x_i) and
 * w_k (rotations about the centroid c: e_k x r_i on x_i, e_k x p_i on p_i,
 * r_i = x_i - c).  r (12) from xf; then
 *   G^T v = (sum_i v_x,i,  sum_i r_i x v_x,i + p_i x v_p,i),
 *   G z   = (z_t + z_w x r_i,  z_w x p_i),
 *   G^T G = diag(4 I, sum_i |r_i|^2 I - r_i r_i^T + |p_i|^2 I - p_i p_i^T)
 * (the off-diagonal block is [sum_i r_i]_x = 0: r is centred). */
CRD_HD void crd_dyn_rigid_r(const double *xf, double *r)
{
  double c0[3] = {0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) c0[c] += 0.25 * xf[3 * i + c];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) r[3 * i + c] = xf[3 * i + c] - c0[c];
}

CRD_HD void crd_dyn_rigid_Gt(const double *r, const double *pf, const double *v, double *out)
{
  for (int a = 0; a < 6; ++a) out[a] = 0.0;
  for (int i = 0; i < 4; ++i) {
    double t[3], u[3];
    crd_cross3(r + 3 * i, v + 3 * i, t);
    crd_cross3(pf + 3 * i, v + 12 + 3 * i, u);
    for (int c = 0; c < 3; ++c) {
      out[c] += v[3 * i + c];
      out[3 + c] += t[c] + u[c];
    }
  }
}

CRD_HD void crd_dyn_rigid_G(const double *r, const double *pf, const double *z, double *out)
{
  for (int i = 0; i < 4; ++i) {
    double t[3], u[3];
    crd_cross3(z + 3, r + 3 * i, t);
    crd_cross3(z + 3, pf + 3 * i, u);
    for (int c = 0; c < 3; ++c) {
      out[3 * i + c] = z[c] + t[c];
      out[12 + 3 * i + c] = u[c];
    }
  }
}

CRD_HD void crd_dyn_rigid_GtG(const double *r, const double *pf, double *A)
{
  for (int a = 0; a < 36; ++a) A[a] = 0.0;
  for (int c = 0; c < 3; ++c) A[7 * c] = 4.0;
  for (int i = 0; i < 4; ++i) {
    const double *x = r + 3 * i, *q = pf + 3 * i;
    double s2 = crd_dot3(x, x) + crd_dot3(q, q);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        A[6 * (3 + a) + 3 + b] += (a == b ? s2 : 0.0) - x[a] * x[b] - q[a] * q[b];
  }
}

/* The energy correction of the midpoint step (w = 1/2).  With z = (x_i, p_i)
 * the element's positions and normals as 3-vectors, the step's internal
 * work is g . dz with g = grad_z (f_q . q) at the midpoint, while the strain
 * energy changes by f_q . dq.  Their difference eps is put back along
 *   m = dz - (its projection on the rigid motions at the midpoint):
 * translations (t on every x_i) and rotations (w x x_i, w x p_i); then
 * (g + c m) . dz = f_q . dq exactly for c = eps / (m . dz) (a discrete
 * gradient in the sense of Gonzalez 1996), and, m being orthogonal to the
 * rigid motions, the correction has no resultant force and no moment: it
 * changes neither momentum.  A step that is rigid to round-off has m = 0 and
 * eps = 0 (Cayley: a finite rotation maps z_a to z_b with dz an infinitesimal
 * rotation of the mean state), and is left alone.
 * So is a step whose non-rigid part is below 1e-4 of the step (|m|^2 <=
 * CRD_CORR_KAPPA |dz|^2): there c is the quotient of two small numbers whose
 * derivative the Newton matrix does not have, and Newton stalls on a fast
 * spin without the threshold (docs/dynamics.md §6, the measurements); the
 * midpoint-rule error left in those elements is of the order of |m| times
 * the step's rotation squared.
 * g (24): the 3-vector forces; m out (24); returns c. */
#define CRD_CORR_KAPPA 1e-8
/* The derivative of the correction (crd_q4_mid_efix_dE) goes into the
 * Newton matrix only where |m|^2 > CRD_EFIX_KAPPA |dz|^2: below, its
 * relative O(|dz|) approximations, amplified by |dz|/|m|, make Newton
 * worse than without it (docs/dynamics.md §2 compares the thresholds on
 * the hub, the spinning panels and the flying plate). */
#define CRD_EFIX_KAPPA 1e-5
CRD_HD double crd_dyn_energy_correction(const double *xf, const double *pf, const double *dz, const double *g,
                                        double dU, double *m)
{
  double r[12], GtG[36], Gtd[6], al[6], Gal[24];
  crd_dyn_rigid_r(xf, r);
  crd_dyn_rigid_GtG(r, pf, GtG);
  crd_dyn_rigid_Gt(r, pf, dz, Gtd);
  double piv = crd_dyn_solve6(GtG, Gtd, al);
  crd_dyn_rigid_G(r, pf, al, Gal);
  double mm = 0.0, dd = 0.0, gd = 0.0;
  for (int q = 0; q < 24; ++q) {
    double v = dz[q] - Gal[q];
    m[q] = v;
    mm += v * v;
    dd += dz[q] * dz[q];
    gd += g[q] * dz[q];
  }
  /* 0 unless mm > kappa dd and mm > 0 (NaN: 0), chosen value by value
   * (crd_hd.h) so that the lanes of a CPU batch need not agree */
  double cc = (dU - gd) / mm;
  cc = CRD_SEL_LT(CRD_CORR_KAPPA * dd, mm, cc, 0.0);
  cc = CRD_SEL_LT(0.0, piv, cc, 0.0); /* no correction on a rigid basis that is not SPD (a degenerate element) */
  return CRD_SEL_LT(0.0, mm, cc, 0.0);
}

/* Rows of the rotation variables of T (20x20) through dphi/dr (J, 2x2 per
 * node): the Jacobian dq/du_G. */
CRD_HD void crd_q4_phi_rows(const double *J, double *T)
{
  for (int i = 0; i < 4; ++i) {
    const double *Ji = J + 4 * i;
    double *r0 = T + 20 * (5 * i + 3), *r1 = T + 20 * (5 * i + 4);
    for (int c = 0; c < 20; ++c) {
      double a = r0[c], b = r1[c];
      r0[c] = Ji[0] * a + Ji[1] * b;
      r1[c] = Ji[2] * a + Ji[3] * b;
    }
  }
}

/* The part of the Newton matrix of f_G that the symmetric tangent leaves
 * out: f_G = J_f^T f_q(q_a, q_b) depends on the unknowns through q_b with
 * the Jacobian J_b = dq/du_G at the end of the step, not J_f, so
 *   df_G/du_b = w J_f^T k J_b + (symmetric terms)
 *   E = w J_f^T k (J_b - J_f)   (20x20, not symmetric),
 * about the rotation of the element over half a step times its stiffness.
 * J_f uses the bases Bs (the force's), J_b the pair's A1 at p_b (the
 * unknowns').  kq: the local k with respect to q.  With the membrane part
 * kx of df_q/dq_b that kq leaves out (crd_q4_local_avg), df_q/dq_b =
 * w (kq + kx) and
 *   E = w J_f^T [k (J_b - J_f) + kx J_b],
 * kx J_b = kx_w (D_w + Tf_w): kx has only the w columns, and the w rows of
 * T carry no phi rows (D and Tf below). */
/* E from the raw T of both states (as crd_q4_transform_basis gives them;
 * the phi rows are applied here); kx may be NULL.  The products run
 * c-outermost as row updates (see crd_q4_TtkT): the same sums in the same
 * order as dot products, in contiguous vectorizable loops. */
/* The factors of E: Tf = Tf_phi and D = Tb_phi - Tf_phi from the raw T's
 * (Tf may be Tf0 and Tb Tb0: in place). */
CRD_HD void crd_q4_mid_skew_prep(const double *Tf0, const double *Tb0, const double *Jf, const double *Jb,
                                 double *Tf, double *Tb)
{
  for (int a = 0; a < 400; ++a) {
    Tf[a] = Tf0[a];
    Tb[a] = Tb0[a];
  }
  crd_q4_phi_rows(Jf, Tf);
  crd_q4_phi_rows(Jb, Tb);
  for (int a = 0; a < 400; ++a) Tb[a] -= Tf[a];
}

/* The kx J_b terms added to an entry v of k D: kx4 row a of kx, d and t
 * the w rows (5 i + 2) of D and Tf in column b. */
CRD_HD double crd_q4_kxT_add(double v, const double *kx4, const double *d, const double *t)
{
  for (int i = 0; i < 4; ++i) v += kx4[i] * (d[i] + t[i]);
  return v;
}

CRD_HD void crd_q4_mid_skew_T(const double *Tf0, const double *Tb0, const double *Jf, const double *Jb,
                              const double *kq, const double *kx, double w, double *E)
{
  double Tf[400], Tb[400], kD[400];
  crd_q4_mid_skew_prep(Tf0, Tb0, Jf, Jb, Tf, Tb);
  for (int a = 0; a < 400; ++a) kD[a] = 0.0;
  for (int c = 0; c < 20; ++c) {
    const double *Tc = Tb + 20 * c;
    for (int a = 0; a < 20; ++a) {
      double kac = kq[20 * a + c];
      double *r = kD + 20 * a;
      crd_q4_T_row_axpy(r, kac, Tc, c); /* D's zeros are T's (crd_q4_T_nz) */
    }
  }
  if (kx)
    for (int b = 0; b < 20; ++b) {
      double d[4], t[4];
      for (int i = 0; i < 4; ++i) {
        d[i] = Tb[20 * (5 * i + 2) + b];
        t[i] = Tf[20 * (5 * i + 2) + b];
      }
      for (int a = 0; a < 20; ++a) kD[20 * a + b] = crd_q4_kxT_add(kD[20 * a + b], kx + 4 * a, d, t);
    }
  /* E = w Tf^T kD row by row, each half row summed in registers over c
   * in increasing order from zero: the same sums, in the same order, as
   * row updates of E in memory (c outermost), without E's loads and
   * stores per update (ten accumulators: they fit the 16 registers of
   * x86-64-v3 as the 32 of v4) */
  for (int a = 0; a < 20; ++a)
    for (int h = 0; h < 20; h += 10) {
      double acc[10];
      for (int b = 0; b < 10; ++b) acc[b] = 0.0;
      for (int c = 0; c < 20; ++c) {
        if (!crd_q4_T_nz(c, a)) continue;
        const double t = Tf[20 * c + a], *kc = kD + 20 * c + h;
        for (int b = 0; b < 10; ++b) acc[b] += t * kc[b];
      }
      for (int b = 0; b < 10; ++b) E[20 * a + h + b] = acc[b] * w;
    }
}

CRD_HD void crd_q4_mid_skew(const crd_cr_frame *Ff, const crd_cr_frame *Fb, const double *X0, const double *df,
                            const double *pf, const double *db, const double *pb, const int *l, const double *Bs,
                            const double *Jf, const double *Jb, const double *kq, const double *kx, double w,
                            double *E)
{
  double Tf[400], Tb[400];
  crd_q4_transform_basis(Ff, X0, df, pf, l, Bs, Tf);
  crd_q4_transform_basis(Fb, X0, db, pb, l, 0, Tb);
  crd_q4_mid_skew_T(Tf, Tb, Jf, Jb, kq, kx, w, E);
}

/* What crd_q4_global_mid computes before the local element and keeps
 * for the transforms after it (the split kernels hold it in thread 0). */
typedef struct crd_q4_mid_st {
  crd_cr_frame F, Fb, Fa; /* frames at the midpoint and at the ends b, a */
  double xl0[12], ul[20], r0xy[8], qa[20], qb[20], qf[20], J[16], Jb[16], Ja[16], abc[12];
} crd_q4_mid_st;

/* The frames and strain variables of the states a, b and the midpoint
 * (ul, J, abc: the midpoint's). */
CRD_HD void crd_q4_mid_begin(const double *X0, const double *p0, const double *da, const double *pa,
                             const double *db, const double *pb, const double *df, const double *pf,
                             crd_q4_mid_st *s)
{
  double x0[12], ph0[8]; /* the initial frame and phi(r0) once for the three states */
  crd_q4_local_vars_init(X0, p0, x0, s->xl0, s->r0xy);
  crd_q4_rot_ph0(s->r0xy, ph0);
  crd_q4_local_vars_cur(x0, s->xl0, da, pa, &s->Fa, s->ul);
  crd_q4_rot_map_ph0(s->ul, ph0, s->qa, s->Ja, s->abc);
  crd_q4_local_vars_cur(x0, s->xl0, db, pb, &s->Fb, s->ul);
  crd_q4_rot_map_ph0(s->ul, ph0, s->qb, s->Jb, s->abc);
  crd_q4_local_vars_cur(x0, s->xl0, df, pf, &s->F, s->ul);
  crd_q4_rot_map_ph0(s->ul, ph0, s->qf, s->J, s->abc);
}

/* f_q . (q_b - q_a) (= U_b - U_a when w = 1/2), f with respect to q. */
CRD_HD double crd_q4_mid_dU(const crd_q4_mid_st *s, const double *f)
{
  double dU = 0.0;
  for (int a = 0; a < 20; ++a) dU += f[a] * (s->qb[a] - s->qa[a]);
  return dU;
}

/* The energy correction (crd_dyn_energy_correction) added to fG, with f
 * the local force with respect to u_L (after crd_q4_rot_pullback). */
CRD_HD void crd_q4_mid_energy_fix(const crd_cr_frame *F, const double *X0, const double *da, const double *pa,
                                  const double *db, const double *pb, const double *df, const double *pf,
                                  const double *Bs, const double *f, double dU, double *fG)
{
  double xf[12], dz[24], g[24], m[24];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) {
      xf[3 * i + c] = X0[3 * i + c] + df[3 * i + c];
      dz[3 * i + c] = db[3 * i + c] - da[3 * i + c];
      dz[12 + 3 * i + c] = pb[3 * i + c] - pa[3 * i + c];
      g[3 * i + c] = fG[5 * i + c];
      g[12 + 3 * i + c] = f[5 * i + 3] * F->e[0][c] + f[5 * i + 4] * F->e[1][c]; /* d(f.u_L)/dp */
    }
  double cc = crd_dyn_energy_correction(xf, pf, dz, g, dU, m);
  /* the product gated, not only its coefficient: where the correction is
   * off (cc = 0), m may be anything (a degenerate rigid basis gives
   * infinities), and 0 times it must not reach fG */
  const double on = fabs(cc);
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) fG[5 * i + c] += CRD_SEL_LT(0.0, on, cc * m[3 * i + c], 0.0);
    for (int s = 0; s < 2; ++s)
      fG[5 * i + 3 + s] += CRD_SEL_LT(0.0, on, cc * (Bs[6 * i + s] * m[12 + 3 * i] + Bs[6 * i + 2 + s] * m[12 + 3 * i + 1] +
                                                     Bs[6 * i + 4 + s] * m[12 + 3 * i + 2]), 0.0);
  }
}

/* The derivative of the energy correction in the unknowns u_b (the
 * translations and pair components of the state b, bases A1(p_b)), for the
 * Newton matrix.  The correction adds c Bf^T m to f_G (Bf = diag(I, Bs_i),
 * crd_q4_mid_energy_fix) with c = eps / |m|^2, m = (I - Pi) dz and
 *   eps = f_q . dq - g . dz = f_q . rr,   rr = q(z_b) - q(z_a) - J_f dz
 * (g = J_f^T f_q, J = dq/dz at the midpoint z_f = (z_a + z_b)/2): eps is
 * the midpoint-rule remainder rr of the strain variables weighed by the
 * force.  Its gradient in z_b:
 *   d eps/dz_b = (df_q/dz_b)^T rr + (J_b - J_f - 1/2 H_f[dz])^T f_q,
 * with df_q/dz_b = w (kq + kx) J_b (crd_q4_local_avg) and H_f[dz]^T f_q
 * the second derivative of f_q . q(z) at z_f along dz, replaced by
 * (J_b - J_a)^T f_q (a central difference about the midpoint: its error
 * is of third order, the term itself of second), so that
 *   d eps/dz_b = J_b^T w (kq + kx)^T rr + (1/2 (J_a + J_b) - J_f)^T f_q
 * up to a relative O(|dz|).  With d|m|^2/dz_b = 2 m (the derivative of the
 * projector Pi along dz left out: of the order of the step against 1),
 *   d(c Bf^T m)/du_b = (Bf^T m) (grad c)^T + c Bf^T (I - Pi) Z_b,
 *   grad c = Z_b^T (d eps/dz_b - 2 c m) / |m|^2,
 * Z_b = dz_b/du_b = diag(I, A1_i(p_b)).  Two parts: crd_q4_mid_efix_kr
 * forms Z_b^T J_b^T w (kq + kx)^T rr while k is with respect to q (before
 * the pull-back); crd_q4_mid_efix_dE the rest, added into E. */
/* rr = q_b - q_a - J_f dz (20), from Tf, the raw T at the midpoint (bases
 * Bs: its translation columns; the rotation rows take e_k . dp). */
CRD_HD void crd_q4_mid_efix_rr(const crd_q4_mid_st *s, const double *da, const double *pa, const double *db,
                               const double *pb, const double *Tf, double *rr)
{
  double v[20], dd[12];
  for (int a = 0; a < 12; ++a) dd[a] = db[a] - da[a];
  for (int r = 0; r < 20; ++r) { /* du_L/dz dz at the midpoint */
    double x = 0.0;
    for (int j = 0; j < 4; ++j)
      for (int c = 0; c < 3; ++c) x += Tf[20 * r + 5 * j + c] * dd[3 * j + c];
    if (r % 5 >= 3) {
      int i = r / 5, k = r % 5 - 3;
      for (int c = 0; c < 3; ++c) x += s->F.e[k][c] * (pb[3 * i + c] - pa[3 * i + c]);
    }
    v[r] = x;
  }
  for (int i = 0; i < 4; ++i) { /* -> dq/dz dz through dphi/dr at the midpoint */
    const double *J = s->J + 4 * i;
    double x0 = v[5 * i + 3], x1 = v[5 * i + 4];
    v[5 * i + 3] = J[0] * x0 + J[1] * x1;
    v[5 * i + 4] = J[2] * x0 + J[3] * x1;
  }
  for (int a = 0; a < 20; ++a) rr[a] = (s->qb[a] - s->qa[a]) - v[a];
}

/* Entry a of w (kq + kx)^T rr: kcol = column a of kq (20), kxc[c] =
 * kx[4 c + a / 5] when a is a w row (a % 5 == 2; kxc NULL otherwise). */
CRD_HD double crd_q4_mid_efix_kr_entry(const double *kcol, const double *kxc, const double *rr, double w)
{
  double x = 0.0;
  for (int c = 0; c < 20; ++c) x += kcol[c] * rr[c];
  if (kxc)
    for (int c = 0; c < 20; ++c) x += kxc[c] * rr[c];
  return w * x;
}

/* grad1 = Z_b^T J_b^T kr = Tb^T (dphi/dr_b^T kr) (20), Tb the raw T at b
 * (bases A1(p_b)); kr is overwritten. */
CRD_HD void crd_q4_mid_efix_grad1(const crd_q4_mid_st *s, const double *Tb, double *kr, double *grad)
{
  for (int i = 0; i < 4; ++i) {
    const double *J = s->Jb + 4 * i;
    double x0 = kr[5 * i + 3], x1 = kr[5 * i + 4];
    kr[5 * i + 3] = J[0] * x0 + J[2] * x1;
    kr[5 * i + 4] = J[1] * x0 + J[3] * x1;
  }
  for (int b = 0; b < 20; ++b) {
    double x = 0.0;
    for (int c = 0; c < 20; ++c) x += Tb[20 * c + b] * kr[c];
    grad[b] = x;
  }
}

/* The three together on private kq (400) and kx (80, may be NULL). */
CRD_HD void crd_q4_mid_efix_kr(const crd_q4_mid_st *s, const double *da, const double *pa, const double *db,
                               const double *pb, const double *Tf, const double *Tb, const double *kq,
                               const double *kx, double w, double *grad)
{
  double rr[20], kr[20], kcol[20], kxc[20];
  crd_q4_mid_efix_rr(s, da, pa, db, pb, Tf, rr);
  for (int a = 0; a < 20; ++a) {
    for (int c = 0; c < 20; ++c) {
      kcol[c] = kq[20 * c + a];
      if (kx) kxc[c] = kx[4 * c + a / 5];
    }
    kr[a] = crd_q4_mid_efix_kr_entry(kcol, (kx && a % 5 == 2) ? kxc : 0, rr, w);
  }
  crd_q4_mid_efix_grad1(s, Tb, kr, grad);
}

/* Z_b^T J_s^T f_q at the state s = (d, p) with frame F and dphi/dr J
 * (both from crd_q4_mid_begin), bases A1b; f_q with respect to q. */
CRD_HD void crd_q4_mid_efix_Jtf(const crd_cr_frame *F, const double *J, const double *X0, const double *d,
                                const double *p, const int *l, const double *A1b, const double *fq, double *out)
{
  double f[20];
  for (int a = 0; a < 20; ++a) f[a] = fq[a];
  crd_q4_rot_pullback(0, J, 0, f, 0); /* f alone: J only */
  crd_q4_fG_direct(F, X0, d, p, l, A1b, f, out);
}

/* E += d(correction)/du_b (see crd_q4_mid_efix_kr).  fq: the local force
 * with respect to q; f: with respect to u_L at the midpoint; fG: the
 * midpoint force before the correction; grad1 from crd_q4_mid_efix_kr. */
CRD_HD void crd_q4_mid_efix_dE(const crd_q4_mid_st *s, const double *X0, const double *da,
                               const double *pa, const double *db, const double *pb, const double *df,
                               const double *pf, const int *l, const double *Bs, const double *fq,
                               const double *f, const double *fG, double dU, const double *grad1, double *E)
{
  double xf[12], dz[24], g[24], m[24], A1b[24], ha[20], hb[20];
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) {
      xf[3 * i + c] = X0[3 * i + c] + df[3 * i + c];
      dz[3 * i + c] = db[3 * i + c] - da[3 * i + c];
      dz[12 + 3 * i + c] = pb[3 * i + c] - pa[3 * i + c];
      g[3 * i + c] = fG[5 * i + c];
      g[12 + 3 * i + c] = f[5 * i + 3] * s->F.e[0][c] + f[5 * i + 4] * s->F.e[1][c];
    }
    crd_dir_A1(pb + 3 * i, l[i], A1b + 6 * i);
  }
  double cc = crd_dyn_energy_correction(xf, pf, dz, g, dU, m);
  double mm = 0.0, dd = 0.0;
  for (int r = 0; r < 24; ++r) {
    mm += m[r] * m[r];
    dd += dz[r] * dz[r];
  }
  /* Nothing to add where the gate is shut (in every lane): E is left as
   * it is, as the zero factors below would leave it (E comes in as zeros
   * on both element paths, so the signs of its zeros are the same). */
  /* strict: a step with mm = dd = 0 (every first iteration from rest)
   * adds nothing, and nothing of it (1/mm) is computed */
  if (!CRD_ANY_GT(mm, CRD_EFIX_KAPPA * dd)) return;
  double inv = CRD_SEL_LT(CRD_EFIX_KAPPA * dd, mm, 1.0 / mm, 0.0);
  inv = CRD_SEL_LT(0.0, mm, inv, 0.0);
  double ccd = CRD_SEL_LT(CRD_EFIX_KAPPA * dd, mm, cc, 0.0);
  crd_q4_mid_efix_Jtf(&s->Fa, s->Ja, X0, da, pa, l, A1b, fq, ha);
  crd_q4_mid_efix_Jtf(&s->Fb, s->Jb, X0, db, pb, l, A1b, fq, hb);
  /* dm/du_b column by column (m = dz - G al, al = (G^T G)^-1 G^T dz):
   *   dm = X - G (G^T G)^-1 (G^T X + dG^T m),   X = d(dz) - dG al,
   * with d(dz) = Z_b delta, and G moving with the midpoint: dr_i =
   * 1/2 (dx_i - mean dx) (r_i = x_f,i - centroid), dp_f,i = 1/2 A1_i dn_i,
   * so dG al = (om x dr_i, om x dp_i) (om = al_3..5, the step's rigid
   * rotation) and dG^T m = (0, sum_i dr_i x m_x,i + dp_i x m_p,i).  Its
   * columns give Z_b^T(...) m = dm^T m (in grad |m|^2 = 2 dm^T m) and the
   * matrix c Bf^T dm, put into E first; then the rank one term. */
  double r[12], GtG[36], Gtd[6], al[6], mb[20], u[20], gb[20], gc[20];
  crd_dyn_rigid_r(xf, r);
  crd_dyn_rigid_GtG(r, pf, GtG);
  crd_dyn_rigid_Gt(r, pf, dz, Gtd);
  double Lg[36];
  crd_dyn_chol6(GtG, Lg);
  crd_dyn_chol6_solve(Lg, Gtd, al);
  const double om[3] = {al[3], al[4], al[5]};
  for (int b = 0; b < 20; ++b) {
    int j = b / 5, rb = b % 5;
    double X[24], y[6], yr[3] = {0, 0, 0}, z[6], dm[24];
    for (int q = 0; q < 24; ++q) X[q] = 0.0;
    for (int i = 0; i < 4; ++i) {
      double dr[3] = {0, 0, 0}, dp[3] = {0, 0, 0}, t[3];
      if (rb < 3) {
        dr[rb] = 0.5 * ((i == j ? 1.0 : 0.0) - 0.25);
        if (i == j) X[3 * i + rb] = 1.0;
      } else if (i == j)
        for (int c = 0; c < 3; ++c) {
          X[12 + 3 * i + c] = A1b[6 * i + 2 * c + rb - 3];
          dp[c] = 0.5 * A1b[6 * i + 2 * c + rb - 3];
        }
      crd_cross3(om, dr, t);
      for (int c = 0; c < 3; ++c) X[3 * i + c] -= t[c];
      crd_cross3(om, dp, t);
      for (int c = 0; c < 3; ++c) X[12 + 3 * i + c] -= t[c];
      crd_cross3(dr, m + 3 * i, t);
      for (int c = 0; c < 3; ++c) yr[c] += t[c];
      crd_cross3(dp, m + 12 + 3 * i, t);
      for (int c = 0; c < 3; ++c) yr[c] += t[c];
    }
    crd_dyn_rigid_Gt(r, pf, X, y);
    for (int c = 0; c < 3; ++c) y[3 + c] += yr[c];
    crd_dyn_chol6_solve(Lg, y, z);
    double Gz[24], mdm = 0.0;
    crd_dyn_rigid_G(r, pf, z, Gz);
    for (int q = 0; q < 24; ++q) {
      dm[q] = X[q] - Gz[q];
      mdm += m[q] * dm[q];
    }
    mb[b] = mdm;
    for (int i = 0; i < 4; ++i) { /* c Bf^T dm: column b of E */
      for (int c = 0; c < 3; ++c) E[20 * (5 * i + c) + b] += ccd * dm[3 * i + c];
      for (int be = 0; be < 2; ++be) {
        double x = 0.0;
        for (int c = 0; c < 3; ++c) x += Bs[6 * i + 2 * c + be] * dm[12 + 3 * i + c];
        E[20 * (5 * i + 3 + be) + b] += ccd * x;
      }
    }
  }
  /* Z_b^T g; u = Bf^T m */
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) {
      gb[5 * i + c] = g[3 * i + c];
      u[5 * i + c] = m[3 * i + c];
    }
    for (int be = 0; be < 2; ++be) {
      double x = 0.0, z = 0.0;
      for (int c = 0; c < 3; ++c) {
        x += A1b[6 * i + 2 * c + be] * g[12 + 3 * i + c];
        z += Bs[6 * i + 2 * c + be] * m[12 + 3 * i + c];
      }
      gb[5 * i + 3 + be] = x;
      u[5 * i + 3 + be] = z;
    }
  }
  for (int a = 0; a < 20; ++a)
    gc[a] = (grad1[a] + 0.5 * (ha[a] + hb[a]) - gb[a] - 2.0 * cc * mb[a]) * inv;
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < 20; ++b) E[20 * a + b] += u[a] * gc[b];
}

/* X0, p0: initial positions and normals; (da, pa), (db, pb), (df, pf): the
 * states a, b and the midpoint (12 each); l: the dependent components of the
 * step (the pair is fixed within a step); w: weight of state b.  fG (20) and
 * KG (400, row-major) may be NULL.  Returns the strain energy at b;
 * *min_det the smallest initial Gauss-point det J. */
CRD_HD double crd_q4_global_mid(const double *X0, const double *p0, const double *da, const double *pa,
                                const double *db, const double *pb, const double *df, const double *pf,
                                const int *l, const double *Bs, double w, const crd_q4_mat *mt, double *fG,
                                double *KG, double *E, double *min_det)
{
  crd_q4_mid_st s;
  double f[20], k[400], kx[80];
  crd_q4_mid_begin(X0, p0, da, pa, db, pb, df, pf, &s);
  double U = crd_q4_local_avg(s.xl0, s.qa, s.qb, w, mt, f, (KG || E) ? k : 0, (E && Bs) ? kx : 0, min_det);
  double Tf[400]; /* T at the midpoint: for the skew part and the pull to global */
  double fq[20], grad1[20];
  int efix_dE = E && Bs && fG && w == 0.5;
  if (KG || (E && Bs)) crd_q4_transform_basis(&s.F, X0, df, pf, l, Bs, Tf);
  if (E && Bs) {
    double Tb[400];
    crd_q4_transform_basis(&s.Fb, X0, db, pb, l, 0, Tb);
    crd_q4_mid_skew_T(Tf, Tb, s.J, s.Jb, k, kx, w, E);
    if (efix_dE) crd_q4_mid_efix_kr(&s, da, pa, db, pb, Tf, Tb, k, kx, w, grad1);
  }
  for (int a = 0; a < 20; ++a) fq[a] = f[a];
  double dU = crd_q4_mid_dU(&s, f);
  crd_q4_rot_pullback(s.ul, s.J, s.abc, f, KG ? k : 0);
  if (KG) crd_q4_to_global_T(&s.F, X0, df, pf, l, Bs, Tf, f, k, fG, KG);
  else if (fG) crd_q4_to_global(&s.F, X0, df, pf, l, Bs, f, k, fG, 0);
  if (efix_dE) { /* into zeros, then added: the same sums as the split kernels' */
    double dE[400];
    for (int a = 0; a < 400; ++a) dE[a] = 0.0;
    crd_q4_mid_efix_dE(&s, X0, da, pa, db, pb, df, pf, l, Bs, fq, f, fG, dU, grad1, dE);
    for (int a = 0; a < 400; ++a) E[a] += dE[a];
  }
  if (fG && Bs && w == 0.5) crd_q4_mid_energy_fix(&s.F, X0, da, pa, db, pb, df, pf, Bs, f, dU, fG);
  return U;
}

#endif
