/* crdyn: intersection nodes in the implicit step (docs/dynamics.md,
 * "Intersection nodes in the implicit step"; the element is fold_node.h,
 * the step implicit.c).
 *
 * THE TRIAD AS A PHYSICAL VECTOR.  At a smooth node the implicit step
 * applies Newmark to the normal p as a 3-vector and balances the normal's
 * equations with a basis P_i orthogonal to the unnormalized mean p_f.  At
 * an intersection node every element corner sees r = R c = sum_a c_a e_a
 * (c fixed, fold_node.h): r is LINEAR in the nine components of the triad
 * q = (e_x, e_y, e_z).  So the triad takes the part of the normal: Newmark
 * on q (R' and R'' as 3x3 matrices), the mean R_f = (1 - af) R_b + af R_a
 * (not orthogonal), and each corner sees r_f = R_f c, which is the mean of
 * its own r_a and r_b, exactly what the element's midpoint force expects
 * of a normal (shell_dyn.h).  The kinetic energy sum_ij P_ij r_i' . r_j'
 * is quadratic in R' with constant coefficients, as at smooth nodes.
 *
 * THE CONSTRAINT.  q lies on the six quadratic constraints
 * Phi(q) = R^T R - I = 0.  With af = 1/2 the constraint is exact at the
 * midpoint: R_f^T dR = 1/2 (R_a^T R_b - R_b^T R_a) is skew (dR = R_b -
 * R_a), so the step dR lies in the null space of dPhi(q_f), the three
 * directions dR = R_f^-T [s]_x (s in R^3).  The node's three equations
 * are the corners' forces h_i (inertia + internal - external, in the
 * p-space of the element: what the element would put on a normal) tested
 * with that null space.  Written in the unknowns' own coordinates (s =
 * R_b^T W dtheta, W = M^-1 of the chart, fold_node.h), the basis of corner
 * i is
 *   B_i = [R_f^-T ((R_b^T w_a) x c_i)]_a          (3x3, crd_triad_mid_basis)
 * and the node's residual is sum_i B_i^T h_i.  At R_f = R_b, B_i is the
 * A1 = [w_a x r_i] of statics: B_i is A1 with its part along the
 * constraint taken out, as P_i is at a smooth node.
 *
 * WHAT IT CONSERVES.  (1) Energy (af = 1/2): dR c_i = B_i s for every
 * corner with one s (s = M_b R_b sigma, sigma the axial vector of
 * R_f^T dR), so sum_i h_i . dr_i = s . sum_i B_i^T h_i = 0: the
 * constraint force does no work over the step, and the inertia's work
 * is the kinetic energy change (Newmark with gamma = 1/2, beta = 1/4 on a
 * constant mass).  (2) Angular momentum: the forces that the residual
 * leaves free, h with sum_i B_i^T h_i = 0, are those whose nine-vector
 * F_a = sum_i c_ia h_i lies in the range of dPhi(q_f)^T, F = R_f Lambda
 * with Lambda symmetric; their moment about the origin is
 * sum_i r_f,i x h_i = sum_a e_a,f x F_a = sum_ab Lambda_ab e_a,f x e_b,f
 * = 0.  The internal forces are the midpoint gradient of a rigid-motion
 * invariant function of the corners (shell_dyn.h), with no resultant or
 * moment; so, as at smooth nodes, L and J change only by the external
 * loads.  The element's energy correction acts on the corners' p-space
 * (crd_fold_mid_pspace), so the strain energy change is exact too.
 *
 * CHARTS.  The unknowns are the chart's theta at the end of the step
 * (the chart fixed within a step, fold_node.h); the rates are the physical
 * R', R'', so a change of chart between steps changes nothing of the
 * motion: no jump in rates.
 *
 * NEWTON.  The residual is exact; the matrix is not: K = G^T (c_m M6 +
 * c_f K6) G + the chart's curvature against the corners' total p-space
 * force, G = A1 at the end of the step (crd_fold_reduce), symmetric, with
 * K6 the p-space tangent at the midpoint (the midpoint force's derivative
 * in z_f when the step is small: tests/t218-fold-dyn.c).  It misses the
 * difference between B and A1 and the motion of the bases, both of the
 * order of the step's rotation. */
#ifndef CRDYN_FOLD_DYN_H
#define CRDYN_FOLD_DYN_H

#include "crdyn/fold_node.h"
#include "crdyn/shell_dyn.h"

/* x = A^-1 v for the 3x3 A given by rows (the inverse's columns are the
 * cross products of the rows); returns det A. */
CRD_HD double crd_fold_solve3(const double *A, const double *v, double *x)
{
  double c0[3], c1[3], c2[3];
  crd_cross3(A + 3, A + 6, c0);
  crd_cross3(A + 6, A, c1);
  crd_cross3(A, A + 3, c2);
  double det = crd_dot3(A, c0);
  for (int c = 0; c < 3; ++c) x[c] = (c0[c] * v[0] + c1[c] * v[1] + c2[c] * v[2]) / det;
  return det;
}

/* The basis of a triad corner with c (its R_0^T p0) in the step from R_a
 * to R_b (chart ch at R_b), mean Ef (E layout of fold_node.h: rows are
 * the axes, so Ef as a row-major matrix is R_f^T):
 *   B[3 c + a] = component c of R_f^-T ((R_b^T w_a) x c). */
CRD_HD void crd_triad_mid_basis(const double *Ef, const double *Eb, crd_triad_chart ch, const double *c, double *B)
{
  double w[9];
  crd_triad_W(Eb, ch, w);
  for (int a = 0; a < 3; ++a) {
    double v[3], u[3], x[3];
    for (int k = 0; k < 3; ++k) v[k] = crd_dot3(Eb + 3 * k, w + 3 * a);
    crd_cross3(v, c, u);
    crd_fold_solve3(Ef, u, x); /* R_f^T x = u */
    for (int k = 0; k < 3; ++k) B[3 * k + a] = x[k];
  }
}

/* The energy correction of shell_dyn.h (crd_dyn_energy_correction) on the
 * p-space force g6 (24, d_i and p_i per corner): g6 . dz = dU after it. */
CRD_HD void crd_fold_mid_fix(const double *X0, const double *da, const double *pa, const double *db,
                             const double *pb, const double *df, const double *pf, double dU, double *g6)
{
  double xf[12], dz[24], g[24], m[24];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) {
      xf[3 * i + c] = X0[3 * i + c] + df[3 * i + c];
      dz[3 * i + c] = db[3 * i + c] - da[3 * i + c];
      dz[12 + 3 * i + c] = pb[3 * i + c] - pa[3 * i + c];
      g[3 * i + c] = g6[6 * i + c];
      g[12 + 3 * i + c] = g6[6 * i + 3 + c];
    }
  double cc = crd_dyn_energy_correction(xf, pf, dz, g, dU, m);
  const double on = fabs(cc); /* the product gated, as in crd_q4_mid_energy_fix */
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) {
      g6[6 * i + c] += CRD_SEL_LT(0.0, on, cc * m[3 * i + c], 0.0);
      g6[6 * i + 3 + c] += CRD_SEL_LT(0.0, on, cc * m[12 + 3 * i + c], 0.0);
    }
}

/* The element's midpoint force in p-space (shell_dyn.h's quasi
 * energy-momentum force with every corner's normal a free 3-vector):
 * g6 (24) at the midpoint (df, pf) from the strains averaged over the
 * ends a, b with weight w of b, with the energy correction when w = 1/2;
 * K6 (24x24, or NULL): the p-space tangent at the midpoint with the
 * averaged strains.  Returns the strain energy at b; *dU the averaged
 * force's work f_q . (q_b - q_a). */
CRD_HD double crd_fold_mid_pspace(const double *X0, const double *p0, const double *da, const double *pa,
                                  const double *db, const double *pb, const double *df, const double *pf,
                                  double w, const crd_q4_mat *mt, double *g6, double *K6, double *dU,
                                  double *min_det)
{
  crd_q4_mid_st s;
  double f[20], k[400];
  crd_q4_mid_begin(X0, p0, da, pa, db, pb, df, pf, &s);
  double U = crd_q4_local_avg(s.xl0, s.qa, s.qb, w, mt, f, K6 ? k : 0, 0, min_det);
  *dU = crd_q4_mid_dU(&s, f);
  crd_q4_rot_pullback(s.ul, s.J, s.abc, f, K6 ? k : 0);
  crd_fold_pspace_T(&s.F, X0, df, pf, f, k, g6, K6);
  if (w == 0.5) crd_fold_mid_fix(X0, da, pa, db, pb, df, pf, *dU, g6);
  return U;
}

/* A fold element in the implicit step: corners (12 each) X0, p0 (initial
 * positions and the normals this element sees), the states a, b and the
 * midpoint f, the midpoint accelerations am (translations) and wam (the
 * corners' normals), the corners' bases B (9 each: B[9 i + 3 c + s],
 * s < the corner's rotational variables; P_i of a smooth corner, the
 * triad basis above at an intersection corner), the element's C (16), and
 * nd: the corners at the state b (counts, and G and the chart curvature
 * for the Newton matrix). */
typedef struct crd_fold_mid_in {
  const double *X0, *p0, *da, *pa, *db, *pb, *df, *pf, *am, *wam, *B, *C;
  const crd_fold_node *nd;
  double cf, cm; /* 1 - alpha_f; the mass factor of the Newton matrix */
} crd_fold_mid_in;

/* The p-space inertia force (24) and the mass pattern: translations C_ij
 * a_m,j, normals h^2/12 C_ij wa_m,j (shell_mass.h). */
CRD_HD void crd_fold_mid_inertia(const crd_fold_mid_in *in, double h, double *fin6, double *M6)
{
  double hh = h * h / 12.0;
  for (int a = 0; a < 24; ++a) fin6[a] = 0.0;
  if (M6)
    for (int a = 0; a < 576; ++a) M6[a] = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double c = in->C[4 * i + j];
      for (int r = 0; r < 3; ++r) {
        fin6[6 * i + r] += c * in->am[3 * j + r];
        fin6[6 * i + 3 + r] += hh * c * in->wam[3 * j + r];
        if (!M6) continue;
        M6[24 * (6 * i + r) + 6 * j + r] = c;
        M6[24 * (6 * i + 3 + r) + 6 * j + 3 + r] = hh * c;
      }
    }
}

/* v (n, crd_fold_offsets) = the p-space v6 reduced with the bases. */
CRD_HD void crd_fold_mid_reduce(const crd_fold_node *nd, const double *B, const double *v6, double *v)
{
  int off[4];
  crd_fold_offsets(nd, off);
  for (int i = 0; i < 4; ++i) {
    for (int a = 0; a < 3; ++a) v[off[i] + a] = v6[6 * i + a];
    for (int s = 0; s < crd_fold_node_nr(nd + i); ++s) {
      double x = 0.0;
      for (int c = 0; c < 3; ++c) x += B[9 * i + 3 * c + s] * v6[6 * i + 3 + c];
      v[off[i] + 3 + s] = x;
    }
  }
}

/* The element's internal force fi and inertia force fin (n each, in its
 * global variables) and, when K is not NULL, the Newton matrix (n x n,
 * symmetric; see NEWTON above).  Returns the strain energy at b. */
CRD_HD double crd_fold_mid_elem(const crd_fold_mid_in *in, const crd_q4_mat *mt, double *fi, double *fin,
                                double *K, double *min_det)
{
  double g6[24], K6[576], fin6[24], M6[576], dU;
  double U = crd_fold_mid_pspace(in->X0, in->p0, in->da, in->pa, in->db, in->pb, in->df, in->pf, in->cf, mt, g6,
                                 K ? K6 : 0, &dU, min_det);
  crd_fold_mid_inertia(in, mt->h, fin6, K ? M6 : 0);
  crd_fold_mid_reduce(in->nd, in->B, g6, fi);
  crd_fold_mid_reduce(in->nd, in->B, fin6, fin);
  if (!K) return U;
  double h6[24], fx[24];
  for (int a = 0; a < 24; ++a) h6[a] = g6[a] + fin6[a];
  for (int a = 0; a < 576; ++a) K6[a] = in->cm * M6[a] + in->cf * K6[a];
  crd_fold_reduce(in->nd, h6, K6, fx, K);
  return U;
}

#endif
