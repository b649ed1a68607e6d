/* crdyn: one variant of the CPU element bodies (include/crdyn/elem_isa.h).
 * Built with CRD_ELEM_ISA_SUFFIX (v3, v4) and the matching -march by the
 * Makefile; without it this is the generic variant and the selector. */
#include <stdlib.h>
#include <string.h>

#include "crdyn/elem_isa.h"
#include "crdyn/switches.h"

#define CRD_CAT2(a, b) a##b
#define CRD_CAT(a, b) CRD_CAT2(a, b)
#ifdef CRD_ELEM_ISA_SUFFIX
#  define CRD_ISA_FN(n) CRD_CAT(CRD_CAT(n, _), CRD_ELEM_ISA_SUFFIX)
#else
#  define CRD_ISA_FN(n) CRD_CAT(n, _generic)
#endif

crd_elem_static_fn CRD_ISA_FN(crd_elem_static);
int CRD_ISA_FN(crd_elem_static)(int e, const crd_elem_static_args *a, const crd_q4_mat *mt, double *f, double *k,
                                double *u)
{
  return crd_elem_static(e, a->quads, a->x, a->p0n, a->dn, a->pn, a->ln, mt, a->want_k, f, k, u);
}

crd_elem_mid_fn CRD_ISA_FN(crd_elem_mid);
int CRD_ISA_FN(crd_elem_mid)(int e, const crd_elem_mid_args *a, const crd_q4_mat *mt, double *fgo, double *fino,
                             double *ko, double *Eo, double *u)
{
  return crd_elem_mid(e, a->quads, a->x, a->p0n, a->d0n, a->pan, a->dbn, a->pbn, a->dfn, a->pfn, a->amn, a->wamn,
                      a->Bsn, a->ln, a->Cn, mt, a->cf, a->cm, a->want_k, fgo, fino, ko, Eo, u);
}

#ifndef CRD_ELEM_ISA_SUFFIX
/* the variants the Makefile built (CRD_ELEM_HAVE_v3 / _V4 on this file) */
/* the range bodies (elem_batch.cpp) and their lanes */
crd_elem_static_range_fn crd_elem_static_range_generic;
crd_elem_mid_range_fn crd_elem_mid_range_generic;
crd_exn_accel_range_fn crd_exn_accel_range_generic;
extern const int crd_elem_lanes_generic;
#ifdef CRD_ELEM_HAVE_v3
crd_elem_static_fn crd_elem_static_v3;
crd_elem_mid_fn crd_elem_mid_v3;
crd_elem_static_range_fn crd_elem_static_range_v3;
crd_elem_mid_range_fn crd_elem_mid_range_v3;
crd_exn_accel_range_fn crd_exn_accel_range_v3;
extern const int crd_elem_lanes_v3;
#endif
#ifdef CRD_ELEM_HAVE_v4
crd_elem_static_fn crd_elem_static_v4;
crd_elem_mid_fn crd_elem_mid_v4;
crd_elem_static_range_fn crd_elem_static_range_v4;
crd_elem_mid_range_fn crd_elem_mid_range_v4;
crd_exn_accel_range_fn crd_exn_accel_range_v4;
extern const int crd_elem_lanes_v4;
#endif

/* not const: the lane counts are link-time constants of other files */
static crd_elem_isa isa_generic = {"generic", crd_elem_static_generic, crd_elem_mid_generic,
                                   crd_elem_static_range_generic, crd_elem_mid_range_generic,
                                   crd_exn_accel_range_generic, 0};
#ifdef CRD_ELEM_HAVE_v3
static crd_elem_isa isa_v3 = {"x86-64-v3", crd_elem_static_v3, crd_elem_mid_v3, crd_elem_static_range_v3,
                              crd_elem_mid_range_v3, crd_exn_accel_range_v3, 0};
#endif
#ifdef CRD_ELEM_HAVE_v4
static crd_elem_isa isa_v4 = {"x86-64-v4", crd_elem_static_v4, crd_elem_mid_v4, crd_elem_static_range_v4,
                              crd_elem_mid_range_v4, crd_exn_accel_range_v4, 0};
#endif
static void set_lanes(void)
{
  isa_generic.lanes = crd_elem_lanes_generic;
#ifdef CRD_ELEM_HAVE_v3
  isa_v3.lanes = crd_elem_lanes_v3;
#endif
#ifdef CRD_ELEM_HAVE_v4
  isa_v4.lanes = crd_elem_lanes_v4;
#endif
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* what -march=x86-64-v3 / -v4 let the compiler use (gcc's level definitions) */
static inline int cpu_v3(void)
{
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx");
}
static inline int cpu_v4(void)
{
  return cpu_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512cd");
}
#else
static inline int cpu_v3(void) { return 0; }
static inline int cpu_v4(void) { return 0; }
#endif

void crd_elem_geo_build(int ne, const int *quads, const double *x, const double *p0n, double *geo)
{
  for (int e = 0; e < ne; ++e) {
    double X0[12], p0[12], r0xy[8], *g = geo + CRD_ELEM_GEO * (size_t)e;
    const int *qd = quads + 4 * e;
    crd_elem_gather3(qd, x, X0);
    crd_elem_gather3(qd, p0n, p0);
    crd_q4_local_vars_init(X0, p0, g, g + 12, r0xy);
    crd_q4_rot_ph0(r0xy, g + 24);
  }
}

const crd_elem_isa *crd_elem_isa_find(const char *name)
{
  if (!name) return NULL;
  set_lanes();
  if (!strcmp(name, "generic")) return &isa_generic;
#ifdef CRD_ELEM_HAVE_v3
  if (!strcmp(name, isa_v3.name) && cpu_v3()) return &isa_v3;
#endif
#ifdef CRD_ELEM_HAVE_v4
  if (!strcmp(name, isa_v4.name) && cpu_v4()) return &isa_v4;
#endif
  return NULL;
}

const crd_elem_isa *crd_elem_isa_select(void)
{
  const crd_elem_isa *o = crd_elem_isa_find(crd_switch("CRDYN_ELEM_ISA"));
  if (o) return o;
  set_lanes();
#ifdef CRD_ELEM_HAVE_v4
  if (cpu_v4()) return &isa_v4;
#endif
#ifdef CRD_ELEM_HAVE_v3
  if (cpu_v3()) return &isa_v3;
#endif
  return &isa_generic;
}
#endif
