/* crdyn: intersection nodes of folded and branched shells (docs/element.md,
 * "Intersection nodes").  Element level; the problem uses it through
 * triads.h, the implicit step through fold_dyn.h.
 *
 * TRIAD.  An intersection node carries an orthonormal right-handed triad,
 * stored as E[3 a + c] = component c of axis a (a = 0, 1, 2: e_x, e_y, e_z).
 * Each element at the node sees the normal of its own patch rotated with
 * the triad (eq 11, docs/theory.md §1; R_0 the initial triad):
 *   r = R R_0^T p0 = sum_a c_a e_a,   c = R_0^T p0 (fixed: c_a = e_a0 . p0).
 *
 * CHART.  The three global rotational variables are
 *   theta = (y_n, y_m, z_k):
 * two components of e_y (the pair of director.h: l is the dependent one,
 * n < m the other two, y_l = s_y sqrt(1 - y_n^2 - y_m^2)) and component k
 * of e_z.  With (k, i, j) cyclic, e_z . e_y = 0 and e_x,k = (e_y x e_z)_k
 * give the linear system
 *   y_i z_i + y_j z_j = -y_k z_k,   -y_j z_i + y_i z_j = x_k
 * of determinant rho^2 = y_i^2 + y_j^2 = 1 - y_k^2, and row k of the
 * orthogonal matrix [e_x e_y e_z] is a unit vector, so
 *   x_k = s_x sqrt(1 - y_k^2 - z_k^2).
 * Then e_x = e_y x e_z.  |e_z| = 1 follows (docs/element.md).  A chart is
 * (l, k, s_y, s_x): nine index choices, each with the signs of y_l and x_k
 * at the triad.
 *
 * RATES.  With e_a' = omega x e_a, theta' = M omega with the rows
 *   m_0 = e_y x u_n,  m_1 = e_y x u_m,  m_2 = e_z x u_k   (u_c: unit vectors)
 * (y_n' = u_n . (omega x e_y) = omega . (e_y x u_n)).  det M = +-y_l x_k:
 * m_0 x m_1 = e_y (e_y . (u_n x u_m)) = +-y_l e_y and m_2 . e_y =
 * u_k . (e_y x e_z) = x_k.  The chart is regular where y_l x_k != 0, and
 * |y_l x_k| <= 1 measures its distance from singular.  It is largest for
 * l = the largest |e_y| component and k = the largest |e_x| component (at
 * least 1/3 there): crd_triad_choose.  W = M^-1 (columns w_a, the angular
 * velocity per unit rate of theta_a).
 *
 * DERIVATIVES of r (rotated with the triad: r' = omega x r):
 *   A1 = dr/dtheta:  column a = w_a x r,
 *   d2r/dth_a dth_b = (d_b w_a) x r + w_a x (w_b x r),
 *   d_b w_a = -sum_c w_c (d_b m_c . w_a)            (dW = -W dM W),
 *   d_b m_0 = (w_b x e_y) x u_n, likewise m_1; d_b m_2 = (w_b x e_z) x u_k.
 * Contracted with a force f (the term of K_G): with g = r x f,
 *   f . d2r/dth_a dth_b = -sum_c (w_c . g) (d_b m_c . w_a)
 *                         + (f . w_b)(w_a . r) - (f . r)(w_a . w_b). */
#ifndef CRDYN_FOLD_NODE_H
#define CRDYN_FOLD_NODE_H

#include "crdyn/crd_hd.h"
#include "crdyn/director.h"
#include "crdyn/cr_frame.h"
#include "crdyn/shell_mass.h"

typedef struct crd_triad_chart {
  int l, k;       /* l: dependent component of e_y; k: independent component of e_z */
  double sy, sx;  /* the signs of y_l and x_k (the roots taken) */
} crd_triad_chart;

/* The chart (l, k) with the signs of the triad E. */
CRD_HD crd_triad_chart crd_triad_chart_at(const double *E, int l, int k)
{
  crd_triad_chart ch;
  ch.l = l;
  ch.k = k;
  ch.sy = E[3 + l] < 0.0 ? -1.0 : 1.0;
  ch.sx = E[k] < 0.0 ? -1.0 : 1.0;
  return ch;
}

/* |det M| = |y_l x_k| of chart (l, k) at E: 0 singular, 1 best possible. */
CRD_HD double crd_triad_measure(const double *E, int l, int k) { return fabs(E[3 + l] * E[k]); }

/* The best-conditioned chart: largest |y_l| and largest |x_k| (measure >= 1/3). */
CRD_HD crd_triad_chart crd_triad_choose(const double *E)
{
  return crd_triad_chart_at(E, crd_dir_choose(E + 3), crd_dir_choose(E));
}

/* theta = (y_n, y_m, z_k) read from E. */
CRD_HD void crd_triad_theta(const double *E, crd_triad_chart ch, double *th)
{
  int n, m;
  crd_dir_pair(ch.l, &n, &m);
  th[0] = E[3 + n];
  th[1] = E[3 + m];
  th[2] = E[6 + ch.k];
}

/* E from theta in chart ch (see the header).  Returns |y_l x_k|, the
 * chart's measure at the result; 0 where theta has left the chart
 * (1 - y_n^2 - y_m^2 <= 0 or 1 - y_k^2 - z_k^2 <= 0: E is then finite but
 * not a rotation). */
CRD_HD double crd_triad_from_theta(const double *th, crd_triad_chart ch, double *E)
{
  double *x = E, *y = E + 3, *z = E + 6;
  double qy = crd_dir_from_pair(th[0], th[1], ch.l, ch.sy, y);
  int k = ch.k, i = (k + 1) % 3, j = (k + 2) % 3;
  double zk = th[2], qx = 1.0 - y[k] * y[k] - zk * zk;
  double xk = (qx > 0.0 ? sqrt(qx) : 0.0) * ch.sx;
  double rho2 = y[i] * y[i] + y[j] * y[j];
  if (!(rho2 > 0.0)) rho2 = 1.0; /* y = +-u_k: then qx <= 0, outside the chart */
  z[k] = zk;
  z[i] = (-y[k] * zk * y[i] - y[j] * xk) / rho2;
  z[j] = (-y[k] * zk * y[j] + y[i] * xk) / rho2;
  crd_cross3(y, z, x);
  return (qy > 0.0 && qx > 0.0) ? fabs(y[ch.l] * xk) : 0.0;
}

/* M (row-major, theta' = M omega) and its rows' derivative along omega:
 * dM[c] = ((om x e) x u) . v for the axis e and unit vector u of row c. */
CRD_HD void crd_triad_rows(const double *E, crd_triad_chart ch, double *M)
{
  int n, m;
  crd_dir_pair(ch.l, &n, &m);
  int idx[3] = {n, m, ch.k};
  for (int c = 0; c < 3; ++c) {
    double u[3] = {0.0, 0.0, 0.0};
    u[idx[c]] = 1.0;
    crd_cross3(c < 2 ? E + 3 : E + 6, u, M + 3 * c);
  }
}

/* (d M / d om) . v along the rotation om: row c is ((om x e) x u) . v. */
CRD_HD void crd_triad_dM(const double *E, crd_triad_chart ch, const double *om, const double *v, double *out)
{
  int n, m;
  crd_dir_pair(ch.l, &n, &m);
  int idx[3] = {n, m, ch.k};
  for (int c = 0; c < 3; ++c) {
    double oe[3], u[3] = {0.0, 0.0, 0.0}, t[3];
    u[idx[c]] = 1.0;
    crd_cross3(om, c < 2 ? E + 3 : E + 6, oe);
    crd_cross3(oe, u, t);
    out[c] = crd_dot3(t, v);
  }
}

/* W = M^-1 as its columns: w + 3 a = w_a (w_a = (m_b x m_c) / det M,
 * (a, b, c) cyclic).  Returns det M. */
CRD_HD double crd_triad_W(const double *E, crd_triad_chart ch, double *w)
{
  double M[9];
  crd_triad_rows(E, ch, M);
  for (int a = 0; a < 3; ++a) crd_cross3(M + 3 * ((a + 1) % 3), M + 3 * ((a + 2) % 3), w + 3 * a);
  double det = crd_dot3(M, w);
  for (int a = 0; a < 9; ++a) w[a] /= det;
  return det;
}

/* A1 = dr/dtheta (3x3 row-major, A1[3 row + a]) of r rotated with the triad. */
CRD_HD void crd_triad_A1(const double *E, crd_triad_chart ch, const double *r, double *A1)
{
  double w[9];
  crd_triad_W(E, ch, w);
  for (int a = 0; a < 3; ++a) {
    double t[3];
    crd_cross3(w + 3 * a, r, t);
    for (int c = 0; c < 3; ++c) A1[3 * c + a] = t[c];
  }
}

/* H[3 a + b] = f . d2r/dth_a dth_b as the formula of the header gives it,
 * term by term (symmetric in exact arithmetic, to round-off here). */
CRD_HD void crd_triad_hess_raw(const double *E, crd_triad_chart ch, const double *r, const double *f, double *H)
{
  double w[9], g[3], lam[3];
  crd_triad_W(E, ch, w);
  crd_cross3(r, f, g);
  for (int c = 0; c < 3; ++c) lam[c] = crd_dot3(w + 3 * c, g);
  double fr = crd_dot3(f, r);
  for (int b = 0; b < 3; ++b) {
    double dm[3]; /* (d_b m_c) . w_a, c = 0..2, for each a below */
    for (int a = 0; a < 3; ++a) {
      crd_triad_dM(E, ch, w + 3 * b, w + 3 * a, dm);
      H[3 * a + b] = -(lam[0] * dm[0] + lam[1] * dm[1] + lam[2] * dm[2]) +
                     crd_dot3(f, w + 3 * b) * crd_dot3(w + 3 * a, r) - fr * crd_dot3(w + 3 * a, w + 3 * b);
    }
  }
}

/* The same made exactly symmetric (the mean of H and H^T). */
CRD_HD void crd_triad_hess(const double *E, crd_triad_chart ch, const double *r, const double *f, double *H)
{
  crd_triad_hess_raw(E, ch, r, f, H);
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b) H[3 * a + b] = H[3 * b + a] = 0.5 * (H[3 * a + b] + H[3 * b + a]);
}

/* The angular velocity and acceleration from the rates of theta:
 *   om = W th',   om' = W (th'' - dM(om) om)
 * (th'' = M om' + M' om, M' om = crd_triad_dM(om, om)). */
CRD_HD void crd_triad_omega(const double *E, crd_triad_chart ch, const double *thd, const double *thdd,
                            double *om, double *omd)
{
  double w[9], dm[3], t[3];
  crd_triad_W(E, ch, w);
  for (int c = 0; c < 3; ++c) om[c] = w[c] * thd[0] + w[3 + c] * thd[1] + w[6 + c] * thd[2];
  if (!thdd) return;
  crd_triad_dM(E, ch, om, om, dm);
  for (int a = 0; a < 3; ++a) t[a] = thdd[a] - dm[a];
  for (int c = 0; c < 3; ++c) omd[c] = w[c] * t[0] + w[3 + c] * t[1] + w[6 + c] * t[2];
}

/* The rates of theta from om, om': th' = M om, th'' = M om' + M' om. */
CRD_HD void crd_triad_rates(const double *E, crd_triad_chart ch, const double *om, const double *omd,
                            double *thd, double *thdd)
{
  double M[9], dm[3];
  crd_triad_rows(E, ch, M);
  for (int c = 0; c < 3; ++c) thd[c] = crd_dot3(M + 3 * c, om);
  if (!thdd) return;
  crd_triad_dM(E, ch, om, om, dm);
  for (int c = 0; c < 3; ++c) thdd[c] = crd_dot3(M + 3 * c, omd) + dm[c];
}

/* A switch of chart at the triad E: the new chart's values (read from E)
 * and rates from the old chart's rates, through the chart-free om, om'
 * (the same motion, so no jump: docs/element.md).  thdd may be NULL. */
CRD_HD void crd_triad_switch(const double *E, crd_triad_chart from, crd_triad_chart to, const double *thd,
                             const double *thdd, double *th_to, double *thd_to, double *thdd_to)
{
  double om[3], omd[3];
  crd_triad_theta(E, to, th_to);
  crd_triad_omega(E, from, thd, thdd, om, omd);
  crd_triad_rates(E, to, om, thdd ? omd : 0, thd_to, thdd ? thdd_to : 0);
}

/* A2 = d2r/dth2 : th' (x) th' (eq 34): r'' = A1 th'' + A2, and with
 * r'' = om' x r + om x (om x r), om' = W th'' - W dM(om) om,
 *   A2 = -(W dM(om) om) x r + om x (om x r). */
CRD_HD void crd_triad_A2(const double *E, crd_triad_chart ch, const double *r, const double *thd, double *A2)
{
  double om[3], zero[3] = {0.0, 0.0, 0.0}, al[3], t[3], u[3];
  crd_triad_omega(E, ch, thd, zero, om, al); /* al = -W dM(om) om */
  crd_cross3(al, r, A2);
  crd_cross3(om, r, t);
  crd_cross3(om, t, u);
  for (int c = 0; c < 3; ++c) A2[c] += u[c];
}

/* ---- the element with smooth and intersection nodes ----
 *
 * Per node, the element sees a normal p: at a smooth node the node's own
 * normal (pair chart l, director.h); at an intersection node its patch's
 * normal r = sum_a c_a e_a.  The element's energy depends on (d_i, p_i)
 * (eqs 8, 10; u_L is linear in p), so its force and tangent are formed in
 * p-space first (crd_fold_pspace: 6 variables a node, p_i unconstrained)
 * and then reduced node by node with G_i = dp_i/dtheta_i (3x2 A1 of
 * director.h or 3x3 crd_triad_A1):
 *   f_i = (f_d,i, G_i^T f_p,i),
 *   K = P^T K6 P + diag_i(f_p,i . d2p_i/dtheta_i^2),   P = diag(I3, G_i).
 * Global element variables: node-major, d_i (3) then theta_i (2 or 3),
 * n = 20 + (number of intersection nodes). */
typedef struct crd_fold_node {
  int tri;             /* 0 smooth (p, l), 1 intersection (E, ch, c) */
  int l;               /* smooth: the pair's dependent component */
  crd_triad_chart ch;  /* intersection: the chart */
  double E[9], c[3];   /* intersection: the triad and c = R_0^T p0 */
  double p[3];         /* the normal the element sees */
} crd_fold_node;

CRD_HD void crd_fold_node_smooth(crd_fold_node *nd, const double *p, int l)
{
  nd->tri = 0;
  nd->l = l;
  for (int c = 0; c < 3; ++c) nd->p[c] = p[c];
}

/* r = sum_a c_a e_a. */
CRD_HD void crd_fold_node_triad(crd_fold_node *nd, const double *E, crd_triad_chart ch, const double *c)
{
  nd->tri = 1;
  nd->ch = ch;
  for (int a = 0; a < 9; ++a) nd->E[a] = E[a];
  for (int a = 0; a < 3; ++a) nd->c[a] = c[a];
  for (int s = 0; s < 3; ++s) nd->p[s] = c[0] * E[s] + c[1] * E[3 + s] + c[2] * E[6 + s];
}

CRD_HD int crd_fold_node_nr(const crd_fold_node *nd) { return nd->tri ? 3 : 2; }

/* G = dp/dtheta, 3 x nr at row stride 3. */
CRD_HD void crd_fold_node_G(const crd_fold_node *nd, double *G)
{
  if (nd->tri) {
    crd_triad_A1(nd->E, nd->ch, nd->p, G);
    return;
  }
  double A1[6];
  crd_dir_A1(nd->p, nd->l, A1);
  for (int c = 0; c < 3; ++c) {
    G[3 * c] = A1[2 * c];
    G[3 * c + 1] = A1[2 * c + 1];
    G[3 * c + 2] = 0.0;
  }
}

/* H = lam . d2p/dtheta^2 (nr x nr at stride 3, symmetric). */
CRD_HD void crd_fold_node_hess(const crd_fold_node *nd, const double *lam, double *H)
{
  if (nd->tri) {
    crd_triad_hess(nd->E, nd->ch, nd->p, lam, H);
    return;
  }
  double h[3];
  crd_dir_H(nd->p, nd->l, h);
  for (int a = 0; a < 9; ++a) H[a] = 0.0;
  H[0] = lam[nd->l] * h[0];
  H[1] = H[3] = lam[nd->l] * h[1];
  H[4] = lam[nd->l] * h[2];
}

/* The p-space force f6 (24) and tangent K6 (24x24, or NULL) of the local
 * force f and tangent k (with respect to u_L, after crd_q4_rot_pullback)
 * at the frame F of the state (d, p): f6 = T6^T f, K6 = T6^T k T6 + the
 * transformation's second derivatives (translation block and the cross
 * term d e_k/d d_j).  Shared by the static element (crd_fold_pspace) and
 * the midpoint element of the implicit step (fold_dyn.h). */
CRD_HD void crd_fold_pspace_T(const crd_cr_frame *F, const double *X0, const double *d, const double *p,
                              const double *f, const double *k, double *f6, double *K6)
{
  double T[400], Bz[24], T6[480];
  int lz[4] = {0, 0, 0, 0};
  for (int a = 0; a < 24; ++a) Bz[a] = 0.0;
  crd_q4_transform_basis(F, X0, d, p, lz, Bz, T);
  for (int a = 0; a < 20; ++a)
    for (int j = 0; j < 4; ++j)
      for (int c = 0; c < 3; ++c) {
        T6[24 * a + 6 * j + c] = T[20 * a + 5 * j + c];
        T6[24 * a + 6 * j + 3 + c] = (a / 5 == j && a % 5 >= 3) ? F->e[a % 5 - 3][c] : 0.0;
      }
  for (int b = 0; b < 24; ++b) {
    double v = 0.0;
    for (int a = 0; a < 20; ++a) v += T6[24 * a + b] * f[a];
    f6[b] = v;
  }
  if (!K6) return;
  double kT[480]; /* k T6 */
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < 24; ++b) {
      double v = 0.0;
      for (int c = 0; c < 20; ++c) v += k[20 * a + c] * T6[24 * c + b];
      kT[24 * a + b] = v;
    }
  for (int a = 0; a < 24; ++a)
    for (int b = 0; b < 24; ++b) {
      double v = 0.0;
      for (int c = 0; c < 20; ++c) v += T6[24 * c + a] * kT[24 * c + b];
      K6[24 * a + b] = v;
    }
  double H[400]; /* the translation block (zero bases: no pair terms) */
  for (int a = 0; a < 400; ++a) H[a] = 0.0;
  crd_q4_transform_hessian(F, X0, d, p, lz, Bz, f, H);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int al = 0; al < 3; ++al)
        for (int be = 0; be < 3; ++be) K6[24 * (6 * i + al) + 6 * j + be] += H[20 * (5 * i + al) + 5 * j + be];
  for (int j = 0; j < 4; ++j)
    for (int k2 = 0; k2 < 2; ++k2) {
      double dE[9];
      crd_cr_dE(F, k2, j, dE);
      for (int i = 0; i < 4; ++i) {
        double fr = f[5 * i + 3 + k2];
        for (int al = 0; al < 3; ++al)
          for (int c = 0; c < 3; ++c) {
            double v = fr * dE[3 * c + al];
            K6[24 * (6 * j + al) + 6 * i + 3 + c] += v;
            K6[24 * (6 * i + 3 + c) + 6 * j + al] += v;
          }
      }
    }
}

/* The element in p-space: energy (returned), f6 (24: d_i, p_i per node)
 * and K6 (24x24, or NULL) at the normals p (12) with initial normals p0.
 * The translation columns of T and the translation block of the
 * transformation Hessian are those of cr_frame.h (taken with zero bases,
 * which drop the pair terms); the p-columns of u_L are e_k (r_xy = e_k . p,
 * eq 10), so the only other second derivative is the cross term
 *   d2 r_k,i / dd_j dp_i = d e_k / d d_j. */
CRD_HD double crd_fold_pspace(const double *X0, const double *p0, const double *d, const double *p,
                              const crd_q4_mat *mt, double *f6, double *K6, double *min_det)
{
  crd_cr_frame F;
  double xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12], f[20], k[400];
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
  crd_q4_rot_map(ul, r0xy, q, J, abc);
  double U = crd_q4_local(xl0, q, mt, f, K6 ? k : 0, min_det);
  crd_q4_rot_pullback(ul, J, abc, f, K6 ? k : 0);
  crd_fold_pspace_T(&F, X0, d, p, f, k, f6, K6);
  return U;
}

/* Node offsets in the element's global vector; returns n (20..24). */
CRD_HD int crd_fold_offsets(const crd_fold_node *nd, int *off)
{
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    off[i] = n;
    n += 3 + crd_fold_node_nr(nd + i);
  }
  return n;
}

/* f (n) and K (n x n row-major, or NULL) from f6, K6 (see above); the
 * result is made exactly symmetric.  Returns n. */
CRD_HD int crd_fold_reduce(const crd_fold_node *nd, const double *f6, const double *K6, double *f, double *K)
{
  int off[4], n = crd_fold_offsets(nd, off);
  double G[4][9];
  for (int i = 0; i < 4; ++i) crd_fold_node_G(nd + i, G[i]);
  for (int i = 0; i < 4; ++i) {
    int nr = crd_fold_node_nr(nd + i);
    for (int a = 0; a < 3; ++a) f[off[i] + a] = f6[6 * i + a];
    for (int s = 0; s < nr; ++s) {
      double v = 0.0;
      for (int c = 0; c < 3; ++c) v += G[i][3 * c + s] * f6[6 * i + 3 + c];
      f[off[i] + 3 + s] = v;
    }
  }
  if (!K) return n;
  double KP[24 * 24]; /* K6 P: row r of p-space, column of the element's variables */
  for (int r = 0; r < 24; ++r)
    for (int j = 0; j < 4; ++j) {
      int nr = crd_fold_node_nr(nd + j);
      for (int b = 0; b < 3; ++b) KP[24 * r + off[j] + b] = K6[24 * r + 6 * j + b];
      for (int s = 0; s < nr; ++s) {
        double v = 0.0;
        for (int c = 0; c < 3; ++c) v += K6[24 * r + 6 * j + 3 + c] * G[j][3 * c + s];
        KP[24 * r + off[j] + 3 + s] = v;
      }
    }
  for (int i = 0; i < 4; ++i) {
    int nr = crd_fold_node_nr(nd + i);
    for (int col = 0; col < n; ++col) {
      for (int a = 0; a < 3; ++a) K[n * (off[i] + a) + col] = KP[24 * (6 * i + a) + col];
      for (int s = 0; s < nr; ++s) {
        double v = 0.0;
        for (int c = 0; c < 3; ++c) v += G[i][3 * c + s] * KP[24 * (6 * i + 3 + c) + col];
        K[n * (off[i] + 3 + s) + col] = v;
      }
    }
    double Hn[9]; /* the chart's curvature, contracted with f_p,i */
    crd_fold_node_hess(nd + i, f6 + 6 * i + 3, Hn);
    for (int s = 0; s < nr; ++s)
      for (int t = 0; t < nr; ++t) K[n * (off[i] + 3 + s) + off[i] + 3 + t] += Hn[3 * s + t];
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) K[n * a + b] = K[n * b + a] = 0.5 * (K[n * a + b] + K[n * b + a]);
  return n;
}

/* The element with any mix of smooth and intersection nodes: strain
 * energy (returned), f (n) and K (n x n, or NULL) in the element's global
 * variables (crd_fold_offsets), n = 20 + the intersection nodes.  X0, p0:
 * initial positions and the initial normals this element sees (at an
 * intersection node, its patch's); nd[i].p the current ones. */
CRD_HD double crd_fold_elem(const double *X0, const double *p0, const double *d, const crd_fold_node *nd,
                            const crd_q4_mat *mt, double *f, double *K, double *min_det)
{
  double p[12], f6[24], K6[576];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) p[3 * i + c] = nd[i].p[c];
  double U = crd_fold_pspace(X0, p0, d, p, mt, f6, K ? K6 : 0, min_det);
  crd_fold_reduce(nd, f6, K ? K6 : 0, f, K);
  return U;
}

/* The element's mass and inertia force in its global variables (the
 * triad counterpart of crd_q4_mass, shell_mass.h): with p_i' = G_i th_i'
 * and p_i'' = G_i th_i'' + A2_i (crd_triad_A2 at an intersection node,
 * crd_q4_A2 at a smooth one), the kinetic energy of shell_mass.h gives
 *   m: C_ij I3 on the translations, Q_ij = P_ij G_i^T G_j on the rotations,
 *   f_m,i = G_i^T sum_j P_ij A2_j                              (eq 37),
 * P_ij = rot_scale h^2/12 C_ij.  At an intersection node G_i = [w_a x r]
 * is of rank 2 (a turn of the triad about this element's normal moves
 * nothing of it): Q_ii is singular for one element and regular once two
 * patches of different normals meet at the node.  m (n x n) scaled by cm
 * and fm (n) are added into when non-NULL; ud: the element's velocity in
 * its global variables (crd_fold_offsets; only the rotational rates are
 * read). */
CRD_HD void crd_fold_mass(const double *C, double h, const crd_fold_node *nd, const double *ud, double rot_scale,
                          double cm, double *m, double *fm)
{
  int off[4], n = crd_fold_offsets(nd, off);
  double G[4][9], A2[4][3], hh = rot_scale * h * h / 12.0;
  for (int i = 0; i < 4; ++i) {
    crd_fold_node_G(nd + i, G[i]);
    if (!fm) continue;
    const double *th = ud + off[i] + 3;
    if (nd[i].tri) crd_triad_A2(nd[i].E, nd[i].ch, nd[i].p, th, A2[i]);
    else crd_q4_A2(nd[i].p, nd[i].l, th, A2[i]);
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int ni = crd_fold_node_nr(nd + i), nj = crd_fold_node_nr(nd + j);
      double c = C[4 * i + j], P = hh * c;
      if (m) {
        for (int a = 0; a < 3; ++a) m[n * (off[i] + a) + off[j] + a] += cm * c;
        for (int a = 0; a < ni; ++a)
          for (int b = 0; b < nj; ++b) {
            double v = 0.0;
            for (int r = 0; r < 3; ++r) v += G[i][3 * r + a] * G[j][3 * r + b];
            m[n * (off[i] + 3 + a) + off[j] + 3 + b] += cm * P * v;
          }
      }
      if (fm)
        for (int a = 0; a < ni; ++a) {
          double v = 0.0;
          for (int r = 0; r < 3; ++r) v += G[i][3 * r + a] * A2[j][r];
          fm[off[i] + 3 + a] += P * v;
        }
    }
}

#endif
