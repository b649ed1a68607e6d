/* crdyn: intersection nodes in the explicit step (explicit_triad.h for
 * the mathematics, dynamics.h for the calls). */
#include <string.h>

#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/explicit_triad.h"
#include "crdyn/switches.h"
#include "crdyn/triads.h"

/* Whether triad k is held (its three chart equations fixed together). */
static int held(const crd_problem *pb, int k)
{
  int i = pb->tr->node[k];
  return pb->eq[5 * i + 3] < 0 && pb->eq[5 * i + 4] < 0 && pb->tr->eq3[k] < 0;
}

int crd_ex_triads_create(crd_dyn *dy, const crd_problem *pb)
{
  const crd_triads *tr = pb->tr;
  size_t n = (size_t)tr->n;
  if (CRD_CALLOC(9 * n, &dy->tJb) || CRD_CALLOC(3 * n, &dy->tpi) || CRD_CALLOC(3 * n, &dy->tom) ||
      CRD_CALLOC(3 * n, &dy->tm) || CRD_CALLOC(9 * n, &dy->tRd) || CRD_CALLOC(9 * n, &dy->tRdd))
    return CRD_TRACE(CRD_ERR_MEM);
  /* each triad corner: P = h^2/12 (row a of its element's C) times (I - c c^T) */
  for (int f = 0; f < tr->nel; ++f) {
    int e = tr->elem[f];
    const crd_section *s = &pb->m->sections[pb->m->elem_section[e]];
    const double *C = dy->C + 16 * (size_t)e;
    for (int a = 0; a < 4; ++a) {
      int k = tr->of[pb->m->quads[4 * e + a]];
      if (k < 0) continue;
      double P = s->thickness * s->thickness / 12.0 * (C[4 * a] + C[4 * a + 1] + C[4 * a + 2] + C[4 * a + 3]);
      crd_ext_corner_inertia(P, tr->c + 12 * f + 3 * a, dy->tJb + 9 * k);
    }
  }
  return 0;
}

/* The node's normal rates from the triad's: w = om x p and
 * wa = om' x p + om x (om x p), om' = J^-1 (m - om x pi) (Euler). */
static void normal_rates(crd_dyn *dy, const crd_problem *pb, double s, int k)
{
  int i = pb->tr->node[k];
  const double *E = pb->tr->E + 9 * k, *p = pb->p + 3 * i, *om = dy->tom + 3 * k;
  double om2[3], al[3], t[3], u[3];
  crd_ext_omega_dot(E, dy->tJb + 9 * k, s, dy->tpi + 3 * k, dy->tm + 3 * k, om2, al);
  crd_cross3(om, p, dy->w + 3 * i);
  crd_cross3(al, p, t);
  crd_cross3(om, dy->w + 3 * i, u);
  for (int c = 0; c < 3; ++c) dy->wa[3 * i + c] = held(pb, k) ? 0.0 : t[c] + u[c];
}

void crd_ex_triads_initial(crd_dyn *dy, const crd_problem *pb, double s, const double *om0)
{
  const crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    double J[9], *om = dy->tom + 3 * k, *pi = dy->tpi + 3 * k;
    for (int c = 0; c < 3 && om0; ++c) om[c] = om0[c];
    if (held(pb, k)) memset(om, 0, 3 * sizeof(double));
    crd_ext_spatial(tr->E + 9 * k, dy->tJb + 9 * k, s, J);
    for (int r = 0; r < 3; ++r) pi[r] = crd_dot3(J + 3 * r, om);
    for (int a = 0; a < 3; ++a) /* R' = [om]_x R (the implicit step's rates, fold_dyn.h) */
      crd_cross3(om, tr->E + 9 * k + 3 * a, dy->tRd + 9 * k + 3 * a);
    normal_rates(dy, pb, s, k);
  }
}

/* Test hook CRDYN_TEST_TRIAD_MOMENT=chart: the chart force taken as the
 * moment itself (m = F instead of M^T F: a wrong mapping) for
 * tests/cli/fold_dynamics.sh to catch. */
static int wrong_moment(void)
{
  const char *h = crd_switch("CRDYN_TEST_TRIAD_MOMENT");
  return h && !strcmp(h, "chart");
}

void crd_ex_triads_moments(crd_dyn *dy, const crd_problem *pb, const double *Fe, const double *Fi)
{
  const crd_triads *tr = pb->tr;
  int bad = wrong_moment();
  for (int k = 0; k < tr->n; ++k) {
    int i = tr->node[k];
    int32_t q[3] = {pb->eq[5 * i + 3], pb->eq[5 * i + 4], tr->eq3[k]};
    double F[3];
    for (int a = 0; a < 3; ++a) F[a] = q[a] >= 0 ? Fe[q[a]] - Fi[q[a]] : 0.0;
    if (bad) memcpy(dy->tm + 3 * k, F, sizeof F);
    else crd_ext_moment(tr->E + 9 * k, tr->ch[k], F, dy->tm + 3 * k);
  }
}

void crd_ex_triads_kick(crd_dyn *dy, const crd_problem *pb, double s, double h)
{
  const crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    double *pi = dy->tpi + 3 * k;
    if (held(pb, k)) {
      memset(pi, 0, 3 * sizeof(double));
      memset(dy->tom + 3 * k, 0, 3 * sizeof(double));
    } else {
      for (int c = 0; c < 3; ++c) pi[c] += h * dy->tm[3 * k + c];
      crd_ext_omega(tr->E + 9 * k, dy->tJb + 9 * k, s, pi, dy->tom + 3 * k);
    }
    normal_rates(dy, pb, s, k);
  }
}

void crd_ex_triads_drift(const crd_dyn *dy, crd_problem *pb, double s, double dt)
{
  crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    if (held(pb, k)) continue;
    double E[9];
    memcpy(E, tr->E + 9 * k, sizeof E);
    crd_ext_drift(dy->tJb + 9 * k, s, dy->tpi + 3 * k, dt, E);
    crd_triads_set(pb, k, E);
  }
}

/* Test hook CRDYN_TEST_TRIAD_MEASURE=no_spin: the triads' angular momentum
 * left out of J (a wrong measure for tests/cli/fold_dynamics.sh). */
static int spin_left_out(void)
{
  const char *h = crd_switch("CRDYN_TEST_TRIAD_MEASURE");
  return h && !strcmp(h, "no_spin");
}

void crd_ex_triads_measure(const crd_dyn *dy, const crd_problem *pb, double *K, double *J)
{
  int skip = spin_left_out();
  for (int k = 0; k < pb->tr->n; ++k) {
    const double *pi = dy->tpi + 3 * k;
    *K += 0.5 * crd_dot3(dy->tom + 3 * k, pi);
    for (int c = 0; c < 3 && !skip; ++c) J[c] += pi[c];
  }
}
