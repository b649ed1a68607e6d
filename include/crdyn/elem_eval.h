/* crdyn: one element's work as every backend does it (CRD_HD, docs/architecture.md §4).
 *
 * These are the per-element bodies of the element loops: gather the
 * element's nodal values from the mesh arrays, call the element functions
 * (cr_frame.h, shell_dyn.h) and write the element's vectors and matrices.
 * The CPU backend calls them from its OpenMP loop, the OpenCL kernels
 * (src/kernels/elements.h) from one work-item per element; the same
 * code is compiled by both, so the two give the same numbers up to the
 * libm differences of sin/asin (the tests bound them, t500-backend).
 *
 * Mesh arrays (CRD_GLOBAL: __global in OpenCL C, nothing on the host):
 *   quads 4*ne, x and p0 3*nn (initial positions and unit normals),
 *   d and p 3*nn (current translations and normals), l nn (dependent
 *   components).  Outputs per element: f 20, k 210 (packed upper triangle,
 *   row by row), u 1.  Private arrays only; no libc beyond math. */
#ifndef CRDYN_ELEM_EVAL_H
#define CRDYN_ELEM_EVAL_H

#include "crdyn/crd_hd.h"
#include "crdyn/cr_frame.h"
#include "crdyn/shell_dyn.h"

/* The initial geometry of an element that all its evaluations share, as a
 * cache holds it (CRD_ELEM_GEO doubles per element; crd_elem_geo_build in
 * elem_isa.h): x0 (12, positions relative to corner 0), xl0 (12, initial
 * local coordinates) and phi(r0) (8) (crd_q4_local_vars_init,
 * crd_q4_rot_ph0). */
#define CRD_ELEM_GEO 32

/* What went wrong with an element (0: nothing). */
#define CRD_ELEM_OK 0
#define CRD_ELEM_DEGENERATE 1   /* det J <= 0 in the initial state */
#define CRD_ELEM_INVERTED 2     /* det J <= 0 in the current state */
#define CRD_ELEM_NONFINITE 3    /* non-finite strain energy */

/* Smallest det J of the current element, projected on its CR frame: <= 0
 * means the element has folded over (inverted) in the current state. */
CRD_HD double crd_q4_current_min_det(const double *xl0, const double *q)
{
  double xc[12], N[4], Nxi[4], Neta[4], J[4], mn = 1e300;
  for (int i = 0; i < 4; ++i) {
    xc[3 * i] = xl0[3 * i] + q[5 * i];
    xc[3 * i + 1] = xl0[3 * i + 1] + q[5 * i + 1];
    xc[3 * i + 2] = 0.0;
  }
  for (int a = 0; a < 4; ++a) {
    crd_q4_shape(a == 1 || a == 2 ? 1.0 : -1.0, a >= 2 ? 1.0 : -1.0, N, Nxi, Neta);
    double det = crd_q4_jac(xc, Nxi, Neta, J);
    mn = fmin(mn, det); /* as `if (det < mn)`, NaN included; no branch (elem_lanes.h) */
  }
  return mn;
}

/* The 3-vectors of a nodal field at the element's four nodes qd (12). */
CRD_HD void crd_elem_gather3(const CRD_GLOBAL int *qd, const CRD_GLOBAL double *src, double *dst)
{
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) dst[3 * a + c] = src[3 * qd[a] + c];
}

/* The element's nodal values of the static evaluation (12 each, l 4). */
CRD_HD void crd_elem_static_gather(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                                   const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *dn,
                                   const CRD_GLOBAL double *pn, const CRD_GLOBAL int *ln, double *X0, double *p0,
                                   double *d, double *p, int *l)
{
  const CRD_GLOBAL int *qd = quads + 4 * e;
  crd_elem_gather3(qd, x, X0);
  crd_elem_gather3(qd, p0n, p0);
  crd_elem_gather3(qd, dn, d);
  crd_elem_gather3(qd, pn, p);
  for (int a = 0; a < 4; ++a) l[a] = ln[qd[a]];
}

/* The CRD_ELEM_* code of a static evaluation: md the smallest initial det J,
 * ul the local variables (their translations are those of q), ue the energy. */
CRD_HD int crd_elem_static_kind(double md, const double *xl0, const double *ul, double ue)
{
  int kind = CRD_ELEM_OK;
  if (!(md > 0)) kind = CRD_ELEM_DEGENERATE;
  else if (!(crd_q4_current_min_det(xl0, ul) > 0)) kind = CRD_ELEM_INVERTED; /* translations of u_L = q */
  if (!kind && !isfinite(ue)) kind = CRD_ELEM_NONFINITE;
  return kind;
}

/* Element e at the current state: f (20), k (210 packed, when want_k) and
 * the strain energy u; returns a CRD_ELEM_* code. */
CRD_HD int crd_elem_static(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                           const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *dn,
                           const CRD_GLOBAL double *pn, const CRD_GLOBAL int *ln, const crd_q4_mat *mt,
                           int want_k, CRD_GLOBAL double *f, CRD_GLOBAL double *k, CRD_GLOBAL double *u)
{
  double X0[12], p0[12], d[12], p[12], KG[400], fe[20], md;
  int l[4];
  crd_elem_static_gather(e, quads, x, p0n, dn, pn, ln, X0, p0, d, p, l);
  /* crd_q4_global, keeping u_L for the inversion check */
  crd_cr_frame F;
  double xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12], fl[20], kl[400];
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
  crd_q4_rot_map(ul, r0xy, q, J, abc);
  double ue = crd_q4_local(xl0, q, mt, fl, want_k ? kl : 0, &md);
  crd_q4_rot_pullback(ul, J, abc, fl, want_k ? kl : 0);
  crd_q4_to_global(&F, X0, d, p, l, 0, fl, kl, fe, want_k ? KG : 0);
  *u = ue;
  for (int a = 0; a < 20; ++a) f[a] = fe[a];
  if (want_k) {
    int t = 0;
    for (int a = 0; a < 20; ++a)
      for (int b = a; b < 20; ++b) k[t++] = KG[20 * a + b];
  }
  return crd_elem_static_kind(md, xl0, ul, ue);
}

/* The element's inputs of the midpoint evaluation (see crd_elem_mid). */
typedef struct crd_elem_mid_in {
  double X0[12], P0[12], da[12], pa[12], db[12], pb[12], df[12], pf[12], Bs[24], am[12], wam[12], C[16];
  int l[4];
} crd_elem_mid_in;

CRD_HD void crd_elem_mid_gather(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                                const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *d0n,
                                const CRD_GLOBAL double *pan, const CRD_GLOBAL double *dbn,
                                const CRD_GLOBAL double *pbn, const CRD_GLOBAL double *dfn,
                                const CRD_GLOBAL double *pfn, const CRD_GLOBAL double *amn,
                                const CRD_GLOBAL double *wamn, const CRD_GLOBAL double *Bsn,
                                const CRD_GLOBAL int *ln, const CRD_GLOBAL double *Cn, crd_elem_mid_in *in)
{
  const CRD_GLOBAL int *qd = quads + 4 * e;
  crd_elem_gather3(qd, x, in->X0);
  crd_elem_gather3(qd, p0n, in->P0);
  crd_elem_gather3(qd, d0n, in->da);
  crd_elem_gather3(qd, pan, in->pa);
  crd_elem_gather3(qd, dbn, in->db);
  crd_elem_gather3(qd, pbn, in->pb);
  crd_elem_gather3(qd, dfn, in->df);
  crd_elem_gather3(qd, pfn, in->pf);
  crd_elem_gather3(qd, wamn, in->wam);
  for (int a = 0; a < 4; ++a) {
    int nd = qd[a];
    for (int c = 0; c < 3; ++c) in->am[3 * a + c] = amn[5 * nd + c]; /* translations of the 5 slots */
    for (int c = 0; c < 6; ++c) in->Bs[6 * a + c] = Bsn[6 * nd + c];
    in->l[a] = ln[nd];
  }
  for (int a = 0; a < 16; ++a) in->C[a] = Cn[16 * e + a];
}

/* inertia: C a_m on translations, P_i^T sum_j P_ij wa_m,j on pairs, and
 * the mass of the tangent with the same bases: fin (20), me (400) */
CRD_HD void crd_elem_mid_inertia(const crd_elem_mid_in *in, const crd_q4_mat *mt, double *fin, double *me)
{
  const double *C = in->C, *Bs = in->Bs, *am = in->am, *wam = in->wam;
  double hh = mt->h * mt->h / 12.0;
  for (int a = 0; a < 400; ++a) me[a] = 0.0;
  for (int a = 0; a < 20; ++a) fin[a] = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double c = C[4 * i + j];
      const double *Bi = Bs + 6 * i, *Bj = Bs + 6 * j;
      for (int r = 0; r < 3; ++r) {
        fin[5 * i + r] += c * am[3 * j + r];
        me[20 * (5 * i + r) + 5 * j + r] = c;
      }
      for (int s = 0; s < 2; ++s) {
        fin[5 * i + 3 + s] += hh * c * (Bi[s] * wam[3 * j] + Bi[2 + s] * wam[3 * j + 1] + Bi[4 + s] * wam[3 * j + 2]);
        for (int t = 0; t < 2; ++t)
          me[20 * (5 * i + 3 + s) + 5 * j + 3 + t] =
              hh * c * (Bi[s] * Bj[t] + Bi[2 + s] * Bj[2 + t] + Bi[4 + s] * Bj[4 + t]);
      }
    }
}

/* The midpoint outputs: fgo, fino (20) and, when want_k, K_eff = cm M +
 * cf K_f packed (210) into ko. */
CRD_HD void crd_elem_mid_pack(int want_k, double cm, double cf, const double *fG, const double *fin,
                              const double *me, const double *KG, CRD_GLOBAL double *fgo, CRD_GLOBAL double *fino,
                              CRD_GLOBAL double *ko)
{
  for (int a = 0; a < 20; ++a) {
    fgo[a] = fG[a];
    fino[a] = fin[a];
  }
  if (!want_k) return;
  int t = 0;
  for (int a = 0; a < 20; ++a)
    for (int b = a; b < 20; ++b) ko[t++] = cm * me[20 * a + b] + cf * KG[20 * a + b];
}

/* Element e at the implicit midpoint of a step (implicit.c, crd_mid_in in
 * backend.h): start (d0n, pan), end (dbn, pbn), midpoint (dfn, pfn), the
 * midpoint rates amn (5 per node, translations in 0..2) and wamn (3 per
 * node), the bases Bsn (6 per node), the element mass coefficients Cn (16
 * per element), cf = 1 - alpha_f, cm the mass factor of K_eff.  Outputs:
 * internal force fgo (20), inertia force fino (20), K_eff = cm M + cf K_f
 * (210 packed) and the non-symmetric part of the Newton matrix Eo (400)
 * when want_k, strain energy u at the end state.  Returns 1 when the
 * element degenerated or its energy is not finite. */
CRD_HD int crd_elem_mid(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                        const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *d0n,
                        const CRD_GLOBAL double *pan, const CRD_GLOBAL double *dbn,
                        const CRD_GLOBAL double *pbn, const CRD_GLOBAL double *dfn,
                        const CRD_GLOBAL double *pfn, const CRD_GLOBAL double *amn,
                        const CRD_GLOBAL double *wamn, const CRD_GLOBAL double *Bsn,
                        const CRD_GLOBAL int *ln, const CRD_GLOBAL double *Cn, const crd_q4_mat *mt,
                        double cf, double cm, int want_k, CRD_GLOBAL double *fgo, CRD_GLOBAL double *fino,
                        CRD_GLOBAL double *ko, CRD_GLOBAL double *Eo, CRD_GLOBAL double *u)
{
  crd_elem_mid_in in;
  double KG[400], me[400], E[400], fG[20], fin[20], md;
  crd_elem_mid_gather(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &in);
  double ue = crd_q4_global_mid(in.X0, in.P0, in.da, in.pa, in.db, in.pb, in.df, in.pf, in.l, in.Bs, cf, mt, fG,
                                want_k ? KG : 0, want_k ? E : 0, &md);
  *u = ue;
  crd_elem_mid_inertia(&in, mt, fin, me);
  crd_elem_mid_pack(want_k, cm, cf, fG, fin, me, KG, fgo, fino, ko);
  if (want_k)
    for (int a = 0; a < 400; ++a) Eo[a] = E[a];
  return (!(md > 0) || !isfinite(ue)) ? 1 : 0;
}

#endif
