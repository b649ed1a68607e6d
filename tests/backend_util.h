/* crdyn tests: what the backend parity tests (t500 OpenCL, t501 CUDA)
 * share: a doubly curved random mesh as a case text, a worst-element
 * relative difference, and a tumbled state (a rigid rotation plus a small
 * deformation).  Include after elem_util.h. */
#ifndef CRDYN_TEST_BACKEND_UTIL_H
#define CRDYN_TEST_BACKEND_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/problem.h"

#define NX 7
#define NY 5
#define TOL 1e-12

static char *mesh_case(void)
{
  size_t cap = 1 << 16, k = 0;
  char *s = malloc(cap);
  k += (size_t)snprintf(s + k, cap - k, "{\"format\": 1, \"mesh\": {\"nodes\": [");
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      double x = i + 0.25 * eu_rand() * (i > 0 && i < NX), y = 0.8 * j + 0.2 * eu_rand() * (j > 0 && j < NY);
      double z = 0.04 * (x - 3.5) * (x - 3.5) - 0.03 * y * y;   /* doubly curved */
      k += (size_t)snprintf(s + k, cap - k, "%s[%.17g, %.17g, %.17g]", (i || j) ? ", " : "", x, y, z);
    }
  k += (size_t)snprintf(s + k, cap - k, "], \"quads\": [");
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      int a = j * (NX + 1) + i;
      k += (size_t)snprintf(s + k, cap - k, "%s[%d, %d, %d, %d]", (i || j) ? ", " : "", a, a + 1, a + NX + 2,
                            a + NX + 1);
    }
  k += (size_t)snprintf(s + k, cap - k,
                        "]}, \"sections\": [{\"elements\": \"all\", \"E\": 2.0e5, \"nu\": 0.3, \"rho\": 1.0, "
                        "\"thickness\": 0.05}], \"sets\": {\"edge\": {\"nodes\": [0, %d, %d]}}, "
                        "\"supports\": [{\"set\": \"edge\", \"fix\": \"all\"}], \"analysis\": {\"type\": \"static\"}}",
                        NX + 1, 2 * (NX + 1));
  return s;
}

/* largest |a - b| over largest |a|, per block of n (element), worst block */
static double block_rel(const double *a, const double *b, size_t nblk, size_t n, long *identical)
{
  double worst = 0.0;
  for (size_t e = 0; e < nblk; ++e) {
    double da = 0.0, ma = 0.0;
    for (size_t t = 0; t < n; ++t) {
      double d = fabs(a[e * n + t] - b[e * n + t]);
      if (d > da) da = d;
      if (fabs(a[e * n + t]) > ma) ma = fabs(a[e * n + t]);
      if (identical && a[e * n + t] == b[e * n + t]) ++*identical;
    }
    double r = ma > 0 ? da / ma : da;
    if (r > worst) worst = r;
  }
  return worst;
}

static double *dup(const double *a, size_t n)
{
  double *b = malloc(sizeof(double) * (n ? n : 1));
  memcpy(b, a, sizeof(double) * n);
  return b;
}

/* a rigid rotation Q about X0 = origin plus a small deformation */
static void tumble(crd_problem *pb, const double *Q, double amp)
{
  const crd_model *m = pb->m;
  for (int i = 0; i < pb->nn; ++i) {
    double y[3], q[3];
    eu_matvec(Q, m->x + 3 * i, y);
    eu_matvec(Q, pb->p0 + 3 * i, q);
    for (int c = 0; c < 3; ++c) {
      pb->d[3 * i + c] = y[c] - m->x[3 * i + c] + amp * eu_rand();
      pb->p[3 * i + c] = q[c] + 2.0 * amp * eu_rand();
    }
    eu_normalize(pb->p + 3 * i);
  }
  crd_problem_switch_pairs(pb);
}

#endif
