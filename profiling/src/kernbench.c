/* crdyn bench: element kernels alone (no assembly, no solver), for profiling
 * the element code: a plate of n x n elements in slight bending (the state
 * of flopcount.cpp spread over a mesh), each kernel run over every element
 * `reps` times, best pass reported in ns/element.  It prints a hash of the
 * output bytes so that two builds (flags, loop orders) can be compared
 * bitwise, and the largest relative difference to a reference dump when
 * given one (kernbench N REPS [--dump FILE | --ref FILE] [--w W]).
 * W: the midpoint weight (default 1 - 0.9/1.9, rho_inf = 0.9); --w 0.5 is
 * the energy-conserving step (rho_inf = 1), with the energy correction and
 * its derivative in the tangent.
 * Single thread; the CPU backend's element variant (elem_isa.h: the widest
 * this CPU runs, or CRDYN_ELEM_ISA=generic|x86-64-v3|x86-64-v4), element by
 * element (ns_*) and by its range bodies, elements in vector lanes as the
 * CPU backend runs them (ns_*_batch; batch_bitwise: the same bytes). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crdyn/elem_isa.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: less disturbed by other jobs */
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
  const unsigned char *c = p;
  for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

static void state(double x, double y, double c, double *d, double *p)
{
  double sx = 2 * c * x + 0.001 * y, sy = 0.001 * x;
  d[0] = -c * c * x * x * x * 0.66; d[1] = 1e-6 * y; d[2] = c * x * x + 0.001 * x * y;
  double nn = sqrt(1 + sx * sx + sy * sy);
  p[0] = -sx / nn; p[1] = -sy / nn; p[2] = 1 / nn;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 64, reps = argc > 2 ? atoi(argv[2]) : 5;
  const char *dump = 0, *ref = 0;
  double w = 1.0 - 0.9 / 1.9;
  for (int i = 3; i + 1 < argc; ++i) {
    if (!strcmp(argv[i], "--w")) w = atof(argv[i + 1]);
    if (!strcmp(argv[i], "--dump")) dump = argv[i + 1];
    if (!strcmp(argv[i], "--ref")) ref = argv[i + 1];
  }
  int nn = (n + 1) * (n + 1), ne = n * n;
  double *X = malloc(sizeof(double) * 3 * nn), *P0 = malloc(sizeof(double) * 3 * nn);
  double *da = malloc(sizeof(double) * 3 * nn), *pa = malloc(sizeof(double) * 3 * nn);
  double *db = malloc(sizeof(double) * 3 * nn), *pb = malloc(sizeof(double) * 3 * nn);
  double *df = malloc(sizeof(double) * 3 * nn), *pf = malloc(sizeof(double) * 3 * nn);
  double *am = malloc(sizeof(double) * 5 * nn), *wam = malloc(sizeof(double) * 3 * nn);
  double *Bs = malloc(sizeof(double) * 6 * nn), *C = malloc(sizeof(double) * 16 * ne);
  int *l = malloc(sizeof(int) * nn), *quads = malloc(sizeof(int) * 4 * ne);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      int a = j * (n + 1) + i;
      double x = (double)i / n, y = (double)j / n;
      X[3 * a] = x; X[3 * a + 1] = y; X[3 * a + 2] = 0;
      P0[3 * a] = 0; P0[3 * a + 1] = 0; P0[3 * a + 2] = 1;
      state(x, y, 0.02, da + 3 * a, pa + 3 * a);
      state(x, y, 0.021, db + 3 * a, pb + 3 * a);
      l[a] = crd_dir_choose(pb + 3 * a);
      double f2 = 0;
      for (int c = 0; c < 3; ++c) {
        df[3 * a + c] = (1 - w) * da[3 * a + c] + w * db[3 * a + c];
        pf[3 * a + c] = (1 - w) * pa[3 * a + c] + w * pb[3 * a + c];
        f2 += pf[3 * a + c] * pf[3 * a + c];
        wam[3 * a + c] = 0.1 * c + x;
      }
      for (int c = 0; c < 5; ++c) am[5 * a + c] = 0.2 * c - y;
      double A1[6];
      crd_dir_A1(pb + 3 * a, l[a], A1);
      for (int s = 0; s < 2; ++s) {
        double cc = (pf[3 * a] * A1[s] + pf[3 * a + 1] * A1[2 + s] + pf[3 * a + 2] * A1[4 + s]) / f2;
        for (int r = 0; r < 3; ++r) Bs[6 * a + 2 * r + s] = A1[2 * r + s] - cc * pf[3 * a + r];
      }
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int e = j * n + i, a = j * (n + 1) + i;
      quads[4 * e] = a; quads[4 * e + 1] = a + 1; quads[4 * e + 2] = a + n + 2; quads[4 * e + 3] = a + n + 1;
      for (int t = 0; t < 16; ++t) C[16 * e + t] = (t / 4 == t % 4 ? 2.0 : 1.0) * 7850 * 0.01 / (36.0 * n * n);
    }
  crd_q4_mat mt = {2.1e11, 0.3, 0.01, 0.0, 1.0};
  size_t nout = (size_t)ne * (20 + 210 + 1) * 2 + (size_t)ne * (20 + 20 + 210 + 400 + 1);
  double *out = calloc(nout, sizeof(double));
  double *fs = out, *ks = fs + 20 * (size_t)ne, *us = ks + 210 * (size_t)ne;
  double *ff = us + ne, *kf = ff + 20 * (size_t)ne, *uf = kf + 210 * (size_t)ne;
  double *fg = uf + ne, *fin = fg + 20 * (size_t)ne, *km = fin + 20 * (size_t)ne, *Em = km + 210 * (size_t)ne,
         *um = Em + 400 * (size_t)ne;
  const crd_elem_isa *isa = crd_elem_isa_select();
  double best[3] = {1e30, 1e30, 1e30};
  int bad = 0;
  crd_elem_static_args sa = {.quads = quads, .x = X, .p0n = P0, .dn = db, .pn = pb, .ln = l, .want_k = 1};
  crd_elem_static_args sf = sa;
  sf.want_k = 0;
  crd_elem_mid_args ma = {.quads = quads, .x = X, .p0n = P0, .d0n = da, .pan = pa, .dbn = db, .pbn = pb, .dfn = df,
                          .pfn = pf, .amn = am, .wamn = wam, .Bsn = Bs, .ln = l, .Cn = C, .cf = w, .cm = 3e5,
                          .want_k = 1};
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    for (int e = 0; e < ne; ++e)
      bad |= isa->mid(e, &ma, &mt, fg + 20 * (size_t)e, fin + 20 * (size_t)e, km + 210 * (size_t)e,
                      Em + 400 * (size_t)e, um + e);
    double t1 = now();
    for (int e = 0; e < ne; ++e)
      bad |= isa->stat(e, &sa, &mt, fs + 20 * (size_t)e, ks + 210 * (size_t)e, us + e);
    double t2 = now();
    for (int e = 0; e < ne; ++e)
      bad |= isa->stat(e, &sf, &mt, ff + 20 * (size_t)e, kf + 210 * (size_t)e, uf + e);
    double t3 = now();
    if (t1 - t0 < best[0]) best[0] = t1 - t0;
    if (t2 - t1 < best[1]) best[1] = t2 - t1;
    if (t3 - t2 < best[2]) best[2] = t3 - t2;
  }
  /* the range bodies (elem_batch.cpp: elements in vector lanes) over the
   * whole mesh, into a second buffer that must hold the same bytes */
  double *mat = malloc(sizeof(double) * CRD_Q4_MAT_STRIDE * ne);
  for (int e = 0; e < ne; ++e) {
    double *r = mat + (size_t)CRD_Q4_MAT_STRIDE * e;
    r[0] = mt.E; r[1] = mt.nu; r[2] = mt.h; r[3] = mt.am;
  }
  double *geo = malloc(sizeof(double) * CRD_ELEM_GEO * ne);
  crd_elem_geo_build(ne, quads, X, P0, geo);
  double *out2 = calloc(nout, sizeof(double));
  double *fs2 = out2, *ks2 = fs2 + 20 * (size_t)ne, *us2 = ks2 + 210 * (size_t)ne;
  double *ff2 = us2 + ne, *kf2 = ff2 + 20 * (size_t)ne, *uf2 = kf2 + 210 * (size_t)ne;
  double *fg2 = uf2 + ne, *fin2 = fg2 + 20 * (size_t)ne, *km2 = fin2 + 20 * (size_t)ne,
         *Em2 = km2 + 210 * (size_t)ne, *um2 = Em2 + 400 * (size_t)ne;
  double bestb[3] = {1e30, 1e30, 1e30};
  long long nb = 0;
  ma.mat = mat; ma.xi = 0.0; ma.fgo = fg2; ma.fino = fin2; ma.ko = km2; ma.Eo = Em2; ma.u = um2;
  sa.mat = mat; sa.geo = geo; sa.f = fs2; sa.k = ks2; sa.u = us2;
  sf.mat = mat; sf.geo = geo; sf.f = ff2; sf.k = kf2; sf.u = uf2;
  for (int r = 0; r < reps; ++r) {
    int be;
    double t0 = now();
    bad |= isa->mid_range(0, ne, &ma, &be, &nb);
    double t1 = now();
    bad |= isa->stat_range(0, ne, &sa, &be, &nb);
    double t2 = now();
    bad |= isa->stat_range(0, ne, &sf, &be, &nb);
    double t3 = now();
    if (t1 - t0 < bestb[0]) bestb[0] = t1 - t0;
    if (t2 - t1 < bestb[1]) bestb[1] = t2 - t1;
    if (t3 - t2 < bestb[2]) bestb[2] = t3 - t2;
  }
  memcpy(kf2, kf, sizeof(double) * 210 * (size_t)ne); /* not written with want_k 0 */
  int same = !memcmp(out, out2, nout * sizeof(double));
  uint64_t h = fnv(out, nout * sizeof(double), 1469598103934665603ull);
  printf("{\"variant\": \"%s\", \"w\": %.6g, \"n\": %d, \"elements\": %d, \"bad\": %d, \"ns_mid_K\": %.1f, \"ns_static_K\": %.1f, \"ns_force\": %.1f, "
         "\"hash\": \"%016llx\"", isa->name, w, n, ne, bad, 1e9 * best[0] / ne, 1e9 * best[1] / ne, 1e9 * best[2] / ne,
         (unsigned long long)h);
  printf(", \"lanes\": %d, \"ns_mid_K_batch\": %.1f, \"ns_static_K_batch\": %.1f, \"ns_force_batch\": %.1f, "
         "\"batched_fraction\": %.3f, \"batch_bitwise\": %s", isa->lanes, 1e9 * bestb[0] / ne, 1e9 * bestb[1] / ne,
         1e9 * bestb[2] / ne, (double)nb / (3.0 * reps * ne), same ? "true" : "false");
  if (dump) {
    FILE *f = fopen(dump, "wb");
    if (!f || fwrite(out, sizeof(double), nout, f) != nout) { fprintf(stderr, "kernbench: cannot write %s\n", dump); return 1; }
    fclose(f);
  }
  if (ref) {
    FILE *f = fopen(ref, "rb");
    double *o = malloc(nout * sizeof(double));
    if (!f || fread(o, sizeof(double), nout, f) != nout) { fprintf(stderr, "kernbench: cannot read %s\n", ref); return 1; }
    fclose(f);
    /* per block (element vector or matrix): largest |diff| / largest |ref| */
    size_t blk[] = {20, 210, 1, 20, 210, 1, 20, 20, 210, 400, 1}, off = 0;
    double worst = 0;
    for (int b = 0; b < 11; ++b) {
      for (int e = 0; e < ne; ++e) {
        double dm = 0, rm = 0;
        for (size_t t = 0; t < blk[b]; ++t) {
          double dd = fabs(out[off + t] - o[off + t]);
          if (dd > dm) dm = dd;
          if (fabs(o[off + t]) > rm) rm = fabs(o[off + t]);
        }
        double rel = rm > 0 ? dm / rm : dm;
        if (rel > worst) worst = rel;
        off += blk[b];
      }
    }
    printf(", \"max_rel_diff_to_ref\": %.3g", worst);
    free(o);
  }
  printf("}\n");
  return 0;
}
