/* crdyn: CRD_LANES elements in the lanes of one vector (C++ only; the CPU
 * backend's batched element bodies, src/host/backends/cpu/elem_batch.cpp).
 *
 * crd_lanes stands in for `double` when the element headers (CRD_HD, pure
 * functions on double arrays) are compiled as C++ with `#define double
 * crd_lanes`, as profiling/src/flopcount.cpp does with a counting type.
 * Every operation is the IEEE operation of double applied lane by lane
 * (+ - * / sqrt are correctly rounded in vector form too; no contraction:
 * the file is built with -ffp-contract=off), so each lane gets the bits the
 * scalar code gives its element, as long as every lane takes the same
 * branches.  A branch on a value (a comparison, isfinite, a conversion to
 * int) returns lane 0's answer and, when the lanes disagree, raises
 * crd_lanes_diverged: the batch is then thrown away and its elements are
 * evaluated one by one by the scalar code (elem_batch.cpp).  Control flow
 * is then lane 0's, so the other lanes may hold garbage, never an out-of-
 * range index (indices are lane 0's). */
#ifndef CRDYN_ELEM_LANES_H
#define CRDYN_ELEM_LANES_H

#if defined(__x86_64__) || defined(__i386__)
#  include <immintrin.h>
#endif
#include <math.h>
#include <stdint.h>

#ifndef __cplusplus
#  error "elem_lanes.h is C++ (src/host/backends/cpu/elem_batch.cpp)"
#endif

/* lanes per vector: the widest the -march of this variant has */
#if defined(__AVX512F__)
#  define CRD_LANES 8
#elif defined(__AVX__)
#  define CRD_LANES 4
#else
#  define CRD_LANES 2
#endif

/* Everything here has internal linkage (static, or in the unnamed
 * namespace): each variant's object (elem_batch_<v>.o) has its own
 * crd_lanes of its own width, and an inline member function with external
 * linkage would be merged by the linker across the variants (one width
 * for all: an ODR violation that shows as soon as one is not inlined). */
namespace {

typedef double crd_lanes_raw __attribute__((vector_size(8 * CRD_LANES)));
typedef int64_t crd_lanes_mask __attribute__((vector_size(8 * CRD_LANES)));

/* set when the lanes of a branch disagreed (per thread) */
static __thread int crd_lanes_diverged;

struct crd_lanes {
  crd_lanes_raw v;
  crd_lanes() = default;
  crd_lanes(double x) : v(crd_lanes_raw{} + x) {}
  explicit crd_lanes(crd_lanes_raw x) : v(x) {}
  explicit operator int() const
  {
    int a = (int)v[0];
    for (int i = 1; i < CRD_LANES; ++i)
      if ((int)v[i] != a) crd_lanes_diverged = 1;
    return a;
  }
  crd_lanes &operator+=(crd_lanes o) { v += o.v; return *this; }
  crd_lanes &operator-=(crd_lanes o) { v -= o.v; return *this; }
  crd_lanes &operator*=(crd_lanes o) { v *= o.v; return *this; }
  crd_lanes &operator/=(crd_lanes o) { v /= o.v; return *this; }
};

static inline crd_lanes operator+(crd_lanes a, crd_lanes b) { return crd_lanes(a.v + b.v); }
static inline crd_lanes operator-(crd_lanes a, crd_lanes b) { return crd_lanes(a.v - b.v); }
static inline crd_lanes operator*(crd_lanes a, crd_lanes b) { return crd_lanes(a.v * b.v); }
static inline crd_lanes operator/(crd_lanes a, crd_lanes b) { return crd_lanes(a.v / b.v); }
static inline crd_lanes operator-(crd_lanes a) { return crd_lanes(-a.v); }
static inline crd_lanes operator+(crd_lanes a) { return a; }

/* lane 0's truth; the others must agree */
static inline bool crd_lanes_agree(crd_lanes_mask m)
{
  bool a = m[0] != 0;
  for (int i = 1; i < CRD_LANES; ++i)
    if ((m[i] != 0) != a) crd_lanes_diverged = 1;
  return a;
}
static inline bool operator<(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v < b.v); }
static inline bool operator>(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v > b.v); }
static inline bool operator<=(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v <= b.v); }
static inline bool operator>=(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v >= b.v); }
static inline bool operator==(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v == b.v); }
static inline bool operator!=(crd_lanes a, crd_lanes b) { return crd_lanes_agree(a.v != b.v); }

/* lane by lane; the compiler turns the loops into vsqrtpd, vandpd, ... */
#define CRD_LANES_MAP1(name, fn)                                                                        \
  static inline crd_lanes name(crd_lanes a)                                                             \
  {                                                                                                     \
    crd_lanes r;                                                                                        \
    for (int i = 0; i < CRD_LANES; ++i) r.v[i] = fn(a.v[i]);                                           \
    return r;                                                                                           \
  }
CRD_LANES_MAP1(fabs, __builtin_fabs)
CRD_LANES_MAP1(floor, __builtin_floor)
CRD_LANES_MAP1(asin, ::asin) /* libm per lane: the scalar code's bits */
CRD_LANES_MAP1(sin, ::sin)
CRD_LANES_MAP1(cos, ::cos)
#undef CRD_LANES_MAP1
/* sqrt in one instruction: the loop above compiles to a scalar sqrtsd per
 * lane, each with a test for a negative argument (errno).  vsqrtpd rounds
 * correctly as sqrtsd does: the same bits. */
static inline crd_lanes sqrt(crd_lanes a)
{
#if CRD_LANES == 8 && defined(__AVX512F__)
  /* the masked form with a defined pass-through: _mm512_sqrt_pd's own
   * undefined one trips GCC 12's -Wuninitialized once inlined */
  __m512d x = (__m512d)a.v;
  return crd_lanes((crd_lanes_raw)_mm512_mask_sqrt_pd(x, (__mmask8)0xff, x));
#elif CRD_LANES == 4 && defined(__AVX__)
  return crd_lanes((crd_lanes_raw)_mm256_sqrt_pd((__m256d)a.v));
#elif defined(__SSE2__)
  return crd_lanes((crd_lanes_raw)_mm_sqrt_pd((__m128d)a.v));
#else
  crd_lanes r;
  for (int i = 0; i < CRD_LANES; ++i) r.v[i] = __builtin_sqrt(a.v[i]);
  return r;
#endif
}
/* fmin/fmax as glibc's x86-64 ones (s_fmin.S: minsd/maxsd, the other
 * argument when one is NaN), without a libm call per lane: a < b ? a : b
 * is what minsd returns for numbers (the second when equal), then NaN */
static inline crd_lanes crd_lanes_blend(crd_lanes_mask m, crd_lanes a, crd_lanes b)
{
  return crd_lanes((crd_lanes_raw)(((crd_lanes_mask)a.v & m) | ((crd_lanes_mask)b.v & ~m)));
}
static inline crd_lanes fmin(crd_lanes a, crd_lanes b)
{
  crd_lanes r = crd_lanes_blend(a.v < b.v, a, b);
  return crd_lanes_blend(b.v != b.v, a, r);
}
static inline crd_lanes fmax(crd_lanes a, crd_lanes b)
{
  crd_lanes r = crd_lanes_blend(a.v > b.v, a, b);
  return crd_lanes_blend(b.v != b.v, a, r);
}
static inline bool isfinite(crd_lanes a)
{
  bool f = __builtin_isfinite(a.v[0]);
  for (int i = 1; i < CRD_LANES; ++i)
    if ((bool)__builtin_isfinite(a.v[i]) != f) crd_lanes_diverged = 1;
  return f;
}

/* crd_hd.h's value-by-value choice: any lane past t; a blend per lane */
static inline bool crd_lanes_any_ge(crd_lanes x, crd_lanes t)
{
  crd_lanes_mask m = x.v >= t.v;
  for (int i = 0; i < CRD_LANES; ++i)
    if (m[i]) return true;
  return false;
}
static inline bool crd_lanes_any_gt(crd_lanes x, crd_lanes t)
{
  crd_lanes_mask m = x.v > t.v;
  for (int i = 0; i < CRD_LANES; ++i)
    if (m[i]) return true;
  return false;
}
static inline crd_lanes crd_lanes_sel_lt(crd_lanes x, crd_lanes t, crd_lanes a, crd_lanes b)
{
  return crd_lanes_blend(x.v < t.v, a, b);
}
} /* namespace */

#define CRD_ANY_GE(x, t) crd_lanes_any_ge((x), (t))
#define CRD_ANY_GT(x, t) crd_lanes_any_gt((x), (t))
#define CRD_SEL_LT(x, t, a, b) crd_lanes_sel_lt((x), (t), (a), (b))

#endif
