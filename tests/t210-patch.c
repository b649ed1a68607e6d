/* Patch tests on the distorted 5-element patch of MacNeal & Harder (1985):
 * boundary nodes carry the exact values of a constant-strain field, the
 * interior nodes are solved for (linear analysis with K_G at the initial
 * state) and must reproduce the field exactly.
 *   membrane: u = 1e-3 (x + y/2), v = 1e-3 (y + x/2);
 *   bending:  w = 1e-3 (x^2 + xy + y^2)/2 with normals (-w,x, -w,y, 1)
 *             (constant curvature; MITC4 shear vanishes for it).
 * Each is run flat in the x-y plane and with the whole patch rotated in
 * space by 2 rad about (1,2,3), thick (h = 0.01) and thin (h = 1e-4), with
 * each membrane (am = 1 the tied shear, the default; am = 0 displacement
 * based). */
#include <string.h>
#include "tap.h"
#include "elem_util.h"

static const double XY[8][2] = {{0, 0}, {0.24, 0}, {0.24, 0.12}, {0, 0.12},
                                {0.04, 0.02}, {0.18, 0.03}, {0.16, 0.08}, {0.08, 0.08}};
static const int QUADS[5][4] = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};

/* dense Gaussian elimination with partial pivoting, n <= 40 */
static void dense_solve(int n, double *A, double *b)
{
  for (int k = 0; k < n; ++k) {
    int piv = k;
    for (int i = k + 1; i < n; ++i) if (fabs(A[i * n + k]) > fabs(A[piv * n + k])) piv = i;
    for (int j = 0; j < n; ++j) { double t = A[k * n + j]; A[k * n + j] = A[piv * n + j]; A[piv * n + j] = t; }
    double t = b[k]; b[k] = b[piv]; b[piv] = t;
    for (int i = k + 1; i < n; ++i) {
      double f = A[i * n + k] / A[k * n + k];
      for (int j = k; j < n; ++j) A[i * n + j] -= f * A[k * n + j];
      b[i] -= f * b[k];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < n; ++j) s -= A[i * n + j] * b[j];
    b[i] = s / A[i * n + i];
  }
}

/* exact field: translation (3) and normal change (3) at a local point, in patch axes */
static void field(int bending, double x, double y, double *u, double *dp)
{
  const double c = 1e-3;
  if (!bending) {
    u[0] = c * (x + 0.5 * y); u[1] = c * (y + 0.5 * x); u[2] = 0;
    dp[0] = dp[1] = dp[2] = 0;
  } else {
    u[0] = u[1] = 0; u[2] = c * 0.5 * (x * x + x * y + y * y);
    dp[0] = -c * (x + 0.5 * y); dp[1] = -c * (y + 0.5 * x); dp[2] = 0; /* linearised normal change */
  }
}

static void run(int bending, int rotated, double h, double am)
{
  double Q[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (rotated) { const double ax[3] = {1, 2, 3}; eu_rot(ax, 2.0, Q); }
  double X[8][3], n0[3], ez[3] = {0, 0, 1};
  for (int i = 0; i < 8; ++i) { double v[3] = {XY[i][0], XY[i][1], 0}; eu_matvec(Q, v, X[i]); }
  eu_matvec(Q, ez, n0);
  int l = crd_dir_choose(n0), nn, mm;
  crd_dir_pair(l, &nn, &mm);
  crd_q4_mat mt = {1.0e6, 0.25, h, 0.0, am};
  /* global dense K (40 = 8 nodes x 5) at the initial state */
  double K[1600] = {0};
  for (int e = 0; e < 5; ++e) {
    double X0[12], p0[12], d[12] = {0}, KG[400], fG[20], md;
    int le[4] = {l, l, l, l};
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 3; ++c) { X0[3 * a + c] = X[QUADS[e][a]][c]; p0[3 * a + c] = n0[c]; }
    crd_q4_global(X0, p0, d, p0, le, &mt, fG, KG, &md);
    for (int a = 0; a < 20; ++a)
      for (int b = 0; b < 20; ++b)
        K[40 * (5 * QUADS[e][a / 5] + a % 5) + 5 * QUADS[e][b / 5] + b % 5] += KG[20 * a + b];
  }
  /* exact nodal values in global DOFs: d = Q u, pair components of Q dp */
  double uex[40];
  for (int i = 0; i < 8; ++i) {
    double u[3], dp[3], gu[3], gp[3];
    field(bending, XY[i][0], XY[i][1], u, dp);
    eu_matvec(Q, u, gu);
    eu_matvec(Q, dp, gp);
    for (int c = 0; c < 3; ++c) uex[5 * i + c] = gu[c];
    uex[5 * i + 3] = gp[nn];
    uex[5 * i + 4] = gp[mm];
  }
  /* interior nodes 4..7 free: K_ff u_f = -K_fp u_p */
  double A[400], b[20];
  for (int a = 0; a < 20; ++a) {
    b[a] = 0;
    for (int c = 0; c < 20; ++c) { A[20 * a + c] = K[40 * (20 + a) + 20 + c]; b[a] -= K[40 * (20 + a) + c] * uex[c]; }
  }
  dense_solve(20, A, b);
  double err = 0, mag = 0;
  for (int a = 0; a < 20; ++a) { err = fmax(err, fabs(b[a] - uex[20 + a])); mag = fmax(mag, fabs(uex[20 + a])); }
  T_OK(err <= 1e-8 * mag, "%s patch test (%s, h = %g, am %g): interior error %.2e of %.2e",
       bending ? "bending" : "membrane", rotated ? "rotated in space" : "flat", h, am, err, mag);
}

int main(void)
{
  for (int m = 0; m < 2; ++m)
    for (int rot = 0; rot < 2; ++rot) {
      run(0, rot, 0.01, 1.0 - m);
      run(1, rot, 0.01, 1.0 - m);
      run(1, rot, 1e-4, 1.0 - m);
    }
  return T_DONE();
}
