// crdyn bench: floating-point operation counts of the element kernels.
//
// Method: the element headers are pure functions on `double` arrays shared
// with the device backends (crd_hd.h: no globals, no C-only constructs), so
// they compile as C++.  Here `double` is redefined as a wrapper type whose
// arithmetic operators count: + - * / (and the compound forms) are one flop
// each, sqrt and the transcendental calls are counted apart; comparisons,
// fabs, fmin/fmax and negation are not counted.  A multiply-add counts 2
// whether or not the compiler fuses it (the usual convention, and the one
// DGEMM's 2 n^3 follows).  The counts are those of the paths taken for the
// state below: a plate element of the bench meshes (0.01 m, 10 mm steel)
// with a small bending deformation, the regime the bench runs in.
//
// Output: one JSON object on stdout, read by profiling/bench.py.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long n_add, n_mul, n_div, n_sqrt, n_trans;

struct fd {
  double v;
  fd() = default;
  fd(double x) : v(x) {}
  explicit operator int() const { return (int)v; }
  explicit operator double() const { return v; }
  fd &operator+=(fd o) { v += o.v; ++n_add; return *this; }
  fd &operator-=(fd o) { v -= o.v; ++n_add; return *this; }
  fd &operator*=(fd o) { v *= o.v; ++n_mul; return *this; }
  fd &operator/=(fd o) { v /= o.v; ++n_div; return *this; }
};
/* the counting type's whole interface: not every kernel uses every function */
#define FD_FN static inline __attribute__((unused))
FD_FN fd operator+(fd a, fd b) { ++n_add; return fd(a.v + b.v); }
FD_FN fd operator-(fd a, fd b) { ++n_add; return fd(a.v - b.v); }
FD_FN fd operator*(fd a, fd b) { ++n_mul; return fd(a.v * b.v); }
FD_FN fd operator/(fd a, fd b) { ++n_div; return fd(a.v / b.v); }
FD_FN fd operator-(fd a) { return fd(-a.v); }
FD_FN fd operator+(fd a) { return a; }
FD_FN bool operator<(fd a, fd b) { return a.v < b.v; }
FD_FN bool operator>(fd a, fd b) { return a.v > b.v; }
FD_FN bool operator<=(fd a, fd b) { return a.v <= b.v; }
FD_FN bool operator>=(fd a, fd b) { return a.v >= b.v; }
FD_FN bool operator==(fd a, fd b) { return a.v == b.v; }
FD_FN bool operator!=(fd a, fd b) { return a.v != b.v; }
FD_FN fd sqrt(fd a) { ++n_sqrt; return fd(::sqrt(a.v)); }
FD_FN fd fabs(fd a) { return fd(::fabs(a.v)); }
FD_FN fd fmax(fd a, fd b) { return fd(::fmax(a.v, b.v)); }
FD_FN fd fmin(fd a, fd b) { return fd(::fmin(a.v, b.v)); }
FD_FN fd asin(fd a) { ++n_trans; return fd(::asin(a.v)); }
FD_FN fd acos(fd a) { ++n_trans; return fd(::acos(a.v)); }
FD_FN fd atan2(fd a, fd b) { ++n_trans; return fd(::atan2(a.v, b.v)); }
FD_FN fd sin(fd a) { ++n_trans; return fd(::sin(a.v)); }
FD_FN fd cos(fd a) { ++n_trans; return fd(::cos(a.v)); }
FD_FN bool isfinite(fd a) { return ::isfinite(a.v); }

#define double fd
#include "crdyn/shell_dyn.h"
#undef double

static void reset(void) { n_add = n_mul = n_div = n_sqrt = n_trans = 0; }
static long long flops(void) { return n_add + n_mul + n_div + n_sqrt; }

static void print(const char *key, const char *sep)
{
  printf("  \"%s\": {\"flops\": %lld, \"add\": %lld, \"mul\": %lld, \"div\": %lld, \"sqrt\": %lld, "
         "\"transcendental\": %lld}%s\n", key, flops(), n_add, n_mul, n_div, n_sqrt, n_trans, sep);
}

int main(int argc, char **argv)
{
  double w = argc > 1 ? atof(argv[1]) : 0.5; /* weight of the end state (1 - alpha_f) */
  const double h = 0.01, E = 2.1e11, nu = 0.3;
  crd_q4_mat mt;
  mt.E = E; mt.nu = nu; mt.h = h; mt.xi = 0.0; mt.am = 1.0;
  fd X0[12], p0[12], da[12], pa[12], db[12], pb[12], df[12], pf[12], B[24], fG[20], KG[400], Em[400], md;
  int l[4];
  const double xs[4] = {0, 1, 1, 0}, ys[4] = {0, 0, 1, 1};
  for (int i = 0; i < 4; ++i) {
    double x = 0.4 + 0.01 * xs[i], y = 0.3 + 0.01 * ys[i];
    X0[3 * i] = x; X0[3 * i + 1] = y; X0[3 * i + 2] = 0.0;
    p0[3 * i] = 0.0; p0[3 * i + 1] = 0.0; p0[3 * i + 2] = 1.0;
    /* bending w = c x^2 (+ a little twist), normals from the slope */
    for (int s = 0; s < 2; ++s) {
      double c = s ? 0.021 : 0.02, sx = 2 * c * x + 0.001 * y, sy = 0.001 * x;
      fd *d = s ? db : da, *p = s ? pb : pa;
      d[3 * i] = -c * c * x * x * x * 0.66; d[3 * i + 1] = 1e-6 * y; d[3 * i + 2] = c * x * x + 0.001 * x * y;
      double n = ::sqrt(1 + sx * sx + sy * sy);
      p[3 * i] = -sx / n; p[3 * i + 1] = -sy / n; p[3 * i + 2] = 1 / n;
    }
    l[i] = crd_dir_choose(pb + 3 * i);
    for (int c = 0; c < 3; ++c) {
      df[3 * i + c] = (1 - w) * da[3 * i + c] + w * db[3 * i + c];
      pf[3 * i + c] = (1 - w) * pa[3 * i + c] + w * pb[3 * i + c];
    }
    /* the bases P_i of implicit.c build_state */
    fd A1[6], f2 = crd_dot3(pf + 3 * i, pf + 3 * i);
    crd_dir_A1(pb + 3 * i, l[i], A1);
    for (int s = 0; s < 2; ++s) {
      fd c = (pf[3 * i] * A1[s] + pf[3 * i + 1] * A1[2 + s] + pf[3 * i + 2] * A1[4 + s]) / f2;
      for (int r = 0; r < 3; ++r) B[6 * i + 2 * r + s] = A1[2 * r + s] - c * pf[3 * i + r];
    }
  }
  printf("{\n  \"method\": \"C++ counting type over the element headers (+,-,*,/,sqrt = 1 flop)\",\n");
  printf("  \"w\": %.6g,\n", w);
  reset();
  crd_q4_global(X0, p0, db, pb, l, &mt, fG, KG, &md);
  print("tangent", ",");      /* static / Newton tangent + force (problem.c, want_K) */
  reset();
  crd_q4_global(X0, p0, db, pb, l, &mt, fG, NULL, &md);
  print("force", ",");        /* internal force only (explicit step) */
  reset();
  crd_q4_global_mid(X0, p0, da, pa, db, pb, df, pf, l, B, w, &mt, fG, KG, Em, &md);
  print("implicit", ",");     /* implicit midpoint force, tangent and its skew part */
  /* the rest of the implicit element loop (implicit.c assemble): inertia
   * force and mass of 4x4 node pairs, K_eff = c_m M + c_f K packed (210 x 3) */
  long long inertia = 16 * (3 * 2 + 2 * 8 + 4 * 7) + 210 * 3;
  printf("  \"implicit_inertia_and_packing\": {\"flops\": %lld}\n}\n", inertia);
  return 0;
}
