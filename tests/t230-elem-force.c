/* crdyn tests: the lean explicit force (include/crdyn/elem_force.h), run
 * on the host phase by phase as the CUDA kernel's lanes run it
 * (tests/elem_force_host.h), against the CPU backend's element body
 * crd_elem_static (want_k = 0):
 *  1. bitwise: f_G, u and the element code, with divisions and no
 *     contraction (the no-FMA device build's arithmetic), on warped,
 *     tumbled, strained elements, small and large rotations (both branches
 *     of crd_q4_phi_coef), every pair choice, both membranes (am = 0, 1);
 *  2. with reciprocals and FMA contraction (tests/elem_force_fma.c, the
 *     default device build's choices): to 1e-12 of each element's largest
 *     force, u to 1e-12, or within 4 times the CPU's own change when the
 *     state moves by one ulp, whichever is larger: a thin section is
 *     ill-conditioned (transverse shear nearly constrained: (L/h)^2 ~ 1.7e4
 *     here), and any other rounding of the same formulas moves f that much
 *     (measured here: 1.4e-12 with either the reciprocals or the
 *     contraction alone, against a one-ulp spread of the same size);
 *  3. the codes: an inverted and a degenerate element;
 *  4. the check can fail: one cached value moved by one ulp changes bits. */
#include <stdio.h>
#include <string.h>

#include "crdyn/elem_eval.h"
#include "elem_util.h"
#include "tap.h"

#define EF_HOST_FN ef_run
#include "elem_force_host.h"
void ef_run_fma(int ne, const int *quads, const double *x, const double *d, const double *p, const int *l,
                const double *mat, const double *geo, double *fe, double *ue, int *kind);

#define NX 6
#define NY 5
#define NN ((NX + 1) * (NY + 1))
#define NE (NX * NY)

typedef struct mesh {
  int quads[4 * NE], l[NN];
  double x[3 * NN], p0[3 * NN], d[3 * NN], p[3 * NN], mat[4 * NE];
} mesh;

/* a warped grid, turned and moved as a whole, each node strained and its
 * normal tilted (tilt: the size of the normals' change, large for the
 * closed-form branch of phi) */
static void make_mesh(mesh *m, double tilt)
{
  double Q[9], ax[3] = {0.3, -0.5, 0.8};
  eu_rot(ax, 0.7, Q);
  for (int j = 0; j <= NY; ++j)
    for (int i = 0; i <= NX; ++i) {
      int n = j * (NX + 1) + i;
      double *X = m->x + 3 * n, *p0 = m->p0 + 3 * n, xr[3], pr[3];
      X[0] = 1.3 * i + 0.1 * eu_rand() + 100.0;
      X[1] = 0.9 * j + 0.1 * eu_rand() - 50.0;
      X[2] = 0.05 * eu_rand() + 0.02 * i * j;
      p0[0] = 0.05 * eu_rand();
      p0[1] = 0.05 * eu_rand();
      p0[2] = 1.0;
      eu_normalize(p0);
      eu_matvec(Q, X, xr);
      for (int c = 0; c < 3; ++c) m->d[3 * n + c] = xr[c] - X[c] + 0.02 * eu_rand();
      eu_matvec(Q, p0, pr);
      for (int c = 0; c < 3; ++c) pr[c] += tilt * eu_rand();
      eu_normalize(pr);
      for (int c = 0; c < 3; ++c) m->p[3 * n + c] = pr[c];
      m->l[n] = (n % 5 == 0) ? (crd_dir_choose(pr) + 1) % 3 : crd_dir_choose(pr); /* every pair choice */
    }
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      int e = j * NX + i, n0 = j * (NX + 1) + i;
      int q[4] = {n0, n0 + 1, n0 + NX + 2, n0 + NX + 1};
      for (int a = 0; a < 4; ++a) m->quads[4 * e + a] = q[a];
      double mt[4] = {2.1e11 * (1 + 0.1 * eu_rand()), 0.3, 0.01 + 0.002 * eu_rand(), e % 3 ? 1.0 : 0.0};
      memcpy(m->mat + 4 * e, mt, sizeof mt);
    }
}

/* the CPU backend's element body, force only */
static void cpu_forces(const mesh *m, double *f, double *u, int *kind)
{
  for (int e = 0; e < NE; ++e) {
    crd_q4_mat mt = crd_q4_mat_at(m->mat, e, 0.0);
    double k[210];
    kind[e] = crd_elem_static(e, m->quads, m->x, m->p0, m->d, m->p, m->l, &mt, 0, f + 20 * e, k, u + e);
  }
}

static int same_bits(const double *a, const double *b, int n) { return memcmp(a, b, sizeof(double) * (size_t)n) == 0; }

/* largest |a - b| over each element's largest |a| (20 per element) */
static double rel_err(const double *a, const double *b, int ne)
{
  double worst = 0.0;
  for (int e = 0; e < ne; ++e) {
    double mx = 0.0, d = 0.0;
    for (int c = 0; c < 20; ++c) {
      mx = fmax(mx, fabs(a[20 * e + c]));
      d = fmax(d, fabs(a[20 * e + c] - b[20 * e + c]));
    }
    worst = fmax(worst, d / mx);
  }
  return worst;
}

static void check_state(const char *name, mesh *m)
{
  static double geo[CRD_EF_GEO * NE], f0[20 * NE], f1[20 * NE], f2[20 * NE], u0[NE], u1[NE], u2[NE];
  int k0[NE], k1[NE], k2[NE];
  crd_ef_geo_build(NE, m->quads, m->x, m->p0, m->mat, geo);
  cpu_forces(m, f0, u0, k0);
  ef_run(NE, m->quads, m->x, m->d, m->p, m->l, m->mat, geo, f1, u1, k1);
  ef_run_fma(NE, m->quads, m->x, m->d, m->p, m->l, m->mat, geo, f2, u2, k2);
  int kinds = !memcmp(k0, k1, sizeof k0) && !memcmp(k0, k2, sizeof k0), nbad = 0;
  for (int e = 0; e < NE; ++e) nbad += k0[e] != 0;
  T_OK(kinds, "%s: element codes equal (%d bad of %d)", name, nbad, NE);
  T_OK(same_bits(f0, f1, 20 * NE) && same_bits(u0, u1, NE), "%s: f_G and u bitwise the CPU's (divisions, no contraction; %d elements)",
       name, NE);
  double ef = rel_err(f0, f2, NE), eu = 0.0, su = 0.0;
  for (int e = 0; e < NE; ++e) eu = fmax(eu, fabs(u2[e] - u0[e]) / fabs(u0[e]));
  /* the CPU's own spread: every translation one ulp away */
  static mesh m1;
  m1 = *m;
  for (int a = 0; a < 3 * NN; ++a) m1.d[a] = nextafter(m1.d[a], a % 2 ? 1e300 : -1e300);
  cpu_forces(&m1, f1, u1, k1);
  double sf = rel_err(f0, f1, NE);
  for (int e = 0; e < NE; ++e) su = fmax(su, fabs(u1[e] - u0[e]) / fabs(u0[e]));
  T_OK(ef <= fmax(1e-12, 4 * sf) && eu <= fmax(1e-12, 4 * su),
       "%s: with reciprocals and FMA contraction to 1e-12 or 4x the CPU's one-ulp spread (f: %.2e, spread %.2e; u: %.2e, "
       "spread %.2e)", name, ef, sf, eu, su);
  /* the bitwise check can fail: one cached value one ulp off */
  geo[CRD_EF_GEO * 7 + CRD_EF_GP + 4] = nextafter(geo[CRD_EF_GEO * 7 + CRD_EF_GP + 4], 1e300);
  ef_run(NE, m->quads, m->x, m->d, m->p, m->l, m->mat, geo, f1, u1, k1);
  T_OK(!same_bits(f0, f1, 20 * NE), "%s: a cached det J one ulp off is seen (max rel. difference %.2e)", name,
       rel_err(f0, f1, NE));
}

int main(void)
{
  static mesh m;
  srand(230);
  make_mesh(&m, 0.02);
  check_state("small rotations", &m);
  make_mesh(&m, 0.3);
  check_state("large rotations (phi's closed form)", &m);
  /* an inverted element: node 8 pushed across its element's diagonal; a
   * degenerate one: two corners of element 20 at one point */
  make_mesh(&m, 0.02);
  for (int c = 0; c < 3; ++c) m.d[3 * 8 + c] += 3.0 * (m.x[3 * 16 + c] + m.d[3 * 16 + c] - m.x[3 * 8 + c] - m.d[3 * 8 + c]);
  int a = m.quads[4 * 20], b = m.quads[4 * 20 + 1];
  for (int c = 0; c < 3; ++c) m.x[3 * b + c] = m.x[3 * a + c];
  check_state("with inverted and degenerate elements", &m);
  return T_DONE();
}
