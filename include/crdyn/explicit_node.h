/* crdyn: the per-node work of the explicit central-difference step
 * (explicit.c), as every backend does it (CRD_HD, docs/architecture.md §4).
 *
 * The host loop (explicit.c) and the device-resident loops (the OpenCL
 * kernels of src/kernels/explicit_loop.h, CUDA and OpenCL) call these on
 * private copies of one node's values, so there is one source of the
 * physics: the same expressions in the same order give the same bits on
 * the host and on a device without FP contraction (crd_hd.h).
 *
 * A node's equations eq[5] (< 0: fixed slot); translations d, v, a and
 * normal p, its rate w = p' and p'' = wa are 3-vectors (dynamics.h); l is
 * the dependent component of p, (n, m) the independent pair. */
#ifndef CRDYN_EXPLICIT_NODE_H
#define CRDYN_EXPLICIT_NODE_H

#include "crdyn/crd_hd.h"
#include "crdyn/director.h"
#include "crdyn/shell_mass.h"

/* switch the pair when |p_l| < ratio * max(|p_n|, |p_m|) (problem.h) */
#define CRD_SWITCH_RATIO 0.7

/* The dependent component after the pair-switch test of p (l unchanged
 * when |p_l| is still large enough). */
CRD_HD int crd_exn_switch(const double *p, int l)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  if (fabs(p[l]) < CRD_SWITCH_RATIO * fmax(fabs(p[n]), fabs(p[m]))) return crd_dir_choose(p);
  return l;
}

/* Half-step rate: r + dt/2 r'. */
CRD_HD double crd_exn_half(double r, double rdot, double dt) { return r + 0.5 * dt * rdot; }

/* Accelerations a (3) and p'' wa (3) of a node from its residual forces
 * fr[k] = F_ext - F_int at equation eq[k] (ignored where eq[k] < 0), the
 * lumped mass mi, the lumped director inertia P (rotational scaling
 * included), the normal p with dependent component l and the predicted
 * normal rate w_pred (for the inertia term A2): the per-node block of eqs
 * 39-42, a 2x2 solve (1x1 when one pair component is fixed). */
CRD_HD void crd_exn_accel(const int *eq, const double *fr, double mi, double P, const double *p, int l,
                          const double *w_pred, double *a, double *wa)
{
  for (int c = 0; c < 3; ++c) a[c] = eq[c] >= 0 ? fr[c] / mi : 0.0;
  double A1[6], A2[3], nd[2], F[2], B[4];
  int n, m;
  crd_dir_A1(p, l, A1);
  crd_dir_pair(l, &n, &m);
  nd[0] = w_pred[n];
  nd[1] = w_pred[m];
  for (int k = 0; k < 2; ++k) if (eq[3 + k] < 0) nd[k] = 0.0;
  crd_q4_A2(p, l, nd, A2);
  for (int i = 0; i < 2; ++i) {
    F[i] = eq[3 + i] >= 0 ? fr[3 + i] : 0.0;
    F[i] -= P * (A1[i] * A2[0] + A1[2 + i] * A2[1] + A1[4 + i] * A2[2]);
    for (int j = 0; j < 2; ++j) B[2 * i + j] = P * (A1[i] * A1[j] + A1[2 + i] * A1[2 + j] + A1[4 + i] * A1[4 + j]);
  }
  double nn[2] = {0.0, 0.0};
  int f0 = eq[3] >= 0, f1 = eq[4] >= 0;
  if (f0 && f1) {
    double det = B[0] * B[3] - B[1] * B[2];
    nn[0] = (B[3] * F[0] - B[1] * F[1]) / det;
    nn[1] = (-B[2] * F[0] + B[0] * F[1]) / det;
  } else if (f0) nn[0] = F[0] / B[0];
  else if (f1) nn[1] = F[1] / B[3];
  if (!f0 && !f1) A2[0] = A2[1] = A2[2] = 0.0;
  for (int c = 0; c < 3; ++c) wa[c] = A1[2 * c] * nn[0] + A1[2 * c + 1] * nn[1] + A2[c];
}

/* Advance a node by dt with the half-step rates vh (3) and wh (3): free
 * translations d += dt vh; the normal p along its pair by dt times the
 * pair rate of wh (out of the pair's chart: along wh, renormalised); then
 * wh becomes the chord (p_new - p_old) / dt, consistent in whichever pair
 * the node has next.  The pair switch is the caller's (after the
 * prescribed motion, as crd_problem_switch_pairs). */
CRD_HD void crd_exn_advance(const int *eq, double dt, const double *vh, double *d, double *p, int l, double *wh)
{
  for (int c = 0; c < 3; ++c)
    if (eq[c] >= 0) d[c] += dt * vh[c];
  if (eq[3] < 0 && eq[4] < 0) return;
  double pold[3], ab[2], pn[3];
  int n, m;
  for (int c = 0; c < 3; ++c) pold[c] = p[c];
  crd_dir_pair(l, &n, &m);
  ab[0] = wh[n];
  ab[1] = wh[m];
  for (int k = 0; k < 2; ++k) if (eq[3 + k] < 0) ab[k] = 0.0;
  double q = crd_dir_from_pair(p[n] + dt * ab[0], p[m] + dt * ab[1], l, p[l], pn);
  if (q >= 0.01) {
    p[0] = pn[0]; p[1] = pn[1]; p[2] = pn[2];
  } else { /* out of the pair's chart: along the rate, renormalised */
    for (int c = 0; c < 3; ++c) p[c] += dt * wh[c];
    double len = crd_norm3(p);
    for (int c = 0; c < 3; ++c) p[c] /= len;
  }
  for (int c = 0; c < 3; ++c) wh[c] = (p[c] - pold[c]) / dt;
}

/* A node's share of the lumped-mass measures (crd_dyn_measure_lumped):
 * out[0] kinetic energy, out[1..3] linear momentum, out[4..6] angular
 * momentum about the origin; x the current position X + d, P the scaled
 * director inertia.  Summed over the nodes in node order they are the
 * measures of the state (the same sums as the host's). */
CRD_HD void crd_exn_measure(double mi, double P, const double *x, const double *v, const double *p,
                            const double *w, double *out)
{
  double xv[3], pw[3];
  crd_cross3(x, v, xv);
  crd_cross3(p, w, pw);
  out[0] = 0.5 * (mi * crd_dot3(v, v) + P * crd_dot3(w, w));
  for (int c = 0; c < 3; ++c) {
    out[1 + c] = mi * v[c];
    out[4 + c] = mi * xv[c] + P * pw[c];
  }
}

/* 1 when any of a node's state or rate components is not finite. */
CRD_HD int crd_exn_nonfinite(const double *d, const double *p, const double *v, const double *a, const double *w,
                             const double *wa)
{
  for (int c = 0; c < 3; ++c)
    if (!isfinite(d[c]) || !isfinite(p[c]) || !isfinite(v[c]) || !isfinite(a[c]) || !isfinite(w[c]) ||
        !isfinite(wa[c]))
      return 1;
  return 0;
}

#endif
