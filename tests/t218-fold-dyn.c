/* The implicit step at intersection nodes (include/crdyn/fold_dyn.h): the
 * p-space midpoint tangent against central differences of the midpoint
 * force; the p-space midpoint force's exact energy balance (with the
 * correction) and its zero resultant and moment; the triad basis B: every
 * corner's step dR c is B s with one s, and the forces it leaves free have
 * no moment about the origin at the mean triad.  Each check has a broken
 * counterpart next to it that it must catch. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"
#include "crdyn/fold_dyn.h"

static crd_q4_mat MAT = {1.0e4, 0.3, 0.05, 0.0, 1.0};

static void random_triad(double *E, double ang)
{
  double ax[3] = {eu_rand(), eu_rand(), eu_rand()}, Q[9];
  if (crd_norm3(ax) < 1e-3) ax[2] = 1.0;
  eu_rot(ax, ang, Q);
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) E[3 * a + c] = Q[3 * c + a];
}

/* E turned by the rotation of angle ang about a random axis. */
static void turn_triad(const double *E, double ang, double *Eb)
{
  double ax[3] = {eu_rand(), eu_rand(), eu_rand()}, Q[9];
  if (crd_norm3(ax) < 1e-3) ax[0] = 1.0;
  eu_rot(ax, ang, Q);
  for (int a = 0; a < 3; ++a) eu_matvec(Q, E + 3 * a, Eb + 3 * a);
}

/* A random element's two states: corners' positions d and normals p at a
 * (the initial normals p0 turned by up to ang) and at b (a turned again
 * by step rad, and moved). */
typedef struct mstate { double X0[12], p0[12], da[12], pa[12], db[12], pb[12]; } mstate;

static void random_states(mstate *s, double ang, double step)
{
  double Q[9], ax[3];
  eu_random_quad(s->X0, s->p0, 0.1);
  for (int i = 0; i < 4; ++i) { /* corners of different patches: each its own normal */
    for (int c = 0; c < 3; ++c) ax[c] = eu_rand();
    eu_rot(ax, 0.3 * eu_rand(), Q);
    double t[3];
    eu_matvec(Q, s->p0 + 3 * i, t);
    memcpy(s->p0 + 3 * i, t, sizeof t);
  }
  for (int c = 0; c < 3; ++c) ax[c] = eu_rand();
  eu_rot(ax, ang, Q);
  for (int i = 0; i < 4; ++i) {
    double x[3], y[3];
    eu_matvec(Q, s->X0 + 3 * i, x);
    for (int c = 0; c < 3; ++c) s->da[3 * i + c] = x[c] - s->X0[3 * i + c] + 0.02 * eu_rand();
    eu_matvec(Q, s->p0 + 3 * i, y);
    double z[3] = {y[0] + 0.02 * eu_rand(), y[1] + 0.02 * eu_rand(), y[2] + 0.02 * eu_rand()};
    eu_normalize(z);
    memcpy(s->pa + 3 * i, z, sizeof z);
  }
  for (int c = 0; c < 3; ++c) ax[c] = eu_rand();
  eu_rot(ax, step, Q);
  for (int i = 0; i < 4; ++i) {
    double x[3], xa[3];
    for (int c = 0; c < 3; ++c) xa[c] = s->X0[3 * i + c] + s->da[3 * i + c];
    eu_matvec(Q, xa, x);
    for (int c = 0; c < 3; ++c) s->db[3 * i + c] = x[c] - s->X0[3 * i + c] + 0.2 * step * 0.02 * eu_rand();
    eu_matvec(Q, s->pa + 3 * i, s->pb + 3 * i);
  }
}

static void midpoint(const mstate *s, double *df, double *pf)
{
  for (int a = 0; a < 12; ++a) {
    df[a] = 0.5 * (s->da[a] + s->db[a]);
    pf[a] = 0.5 * (s->pa[a] + s->pb[a]);
  }
}

/* The midpoint force g6 without its energy correction, and its p-space
 * tangent without the transformation's second derivatives (the broken
 * counterparts: steps of crd_fold_mid_pspace done here). */
static void mid_raw(const mstate *s, double *g6, double *K6geo_less)
{
  double df[12], pf[12], f[20], k[400], md, zero[20] = {0}, junk[24];
  midpoint(s, df, pf);
  crd_q4_mid_st st;
  crd_q4_mid_begin(s->X0, s->p0, s->da, s->pa, s->db, s->pb, df, pf, &st);
  crd_q4_local_avg(st.xl0, st.qa, st.qb, 0.5, &MAT, f, k, 0, &md);
  crd_q4_rot_pullback(st.ul, st.J, st.abc, f, k);
  crd_fold_pspace_T(&st.F, s->X0, df, pf, f, k, g6, 0);
  if (K6geo_less) crd_fold_pspace_T(&st.F, s->X0, df, pf, zero, k, junk, K6geo_less);
}

static double mid_force(const mstate *s, double *g6, double *K6)
{
  double df[12], pf[12], dU, md;
  midpoint(s, df, pf);
  return crd_fold_mid_pspace(s->X0, s->p0, s->da, s->pa, s->db, s->pb, df, pf, 0.5, &MAT, g6, K6, &dU, &md);
}

/* max |dg6/dz_b (central differences) - K/2| / max |K/2| at a zero step
 * (b = a): there dz_f = dz_b / 2 and the averaged strains' derivative is
 * half the tangent's, so the midpoint force's derivative is K6 / 2
 * exactly (steps of 1e-4: the differences' own error 3e-9; at 1e-6 their
 * round-off, 3e-5).  broken: K6 without the transformation's second derivatives. */
static double mid_tangent_error(int broken)
{
  double worst = 0.0;
  for (int trial = 0; trial < 6; ++trial) {
    mstate s;
    random_states(&s, 0.8, 0.0);
    memcpy(s.db, s.da, sizeof s.db);
    memcpy(s.pb, s.pa, sizeof s.pb);
    double g6[24], K6[576], Kb[576], scale = 0.0, err = 0.0;
    mid_force(&s, g6, K6);
    if (broken) mid_raw(&s, g6, Kb), memcpy(K6, Kb, sizeof Kb);
    for (int a = 0; a < 576; ++a) scale = fmax(scale, 0.5 * fabs(K6[a]));
    for (int j = 0; j < 24; ++j) {
      double eps = 1e-4, gp[24], gm[24];
      mstate sp = s, sm = s;
      double *zp = j % 6 < 3 ? sp.db : sp.pb, *zm = j % 6 < 3 ? sm.db : sm.pb;
      zp[3 * (j / 6) + j % 3] += eps;
      zm[3 * (j / 6) + j % 3] -= eps;
      mid_force(&sp, gp, 0);
      mid_force(&sm, gm, 0);
      for (int a = 0; a < 24; ++a) err = fmax(err, fabs((gp[a] - gm[a]) / (2 * eps) - 0.5 * K6[24 * a + j]));
    }
    worst = fmax(worst, err / scale);
  }
  return worst;
}

static void check_mid_tangent(void)
{
  double e = mid_tangent_error(0), b = mid_tangent_error(1);
  T_OK(e < 1e-7, "p-space midpoint tangent: dg/dz_b = K6/2 at a zero step, central differences (worst %.2e)", e);
  T_OK(b > 1e-3, "broken: K6 without the transformation's second derivatives refused (worst %.2e)", b);
}

/* A finite step (0.3 rad, deformation): g6 . dz = U_b - U_a (the energy
 * correction), resultant and moment of g6 about the origin at the midpoint
 * zero.  broken: g6 without the correction misses the energy. */
static void check_mid_balance(void)
{
  double we = 0.0, wb = 0.0, wr = 0.0, wm = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    mstate s;
    random_states(&s, 1.0, 0.3);
    double g6[24], g6r[24], df[12], pf[12], fj[24], md;
    double Ub = mid_force(&s, g6, 0);
    mid_raw(&s, g6r, 0);
    double Ua = crd_fold_pspace(s.X0, s.p0, s.da, s.pa, &MAT, fj, 0, &md);
    double Ub2 = crd_fold_pspace(s.X0, s.p0, s.db, s.pb, &MAT, fj, 0, &md);
    midpoint(&s, df, pf);
    double W = 0.0, Wr = 0.0, F[3] = {0, 0, 0}, M[3] = {0, 0, 0}, gs = 0.0, xs = 0.0;
    for (int i = 0; i < 4; ++i) {
      double xf[3], t[3], u[3];
      for (int c = 0; c < 3; ++c) {
        double dd = s.db[3 * i + c] - s.da[3 * i + c], dp = s.pb[3 * i + c] - s.pa[3 * i + c];
        W += g6[6 * i + c] * dd + g6[6 * i + 3 + c] * dp;
        Wr += g6r[6 * i + c] * dd + g6r[6 * i + 3 + c] * dp;
        F[c] += g6[6 * i + c];
        xf[c] = s.X0[3 * i + c] + df[3 * i + c];
        gs = fmax(gs, fabs(g6[6 * i + c]) + fabs(g6[6 * i + 3 + c]));
        xs = fmax(xs, fabs(xf[c]));
      }
      crd_cross3(xf, g6 + 6 * i, t);
      crd_cross3(pf + 3 * i, g6 + 6 * i + 3, u);
      for (int c = 0; c < 3; ++c) M[c] += t[c] + u[c];
    }
    double dU = Ub2 - Ua, sc = fabs(Ua) + fabs(Ub2);
    (void)Ub;
    we = fmax(we, fabs(W - dU) / sc);
    wb = fmax(wb, fabs(Wr - dU) / sc);
    wr = fmax(wr, crd_norm3(F) / gs);
    wm = fmax(wm, crd_norm3(M) / (gs * (xs + 1.0)));
  }
  T_OK(we < 1e-12, "midpoint force with the correction: work = U_b - U_a over 0.3 rad steps (worst %.2e)", we);
  T_OK(wb > 1e-8, "broken: without the correction the work misses it (worst %.2e)", wb);
  T_OK(wr < 1e-12 && wm < 1e-12, "no resultant (%.2e) and no moment (%.2e) at the midpoint", wr, wm);
}

/* Least squares s for dr_i = B_i s over the corners (normal equations);
 * returns max_i |dr_i - B_i s| / max_i |dr_i|. */
static double fit_error(int nc, const double (*B)[9], const double (*dr)[3])
{
  double N[9] = {0}, rhs[3] = {0}, s[3], worst = 0.0, big = 0.0;
  for (int i = 0; i < nc; ++i)
    for (int a = 0; a < 3; ++a) {
      for (int c = 0; c < 3; ++c) rhs[a] += B[i][3 * c + a] * dr[i][c];
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) N[3 * a + b] += B[i][3 * c + a] * B[i][3 * c + b];
    }
  crd_fold_solve3(N, rhs, s);
  for (int i = 0; i < nc; ++i) {
    double r[3];
    for (int c = 0; c < 3; ++c) r[c] = dr[i][c] - (B[i][3 * c] * s[0] + B[i][3 * c + 1] * s[1] + B[i][3 * c + 2] * s[2]);
    worst = fmax(worst, crd_norm3(r));
    big = fmax(big, crd_norm3(dr[i]));
  }
  return worst / big;
}

/* The moment about the origin, at the mean triad, of random corner forces
 * with their B-components projected out (relative to |h| |r|). */
static double free_moment(int nc, const double (*B)[9], const double (*rf)[3])
{
  double h[3][3], N[9] = {0}, rhs[3] = {0}, y[3], M[3] = {0, 0, 0}, hs = 0.0, rs = 0.0;
  for (int i = 0; i < nc; ++i)
    for (int c = 0; c < 3; ++c) h[i][c] = eu_rand();
  for (int i = 0; i < nc; ++i)
    for (int a = 0; a < 3; ++a) {
      for (int c = 0; c < 3; ++c) rhs[a] += B[i][3 * c + a] * h[i][c];
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) N[3 * a + b] += B[i][3 * c + a] * B[i][3 * c + b];
    }
  crd_fold_solve3(N, rhs, y);
  for (int i = 0; i < nc; ++i) {
    double t[3];
    for (int c = 0; c < 3; ++c) h[i][c] -= B[i][3 * c] * y[0] + B[i][3 * c + 1] * y[1] + B[i][3 * c + 2] * y[2];
    crd_cross3(rf[i], h[i], t);
    for (int c = 0; c < 3; ++c) M[c] += t[c];
    hs = fmax(hs, crd_norm3(h[i]));
    rs = fmax(rs, crd_norm3(rf[i]));
  }
  return crd_norm3(M) / (hs * rs);
}

/* Steps of 0.4 rad of random triads with three corners of random c, every
 * chart at the end: the step of every corner is B s with one s (fit to
 * round-off) and the free forces have no moment.  broken: A1 at the end
 * of the step (statics' basis) in place of B. */
static void basis_errors(int broken, double *fit, double *mom)
{
  *fit = *mom = 0.0;
  for (int trial = 0; trial < 90; ++trial) {
    double Ea[9], Eb[9], Ef[9], B[3][9], dr[3][3], rf[3][3];
    random_triad(Ea, 3.1 * eu_rand());
    turn_triad(Ea, 0.4, Eb);
    for (int a = 0; a < 9; ++a) Ef[a] = 0.5 * (Ea[a] + Eb[a]);
    crd_triad_chart ch = crd_triad_chart_at(Eb, trial % 3, (trial / 3) % 3);
    if (crd_triad_measure(Eb, ch.l, ch.k) < 0.05) continue;
    for (int i = 0; i < 3; ++i) {
      double c[3] = {eu_rand(), eu_rand(), eu_rand()}, ra[3], rb[3];
      eu_normalize(c);
      for (int s = 0; s < 3; ++s) {
        ra[s] = c[0] * Ea[s] + c[1] * Ea[3 + s] + c[2] * Ea[6 + s];
        rb[s] = c[0] * Eb[s] + c[1] * Eb[3 + s] + c[2] * Eb[6 + s];
        dr[i][s] = rb[s] - ra[s];
        rf[i][s] = 0.5 * (ra[s] + rb[s]);
      }
      if (broken) crd_triad_A1(Eb, ch, rb, B[i]);
      else crd_triad_mid_basis(Ef, Eb, ch, c, B[i]);
    }
    *fit = fmax(*fit, fit_error(3, (const double(*)[9])B, (const double(*)[3])dr));
    *mom = fmax(*mom, free_moment(3, (const double(*)[9])B, (const double(*)[3])rf));
  }
}

static void check_basis(void)
{
  double f, m, fb, mb;
  basis_errors(0, &f, &m);
  basis_errors(1, &fb, &mb);
  T_OK(f < 1e-13, "triad basis: each corner's dR c = B s with one s (worst %.2e)", f);
  T_OK(m < 1e-13, "triad basis: the forces it leaves free have no moment at the mean triad (worst %.2e)", m);
  T_OK(fb > 1e-3 && mb > 1e-3, "broken: A1 at the end of the step refused (fit %.2e, moment %.2e)", fb, mb);
}

int main(void)
{
  srand(218);
  check_mid_tangent();
  check_mid_balance();
  check_basis();
  return T_DONE();
}
