/* Intersection nodes (include/crdyn/fold_node.h): the triad charts
 * (reconstruction, A1, the contracted second derivatives, A2, rates across
 * a switch of chart) and the element with one to four intersection nodes
 * (finite differences of f and k_T in random large rotations for every
 * chart, exact symmetry, rigid motions, zero modes of free elements and of
 * assembled folds and junctions).  Each kind of check has a deliberately
 * broken counterpart next to it that the check must catch. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"
#include "crdyn/fold_node.h"

static crd_q4_mat MAT = {1.0e4, 0.3, 0.05, 0.0, 1.0};

static double maxabs(const double *a, int n)
{
  double m = 0; for (int i = 0; i < n; ++i) if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

/* a random rotation (row-major) and the triad of its columns (rows of E) */
static void random_rot(double *Q)
{
  double ax[3] = {eu_rand(), eu_rand(), eu_rand()};
  if (crd_norm3(ax) < 1e-3) ax[2] = 1.0;
  eu_rot(ax, 3.1 * eu_rand(), Q);
}
static void triad_of(const double *Q, double *E)
{
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) E[3 * a + c] = Q[3 * c + a];
}
/* E' = axes of E rotated by Q */
static void rotate_triad(const double *Q, const double *E, double *Er)
{
  for (int a = 0; a < 3; ++a) eu_matvec(Q, E + 3 * a, Er + 3 * a);
}
static double min_measure(const double *E)
{
  double m = 1.0;
  for (int ch = 0; ch < 9; ++ch) m = fmin(m, crd_triad_measure(E, ch / 3, ch % 3));
  return m;
}
/* r = sum_a c_a e_a */
static void triad_apply(const double *E, const double *c, double *r)
{
  for (int s = 0; s < 3; ++s) r[s] = c[0] * E[s] + c[1] * E[3 + s] + c[2] * E[6 + s];
}
static void r_of_theta(const double *th, crd_triad_chart ch, const double *c, double *r)
{
  double E[9];
  crd_triad_from_theta(th, ch, E);
  triad_apply(E, c, r);
}

/* ---------------------------------------------------------------- the charts */

/* z of a triad from theta with the coupling -y_k z_k left out (broken) */
static void from_theta_broken(const double *th, crd_triad_chart ch, double *E)
{
  crd_triad_from_theta(th, ch, E);
  double *y = E + 3, *z = E + 6;
  int k = ch.k, i = (k + 1) % 3, j = (k + 2) % 3;
  double xk = ch.sx * sqrt(fmax(0.0, 1.0 - y[k] * y[k] - th[2] * th[2])), r2 = y[i] * y[i] + y[j] * y[j];
  z[i] = -y[j] * xk / r2;
  z[j] = y[i] * xk / r2;
  crd_cross3(y, z, E);
}
static double orth_err(const double *E)
{
  double e = 0.0, x[3];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) e = fmax(e, fabs(crd_dot3(E + 3 * a, E + 3 * b) - (a == b)));
  crd_cross3(E, E + 3, x);
  for (int c = 0; c < 3; ++c) e = fmax(e, fabs(x[c] - E[6 + c]));
  return e;
}

static void check_reconstruction(void)
{
  double erec = 0, eorth = 0, eorth_best = 0, minbest = 1, worst_ratio = 1, brk_rec = 1e300, brk_orth = 1e300;
  int nchart = 0, best_is_max = 1;
  for (int t = 0; t < 2000; ++t) {
    double Q[9], E[9];
    random_rot(Q);
    triad_of(Q, E);
    crd_triad_chart best = crd_triad_choose(E);
    double mb = crd_triad_measure(E, best.l, best.k);
    minbest = fmin(minbest, mb);
    for (int ch = 0; ch < 9; ++ch) {
      double m = crd_triad_measure(E, ch / 3, ch % 3);
      best_is_max &= m <= mb;
      if (m < 0.05) continue; /* near singular: the conditioning, not the formula */
      crd_triad_chart c = crd_triad_chart_at(E, ch / 3, ch % 3);
      double th[9], E2[9], Eb[9];
      crd_triad_theta(E, c, th);
      double mr = crd_triad_from_theta(th, c, E2);
      worst_ratio = fmin(worst_ratio, mr / m);
      double e = 0.0;
      for (int a = 0; a < 9; ++a) e = fmax(e, fabs(E2[a] - E[a]));
      erec = fmax(erec, e * m); /* the error of a chart grows as 1/measure */
      eorth = fmax(eorth, orth_err(E2) * m * m); /* through rho^2 >= x_k^2 y_l^2 */
      if (c.l == best.l && c.k == best.k) eorth_best = fmax(eorth_best, orth_err(E2));
      ++nchart;
      /* broken: the other root of x_k (a rotation, but not this one) */
      crd_triad_chart cb = c;
      cb.sx = -cb.sx;
      crd_triad_from_theta(th, cb, Eb);
      e = 0.0;
      for (int a = 0; a < 9; ++a) e = fmax(e, fabs(Eb[a] - E[a]));
      brk_rec = fmin(brk_rec, e);
      /* broken: z without the coupling -y_k z_k (not orthonormal) */
      from_theta_broken(th, c, Eb);
      if (fabs(E[3 + ch % 3] * E[6 + ch % 3]) > 0.05) brk_orth = fmin(brk_orth, orth_err(Eb));
    }
  }
  T_OK(erec <= 4e-15 && eorth <= 2e-15 && eorth_best <= 1e-15,
       "triad from theta: %d charts (measure >= 0.05) of 2000 random triads: |E - E'| <= %.2e / measure; "
       "orthonormal and right-handed to %.2e in the best chart, %.2e / measure^2 in any",
       nchart, erec, eorth_best, eorth);
  T_OK(fabs(worst_ratio - 1.0) < 1e-12, "from_theta returns the chart's measure |y_l x_k| (worst ratio %.15f)", worst_ratio);
  T_OK(best_is_max && minbest >= 1.0 / 3.0 - 1e-15,
       "crd_triad_choose: the largest measure of the nine charts, >= 1/3 (smallest %.4f)", minbest);
  T_OK(brk_rec > 1e-3, "broken: the other root of x_k is caught (|E - E'| >= %.2e)", brk_rec);
  T_OK(brk_orth > 1e-3, "broken: z without the y_k z_k coupling is caught (orthonormality error >= %.2e)", brk_orth);
  double E[9], th[3] = {0.8, 0.7, 0.1};
  crd_triad_chart ch = {2, 0, 1.0, 1.0};
  T_OK(crd_triad_from_theta(th, ch, E) == 0.0 && isfinite(E[0] + E[4] + E[8]),
       "theta outside its chart: measure 0, finite values");
}

/* A1, the contracted Hessian and A2 of r = R c against finite differences
 * in theta, every chart; the raw Hessian symmetric to round-off; broken:
 * the Hessian without the d W term. */
static void hess_broken(const double *E, crd_triad_chart ch, const double *r, const double *f, double *H)
{
  double w[9];
  crd_triad_W(E, ch, w);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      H[3 * a + b] = crd_dot3(f, w + 3 * b) * crd_dot3(w + 3 * a, r) - crd_dot3(f, r) * crd_dot3(w + 3 * a, w + 3 * b);
}

static void check_chart_derivatives(void)
{
  double eA1 = 0, eH = 0, eA2 = 0, asym = 0, bH = 1e300, bsym = 1e300, bA2 = 1e300, bA1 = 1e300;
  int ntri = 0;
  for (int t = 0; t < 40; ++t) {
    double Q[9], E[9], c[3] = {eu_rand(), eu_rand(), eu_rand()}, f[3] = {eu_rand(), eu_rand(), eu_rand()};
    random_rot(Q);
    triad_of(Q, E);
    if (min_measure(E) < 0.15) { --t; continue; }
    ++ntri;
    eu_normalize(c);
    for (int chi = 0; chi < 9; ++chi) {
      crd_triad_chart ch = crd_triad_chart_at(E, chi / 3, chi % 3),
                      cw = crd_triad_chart_at(E, (chi / 3 + 1) % 3, chi % 3); /* another l */
      double th[3], r[3], A1[9], A1w[9], H[9], Hr[9], Hb[9], vd[3] = {eu_rand(), eu_rand(), eu_rand()}, A2[3];
      crd_triad_theta(E, ch, th);
      triad_apply(E, c, r);
      crd_triad_A1(E, ch, r, A1);
      crd_triad_A1(E, cw, r, A1w);
      crd_triad_hess(E, ch, r, f, H);
      crd_triad_hess_raw(E, ch, r, f, Hr);
      hess_broken(E, ch, r, f, Hb);
      crd_triad_A2(E, ch, r, vd, A2);
      double h = 1e-6, errA1 = 0, errH = 0, errHb = 0, errA1w = 0;
      for (int b = 0; b < 3; ++b) {
        double tp[3], tm[3], rp[3], rm[3], Ep[9], Em[9], A1p[9], A1m[9];
        memcpy(tp, th, sizeof tp); memcpy(tm, th, sizeof tm);
        tp[b] += h; tm[b] -= h;
        r_of_theta(tp, ch, c, rp);
        r_of_theta(tm, ch, c, rm);
        for (int s = 0; s < 3; ++s) {
          errA1 = fmax(errA1, fabs((rp[s] - rm[s]) / (2 * h) - A1[3 * s + b]));
          errA1w = fmax(errA1w, fabs((rp[s] - rm[s]) / (2 * h) - A1w[3 * s + b]));
        }
        crd_triad_from_theta(tp, ch, Ep);
        crd_triad_from_theta(tm, ch, Em);
        crd_triad_A1(Ep, ch, rp, A1p);
        crd_triad_A1(Em, ch, rm, A1m);
        for (int a = 0; a < 3; ++a) {
          double fd = 0.0;
          for (int s = 0; s < 3; ++s) fd += f[s] * (A1p[3 * s + a] - A1m[3 * s + a]) / (2 * h);
          errH = fmax(errH, fabs(fd - H[3 * a + b]));
          errHb = fmax(errHb, fabs(fd - 0.5 * (Hb[3 * a + b] + Hb[3 * b + a])));
        }
      }
      /* A2: second difference of r along theta + s vd */
      double s = 2e-4, r2[3], tp[3], tm[3], rp[3], rm[3], errA2 = 0, errA2b = 0;
      for (int a = 0; a < 3; ++a) { tp[a] = th[a] + s * vd[a]; tm[a] = th[a] - s * vd[a]; }
      r_of_theta(tp, ch, c, rp);
      r_of_theta(tm, ch, c, rm);
      for (int a = 0; a < 3; ++a) r2[a] = (rp[a] - 2 * r[a] + rm[a]) / (s * s);
      double om[3], omd[3], zero[3] = {0, 0, 0}, t1[3], t2[3];
      crd_triad_omega(E, ch, vd, zero, om, omd);
      crd_cross3(om, r, t1);
      crd_cross3(om, t1, t2); /* broken A2: om x (om x r) alone */
      for (int a = 0; a < 3; ++a) {
        errA2 = fmax(errA2, fabs(r2[a] - A2[a]));
        errA2b = fmax(errA2b, fabs(r2[a] - t2[a]));
      }
      /* errors relative to the largest entry of what is checked */
      double sA1 = maxabs(A1, 9), sH = maxabs(H, 9), sA2 = maxabs(A2, 3), as = 0, bs = 0;
      eA1 = fmax(eA1, errA1 / sA1);
      eH = fmax(eH, errH / sH);
      eA2 = fmax(eA2, errA2 / sA2);
      bA1 = fmin(bA1, errA1w / sA1);
      bH = fmin(bH, errHb / sH);
      bA2 = fmin(bA2, errA2b / sA2);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          as = fmax(as, fabs(Hr[3 * a + b] - Hr[3 * b + a]) / sH);
          bs = fmax(bs, fabs(Hb[3 * a + b] - Hb[3 * b + a]) / sH);
        }
      asym = fmax(asym, as);
      bsym = fmin(bsym, bs);
      if (H[1] != H[3] || H[2] != H[6] || H[5] != H[7]) asym = 1.0;
    }
  }
  T_OK(eA1 <= 1e-8, "A1 = dr/dtheta, %d random triads x 9 charts (FD rel err %.2e)", ntri, eA1);
  T_OK(eH <= 1e-7, "f . d2r/dtheta2 = d(f . A1)/dtheta (FD rel err %.2e)", eH);
  T_OK(eA2 <= 1e-5, "A2 = d2r/dtheta2 : th' th' (eq 34) against a second difference (rel err %.2e)", eA2);
  T_OK(asym <= 1e-14, "the Hessian formula is symmetric before symmetrization to %.2e (and exactly after)", asym);
  T_OK(bA1 > 1e-3, "broken: A1 of another chart is caught (FD err >= %.2e)", bA1);
  T_OK(bH > 1e-3, "broken: the Hessian without d W is caught (FD err >= %.2e)", bH);
  T_OK(bsym > 1e-4, "broken: without d W the formula is not symmetric (asymmetry >= %.2e)", bsym);
  T_OK(bA2 > 1e-3, "broken: A2 without the W M' term is caught (err >= %.2e)", bA2);
}

/* ---------------------------------------------------- rates across a switch */

/* R(t) = Rot(b, be t^2/2 + b1 t) Rot(a, al t) R0 */
typedef struct traj { double a[3], al, b[3], be, b1, R0[9]; } traj;
static void traj_E(const traj *T, double t, double *E)
{
  double Qa[9], Qb[9], Q[9], Rt[9];
  eu_rot(T->a, T->al * t, Qa);
  eu_rot(T->b, 0.5 * T->be * t * t + T->b1 * t, Qb);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += Qb[3 * i + k] * Qa[3 * k + j];
      Q[3 * i + j] = v;
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += Q[3 * i + k] * T->R0[3 * k + j];
      Rt[3 * i + j] = v;
    }
  triad_of(Rt, E);
}
static int chart_id(crd_triad_chart c) { return 3 * c.l + c.k; }

/* rates of theta in chart ch (signs fixed) by central differences at t */
static void fd_rates(const traj *T, double t, crd_triad_chart ch, double *th, double *thd, double *thdd)
{
  /* fourth-order central differences */
  double tau = 1e-3, v[5][3];
  for (int s = 0; s < 5; ++s) {
    double E[9];
    traj_E(T, t + (s - 2) * tau, E);
    crd_triad_theta(E, ch, v[s]);
  }
  for (int a = 0; a < 3; ++a) {
    th[a] = v[2][a];
    thd[a] = (-v[4][a] + 8 * v[3][a] - 8 * v[1][a] + v[0][a]) / (12 * tau);
    thdd[a] = (-v[4][a] + 16 * v[3][a] - 30 * v[2][a] + 16 * v[1][a] - v[0][a]) / (12 * tau * tau);
  }
}

static void check_switch(void)
{
  int nsw = 0, nl = 0, nk = 0;
  double ev = 0, ea = 0, eth = 0, bv = 1e300, ba = 1e300;
  for (int trial = 0; trial < 12; ++trial) {
    traj T;
    for (int c = 0; c < 3; ++c) { T.a[c] = eu_rand(); T.b[c] = eu_rand(); }
    T.al = 1.0 + eu_rand(); T.be = 2.0 * eu_rand(); T.b1 = 0.7 * eu_rand();
    random_rot(T.R0);
    double E[9];
    traj_E(&T, 0.0, E);
    crd_triad_chart prev = crd_triad_choose(E);
    double tprev = 0.0;
    for (int s = 1; s <= 400 && nsw < 24; ++s) {
      double t = 0.01 * s;
      traj_E(&T, t, E);
      crd_triad_chart cur = crd_triad_choose(E);
      if (chart_id(cur) == chart_id(prev) && cur.sy == prev.sy && cur.sx == prev.sx) { tprev = t; continue; }
      /* bisect to the switch: the chart the rule takes just after it */
      double lo = tprev, hi = t;
      for (int it = 0; it < 50; ++it) {
        double mid = 0.5 * (lo + hi);
        traj_E(&T, mid, E);
        crd_triad_chart cm = crd_triad_choose(E);
        if (chart_id(cm) == chart_id(prev) && cm.sy == prev.sy && cm.sx == prev.sx) lo = mid; else hi = mid;
      }
      double ts = 0.5 * (lo + hi);
      traj_E(&T, ts, E);
      /* the old chart keeps its signs; the new one takes the signs at ts */
      crd_triad_chart to = crd_triad_chart_at(E, cur.l, cur.k);
      nl += cur.l != prev.l;
      nk += cur.k != prev.k;
      double thA[3], vA[3], aA[3], thB[3], vB[3], aB[3], th2[3], v2[3], a2[3];
      fd_rates(&T, ts, prev, thA, vA, aA);
      fd_rates(&T, ts, to, thB, vB, aB);
      crd_triad_switch(E, prev, to, vA, aA, th2, v2, a2);
      double sv = maxabs(vB, 3) + 1, sa = maxabs(aB, 3) + 1;
      double M[9], w[9], a3[3];
      crd_triad_W(E, prev, w);
      crd_triad_rows(E, to, M);
      for (int c = 0; c < 3; ++c) {
        a3[c] = 0.0; /* broken acceleration map: M_B W_A th''_A (the chain rule's first term alone) */
        for (int a = 0; a < 3; ++a) a3[c] += crd_dot3(M + 3 * c, w + 3 * a) * aA[a];
      }
      for (int c = 0; c < 3; ++c) {
        eth = fmax(eth, fabs(th2[c] - thB[c]));
        ev = fmax(ev, fabs(v2[c] - vB[c]) / sv);
        ea = fmax(ea, fabs(a2[c] - aB[c]) / sa);
      }
      double dv = 0, da = 0;
      for (int c = 0; c < 3; ++c) { dv = fmax(dv, fabs(vA[c] - vB[c]) / sv); da = fmax(da, fabs(a3[c] - aB[c]) / sa); }
      if (chart_id(to) != chart_id(prev)) bv = fmin(bv, dv);
      ba = fmin(ba, da);
      ++nsw;
      prev = cur;
      tprev = t;
    }
  }
  T_OK(nsw >= 10 && nl > 0 && nk > 0, "%d switches of the best chart found on 12 random motions (%d of l, %d of k)", nsw,
       nl, nk);
  T_OK(eth <= 1e-15, "at a switch, the new chart's values are read from the triad (err %.2e)", eth);
  T_OK(ev <= 1e-6 && ea <= 1e-5,
       "rates mapped across the switch equal the new chart's rates of the same motion (rel err: th' %.2e, th'' %.2e)",
       ev, ea);
  T_OK(bv > 1e-3, "broken: rates carried over unmapped jump (rel diff >= %.2e)", bv);
  T_OK(ba > 1e-4, "broken: th'' mapped without the M' terms is caught (rel err >= %.2e)", ba);
}

/* ------------------------------------------------------------ the element */

typedef struct elem {
  double X0[12], p0[12], d[12];
  crd_fold_node nd[4];
} elem;


/* element e in a random deformed state: rigid rotation Q + translation +
 * deformation def; nodes in mask are intersection nodes whose triads
 * (initial: random, kept where all nine charts have measure >= 0.15 in
 * the current state) turn with Q and a small perturbation.  charts[i]:
 * the chart index 3 l + k of node i. */
static void random_elem(elem *el, int mask, const double *Q, double def, const int *charts, double *E0s)
{
  const double c0[3] = {0.3, 0.2, -0.1}, tr[3] = {0.7, -1.2, 2.0};
  for (int i = 0; i < 4; ++i) {
    double v[3], w[3];
    for (int k = 0; k < 3; ++k) v[k] = el->X0[3 * i + k] - c0[k];
    eu_matvec(Q, v, w);
    for (int k = 0; k < 3; ++k) el->d[3 * i + k] = w[k] + c0[k] + tr[k] - el->X0[3 * i + k] + def * eu_rand();
    if (mask >> i & 1) {
      double E[9], E0[9], Rq[9], Ed[9], dax[3] = {eu_rand(), eu_rand(), eu_rand()}, Dq[9];
      eu_rot(dax, def, Dq);
      do {
        random_rot(Rq);
        triad_of(Rq, E0);
        rotate_triad(Dq, E0, Ed);
        rotate_triad(Q, Ed, E);
      } while (min_measure(E) < 0.15);
      double cc[3];
      for (int a = 0; a < 3; ++a) cc[a] = crd_dot3(E0 + 3 * a, el->p0 + 3 * i);
      crd_fold_node_triad(el->nd + i, E, crd_triad_chart_at(E, charts[i] / 3, charts[i] % 3), cc);
      if (E0s) memcpy(E0s + 9 * i, E0, sizeof E0);
    } else {
      double pp[3] = {el->p0[3 * i] + def * eu_rand(), el->p0[3 * i + 1] + def * eu_rand(), el->p0[3 * i + 2]}, p[3];
      eu_normalize(pp);
      eu_matvec(Q, pp, p);
      crd_fold_node_smooth(el->nd + i, p, crd_dir_choose(p));
    }
  }
}

static double elem_eval(const elem *el, double *f, double *K)
{
  double md;
  return crd_fold_elem(el->X0, el->p0, el->d, el->nd, &MAT, f, K, &md);
}

/* el with element variable `dof` moved by h (charts kept) */
static void perturb(const elem *el, int dof, double h, elem *out)
{
  *out = *el;
  int off[4], n = crd_fold_offsets(el->nd, off), i = 3;
  (void)n;
  while (off[i] > dof) --i;
  int a = dof - off[i];
  crd_fold_node *nd = out->nd + i;
  if (a < 3) { out->d[3 * i + a] += h; return; }
  if (nd->tri) {
    double th[3], E[9];
    crd_triad_theta(nd->E, nd->ch, th);
    th[a - 3] += h;
    crd_triad_from_theta(th, nd->ch, E);
    crd_fold_node_triad(nd, E, nd->ch, nd->c);
    return;
  }
  int n2, m2;
  crd_dir_pair(nd->l, &n2, &m2);
  double pn = nd->p[n2], pm = nd->p[m2], p[3];
  if (a == 3) pn += h; else pm += h;
  crd_dir_from_pair(pn, pm, nd->l, nd->p[nd->l], p);
  crd_fold_node_smooth(nd, p, nd->l);
}

/* FD errors of f against U and of K (given) against f */
static void fd_errors(const elem *el, const double *f, const double *K, int n, double *errf, double *errk)
{
  double h = 1e-6;
  *errf = *errk = 0;
  for (int b = 0; b < n; ++b) {
    elem ep, em;
    double fp[24], fm[24];
    perturb(el, b, h, &ep);
    perturb(el, b, -h, &em);
    double Up = elem_eval(&ep, fp, NULL), Um = elem_eval(&em, fm, NULL);
    *errf = fmax(*errf, fabs((Up - Um) / (2 * h) - f[b]));
    for (int a = 0; a < n; ++a) *errk = fmax(*errk, fabs((fp[a] - fm[a]) / (2 * h) - K[n * a + b]));
  }
}

static void check_smooth_consistency(void)
{
  double X0[12], p0[12], Q[9], ef = 0, ek = 0, eb = 1e300;
  const double ax[3] = {1, 2, 3};
  eu_rot(ax, 2.0, Q);
  for (int t = 0; t < 4; ++t) {
    elem el;
    eu_random_quad(X0, p0, 0.1);
    memcpy(el.X0, X0, sizeof X0); memcpy(el.p0, p0, sizeof p0);
    random_elem(&el, 0, Q, 0.05, NULL, NULL);
    double p[12], f[24], K[576], fG[20], KG[400], md;
    int l[4];
    for (int i = 0; i < 4; ++i) { memcpy(p + 3 * i, el.nd[i].p, 3 * sizeof(double)); l[i] = el.nd[i].l; }
    int n = 20;
    elem_eval(&el, f, K);
    crd_q4_global(X0, p0, el.d, p, l, &MAT, fG, KG, &md);
    for (int a = 0; a < n; ++a) {
      ef = fmax(ef, fabs(f[a] - fG[a]) / maxabs(fG, 20));
      for (int b = 0; b < n; ++b) ek = fmax(ek, fabs(K[n * a + b] - KG[20 * a + b]) / maxabs(KG, 400));
    }
    /* broken: the pairs' curvature term (lam_l d2p_l/dn2) left out */
    double f6[24], eK = 0.0;
    crd_fold_pspace(X0, p0, el.d, p, &MAT, f6, NULL, &md);
    for (int i = 0; i < 4; ++i) {
      double Hn[9];
      crd_fold_node_hess(el.nd + i, f6 + 6 * i + 3, Hn);
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
          int r = 5 * i + 3 + a, c = 5 * i + 3 + b;
          eK = fmax(eK, fabs(K[n * r + c] - Hn[3 * a + b] - KG[20 * r + c]) / maxabs(KG, 400));
        }
    }
    eb = fmin(eb, eK);
  }
  T_OK(ef <= 1e-13 && ek <= 1e-13,
       "all nodes smooth: the p-space route equals crd_q4_global (rel diff f %.2e, K %.2e)", ef, ek);
  T_OK(eb > 1e-6, "broken: without the pairs' curvature term the same comparison fails (rel diff >= %.2e)", eb);
}

/* the Hessian term of the intersection nodes with d W left out (broken) */
static void break_K(const elem *el, double *K, int n)
{
  int off[4];
  crd_fold_offsets(el->nd, off);
  double p[12], f6[24], md;
  for (int i = 0; i < 4; ++i) memcpy(p + 3 * i, el->nd[i].p, 3 * sizeof(double));
  crd_fold_pspace(el->X0, el->p0, el->d, p, &MAT, f6, NULL, &md);
  for (int i = 0; i < 4; ++i) {
    if (!el->nd[i].tri) continue;
    double H[9], Hb[9];
    crd_triad_hess(el->nd[i].E, el->nd[i].ch, el->nd[i].p, f6 + 6 * i + 3, H);
    hess_broken(el->nd[i].E, el->nd[i].ch, el->nd[i].p, f6 + 6 * i + 3, Hb);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        K[n * (off[i] + 3 + a) + off[i] + 3 + b] += 0.5 * (Hb[3 * a + b] + Hb[3 * b + a]) - H[3 * a + b];
  }
}

static void check_element_fd(void)
{
  const int masks[4] = {0x4, 0x9, 0x7, 0xF}; /* one, two, three, four intersection nodes */
  const double axes[4][3] = {{1, 2, 3}, {-0.3, 1, 0.2}, {0.5, -0.5, 1}, {0.2, 0.9, -0.4}};
  const double angles[4] = {2.0, 2.9, -1.7, 2.4};
  for (int s = 0; s < 4; ++s) {
    double X0[12], p0[12], Q[9];
    eu_random_quad(X0, p0, 0.04 * s);
    eu_rot(axes[s], angles[s], Q);
    double wf = 0, wk = 0, wasym = 0;
    int ok_all = 1, count = 0;
    for (int c = 0; c < 9; ++c) {
      elem el;
      memcpy(el.X0, X0, sizeof X0); memcpy(el.p0, p0, sizeof p0);
      int charts[4];
      for (int i = 0; i < 4; ++i) charts[i] = (c + i) % 9;
      random_elem(&el, masks[s], Q, 0.05, charts, NULL);
      double f[24], K[576], errf, errk;
      int off[4], n = crd_fold_offsets(el.nd, off);
      elem_eval(&el, f, K);
      fd_errors(&el, f, K, n, &errf, &errk);
      double asym = 0;
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) asym = fmax(asym, fabs(K[n * a + b] - K[n * b + a]));
      double rf = errf / maxabs(f, n), rk = errk / maxabs(K, n * n);
      int ok = rf <= 1e-6 && rk <= 2e-6 && asym == 0.0;
      ok_all &= ok;
      wf = fmax(wf, rf); wk = fmax(wk, rk); wasym = fmax(wasym, asym);
      ++count;
      T_OK(ok, "%d intersection node(s), charts from %d (l %d k %d at the first), rot %.1f rad: f FD rel err %.2e, "
               "k_T FD rel err %.2e, K exactly symmetric (%.1e)",
           __builtin_popcount(masks[s]), c, c / 3, c % 3, angles[s], rf, rk, asym);
      if (c) continue;
      /* broken counterparts, once per set of nodes */
      double Kb[576], ebf, ebk;
      memcpy(Kb, K, sizeof K);
      break_K(&el, Kb, n);
      fd_errors(&el, f, Kb, n, &ebf, &ebk);
      T_OK(ebk / maxabs(K, n * n) > 1e-4, "broken: K with the Hessian of the triad chart without d W is caught "
                                          "(FD rel err %.2e)", ebk / maxabs(K, n * n));
      elem ew = el; /* the same state, the analytic f and K in other charts (the FD runs in el's charts) */
      for (int i = 0; i < 4; ++i)
        if (ew.nd[i].tri) {
          crd_triad_chart cw = crd_triad_chart_at(ew.nd[i].E, (ew.nd[i].ch.l + 1) % 3, ew.nd[i].ch.k);
          crd_fold_node_triad(ew.nd + i, ew.nd[i].E, cw, ew.nd[i].c);
        }
      double fw[24], Kw[576];
      elem_eval(&ew, fw, Kw);
      fd_errors(&el, fw, Kw, n, &ebf, &ebk);
      T_OK(ebf / maxabs(f, n) > 1e-3, "broken: f formed in a chart other than the variables' is caught (FD rel err "
                                      "%.2e)", ebf / maxabs(f, n));
    }
    (void)count;
    T_OK(ok_all, "%d intersection node(s): all 9 charts at every such node pass (max rel err f %.2e, k_T %.2e)",
         __builtin_popcount(masks[s]), wf, wk);
  }
}

static void check_rigid(void)
{
  const int masks[4] = {0x1, 0x6, 0xB, 0xF};
  for (int s = 0; s < 4; ++s) {
    double X0[12], p0[12], Q[9], ax[3] = {eu_rand(), eu_rand(), eu_rand()}, E0s[36];
    eu_random_quad(X0, p0, 0.1);
    eu_rot(ax, 2.5, Q);
    elem el;
    memcpy(el.X0, X0, sizeof X0); memcpy(el.p0, p0, sizeof p0);
    int charts[4];
    for (int i = 0; i < 4; ++i) charts[i] = (3 * s + 4 * i) % 9;
    random_elem(&el, masks[s], Q, 0.0, charts, E0s);
    double f[24], K[576];
    int off[4], n = crd_fold_offsets(el.nd, off);
    double U = elem_eval(&el, f, K), scale = MAT.E * MAT.h;
    T_OK(fabs(U) <= 1e-12 * scale && maxabs(f, n) <= 1e-10 * scale,
         "%d intersection node(s): rigid motion (rot 2.5 rad + translation, triads turned with it): U = %.2e, |f| = %.2e",
         __builtin_popcount(masks[s]), U, maxabs(f, n));
    /* broken: the triads left at their initial orientation */
    for (int i = 0; i < 4; ++i)
      if (masks[s] >> i & 1) crd_fold_node_triad(el.nd + i, E0s + 9 * i, el.nd[i].ch, el.nd[i].c);
    U = elem_eval(&el, f, NULL);
    T_OK(U > 1e-3 * scale, "broken: the same motion with the triads not turned stores energy (U = %.2e)", U);
  }
}

/* ------------------------------------------------- zero modes, assembled */

/* a mesh of quads around shared nodes: node kinds (1: intersection),
 * each element's nodes, positions and per-element corner normals */
typedef struct mesh {
  int nn, ne, tri[8], en[3][4], dofs, off[8];
  double X[24], pc[3][12], E0[8][9];
} mesh;

static void mesh_offsets(mesh *m)
{
  m->dofs = 0;
  for (int i = 0; i < m->nn; ++i) { m->off[i] = m->dofs; m->dofs += m->tri[i] ? 6 : 5; }
}

/* flat element normal (the diagonals' cross product) at every corner */
static void mesh_normals(mesh *m)
{
  for (int e = 0; e < m->ne; ++e) {
    const double *x0 = m->X + 3 * m->en[e][0], *x1 = m->X + 3 * m->en[e][1], *x2 = m->X + 3 * m->en[e][2],
                 *x3 = m->X + 3 * m->en[e][3];
    double a[3], b[3], nrm[3];
    for (int c = 0; c < 3; ++c) { a[c] = x2[c] - x0[c]; b[c] = x3[c] - x1[c]; }
    crd_cross3(a, b, nrm);
    eu_normalize(nrm);
    for (int i = 0; i < 4; ++i) memcpy(m->pc[e] + 3 * i, nrm, sizeof nrm);
  }
}

/* K of the free mesh at its initial state (stress free) */
static void mesh_K(const mesh *m, double *K)
{
  int N = m->dofs;
  for (int a = 0; a < N * N; ++a) K[a] = 0.0;
  for (int e = 0; e < m->ne; ++e) {
    elem el;
    for (int i = 0; i < 4; ++i) {
      int g = m->en[e][i];
      memcpy(el.X0 + 3 * i, m->X + 3 * g, 3 * sizeof(double));
      memcpy(el.p0 + 3 * i, m->pc[e] + 3 * i, 3 * sizeof(double));
      for (int c = 0; c < 3; ++c) el.d[3 * i + c] = 0.0;
      if (m->tri[g]) {
        double c[3];
        for (int a = 0; a < 3; ++a) c[a] = crd_dot3(m->E0[g] + 3 * a, el.p0 + 3 * i);
        crd_fold_node_triad(el.nd + i, m->E0[g], crd_triad_choose(m->E0[g]), c);
      } else {
        crd_fold_node_smooth(el.nd + i, el.p0 + 3 * i, crd_dir_choose(el.p0 + 3 * i));
      }
    }
    double f[24], Ke[576];
    int off[4], n = crd_fold_offsets(el.nd, off);
    elem_eval(&el, f, Ke);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        int gi = m->en[e][i], gj = m->en[e][j], ni = 3 + crd_fold_node_nr(el.nd + i), nj = 3 + crd_fold_node_nr(el.nd + j);
        for (int a = 0; a < ni; ++a)
          for (int b = 0; b < nj; ++b) K[N * (m->off[gi] + a) + m->off[gj] + b] += Ke[n * (off[i] + a) + off[j] + b];
      }
  }
}

static int count_zero(const double *K, int n, double *ratio)
{
  double w[48];
  eu_eig_sym(n, K, w);
  int nz = 0;
  for (int a = 0; a < n; ++a) nz += fabs(w[a]) < 1e-8 * w[n - 1];
  *ratio = nz < n ? fabs(w[nz]) / w[n - 1] : 0.0;
  return nz;
}

/* shared edge S0 = node 0, S1 = node 1 along x; fin f at angle phi[f] about x */
static void fin_mesh(mesh *m, int nfin, const double *phi, int tri_shared)
{
  memset(m, 0, sizeof *m);
  m->nn = 2 + 2 * nfin;
  m->ne = nfin;
  double S[6] = {0, 0, 0, 1, 0, 0};
  memcpy(m->X, S, sizeof S);
  for (int f = 0; f < nfin; ++f) {
    double cy = cos(phi[f]), sz = sin(phi[f]), len = 0.9 + 0.1 * f;
    double b2[3] = {1.05 + 0.05 * f, len * cy, len * sz}, b3[3] = {-0.05 * f, len * cy * 1.1, len * sz * 1.1};
    memcpy(m->X + 3 * (2 + 2 * f), b2, sizeof b2);
    memcpy(m->X + 3 * (3 + 2 * f), b3, sizeof b3);
    m->en[f][0] = 0; m->en[f][1] = 1; m->en[f][2] = 2 + 2 * f; m->en[f][3] = 3 + 2 * f;
  }
  m->tri[0] = m->tri[1] = tri_shared;
  for (int i = 0; i < 2; ++i) { /* initial triads: random (the element sees c = R_0^T p0) */
    double Q[9];
    random_rot(Q);
    triad_of(Q, m->E0[i]);
  }
  mesh_offsets(m);
  mesh_normals(m);
}

static void check_zero_modes(void)
{
  /* one free element: six rigid modes and, per intersection node, the
   * triad's turn about the patch normal, which this element alone does
   * not see (om = p: r' = p x p = 0) */
  const int masks[4] = {0x2, 0x5, 0xE, 0xF};
  for (int s = 0; s < 4; ++s) {
    double X0[12], p0[12], Q[9];
    eu_random_quad(X0, p0, 0.06 * s);
    elem el;
    memcpy(el.X0, X0, sizeof X0); memcpy(el.p0, p0, sizeof p0);
    int charts[4];
    for (int i = 0; i < 4; ++i) charts[i] = (2 * s + 5 * i) % 9;
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(Q, I3, sizeof Q);
    random_elem(&el, masks[s], Q, 0.0, charts, NULL);
    double f[24], K[576], ratio;
    int off[4], n = crd_fold_offsets(el.nd, off), m = __builtin_popcount(masks[s]);
    elem_eval(&el, f, K);
    int nz = count_zero(K, n, &ratio);
    double kv = 0.0;
    for (int i = 0; i < 4; ++i) {
      if (!el.nd[i].tri) continue;
      double v[24] = {0}, thd[3];
      crd_triad_rates(el.nd[i].E, el.nd[i].ch, el.nd[i].p, NULL, thd, NULL);
      for (int a = 0; a < 3; ++a) v[off[i] + 3 + a] = thd[a];
      for (int a = 0; a < n; ++a) {
        double r = 0.0;
        for (int b = 0; b < n; ++b) r += K[n * a + b] * v[b];
        kv = fmax(kv, fabs(r) / (maxabs(K, n * n) * maxabs(v, n)));
      }
    }
    T_OK(nz == 6 + m && kv <= 1e-12,
         "free element, %d intersection node(s), stress free: %d zero eigenvalues = 6 rigid + %d turns about the patch "
         "normals (|K v| of those %.1e; next/max %.2e)", m, nz, m, kv, ratio);
  }
  /* assembled: a fold (2 patches) and a junction (3) along a shared edge */
  mesh m;
  static double Kbig[48 * 48];
  double ratio;
  const double fold[2] = {-M_PI / 2 - 0.2, M_PI / 2 - 1.2};
  fin_mesh(&m, 2, fold, 1);
  mesh_K(&m, Kbig);
  int nz = count_zero(Kbig, m.dofs, &ratio);
  T_OK(nz == 6, "a free fold of 2 elements (2 intersection nodes, %d dofs, stress free): exactly %d zero eigenvalues "
                "(7th/max %.2e)", m.dofs, nz, ratio);
  const double junc[3] = {0.0, 2.0, 4.1};
  fin_mesh(&m, 3, junc, 1);
  mesh_K(&m, Kbig);
  nz = count_zero(Kbig, m.dofs, &ratio);
  T_OK(nz == 6, "a free junction of 3 elements on one edge (%d dofs): exactly %d zero eigenvalues (7th/max %.2e)",
       m.dofs, nz, ratio);
  /* broken: two coplanar elements joined by triads: the common normal
   * leaves each triad's turn about it free */
  const double flat[2] = {-M_PI / 2, M_PI / 2};
  fin_mesh(&m, 2, flat, 1);
  mesh_K(&m, Kbig);
  nz = count_zero(Kbig, m.dofs, &ratio);
  T_OK(nz == 8, "broken: coplanar elements joined by triads are caught: %d zero eigenvalues, not 6", nz);
}

/* ------------------------------------------------------------ inertia */

/* the element's normals at theta0 + t v + t^2/2 a (rotational slots of the
 * element's global vectors; charts kept) */
static void nodes_at(const crd_fold_node *nd0, const double *v, const double *a, double t, crd_fold_node *nd)
{
  int off[4];
  crd_fold_offsets(nd0, off);
  for (int i = 0; i < 4; ++i) {
    nd[i] = nd0[i];
    int nr = crd_fold_node_nr(nd0 + i);
    double th[3];
    if (nd0[i].tri) crd_triad_theta(nd0[i].E, nd0[i].ch, th);
    else {
      int n2, m2;
      crd_dir_pair(nd0[i].l, &n2, &m2);
      th[0] = nd0[i].p[n2]; th[1] = nd0[i].p[m2];
    }
    for (int s = 0; s < nr; ++s) th[s] += t * v[off[i] + 3 + s] + 0.5 * t * t * a[off[i] + 3 + s];
    if (nd0[i].tri) {
      double E[9];
      crd_triad_from_theta(th, nd0[i].ch, E);
      crd_fold_node_triad(nd + i, E, nd0[i].ch, nd0[i].c);
    } else {
      double p[3];
      crd_dir_from_pair(th[0], th[1], nd0[i].l, nd0[i].p[nd0[i].l], p);
      crd_fold_node_smooth(nd + i, p, nd0[i].l);
    }
  }
}

/* m th'' + f_m against G^T P p'' with p'' by differences along a motion,
 * and 1/2 u'.m u' against the kinetic energy of the physical rates */
static void check_mass(void)
{
  const int masks[3] = {0x1, 0x5, 0xF};
  for (int s = 0; s < 3; ++s) {
    double X0[12], p0[12], Q[9], ax[3] = {eu_rand(), eu_rand(), eu_rand()};
    eu_random_quad(X0, p0, 0.05);
    eu_rot(ax, 2.2, Q);
    elem el;
    memcpy(el.X0, X0, sizeof X0); memcpy(el.p0, p0, sizeof p0);
    int charts[4];
    for (int i = 0; i < 4; ++i) charts[i] = (4 * s + 2 * i) % 9;
    random_elem(&el, masks[s], Q, 0.05, charts, NULL);
    int off[4], n = crd_fold_offsets(el.nd, off);
    double v[24], a[24], C[16], xl0[12], x0[12], r0xy[8], rho = 7.8, h = MAT.h;
    for (int b = 0; b < n; ++b) { v[b] = 1.5 * eu_rand(); a[b] = 3.0 * eu_rand(); }
    crd_q4_local_vars_init(X0, p0, x0, xl0, r0xy);
    crd_q4_mass_coef(xl0, rho, h, C);
    double m[576] = {0}, fm[24] = {0}, hh = h * h / 12.0;
    crd_fold_mass(C, h, el.nd, v, 1.0, 1.0, m, fm);
    /* p', p'' by fourth-order differences in t */
    double tau = 1e-3, pv[5][12];
    for (int k = 0; k < 5; ++k) {
      crd_fold_node nd[4];
      nodes_at(el.nd, v, a, (k - 2) * tau, nd);
      for (int i = 0; i < 4; ++i) memcpy(pv[k] + 3 * i, nd[i].p, 3 * sizeof(double));
    }
    double pd[12], pdd[12];
    for (int c = 0; c < 12; ++c) {
      pd[c] = (-pv[4][c] + 8 * pv[3][c] - 8 * pv[1][c] + pv[0][c]) / (12 * tau);
      pdd[c] = (-pv[4][c] + 16 * pv[3][c] - 30 * pv[2][c] + 16 * pv[1][c] - pv[0][c]) / (12 * tau * tau);
    }
    double err = 0, errb = 0, sc = 0;
    for (int i = 0; i < 4; ++i) {
      double G[9];
      crd_fold_node_G(el.nd + i, G);
      for (int al = 0; al < crd_fold_node_nr(el.nd + i); ++al) {
        int r = off[i] + 3 + al;
        double want = 0.0, got = fm[r], gotb = 0.0;
        for (int j = 0; j < 4; ++j)
          for (int c = 0; c < 3; ++c) want += G[3 * c + al] * hh * C[4 * i + j] * pdd[3 * j + c];
        for (int b = 0; b < n; ++b) { got += m[n * r + b] * a[b]; gotb += m[n * r + b] * a[b]; }
        err = fmax(err, fabs(got - want));
        errb = fmax(errb, fabs(gotb - want));
        sc = fmax(sc, fabs(want));
      }
    }
    double vt[12], L[3] = {0}, J[3] = {0}, x[12], Km = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 3; ++c) { vt[3 * i + c] = v[off[i] + c]; x[3 * i + c] = X0[3 * i + c] + el.d[3 * i + c]; }
    double Kp = crd_q4_kinetic(C, h, x, el.nd[0].p, vt, pd, L, J); /* p only enters J */
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) Km += 0.5 * v[b] * m[n * b + c] * v[c];
    double asym = 0;
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) asym = fmax(asym, fabs(m[n * b + c] - m[n * c + b]));
    T_OK(err <= 1e-7 * sc && fabs(Km - Kp) <= 1e-9 * Kp && asym == 0.0,
         "%d intersection node(s): m th'' + f_m = G^T P p'' along a motion (err %.2e of %.2e), 1/2 u'.m u' = the kinetic "
         "energy (rel %.2e), m symmetric", __builtin_popcount(masks[s]), err, sc, fabs(Km - Kp) / Kp);
    T_OK(errb > 1e-3 * sc, "broken: without f_m (the triads' and pairs' A2) the inertia force is caught (err %.2e)", errb);
  }
}

int main(void)
{
  srand(2915);
  check_reconstruction();
  check_chart_derivatives();
  check_switch();
  check_smooth_consistency();
  check_element_fd();
  check_rigid();
  check_zero_modes();
  check_mass();
  return T_DONE();
}
