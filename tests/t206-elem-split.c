/* The split element bodies (elem_split.h) run serially on the host (one
 * thread: CRD_NTID 1) against the serial bodies (elem_eval.h): the same
 * phases in the same order must give the same bits, for the static and the
 * midpoint evaluation, with and without the tangent, with the energy
 * correction (cf = 1/2) and without it.  The OpenCL split kernels are the
 * same code with the entries spread over the work-items (t500-backend and
 * tests/cli/opencl.sh check those against the CPU backend). */
#include <stdlib.h>
#include <string.h>

#include "crdyn/elem_split.h"
#include "tap.h"

#define NN 9
#define NE 4

static double rnd(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 - 0.5;
}

/* a unit normal near e_z tilted by (a, b), its dependent component 2 */
static void normal(double a, double b, double *p)
{
  double n = sqrt(1 + a * a + b * b);
  p[0] = a / n;
  p[1] = b / n;
  p[2] = 1 / n;
}

static int same(const double *a, const double *b, size_t n) { return memcmp(a, b, n * sizeof(double)) == 0; }

int main(void)
{
  unsigned sd = 7;
  int quads[4 * NE] = {0, 1, 4, 3, 1, 2, 5, 4, 3, 4, 7, 6, 4, 5, 8, 7}, ln[NN];
  double x[3 * NN], p0[3 * NN], d0[3 * NN], pa[3 * NN], db[3 * NN], pb[3 * NN], df[3 * NN], pf[3 * NN];
  double am[5 * NN], wam[3 * NN], Bs[6 * NN], C[16 * NE];
  for (int i = 0; i < NN; ++i) {
    x[3 * i] = (i % 3) * 0.5 + 0.05 * rnd(&sd);
    x[3 * i + 1] = (i / 3) * 0.4 + 0.05 * rnd(&sd);
    x[3 * i + 2] = 0.03 * rnd(&sd); /* warped */
    normal(0.05 * rnd(&sd), 0.05 * rnd(&sd), p0 + 3 * i);
    normal(0.2 * rnd(&sd), 0.2 * rnd(&sd), pa + 3 * i);
    normal(0.3 * rnd(&sd), 0.3 * rnd(&sd), pb + 3 * i);
    ln[i] = 2;
    for (int c = 0; c < 3; ++c) {
      d0[3 * i + c] = 0.02 * rnd(&sd);
      db[3 * i + c] = d0[3 * i + c] + 0.01 * rnd(&sd);
      df[3 * i + c] = 0.5 * (d0[3 * i + c] + db[3 * i + c]);
      pf[3 * i + c] = 0.5 * (pa[3 * i + c] + pb[3 * i + c]);
      wam[3 * i + c] = rnd(&sd);
    }
    for (int c = 0; c < 5; ++c) am[5 * i + c] = rnd(&sd);
    for (int c = 0; c < 6; ++c) Bs[6 * i + c] = rnd(&sd);
  }
  for (int a = 0; a < 16 * NE; ++a) C[a] = 0.01 * (1.0 + 0.5 * rnd(&sd));
  crd_q4_mat mt;
  mt.E = 2.1e5;
  mt.nu = 0.3;
  mt.h = 0.01;
  mt.xi = 0.05; /* the midpoint elements with the dissipative stress too (the static ones ignore it) */
  mt.am = 1.0;  /* the tied membrane shear, the default */
  static crd_elem_ws ws;
  int bad = 0;
  for (int want_k = 0; want_k < 2; ++want_k) {
    int ok = 1;
    for (int e = 0; e < NE; ++e) {
      double f1[20], k1[210] = {0}, u1, f2[20], k2[210] = {0}, u2;
      int r1 = crd_elem_static(e, quads, x, p0, db, pb, ln, &mt, want_k, f1, k1, &u1);
      int r2 = crd_elem_static_split(e, quads, x, p0, db, pb, ln, &mt, want_k, f2, k2, &u2, &ws);
      ok &= r1 == r2 && same(f1, f2, 20) && same(k1, k2, 210) && same(&u1, &u2, 1);
      bad += r1 != 0;
    }
    T_OK(ok, "static evaluation%s: split phases bitwise equal to crd_elem_static on %d elements",
         want_k ? " with k" : ", force only", NE);
  }
  for (int v = 0; v < 4; ++v) {
    int want_k = v & 1;
    double cf = (v & 2) ? 0.6 : 0.5, cm = 1.7e3;
    int ok = 1;
    for (int e = 0; e < NE; ++e) {
      double fg1[20], fi1[20], k1[210] = {0}, E1[400] = {0}, u1, fg2[20], fi2[20], k2[210] = {0}, E2[400] = {0}, u2;
      int r1 = crd_elem_mid(e, quads, x, p0, d0, pa, db, pb, df, pf, am, wam, Bs, ln, C, &mt, cf, cm, want_k, fg1,
                            fi1, k1, E1, &u1);
      int r2 = crd_elem_mid_split(e, quads, x, p0, d0, pa, db, pb, df, pf, am, wam, Bs, ln, C, &mt, cf, cm, want_k,
                                  fg2, fi2, k2, E2, &u2, &ws);
      ok &= r1 == r2 && same(fg1, fg2, 20) && same(fi1, fi2, 20) && same(k1, k2, 210) && same(E1, E2, 400) &&
            same(&u1, &u2, 1);
      bad += r1 != 0;
    }
    T_OK(ok, "midpoint evaluation (cf %.1f%s): split phases bitwise equal to crd_elem_mid", cf,
         want_k ? ", with K_eff and E" : ", forces only");
  }
  T_OK(bad == 0, "the test elements are sound (%d flagged)", bad);
  /* the test can fail: a perturbed input changes the bits */
  double f1[20], k1[210], u1, f2[20], k2[210], u2;
  crd_elem_static(0, quads, x, p0, db, pb, ln, &mt, 1, f1, k1, &u1);
  db[0] += 1e-9;
  crd_elem_static_split(0, quads, x, p0, db, pb, ln, &mt, 1, f2, k2, &u2, &ws);
  T_OK(!same(k1, k2, 210), "a perturbed state gives other bits (the comparison can fail)");
  return T_DONE();
}
