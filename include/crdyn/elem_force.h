/* crdyn: the lean explicit force of one element (issue 32): the internal
 * force f_G (20), the strain energy u and the element's code, nothing of
 * the tangent, split over CRD_EF_LANES = 4 lanes (threads) per element,
 * with the element's initial geometry cached at set-up.
 *
 * Why: the explicit step needs only f_G and u, but crd_elem_static carries
 * the tangent's arrays (k_L, K_G, B and C: a 10-12 KB stack per thread on
 * sm_90) and forms the initial geometry again at every step.  Here:
 *  - the cache (CRD_EF_GEO = 74 doubles per element, crd_ef_geo_build,
 *    element by element: every read is a constant offset from the
 *    element's base, no address registers per field): initial local
 *    coordinates xl0, phi(r0), J^-1, det J and the warp slopes at the Gauss
 *    points, the MITC4 tying-point Jacobian rows, the membrane tie (t, v,
 *    m0);
 *  - the B rows are never stored: each lane forms the few non-zero entries
 *    it needs, skipping the structural zeros of Bm, Bb and Bs (a skipped
 *    term is an exact +-0 added to a sum whose value it cannot change, the
 *    argument of crd_q4_T_nz: bitwise the same for finite values);
 *  - the phases over the lanes (lane = node or Gauss point), the data
 *    between them in a crd_ef_ws per element (2,280 bytes, group memory):
 *      1. node i: positions, normals, pair choice; lane 0 the section;
 *      2. node i: the frame (each lane, lane 0 stores it), projection i
 *         of its derivatives, u_L and q of node i, dphi/dr; then (2b)
 *         the frame's derivatives d e_k / d s, a column per lane;
 *      3. Gauss point g: strains, resultants S, energy term, the shear
 *         rows Bs of every node there (phase 4 reads them: formed twice,
 *         they took phase 4 past 80 registers);
 *      4. node i: f_q of node i (the Gauss points summed in order from
 *         zero), its rotation pull-back; lane 0 the energy and the code;
 *      5. the nine co-vectors of crd_q4_fG_direct, split over the lanes;
 *         det J of the current element at corner c (the inversion check);
 *      6. node j: f_G of node j (crd_q4_fG_direct's sums).
 *    A barrier between phases (CRD_SYNC), met by every lane of the group.
 * Every sum runs in the serial code's order, so with divisions as the CPU
 * does them (the default) and no contraction the forces are the bits of
 * crd_elem_static (want_k = 0) for finite values (t230-elem-force).
 * CRD_EF_RCP=1 takes reciprocals instead of the frame's divisions (one
 * division per norm instead of 48), a few ulps away from the CPU's (t230:
 * to 1e-12 with FMA contraction). */
#ifndef CRDYN_ELEM_FORCE_H
#define CRDYN_ELEM_FORCE_H

#include "crdyn/elem_eval.h"
#if !defined(__OPENCL_VERSION__)
#  include <stddef.h>
#endif

#define CRD_EF_LANES 4

/* A loop nvcc keeps rolled: unrolled, its iterations' loads and divisions
 * are scheduled together and need more than the 80 registers of the
 * target (tests/cli/ptxas.sh); elsewhere nothing. */
#if defined(__CUDA_ARCH__)
#  define CRD_EF_ROLLED _Pragma("unroll 1")
#else
#  define CRD_EF_ROLLED
#endif

/* x / r as the CPU forms it, or x times 1/r (CRD_EF_RCP; the compiler
 * forms 1/r once for all the uses of one r) */
#if defined(CRD_EF_RCP) && CRD_EF_RCP
#  define CRD_EF_DIV(x, r) ((x) * (1.0 / (r)))
#else
#  define CRD_EF_DIV(x, r) ((x) / (r))
#endif

/* The cache's fields (offsets in an element's CRD_EF_GEO doubles): xl0 (12); phi(r0) (8); per Gauss point ig at CRD_EF_GP +
 * 7 ig: J^-1 (4), det J, z0x, z0y; ax, ay of tying point t at CRD_EF_AXY +
 * 2 t; the membrane tie: t (3), v (3), m0 of the u, v, w slots (3 per node). */
#define CRD_EF_XL0 0
#define CRD_EF_PH0 12
#define CRD_EF_GP 20
#define CRD_EF_AXY 48
#define CRD_EF_MT 56
#define CRD_EF_MV 59
#define CRD_EF_M0 62
#define CRD_EF_GEO 74

/* The Gauss point ig's natural coordinates, as crd_q4_avg_gp_z */
CRD_HD void crd_ef_gp_xy(int ig, double *xi, double *eta)
{
  const double gp = 0.57735026918962576451;
  *xi = (ig == 0 || ig == 3) ? -gp : gp;
  *eta = (ig < 2) ? -gp : gp;
}

/* An element's cache (CRD_EF_GEO) into g from its initial positions X0
 * and normals p0 (12 each) and membrane switch am: the values
 * crd_elem_static forms at every evaluation, by the same code. */
CRD_HD void crd_ef_geo_elem(const double *X0, const double *p0, double am, double *g)
{
  double x0[12], xl0[12], r0xy[8], ph0[8];
  crd_q4_local_vars_init(X0, p0, x0, xl0, r0xy);
  crd_q4_rot_ph0(r0xy, ph0);
  for (int a = 0; a < 12; ++a) g[CRD_EF_XL0 + a] = xl0[a];
  for (int a = 0; a < 8; ++a) g[CRD_EF_PH0 + a] = ph0[a];
  for (int ig = 0; ig < 4; ++ig) { /* crd_q4_gp_strains_bc's geometry */
    double xi, eta, N[4], Nxi[4], Neta[4], J[4], z0x = 0, z0y = 0;
    crd_ef_gp_xy(ig, &xi, &eta);
    crd_q4_shape(xi, eta, N, Nxi, Neta);
    double det = crd_q4_jac(xl0, Nxi, Neta, J);
    double Gi[4] = {J[3] / det, -J[1] / det, -J[2] / det, J[0] / det};
    for (int i = 0; i < 4; ++i) {
      z0x += (Gi[0] * Nxi[i] + Gi[1] * Neta[i]) * xl0[3 * i + 2];
      z0y += (Gi[2] * Nxi[i] + Gi[3] * Neta[i]) * xl0[3 * i + 2];
    }
    double v[7] = {Gi[0], Gi[1], Gi[2], Gi[3], det, z0x, z0y};
    for (int a = 0; a < 7; ++a) g[CRD_EF_GP + 7 * ig + a] = v[a];
  }
  /* crd_q4_mitc_rows' Jacobian rows of the tying points */
  const double tp[8] = {0.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.0};
  for (int t = 0; t < 4; ++t) {
    double Nt[4], Ntxi[4], Nteta[4], Jt[4];
    crd_q4_shape(tp[2 * t], tp[2 * t + 1], Nt, Ntxi, Nteta);
    crd_q4_jac(xl0, Ntxi, Nteta, Jt);
    g[CRD_EF_AXY + 2 * t] = (t < 2) ? Jt[0] : Jt[2];
    g[CRD_EF_AXY + 2 * t + 1] = (t < 2) ? Jt[1] : Jt[3];
  }
  crd_q4_mem mm;
  crd_q4_mem_prepare(xl0, am, &mm);
  for (int a = 0; a < 3; ++a) {
    g[CRD_EF_MT + a] = mm.t[a];
    g[CRD_EF_MV + a] = mm.v[a];
  }
  for (int i = 0; i < 4; ++i)
    for (int a = 0; a < 3; ++a) g[CRD_EF_M0 + 3 * i + a] = mm.m0[5 * i + a];
}

/* The cache of elements [0, ne) (host; mat: the section table, for am). */
CRD_HD void crd_ef_geo_build(int ne, const int *quads, const double *x, const double *p0n, const double *mat,
                             double *g)
{
  for (int e = 0; e < ne; ++e) {
    double X0[12], p0[12];
    crd_elem_gather3(quads + 4 * e, x, X0);
    crd_elem_gather3(quads + 4 * e, p0n, p0);
    crd_ef_geo_elem(X0, p0, mat[CRD_Q4_MAT_STRIDE * e + 3], g + CRD_EF_GEO * (size_t)e);
  }
}

/* One element's data between the phases (group memory). */
typedef struct crd_ef_ws {
  double x[12];     /* x0 + d: the current positions from node 0 (crd_q4_local_vars_cur) */
  double xs[12];    /* (X0 + d) - X0_0: crd_q4_fG_direct's form of the same */
  double p[12];     /* normals */
  double A[9], D[9], s; /* the section (crd_q4_constitutive) */
  double fe[9], fab[6], fr[4]; /* the frame: e_x, e_y, e_z; a, b; |v13|, |v24|, |a-b|, |a+b| */
  double J[54];     /* d e_k / d s (crd_cr_frame_build's J) */
  double q[20];     /* strain variables (q = qbar: w = 1) */
  double jp[16];    /* dphi/dr per node (crd_q4_rot_map_ph0's J) */
  union {
    double P[36];   /* phases 2-3: the projections Pa, Pb, Mx, My (crd_cr_proj) */
    struct {
      double S[32], u[4]; /* phases 3-: per Gauss point the resultants and the energy term */
    } g;
  } v;
  double sxy[8], cdet[4]; /* per Gauss point z0 + w_,x/y; per corner det J */
  double bs[96];    /* Bs of slots 2..4 of node i at Gauss point ig at 24 ig + 6 i + 2 (slot - 2) */
  double f[20];     /* f with respect to u_L */
  double lam[9];    /* crd_q4_fG_direct's co-vectors */
  int l[4];
} crd_ef_ws;



/* Phase 1, lane i (node i of element e). */
CRD_HD void crd_ef_load(int i, int e, const CRD_GLOBAL int *quads, const CRD_GLOBAL double *x,
                        const CRD_GLOBAL double *dn, const CRD_GLOBAL double *pn, const CRD_GLOBAL int *ln,
                        const CRD_GLOBAL double *mat, CRD_LOCAL crd_ef_ws *w)
{
  const CRD_GLOBAL int *qd = quads + 4 * e;
  const int n = qd[i], n0 = qd[0];
  for (int c = 0; c < 3; ++c) {
    double X = x[3 * n + c], X00 = x[3 * n0 + c], d = dn[3 * n + c];
    w->x[3 * i + c] = (X - X00) + d; /* crd_q4_local_vars_init, then _cur */
    w->xs[3 * i + c] = X + d - X00;  /* crd_q4_fG_direct */
    w->p[3 * i + c] = pn[3 * n + c];
  }
  w->l[i] = ln[n];
  if (i == 0) {
    crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
    double A[9], D[9], s;
    crd_q4_constitutive(&mt, A, D, &s);
    for (int a = 0; a < 9; ++a) {
      w->A[a] = A[a];
      w->D[a] = D[a];
    }
    w->s = s;
  }
}

/* The frame's axes (crd_cr_frame_axes, divisions by CRD_EF_DIV) into e (9),
 * ab (a, b) and r (the four norms). */
CRD_HD void crd_ef_axes(const CRD_LOCAL double *x, double *e, double *ab, double *r)
{
  double v13[3], v24[3], qx[3], qy[3];
  for (int c = 0; c < 3; ++c) {
    v13[c] = x[6 + c] - x[c];
    v24[c] = x[9 + c] - x[3 + c];
  }
  r[0] = crd_norm3(v13);
  r[1] = crd_norm3(v24);
  for (int c = 0; c < 3; ++c) {
    ab[c] = CRD_EF_DIV(v13[c], r[0]);
    ab[3 + c] = CRD_EF_DIV(v24[c], r[1]);
    qx[c] = ab[c] - ab[3 + c];
    qy[c] = ab[c] + ab[3 + c];
  }
  r[2] = crd_norm3(qx);
  r[3] = crd_norm3(qy);
  for (int c = 0; c < 3; ++c) {
    e[c] = CRD_EF_DIV(qx[c], r[2]);
    e[3 + c] = CRD_EF_DIV(qy[c], r[3]);
  }
  crd_cross3(e, e + 3, e + 6);
}

/* Phase 2, lane i: the frame (lane 0 stores it), node i's q and dphi/dr. */
CRD_HD void crd_ef_frame(int i, const CRD_GLOBAL double *g, CRD_LOCAL crd_ef_ws *w)
{
  double fe[9], ab[6], r[4], ul[5];
  crd_ef_axes(w->x, fe, ab, r);
  if (i == 0) {
    for (int a = 0; a < 9; ++a) w->fe[a] = fe[a];
    for (int a = 0; a < 6; ++a) w->fab[a] = ab[a];
    for (int a = 0; a < 4; ++a) w->fr[a] = r[a];
  }
  { /* lane i: projection i of crd_cr_frame_build (Pa, Pb, Mx, My) */
    double y[3], rr = i == 0 ? r[0] : i == 1 ? r[1] : i == 2 ? r[2] : r[3];
    for (int c = 0; c < 3; ++c) y[c] = i == 0 ? ab[c] : i == 1 ? ab[3 + c] : i == 2 ? fe[c] : fe[3 + c];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) w->v.P[9 * i + 3 * a + b] = CRD_EF_DIV((a == b ? 1.0 : 0.0) - y[a] * y[b], rr);
  }
  for (int k = 0; k < 3; ++k) { /* eq 8 */
    const CRD_LOCAL double *xi = w->x + 3 * i;
    ul[k] = (fe[3 * k] * xi[0] + fe[3 * k + 1] * xi[1] + fe[3 * k + 2] * xi[2]) -
            g[CRD_EF_XL0 + 3 * i + k];
  }
  for (int k = 0; k < 2; ++k) { /* eq 10 */
    const CRD_LOCAL double *pi = w->p + 3 * i;
    ul[3 + k] = fe[3 * k] * pi[0] + fe[3 * k + 1] * pi[1] + fe[3 * k + 2] * pi[2];
  }
  /* crd_q4_rot_map_ph0 for node i; q = qbar = (1 - w) q + w q at w = 1
   * (0 q + q is q for every finite q, -0 included) */
  double a, b, c, r0 = ul[3], r1 = ul[4];
  crd_q4_phi_coef(r0 * r0 + r1 * r1, &a, &b, &c);
  for (int k = 0; k < 3; ++k) w->q[5 * i + k] = ul[k];
  w->q[5 * i + 3] = a * r0 - g[CRD_EF_PH0 + 2 * i];
  w->q[5 * i + 4] = a * r1 - g[CRD_EF_PH0 + 2 * i + 1];
  w->jp[4 * i] = a + b * r0 * r0;
  w->jp[4 * i + 1] = b * r0 * r1;
  w->jp[4 * i + 2] = b * r1 * r0;
  w->jp[4 * i + 3] = a + b * r1 * r1;
}

/* Entry i of crd_q4_shape at (xi, eta): the same expressions, for a node
 * index known only at run time (a lane's) without an indexed array. */
CRD_HD void crd_ef_shape_i(int i, double xi, double eta, double *N, double *Nxi, double *Neta)
{
  const double xs = (i == 1 || i == 2) ? 1.0 : -1.0, ys = (i >= 2) ? 1.0 : -1.0;
  *N = 0.25 * (1.0 + xs * xi) * (1.0 + ys * eta);
  *Nxi = 0.25 * xs * (1.0 + ys * eta);
  *Neta = 0.25 * ys * (1.0 + xs * xi);
}

/* The shear rows Bs (2) of slot sl (2: w, 3: r_x, 4: r_y) of node i at a
 * Gauss point (xi, eta) with J^-1 Gi: crd_q4_gp_strains_bc's sums over the
 * MITC4 rows of crd_q4_mitc_rows (the tying points' ax, ay from the cache). */
CRD_HD void crd_ef_bs(const double *Gi, double xi, double eta, const CRD_GLOBAL double *g, int i,
                      int sl, double *bs)
{
  const double tp[8] = {0.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.0};
  double bc[4];
  for (int t = 0; t < 4; ++t) {
    double Nt, Ntxi, Nteta;
    crd_ef_shape_i(i, tp[2 * t], tp[2 * t + 1], &Nt, &Ntxi, &Nteta);
    bc[t] = sl == 2 ? (t < 2 ? Ntxi : Nteta) : g[CRD_EF_AXY + 2 * t + sl - 3] * Nt;
  }
  double wA = 0.5 * (1.0 - eta), wB = 0.5 * (1.0 + eta), wC = 0.5 * (1.0 - xi), wD = 0.5 * (1.0 + xi);
  double gxi = wA * bc[0] + wB * bc[1], geta = wC * bc[2] + wD * bc[3];
  bs[0] = Gi[0] * gxi + Gi[1] * geta;
  bs[1] = Gi[2] * gxi + Gi[3] * geta;
}

/* Gauss point ig's J^-1, det, z0x, z0y (7) from the cache, and node i's
 * x-, y-derivatives of its shape function there (crd_q4_gp_strains_bc). */
CRD_HD void crd_ef_gp_geo(int ig, const CRD_GLOBAL double *g, double *gv)
{
  for (int a = 0; a < 7; ++a) gv[a] = g[CRD_EF_GP + 7 * ig + a];
}
CRD_HD void crd_ef_dN(const double *Gi, int i, double xi, double eta, double *nx, double *ny)
{
  double N, Nxi, Neta;
  crd_ef_shape_i(i, xi, eta, &N, &Nxi, &Neta);
  *nx = Gi[0] * Nxi + Gi[1] * Neta;
  *ny = Gi[2] * Nxi + Gi[3] * Neta;
}

/* Phase 3, lane ig: the strains and resultants of Gauss point ig
 * (crd_q4_gp_strains_bc, crd_q4_avg_gp_z with w = 1; every sum over the
 * nodes in their order, in one loop). */
CRD_HD void crd_ef_gauss(int ig, const CRD_GLOBAL double *g, CRD_LOCAL crd_ef_ws *w)
{
  const CRD_LOCAL double *q = w->q;
  double gv[7], xi, eta;
  crd_ef_gp_geo(ig, g, gv);
  crd_ef_gp_xy(ig, &xi, &eta);
  const double z0x = gv[5], z0y = gv[6];
  double wx = 0, wy = 0, ux = 0, vy = 0, uy = 0, vx = 0, m0q = 0.0, chi[3] = {0.0, 0.0, 0.0};
  CRD_EF_ROLLED
  for (int i = 0; i < 4; ++i) {
    double nx, ny;
    crd_ef_dN(gv, i, xi, eta, &nx, &ny);
    wx += nx * q[5 * i + 2];
    wy += ny * q[5 * i + 2];
    ux += nx * q[5 * i];
    uy += ny * q[5 * i];
    vx += nx * q[5 * i + 1];
    vy += ny * q[5 * i + 1];
    chi[0] += nx * q[5 * i + 3];
    chi[1] += ny * q[5 * i + 4];
    chi[2] += ny * q[5 * i + 3] + nx * q[5 * i + 4];
    for (int a = 0; a < 3; ++a) /* crd_q4_mem_state (m0 is 0 on the rotation slots) */
      m0q += g[CRD_EF_M0 + 3 * i + a] * q[5 * i + a];
  }
  w->sxy[2 * ig] = z0x + wx;
  w->sxy[2 * ig + 1] = z0y + wy;
  double t0 = g[CRD_EF_MT], t1 = g[CRD_EF_MT + 1];
  double t2 = g[CRD_EF_MT + 2];
  double l0 = ux + z0x * wx, l1 = vy + z0y * wy, l2 = uy + vx + z0x * wy + z0y * wx;
  double dl = m0q - (t0 * l0 + t1 * l1 + t2 * l2), ev[3], gs[2] = {0.0, 0.0};
  ev[0] = l0 + 0.5 * wx * wx + g[CRD_EF_MV] * dl;
  ev[1] = l1 + 0.5 * wy * wy + g[CRD_EF_MV + 1] * dl;
  ev[2] = l2 + wx * wy + g[CRD_EF_MV + 2] * dl;
  CRD_EF_ROLLED
  for (int i = 0; i < 4; ++i) /* MITC4 shear: the u, v slots' rows are 0 */
    for (int sl = 2; sl < 5; ++sl) {
      double bs[2];
      crd_ef_bs(gv, xi, eta, g, i, sl, bs);
      gs[0] += bs[0] * q[5 * i + sl];
      gs[1] += bs[1] * q[5 * i + sl];
      w->bs[24 * ig + 6 * i + 2 * (sl - 2)] = bs[0]; /* for phase 4 */
      w->bs[24 * ig + 6 * i + 2 * (sl - 2) + 1] = bs[1];
    }
  const CRD_LOCAL double *A = w->A, *D = w->D;
  const double s = w->s, det = gv[4];
  double Nm[3], Mb[3];
  for (int r = 0; r < 3; ++r) {
    Nm[r] = A[3 * r] * ev[0] + A[3 * r + 1] * ev[1] + A[3 * r + 2] * ev[2];
    Mb[r] = D[3 * r] * chi[0] + D[3 * r + 1] * chi[1] + D[3 * r + 2] * chi[2];
    w->v.g.S[8 * ig + r] = Nm[r];
    w->v.g.S[8 * ig + 3 + r] = Mb[r];
  }
  w->v.g.S[8 * ig + 6] = s * gs[0];
  w->v.g.S[8 * ig + 7] = s * gs[1];
  w->v.g.u[ig] = 0.5 * det * (Nm[0] * ev[0] + Nm[1] * ev[1] + Nm[2] * ev[2] + Mb[0] * chi[0] + Mb[1] * chi[1] +
                          Mb[2] * chi[2] + s * (gs[0] * gs[0] + gs[1] * gs[1]));
}

/* Phase 4, lane i: f_q of node i's five slots (crd_q4_f_gp_add over the
 * Gauss points in order, the structural zeros of B skipped), then the
 * pull-back of its rotation slots (crd_q4_rot_pullback). */
CRD_HD void crd_ef_fnode(int i, const CRD_GLOBAL double *g, CRD_LOCAL crd_ef_ws *w)
{
  double f[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, t[3], tv[3], m0[3];
  for (int a = 0; a < 3; ++a) {
    t[a] = g[CRD_EF_MT + a];
    tv[a] = g[CRD_EF_MV + a];
    m0[a] = g[CRD_EF_M0 + 3 * i + a];
  }
  CRD_EF_ROLLED
  for (int ig = 0; ig < 4; ++ig) {
    double gv[7], xi, eta, nx, ny, sm[3];
    crd_ef_gp_geo(ig, g, gv);
    crd_ef_gp_xy(ig, &xi, &eta);
    crd_ef_dN(gv, i, xi, eta, &nx, &ny);
    const CRD_LOCAL double *S = w->v.g.S + 8 * ig;
    const double det = gv[4], sx = w->sxy[2 * ig], sy = w->sxy[2 * ig + 1];
    crd_q4_mem_rows(t, nx, ny, gv[5], gv[6], sm);
    for (int a = 0; a < 3; ++a) sm[a] = m0[a] - sm[a];
    const CRD_LOCAL double *bw = w->bs + 24 * ig + 6 * i, *bx = bw + 2, *by = bw + 4; /* phase 3's */
    f[0] = f[0] + det * ((nx + tv[0] * sm[0]) * S[0] + (tv[1] * sm[0]) * S[1] + (ny + tv[2] * sm[0]) * S[2]);
    f[1] = f[1] + det * ((tv[0] * sm[1]) * S[0] + (ny + tv[1] * sm[1]) * S[1] + (nx + tv[2] * sm[1]) * S[2]);
    f[2] = f[2] + det * ((sx * nx + tv[0] * sm[2]) * S[0] + (sy * ny + tv[1] * sm[2]) * S[1] +
                         (sx * ny + sy * nx + tv[2] * sm[2]) * S[2] + bw[0] * S[6] + bw[1] * S[7]);
    f[3] = f[3] + det * (nx * S[3] + ny * S[5] + bx[0] * S[6] + bx[1] * S[7]);
    f[4] = f[4] + det * (ny * S[4] + nx * S[5] + by[0] * S[6] + by[1] * S[7]);
  }
  const CRD_LOCAL double *J = w->jp + 4 * i;
  for (int a = 0; a < 3; ++a) w->f[5 * i + a] = f[a];
  w->f[5 * i + 3] = J[0] * f[3] + J[2] * f[4];
  w->f[5 * i + 4] = J[1] * f[3] + J[3] * f[4];
}

/* Lane 0 after phase 3: the energy (Gauss points in order from zero), the
 * CRD_ELEM_* code (crd_elem_static_kind: the initial det J from the cache,
 * the current one per corner). */
CRD_HD int crd_ef_kind(const CRD_GLOBAL double *g, const CRD_LOCAL crd_ef_ws *w, double *ue)
{
  double U = 0.0, md = 1e300, cd = 1e300;
  for (int ig = 0; ig < 4; ++ig) {
    U += w->v.g.u[ig];
    md = fmin(md, g[CRD_EF_GP + 7 * ig + 4]);
    cd = fmin(cd, w->cdet[ig]);
  }
  *ue = U;
  int kind = CRD_ELEM_OK;
  if (!(md > 0)) kind = CRD_ELEM_DEGENERATE;
  else if (!(cd > 0)) kind = CRD_ELEM_INVERTED;
  if (!kind && !isfinite(U)) kind = CRD_ELEM_NONFINITE;
  return kind;
}

/* Phase 2b, lane c: columns c and c + 4 (< 6) of d e_k / d s
 * (crd_cr_frame_build's J[k][6 i + col]) from the projections. */
CRD_HD void crd_ef_dframe(int lane, CRD_LOCAL crd_ef_ws *w)
{
  for (int col = lane; col < 6; col += CRD_EF_LANES) {
    const int blk = col / 3, j = col % 3;
    const CRD_LOCAL double *Pc = w->v.P + 9 * blk, *Mx = w->v.P + 18, *My = w->v.P + 27;
    double dx[3], dy[3], c1[3], c2[3], e0[3], e1[3];
    for (int i = 0; i < 3; ++i) { /* J_x = [Mx Pa, -Mx Pb], J_y = [My Pa, My Pb] */
      double xa = 0, ya = 0;
      for (int c = 0; c < 3; ++c) {
        xa += Mx[3 * i + c] * Pc[3 * c + j];
        ya += My[3 * i + c] * Pc[3 * c + j];
      }
      dx[i] = blk ? -xa : xa;
      dy[i] = ya;
    }
    for (int c = 0; c < 3; ++c) {
      e0[c] = w->fe[c];
      e1[c] = w->fe[3 + c];
    }
    crd_cross3(dx, e1, c1); /* d e_z = d e_x x e_y + e_x x d e_y */
    crd_cross3(e0, dy, c2);
    for (int i = 0; i < 3; ++i) {
      w->J[6 * i + col] = dx[i];
      w->J[18 + 6 * i + col] = dy[i];
      w->J[36 + 6 * i + col] = c1[i] + c2[i];
    }
  }
}

/* Phase 5, lane c: det J of the current element at corner c, projected
 * on its frame (crd_q4_current_min_det, crd_q4_jac's sums). */
CRD_HD void crd_ef_corner(int ig, const CRD_GLOBAL double *g, CRD_LOCAL crd_ef_ws *w)
{
  const CRD_LOCAL double *q = w->q;
  const double cx = ig == 1 || ig == 2 ? 1.0 : -1.0, cy = ig >= 2 ? 1.0 : -1.0;
  double J[4] = {0.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < 4; ++i) {
    double N, Nxi, Neta;
    crd_ef_shape_i(i, cx, cy, &N, &Nxi, &Neta);
    double xc = g[CRD_EF_XL0 + 3 * i] + q[5 * i];
    double yc = g[CRD_EF_XL0 + 3 * i + 1] + q[5 * i + 1];
    J[0] += Nxi * xc;
    J[1] += Nxi * yc;
    J[2] += Neta * xc;
    J[3] += Neta * yc;
  }
  w->cdet[ig] = J[0] * J[3] - J[1] * J[2];
}

/* Phase 5, lane c: crd_q4_fG_direct's co-vectors lam[k][c'] = sum_i
 * f_tk,i x_i + f_rk,i p_i, entries c, c + 4, c + 8 of the nine. */
CRD_HD void crd_ef_lam(int c, CRD_LOCAL crd_ef_ws *w)
{
  for (int t = c; t < 9; t += CRD_EF_LANES) {
    const int k = t / 3, cc = t % 3;
    double v = 0.0;
    for (int i = 0; i < 4; ++i) {
      v += w->f[5 * i + k] * w->xs[3 * i + cc];
      if (k < 2) v += w->f[5 * i + 3 + k] * w->p[3 * i + cc];
    }
    w->lam[t] = v;
  }
}

/* crd_dir_A1 by selects instead of indexed stores (a run-time l would put
 * the array on the stack): the same six values. */
CRD_HD void crd_ef_A1(const double *p, int l, double *A1)
{
  const int n = (l == 0) ? 1 : 0, m = (l == 2) ? 1 : 2;
  const double pl = l == 0 ? p[0] : l == 1 ? p[1] : p[2], pn = n == 0 ? p[0] : p[1], pm = m == 1 ? p[1] : p[2];
  const double cn = -pn / pl, cm = -pm / pl;
  for (int r = 0; r < 3; ++r) {
    A1[2 * r] = r == l ? cn : (r == n ? 1.0 : 0.0);
    A1[2 * r + 1] = r == l ? cm : (r == m ? 1.0 : 0.0);
  }
}

/* Phase 6, lane j: f_G of node j (crd_q4_fG_direct) into fo (5). */
CRD_HD void crd_ef_global(int j, const CRD_LOCAL crd_ef_ws *w, CRD_GLOBAL double *fo)
{
  const CRD_LOCAL double *f = w->f, *lam = w->lam;
  int blk;
  double sg;
  crd_cr_sblock(j, &blk, &sg);
  for (int al = 0; al < 3; ++al) {
    double v = 0.0, wv = 0.0;
    for (int k = 0; k < 3; ++k) {
      v += f[5 * j + k] * w->fe[3 * k + al];
      for (int c = 0; c < 3; ++c) wv += lam[3 * k + c] * w->J[18 * k + 6 * c + 3 * blk + al];
    }
    fo[al] = v + sg * wv;
  }
  double A1[6], p[3];
  for (int c = 0; c < 3; ++c) p[c] = w->p[3 * j + c];
  crd_ef_A1(p, w->l[j], A1);
  for (int be = 0; be < 2; ++be) {
    double v = 0.0;
    for (int k = 0; k < 2; ++k)
      v += f[5 * j + 3 + k] * (w->fe[3 * k] * A1[be] + w->fe[3 * k + 1] * A1[2 + be] + w->fe[3 * k + 2] * A1[4 + be]);
    fo[3 + be] = v;
  }
}

#endif
