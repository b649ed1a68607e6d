/* The CPU element variants (elem_isa.h: generic, x86-64-v3, x86-64-v4)
 * give the same bits: static force + tangent, force only and the implicit
 * midpoint element, on random distorted, warped, tumbled elements in
 * finite deformation (each pair choice l exercised).  They are the same C
 * compiled with -ffp-contract=off, so vector code may only change which
 * registers hold the numbers; a fused multiply-add or a reordered sum would
 * show here.  A variant this build or CPU lacks is reported as skipped. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "elem_util.h"
#include "crdyn/elem_isa.h"

#define NE 24

int main(void)
{
  srand(205);
  /* NE independent elements: 4 nodes each, no sharing */
  int quads[4 * NE], l[4 * NE];
  double X[12 * NE], P0[12 * NE], da[12 * NE], pa[12 * NE], db[12 * NE], pb[12 * NE], df[12 * NE], pf[12 * NE];
  double am[20 * NE], wam[12 * NE], Bs[24 * NE], C[16 * NE];
  const double w = 0.55;
  for (int e = 0; e < NE; ++e) {
    double ax[3] = {eu_rand(), eu_rand(), eu_rand()}, Q[9];
    eu_rot(ax, 3.0 * eu_rand(), Q);
    for (int i = 0; i < 4; ++i) {
      int a = 4 * e + i;
      quads[a] = a;
      double xs = (i == 1 || i == 2) ? 1 : 0, ys = i >= 2 ? 1 : 0;
      double x0[3] = {xs + 0.2 * eu_rand(), ys + 0.2 * eu_rand(), 0.05 * eu_rand()}, n0[3] = {0.1 * eu_rand(), 0.1 * eu_rand(), 1};
      eu_normalize(n0);
      eu_matvec(Q, x0, X + 3 * a);
      eu_matvec(Q, n0, P0 + 3 * a);
      for (int s = 0; s < 2; ++s) {
        double *d = s ? db : da, *p = s ? pb : pa, t[3] = {eu_rand(), eu_rand(), eu_rand()};
        for (int c = 0; c < 3; ++c) {
          d[3 * a + c] = 0.1 * t[c] + 0.01 * s * eu_rand();
          p[3 * a + c] = P0[3 * a + c] + 0.3 * eu_rand();
        }
        eu_normalize(p + 3 * a);
      }
      l[a] = crd_dir_choose(pb + 3 * a);
      double f2 = 0, A1[6];
      for (int c = 0; c < 3; ++c) {
        df[3 * a + c] = (1 - w) * da[3 * a + c] + w * db[3 * a + c];
        pf[3 * a + c] = (1 - w) * pa[3 * a + c] + w * pb[3 * a + c];
        f2 += pf[3 * a + c] * pf[3 * a + c];
        wam[3 * a + c] = eu_rand();
      }
      for (int c = 0; c < 5; ++c) am[5 * a + c] = eu_rand();
      crd_dir_A1(pb + 3 * a, l[a], A1);
      for (int s = 0; s < 2; ++s) {
        double cc = (pf[3 * a] * A1[s] + pf[3 * a + 1] * A1[2 + s] + pf[3 * a + 2] * A1[4 + s]) / f2;
        for (int r = 0; r < 3; ++r) Bs[6 * a + 2 * r + s] = A1[2 * r + s] - cc * pf[3 * a + r];
      }
    }
    for (int t = 0; t < 16; ++t) C[16 * e + t] = (t / 4 == t % 4 ? 2.0 : 1.0) / 36.0;
  }
  const crd_q4_mat mt = {1.0e4, 0.3, 0.05, 0.0, 1.0};
  enum { NOUT = 20 + 210 + 1 + 20 + 210 + 1 + 20 + 20 + 210 + 400 + 1 };
  static double out[2][NE][NOUT];
  const crd_elem_isa *gen = crd_elem_isa_find("generic");
  T_OK(gen != NULL, "the generic variant exists");
  const char *names[2] = {"x86-64-v3", "x86-64-v4"};
  for (int v = -1; v < 2; ++v) {
    const crd_elem_isa *isa = v < 0 ? gen : crd_elem_isa_find(names[v]);
    if (!isa) {
      printf("ok %d - # SKIP %s: not built (PORTABLE=1, not x86-64) or not runnable on this CPU\n", ++t_run, names[v]);
      continue;
    }
    double (*o)[NOUT] = out[v >= 0];
    int bad = 0;
    const crd_elem_static_args sk = {.quads = quads, .x = X, .p0n = P0, .dn = db, .pn = pb, .ln = l, .want_k = 1};
    crd_elem_static_args sf = sk;
    sf.want_k = 0;
    const crd_elem_mid_args ma = {.quads = quads, .x = X, .p0n = P0, .d0n = da, .pan = pa, .dbn = db, .pbn = pb,
                                  .dfn = df, .pfn = pf, .amn = am, .wamn = wam, .Bsn = Bs, .ln = l, .Cn = C,
                                  .cf = w, .cm = 3.0, .want_k = 1};
    for (int e = 0; e < NE; ++e) {
      double *q = o[e];
      bad |= isa->stat(e, &sk, &mt, q, q + 20, q + 230);
      bad |= isa->stat(e, &sf, &mt, q + 231, q + 251, q + 461);
      bad |= isa->mid(e, &ma, &mt, q + 462, q + 482, q + 502, q + 712, q + 1112);
    }
    T_OK(bad == 0, "%s: no element reported bad", isa->name);
    if (v < 0) continue;
    long same = 0;
    for (int e = 0; e < NE; ++e)
      for (int t = 0; t < NOUT; ++t) same += memcmp(&out[0][e][t], &out[1][e][t], sizeof(double)) == 0;
    T_OK(same == (long)NE * NOUT, "%s equals generic bitwise (%ld of %ld entries)", isa->name, same,
         (long)NE * NOUT);
  }
  /* the selector returns one of the variants */
  const crd_elem_isa *sel = crd_elem_isa_select();
  T_OK(sel && (sel == gen || sel == crd_elem_isa_find(sel->name)), "selected variant: %s", sel ? sel->name : "none");
  return T_DONE();
}
