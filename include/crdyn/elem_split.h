/* crdyn: one element's work split over the work-items of a group (OpenCL)
 * or the threads of a block (CUDA): docs/architecture.md §4.
 *
 * The same phases as the serial bodies of elem_eval.h (crd_elem_static,
 * crd_elem_mid), in the same arithmetic order, so the element values are
 * the same bits:
 *   1. thread 0: gather, frames, strain variables, crd_q4_avg_prepare;
 *   2. threads 0..3: one Gauss point each (crd_q4_avg_gp);
 *   3. all: the 210 entries of k_q and the 20 of f_q (crd_q4_kt_entry,
 *      crd_q4_f_entry: the four Gauss points summed in order from zero);
 *   4. thread 0: T (crd_q4_transform_basis), the pull-back of the rotation
 *      measures (crd_q4_rot_pullback);
 *   5. all: the products k D, E = w Tf^T (k D), k T and the upper triangle
 *      of T^T (k T), one entry per thread in turn (crd_q4_prod_entry: the
 *      sum over c in the order of the serial row updates);
 *   6. thread 0: the rest of K_G (crd_q4_KG_finish), f_G, the energy
 *      correction, the inertia, and the outputs.
 * Between phases the data live in the workspace ws (crd_elem_ws), in
 * __local memory (OpenCL) or __shared__ (CUDA).  OpenCL 1.2 has no generic
 * address space, so the CRD_HD phase functions see only private arrays:
 * each thread copies the few values an entry reads from ws first (40 for a
 * product entry, 80 for an entry of k_q), and thread 0 copies its results
 * in.  Every thread of the group must call these functions (they contain
 * CRD_SYNC); on the host (CRD_NTID 1) they run the phases serially, which
 * t500-backend checks against the serial bodies bitwise.
 *
 * Thread 0 keeps the element's state in private memory across the phases
 * (frames, the midpoint state, two 20x20 T's, k, K_G: ptxas reports a
 * 17.7 KB stack frame for the midpoint body, 10.1 KB for the static one,
 * and CUDA sizes every thread's frame by it); the other threads hold at
 * most a Gauss point's operators (3.3 KB, threads 0..3) or an entry's
 * operands (0.6 KB). */
#ifndef CRDYN_ELEM_SPLIT_H
#define CRDYN_ELEM_SPLIT_H

#include "crdyn/elem_eval.h"

/* The workspace of one element: 2,338 doubles (18.7 KB). */
typedef struct crd_elem_ws {
  crd_q4_avg_pre pre;
  double xl0[12];
  double k[400], f[20];  /* k_q (both triangles) and f_q, then k after the pull-back */
  double kx[80];         /* the rest of df_q/dq_b (crd_q4_local_avg), midpoint only */
  union {
    crd_q4_gpset gs;     /* phases 2-3 */
    double M[4][400];    /* phases 4-6: T's and products */
  } u;
} crd_elem_ws;

/* Phases 2 and 3: ws->pre and ws->xl0 set (and synchronized) before;
 * want_kx (with want_k) also ws->kx. */
CRD_HD void crd_split_local_avg(CRD_LOCAL crd_elem_ws *ws, int want_k, int want_kx)
{
  CRD_FOREACH_THREAD(ig, 4) {
    crd_q4_avg_pre pr = ws->pre;
    double xl0[12], B[200], C[200], S[8], u, km;
    for (int a = 0; a < 12; ++a) xl0[a] = ws->xl0[a];
    double det = crd_q4_avg_gp(xl0, &pr, ig, want_k, B, C, S, &u, &km);
    for (int a = 0; a < 200; ++a) ws->u.gs.B[ig][a] = B[a];
    if (want_k)
      for (int a = 0; a < 200; ++a) ws->u.gs.C[ig][a] = C[a];
    for (int a = 0; a < 8; ++a) ws->u.gs.S[ig][a] = S[a];
    ws->u.gs.det[ig] = det;
    ws->u.gs.u[ig] = u;
    ws->u.gs.km[ig] = km;
    if (want_kx) {
      double dw[2];
      crd_q4_gp_dw(B, pr.dq, dw);
      ws->u.gs.dw[ig][0] = dw[0];
      ws->u.gs.dw[ig][1] = dw[1];
    }
  }
  CRD_SYNC();
  double S[32], det[4], km[4], s = ws->pre.s;
  for (int a = 0; a < 32; ++a) S[a] = ws->u.gs.S[a / 8][a % 8];
  for (int a = 0; a < 4; ++a) {
    det[a] = ws->u.gs.det[a];
    km[a] = ws->u.gs.km[a];
  }
  const int nk = want_k ? 210 : 0, nx = (want_k && want_kx) ? 80 : 0;
  CRD_FOREACH_THREAD(t, nk + 20 + nx) {
    double x[40], y[40];
    int a, b;
    if (t >= nk + 20) { /* kx[4 a + i] */
      double n[8], dw[8], c[4];
      a = (t - nk - 20) / 4;
      b = (t - nk - 20) % 4; /* the node i */
      for (int ig = 0; ig < 4; ++ig) {
        for (int r = 0; r < 3; ++r) y[3 * ig + r] = ws->u.gs.C[ig][20 * r + a];
        n[2 * ig] = ws->u.gs.B[ig][160 + 5 * b];
        n[2 * ig + 1] = ws->u.gs.B[ig][180 + 5 * b];
        dw[2 * ig] = ws->u.gs.dw[ig][0];
        dw[2 * ig + 1] = ws->u.gs.dw[ig][1];
        c[ig] = ws->pre.rb * km[ig];
      }
      ws->kx[t - nk - 20] = crd_q4_kx_entry(y, n, dw, c);
      continue;
    }
    if (t < nk) crd_tri_ij(t, &a, &b);
    else a = b = t - nk;
    for (int ig = 0; ig < 4; ++ig)
      for (int c = 0; c < 10; ++c) x[10 * ig + c] = ws->u.gs.B[ig][20 * c + a];
    if (t < nk) {
      for (int ig = 0; ig < 4; ++ig)
        for (int c = 0; c < 10; ++c) y[10 * ig + c] = ws->u.gs.C[ig][20 * c + b];
      double v = crd_q4_kt_entry(x, y, 1, S, det, km, s, a % 5 == 2 && b % 5 == 2);
      ws->k[20 * a + b] = v;
      ws->k[20 * b + a] = v;
    } else {
      ws->f[a] = crd_q4_f_entry(x, 1, S, det);
    }
  }
  CRD_SYNC();
}

/* U and the smallest det J of the Gauss points (after crd_split_local_avg,
 * before ws->u is reused), in the order of crd_q4_local_avg. */
CRD_HD double crd_split_energy(const CRD_LOCAL crd_elem_ws *ws, double *min_det)
{
  double U = 0.0;
  *min_det = 1e300;
  for (int ig = 0; ig < 4; ++ig) {
    U += ws->u.gs.u[ig];
    if (ws->u.gs.det[ig] < *min_det) *min_det = ws->u.gs.det[ig];
  }
  return U;
}

/* Entries of P = X' Y into P (400, or its upper triangle when upper):
 * X' = X (tx = 0) or X^T (tx = 1), all 20x20 row-major in ws. */
CRD_HD void crd_split_prod(const CRD_LOCAL double *X, int tx, const CRD_LOCAL double *Y, int upper,
                           CRD_LOCAL double *P)
{
  CRD_FOREACH_THREAD(t, upper ? 210 : 400) {
    int a, b;
    if (upper) crd_tri_ij(t, &a, &b);
    else {
      a = t / 20;
      b = t % 20;
    }
    double x[20], y[20];
    for (int c = 0; c < 20; ++c) {
      x[c] = tx ? X[20 * c + a] : X[20 * a + c];
      y[c] = Y[20 * c + b];
    }
    P[20 * a + b] = crd_q4_prod_entry(x, y);
  }
}

/* crd_elem_static split (see the header); every thread calls it, thread
 * 0's return value is the element's code. */
CRD_HD int crd_elem_static_split(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                                 const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *dn,
                                 const CRD_GLOBAL double *pn, const CRD_GLOBAL int *ln, const crd_q4_mat *mt,
                                 int want_k, CRD_GLOBAL double *f, CRD_GLOBAL double *k, CRD_GLOBAL double *u,
                                 CRD_LOCAL crd_elem_ws *ws)
{
  const int t0 = CRD_TID == 0;
  double X0[12], p0[12], d[12], p[12], xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12], fl[20];
  int l[4], kind = 0;
  crd_cr_frame F;
  if (t0) {
    crd_elem_static_gather(e, quads, x, p0n, dn, pn, ln, X0, p0, d, p, l);
    crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
    crd_q4_rot_map(ul, r0xy, q, J, abc);
    crd_q4_avg_pre pr;
    crd_q4_avg_prepare(xl0, q, q, 1.0, mt, &pr);
    ws->pre = pr;
    for (int a = 0; a < 12; ++a) ws->xl0[a] = xl0[a];
  }
  CRD_SYNC();
  crd_split_local_avg(ws, want_k, 0);
  double ue = 0.0, md = 0.0;
  if (t0) {
    double kl[400], T[400];
    ue = crd_split_energy(ws, &md);
    for (int a = 0; a < 20; ++a) fl[a] = ws->f[a];
    if (want_k)
      for (int a = 0; a < 400; ++a) kl[a] = ws->k[a];
    crd_q4_rot_pullback(ul, J, abc, fl, want_k ? kl : 0);
    if (want_k) {
      crd_q4_transform_basis(&F, X0, d, p, l, 0, T);
      for (int a = 0; a < 400; ++a) {
        ws->k[a] = kl[a];
        ws->u.M[0][a] = T[a];
      }
    }
  }
  CRD_SYNC();
  if (want_k) {
    crd_split_prod(ws->k, 0, ws->u.M[0], 0, ws->u.M[1]); /* k T */
    CRD_SYNC();
    crd_split_prod(ws->u.M[0], 1, ws->u.M[1], 1, ws->u.M[2]); /* T^T (k T), upper */
    CRD_SYNC();
  }
  if (t0) {
    double fe[20], KG[400];
    crd_q4_fG_direct(&F, X0, d, p, l, 0, fl, fe);
    *u = ue;
    for (int a = 0; a < 20; ++a) f[a] = fe[a];
    kind = crd_elem_static_kind(md, xl0, ul, ue);
    if (want_k) {
      for (int a = 0; a < 400; ++a) KG[a] = ws->u.M[2][a]; /* the lower triangle is overwritten */
      crd_q4_KG_finish(&F, X0, d, p, l, 0, fl, KG);
      int t = 0;
      for (int a = 0; a < 20; ++a)
        for (int b = a; b < 20; ++b) k[t++] = KG[20 * a + b];
    }
  }
  return kind;
}

/* crd_elem_mid split (see the header); every thread calls it, thread 0's
 * return value is the element's code. */
CRD_HD int crd_elem_mid_split(int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                              const CRD_GLOBAL double *p0n, const CRD_GLOBAL double *d0n,
                              const CRD_GLOBAL double *pan, const CRD_GLOBAL double *dbn,
                              const CRD_GLOBAL double *pbn, const CRD_GLOBAL double *dfn,
                              const CRD_GLOBAL double *pfn, const CRD_GLOBAL double *amn,
                              const CRD_GLOBAL double *wamn, const CRD_GLOBAL double *Bsn,
                              const CRD_GLOBAL int *ln, const CRD_GLOBAL double *Cn, const crd_q4_mat *mt,
                              double cf, double cm, int want_k, CRD_GLOBAL double *fgo, CRD_GLOBAL double *fino,
                              CRD_GLOBAL double *ko, CRD_GLOBAL double *Eo, CRD_GLOBAL double *u,
                              CRD_LOCAL crd_elem_ws *ws)
{
  const int t0 = CRD_TID == 0;
  crd_elem_mid_in in;
  crd_q4_mid_st st;
  double f[20], ue = 0.0, md = 0.0, dU = 0.0;
  double fq[20], grad1[20]; /* thread 0: the energy correction's derivative (cf = 1/2) */
  const int efix = want_k && cf == 0.5;
  int kind = 0;
  if (t0) {
    crd_elem_mid_gather(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &in);
    crd_q4_mid_begin(in.X0, in.P0, in.da, in.pa, in.db, in.pb, in.df, in.pf, &st);
    crd_q4_avg_pre pr;
    crd_q4_avg_prepare(st.xl0, st.qa, st.qb, cf, mt, &pr);
    ws->pre = pr;
    for (int a = 0; a < 12; ++a) ws->xl0[a] = st.xl0[a];
  }
  CRD_SYNC();
  crd_split_local_avg(ws, want_k, want_k);
  if (t0) {
    ue = crd_split_energy(ws, &md);
    for (int a = 0; a < 20; ++a) f[a] = ws->f[a];
    if (want_k) { /* M0 = Tf_phi, M1 = D (the factors of E), M2 = Tf */
      double T0[400], T1[400]; /* two private matrices: thread 0's stack sets every thread's */
      crd_q4_transform_basis(&st.F, in.X0, in.df, in.pf, in.l, in.Bs, T0);
      for (int a = 0; a < 400; ++a) ws->u.M[2][a] = T0[a];
      crd_q4_transform_basis(&st.Fb, in.X0, in.db, in.pb, in.l, 0, T1);
      if (efix) { /* crd_q4_mid_efix_kr with k_q and kx read from ws */
        double rr[20], kr[20], kcol[20], kxc[20];
        crd_q4_mid_efix_rr(&st, in.da, in.pa, in.db, in.pb, T0, rr);
        for (int a = 0; a < 20; ++a) {
          for (int c = 0; c < 20; ++c) {
            kcol[c] = ws->k[20 * c + a];
            kxc[c] = ws->kx[4 * c + a / 5];
          }
          kr[a] = crd_q4_mid_efix_kr_entry(kcol, a % 5 == 2 ? kxc : 0, rr, cf);
        }
        crd_q4_mid_efix_grad1(&st, T1, kr, grad1);
      }
      crd_q4_mid_skew_prep(T0, T1, st.J, st.Jb, T0, T1); /* in place: Tf_phi, D */
      for (int a = 0; a < 400; ++a) {
        ws->u.M[0][a] = T0[a];
        ws->u.M[1][a] = T1[a];
      }
    }
  }
  CRD_SYNC();
  if (want_k) {
    CRD_FOREACH_THREAD(t, 400) { /* k D + kx J_b (crd_q4_mid_skew_T) */
      int a = t / 20, b = t % 20;
      double xv[20], yv[20], kx4[4], d[4], tw[4];
      for (int c = 0; c < 20; ++c) {
        xv[c] = ws->k[20 * a + c];
        yv[c] = ws->u.M[1][20 * c + b];
      }
      for (int i = 0; i < 4; ++i) {
        kx4[i] = ws->kx[4 * a + i];
        d[i] = ws->u.M[1][20 * (5 * i + 2) + b];
        tw[i] = ws->u.M[0][20 * (5 * i + 2) + b];
      }
      ws->u.M[3][t] = crd_q4_kxT_add(crd_q4_prod_entry(xv, yv), kx4, d, tw);
    }
    CRD_SYNC();
    CRD_FOREACH_THREAD(t, 400) { /* E = w Tf_phi^T (k D) */
      int a = t / 20, b = t % 20;
      double xv[20], yv[20];
      for (int c = 0; c < 20; ++c) {
        xv[c] = ws->u.M[0][20 * c + a];
        yv[c] = ws->u.M[3][20 * c + b];
      }
      Eo[t] = crd_q4_prod_entry(xv, yv) * cf;
    }
    CRD_SYNC(); /* ws->k is rewritten below */
  }
  if (t0) {
    double kl[400];
    dU = crd_q4_mid_dU(&st, f);
    for (int a = 0; a < 20; ++a) fq[a] = f[a];
    if (want_k)
      for (int a = 0; a < 400; ++a) kl[a] = ws->k[a];
    crd_q4_rot_pullback(st.ul, st.J, st.abc, f, want_k ? kl : 0);
    if (want_k)
      for (int a = 0; a < 400; ++a) ws->k[a] = kl[a];
  }
  CRD_SYNC();
  if (want_k) {
    crd_split_prod(ws->k, 0, ws->u.M[2], 0, ws->u.M[0]); /* k Tf */
    CRD_SYNC();
    crd_split_prod(ws->u.M[2], 1, ws->u.M[0], 1, ws->u.M[1]); /* Tf^T (k Tf), upper */
    CRD_SYNC();
  }
  if (t0) {
    double fG[20], KG[400], fin[20], me[400];
    crd_q4_fG_direct(&st.F, in.X0, in.df, in.pf, in.l, in.Bs, f, fG);
    if (want_k) {
      for (int a = 0; a < 400; ++a) KG[a] = ws->u.M[1][a]; /* the lower triangle is overwritten */
      crd_q4_KG_finish(&st.F, in.X0, in.df, in.pf, in.l, in.Bs, f, KG);
    }
    double fG0[20]; /* the force before the correction, for its derivative */
    for (int a = 0; a < 20; ++a) fG0[a] = fG[a];
    if (cf == 0.5) crd_q4_mid_energy_fix(&st.F, in.X0, in.da, in.pa, in.db, in.pb, in.df, in.pf, in.Bs, f, dU, fG);
    *u = ue;
    crd_elem_mid_inertia(&in, mt, fin, me);
    crd_elem_mid_pack(want_k, cm, cf, fG, fin, me, KG, fgo, fino, ko);
    kind = (!(md > 0) || !isfinite(ue)) ? 1 : 0;
    if (efix) { /* me is free again: the derivative into it, then to ws for all threads */
      for (int a = 0; a < 400; ++a) me[a] = 0.0;
      crd_q4_mid_efix_dE(&st, in.X0, in.da, in.pa, in.db, in.pb, in.df, in.pf, in.l, in.Bs, fq, f, fG0,
                         dU, grad1, me);
      for (int a = 0; a < 400; ++a) ws->u.M[0][a] = me[a];
    }
  }
  if (efix) {
    CRD_SYNC();
    CRD_FOREACH_THREAD(t, 400) Eo[t] += ws->u.M[0][t]; /* each thread its own entries of E above */
  }
  return kind;
}

#endif
