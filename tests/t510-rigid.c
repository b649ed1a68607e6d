/* Rigid bodies (dualquat.h, rigid_body.h, rigid.c):
 *  - quaternion and dual-quaternion identities against rotation matrices;
 *  - the DQVI Jacobian against finite differences of its residual;
 *  - torque-free asymmetric body near the intermediate axis (the "flip"):
 *    spatial angular momentum to round-off, energy bounded without drift
 *    over 1e5 steps, flip period against the elliptic-function solution
 *    (Landau & Lifshitz, Mechanics §37);
 *  - heavy symmetric top on a fixed point: nutation bounds and period,
 *    precession per nutation period
 *    against the roots of the cubic in u = cos(theta) and its elliptic
 *    integral (Goldstein, Classical Mechanics §5.7), both integrators;
 *  - the same body about G and about another point: the same motion;
 *  - added mass under a constant force: x = F t^2 / (2 (m + a)). */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "crdyn/model.h"
#include "crdyn/rigid.h"
#include "crdyn/rigid_body.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

static void rand_quat(double *q)
{
  for (int k = 0; k < 4; ++k) q[k] = urand();
  crd_q_normalize(q);
}

static void matvec(const double *R, const double *v, double *o)
{
  for (int i = 0; i < 3; ++i) o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static void test_algebra(void)
{
  double e_mat = 0, e_rot = 0, e_comp = 0, e_inv = 0, e_log = 0, e_exp = 0, e_vel = 0;
  for (int trial = 0; trial < 200; ++trial) {
    double q1[4], q2[4], q12[4], R1[9], R2[9], R12[9], R1R2[9], v[3], a[3], b[3];
    rand_quat(q1), rand_quat(q2);
    crd_q_mul(q1, q2, q12);
    crd_q_to_mat(q1, R1), crd_q_to_mat(q2, R2), crd_q_to_mat(q12, R12);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        R1R2[3 * i + j] = 0;
        for (int k = 0; k < 3; ++k) R1R2[3 * i + j] += R1[3 * i + k] * R2[3 * k + j];
      }
    for (int k = 0; k < 9; ++k) e_mat = fmax(e_mat, fabs(R12[k] - R1R2[k]));
    for (int k = 0; k < 3; ++k) v[k] = urand();
    crd_q_rotate(q1, v, a), matvec(R1, v, b);
    for (int k = 0; k < 3; ++k) e_rot = fmax(e_rot, fabs(a[k] - b[k]));
    /* poses: (p1 (x) p2)(r) = p1(p2(r)); p (x) p^+ = 1 */
    double t1[3], t2[3], p1[8], p2[8], p12[8], pc[8], pp[8], r2[3], r12[3], r1[3];
    for (int k = 0; k < 3; ++k) t1[k] = 3 * urand(), t2[k] = 3 * urand();
    crd_dq_from_pose(q1, t1, p1), crd_dq_from_pose(q2, t2, p2);
    crd_dq_mul(p1, p2, p12);
    crd_dq_transform_point(p2, v, r2), crd_dq_transform_point(p1, r2, r1), crd_dq_transform_point(p12, v, r12);
    for (int k = 0; k < 3; ++k) e_comp = fmax(e_comp, fabs(r1[k] - r12[k]));
    matvec(R1, v, a); /* p1(v) = R1 v + t1 */
    crd_dq_transform_point(p1, v, b);
    for (int k = 0; k < 3; ++k) e_comp = fmax(e_comp, fabs(a[k] + t1[k] - b[k]));
    crd_dq_conj(p12, pc), crd_dq_mul(p12, pc, pp);
    for (int k = 0; k < 8; ++k) e_inv = fmax(e_inv, fabs(pp[k] - (k == 0)));
    /* exp/log round trip (rotation below pi), and exp of pure rotation / translation */
    double xi[6], p[8], xi2[6];
    for (int k = 0; k < 6; ++k) xi[k] = (k < 3 ? 1.4 : 3.0) * urand() / sqrt(3.0);
    crd_dq_exp(xi, p), crd_dq_log(p, xi2);
    for (int k = 0; k < 6; ++k) e_log = fmax(e_log, fabs(xi[k] - xi2[k]));
    double pa[8], qa[4], ta[3], n[3] = {urand(), urand(), urand()}, th = 2.0 * urand();
    double nn = crd_norm3(n);
    for (int k = 0; k < 3; ++k) n[k] /= nn;
    double xr[6] = {0.5 * th * n[0], 0.5 * th * n[1], 0.5 * th * n[2], 0, 0, 0};
    crd_dq_exp(xr, pa), crd_dq_to_pose(pa, qa, ta);
    double qr[4] = {cos(0.5 * th), sin(0.5 * th) * n[0], sin(0.5 * th) * n[1], sin(0.5 * th) * n[2]};
    for (int k = 0; k < 4; ++k) e_exp = fmax(e_exp, fabs(qa[k] - qr[k]));
    for (int k = 0; k < 3; ++k) e_exp = fmax(e_exp, fabs(ta[k]));
    double xt[6] = {0, 0, 0, 0.5 * t1[0], 0.5 * t1[1], 0.5 * t1[2]};
    crd_dq_exp(xt, pa), crd_dq_to_pose(pa, qa, ta);
    for (int k = 0; k < 3; ++k) e_exp = fmax(e_exp, fabs(ta[k] - t1[k]) + fabs(qa[1 + k]));
    /* velocities: 2 p^+ (x) p' = (w_B, v_B) for p(t) = pose(q(t), x(t)),
     * q(t) = q1 o exp(t w_B / 2), x(t) = t1 + t v_W; by central differences */
    double wB[3] = {urand(), urand(), urand()}, vW[3] = {urand(), urand(), urand()}, hh = 1e-5;
    double pm[8], pl[8], dp[8], chi[8], vB[3];
    for (int s = -1; s <= 1; s += 2) {
      double hw[3] = {0.5 * s * hh * wB[0], 0.5 * s * hh * wB[1], 0.5 * s * hh * wB[2]}, eq[4], qs[4], xs[3];
      crd_q_exp(hw, eq), crd_q_mul(q1, eq, qs);
      for (int k = 0; k < 3; ++k) xs[k] = t1[k] + s * hh * vW[k];
      crd_dq_from_pose(qs, xs, s < 0 ? pm : pl);
    }
    for (int k = 0; k < 8; ++k) dp[k] = (pl[k] - pm[k]) / (2 * hh);
    crd_dq_conj(p1, pc), crd_dq_mul(pc, dp, chi);
    crd_q_rotate_inv(q1, vW, vB);
    for (int k = 0; k < 3; ++k) e_vel = fmax(e_vel, fabs(2 * chi[1 + k] - wB[k]) + fabs(2 * chi[5 + k] - vB[k]));
    e_vel = fmax(e_vel, fabs(chi[0]) + fabs(chi[4]));
  }
  T_OK(e_mat < 1e-14, "R(q1 o q2) = R(q1) R(q2): max error %.2e", e_mat);
  T_OK(e_rot < 1e-14, "q o v o q^+ = R(q) v: max error %.2e", e_rot);
  T_OK(e_comp < 1e-13, "pose composition and point transformation: max error %.2e", e_comp);
  T_OK(e_inv < 1e-15, "p (x) p^+ = 1 for unit dual quaternions: max error %.2e", e_inv);
  T_OK(e_log < 1e-12, "log(exp(xi)) = xi: max error %.2e", e_log);
  T_OK(e_exp < 1e-14, "exp of a pure rotation and a pure translation: max error %.2e", e_exp);
  T_OK(e_vel < 1e-9, "2 p^+ (x) p' = (w_B, v_B) (central differences): max error %.2e", e_vel);
}

static void test_jacobian(void)
{
  double emax = 0;
  for (int trial = 0; trial < 20; ++trial) {
    double A[36], M[36], y[6], b[6], r[6], J[36], rp[6], rm[6], h = 0.1 + 0.5 * (urand() + 1);
    for (int k = 0; k < 36; ++k) A[k] = urand();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) {
        M[6 * i + j] = (i == j) * 3.0;
        for (int k = 0; k < 6; ++k) M[6 * i + j] += A[6 * i + k] * A[6 * j + k];
      }
    for (int k = 0; k < 6; ++k) y[k] = 0.4 * urand() / sqrt(3.0), b[k] = urand();
    crd_dqvi_residual(M, y, b, h, r, J);
    double jn = 0;
    for (int k = 0; k < 36; ++k) jn = fmax(jn, fabs(J[k]));
    for (int j = 0; j < 6; ++j) {
      double yp[6], ym[6], e = 1e-6;
      memcpy(yp, y, sizeof y), memcpy(ym, y, sizeof y);
      yp[j] += e, ym[j] -= e;
      crd_dqvi_residual(M, yp, b, h, rp, NULL), crd_dqvi_residual(M, ym, b, h, rm, NULL);
      for (int i = 0; i < 6; ++i) emax = fmax(emax, fabs((rp[i] - rm[i]) / (2 * e) - J[6 * i + j]) / jn);
    }
  }
  T_OK(emax < 1e-8, "DQVI Jacobian equals central differences of the residual: max rel error %.2e", emax);
}

static crd_model *load(const char *json)
{
  crd_model *m = NULL;
  if (crd_case_load_string(json, "t500.json", &m)) {
    printf("# case load failed\n");
    return NULL;
  }
  return m;
}

/* complete elliptic integral of the first kind by the AGM: K = pi / (2 agm(1, k')) */
static double ellK(double k2)
{
  double a = 1.0, b = sqrt(1.0 - k2);
  for (int i = 0; i < 60; ++i) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b), a = an;
  }
  return M_PI / (2.0 * a);
}

static void body_J(const crd_rigid *rg, double *K, double *L, double *J)
{
  *K = 0;
  for (int k = 0; k < 3; ++k) L[k] = J[k] = 0;
  crd_rigid_measure(rg, K, L, J);
}

/* mean period of the upward zero crossings of a sampled signal */
typedef struct { double tlast, sum; int n, have; double prev; } crossing;
static void cross_add(crossing *c, double t, double h, double v)
{
  if (c->have && c->prev < 0 && v >= 0) {
    double tc = t - h * v / (v - c->prev);
    if (c->tlast > 0) c->sum += tc - c->tlast, c->n++; /* from the second crossing on */
    c->tlast = tc;
  }
  c->prev = v, c->have = 1;
}

static void test_flip(const char *integ)
{
  const double I1 = 1, I2 = 2, I3 = 3, w0[3] = {0, 1, 0.05}, h = 0.01;
  const int nsteps = 100000;
  char js[1024];
  snprintf(js, sizeof js,
           "{\"format\":1,\"rigid_bodies\":[{\"name\":\"b\",\"mass\":1,\"inertia\":[[%g,0,0],[0,%g,0],[0,0,%g]],"
           "\"angular_velocity\":[%g,%g,%g],\"integrator\":\"%s\"}],"
           "\"analysis\":{\"type\":\"dynamic\",\"stages\":[{\"integrator\":\"implicit\",\"t_end\":1,\"dt\":0.01}]}}",
           I1, I2, I3, w0[0], w0[1], w0[2], integ);
  crd_model *m = load(js);
  crd_rigid *rg = NULL;
  if (!m || crd_rigid_create(m, &rg)) {
    T_OK(0, "flip (%s): setup", integ);
    return;
  }
  double K0, L0[3], J0[3], K, L[3], J[3];
  body_J(rg, &K0, L0, J0);
  double jn = crd_norm3(J0), ejmax = 0, de1 = 0, de2 = 0;
  crossing c = {0};
  int fail = 0;
  for (int n = 0; n < nsteps && !fail; ++n) {
    if (crd_rigid_step(rg, n * h, h)) fail = 1;
    body_J(rg, &K, L, J);
    for (int k = 0; k < 3; ++k) ejmax = fmax(ejmax, fabs(J[k] - J0[k]) / jn);
    double de = fabs(K - K0) / K0;
    if (n < nsteps / 2) de1 = fmax(de1, de);
    else de2 = fmax(de2, de);
    cross_add(&c, (n + 1) * h, h, rg->b[0].chi[1]);
  }
  T_OK(!fail, "flip (%s): %d steps ran", integ, nsteps);
  /* Landau's case I3 > I2 > I1, L^2 > 2 E I2: w2 = c sn(tau, k), tau = lambda t */
  double E = 0.5 * (I1 * w0[0] * w0[0] + I2 * w0[1] * w0[1] + I3 * w0[2] * w0[2]);
  double L2 = I1 * I1 * w0[0] * w0[0] + I2 * I2 * w0[1] * w0[1] + I3 * I3 * w0[2] * w0[2];
  double k2 = (I2 - I1) * (2 * E * I3 - L2) / ((I3 - I2) * (L2 - 2 * E * I1));
  double lam = sqrt((I3 - I2) * (L2 - 2 * E * I1) / (I1 * I2 * I3));
  double T = 4.0 * ellK(k2) / lam, Tm = c.n ? c.sum / c.n : 0;
  T_OK(fabs(Tm - T) < 0.01 * T, "flip (%s): period %.6f over %d flips, elliptic solution %.6f (rel %.1e)", integ, Tm,
       c.n, T, fabs(Tm - T) / T);
  if (!strcmp(integ, "dqvi")) {
    T_OK(ejmax < 1e-12, "flip (dqvi): spatial angular momentum conserved, max rel change %.2e over 1e5 steps", ejmax);
    T_OK(de1 < 1e-3 && de2 < 1.05 * de1 + 1e-12,
         "flip (dqvi): energy bounded, no drift: max rel error %.2e (first half) %.2e (second half)", de1, de2);
  } else {
    T_OK(ejmax < 1e-6, "flip (newton_euler): angular momentum within RK4 truncation, max rel change %.2e", ejmax);
  }
  crd_rigid_destroy(&rg);
  crd_model_destroy(&m);
}

static void test_top(const char *integ, double h, double tol)
{
  const double A = 1.5, C = 0.5, mass = 1.0, l = 0.4, g = 9.81, th0 = 30.0 * M_PI / 180.0, spin = 12.0;
  double e3[3] = {0, -sin(th0), cos(th0)};
  char js[1400];
  snprintf(js, sizeof js,
           "{\"format\":1,\"rigid_bodies\":[{\"name\":\"top\",\"mass\":%g,\"inertia\":[[%g,0,0],[0,%g,0],[0,0,%g]],"
           "\"reference\":[0,0,0],\"center_of_mass\":[%.17g,%.17g,%.17g],\"orientation\":[%.17g,%.17g,0,0],"
           "\"angular_velocity\":[%.17g,%.17g,%.17g],\"fix\":[\"ux\",\"uy\",\"uz\"],\"integrator\":\"%s\"}],"
           "\"loads\":[{\"gravity\":[0,0,%g]}],"
           "\"analysis\":{\"type\":\"dynamic\",\"stages\":[{\"integrator\":\"implicit\",\"t_end\":1,\"dt\":0.01}]}}",
           mass, A, A, C, l * e3[0], l * e3[1], l * e3[2], cos(0.5 * th0), sin(0.5 * th0), spin * e3[0],
           spin * e3[1], spin * e3[2], integ, -g);
  crd_model *m = load(js);
  crd_rigid *rg = NULL;
  if (!m || crd_rigid_create(m, &rg)) {
    T_OK(0, "top (%s): setup", integ);
    return;
  }
  /* u = cos(theta): u'^2 = beta (u - e1)(u - u0)(u - e3) with a = C s / A,
   * beta = 2 m g l / A (started with theta' = phi' = 0) */
  double u0 = cos(th0), a = C * spin / A, beta = 2 * mass * g * l / A;
  double disc = sqrt(a * a * a * a - 4 * beta * a * a * u0 + 4 * beta * beta);
  double e1 = (a * a - disc) / (2 * beta), e3r = (a * a + disc) / (2 * beta);
  double k2 = (u0 - e1) / (e3r - e1), Tn = 4.0 * ellK(k2) / sqrt(beta * (e3r - e1));
  /* precession over one nutation period: phi' = a (u0 - u) / (1 - u^2)
   * (L_z = A a u0 from the start), dphi = 2 int_e1^u0 phi' du / sqrt(f);
   * with u = e1 + (u0 - e1) sin^2 s, du / sqrt(f) = 2 ds / sqrt(beta (e3 - u)):
   * a smooth integrand on [0, pi/2] (midpoint rule, 4000 points) */
  double Pn = 0.0;
  for (int i = 0; i < 4000; ++i) {
    double sg = (i + 0.5) * (0.5 * M_PI / 4000), u = e1 + (u0 - e1) * sin(sg) * sin(sg);
    Pn += 4.0 * a * (u0 - u) / ((1.0 - u * u) * sqrt(beta * (e3r - u))) * (0.5 * M_PI / 4000);
  }
  double umin = 1, t_end = 5 * Tn, prev = u0, dprev = 0, tmax_first = -1, tmax_last = -1;
  double phi = 0.0, phi_prev = 0.0, phi_first = 0.0, phi_last = 0.0;
  int nmax = 0, fail = 0;
  for (int n = 0; (n + 1) * h <= t_end && !fail; ++n) {
    if (crd_rigid_step(rg, n * h, h)) fail = 1;
    double q[4], x[3], ez[3] = {0, 0, 1}, ax[3];
    crd_dq_to_pose(rg->b[0].g, q, x);
    crd_q_rotate(q, ez, ax);
    double u = ax[2], du = u - prev;
    umin = fmin(umin, u);
    /* azimuth of the axis, unwrapped (it starts at -pi/2: e3 in the y-z plane) */
    double az = atan2(ax[1], ax[0]);
    while (az - phi_prev > M_PI) az -= 2 * M_PI;
    while (az - phi_prev < -M_PI) az += 2 * M_PI;
    phi = az;
    if (n > 1 && dprev > 0 && du <= 0) { /* a maximum of u (back at theta0): where the sample differences,
                                           * taken at the half steps, change sign (linear in between) */
      double tm = n * h - h * dprev / (dprev - du) + 0.5 * h;
      /* the azimuth at tm, linear between the samples at n h and (n + 1) h */
      double wgt = (tm - n * h) / h, pm = phi_prev + wgt * (phi - phi_prev);
      if (tmax_first < 0) tmax_first = tm, phi_first = pm;
      tmax_last = tm, phi_last = pm, nmax++;
    }
    dprev = du, prev = u, phi_prev = phi;
  }
  double Tm = nmax > 1 ? (tmax_last - tmax_first) / (nmax - 1) : 0;
  T_OK(!fail, "top (%s): ran", integ);
  T_NEAR(umin, e1, tol, 0, "top: lowest cos(theta) against the root of the cubic");
  T_NEAR(Tm, Tn, tol, 0, "top: nutation period against 4K(k)/sqrt(beta (e3 - e1))");
  double Pm = nmax > 1 ? (phi_last - phi_first) / (nmax - 1) : 0;
  T_NEAR(Pm, Pn, tol, 0, "top: precession per nutation period against 2 int phi' du / u'");
  crd_rigid_destroy(&rg);
  crd_model_destroy(&m);
}

/* the same body about its centre of mass and about the point G + c */
static void test_reference(const char *integ, double tol)
{
  const double mass = 2.0, JG[3] = {1.0, 1.7, 2.6}, c[3] = {0.3, -0.5, 0.8}, vG[3] = {0.2, 0.1, -0.3},
               w[3] = {0.7, -1.1, 0.9}, xG[3] = {1, 2, 3};
  double JQ[9], vQ[3], wc[3], xQ[3], cc = crd_dot3(c, c);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) JQ[3 * i + j] = (i == j) * (JG[i] + mass * cc) - mass * c[i] * c[j];
  crd_cross3(w, c, wc);
  for (int k = 0; k < 3; ++k) vQ[k] = vG[k] + wc[k], xQ[k] = xG[k] + c[k];
  char js[2][1400];
  snprintf(js[0], sizeof js[0],
           "{\"format\":1,\"rigid_bodies\":[{\"name\":\"b\",\"mass\":%g,\"inertia\":[[%g,0,0],[0,%g,0],[0,0,%g]],"
           "\"reference\":[%g,%g,%g],\"velocity\":[%g,%g,%g],\"angular_velocity\":[%g,%g,%g],\"integrator\":\"%s\"}],"
           "\"loads\":[{\"gravity\":[0,0,-9.81]}],"
           "\"analysis\":{\"type\":\"dynamic\",\"stages\":[{\"integrator\":\"implicit\",\"t_end\":1,\"dt\":0.01}]}}",
           mass, JG[0], JG[1], JG[2], xG[0], xG[1], xG[2], vG[0], vG[1], vG[2], w[0], w[1], w[2], integ);
  snprintf(js[1], sizeof js[1],
           "{\"format\":1,\"rigid_bodies\":[{\"name\":\"b\",\"mass\":%g,\"inertia\":[[%.17g,%.17g,%.17g],"
           "[%.17g,%.17g,%.17g],[%.17g,%.17g,%.17g]],\"reference\":[%.17g,%.17g,%.17g],"
           "\"center_of_mass\":[%g,%g,%g],\"velocity\":[%.17g,%.17g,%.17g],\"angular_velocity\":[%g,%g,%g],"
           "\"integrator\":\"%s\"}],\"loads\":[{\"gravity\":[0,0,-9.81]}],"
           "\"analysis\":{\"type\":\"dynamic\",\"stages\":[{\"integrator\":\"implicit\",\"t_end\":1,\"dt\":0.01}]}}",
           mass, JQ[0], JQ[1], JQ[2], JQ[3], JQ[4], JQ[5], JQ[6], JQ[7], JQ[8], xQ[0], xQ[1], xQ[2], xG[0], xG[1],
           xG[2], vQ[0], vQ[1], vQ[2], w[0], w[1], w[2], integ);
  crd_model *m[2] = {load(js[0]), load(js[1])};
  crd_rigid *rg[2] = {NULL, NULL};
  if (!m[0] || !m[1] || crd_rigid_create(m[0], &rg[0]) || crd_rigid_create(m[1], &rg[1])) {
    T_OK(0, "reference point (%s): setup", integ);
    return;
  }
  double emax = 0, h = 0.02;
  for (int n = 0; n < 500; ++n) {
    crd_rigid_step(rg[0], n * h, h), crd_rigid_step(rg[1], n * h, h);
    double g0[3], g1[3], q0[4], q1[4], t[3];
    crd_dq_transform_point(rg[0]->b[0].g, rg[0]->b[0].rg, g0);
    crd_dq_transform_point(rg[1]->b[0].g, rg[1]->b[0].rg, g1);
    crd_dq_to_pose(rg[0]->b[0].g, q0, t), crd_dq_to_pose(rg[1]->b[0].g, q1, t);
    double gn = fmax(1.0, crd_norm3(g0));  /* relative to the distance of G from the origin */
    for (int k = 0; k < 3; ++k) emax = fmax(emax, fabs(g0[k] - g1[k]) / gn);
    for (int k = 0; k < 4; ++k) emax = fmax(emax, fabs(q0[k] - q1[k]));
  }
  T_OK(emax < tol, "reference point (%s): the body about G and about G + c move alike, max difference %.2e", integ,
       emax);
  for (int k = 0; k < 2; ++k) crd_rigid_destroy(&rg[k]), crd_model_destroy(&m[k]);
}

/* Added mass (6x6, anisotropic): a force along a principal axis of the
 * translational added mass gives x = F t^2 / (2 (m + a)) exactly; an oblique
 * force also turns the body (the Munk moment v x (A v) of the ad* term), so
 * there the two integrators are compared. */
static void run_added(const char *integ, const double *F, double h, int n, double *x, double *K, double *W)
{
  char js[1400];
  snprintf(js, sizeof js,
           "{\"format\":1,\"rigid_bodies\":[{\"name\":\"b\",\"mass\":3,\"inertia\":[[1,0,0],[0,2,0],[0,0,3]],"
           "\"added_mass\":[[2,0,0,0,0,0],[0,3,0,0,0,0],[0,0,4,0,0,0],[0,0,0,0.5,0,0],[0,0,0,0,0.5,0],"
           "[0,0,0,0,0,0.5]],\"integrator\":\"%s\"}],\"loads\":[{\"body\":\"b\",\"force\":[%g,%g,%g]}],"
           "\"analysis\":{\"type\":\"dynamic\",\"stages\":[{\"integrator\":\"implicit\",\"t_end\":1,\"dt\":0.01}]}}",
           integ, F[0], F[1], F[2]);
  crd_model *m = load(js);
  crd_rigid *rg = NULL;
  x[0] = x[1] = x[2] = NAN;
  if (!m || crd_rigid_create(m, &rg)) return;
  for (int k = 0; k < n; ++k) crd_rigid_step(rg, k * h, h);
  double q[4], L[3] = {0}, J[3] = {0};
  crd_dq_to_pose(rg->b[0].g, q, x);
  *K = 0, *W = crd_rigid_work(rg);
  crd_rigid_measure(rg, K, L, J);
  crd_rigid_destroy(&rg);
  crd_model_destroy(&m);
}

static void test_added_mass(void)
{
  const double mass = 3.0, a = 3.0, F[3] = {0.0, -2.0, 0.0}, G[3] = {1.0, -2.0, 0.5};
  double x[3], K, W, t = 200 * 0.05;
  run_added("dqvi", F, 0.05, 200, x, &K, &W);
  double e = fabs(x[1] - 0.5 * F[1] / (mass + a) * t * t) + fabs(x[0]) + fabs(x[2]);
  T_OK(e < 1e-11, "added mass: x(t) = F t^2 / (2 (m + a)) to round-off along a principal axis, error %.2e at t = %g",
       e, t);
  T_NEAR(K, W, 1e-12, 0, "added mass: kinetic energy (with added mass) equals the work of the force");
  double xd[3], xn[3], K2, W2;
  run_added("dqvi", G, 0.01, 500, xd, &K, &W);
  run_added("newton_euler", G, 0.01, 500, xn, &K2, &W2);
  double d = 0, xs = crd_norm3(xn);
  for (int k = 0; k < 3; ++k) d = fmax(d, fabs(xd[k] - xn[k]) / xs);
  T_OK(d < 1e-4, "added mass, oblique force (Munk moment): dqvi and newton_euler agree to %.2e relative at t = 5", d);
}

int main(void)
{
  srand(5);
  test_algebra();
  test_jacobian();
  test_flip("dqvi");
  test_flip("newton_euler");
  test_top("dqvi", 0.002, 1e-3);
  test_top("newton_euler", 0.002, 1e-3);
  test_reference("dqvi", 1e-11);
  test_reference("newton_euler", 1e-6);
  test_added_mass();
  return T_DONE();
}
