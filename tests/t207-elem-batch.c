/* The range bodies (elem_isa.h, src/host/backends/cpu/elem_batch.cpp: several elements
 * in the lanes of a vector) give the per-element bodies' bits, for every
 * variant this build and CPU have: static force + tangent, force only, and
 * the implicit midpoint element with and without K, over NE elements whose
 * groups of lanes mix what could make lanes disagree:
 *   - pair choices l (most elements share l = 2 at every corner, some are
 *     tumbled: other l, so other groups);
 *   - local rotations on both sides of the series switch of phi (s = 0.1);
 *   - the midpoint energy correction active (deforming) and off (a rigid
 *     motion over the step) within one group;
 *   - sections that differ from element to element;
 *   - a range that is not a multiple of the lanes (tails), and the
 *     initial geometry read from its cache (crd_elem_geo_build);
 *   - a degenerate element: the range reports it, with its kind, as the
 *     per-element body does, and still gives every other element's bits
 *     (its own outputs are NaN, whose payload bits the variants need not
 *     share).
 * It also checks that the vector path ran at all (elements batched > 0),
 * so that a silent fall back to one-by-one everywhere cannot pass. */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "elem_util.h"
#include "crdyn/elem_isa.h"

#define NE 100  /* not a multiple of 8 */
#define BAD 37  /* the degenerate element of the second pass */

static int quads[4 * NE], l[4 * NE];
static double X[12 * NE], P0[12 * NE], da[12 * NE], pa[12 * NE], db[12 * NE], pb[12 * NE], df[12 * NE],
    pf[12 * NE], am[20 * NE], wam[12 * NE], Bs[24 * NE], C[16 * NE], mat[CRD_Q4_MAT_STRIDE * NE];

static void build(void)
{
  const double w = 0.55;
  for (int e = 0; e < NE; ++e) {
    int tumbled = e % 7 == 3, rigid = e % 5 == 1;
    double ax[3] = {eu_rand(), eu_rand(), eu_rand()}, Q[9], R[9];
    eu_rot(ax, tumbled ? 3.0 * eu_rand() : 0.2 * eu_rand(), Q);
    double bx[3] = {eu_rand(), eu_rand(), eu_rand()};
    eu_rot(bx, 0.05 * eu_rand(), R); /* the rigid step's rotation */
    /* local tilt of the normals: below or above the series switch */
    double tilt = (e % 3 == 0) ? 0.3 : 0.02;
    for (int i = 0; i < 4; ++i) {
      int a = 4 * e + i;
      quads[a] = a;
      double xs = (i == 1 || i == 2) ? 1 : 0, ys = i >= 2 ? 1 : 0;
      double x0[3] = {xs + 0.2 * eu_rand(), ys + 0.2 * eu_rand(), 0.05 * eu_rand()};
      double n0[3] = {0.05 * eu_rand(), 0.05 * eu_rand(), 1};
      eu_normalize(n0);
      eu_matvec(Q, x0, X + 3 * a);
      eu_matvec(Q, n0, P0 + 3 * a);
      double t[3] = {eu_rand(), eu_rand(), eu_rand()};
      for (int c = 0; c < 3; ++c) {
        da[3 * a + c] = 0.05 * t[c];
        pa[3 * a + c] = P0[3 * a + c] + tilt * eu_rand();
      }
      eu_normalize(pa + 3 * a);
      if (rigid) { /* b = a moved rigidly: no deformation over the step */
        double xa[3], xb[3];
        for (int c = 0; c < 3; ++c) xa[c] = X[3 * a + c] + da[3 * a + c];
        eu_matvec(R, xa, xb);
        eu_matvec(R, pa + 3 * a, pb + 3 * a);
        for (int c = 0; c < 3; ++c) db[3 * a + c] = xb[c] - X[3 * a + c] + 0.01;
      } else {
        for (int c = 0; c < 3; ++c) {
          db[3 * a + c] = da[3 * a + c] + 0.01 * eu_rand();
          pb[3 * a + c] = pa[3 * a + c] + 0.05 * eu_rand();
        }
        eu_normalize(pb + 3 * a);
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
    mat[CRD_Q4_MAT_STRIDE * e] = 1.0e4 * (1.0 + 0.5 * (e % 4));
    mat[CRD_Q4_MAT_STRIDE * e + 1] = 0.3 - 0.05 * (e % 3);
    mat[CRD_Q4_MAT_STRIDE * e + 2] = 0.05 * (1.0 + 0.1 * (e % 5));
    mat[CRD_Q4_MAT_STRIDE * e + 3] = 1.0; /* the tied membrane shear, the default */
  }
}

enum { NOUT = 20 + 210 + 1 + 20 + 210 + 1 + 20 + 20 + 210 + 400 + 1 + 20 + 20 + 1 };
static double ref[NE][NOUT], got[NE][NOUT];

/* per-element bodies of the generic variant; returns the first bad element's
 * kind (static force) and index */
static void per_element(const crd_elem_isa *g, double (*o)[NOUT], int *bad_e, int *bad_kind)
{
  const double w = 0.55, xi = 0.03;
  *bad_e = -1;
  *bad_kind = 0;
  crd_elem_static_args sk = {.quads = quads, .x = X, .p0n = P0, .dn = db, .pn = pb, .ln = l, .want_k = 1}, sf = sk;
  crd_elem_mid_args mk = {.quads = quads, .x = X, .p0n = P0, .d0n = da, .pan = pa, .dbn = db, .pbn = pb, .dfn = df,
                          .pfn = pf, .amn = am, .wamn = wam, .Bsn = Bs, .ln = l, .Cn = C, .cf = w, .cm = 3.0,
                          .want_k = 1},
                    mf = mk;
  sf.want_k = mf.want_k = 0;
  for (int e = 0; e < NE; ++e) {
    double *q = o[e];
    crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
    int k = g->stat(e, &sk, &mt, q, q + 20, q + 230);
    g->stat(e, &sf, &mt, q + 231, q + 251, q + 461);
    if (k && *bad_e < 0) { *bad_e = e; *bad_kind = k; }
    mt.xi = xi;
    g->mid(e, &mk, &mt, q + 462, q + 482, q + 502, q + 712, q + 1112);
    double k0[210], E0[400];
    g->mid(e, &mf, &mt, q + 1113, q + 1133, k0, E0, q + 1153);
  }
}

/* the range bodies of variant v over [0, NE) in ranges of len */
static void ranges(const crd_elem_isa *v, int len, const double *geo, double (*o)[NOUT], long long *nb, int *bad_e,
                   int *bad_kind)
{
  const double w = 0.55, xi = 0.03;
  static double f[20 * NE], k[210 * NE], u[NE], f2[20 * NE], k2[210 * NE], u2[NE], fg[20 * NE], fi[20 * NE],
      km[210 * NE], Em[400 * NE], um[NE], fg0[20 * NE], fi0[20 * NE], um0[NE];
  *bad_e = -1;
  *bad_kind = 0;
  const crd_elem_static_args sk = {.quads = quads, .x = X, .p0n = P0, .dn = db, .pn = pb, .ln = l, .want_k = 1,
                                   .mat = mat, .geo = geo, .f = f, .k = k, .u = u},
                             sf = {.quads = quads, .x = X, .p0n = P0, .dn = db, .pn = pb, .ln = l, .want_k = 0,
                                   .mat = mat, .geo = geo, .f = f2, .k = k2, .u = u2};
  crd_elem_mid_args mk = {.quads = quads, .x = X, .p0n = P0, .d0n = da, .pan = pa, .dbn = db, .pbn = pb, .dfn = df,
                          .pfn = pf, .amn = am, .wamn = wam, .Bsn = Bs, .ln = l, .Cn = C, .cf = w, .cm = 3.0,
                          .want_k = 1, .mat = mat, .xi = xi, .fgo = fg, .fino = fi, .ko = km, .Eo = Em, .u = um},
                    mf = mk;
  mf.want_k = 0; mf.fgo = fg0; mf.fino = fi0; mf.u = um0;
  for (int e0 = 0; e0 < NE; e0 += len) {
    int e1 = e0 + len < NE ? e0 + len : NE, be = -1;
    int kind = v->stat_range(e0, e1, &sk, &be, nb);
    if (kind && *bad_e < 0) { *bad_e = be; *bad_kind = kind; }
    v->stat_range(e0, e1, &sf, &be, nb);
    v->mid_range(e0, e1, &mk, &be, nb);
    v->mid_range(e0, e1, &mf, &be, nb);
  }
  for (int e = 0; e < NE; ++e) {
    double *q = o[e];
    memcpy(q, f + 20 * e, 20 * sizeof(double));
    memcpy(q + 20, k + 210 * e, 210 * sizeof(double));
    q[230] = u[e];
    memcpy(q + 231, f2 + 20 * e, 20 * sizeof(double));
    q[461] = u2[e];
    memcpy(q + 462, fg + 20 * e, 20 * sizeof(double));
    memcpy(q + 482, fi + 20 * e, 20 * sizeof(double));
    memcpy(q + 502, km + 210 * e, 210 * sizeof(double));
    memcpy(q + 712, Em + 400 * e, 400 * sizeof(double));
    q[1112] = um[e];
    memcpy(q + 1113, fg0 + 20 * e, 20 * sizeof(double));
    memcpy(q + 1133, fi0 + 20 * e, 20 * sizeof(double));
    q[1153] = um0[e];
  }
}

static long count_same(int skip_bad)
{
  long same = 0;
  for (int e = 0; e < NE; ++e)
    for (int t = 0; t < NOUT; ++t) {
      if (skip_bad && e == BAD) { ++same; continue; }
      if (t >= 251 && t < 461) { ++same; continue; } /* k of the force-only call: not an output */
      same += memcmp(&ref[e][t], &got[e][t], sizeof(double)) == 0;
    }
  return same;
}

int main(void)
{
  srand(207);
  build();
  const crd_elem_isa *gen = crd_elem_isa_find("generic");
  T_OK(gen != NULL, "the generic variant exists");
  int nl = 0;
  for (int e = 0; e < NE; ++e) nl += l[4 * e] != 2;
  T_OK(nl > 0 && nl < NE / 2, "the set mixes pair choices (%d of %d elements with l != 2 at corner 0)", nl, NE);
  const char *names[3] = {"generic", "x86-64-v3", "x86-64-v4"};
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) { /* element BAD collapsed in its initial state */
      for (int c = 0; c < 3; ++c) X[12 * BAD + 3 + c] = X[12 * BAD + c];
      for (int c = 0; c < 3; ++c) X[12 * BAD + 6 + c] = X[12 * BAD + c];
    }
    int rbad, rkind;
    per_element(gen, ref, &rbad, &rkind);
    if (pass == 1)
      T_OK(rbad == BAD && rkind != 0, "the per-element body finds element %d bad (%d, kind %d)", BAD, rbad, rkind);
    for (int v = 0; v < 3; ++v) {
      const crd_elem_isa *isa = crd_elem_isa_find(names[v]);
      if (!isa) {
        printf("ok %d - # SKIP %s: not built (PORTABLE=1, not x86-64) or not runnable on this CPU\n", ++t_run,
               names[v]);
        continue;
      }
      /* ranges of all elements without the geometry cache, of 13 with it */
      static double geo[CRD_ELEM_GEO * NE];
      crd_elem_geo_build(NE, quads, X, P0, geo);
      const int lens[2] = {NE, 13};
      for (int li = 0; li < 2; ++li) {
        long long nb = 0;
        int gbad, gkind;
        memset(got, 0, sizeof got);
        ranges(isa, lens[li], li ? geo : NULL, got, &nb, &gbad, &gkind);
        long same = count_same(pass == 1);
        T_OK(same == (long)NE * NOUT, "pass %d, %s (%d lanes), ranges of %d: the per-element bits (%ld of %ld entries)",
             pass, isa->name, isa->lanes, lens[li], same, (long)NE * NOUT);
        T_OK(nb > 0, "pass %d, %s, ranges of %d: %lld element evaluations in vectors", pass, isa->name, lens[li], nb);
        if (pass == 1)
          T_OK(gbad == BAD && gkind == rkind, "pass 1, %s, ranges of %d: element %d reported (%d, kind %d)",
               isa->name, lens[li], BAD, gbad, gkind);
      }
    }
  }
  return T_DONE();
}
