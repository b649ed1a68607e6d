/* Inertia and the quasi energy-momentum force, element by element:
 *  - kinetic energy from the field equals u'^T m u' / 2 (eq 41);
 *  - dK/dt along a trajectory equals u'^T (m u'' + f_m) (eq 42), by central
 *    differences in time, for every independent pair;
 *  - momenta of rigid motions: L = mass v, J = I w with I = rho h a^4/6 for a
 *    square spinning about its normal;
 *  - mean strains: U(q_b) - U(q_a) = f . (q_b - q_a) exactly (w = 1/2);
 *  - midpoint force (shell_dyn.h): no work on an infinitesimal rigid motion
 *    of the mean state (no resultant force or moment) and, with the energy
 *    correction, work over the step equal to the strain energy change. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"
#include "crdyn/shell_dyn.h"
#include "crdyn/shell_mass.h"

static const crd_q4_mat MAT = {1.0e4, 0.3, 0.05, 0.0, 1.0}; /* the tied membrane shear, the default */

static void quad(double *X0, double *p0)
{
  const double base[12] = {0, 0, 0, 1.1, 0, 0, 1.0, 0.9, 0, -0.1, 1.0, 0};
  for (int a = 0; a < 12; ++a) X0[a] = base[a] + 0.1 * eu_rand();
  for (int i = 0; i < 4; ++i) X0[3 * i + 2] = 0.05 * eu_rand();
  for (int i = 0; i < 4; ++i) {
    p0[3 * i] = 0.1 * eu_rand(); p0[3 * i + 1] = 0.1 * eu_rand(); p0[3 * i + 2] = 1.0;
    eu_normalize(p0 + 3 * i);
  }
}

static void local0(const double *X0, const double *p0, double *xl0)
{
  double z[12] = {0}, ul[20], r0[8];
  crd_cr_frame F;
  crd_q4_local_vars(X0, z, p0, p0, &F, xl0, ul, r0);
}

/* state at time t on the trajectory d + t v + t^2/2 a, pairs n + t nd + t^2/2 ndd */
static void traj(const double *d, const double *p, const int *l, const double *v, const double *a,
                 const double *nd, const double *ndd, double t, double *dt, double *pt, double *vt, double *wt,
                 double *ndt)
{
  for (int i = 0; i < 4; ++i) {
    int n, m;
    crd_dir_pair(l[i], &n, &m);
    for (int c = 0; c < 3; ++c) {
      dt[3 * i + c] = d[3 * i + c] + t * v[3 * i + c] + 0.5 * t * t * a[3 * i + c];
      vt[3 * i + c] = v[3 * i + c] + t * a[3 * i + c];
    }
    double pn = p[3 * i + n] + t * nd[2 * i] + 0.5 * t * t * ndd[2 * i];
    double pm = p[3 * i + m] + t * nd[2 * i + 1] + 0.5 * t * t * ndd[2 * i + 1];
    crd_dir_from_pair(pn, pm, l[i], p[3 * i + l[i]], pt + 3 * i);
    ndt[2 * i] = nd[2 * i] + t * ndd[2 * i];
    ndt[2 * i + 1] = nd[2 * i + 1] + t * ndd[2 * i + 1];
    double A1[6];
    crd_dir_A1(pt + 3 * i, l[i], A1);
    for (int c = 0; c < 3; ++c) wt[3 * i + c] = A1[2 * c] * ndt[2 * i] + A1[2 * c + 1] * ndt[2 * i + 1];
  }
}

static void check_kinetic(int lsel)
{
  double X0[12], p0[12], xl0[12], C[16], d[12], p[12], v[12], a[12], nd[8], ndd[8], Q[9];
  int l[4];
  quad(X0, p0);
  local0(X0, p0, xl0);
  crd_q4_mass_coef(xl0, 2.0, MAT.h, C);
  const double ax[3] = {1, 2, 3};
  eu_rot(ax, 2.0, Q);
  for (int i = 0; i < 4; ++i) {
    double q[3] = {p0[3 * i] + 0.1 * eu_rand(), p0[3 * i + 1] + 0.1 * eu_rand(), p0[3 * i + 2]};
    eu_normalize(q);
    eu_matvec(Q, q, p + 3 * i);
    l[i] = (lsel + i) % 3;
    if (fabs(p[3 * i + l[i]]) < 0.2) l[i] = crd_dir_choose(p + 3 * i);
    for (int c = 0; c < 3; ++c) {
      d[3 * i + c] = 0.3 * eu_rand();
      v[3 * i + c] = eu_rand();
      a[3 * i + c] = eu_rand();
    }
    nd[2 * i] = 0.5 * eu_rand(); nd[2 * i + 1] = 0.5 * eu_rand();
    ndd[2 * i] = eu_rand(); ndd[2 * i + 1] = eu_rand();
  }
  double x[12], dd[12], pp[12], vv[12], ww[12], ndt[8], L[3] = {0}, J[3] = {0};
  traj(d, p, l, v, a, nd, ndd, 0.0, dd, pp, vv, ww, ndt);
  for (int k = 0; k < 12; ++k) x[k] = X0[k] + dd[k];
  double K = crd_q4_kinetic(C, MAT.h, x, pp, vv, ww, L, J);
  double m[400] = {0}, fm[20] = {0}, ud[20], udd[20];
  crd_q4_mass(C, MAT.h, pp, l, nd, 1.0, 1.0, m, fm);
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) { ud[5 * i + c] = v[3 * i + c]; udd[5 * i + c] = a[3 * i + c]; }
    ud[5 * i + 3] = nd[2 * i]; ud[5 * i + 4] = nd[2 * i + 1];
    udd[5 * i + 3] = ndd[2 * i]; udd[5 * i + 4] = ndd[2 * i + 1];
  }
  double Km = 0.0, P = 0.0, sym = 0.0;
  for (int r = 0; r < 20; ++r) {
    double mu = 0.0;
    for (int c = 0; c < 20; ++c) {
      Km += 0.5 * ud[r] * m[20 * r + c] * ud[c];
      mu += m[20 * r + c] * udd[c];
      sym = fmax(sym, fabs(m[20 * r + c] - m[20 * c + r]));
    }
    P += ud[r] * (mu + fm[r]);
  }
  T_NEAR(Km, K, 1e-13, 0.0, "kinetic energy: u'^T m u'/2 equals the field integral (eq 22, 41)");
  T_OK(sym == 0.0, "element mass exactly symmetric");
  double h = 1e-5, Kp, Km2, Lx[3], Jx[3];
  traj(d, p, l, v, a, nd, ndd, h, dd, pp, vv, ww, ndt);
  for (int k = 0; k < 12; ++k) x[k] = X0[k] + dd[k];
  Kp = crd_q4_kinetic(C, MAT.h, x, pp, vv, ww, Lx, Jx);
  traj(d, p, l, v, a, nd, ndd, -h, dd, pp, vv, ww, ndt);
  for (int k = 0; k < 12; ++k) x[k] = X0[k] + dd[k];
  Km2 = crd_q4_kinetic(C, MAT.h, x, pp, vv, ww, Lx, Jx);
  double dK = (Kp - Km2) / (2 * h);
  T_OK(fabs(dK - P) <= 1e-8 * fabs(P) + 1e-12, "pair l=(%d%d%d%d): dK/dt = u'^T (m u'' + f_m) (eq 42): FD %.12g vs %.12g",
       l[0], l[1], l[2], l[3], dK, P);
}

static void check_momenta(void)
{
  /* unit square, h = 0.01, rho = 1: spin w about its normal through the centre */
  double X0[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, p0[12], xl0[12], C[16], v[12], w[12], L[3] = {0}, J[3] = {0};
  for (int i = 0; i < 4; ++i) { p0[3 * i] = p0[3 * i + 1] = 0; p0[3 * i + 2] = 1; }
  local0(X0, p0, xl0);
  crd_q4_mass_coef(xl0, 1.0, 0.01, C);
  const double om = 10.0;
  for (int i = 0; i < 4; ++i) {
    v[3 * i] = -om * (X0[3 * i + 1] - 0.5);
    v[3 * i + 1] = om * (X0[3 * i] - 0.5);
    v[3 * i + 2] = 0;
    w[3 * i] = w[3 * i + 1] = w[3 * i + 2] = 0;
  }
  double K = crd_q4_kinetic(C, 0.01, X0, p0, v, w, L, J);
  double I3 = 0.01 / 6.0;
  T_NEAR(J[2], I3 * om, 1e-14, 0.0, "spinning square: J = rho h a^4/6 w (exact for bilinear fields)");
  T_NEAR(K, 0.5 * I3 * om * om, 1e-14, 0.0, "spinning square: K = I w^2 / 2");
  T_OK(fabs(L[0]) + fabs(L[1]) < 1e-16, "spinning square: L = 0 (got %.2e %.2e)", L[0], L[1]);
  /* tumbling about an in-plane axis: the director term h^2/12 adds to I */
  double L2[3] = {0}, J2[3] = {0};
  for (int i = 0; i < 4; ++i) {
    double r[3] = {X0[3 * i] - 0.5, X0[3 * i + 1] - 0.5, 0}, ax[3] = {om, 0, 0};
    crd_cross3(ax, r, v + 3 * i);
    crd_cross3(ax, p0 + 3 * i, w + 3 * i);
  }
  crd_q4_kinetic(C, 0.01, X0, p0, v, w, L2, J2);
  double I1 = 0.01 * (1.0 / 12.0 + 1e-4 / 12.0);
  T_NEAR(J2[0], I1 * om, 1e-13, 0.0,
         "tumbling square: J_x = rho (h a^4/12 + h^3 a^2/12) w, director inertia included");
}

static void check_mean_strains(void)
{
  double X0[12], p0[12], xl0[12], qa[20], qb[20], f[20], md, Ua, Ub;
  quad(X0, p0);
  local0(X0, p0, xl0);
  for (int a = 0; a < 20; ++a) { qa[a] = 0.05 * eu_rand(); qb[a] = 0.05 * eu_rand(); }
  Ua = crd_q4_local(xl0, qa, &MAT, NULL, NULL, &md);
  Ub = crd_q4_local(xl0, qb, &MAT, NULL, NULL, &md);
  double Ur = crd_q4_local_avg(xl0, qa, qb, 0.5, &MAT, f, NULL, NULL, &md), work = 0.0;
  for (int a = 0; a < 20; ++a) work += f[a] * (qb[a] - qa[a]);
  T_NEAR(Ur, Ub, 1e-13, 0.0, "mean-strain element returns U(q_b)");
  T_NEAR(work, Ub - Ua, 1e-12, 1e-14 * fabs(Ub), "mean strains: U(q_b) - U(q_a) = f . dq exactly (w = 1/2)");
}

/* the bases of the implicit step: A1 at p_b with its p_f part removed */
static void bases(const double *pb, const double *pf, const int *l, double *B)
{
  for (int i = 0; i < 4; ++i) {
    double A1[6], f2 = crd_dot3(pf + 3 * i, pf + 3 * i);
    crd_dir_A1(pb + 3 * i, l[i], A1);
    for (int s = 0; s < 2; ++s) {
      double c = (pf[3 * i] * A1[s] + pf[3 * i + 1] * A1[2 + s] + pf[3 * i + 2] * A1[4 + s]) / f2;
      for (int r = 0; r < 3; ++r) B[6 * i + 2 * r + s] = A1[2 * r + s] - c * pf[3 * i + r];
    }
  }
}

/* coordinates of a vector of the plane p_f^perp in the basis B_i */
static void coords(const double *B, const double *v, double *ab)
{
  double g[4] = {0}, r[2] = {0};
  for (int c = 0; c < 3; ++c) {
    g[0] += B[2 * c] * B[2 * c]; g[1] += B[2 * c] * B[2 * c + 1]; g[3] += B[2 * c + 1] * B[2 * c + 1];
    r[0] += B[2 * c] * v[c]; r[1] += B[2 * c + 1] * v[c];
  }
  double det = g[0] * g[3] - g[1] * g[1];
  ab[0] = (g[3] * r[0] - g[1] * r[1]) / det;
  ab[1] = (-g[1] * r[0] + g[0] * r[1]) / det;
}

static void check_midpoint_force(double step_angle)
{
  double X0[12], p0[12], da[12], pa[12], db[12], pb[12], df[12], pf[12], B[24], fG[20], md, Q[9], Qb[9];
  int l[4];
  quad(X0, p0);
  const double ax[3] = {0.3, -1, 0.5}, axb[3] = {1, 0.2, -0.4};
  eu_rot(ax, 1.7, Q);
  eu_rot(axb, step_angle, Qb);
  for (int i = 0; i < 4; ++i) {
    double xa[3], xb[3], q[3] = {p0[3 * i] + 0.05 * eu_rand(), p0[3 * i + 1] + 0.05 * eu_rand(), p0[3 * i + 2]};
    eu_normalize(q);
    eu_matvec(Q, X0 + 3 * i, xa);
    eu_matvec(Qb, xa, xb);
    for (int c = 0; c < 3; ++c) {
      da[3 * i + c] = xa[c] - X0[3 * i + c] + 0.01 * eu_rand();
      db[3 * i + c] = xb[c] - X0[3 * i + c] + 0.01 * eu_rand();
    }
    eu_matvec(Q, q, pa + 3 * i);
    double qq[3];
    eu_matvec(Qb, pa + 3 * i, qq);
    qq[0] += 0.01 * eu_rand(); qq[1] += 0.01 * eu_rand();
    eu_normalize(qq);
    memcpy(pb + 3 * i, qq, sizeof qq);
    l[i] = crd_dir_choose(pb + 3 * i);
    for (int c = 0; c < 3; ++c) {
      df[3 * i + c] = 0.5 * (da[3 * i + c] + db[3 * i + c]);
      pf[3 * i + c] = 0.5 * (pa[3 * i + c] + pb[3 * i + c]);
    }
  }
  bases(pb, pf, l, B);
  double Ub = crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, 0.5, &MAT, fG, NULL, NULL, &md);
  double Ua = crd_q4_global(X0, p0, da, pa, l, &MAT, NULL, NULL, &md);
  /* work on an infinitesimal rotation w about the origin, and a translation */
  const double om[3] = {0.4, -0.7, 1.1};
  double Wr = 0.0, Wt = 0.0, fmax_ = 0.0, scale = 0.0;
  for (int i = 0; i < 4; ++i) {
    double x[3], dx[3], dp[3], ab[2];
    for (int c = 0; c < 3; ++c) x[c] = X0[3 * i + c] + df[3 * i + c];
    crd_cross3(om, x, dx);
    crd_cross3(om, pf + 3 * i, dp);
    coords(B + 6 * i, dp, ab);
    for (int c = 0; c < 3; ++c) { Wr += fG[5 * i + c] * dx[c]; Wt += fG[5 * i + c]; }
    Wr += fG[5 * i + 3] * ab[0] + fG[5 * i + 4] * ab[1];
    for (int a = 0; a < 5; ++a) fmax_ = fmax(fmax_, fabs(fG[5 * i + a]));
    scale += crd_norm3(x);
  }
  T_OK(fabs(Wr) <= 1e-12 * fmax_ * scale, "step %.2f rad: midpoint force has no moment about the origin (%.2e of %.2e)",
       step_angle, Wr, fmax_ * scale);
  T_OK(fabs(Wt) <= 1e-12 * fmax_, "step %.2f rad: midpoint force has no resultant (%.2e)", step_angle, Wt);
  double W = 0.0;
  for (int i = 0; i < 4; ++i) {
    double dp[3], ab[2];
    for (int c = 0; c < 3; ++c) { W += fG[5 * i + c] * (db[3 * i + c] - da[3 * i + c]); dp[c] = pb[3 * i + c] - pa[3 * i + c]; }
    coords(B + 6 * i, dp, ab);
    W += fG[5 * i + 3] * ab[0] + fG[5 * i + 4] * ab[1];
  }
  T_NEAR(W, Ub - Ua, 1e-10, 1e-12 * fabs(Ub),
         "step with rotation: work of the corrected midpoint force = strain energy change");
  /* the dissipative stress xi C (eps_b - eps_a) (crd_q4_local_avg): no
   * resultant, no moment, and work - dU = xi |d eps|_C^2 > 0, linear in xi */
  double Dx[2];
  for (int k = 0; k < 2; ++k) {
    crd_q4_mat mx = MAT;
    mx.xi = 0.1 * (k + 1);
    crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, 0.5, &mx, fG, NULL, NULL, &md);
    double Wd = 0.0, Wdr = 0.0, Wdt = 0.0;
    for (int i = 0; i < 4; ++i) {
      double x[3], dx[3], dp[3], ab[2], dpr[3], abr[2];
      for (int c = 0; c < 3; ++c) {
        x[c] = X0[3 * i + c] + df[3 * i + c];
        dp[c] = pb[3 * i + c] - pa[3 * i + c];
        Wd += fG[5 * i + c] * (db[3 * i + c] - da[3 * i + c]);
        Wdt += fG[5 * i + c];
      }
      coords(B + 6 * i, dp, ab);
      Wd += fG[5 * i + 3] * ab[0] + fG[5 * i + 4] * ab[1];
      crd_cross3(om, x, dx);
      crd_cross3(om, pf + 3 * i, dpr);
      coords(B + 6 * i, dpr, abr);
      for (int c = 0; c < 3; ++c) Wdr += fG[5 * i + c] * dx[c];
      Wdr += fG[5 * i + 3] * abr[0] + fG[5 * i + 4] * abr[1];
    }
    T_OK(fabs(Wdr) <= 1e-12 * fmax_ * scale && fabs(Wdt) <= 1e-12 * fmax_,
         "step %.2f rad, xi = %.1f: the dissipative force has no moment (%.2e) and no resultant (%.2e)", step_angle,
         mx.xi, Wdr, Wdt);
    Dx[k] = Wd - (Ub - Ua);
  }
  T_OK(Dx[0] > 0 && fabs(Dx[1] - 2.0 * Dx[0]) <= 1e-9 * Dx[1],
       "step %.2f rad: the work of the dissipative stress is positive and linear in xi (%.6e, %.6e for xi = 0.1, "
       "0.2)", step_angle, Dx[0], Dx[1]);
}

/* f_G of the step as a function of the end state u_b (translations and
 * pair of the normals; midpoint and bases follow it), w = 0.6 (no energy
 * correction): its finite-difference Jacobian against the symmetric tangent
 * w K and against w K + E (crd_q4_mid_skew_T, with kx). */
static double fg_xi; /* the dissipation of the Newton-matrix check */
static void fg_of_ub(const double *X0, const double *p0, const double *da, const double *pa, const double *db,
                     const double *pb, const int *l, double w, double *fG, double *KG, double *E)
{
  crd_q4_mat mx = MAT;
  mx.xi = fg_xi;
  double df[12], pf[12], B[24], md;
  for (int a = 0; a < 12; ++a) {
    df[a] = (1 - w) * da[a] + w * db[a];
    pf[a] = (1 - w) * pa[a] + w * pb[a];
  }
  bases(pb, pf, l, B);
  crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, w, &mx, fG, KG, E, &md);
}

static void check_newton_matrix(double xi)
{
  double X0[12], p0[12], da[12], pa[12], db[12], pb[12], Q[9], Qb[9], fG[20], KG[400], E[400];
  int l[4];
  quad(X0, p0);
  const double ax[3] = {0.3, -1, 0.5}, axb[3] = {1, 0.2, -0.4};
  eu_rot(ax, 1.7, Q);
  eu_rot(axb, 0.3, Qb);
  for (int i = 0; i < 4; ++i) {
    double xa[3], xb[3];
    eu_matvec(Q, X0 + 3 * i, xa);
    eu_matvec(Qb, xa, xb);
    for (int c = 0; c < 3; ++c) {
      da[3 * i + c] = xa[c] - X0[3 * i + c] + 0.01 * eu_rand();
      db[3 * i + c] = xb[c] - X0[3 * i + c] + 0.01 * eu_rand();
    }
    eu_matvec(Q, p0 + 3 * i, pa + 3 * i);
    eu_matvec(Qb, pa + 3 * i, pb + 3 * i);
    pb[3 * i] += 0.01 * eu_rand();
    eu_normalize(pb + 3 * i);
    l[i] = crd_dir_choose(pb + 3 * i);
  }
  const double w = 0.6, h = 1e-6;
  fg_xi = xi;
  fg_of_ub(X0, p0, da, pa, db, pb, l, w, fG, KG, E);
  double e_sym = 0.0, e_full = 0.0, e_tt = 0.0, big = 0.0;
  for (int b = 0; b < 20; ++b) {
    double dbp[12], pbp[12], dbm[12], pbm[12], fp[20], fm[20];
    memcpy(dbp, db, sizeof dbp); memcpy(pbp, pb, sizeof pbp);
    memcpy(dbm, db, sizeof dbm); memcpy(pbm, pb, sizeof pbm);
    int i = b / 5, s2 = b % 5, n, m;
    if (s2 < 3) { dbp[3 * i + s2] += h; dbm[3 * i + s2] -= h; }
    else {
      crd_dir_pair(l[i], &n, &m);
      int c = s2 == 3 ? n : m;
      double pp[3], pm[3];
      memcpy(pp, pb + 3 * i, sizeof pp); memcpy(pm, pb + 3 * i, sizeof pm);
      pp[c] += h; pm[c] -= h;
      crd_dir_from_pair(pp[n], pp[m], l[i], pb[3 * i + l[i]], pbp + 3 * i);
      crd_dir_from_pair(pm[n], pm[m], l[i], pb[3 * i + l[i]], pbm + 3 * i);
    }
    fg_of_ub(X0, p0, da, pa, dbp, pbp, l, w, fp, NULL, NULL);
    fg_of_ub(X0, p0, da, pa, dbm, pbm, l, w, fm, NULL, NULL);
    for (int a = 0; a < 20; ++a) {
      double fd = (fp[a] - fm[a]) / (2 * h), sym = w * KG[20 * a + b];
      e_sym = fmax(e_sym, fabs(fd - sym));
      e_full = fmax(e_full, fabs(fd - sym - E[20 * a + b]));
      if (a % 5 < 3 && b % 5 < 3) e_tt = fmax(e_tt, fabs(fd - sym - E[20 * a + b]));
      big = fmax(big, fabs(fd));
    }
  }
  T_OK(e_full <= 0.05 * e_sym && e_full <= 5e-3 * big,
       "step of 0.3 rad, xi = %g: Newton matrix of f_G: FD against w K misses by %.2e, against w K + E by %.2e "
       "(of %.2e)", xi, e_sym, e_full, big);
  /* the translation block is exact with kx (crd_q4_local_avg): what is
   * left is the finite differences' error (h^2 times third derivatives,
   * 3e-8 here); without kx it misses by 2.1e-1 (xi = 0) and 4.7e-2
   * (xi = 0.2).  The rows and columns of the normals keep the derivative
   * of the bases in p_b (up to 1e-1 on the diagonal: docs/dynamics.md,
   * Linearisation) */
  T_OK(e_tt <= 1e-8 * big, "step of 0.3 rad, xi = %g: translation block of w K + E against FD: %.2e (of %.2e)", xi,
       e_tt, big);
}

/* The same at w = 1/2, where f_G carries the energy correction
 * (crd_q4_mid_energy_fix): E with the correction's derivative
 * (crd_q4_mid_efix_dE; crd_q4_global_mid adds it when fG is asked for
 * too) against E without it (fG not asked for), on the translation block
 * and on the whole matrix.  step: the rotation of the step (rad). */
static double check_newton_matrix_corrected(double step)
{
  double X0[12], p0[12], da[12], pa[12], db[12], pb[12], Q[9], Qb[9], fG[20], KG[400], E[400], E0[400];
  int l[4];
  quad(X0, p0);
  const double ax[3] = {0.3, -1, 0.5}, axb[3] = {1, 0.2, -0.4};
  eu_rot(ax, 1.7, Q);
  eu_rot(axb, step, Qb);
  for (int i = 0; i < 4; ++i) {
    double xa[3], xb[3];
    eu_matvec(Q, X0 + 3 * i, xa);
    eu_matvec(Qb, xa, xb);
    for (int c = 0; c < 3; ++c) {
      da[3 * i + c] = xa[c] - X0[3 * i + c] + 0.01 * eu_rand();
      db[3 * i + c] = xb[c] - X0[3 * i + c] + 0.01 * eu_rand();
    }
    eu_matvec(Q, p0 + 3 * i, pa + 3 * i);
    eu_matvec(Qb, pa + 3 * i, pb + 3 * i);
    pb[3 * i] += 0.01 * eu_rand();
    eu_normalize(pb + 3 * i);
    l[i] = crd_dir_choose(pb + 3 * i);
  }
  const double w = 0.5, h = 1e-6;
  double df[12], pf[12], B[24], md;
  fg_xi = 0.0;
  for (int a = 0; a < 12; ++a) {
    df[a] = 0.5 * (da[a] + db[a]);
    pf[a] = 0.5 * (pa[a] + pb[a]);
  }
  bases(pb, pf, l, B);
  crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, w, &MAT, fG, KG, E, &md);
  crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, w, &MAT, NULL, NULL, E0, &md);
  double e0 = 0.0, e1 = 0.0, t0 = 0.0, t1 = 0.0, big = 0.0, dmax = 0.0;
  for (int b = 0; b < 20; ++b) {
    double dbp[12], pbp[12], dbm[12], pbm[12], fp[20], fm[20];
    memcpy(dbp, db, sizeof dbp); memcpy(pbp, pb, sizeof pbp);
    memcpy(dbm, db, sizeof dbm); memcpy(pbm, pb, sizeof pbm);
    int i = b / 5, s2 = b % 5, n, m;
    if (s2 < 3) { dbp[3 * i + s2] += h; dbm[3 * i + s2] -= h; }
    else {
      crd_dir_pair(l[i], &n, &m);
      int c = s2 == 3 ? n : m;
      double pp[3], pm[3];
      memcpy(pp, pb + 3 * i, sizeof pp); memcpy(pm, pb + 3 * i, sizeof pm);
      pp[c] += h; pm[c] -= h;
      crd_dir_from_pair(pp[n], pp[m], l[i], pb[3 * i + l[i]], pbp + 3 * i);
      crd_dir_from_pair(pm[n], pm[m], l[i], pb[3 * i + l[i]], pbm + 3 * i);
    }
    fg_of_ub(X0, p0, da, pa, dbp, pbp, l, w, fp, NULL, NULL);
    fg_of_ub(X0, p0, da, pa, dbm, pbm, l, w, fm, NULL, NULL);
    for (int a = 0; a < 20; ++a) {
      double fd = (fp[a] - fm[a]) / (2 * h), sym = w * KG[20 * a + b];
      double r0 = fabs(fd - sym - E0[20 * a + b]), r1 = fabs(fd - sym - E[20 * a + b]);
      e0 = fmax(e0, r0);
      e1 = fmax(e1, r1);
      if (a % 5 < 3 && b % 5 < 3) { t0 = fmax(t0, r0); t1 = fmax(t1, r1); }
      big = fmax(big, fabs(fd));
      dmax = fmax(dmax, fabs(E[20 * a + b] - E0[20 * a + b]));
    }
  }
  /* The derivative is exact up to a relative O(|dz|) (the central
   * difference for H_f[dz] and the bases' motion: crd_q4_mid_efix_kr), so
   * it must take out most of the translation block's miss, and what it
   * leaves must shrink with the step (main, below) */
  T_OK(t1 <= 0.1 * t0 && dmax > 0.0,
       "step of %.2f rad, w = 1/2: translation block of the Newton matrix against FD: %.2e without the derivative "
       "of the energy correction, %.2e with it (of %.2e; the derivative's largest entry %.2e)",
       step, t0, t1, big, dmax);
  T_OK(e1 <= e0, "step of %.2f rad, w = 1/2: whole Newton matrix against FD: %.2e without the correction's "
       "derivative, %.2e with it (the rest: the bases' derivative in p_b)", step, e0, e1);
  return t1 / t0;
}

int main(void)
{
  srand(7);
  for (int s = 0; s < 3; ++s) check_kinetic(s);
  check_momenta();
  check_mean_strains();
  check_midpoint_force(0.05);
  check_midpoint_force(0.6);
  check_newton_matrix(0.0);
  check_newton_matrix(0.2);
  double r_small = check_newton_matrix_corrected(0.05), r_big = check_newton_matrix_corrected(0.3);
  T_OK(r_small < 0.5 * r_big, "the miss left by the correction's derivative falls with the step: %.3f of the "
       "translation block's miss at 0.05 rad, %.3f at 0.3 rad", r_small, r_big);
  return T_DONE();
}
