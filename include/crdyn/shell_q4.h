/* crdyn: the 4-node shell in its co-rotational element frame (docs/theory.md
 * §1-2, eqs 6-17).  Pure functions on private arrays, shared by all backends.
 *
 * DATA LAYOUT
 *   xl0[3*i+c]  initial local coordinates of node i (x, y, z; z != 0 when warped),
 *               node 0 at the origin (eq 7);
 *   q[5*i+a]    local variables relative to the initial state:
 *               a = 0,1,2: t_i = (u, v, w) (eq 8); a = 3,4: r_i,xy - r_i0,xy (eq 10);
 *   f[20], k[20*20] row-major, symmetric.
 *   Natural coordinates of the nodes: (-1,-1) (1,-1) (1,1) (-1,1).
 *
 * Strains at a point, shallow shell (docs/theory.md §2), engineering shear:
 *   membrane  e = (u,x + z0,x w,x + w,x^2/2,  v,y + z0,y w,y + w,y^2/2,
 *                  u,y + v,x + z0,x w,y + z0,y w,x + w,x w,y)
 *   bending   chi = (dr_x,x, dr_y,y, dr_x,y + dr_y,x)       with dr = r - r0
 *   shear     gamma = (w,x + dr_x, w,y + dr_y), MITC4 assumed (Bathe-Dvorkin
 *             1985): covariant g_xi tied at (0,-1),(0,1), g_eta at (-1,0),(1,0),
 *             g_a = w,a + x0,a . dr  (a = xi, eta), gamma = J^-1 (g_xi, g_eta).
 * The membrane strain is e above at the Gauss points (2x2), except that the
 * part of e linear in q has its in-plane shear tied at the element centre,
 * in the natural basis of the centre (crd_q4_mem_prepare, am = 1; am = 0
 * keeps the displacement-based e).  The tie removes the parasitic shear of
 * a bilinear field in in-plane bending, passes the membrane patch test on
 * any convex quad, and keeps e quadratic with the same Hessians.
 * e is quadratic in q (through w only), chi and gamma linear, so
 *   U = sum_gp wJ/2 (e.A e + chi.D chi + gamma.S gamma),
 *   f = dU/dq = sum wJ (Bm^T A e + Bb^T D chi + Bs^T S gamma)        (eq 16)
 *   k = d2U/dq2 = sum wJ (Bm^T A Bm + Bb^T D Bb + Bs^T S Bs + sum_c N_c H_c)  (eq 17)
 * with A = h D1, D = h^3/12 D1, S = 5/6 h G I, N = A e and H_c the constant
 * Hessians of e_c in the w block: k is the exact Hessian, hence symmetric. */
#ifndef CRDYN_SHELL_Q4_H
#define CRDYN_SHELL_Q4_H

#include "crdyn/crd_hd.h"

#define CRD_Q4_NDOF 20
#define CRD_Q4_NGP 4

/* E, nu, h: the section.  xi: the algorithmic dissipation of an implicit
 * step (implicit.c, "monotone_energy"; 0 everywhere else): the stress of
 * the step gets xi C (eps_b - eps_a), see crd_q4_local_avg.  am: the
 * membrane, 1 with the in-plane shear tied at the element centre
 * (crd_q4_mem_prepare; the default of a section), 0 displacement based.  A
 * double, not a flag: it multiplies the tie's correction, so the lanes of
 * a batch (elem_lanes.h) never branch on it. */
typedef struct crd_q4_mat {
  double E, nu, h, xi, am;
} crd_q4_mat;

/* The backends' section table: CRD_Q4_MAT_STRIDE doubles per element
 * (E, nu, h, am; crd_backend_section_table). */
#define CRD_Q4_MAT_STRIDE 4

/* Element e's section from the table mat, with the step's dissipation xi
 * (0 outside implicit steps). */
CRD_HD crd_q4_mat crd_q4_mat_at(const CRD_GLOBAL double *mat, int e, double xi)
{
  crd_q4_mat mt;
  mt.E = mat[CRD_Q4_MAT_STRIDE * e];
  mt.nu = mat[CRD_Q4_MAT_STRIDE * e + 1];
  mt.h = mat[CRD_Q4_MAT_STRIDE * e + 2];
  mt.am = mat[CRD_Q4_MAT_STRIDE * e + 3];
  mt.xi = xi;
  return mt;
}

/* Shape functions and natural derivatives at (xi, eta). */
CRD_HD void crd_q4_shape(double xi, double eta, double *N, double *Nxi, double *Neta)
{
  const double xs[4] = {-1.0, 1.0, 1.0, -1.0}, ys[4] = {-1.0, -1.0, 1.0, 1.0};
  for (int i = 0; i < 4; ++i) {
    N[i] = 0.25 * (1.0 + xs[i] * xi) * (1.0 + ys[i] * eta);
    Nxi[i] = 0.25 * xs[i] * (1.0 + ys[i] * eta);
    Neta[i] = 0.25 * ys[i] * (1.0 + xs[i] * xi);
  }
}

/* Jacobian J[a][alpha] = d x_alpha / d xi_a of the projected (x, y) geometry;
 * returns det J. */
CRD_HD double crd_q4_jac(const double *xl0, const double *Nxi, const double *Neta, double *J)
{
  J[0] = J[1] = J[2] = J[3] = 0.0;
  for (int i = 0; i < 4; ++i) {
    J[0] += Nxi[i] * xl0[3 * i];
    J[1] += Nxi[i] * xl0[3 * i + 1];
    J[2] += Neta[i] * xl0[3 * i];
    J[3] += Neta[i] * xl0[3 * i + 1];
  }
  return J[0] * J[3] - J[1] * J[2];
}

/* Constitutive blocks: A (membrane, 3x3), D (bending, 3x3), s (shear modulus x h x 5/6). */
CRD_HD void crd_q4_constitutive(const crd_q4_mat *mt, double *A, double *D, double *s)
{
  double c = mt->E / (1.0 - mt->nu * mt->nu);
  double D1[9] = {c, c * mt->nu, 0.0, c * mt->nu, c, 0.0, 0.0, 0.0, c * 0.5 * (1.0 - mt->nu)};
  double h = mt->h, h3 = h * h * h / 12.0;
  for (int i = 0; i < 9; ++i) {
    A[i] = h * D1[i];
    D[i] = h3 * D1[i];
  }
  *s = 5.0 / 6.0 * h * mt->E / (2.0 * (1.0 + mt->nu));
}

/* The tied membrane shear (am = 1; docs/element.md, "The membrane strain").  With j_r, j_s the
 * rows of the centre Jacobian J0 (d(x,y)/dxi, d(x,y)/deta) and g^r, g^s
 * the dual basis (the columns of J0^-1), the covariant components of the
 * linear membrane strain in that fixed basis are e_ab = j_a . E j_b, E the
 * strain tensor.  e_rr, e_ss are kept at the Gauss point and e_rs is taken
 * at the centre:
 *   e~ = e + v (t . (e_lin(0) - e_lin(gp))),
 * t = (j_rx j_sx, j_ry j_sy, (j_rx j_sy + j_ry j_sx)/2) maps an engineering
 * strain to e_rs, and v = (2 g^r_x g^s_x, 2 g^r_y g^s_y,
 * 2 (g^r_x g^s_y + g^r_y g^s_x)) is the engineering strain whose e_rs is 1
 * and e_rr = e_ss = 0.  A constant strain has the same e_rs everywhere, so
 * the correction vanishes (patch test on any quad); the basis is the
 * element's, so the result does not depend on the orientation of the
 * element frame.  e_lin is the part of e linear in q (u, v and the z0 w
 * terms); the quadratic w terms stay at the Gauss point, so the Hessians
 * of e and everything built on them (k, the midpoint rule) are unchanged.
 * m0[a]: t . (d e_lin(0) / dq_a) for the u, v, w slots (5 i + 0..2);
 * v is scaled by am (0: no correction); m0q = m0 . q, the centre's e_rs
 * at the state of the evaluation (crd_q4_mem_state). */
typedef struct crd_q4_mem {
  double m0[20];
  double t[3], v[3], m0q;
} crd_q4_mem;

/* t . (the linear membrane rows of node i's u, v, w) for the x- and
 * y-derivatives nx, ny of its shape function and the warp slopes z0x, z0y:
 * out[0..2] for u, v, w.  The w row is (z0x nx, z0y ny, z0x ny + z0y nx),
 * z0x times the u row plus z0y times the v row. */
CRD_HD void crd_q4_mem_rows(const double *t, double nx, double ny, double z0x, double z0y, double *out)
{
  out[0] = t[0] * nx + t[2] * ny;
  out[1] = t[1] * ny + t[2] * nx;
  out[2] = z0x * out[0] + z0y * out[1];
}

CRD_HD void crd_q4_mem_prepare(const double *xl0, double am, crd_q4_mem *mm)
{
  double N[4], Nxi[4], Neta[4], J[4];
  crd_q4_shape(0.0, 0.0, N, Nxi, Neta);
  double det = crd_q4_jac(xl0, Nxi, Neta, J);
  double G[4] = {J[3] / det, -J[1] / det, -J[2] / det, J[0] / det}; /* J^-1: g^r = (G0, G2), g^s = (G1, G3) */
  mm->t[0] = J[0] * J[2];
  mm->t[1] = J[1] * J[3];
  mm->t[2] = 0.5 * (J[0] * J[3] + J[1] * J[2]);
  mm->v[0] = am * 2.0 * G[0] * G[1];
  mm->v[1] = am * 2.0 * G[2] * G[3];
  mm->v[2] = am * 2.0 * (G[0] * G[3] + G[2] * G[1]);
  double nx[4], ny[4], z0x = 0.0, z0y = 0.0;
  for (int i = 0; i < 4; ++i) {
    nx[i] = G[0] * Nxi[i] + G[1] * Neta[i];
    ny[i] = G[2] * Nxi[i] + G[3] * Neta[i];
    z0x += nx[i] * xl0[3 * i + 2];
    z0y += ny[i] * xl0[3 * i + 2];
  }
  for (int i = 0; i < 4; ++i) {
    crd_q4_mem_rows(mm->t, nx[i], ny[i], z0x, z0y, mm->m0 + 5 * i);
    mm->m0[5 * i + 3] = mm->m0[5 * i + 4] = 0.0;
  }
  mm->m0q = 0.0;
}

/* mm->m0q for the state q (before the Gauss points of an evaluation). */
CRD_HD void crd_q4_mem_state(crd_q4_mem *mm, const double *q)
{
  double s = 0.0;
  for (int a = 0; a < 20; ++a) s += mm->m0[a] * q[a];
  mm->m0q = s;
}

/* The strain operators at Gauss point (xi, eta) of the element.
 * Outputs: Bm (3x20, at state q), Bb (3x20), Bs (2x20), membrane strains e,
 * bending chi, shear g, the membrane Hessian factors dNx, dNy (4 each: the
 * w-block Hessians are Hxx = dNx dNx^T, Hyy = dNy dNy^T, Hxy = dNx dNy^T +
 * dNy dNx^T) and det J. */
CRD_HD void crd_q4_mitc_rows(const double *xl0, double Bc[4][20]);
CRD_HD double crd_q4_gp_strains_bc(const double *xl0, const double *q, double xi, double eta,
                                   const double Bc[4][20], const crd_q4_mem *mm, double *Bm, double *Bb,
                                   double *Bs, double *e, double *chi, double *g, double *dNx, double *dNy,
                                   int zeroed);
CRD_HD double crd_q4_gp_strains(const double *xl0, const double *q, double am, double xi, double eta,
                                double *Bm, double *Bb, double *Bs, double *e, double *chi,
                                double *g, double *dNx, double *dNy)
{
  double Bc[4][20];
  crd_q4_mem mm;
  crd_q4_mitc_rows(xl0, Bc);
  crd_q4_mem_prepare(xl0, am, &mm);
  crd_q4_mem_state(&mm, q);
  return crd_q4_gp_strains_bc(xl0, q, xi, eta, (const double(*)[20])Bc, &mm, Bm, Bb, Bs, e, chi, g, dNx, dNy, 0);
}

/* MITC4 transverse shear: the covariant rows at the four tying points
 * (they depend on the initial geometry only: once per element). */
CRD_HD void crd_q4_mitc_rows(const double *xl0, double Bc[4][20])
{
  const double tp[8] = {0.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 0.0}; /* A B (xi) C D (eta) */
  for (int t = 0; t < 4; ++t) {
    double Nt[4], Ntxi[4], Nteta[4], Jt[4];
    crd_q4_shape(tp[2 * t], tp[2 * t + 1], Nt, Ntxi, Nteta);
    crd_q4_jac(xl0, Ntxi, Nteta, Jt);
    const double *Nd = (t < 2) ? Ntxi : Nteta;
    double ax = (t < 2) ? Jt[0] : Jt[2], ay = (t < 2) ? Jt[1] : Jt[3];
    for (int i = 0; i < 4; ++i) { /* u, v: no shear (slot by slot: a loop of 20 became a slow rep stos) */
      Bc[t][5 * i] = Bc[t][5 * i + 1] = 0.0;
      Bc[t][5 * i + 2] = Nd[i];
      Bc[t][5 * i + 3] = ax * Nt[i];
      Bc[t][5 * i + 4] = ay * Nt[i];
    }
  }
}

/* crd_q4_gp_strains with the tying-point rows Bc (crd_q4_mitc_rows) and the
 * membrane tie mm (crd_q4_mem_prepare) given.  zeroed: Bm and Bb already
 * hold the zeros of their pattern (an earlier call on the same arrays: the
 * non-zero slots are the same at every Gauss point), so only the non-zero
 * slots are written.  Bs is written whole. */
CRD_HD double crd_q4_gp_strains_bc(const double *xl0, const double *q, double xi, double eta,
                                   const double Bc[4][20], const crd_q4_mem *mm, double *Bm, double *Bb,
                                   double *Bs, double *e, double *chi, double *g, double *dNx, double *dNy,
                                   int zeroed)
{
  double N[4], Nxi[4], Neta[4], J[4];
  crd_q4_shape(xi, eta, N, Nxi, Neta);
  double det = crd_q4_jac(xl0, Nxi, Neta, J);
  double Gi[4] = {J[3] / det, -J[1] / det, -J[2] / det, J[0] / det}; /* J^-1 */
  double z0x = 0, z0y = 0, wx = 0, wy = 0;
  for (int i = 0; i < 4; ++i) {
    dNx[i] = Gi[0] * Nxi[i] + Gi[1] * Neta[i];
    dNy[i] = Gi[2] * Nxi[i] + Gi[3] * Neta[i];
    z0x += dNx[i] * xl0[3 * i + 2];
    z0y += dNy[i] * xl0[3 * i + 2];
    wx += dNx[i] * q[5 * i + 2];
    wy += dNy[i] * q[5 * i + 2];
  }
  if (!zeroed)
    for (int a = 0; a < 60; ++a) Bm[a] = Bb[a] = 0.0;
  double sx = z0x + wx, sy = z0y + wy;
  const double *tv = mm->v;
  for (int i = 0; i < 4; ++i) {
    int c = 5 * i;
    double sm[3]; /* the tie's correction per unit v, for u, v, w of node i */
    crd_q4_mem_rows(mm->t, dNx[i], dNy[i], z0x, z0y, sm);
    for (int a = 0; a < 3; ++a) sm[a] = mm->m0[c + a] - sm[a];
    Bm[c] = dNx[i] + tv[0] * sm[0];
    Bm[20 + c] = tv[1] * sm[0];
    Bm[40 + c] = dNy[i] + tv[2] * sm[0];
    Bm[c + 1] = tv[0] * sm[1];
    Bm[20 + c + 1] = dNy[i] + tv[1] * sm[1];
    Bm[40 + c + 1] = dNx[i] + tv[2] * sm[1];
    Bm[c + 2] = sx * dNx[i] + tv[0] * sm[2];
    Bm[20 + c + 2] = sy * dNy[i] + tv[1] * sm[2];
    Bm[40 + c + 2] = sx * dNy[i] + sy * dNx[i] + tv[2] * sm[2];
    Bb[c + 3] = dNx[i];
    Bb[20 + c + 4] = dNy[i];
    Bb[40 + c + 3] = dNy[i];
    Bb[40 + c + 4] = dNx[i];
  }
  double ux = 0, vy = 0, uy = 0, vx = 0;
  for (int i = 0; i < 4; ++i) {
    ux += dNx[i] * q[5 * i];
    uy += dNy[i] * q[5 * i];
    vx += dNx[i] * q[5 * i + 1];
    vy += dNy[i] * q[5 * i + 1];
  }
  /* the tie: e_rs of the linear strain at the centre minus at this point */
  double l0 = ux + z0x * wx, l1 = vy + z0y * wy, l2 = uy + vx + z0x * wy + z0y * wx;
  const double *t = mm->t;
  double dl = mm->m0q - (t[0] * l0 + t[1] * l1 + t[2] * l2);
  e[0] = l0 + 0.5 * wx * wx + tv[0] * dl;
  e[1] = l1 + 0.5 * wy * wy + tv[1] * dl;
  e[2] = l2 + wx * wy + tv[2] * dl;
  chi[0] = chi[1] = chi[2] = 0.0;
  for (int i = 0; i < 4; ++i) {
    chi[0] += dNx[i] * q[5 * i + 3];
    chi[1] += dNy[i] * q[5 * i + 4];
    chi[2] += dNy[i] * q[5 * i + 3] + dNx[i] * q[5 * i + 4];
  }
  /* MITC4 transverse shear from the covariant rows at the tying points */
  double wA = 0.5 * (1.0 - eta), wB = 0.5 * (1.0 + eta), wC = 0.5 * (1.0 - xi), wD = 0.5 * (1.0 + xi);
  for (int a = 0; a < 20; ++a) {
    double gxi = wA * Bc[0][a] + wB * Bc[1][a];
    double geta = wC * Bc[2][a] + wD * Bc[3][a];
    Bs[a] = Gi[0] * gxi + Gi[1] * geta;
    Bs[20 + a] = Gi[2] * gxi + Gi[3] * geta;
  }
  g[0] = g[1] = 0.0;
  for (int a = 0; a < 20; ++a) {
    g[0] += Bs[a] * q[a];
    g[1] += Bs[20 + a] * q[a];
  }
  return det;
}

/* crd_q4_local_avg is cut into phases that a work-group can split
 * (docs/architecture.md §4): crd_q4_avg_prepare (once per element), crd_q4_avg_gp
 * (one Gauss point: its operators and stress resultants, the loop body of
 * the serial code), then per entry crd_q4_f_entry and crd_q4_kt_entry,
 * which sum the four Gauss points' terms in the order 0, 1, 2, 3 starting
 * from zero, each term formed as the serial loop forms it: the element
 * values are the same bits whether one thread runs the phases or a group
 * splits them (the OpenCL and CUDA split kernels, elem_split.h).  The
 * entry functions take private arrays (CL 1.2 has no generic address
 * space): a split kernel copies the few values an entry reads from its
 * local workspace first. */

/* What every Gauss point of the element needs (crd_q4_avg_prepare). */
typedef struct crd_q4_avg_pre {
  crd_q4_mat mt;             /* the material, for what the Gauss points need beyond A, D, s */
  double A[9], D[9], s;      /* constitutive blocks (crd_q4_constitutive) */
  double qbar[20], dq[20];   /* (1-w) q_a + w q_b and q_b - q_a */
  double Bc[4][20];          /* MITC4 tying-point rows (crd_q4_mitc_rows) */
  crd_q4_mem mem;            /* the membrane tie (crd_q4_mem_prepare) */
  double w, cmean, rb;       /* the weight of q_b, w (1-w)/2 and 1 - w */
  int plain, pad;            /* w == 1: the terms in dq are skipped */
} crd_q4_avg_pre;

/* The four Gauss points' operators and resultants (crd_q4_avg_gp), with
 * ten rows of 20 (one per dof a) per Gauss point ig:
 *   B[ig] rows: Bm (3), Bb (3), Bs (2) and dNx, dNy of a's node,
 *   C[ig] rows: A Bm (3), D Bb (3), Bs (2), dNx, dNy (filled with want_k),
 *   S[ig] = (N, M, Q) the resultants, det[ig] = det J, u[ig] the energy
 * term, km[ig] the factor of the material term of k (det J; a stress that
 * depends on q_b with another weight, such as a dissipative one, puts its
 * factor here).  Row c, dof a of a Gauss point is at [20 c + a]: the original
 * row-major B, so the entry loops over b stay contiguous on the CPU. */
typedef struct crd_q4_gpset {
  double B[4][200], C[4][200], S[4][8], det[4], u[4], km[4], dw[4][2]; /* dw: crd_q4_gp_dw */
} crd_q4_gpset;

CRD_HD void crd_q4_avg_prepare(const double *xl0, const double *qa, const double *qb, double w,
                               const crd_q4_mat *mt, crd_q4_avg_pre *pr)
{
  pr->mt = *mt;
  crd_q4_constitutive(mt, pr->A, pr->D, &pr->s);
  for (int a = 0; a < 20; ++a) {
    pr->qbar[a] = (1.0 - w) * qa[a] + w * qb[a];
    pr->dq[a] = qb[a] - qa[a];
  }
  pr->w = w;
  pr->cmean = 0.5 * w * (1.0 - w);
  pr->rb = 1.0 - w;
  crd_q4_mitc_rows(xl0, pr->Bc);
  crd_q4_mem_prepare(xl0, mt->am, &pr->mem);
  crd_q4_mem_state(&pr->mem, pr->qbar);
  /* w = 1 (the plain element): the strains at q_b are those at qbar = q_b,
   * the terms in dq below are exact zeros and are skipped */
  pr->plain = (w == 1.0);
  pr->pad = 0;
}

/* Gauss point ig (0..3: (-,-) (+,-) (+,+) (-,+)) of crd_q4_local_avg:
 * strains, resultants S (8), energy term *u, the factor *km of the
 * material term of k (crd_q4_gpset), det J (returned) and the
 * operators B and C (200 each, rows as in crd_q4_gpset; rows 8, 9 of B
 * and all of C only with want_k). */
CRD_HD double crd_q4_avg_gp_z(const double *xl0, const crd_q4_avg_pre *pr, int ig, int want_k, double *B,
                              double *C, double *S, double *u, double *km, int zeroed)
{
  const double gp = 0.57735026918962576451, cmean = pr->cmean, rb = pr->rb;
  const double *A = pr->A, *D = pr->D, *dq = pr->dq, s = pr->s;
  /* a term that needs more of the material than A, D, s reads pr->mt */
  double xi = (ig == 0 || ig == 3) ? -gp : gp, eta = (ig < 2) ? -gp : gp;
  double *Bm = B, *Bb = B + 60, *Bs = B + 120, e[3], chi[3], gs[2], dNx[4], dNy[4];
  double det = crd_q4_gp_strains_bc(xl0, pr->qbar, xi, eta, (const double(*)[20])pr->Bc, &pr->mem, Bm, Bb, Bs,
                                    e, chi, gs, dNx, dNy, zeroed);
  double Nm[3], Mb[3], Q[2];
  if (pr->plain) {
    for (int r = 0; r < 3; ++r) {
      Nm[r] = A[3 * r] * e[0] + A[3 * r + 1] * e[1] + A[3 * r + 2] * e[2];
      Mb[r] = D[3 * r] * chi[0] + D[3 * r + 1] * chi[1] + D[3 * r + 2] * chi[2];
    }
    Q[0] = s * gs[0];
    Q[1] = s * gs[1];
    *u = 0.5 * det * (Nm[0] * e[0] + Nm[1] * e[1] + Nm[2] * e[2] + Mb[0] * chi[0] + Mb[1] * chi[1] +
                        Mb[2] * chi[2] + s * (gs[0] * gs[0] + gs[1] * gs[1]));
  } else {
    /* strains at q_b: eps(qbar) + B(qbar) (1-w) dq + (1-w)^2/2 Q(dq,dq) */
    double dwx = 0.0, dwy = 0.0, eb[3], cb[3], gb[2];
    for (int i = 0; i < 4; ++i) {
      dwx += dNx[i] * dq[5 * i + 2];
      dwy += dNy[i] * dq[5 * i + 2];
    }
    double Qd[3] = {dwx * dwx, dwy * dwy, 2.0 * dwx * dwy}, bm[3], bb[3], bs[2];
    for (int r = 0; r < 3; ++r) {
      bm[r] = bb[r] = 0.0;
      for (int a = 0; a < 20; ++a) {
        bm[r] += Bm[20 * r + a] * dq[a];
        bb[r] += Bb[20 * r + a] * dq[a];
      }
      eb[r] = e[r] + rb * bm[r] + 0.5 * rb * rb * Qd[r];
      cb[r] = chi[r] + rb * bb[r];
      e[r] += cmean * Qd[r];                 /* the mean strain */
    }
    for (int r = 0; r < 2; ++r) {
      bs[r] = 0.0;
      for (int a = 0; a < 20; ++a) bs[r] += Bs[20 * r + a] * dq[a];
      gb[r] = gs[r] + rb * bs[r];
    }
    double Nb[3], Mbb[3];
    for (int r = 0; r < 3; ++r) {
      Nm[r] = A[3 * r] * e[0] + A[3 * r + 1] * e[1] + A[3 * r + 2] * e[2];
      Mb[r] = D[3 * r] * chi[0] + D[3 * r + 1] * chi[1] + D[3 * r + 2] * chi[2];
      Nb[r] = A[3 * r] * eb[0] + A[3 * r + 1] * eb[1] + A[3 * r + 2] * eb[2];
      Mbb[r] = D[3 * r] * cb[0] + D[3 * r + 1] * cb[1] + D[3 * r + 2] * cb[2];
    }
    Q[0] = s * gs[0];
    Q[1] = s * gs[1];
    if (pr->mt.xi != 0.0) { /* the dissipative stress xi C (eps_b - eps_a) (crd_q4_local_avg) */
      double de[3], hq = 0.5 * (1.0 - 2.0 * pr->w), x = pr->mt.xi;
      for (int r = 0; r < 3; ++r) de[r] = bm[r] + hq * Qd[r];
      for (int r = 0; r < 3; ++r) {
        Nm[r] += x * (A[3 * r] * de[0] + A[3 * r + 1] * de[1] + A[3 * r + 2] * de[2]);
        Mb[r] += x * (D[3 * r] * bb[0] + D[3 * r + 1] * bb[1] + D[3 * r + 2] * bb[2]);
      }
      Q[0] += x * s * bs[0];
      Q[1] += x * s * bs[1];
    }
    *u = 0.5 * det * (Nb[0] * eb[0] + Nb[1] * eb[1] + Nb[2] * eb[2] + Mbb[0] * cb[0] + Mbb[1] * cb[1] +
                        Mbb[2] * cb[2] + s * (gb[0] * gb[0] + gb[1] * gb[1]));
  }
  for (int r = 0; r < 3; ++r) {
    S[r] = Nm[r];
    S[3 + r] = Mb[r];
  }
  S[6] = Q[0];
  S[7] = Q[1];
  *km = (pr->plain || pr->mt.xi == 0.0) ? det : det * (1.0 + pr->mt.xi / pr->w);
  if (!want_k) return det; /* rows 0..7 of B are Bm, Bb, Bs already; 8, 9 serve k only */
  for (int a = 0; a < 20; ++a) {
    B[160 + a] = dNx[a / 5];
    B[180 + a] = dNy[a / 5];
    for (int r = 0; r < 3; ++r) {
      C[20 * r + a] = A[3 * r] * Bm[a] + A[3 * r + 1] * Bm[20 + a] + A[3 * r + 2] * Bm[40 + a];
      C[60 + 20 * r + a] = D[3 * r] * Bb[a] + D[3 * r + 1] * Bb[20 + a] + D[3 * r + 2] * Bb[40 + a];
    }
    C[120 + a] = Bs[a]; C[140 + a] = Bs[20 + a];
    C[160 + a] = dNx[a / 5]; C[180 + a] = dNy[a / 5];
  }
  return det;
}

/* crd_q4_avg_gp_z on arrays B of any content (zeroed = 0) */
CRD_HD double crd_q4_avg_gp(const double *xl0, const crd_q4_avg_pre *pr, int ig, int want_k, double *B,
                            double *C, double *S, double *u, double *km)
{
  return crd_q4_avg_gp_z(xl0, pr, ig, want_k, B, C, S, u, km, 0);
}

/* The entries read dof a's ten values of Gauss point ig at x[ld (10 ig +
 * c)], c = 0..9: ld = 20 straight from a crd_q4_gpset (x = B[0] + a), ld = 1
 * from a private copy of those 40 values (the split kernels). */

/* One Gauss point's term added to f_a: v + det (B^T S)_a, with x dof a's
 * B values of that point and r its resultants S (8). */
CRD_HD double crd_q4_f_gp_add(double v, const double *x, int ld, const double *r, double det)
{
  return v + det * (x[0] * r[0] + x[ld] * r[1] + x[2 * ld] * r[2] + x[3 * ld] * r[3] + x[4 * ld] * r[4] +
                    x[5 * ld] * r[5] + x[6 * ld] * r[6] + x[7 * ld] * r[7]);
}

/* f_a = sum_gp det (B^T S)_a, the Gauss points in order from zero.  x:
 * dof a's B values, S (32), det (4). */
CRD_HD double crd_q4_f_entry(const double *x, int ld, const double *S, const double *det)
{
  double v = 0.0;
  for (int ig = 0; ig < 4; ++ig) v = crd_q4_f_gp_add(v, x + 10 * ld * ig, ld, S + 8 * ig, det[ig]);
  return v;
}

/* One Gauss point's terms added to k_ab (a <= b): the material term km
 * (B^T C B)_ab, then in the w-w block (ww: a and b both w dofs) the
 * membrane geometric term det N . H_ab.  x: dof a's B values, y: dof b's C
 * values of that point, Nm its membrane resultants, s the shear factor. */
CRD_HD double crd_q4_kt_gp_mat(double v, const double *x, const double *y, int ld, double km, double s)
{
  return v + km * (x[0] * y[0] + x[ld] * y[ld] + x[2 * ld] * y[2 * ld] + x[3 * ld] * y[3 * ld] +
                    x[4 * ld] * y[4 * ld] + x[5 * ld] * y[5 * ld] + s * (x[6 * ld] * y[6 * ld] + x[7 * ld] * y[7 * ld]));
}
CRD_HD double crd_q4_kt_gp_geo(double v, const double *x, const double *y, int ld, const double *Nm, double det)
{
  return v + det * (Nm[0] * x[8 * ld] * y[8 * ld] + Nm[1] * x[9 * ld] * y[9 * ld] +
                    Nm[2] * (x[8 * ld] * y[9 * ld] + x[9 * ld] * y[8 * ld]));
}
CRD_HD double crd_q4_kt_gp_add(double v, const double *x, const double *y, int ld, const double *Nm, double det,
                               double km, double s, int ww)
{
  v = crd_q4_kt_gp_mat(v, x, y, ld, km, s);
  return ww ? crd_q4_kt_gp_geo(v, x, y, ld, Nm, det) : v;
}

/* k_ab (a <= b), the Gauss points in order from zero.  x: dof a's B
 * values, y: dof b's C values, S, det, km (4) as above. */
CRD_HD double crd_q4_kt_entry(const double *x, const double *y, int ld, const double *S, const double *det,
                              const double *km, double s, int ww)
{
  double v = 0.0;
  for (int ig = 0; ig < 4; ++ig)
    v = crd_q4_kt_gp_add(v, x + 10 * ld * ig, y + 10 * ld * ig, ld, S + 8 * ig, det[ig], km[ig], s, ww);
  return v;
}

/* Row and column of entry t (0..209) of the packed upper triangle (row by
 * row, as the element matrices are stored). */
CRD_HD void crd_tri_ij(int t, int *i, int *j)
{
  int r = 0;
  while (t >= 20 - r) {
    t -= 20 - r;
    ++r;
  }
  *i = r;
  *j = r + t;
}

/* The part of df/dq_b that k leaves out (k is the derivative at the mean
 * state).  The mean membrane strain is (1-w) eps(q_a) + w eps(q_b), so its
 * derivative in q_b is w Bm(q_b), not w Bm(qbar); Bm is affine in q (eps
 * quadratic in the transverse gradients), so Bm(q_b) - Bm(qbar) =
 * (1-w) Hm dq, with the rows (dwx dNx_i, dwy dNy_i, dwx dNy_i + dwy dNx_i)
 * on the w of node i (dwx = sum_i dNx_i dw_i, dw the step's transverse
 * increment).  Bending and shear strains are linear, and the geometric
 * term w H.N is exact (H constant), hence
 *   df/dq_b = w (k + kx),  kx = (1-w) sum_gp km Bm(qbar)^T A Hm dq,
 * km = det J (1 + xi/w) as in the material term (the dissipative stress
 * xi A (eps_b - eps_a) has the derivative xi A Bm(q_b)).  kx is not
 * symmetric and has four non-zero columns, the w dofs: it is kept as
 * kx[4 a + i] (row a, column 5 i + 2) and enters E (crd_q4_mid_skew_T).
 * Checked against finite differences in t400-inertia.c. */
/* dw = (dwx, dwy) at a Gauss point from its B rows 8, 9 (dNx, dNy of each
 * dof's node, at [160 + a], [180 + a]). */
CRD_HD void crd_q4_gp_dw(const double *B, const double *dq, double *dw)
{
  dw[0] = dw[1] = 0.0;
  for (int i = 0; i < 4; ++i) {
    dw[0] += B[160 + 5 * i] * dq[5 * i + 2];
    dw[1] += B[180 + 5 * i] * dq[5 * i + 2];
  }
}

/* One Gauss point's term added to kx[4 a + i]: y dof a's C values (A Bm
 * rows at y[0], y[ld], y[2 ld]), (nx, ny) node i's dN, c = (1-w) km. */
CRD_HD double crd_q4_kx_gp_add(double v, const double *y, int ld, double nx, double ny, const double *dw, double c)
{
  double h0 = dw[0] * nx, h1 = dw[1] * ny, h2 = dw[0] * ny + dw[1] * nx;
  return v + c * (y[0] * h0 + y[ld] * h1 + y[2 * ld] * h2);
}

/* kx[4 a + i] with the Gauss points in order from zero: y dof a's three
 * C values per Gauss point (12), n node i's (dNx, dNy) per Gauss point (8),
 * dw (8), c the factors (1-w) km (4). */
CRD_HD double crd_q4_kx_entry(const double *y, const double *n, const double *dw, const double *c)
{
  double v = 0.0;
  for (int ig = 0; ig < 4; ++ig) v = crd_q4_kx_gp_add(v, y + 3 * ig, 1, n[2 * ig], n[2 * ig + 1], dw + 2 * ig, c[ig]);
  return v;
}

/* f (20) and k (20x20) in the element frame from strains that are the
 * weighted means of their values at two states q_a and q_b (the quasi
 * energy-momentum rule, docs/theory.md §6): eps = (1-w) eps(q_a) + w eps(q_b),
 * B and dB/dq likewise.  B is affine in q (eps is quadratic), so the mean
 * B is B(qbar) with qbar = (1-w) q_a + w q_b, and the mean strain is
 *   eps(qbar) + w(1-w)/2 Q(dq, dq),   dq = q_b - q_a,
 * with Q the constant quadratic part (w,x^2, w,y^2, 2 w,x w,y of the
 * membrane strain; bending and shear are linear).  With w = 1/2:
 *   U(q_b) - U(q_a) = f . (q_b - q_a)  exactly (f from the mean strains),
 * because eps(q_b) - eps(q_a) = B(qbar) dq and the energy is quadratic in
 * eps.  k = sum wJ (B^T C B + sum_c (C eps)_c H_c): the exact Hessian with
 * respect to q_b when w = 1 and a symmetric tangent otherwise.
 * Returns the strain energy at q_b; q_a == q_b (or w = 1) is the plain
 * element.  f or k may be NULL; *min_det as below.  The phases above, run
 * by one thread.
 *
 * mt->xi > 0 adds the dissipative stress xi C (eps_b - eps_a) (a strain-
 * difference viscosity in the sense of the modified generalized
 * energy-momentum method, Kuhl and Crisfield 1999).  Its work over the
 * step is xi (B(qbar) dq) . C (eps_b - eps_a), and
 *   eps_b - eps_a = B(qbar) dq + (1 - 2w)/2 Q(dq, dq)
 * (eps quadratic), so at w = 1/2 it is xi |eps_b - eps_a|_C^2 >= 0 exactly:
 * energy is taken out, never put in.  Like the elastic stress it acts
 * through the strains alone, so it has no resultant force and no moment.
 * Its derivative with respect to q_b is xi B^T C B(q_b), taken as
 * xi B^T C B(qbar): the material part of k gets the factor 1 + xi / w
 * (k is per unit w, the weight of q_b; crd_q4_avg_gp).
 *
 * kx (80, or NULL; only with k): the rest of df/dq_b (crd_q4_gp_dw). */
CRD_HD double crd_q4_local_avg(const double *xl0, const double *qa, const double *qb, double w,
                               const crd_q4_mat *mt, double *f, double *k, double *kx, double *min_det)
{
  crd_q4_avg_pre pr;
  crd_q4_avg_prepare(xl0, qa, qb, w, mt, &pr);
  double U = 0.0;
  *min_det = 1e300;
  if (f)
    for (int a = 0; a < 20; ++a) f[a] = 0.0;
  if (k)
    for (int a = 0; a < 20; ++a)
      for (int b = a; b < 20; ++b) k[20 * a + b] = 0.0;
  if (k && kx)
    for (int a = 0; a < 80; ++a) kx[a] = 0.0;
  /* crd_q4_f_entry and crd_q4_kt_entry with the Gauss-point loop outside:
   * the same sums in the same order (Gauss point by Gauss point from
   * zero), one Gauss point's operators at a time (1.6 KB on the stack
   * instead of the set's 13 KB), and short contiguous loops over b that
   * vectorize */
  double B[200], C[200]; /* the zeros of B's pattern written once, at ig = 0 (crd_q4_gp_strains_bc) */
  for (int ig = 0; ig < 4; ++ig) {
    double S[8], u, km;
    double det = crd_q4_avg_gp_z(xl0, &pr, ig, k != 0, B, C, S, &u, &km, ig > 0);
    U += u;
    *min_det = fmin(*min_det, det); /* not a branch: the same in every lane of a batch (elem_lanes.h) */
    if (f)
      for (int a = 0; a < 20; ++a) f[a] = crd_q4_f_gp_add(f[a], B + a, 20, S, det);
    if (!k) continue;
    for (int a = 0; a < 20; ++a) {
      double *kr = k + 20 * a;
      for (int b = a; b < 20; ++b) kr[b] = crd_q4_kt_gp_mat(kr[b], B + a, C + b, 20, km, pr.s);
      if (a % 5 == 2) /* the w-w terms of the row, after its material terms */
        for (int b = a; b < 20; b += 5) kr[b] = crd_q4_kt_gp_geo(kr[b], B + a, C + b, 20, S, det);
    }
    if (!kx) continue;
    double dw[2], c = pr.rb * km;
    crd_q4_gp_dw(B, pr.dq, dw);
    for (int a = 0; a < 20; ++a)
      for (int i = 0; i < 4; ++i)
        kx[4 * a + i] = crd_q4_kx_gp_add(kx[4 * a + i], C + a, 20, B[160 + 5 * i], B[180 + 5 * i], dw, c);
  }
  if (k)
    for (int a = 0; a < 20; ++a)
      for (int b = 0; b < a; ++b) k[20 * a + b] = k[20 * b + a];
  return U;
}

/* Strain energy, f (20) and k (20x20) in the element frame.  f or k may be
 * NULL.  Returns the energy; *min_det gets the smallest Gauss-point det J
 * (<= 0: inverted or degenerate element). */
CRD_HD double crd_q4_local(const double *xl0, const double *q, const crd_q4_mat *mt, double *f,
                           double *k, double *min_det)
{
  return crd_q4_local_avg(xl0, q, q, 1.0, mt, f, k, 0, min_det);
}

#endif
