/* crdyn: vectorial rotational variables at a node (docs/theory.md §4, eqs 24-30).
 *
 * A unit normal p is parametrized by two of its components, the independent
 * pair (n, m), n < m; the third, l, follows from |p| = 1 with its sign kept:
 *   p_l = s sqrt(1 - p_n^2 - p_m^2).
 * The pair is encoded by l alone (n, m are the other two in increasing order).
 * A1 = dp/d(p_n, p_m) (3x2, eq 27) has the identity in rows n, m and
 * (-p_n/p_l, -p_m/p_l) in row l.  The only second derivatives are those of
 * p_l (eq 29):
 *   d2p_l/dp_n^2 = -1/p_l - p_n^2/p_l^3, d2p_l/dp_m^2 = -1/p_l - p_m^2/p_l^3,
 *   d2p_l/dp_n dp_m = -p_n p_m / p_l^3. */
#ifndef CRDYN_DIRECTOR_H
#define CRDYN_DIRECTOR_H

#include "crdyn/crd_hd.h"

CRD_HD void crd_dir_pair(int l, int *n, int *m)
{
  *n = (l == 0) ? 1 : 0;
  *m = (l == 2) ? 1 : 2;
}

/* The component of largest magnitude: the natural dependent one. */
CRD_HD int crd_dir_choose(const double *p)
{
  double a0 = fabs(p[0]), a1 = fabs(p[1]), a2 = fabs(p[2]);
  if (a0 >= a1 && a0 >= a2) return 0;
  return (a1 >= a2) ? 1 : 2;
}

/* A1 (3x2, row-major) at p for dependent component l. */
CRD_HD void crd_dir_A1(const double *p, int l, double *A1)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  for (int i = 0; i < 6; ++i) A1[i] = 0.0;
  A1[2 * n + 0] = 1.0;
  A1[2 * m + 1] = 1.0;
  A1[2 * l + 0] = -p[n] / p[l];
  A1[2 * l + 1] = -p[m] / p[l];
}

/* The basis P (3x2, row-major) of the normal-component rates at the
 * implicit midpoint: A1 at the end state p (dependent component l) less its
 * component along the midpoint normal pf (not unit: a weighted mean). */
CRD_HD void crd_dir_mid_basis(const double *p, int l, const double *pf, double *P)
{
  double A1[6], f2 = pf[0] * pf[0] + pf[1] * pf[1] + pf[2] * pf[2];
  crd_dir_A1(p, l, A1);
  for (int s = 0; s < 2; ++s) {
    double c = (pf[0] * A1[s] + pf[1] * A1[2 + s] + pf[2] * A1[4 + s]) / f2;
    for (int r = 0; r < 3; ++r) P[2 * r + s] = A1[2 * r + s] - c * pf[r];
  }
}

/* Hessian of p_l with respect to (p_n, p_m): H[0]=nn, H[1]=nm, H[2]=mm. */
CRD_HD void crd_dir_H(const double *p, int l, double *H)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  double pl = p[l], pl3 = pl * pl * pl;
  H[0] = -1.0 / pl - p[n] * p[n] / pl3;
  H[1] = -p[n] * p[m] / pl3;
  H[2] = -1.0 / pl - p[m] * p[m] / pl3;
}

/* Third derivatives of p_l (needed by the linearized inertia force):
 * T[0]=nnn, T[1]=nnm, T[2]=nmm, T[3]=mmm.  With q = 1 - p_n^2 - p_m^2 = p_l^2,
 * differentiate eq 29 once more: d/dp_n (1/p_l) = p_n/p_l^3,
 * d/dp_n (p_l^-3) = 3 p_n / p_l^5. */
CRD_HD void crd_dir_T3(const double *p, int l, double *T)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  double pl = p[l], a = p[n], b = p[m];
  double pl3 = pl * pl * pl, pl5 = pl3 * pl * pl;
  T[0] = -3.0 * a / pl3 - 3.0 * a * a * a / pl5;
  T[1] = -b / pl3 - 3.0 * a * a * b / pl5;
  T[2] = -a / pl3 - 3.0 * a * b * b / pl5;
  T[3] = -3.0 * b / pl3 - 3.0 * b * b * b / pl5;
}

/* p from the independent pair value (a, b) = (p_n, p_m), dependent l, sign s.
 * Returns 1 - a^2 - b^2 (<= 0 means the pair has left its chart). */
CRD_HD double crd_dir_from_pair(double a, double b, int l, double s, double *p)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  double q = 1.0 - a * a - b * b;
  p[n] = a;
  p[m] = b;
  p[l] = (q > 0.0 ? sqrt(q) : 0.0) * (s < 0.0 ? -1.0 : 1.0);
  return q;
}

#endif
