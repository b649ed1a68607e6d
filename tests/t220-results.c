/* Element results (shell_results.h): the resultants are the derivatives of
 * the element's strain energy density with respect to its strains, at a
 * point and as element means; the mean energy density times the area is
 * the element's strain energy (crd_q4_global); constant membrane and
 * bending states give exact constant resultants at every Gauss point of a
 * distorted element; a rigid rotation of the deformed element changes no
 * component (they are in the co-rotated frame) and turns the frame axes. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"
#include "crdyn/shell_results.h"

static const crd_q4_mat MAT = {1.0e4, 0.3, 0.05, 0.0, 1.0}; /* the tied membrane shear, the default */

/* a distorted flat quad (local coordinates, node 0 at the origin) */
static const double DISTORTED[12] = {0, 0, 0, 1.2, 0.1, 0, 1.05, 0.95, 0, -0.15, 0.8, 0};
/* a rectangle, centre (0.6, 0.35) */
static const double RECT[12] = {0, 0, 0, 1.2, 0, 0, 1.2, 0.7, 0, 0, 0.7, 0};

static double maxabs(const double *a, int n)
{
  double m = 0; for (int i = 0; i < n; ++i) if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

/* 1. at a point: N, M, Q = du/d(e, chi, g) by central differences */
static void point_fd(void)
{
  double eps[8], N[3], M[3], Q[2], res[8], err = 0.0;
  for (int k = 0; k < 8; ++k) eps[k] = 1e-3 * eu_rand();
  crd_q4_resultants(&MAT, eps, eps + 3, eps + 6, N, M, Q);
  memcpy(res, N, sizeof N); memcpy(res + 3, M, sizeof M); memcpy(res + 6, Q, sizeof Q);
  for (int k = 0; k < 8; ++k) {
    double ep[8], em[8], h = 1e-7;
    memcpy(ep, eps, sizeof eps); memcpy(em, eps, sizeof eps);
    ep[k] += h; em[k] -= h;
    double up = crd_q4_resultants(&MAT, ep, ep + 3, ep + 6, N, M, Q);
    double um = crd_q4_resultants(&MAT, em, em + 3, em + 6, N, M, Q);
    err = fmax(err, fabs((up - um) / (2 * h) - res[k]) / fmax(fabs(res[k]), 1e-300));
  }
  T_OK(err <= 1e-6, "point: (N, M, Q) = du/d(e, chi, g) (worst FD relative error %.2e)", err);
}

/* 2. element means: dU/dt = area * mean resultant along a perturbation of
 * q that adds t to one strain at every Gauss point and leaves the others
 * unchanged to first order.  comp: 0..2 membrane (any element, any state),
 * 3..5 bending, 6..7 shear (rectangle, flat, w = 0 in the state: the
 * Kirchhoff-compatible twist needs w, whose membrane coupling is then
 * second order). */
static void perturb_dir(const double *xl0, int comp, double *dq)
{
  double xc = 0, yc = 0;
  for (int i = 0; i < 4; ++i) { xc += 0.25 * xl0[3 * i]; yc += 0.25 * xl0[3 * i + 1]; }
  for (int a = 0; a < 20; ++a) dq[a] = 0.0;
  for (int i = 0; i < 4; ++i) {
    double x = xl0[3 * i] - xc, y = xl0[3 * i + 1] - yc, *n = dq + 5 * i;
    switch (comp) {
    case 0: n[0] = x; break;                         /* e_xx = u,x */
    case 1: n[1] = y; break;                         /* e_yy = v,y */
    case 2: n[0] = y; break;                         /* e_xy = u,y */
    case 3: n[3] = x; break;                         /* chi_xx = dr_x,x */
    case 4: n[4] = y; break;                         /* chi_yy = dr_y,y */
    case 5: n[3] = 0.5 * y; n[4] = 0.5 * x; n[2] = -0.5 * x * y; break; /* chi_xy, gamma = 0 */
    case 6: n[3] = 1.0; break;                       /* gamma_x = dr_x */
    case 7: n[4] = 1.0; break;                       /* gamma_y = dr_y */
    }
  }
}

static void element_fd(const double *xl0, int comp0, int comp1, int zero_w, const char *what)
{
  static const char *names[8] = {"N_xx", "N_yy", "N_xy", "M_xx", "M_yy", "M_xy", "Q_x", "Q_y"};
  double q[20], md;
  for (int a = 0; a < 20; ++a) q[a] = 0.02 * eu_rand();
  if (zero_w) for (int i = 0; i < 4; ++i) q[5 * i + 2] = 0.0;
  crd_q4_results r;
  double U = crd_q4_results_local(xl0, q, &MAT, &r);
  double Uel = crd_q4_local(xl0, q, &MAT, NULL, NULL, &md);
  T_NEAR(U, Uel, 1e-13, 0.0, "element energy from the results = crd_q4_local's");
  double mean[8] = {r.N[0], r.N[1], r.N[2], r.M[0], r.M[1], r.M[2], r.Q[0], r.Q[1]};
  for (int c = comp0; c <= comp1; ++c) {
    /* bending and shear: U(t) is quadratic plus even terms in t, so the
     * central difference is exact and a large h keeps round-off out */
    double dq[20], qp[20], qm[20], h = c < 3 ? 1e-6 : 1e-3;
    perturb_dir(xl0, c, dq);
    for (int a = 0; a < 20; ++a) { qp[a] = q[a] + h * dq[a]; qm[a] = q[a] - h * dq[a]; }
    double dU = (crd_q4_local(xl0, qp, &MAT, NULL, NULL, &md) - crd_q4_local(xl0, qm, &MAT, NULL, NULL, &md)) / (2 * h);
    double want = r.area * mean[c], scale = r.area * maxabs(c < 3 ? mean : c < 6 ? mean + 3 : mean + 6, c < 6 ? 3 : 2);
    T_OK(fabs(dU - want) <= 1e-6 * scale, "%s: area * mean %s = dU/d(uniform strain) (got %.10g want %.10g)", what,
         names[c], dU, want);
  }
}

/* 3. patch states: constant strain in, exact constant resultants out at every Gauss point */
static void patch(void)
{
  const double a = 1e-3, b = -4e-4, c = 7e-4, d = -2e-3; /* u = a x + b y, v = c x + d y */
  double q[20], A[9], D[9], s, errN = 0, errM = 0, resid = 0;
  crd_q4_constitutive(&MAT, A, D, &s);
  for (int i = 0; i < 4; ++i) {
    double x = DISTORTED[3 * i], y = DISTORTED[3 * i + 1];
    double *n = q + 5 * i;
    n[0] = a * x + b * y; n[1] = c * x + d * y; n[2] = n[3] = n[4] = 0.0;
  }
  double e[3] = {a, d, b + c}, Nex[3];
  for (int r = 0; r < 3; ++r) Nex[r] = A[3 * r] * e[0] + A[3 * r + 1] * e[1] + A[3 * r + 2] * e[2];
  for (int ig = 0; ig < 4; ++ig) {
    double N[3], M[3], Q[2], u;
    crd_q4_results_gp(DISTORTED, q, &MAT, ig, N, M, Q, &u);
    for (int r = 0; r < 3; ++r) errN = fmax(errN, fabs(N[r] - Nex[r]));
    resid = fmax(resid, fmax(maxabs(M, 3), maxabs(Q, 2)));
  }
  T_OK(errN <= 1e-12 * maxabs(Nex, 3), "membrane patch, distorted quad: N = A e at every Gauss point (err %.2e of %.2e)",
       errN, maxabs(Nex, 3));
  T_OK(resid <= 1e-12 * maxabs(Nex, 3), "membrane patch: M = Q = 0 (max %.2e)", resid);
  /* constant curvature, Kirchhoff: w = -(kx x^2 + 2 kxy x y + ky y^2)/2,
   * dr = -grad w; MITC4 shear vanishes for it; kept tiny so that the
   * membrane strain w,a w,b / 2 stays at round-off */
  const double kx = 2e-7, ky = -1e-7, kxy = 3e-7;
  for (int i = 0; i < 4; ++i) {
    double x = DISTORTED[3 * i], y = DISTORTED[3 * i + 1];
    double *n = q + 5 * i;
    n[0] = n[1] = 0.0;
    n[2] = -0.5 * (kx * x * x + 2 * kxy * x * y + ky * y * y);
    n[3] = kx * x + kxy * y;
    n[4] = kxy * x + ky * y;
  }
  double chi[3] = {kx, ky, 2 * kxy}, Mex[3];
  for (int r = 0; r < 3; ++r) Mex[r] = D[3 * r] * chi[0] + D[3 * r + 1] * chi[1] + D[3 * r + 2] * chi[2];
  double errQ = 0;
  for (int ig = 0; ig < 4; ++ig) {
    double N[3], M[3], Q[2], u;
    crd_q4_results_gp(DISTORTED, q, &MAT, ig, N, M, Q, &u);
    for (int r = 0; r < 3; ++r) errM = fmax(errM, fabs(M[r] - Mex[r]));
    errQ = fmax(errQ, maxabs(Q, 2));
  }
  /* Q scale: the shear that would carry M over the element size (~1) */
  T_OK(errM <= 1e-12 * maxabs(Mex, 3), "bending patch, distorted quad: M = D chi at every Gauss point (err %.2e of %.2e)",
       errM, maxabs(Mex, 3));
  T_OK(errQ <= 1e-10 * maxabs(Mex, 3), "bending patch: MITC4 Q = 0 (max %.2e, M scale %.2e)", errQ, maxabs(Mex, 3));
}

/* 4. global state: energies agree with crd_q4_global; objectivity */
static void global_checks(void)
{
  const double base[12] = {0, 0, 0, 1.1, 0, 0, 1.0, 0.9, 0, -0.1, 1.0, 0};
  double X0[12], p0[12], d[12], p[12];
  for (int a = 0; a < 12; ++a) X0[a] = base[a] + 0.15 * eu_rand();
  for (int i = 0; i < 4; ++i) X0[3 * i + 2] = 0.1 * eu_rand();
  for (int i = 0; i < 4; ++i) {
    p0[3 * i] = 0.1 * eu_rand(); p0[3 * i + 1] = 0.1 * eu_rand(); p0[3 * i + 2] = 1.0;
    eu_normalize(p0 + 3 * i);
  }
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) d[3 * i + c] = 0.05 * eu_rand();
    double pp[3] = {p0[3 * i] + 0.05 * eu_rand(), p0[3 * i + 1] + 0.05 * eu_rand(), p0[3 * i + 2]};
    eu_normalize(pp);
    memcpy(p + 3 * i, pp, sizeof pp);
  }
  int l[4] = {2, 2, 2, 2};
  double md;
  crd_q4_results r, rr;
  double U = crd_q4_results_global(X0, p0, d, p, &MAT, &r);
  double Ug = crd_q4_global(X0, p0, d, p, l, &MAT, NULL, NULL, &md);
  T_NEAR(U, Ug, 1e-13, 0.0, "warped element, random state: energy from the results = crd_q4_global's");
  T_NEAR(r.u * r.area, Ug, 1e-13, 0.0, "mean energy density * area = element energy");
  /* area = |v13 x v24| / 2 of the initial element */
  double v13[3], v24[3], n[3];
  for (int c = 0; c < 3; ++c) { v13[c] = X0[6 + c] - X0[c]; v24[c] = X0[9 + c] - X0[3 + c]; }
  crd_cross3(v13, v24, n);
  T_NEAR(r.area, 0.5 * crd_norm3(n), 1e-13, 0.0, "area = |v13 x v24| / 2");
  /* the deformed element turned by 2.3 rad about (1, -2, 0.5) as a whole */
  const double ax[3] = {1, -2, 0.5};
  double R[9], dr[12], pr[12];
  eu_rot(ax, 2.3, R);
  for (int i = 0; i < 4; ++i) {
    double x[3] = {X0[3 * i] + d[3 * i], X0[3 * i + 1] + d[3 * i + 1], X0[3 * i + 2] + d[3 * i + 2]}, xr[3];
    eu_matvec(R, x, xr);
    for (int c = 0; c < 3; ++c) dr[3 * i + c] = xr[c] - X0[3 * i + c];
    eu_matvec(R, p + 3 * i, pr + 3 * i);
  }
  crd_q4_results_global(X0, p0, dr, pr, &MAT, &rr);
  double a[8] = {r.N[0], r.N[1], r.N[2], r.M[0], r.M[1], r.M[2], r.Q[0], r.Q[1]};
  double b[8] = {rr.N[0], rr.N[1], rr.N[2], rr.M[0], rr.M[1], rr.M[2], rr.Q[0], rr.Q[1]};
  double err = 0, scale = fmax(maxabs(a, 3), fmax(maxabs(a + 3, 3), maxabs(a + 6, 2)));
  for (int k = 0; k < 8; ++k) err = fmax(err, fabs(a[k] - b[k]));
  T_OK(err <= 1e-10 * scale, "rigid rotation of the deformed element: same components (err %.2e of %.2e)", err, scale);
  double ex[3], ey[3], errf = 0;
  eu_matvec(R, r.ex, ex);
  eu_matvec(R, r.ey, ey);
  for (int c = 0; c < 3; ++c) errf = fmax(errf, fmax(fabs(ex[c] - rr.ex[c]), fabs(ey[c] - rr.ey[c])));
  T_OK(errf <= 1e-12, "rigid rotation: the frame axes turn with it (err %.2e)", errf);
  T_OK(fabs(crd_dot3(r.ex, r.ey)) < 1e-14 && fabs(crd_norm3(r.ex) - 1) < 1e-14 && fabs(crd_norm3(r.ey) - 1) < 1e-14,
       "frame axes orthonormal");
}

int main(void)
{
  srand(4242);
  point_fd();
  double warped[12];
  memcpy(warped, DISTORTED, sizeof warped);
  warped[5] = 0.06; warped[8] = -0.04; warped[11] = 0.05;
  element_fd(DISTORTED, 0, 2, 0, "distorted flat quad");
  element_fd(warped, 0, 2, 0, "distorted warped quad");
  element_fd(RECT, 3, 7, 1, "rectangle");
  patch();
  global_checks();
  return T_DONE();
}
