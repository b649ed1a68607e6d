/* crdyn: the watchdogs' helpers (dynamics.h): where a non-finite value
 * is, and the planted-NaN test hook. */
#include <math.h>

#include "crdyn/dynamics.h"

int crd_dyn_nonfinite_node(const crd_dyn *dy, const crd_problem *pb)
{
  for (int i = 0; i < pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      size_t k = 3 * (size_t)i + c;
      if (!isfinite(pb->d[k]) || !isfinite(pb->p[k]) || !isfinite(dy->v[k]) || !isfinite(dy->a[k]) ||
          !isfinite(dy->w[k]) || !isfinite(dy->wa[k]))
        return i;
    }
  return -1;
}

int crd_nonfinite_eq(const double *F, int n)
{
  for (int i = 0; i < n; ++i)
    if (!isfinite(F[i])) return i;
  return -1;
}

int crd_problem_eq_node(const crd_problem *pb, int eq, int *slot)
{
  for (int k = 0; k < 5 * pb->nn; ++k)
    if (pb->eq[k] == eq) {
      if (slot) *slot = k % 5;
      return k / 5;
    }
  if (slot) *slot = -1;
  return -1;
}

void crd_dyn_test_nan(const crd_run *r, int step, double *Fext, int n)
{
  if (r->test_nan_step <= 0 || step < r->test_nan_step) return;
  for (int i = 0; i < n; ++i)
    if (Fext[i] != 0.0) {
      Fext[i] = NAN;
      return;
    }
  if (n > 0) Fext[0] = NAN;
}

void crd_dyn_test_energy(const crd_run *r, int step, crd_dyn *dy, const crd_problem *pb)
{
  if (r->test_energy_step <= 0 || step < r->test_energy_step) return;
  for (size_t k = 0; k < 3 * (size_t)pb->nn; ++k) {
    dy->v[k] *= 1.01;
    dy->w[k] *= 1.01;
  }
}
