/* crdyn: the co-rotational frame of a quad and the map from the element's
 * global variables u_G to its local variables u_L (docs/theory.md §1 and §3,
 * eqs 1-10 and 45).
 *
 * Frame (eqs 3-4): a = v13/|v13|, b = v24/|v24| (unit diagonals),
 *   e_x = (a-b)/|a-b|, e_y = (a+b)/|a+b|, e_z = e_x x e_y,   R = [e_x e_y e_z]^T.
 * e_x and e_y are orthogonal because |a| = |b|.  The frame depends on the
 * translations only through s = (v13, v24) = (x3 - x1, x4 - x2).
 *
 * DATA LAYOUT: u_G[5*j + 0..2] = d_j, u_G[5*j + 3..4] = (p_n, p_m) of node j;
 * u_L as in shell_q4.h.  T = du_L/du_G (20x20 row-major).
 *
 * Derivatives (normalisation y = x/r): dy/dx = (I - y y^T)/r and, contracted
 * with a co-vector lam,  sum_k lam_k d2y_k/dx dx =
 *   -(lam y^T + y lam^T + (lam.y)(I - 3 y y^T)) / r^2          (crd_cr_hnorm)
 * (differentiate (delta_ki - y_k y_i)/r once more).  With
 *   phi(u_G) = f . u_L(u_G) = sum_k e_k . g_k,
 *   g_x = sum_i f_tx,i x_i + f_rx,i p_i, g_y likewise, g_z = sum_i f_tz,i x_i
 * (x_i = X_i - X_1,0 current), the second term of K_G is the Hessian of phi at
 * fixed f: d2 e_k/ds2 through the chain s -> (a,b) -> (e_x,e_y) -> e_z
 * (crd_cr_frame_hessian), the cross terms de_k/ds x dg_k/du_G, and
 * e_k . d2g_k/dn2 (the director second derivatives of eq 29). */
#ifndef CRDYN_CR_FRAME_H
#define CRDYN_CR_FRAME_H

#include "crdyn/crd_hd.h"
#include "crdyn/director.h"
#include "crdyn/shell_q4.h"

typedef struct crd_cr_frame {
  double e[3][3];          /* e_x, e_y, e_z (rows of R) */
  double a[3], b[3];       /* unit diagonals */
  double r13, r24, rx, ry; /* |v13|, |v24|, |a-b|, |a+b| */
  double J[3][18];         /* d e_k / d s, 3x6 row-major, s = (v13, v24) */
} crd_cr_frame;

/* P = (I - y y^T)/r (3x3). */
CRD_HD void crd_cr_proj(const double *y, double r, double *P)
{
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P[3 * i + j] = ((i == j ? 1.0 : 0.0) - y[i] * y[j]) / r;
}

/* H += sum_k lam_k d2y_k/dxdx for y = x/|x| (see header). 3x3 into a ld-strided block. */
CRD_HD void crd_cr_hnorm(const double *lam, const double *y, double r, double *H, int ld)
{
  double ly = crd_dot3(lam, y), c = -1.0 / (r * r);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      H[ld * i + j] += c * (lam[i] * y[j] + y[i] * lam[j] +
                            ly * ((i == j ? 1.0 : 0.0) - 3.0 * y[i] * y[j]));
}

/* The frame's axes, diagonals and norms from the nodal positions x (12);
 * F->J is left alone (the initial frame needs no derivatives). */
CRD_HD void crd_cr_frame_axes(const double *x, crd_cr_frame *F)
{
  double v13[3], v24[3];
  for (int c = 0; c < 3; ++c) {
    v13[c] = x[6 + c] - x[c];
    v24[c] = x[9 + c] - x[3 + c];
  }
  F->r13 = crd_norm3(v13);
  F->r24 = crd_norm3(v24);
  double qx[3], qy[3];
  for (int c = 0; c < 3; ++c) {
    F->a[c] = v13[c] / F->r13;
    F->b[c] = v24[c] / F->r24;
    qx[c] = F->a[c] - F->b[c];
    qy[c] = F->a[c] + F->b[c];
  }
  F->rx = crd_norm3(qx);
  F->ry = crd_norm3(qy);
  for (int c = 0; c < 3; ++c) {
    F->e[0][c] = qx[c] / F->rx;
    F->e[1][c] = qy[c] / F->ry;
  }
  crd_cross3(F->e[0], F->e[1], F->e[2]);
}

/* Frame of a quad from its current nodal positions x (12), with its
 * derivatives J. */
CRD_HD void crd_cr_frame_build(const double *x, crd_cr_frame *F)
{
  crd_cr_frame_axes(x, F);
  double Pa[9], Pb[9], Mx[9], My[9];
  crd_cr_proj(F->a, F->r13, Pa);
  crd_cr_proj(F->b, F->r24, Pb);
  crd_cr_proj(F->e[0], F->rx, Mx);
  crd_cr_proj(F->e[1], F->ry, My);
  /* J_x = [Mx Pa, -Mx Pb], J_y = [My Pa, My Pb] */
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double xa = 0, xb = 0, ya = 0, yb = 0;
      for (int c = 0; c < 3; ++c) {
        xa += Mx[3 * i + c] * Pa[3 * c + j];
        xb += Mx[3 * i + c] * Pb[3 * c + j];
        ya += My[3 * i + c] * Pa[3 * c + j];
        yb += My[3 * i + c] * Pb[3 * c + j];
      }
      F->J[0][6 * i + j] = xa;
      F->J[0][6 * i + 3 + j] = -xb;
      F->J[1][6 * i + j] = ya;
      F->J[1][6 * i + 3 + j] = yb;
    }
  /* d e_z = d e_x x e_y + e_x x d e_y */
  for (int col = 0; col < 6; ++col) {
    double dx[3], dy[3], c1[3], c2[3];
    for (int i = 0; i < 3; ++i) {
      dx[i] = F->J[0][6 * i + col];
      dy[i] = F->J[1][6 * i + col];
    }
    crd_cross3(dx, F->e[1], c1);
    crd_cross3(F->e[0], dy, c2);
    for (int i = 0; i < 3; ++i) F->J[2][6 * i + col] = c1[i] + c2[i];
  }
}

/* Hs (6x6 over s) += sum_k lam_k . d2 e_k / ds2. */
CRD_HD void crd_cr_frame_hessian(const crd_cr_frame *F, const double lam[3][3], double *Hs)
{
  double lx[3], ly[3], t[3];
  /* e_z = e_x x e_y: lam_z . (e_x x e_y) passes lam_z x ... to e_x and e_y */
  crd_cross3(F->e[1], lam[2], t);
  for (int c = 0; c < 3; ++c) lx[c] = lam[0][c] + t[c];
  crd_cross3(lam[2], F->e[0], t);
  for (int c = 0; c < 3; ++c) ly[c] = lam[1][c] + t[c];
  /* bilinear term: d2/de_x de_y of lam_z.(e_x x e_y) = B, B_ij = eps_ijk lam_z,k */
  double B[9] = {0.0, lam[2][2], -lam[2][1], -lam[2][2], 0.0, lam[2][0], lam[2][1], -lam[2][0], 0.0};
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) {
      double v = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          v += F->J[0][6 * i + r] * B[3 * i + j] * F->J[1][6 * j + c] +
               F->J[1][6 * i + r] * B[3 * j + i] * F->J[0][6 * j + c];
      Hs[6 * r + c] += v;
    }
  /* normalisations e_x = N(a-b), e_y = N(a+b), in (a, b) space */
  double Hx[9] = {0}, Hy[9] = {0};
  crd_cr_hnorm(lx, F->e[0], F->rx, Hx, 3);
  crd_cr_hnorm(ly, F->e[1], F->ry, Hy, 3);
  double Hab[36];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Hab[6 * i + j] = Hx[3 * i + j] + Hy[3 * i + j];
      Hab[6 * i + 3 + j] = -Hx[3 * i + j] + Hy[3 * i + j];
      Hab[6 * (i + 3) + j] = -Hx[3 * i + j] + Hy[3 * i + j];
      Hab[6 * (i + 3) + 3 + j] = Hx[3 * i + j] + Hy[3 * i + j];
    }
  double Pa[9], Pb[9], Mx[9], My[9];
  crd_cr_proj(F->a, F->r13, Pa);
  crd_cr_proj(F->b, F->r24, Pb);
  crd_cr_proj(F->e[0], F->rx, Mx);
  crd_cr_proj(F->e[1], F->ry, My);
  /* Hs += diag(Pa,Pb) Hab diag(Pa,Pb) (P symmetric) */
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) {
      const double *Pr = (r < 3) ? Pa : Pb, *Pc = (c < 3) ? Pa : Pb;
      int ri = r % 3, ci = c % 3, ro = (r < 3) ? 0 : 3, co = (c < 3) ? 0 : 3;
      double v = 0.0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) v += Pr[3 * i + ri] * Hab[6 * (ro + i) + co + j] * Pc[3 * j + ci];
      Hs[6 * r + c] += v;
    }
  /* a = N(v13), b = N(v24) with the co-vectors pulled back to a and b */
  double mua[3], mub[3];
  for (int i = 0; i < 3; ++i) {
    double mx = 0, my = 0;
    for (int c = 0; c < 3; ++c) {
      mx += Mx[3 * i + c] * lx[c];
      my += My[3 * i + c] * ly[c];
    }
    mua[i] = mx + my;
    mub[i] = -mx + my;
  }
  crd_cr_hnorm(mua, F->a, F->r13, Hs, 6);
  crd_cr_hnorm(mub, F->b, F->r24, Hs + 21, 6);
}

/* Node j's translation moves s by sign * d_j in block blk (v13 or v24). */
CRD_HD void crd_cr_sblock(int j, int *blk, double *sgn)
{
  *blk = (j == 0 || j == 2) ? 0 : 1;
  *sgn = (j < 2) ? -1.0 : 1.0;
}

/* dE[k][j] (3x3, [c][alpha]) = d e_k,c / d d_j,alpha. */
CRD_HD void crd_cr_dE(const crd_cr_frame *F, int k, int j, double *dE)
{
  int blk;
  double sg;
  crd_cr_sblock(j, &blk, &sg);
  for (int c = 0; c < 3; ++c)
    for (int al = 0; al < 3; ++al) dE[3 * c + al] = sg * F->J[k][6 * c + 3 * blk + al];
}

/* Local variables u_L (20: t_i, r_i,xy; eqs 8, 10) and the initial local
 * normals r0xy (8) from the element's initial and current state.
 * X0, d, p0, p: 12 each (node-major).  xl0 (12) out: initial local coords. */
CRD_HD void crd_q4_local_vars_init(const double *X0, const double *p0, double *x0, double *xl0, double *r0xy);
CRD_HD void crd_q4_local_vars_cur(const double *x0, const double *xl0, const double *d, const double *p,
                                  crd_cr_frame *F, double *ul);
CRD_HD void crd_q4_local_vars(const double *X0, const double *d, const double *p0,
                              const double *p, crd_cr_frame *F, double *xl0, double *ul,
                              double *r0xy)
{
  double x0[12];
  crd_q4_local_vars_init(X0, p0, x0, xl0, r0xy);
  crd_q4_local_vars_cur(x0, xl0, d, p, F, ul);
}

/* The initial-state half of crd_q4_local_vars: x0 (12, positions relative
 * to node 0), xl0 and r0xy; a step with several states computes it once. */
CRD_HD void crd_q4_local_vars_init(const double *X0, const double *p0, double *x0, double *xl0, double *r0xy)
{
  /* Positions relative to node 0's initial position, formed as
   * (X0_i - X0_0) + d_i: the rounding is then that of the element's size,
   * not of its distance from the origin (X0_i + d_i rounds to ulp(|X0|),
   * which put a floor of E h ulp(|X|) / size on the membrane forces of an
   * element far from the origin).  The frames are translation invariant. */
  crd_cr_frame F0;
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) x0[3 * i + c] = X0[3 * i + c] - X0[c];
  crd_cr_frame_axes(x0, &F0);
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) xl0[3 * i + k] = crd_dot3(F0.e[k], x0 + 3 * i);
    for (int k = 0; k < 2; ++k) r0xy[2 * i + k] = crd_dot3(F0.e[k], p0 + 3 * i);           /* eq 9 */
  }
}

/* The current-state half: frame F and u_L at (d, p). */
CRD_HD void crd_q4_local_vars_cur(const double *x0, const double *xl0, const double *d, const double *p,
                                  crd_cr_frame *F, double *ul)
{
  double x[12];
  for (int a = 0; a < 12; ++a) x[a] = x0[a] + d[a];
  crd_cr_frame_build(x, F);
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) ul[5 * i + k] = crd_dot3(F->e[k], x + 3 * i) - xl0[3 * i + k];   /* eq 8 */
    for (int k = 0; k < 2; ++k) ul[5 * i + 3 + k] = crd_dot3(F->e[k], p + 3 * i);                /* eq 10 */
  }
}

/* Rotation measure of a local normal.  The strains take the angle-like
 * phi(r) = r asin(s)/s (s = |r_xy|) instead of r_xy itself: with r_xy the
 * bending energy of an element bent by theta is that of 2 sin(theta/2)
 * instead of theta, which makes a strip rolled into a circle 2.5% too
 * flexible at 16 elements (Sze 3.2); with phi, pure bending is exact.
 * a = asin(s)/s, b = a'/s, c = b'/s (series below s = 0.1, where the closed
 * forms cancel):  dphi/dr = a I + b r r^T, and contracted with lam,
 * sum_a lam_a d2phi_a/dr dr = b (lam r^T + r lam^T + (lam.r) I) + c (lam.r) r r^T. */
CRD_HD void crd_q4_phi_coef(double s2, double *a, double *b, double *c)
{
  double s = sqrt(s2);
  *a = 1.0 + s2 * (1.0 / 6.0 + s2 * (3.0 / 40.0 + s2 * (5.0 / 112.0 + s2 * 35.0 / 1152.0)));
  *b = 1.0 / 3.0 + s2 * (3.0 / 10.0 + s2 * (15.0 / 56.0 + s2 * (35.0 / 144.0 + s2 * 63.0 / 256.0 * 10.0 / 11.0)));
  *c = 3.0 / 5.0 + s2 * (15.0 / 14.0 + s2 * (35.0 / 24.0 + s2 * (63.0 / 256.0 * 10.0 / 11.0 * 8.0 +
                                                                s2 * 231.0 / 1024.0 * 12.0 / 13.0 * 10.0)));
  /* the closed forms at s >= 0.1, chosen value by value (CRD_SEL_LT), so
   * that the lanes of a CPU batch need not agree on the branch (crd_hd.h) */
  if (CRD_ANY_GE(s, 0.1)) {
    double as = asin(s), w = sqrt(1.0 - s2);
    double ca = as / s, cb = (s / w - as) / (s2 * s);
    double cc = (1.0 / (w * w * w) - 3.0 * cb) / s2;
    *a = CRD_SEL_LT(s, 0.1, *a, ca);
    *b = CRD_SEL_LT(s, 0.1, *b, cb);
    *c = CRD_SEL_LT(s, 0.1, *c, cc);
  }
}

/* phi(r0_i) (8) of the initial local normals: the part of q's rotation
 * entries that the state does not change (a cache may hold it). */
CRD_HD void crd_q4_rot_ph0(const double *r0xy, double *ph0)
{
  for (int i = 0; i < 4; ++i) {
    const double *r0 = r0xy + 2 * i;
    double a0, b0, c0;
    crd_q4_phi_coef(r0[0] * r0[0] + r0[1] * r0[1], &a0, &b0, &c0);
    ph0[2 * i] = a0 * r0[0];
    ph0[2 * i + 1] = a0 * r0[1];
  }
}

/* q (strain variables: t_i, phi(r_i) - phi(r0_i)) from u_L and ph0
 * (crd_q4_rot_ph0); J[4*i..] the 2x2 blocks dphi/dr and (a, b, c) per node
 * for the second derivatives. */
CRD_HD void crd_q4_rot_map_ph0(const double *ul, const double *ph0, double *q, double *J, double *abc)
{
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) q[5 * i + k] = ul[5 * i + k];
    const double *r = ul + 5 * i + 3;
    double a, b, c;
    crd_q4_phi_coef(r[0] * r[0] + r[1] * r[1], &a, &b, &c);
    q[5 * i + 3] = a * r[0] - ph0[2 * i];
    q[5 * i + 4] = a * r[1] - ph0[2 * i + 1];
    J[4 * i + 0] = a + b * r[0] * r[0];
    J[4 * i + 1] = b * r[0] * r[1];
    J[4 * i + 2] = b * r[1] * r[0];
    J[4 * i + 3] = a + b * r[1] * r[1];
    abc[3 * i] = a; abc[3 * i + 1] = b; abc[3 * i + 2] = c;
  }
}

/* The same from the initial local normals r0xy (8). */
CRD_HD void crd_q4_rot_map(const double *ul, const double *r0xy, double *q, double *J, double *abc)
{
  double ph0[8];
  crd_q4_rot_ph0(r0xy, ph0);
  crd_q4_rot_map_ph0(ul, ph0, q, J, abc);
}

/* f and k with respect to q -> with respect to u_L (in place). */
CRD_HD void crd_q4_rot_pullback(const double *ul, const double *J, const double *abc, double *f, double *k)
{
  double fphi[8];
  for (int i = 0; i < 4; ++i) {
    int a0 = 5 * i + 3;
    fphi[2 * i] = f[a0];
    fphi[2 * i + 1] = f[a0 + 1];
    f[a0] = J[4 * i] * fphi[2 * i] + J[4 * i + 2] * fphi[2 * i + 1];
    f[a0 + 1] = J[4 * i + 1] * fphi[2 * i] + J[4 * i + 3] * fphi[2 * i + 1];
  }
  if (!k) return;
  /* k <- P^T k P with P = diag(I3, J_i): right then left multiplication */
  for (int r = 0; r < 20; ++r)
    for (int i = 0; i < 4; ++i) {
      int a0 = 5 * i + 3;
      double x0 = k[20 * r + a0], x1 = k[20 * r + a0 + 1];
      k[20 * r + a0] = x0 * J[4 * i] + x1 * J[4 * i + 2];
      k[20 * r + a0 + 1] = x0 * J[4 * i + 1] + x1 * J[4 * i + 3];
    }
  for (int cix = 0; cix < 20; ++cix)
    for (int i = 0; i < 4; ++i) {
      int a0 = 5 * i + 3;
      double x0 = k[20 * a0 + cix], x1 = k[20 * (a0 + 1) + cix];
      k[20 * a0 + cix] = J[4 * i] * x0 + J[4 * i + 2] * x1;
      k[20 * (a0 + 1) + cix] = J[4 * i + 1] * x0 + J[4 * i + 3] * x1;
    }
  for (int i = 0; i < 4; ++i) {
    const double *r = ul + 5 * i + 3, *lam = fphi + 2 * i;
    double b = abc[3 * i + 1], c = abc[3 * i + 2], lr = lam[0] * r[0] + lam[1] * r[1];
    int a0 = 5 * i + 3;
    for (int be = 0; be < 2; ++be)
      for (int ga = 0; ga < 2; ++ga)
        k[20 * (a0 + be) + a0 + ga] += b * (lam[be] * r[ga] + lam[ga] * r[be] + (be == ga ? lr : 0.0)) +
                                      c * lr * r[be] * r[ga];
  }
}

/* T = du_L/du_G (20x20) at the current state; l[i]: dependent component of
 * node i.  The director columns are R A1_i; crd_q4_transform_basis takes
 * the 3x2 bases B_i (24, node-major, row-major 3x2) in place of A1_i: the
 * implicit step uses a basis orthogonal to the mean normal (shell_dyn.h). */
CRD_HD void crd_q4_transform_basis(const crd_cr_frame *F, const double *X0, const double *d,
                                   const double *p, const int *l, const double *Bs, double *T);
CRD_HD void crd_q4_transform(const crd_cr_frame *F, const double *X0, const double *d,
                             const double *p, const int *l, double *T)
{
  crd_q4_transform_basis(F, X0, d, p, l, 0, T);
}
CRD_HD void crd_q4_transform_basis(const crd_cr_frame *F, const double *X0, const double *d,
                                   const double *p, const int *l, const double *Bs, double *T)
{
  double xs[12];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) xs[3 * i + c] = X0[3 * i + c] + d[3 * i + c] - X0[c];
  for (int a = 0; a < 400; ++a) T[a] = 0.0;
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 3; ++k) {
      double dE[9];
      crd_cr_dE(F, k, j, dE);
      for (int i = 0; i < 4; ++i) {
        const double *xi = xs + 3 * i;
        for (int al = 0; al < 3; ++al) {
          double v = (i == j) ? F->e[k][al] : 0.0, w = 0.0;
          for (int c = 0; c < 3; ++c) {
            v += xi[c] * dE[3 * c + al];
            w += p[3 * i + c] * dE[3 * c + al];
          }
          T[20 * (5 * i + k) + 5 * j + al] = v;
          if (k < 2) T[20 * (5 * i + 3 + k) + 5 * j + al] = w;
        }
      }
    }
  for (int i = 0; i < 4; ++i) {
    double A1[6];
    if (Bs) for (int c = 0; c < 6; ++c) A1[c] = Bs[6 * i + c];
    else crd_dir_A1(p + 3 * i, l[i], A1);
    for (int k = 0; k < 2; ++k)
      for (int be = 0; be < 2; ++be)
        T[20 * (5 * i + 3 + k) + 5 * i + 3 + be] =
            F->e[k][0] * A1[be] + F->e[k][1] * A1[2 + be] + F->e[k][2] * A1[4 + be];
  }
}

/* H += sum_a f_a d2 u_L,a / du_G2 (20x20, symmetric).  With bases Bs (see
 * crd_q4_transform_basis) the director cross terms use them and the chart
 * curvature term (d2p/dn2) is left out. */
CRD_HD void crd_q4_transform_hessian(const crd_cr_frame *F, const double *X0, const double *d,
                                     const double *p, const int *l, const double *Bs, const double *f,
                                     double *H)
{
  double xs[12];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) xs[3 * i + c] = X0[3 * i + c] + d[3 * i + c] - X0[c];
  double lam[3][3];
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 3; ++c) {
      double v = 0.0;
      for (int i = 0; i < 4; ++i) {
        v += f[5 * i + k] * xs[3 * i + c];
        if (k < 2) v += f[5 * i + 3 + k] * p[3 * i + c];
      }
      lam[k][c] = v;
    }
  double Hs[36];
  for (int a = 0; a < 36; ++a) Hs[a] = 0.0;
  crd_cr_frame_hessian(F, lam, Hs);
  for (int j = 0; j < 4; ++j) {
    int bj, bl;
    double sj, sl;
    crd_cr_sblock(j, &bj, &sj);
    for (int m = 0; m < 4; ++m) {
      crd_cr_sblock(m, &bl, &sl);
      for (int al = 0; al < 3; ++al)
        for (int be = 0; be < 3; ++be)
          H[20 * (5 * j + al) + 5 * m + be] += sj * sl * Hs[6 * (3 * bj + al) + 3 * bl + be];
    }
  }
  /* cross terms de_k/dd_j . dg_k/du_G and their transposes */
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 3; ++k) {
      double dE[9];
      crd_cr_dE(F, k, j, dE);
      for (int i = 0; i < 4; ++i) {
        double ft = f[5 * i + k];
        for (int al = 0; al < 3; ++al)
          for (int be = 0; be < 3; ++be) {
            double v = ft * dE[3 * be + al];
            H[20 * (5 * j + al) + 5 * i + be] += v;
            H[20 * (5 * i + be) + 5 * j + al] += v;
          }
        if (k == 2) continue;
        double fr = f[5 * i + 3 + k], A1[6];
        if (Bs) for (int c = 0; c < 6; ++c) A1[c] = Bs[6 * i + c];
        else crd_dir_A1(p + 3 * i, l[i], A1);
        for (int al = 0; al < 3; ++al)
          for (int be = 0; be < 2; ++be) {
            double v = 0.0;
            for (int c = 0; c < 3; ++c) v += dE[3 * c + al] * A1[2 * c + be];
            v *= fr;
            H[20 * (5 * j + al) + 5 * i + 3 + be] += v;
            H[20 * (5 * i + 3 + be) + 5 * j + al] += v;
          }
      }
    }
  /* director curvature: e_k . d2 p_i / dn2 (only component l is curved) */
  for (int i = 0; i < 4 && !Bs; ++i) {
    double Hp[3];
    crd_dir_H(p + 3 * i, l[i], Hp);
    double c = f[5 * i + 3] * F->e[0][l[i]] + f[5 * i + 4] * F->e[1][l[i]];
    int r = 5 * i + 3;
    H[20 * r + r] += c * Hp[0];
    H[20 * r + r + 1] += c * Hp[1];
    H[20 * (r + 1) + r] += c * Hp[1];
    H[20 * (r + 1) + r + 1] += c * Hp[2];
  }
}

/* fG = T^T f without forming T: with lam_k = sum_i f_tk,i x_i + f_rk,i p_i
 * (the co-vectors of crd_q4_transform_hessian),
 *   fG_tj = sum_k f_tk,j e_k + (d e_k/d d_j)^T lam_k,
 *   fG_rj = sum_k f_rk,j B_j^T e_k        (B_j = A1_j, or the given bases),
 * about 400 flops against 2,600 for T and T^T f. */
CRD_HD void crd_q4_fG_direct(const crd_cr_frame *F, const double *X0, const double *d, const double *p,
                             const int *l, const double *Bs, const double *f, double *fG)
{
  double lam[3][3];
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 3; ++c) {
      double v = 0.0;
      for (int i = 0; i < 4; ++i) {
        v += f[5 * i + k] * (X0[3 * i + c] + d[3 * i + c] - X0[c]);
        if (k < 2) v += f[5 * i + 3 + k] * p[3 * i + c];
      }
      lam[k][c] = v;
    }
  for (int j = 0; j < 4; ++j) {
    int blk;
    double sg;
    crd_cr_sblock(j, &blk, &sg);
    for (int al = 0; al < 3; ++al) {
      double v = 0.0, w = 0.0;
      for (int k = 0; k < 3; ++k) {
        v += f[5 * j + k] * F->e[k][al];
        for (int c = 0; c < 3; ++c) w += lam[k][c] * F->J[k][6 * c + 3 * blk + al];
      }
      fG[5 * j + al] = v + sg * w;
    }
    double A1[6];
    if (Bs) for (int c = 0; c < 6; ++c) A1[c] = Bs[6 * j + c];
    else crd_dir_A1(p + 3 * j, l[j], A1);
    for (int be = 0; be < 2; ++be) {
      double v = 0.0;
      for (int k = 0; k < 2; ++k)
        v += f[5 * j + 3 + k] * (F->e[k][0] * A1[be] + F->e[k][1] * A1[2 + be] + F->e[k][2] * A1[4 + be]);
      fG[5 * j + 3 + be] = v;
    }
  }
}

/* Whether entry (c, b) of T (crd_q4_transform_basis, and T with its
 * rotation rows through crd_q4_phi_rows) can be non-zero: a translation
 * column (b mod 5 < 3: the frame moves with every node's translations) in
 * every row, a rotation column 5 j + 3, 5 j + 4 only in node j's rotation
 * rows.  256 of the 400 entries.  The products with T skip the others: a
 * skipped term is an exact zero (k c times +0), and adding +-0 to a sum
 * started at +0 never changes it (round to nearest gives x + -x = +0, so
 * the sum is never -0): the same bits as the full sums of the dot-product
 * form (crd_q4_prod_entry) for finite values, in 64 % of the work. */
CRD_HD int crd_q4_T_nz(int c, int b) { return b % 5 < 3 || (c / 5 == b / 5 && c % 5 >= 3); }

/* r[b] += x T_c[b] over the b where row c of T can be non-zero
 * (crd_q4_T_nz): the translation columns, then node c/5's rotation
 * columns when c is a rotation row. */
CRD_HD void crd_q4_T_row_axpy(double *r, double x, const double *Tc, int c)
{
  for (int j = 0; j < 4; ++j)
    for (int t = 0; t < 3; ++t) r[5 * j + t] += x * Tc[5 * j + t];
  if (c % 5 >= 3) {
    int b = c - c % 5 + 3;
    r[b] += x * Tc[b];
    r[b + 1] += x * Tc[b + 1];
  }
}

/* fG = T^T f and the upper triangle of KG = T^T k T for a given T (and a
 * few entries below it, see below).  The
 * products run as row updates (axpy over the contiguous index b, the sum
 * over c outermost in increasing order): each entry is summed in the same
 * order as the dot-product form, so the result is the same to the bit, and
 * the inner loops are fixed-length contiguous loops that vectorize. */
CRD_HD void crd_q4_TtkT(const double *T, const double *f, const double *k, double *fG, double *KG)
{
  if (fG) {
    for (int b = 0; b < 20; ++b) fG[b] = 0.0;
    for (int a = 0; a < 20; ++a) {
      double fa = f[a];
      const double *Ta = T + 20 * a;
      for (int b = 0; b < 20; ++b) fG[b] += Ta[b] * fa;
    }
  }
  if (!KG) return;
  double kT[400]; /* k T */
  /* c outermost: consecutive updates go to different rows, so they do not
   * wait on each other (a row-by-row order chains 20 dependent adds) */
  for (int a = 0; a < 400; ++a) kT[a] = 0.0;
  for (int c = 0; c < 20; ++c) {
    const double *Tc = T + 20 * c;
    for (int a = 0; a < 20; ++a) {
      double kac = k[20 * a + c];
      double *r = kT + 20 * a;
      crd_q4_T_row_axpy(r, kac, Tc, c);
    }
  }
  /* the upper triangle in rows of whole groups of 4 (b from 4 floor(a/4)):
   * lengths 20, 16, .., 4 fill vector registers without scalar tails, at
   * the price of 6 entries below the diagonal per group of 4 rows */
  /* Each group of 4 entries summed in registers over c in increasing
   * order from zero: the same sums in the same order as row updates of KG
   * in memory (c outermost), without KG's loads and stores per update. */
  for (int a = 0; a < 20; ++a) {
    double *Ka = KG + 20 * a;
    for (int b = 0; b < (a & ~3); ++b) Ka[b] = 0.0;
    for (int b0 = a & ~3; b0 < 20; b0 += 4) {
      double acc[4];
      for (int b = 0; b < 4; ++b) acc[b] = 0.0;
      for (int c = 0; c < 20; ++c) {
        if (!crd_q4_T_nz(c, a)) continue;
        const double t = T[20 * c + a], *kc = kT + 20 * c + b0;
        for (int b = 0; b < 4; ++b) acc[b] += t * kc[b];
      }
      for (int b = 0; b < 4; ++b) Ka[b0 + b] = acc[b];
    }
  }
}

/* K_G from the upper triangle of T^T k T in KG (the rest is overwritten):
 * the lower triangle mirrored, the second-derivative term of the
 * transformation added, and the result made exactly symmetric. */
CRD_HD void crd_q4_KG_finish(const crd_cr_frame *F, const double *X0, const double *d, const double *p,
                             const int *l, const double *Bs, const double *f, double *KG)
{
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < a; ++b) KG[20 * a + b] = KG[20 * b + a];
  crd_q4_transform_hessian(F, X0, d, p, l, Bs, f, KG);
  for (int a = 0; a < 20; ++a) /* exact symmetry against summation order */
    for (int b = a + 1; b < 20; ++b) KG[20 * a + b] = KG[20 * b + a] = 0.5 * (KG[20 * a + b] + KG[20 * b + a]);
}

/* One entry of a product of two 20x20 matrices, x a row (or column) of
 * the left and y a column of the right: the sum over c in increasing
 * order from zero, as the row updates of crd_q4_TtkT and
 * crd_q4_mid_skew_T form it (the split kernels' form, on private copies). */
CRD_HD double crd_q4_prod_entry(const double *x, const double *y)
{
  double v = 0.0;
  for (int c = 0; c < 20; ++c) v += x[c] * y[c];
  return v;
}

/* crd_q4_to_global with T = crd_q4_transform_basis(F, X0, d, p, l, Bs) given. */
CRD_HD void crd_q4_to_global_T(const crd_cr_frame *F, const double *X0, const double *d, const double *p,
                               const int *l, const double *Bs, const double *T, const double *f,
                               const double *k, double *fG, double *KG)
{
  if (fG) crd_q4_fG_direct(F, X0, d, p, l, Bs, f, fG);
  if (!KG) return;
  crd_q4_TtkT(T, f, k, 0, KG);
  crd_q4_KG_finish(F, X0, d, p, l, Bs, f, KG);
}

/* f_G = T^T f and K_G = T^T k T + sum f_a d2u_L,a/du_G2 at the state (d, p)
 * whose frame is F; f, k are with respect to u_L (k may be NULL when KG is). */
CRD_HD void crd_q4_to_global(const crd_cr_frame *F, const double *X0, const double *d, const double *p,
                             const int *l, const double *Bs, const double *f, const double *k, double *fG,
                             double *KG)
{
  double T[400];
  if (!KG) { /* the force alone needs no T */
    if (fG) crd_q4_fG_direct(F, X0, d, p, l, Bs, f, fG);
    return;
  }
  crd_q4_transform_basis(F, X0, d, p, l, Bs, T);
  crd_q4_to_global_T(F, X0, d, p, l, Bs, T, f, k, fG, KG);
}

/* The element in global variables: strain energy (returned), f_G = T^T f and
 * K_G = T^T k T + sum f_a d2u_L,a/du_G2.  fG or KG may be NULL.  *min_det: the
 * smallest Gauss-point det J of the initial geometry (<= 0: bad element). */
CRD_HD double crd_q4_global(const double *X0, const double *p0, const double *d, const double *p,
                            const int *l, const crd_q4_mat *mt, double *fG, double *KG,
                            double *min_det)
{
  crd_cr_frame F;
  double xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12], f[20], k[400];
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
  crd_q4_rot_map(ul, r0xy, q, J, abc);
  double U = crd_q4_local(xl0, q, mt, f, KG ? k : 0, min_det);
  crd_q4_rot_pullback(ul, J, abc, f, KG ? k : 0);
  if (fG || KG) crd_q4_to_global(&F, X0, d, p, l, 0, f, k, fG, KG);
  return U;
}

#endif
