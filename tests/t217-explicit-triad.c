/* The explicit step at an intersection node (include/crdyn/explicit_triad.h):
 * the moment map m = M^T F against finite differences of the chart under
 * small rotations (F . dtheta = m . phi), the inertia J = sum P (I - r r^T)
 * against the corners' director energies, the 3x3 solve, and the drift:
 * pi unchanged, time-reversible, second order against a fine reference,
 * a free rigid rotation's energy kept to O(dt^2), and Euler's om' against
 * differences.  Each check has a
 * broken counterpart next to it that it must catch. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"
#include "crdyn/explicit_triad.h"

static void random_triad(double *E)
{
  double ax[3] = {eu_rand(), eu_rand(), eu_rand()}, Q[9];
  if (crd_norm3(ax) < 1e-3) ax[2] = 1.0;
  eu_rot(ax, 3.1 * eu_rand(), Q);
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) E[3 * a + c] = Q[3 * c + a];
}

/* |F . (theta(exp(phi) R) - theta(R)) / eps - m . phi/eps| over random
 * triads, charts, F and phi (central differences): the power of the chart
 * force is that of the moment.  Broken: m = F (no map). */
static double moment_fd_error(int broken)
{
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    double E[9], F[3], ph[3], m[3];
    random_triad(E);
    crd_triad_chart ch = crd_triad_chart_at(E, trial % 3, (trial / 3) % 3);
    if (crd_triad_measure(E, ch.l, ch.k) < 0.05) continue;
    for (int c = 0; c < 3; ++c) F[c] = eu_rand(), ph[c] = eu_rand();
    if (broken) memcpy(m, F, sizeof m);
    else crd_ext_moment(E, ch, F, m);
    double eps = 1e-6, Ep[9], Em[9], tp[3], tm[3], php[3], phm[3];
    for (int c = 0; c < 3; ++c) php[c] = eps * ph[c], phm[c] = -eps * ph[c];
    memcpy(Ep, E, sizeof Ep);
    memcpy(Em, E, sizeof Em);
    crd_ext_rotate(php, Ep);
    crd_ext_rotate(phm, Em);
    crd_triad_theta(Ep, ch, tp);
    crd_triad_theta(Em, ch, tm);
    double fd = 0.0;
    for (int c = 0; c < 3; ++c) fd += F[c] * (tp[c] - tm[c]) / (2 * eps);
    double err = fabs(fd - crd_dot3(m, ph)) / (crd_norm3(F) * crd_norm3(ph));
    worst = fmax(worst, err);
  }
  return worst;
}

static void check_moment(void)
{
  double e = moment_fd_error(0), b = moment_fd_error(1);
  T_OK(e < 1e-7, "moment m = M^T F: F . dtheta = m . phi under small rotations (worst %.2e)", e);
  T_OK(b > 1e-2, "broken: m = F refused by the same check (worst %.2e)", b);
}

/* Three corners with normals on two patches: 1/2 om . J om = sum 1/2 P
 * |om x r|^2 for random triads and om; a turn about an in-plane axis t of
 * one patch alone gives P |om|^2 per corner of it. */
static void check_inertia(void)
{
  double c[3][3] = {{0, 0, 1}, {0, 0, 1}, {0, -1, 0}}, P[3] = {0.3, 0.2, 0.5}, Jb[9] = {0}, worst = 0.0, wb = 0.0;
  for (int q = 0; q < 3; ++q) crd_ext_corner_inertia(P[q], c[q], Jb);
  for (int trial = 0; trial < 50; ++trial) {
    double E[9], om[3], J[9], Jom[3], T = 0.0, Tb = 0.0;
    random_triad(E);
    for (int a = 0; a < 3; ++a) om[a] = eu_rand();
    crd_ext_spatial(E, Jb, 1.0, J);
    for (int r = 0; r < 3; ++r) Jom[r] = crd_dot3(J + 3 * r, om);
    for (int q = 0; q < 3; ++q) {
      double r[3], w[3];
      for (int s = 0; s < 3; ++s) r[s] = c[q][0] * E[s] + c[q][1] * E[3 + s] + c[q][2] * E[6 + s];
      crd_cross3(om, r, w);
      T += 0.5 * P[q] * crd_dot3(w, w);
      Tb += 0.5 * P[q] * crd_dot3(om, om); /* broken: the full P I per corner */
    }
    worst = fmax(worst, fabs(0.5 * crd_dot3(om, Jom) - T) / T);
    wb = fmax(wb, fabs(0.5 * crd_dot3(om, Jom) - Tb) / Tb);
  }
  T_OK(worst < 1e-13, "inertia J = sum P (I - r r^T): 1/2 om.J om = corners' director energy (worst %.2e)", worst);
  T_OK(wb > 1e-2, "broken: P I per corner refused (worst %.2e)", wb);
  /* a turn about e_x (in the plane of the patch of normal e_z, c = (0,0,1)):
   * the two corners of that patch see P |om|^2 each, the third (normal -e_y)
   * as much too (e_x lies in its plane as well) */
  double Jxx = Jb[0];
  T_NEAR(Jxx, P[0] + P[1] + P[2], 1e-15, 0.0, "J_b[xx]: a turn about a line in every patch's plane");
  T_NEAR(Jb[8], P[2], 1e-15, 0.0, "J_b[zz]: a turn about the first patch's normal moves only the other patch");
}

static void check_solve(void)
{
  double A[9], x[3], b[3], y[3];
  for (int a = 0; a < 9; ++a) A[a] = eu_rand() + (a % 4 == 0 ? 3.0 : 0.0);
  for (int c = 0; c < 3; ++c) x[c] = eu_rand();
  for (int r = 0; r < 3; ++r) b[r] = crd_dot3(A + 3 * r, x);
  crd_ext_solve3(A, b, y);
  double e = 0.0;
  for (int c = 0; c < 3; ++c) e = fmax(e, fabs(y[c] - x[c]));
  T_OK(e < 1e-13, "crd_ext_solve3: A^-1 (A x) = x (error %.2e)", e);
}

static double maxdiff9(const double *a, const double *b)
{
  double m = 0.0;
  for (int k = 0; k < 9; ++k) m = fmax(m, fabs(a[k] - b[k]));
  return m;
}

/* A free asymmetric rigid body: n drifts of dt (pi fixed in space). */
static void free_body(const double *Jb, const double *pi, double dt, int n, double *E)
{
  for (int k = 0; k < n; ++k) crd_ext_drift(Jb, 1.0, pi, dt, E);
}

static double energy(const double *Jb, const double *pi, const double *E)
{
  double om[3];
  crd_ext_omega(E, Jb, 1.0, pi, om);
  return 0.5 * crd_dot3(om, pi);
}

static void check_drift(void)
{
  double Jb[9] = {1.0, 0.1, 0.0, 0.1, 2.0, 0.2, 0.0, 0.2, 3.5}, pi[3] = {0.7, -1.1, 2.3}, E0[9], E[9];
  random_triad(E0);
  /* reversible: dt then -dt */
  memcpy(E, E0, sizeof E);
  crd_ext_drift(Jb, 1.0, pi, 0.05, E);
  crd_ext_drift(Jb, 1.0, pi, -0.05, E);
  double rev = maxdiff9(E, E0);
  T_OK(rev < 1e-13, "drift: dt then -dt returns the triad (%.2e)", rev);
  /* second order: the error at T = 1 against dt/64, for dt and dt/2 */
  double Er[9], E1[9], E2[9];
  memcpy(Er, E0, sizeof Er); free_body(Jb, pi, 1.0 / 1280, 1280, Er);
  memcpy(E1, E0, sizeof E1); free_body(Jb, pi, 1.0 / 20, 20, E1);
  memcpy(E2, E0, sizeof E2); free_body(Jb, pi, 1.0 / 40, 40, E2);
  double e1 = maxdiff9(E1, Er), e2 = maxdiff9(E2, Er), order = log2(e1 / e2);
  T_OK(order > 1.9 && order < 2.1, "drift: second order in dt (errors %.3e, %.3e: order %.3f)", e1, e2, order);
  /* orthonormal after many steps, energy of the free body within O(dt^2) */
  double K0 = energy(Jb, pi, E0), dK = 0.0;
  memcpy(E, E0, sizeof E);
  for (int k = 0; k < 2000; ++k) {
    crd_ext_drift(Jb, 1.0, pi, 0.01, E);
    dK = fmax(dK, fabs(energy(Jb, pi, E) - K0) / K0);
  }
  double orth = 0.0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) orth = fmax(orth, fabs(crd_dot3(E + 3 * a, E + 3 * b) - (a == b)));
  T_OK(orth < 1e-12, "drift: the triad stays orthonormal over 2000 steps (%.2e)", orth);
  T_OK(dK < 1e-3, "drift: a free body's kinetic energy within %.2e over 2000 steps of |om| dt ~ 0.01", dK);
  /* broken: om from J(R_n) only (explicit Euler on the rotation): not reversible */
  memcpy(E, E0, sizeof E);
  double om[3], ph[3];
  crd_ext_omega(E, Jb, 1.0, pi, om);
  for (int c = 0; c < 3; ++c) ph[c] = 0.05 * om[c];
  crd_ext_rotate(ph, E);
  crd_ext_omega(E, Jb, 1.0, pi, om);
  for (int c = 0; c < 3; ++c) ph[c] = -0.05 * om[c];
  crd_ext_rotate(ph, E);
  double rb = maxdiff9(E, E0);
  T_OK(rb > 1e-6, "broken: the rotation at the start's inertia is refused by the reversibility check (%.2e)", rb);
}

/* om' = J^-1 (m - om x pi) against central differences of om(t) =
 * J(R(t))^-1 pi(t) along a motion R(t) = exp(t om) R, pi(t) = pi + t m
 * (the rotation's rate at t = 0 is om).  Broken: the gyroscopic term
 * left out. */
static void check_omega_dot(void)
{
  double Jb[9] = {1.0, 0.1, 0.0, 0.1, 2.0, 0.2, 0.0, 0.2, 3.5}, E[9], pi[3] = {0.7, -1.1, 2.3}, m[3] = {0.3, 0.2, -0.4};
  double om[3], omd[3], e = 1e-5, fd[3], err = 0.0, errb = 0.0;
  random_triad(E);
  crd_ext_omega_dot(E, Jb, 2.0, pi, m, om, omd);
  double Ep[9], Em[9], pp[3], pm[3], ph[3], op[3], omn[3];
  memcpy(Ep, E, sizeof Ep);
  memcpy(Em, E, sizeof Em);
  for (int c = 0; c < 3; ++c) ph[c] = e * om[c], pp[c] = pi[c] + e * m[c], pm[c] = pi[c] - e * m[c];
  crd_ext_rotate(ph, Ep);
  for (int c = 0; c < 3; ++c) ph[c] = -ph[c];
  crd_ext_rotate(ph, Em);
  crd_ext_omega(Ep, Jb, 2.0, pp, op);
  crd_ext_omega(Em, Jb, 2.0, pm, omn);
  double J[9], b[3], ob[3];
  crd_ext_spatial(E, Jb, 2.0, J);
  crd_ext_solve3(J, m, ob); /* broken: J^-1 m */
  for (int c = 0; c < 3; ++c) {
    fd[c] = (op[c] - omn[c]) / (2 * e);
    b[c] = ob[c];
  }
  for (int c = 0; c < 3; ++c) {
    err = fmax(err, fabs(fd[c] - omd[c]) / crd_norm3(fd));
    errb = fmax(errb, fabs(fd[c] - b[c]) / crd_norm3(fd));
  }
  T_OK(err < 1e-8, "om' = J^-1 (m - om x pi) against differences of J(R(t))^-1 pi(t) (%.2e)", err);
  T_OK(errb > 1e-2, "broken: om' = J^-1 m refused (%.2e)", errb);
}

int main(void)
{
  srand(216);
  check_moment();
  check_inertia();
  check_solve();
  check_drift();
  check_omega_dot();
  return T_DONE();
}
