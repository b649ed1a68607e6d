/* Helpers for element tests: random states, rotations, a Jacobi eigen-solver. */
#ifndef CRD_ELEM_UTIL_H
#define CRD_ELEM_UTIL_H
#include <math.h>
#include <stdlib.h>
#include "crdyn/cr_frame.h"

static inline double eu_rand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* Rotation matrix (row-major) from axis (normalised here) and angle. */
static inline void eu_rot(const double *ax, double ang, double *Q)
{
  double n = crd_norm3(ax), u[3] = {ax[0] / n, ax[1] / n, ax[2] / n};
  double c = cos(ang), s = sin(ang), C = 1 - c;
  Q[0] = c + u[0] * u[0] * C;        Q[1] = u[0] * u[1] * C - u[2] * s; Q[2] = u[0] * u[2] * C + u[1] * s;
  Q[3] = u[1] * u[0] * C + u[2] * s; Q[4] = c + u[1] * u[1] * C;        Q[5] = u[1] * u[2] * C - u[0] * s;
  Q[6] = u[2] * u[0] * C - u[1] * s; Q[7] = u[2] * u[1] * C + u[0] * s; Q[8] = c + u[2] * u[2] * C;
}
static inline void eu_matvec(const double *Q, const double *x, double *y)
{
  for (int i = 0; i < 3; ++i) y[i] = Q[3 * i] * x[0] + Q[3 * i + 1] * x[1] + Q[3 * i + 2] * x[2];
}
static inline void eu_normalize(double *p)
{
  double n = crd_norm3(p);
  p[0] /= n; p[1] /= n; p[2] /= n;
}

/* Eigenvalues of a symmetric n x n matrix (cyclic Jacobi), ascending. */
/* A random (warped) quad near the unit square and normals near +z at its
 * corners (a smooth shell's averaged normals). */
static inline void eu_random_quad(double *X0, double *p0, double warp)
{
  const double base[12] = {0, 0, 0, 1.1, 0, 0, 1.0, 0.9, 0, -0.1, 1.0, 0};
  for (int a = 0; a < 12; ++a) X0[a] = base[a] + 0.15 * eu_rand();
  for (int i = 0; i < 4; ++i) X0[3 * i + 2] = warp * eu_rand();
  for (int i = 0; i < 4; ++i) {
    p0[3 * i] = 0.1 * eu_rand(); p0[3 * i + 1] = 0.1 * eu_rand(); p0[3 * i + 2] = 1.0;
    eu_normalize(p0 + 3 * i);
  }
}

static inline void eu_eig_sym(int n, const double *Ain, double *w)
{
  double *A = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * n; ++i) A[i] = Ain[i];
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int i = 0; i < n; ++i) for (int j = i + 1; j < n; ++j) off += A[i * n + j] * A[i * n + j];
    if (off < 1e-30) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        double apq = A[p * n + q];
        if (fabs(apq) < 1e-300) continue;
        double th = (A[q * n + q] - A[p * n + p]) / (2 * apq);
        double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {
          double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq; A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {
          double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk; A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < n; ++i) w[i] = A[i * n + i];
  for (int i = 0; i < n; ++i) for (int j = i + 1; j < n; ++j) if (w[j] < w[i]) { double t = w[i]; w[i] = w[j]; w[j] = t; }
  free(A);
}
#endif
