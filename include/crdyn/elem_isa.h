/* crdyn: the CPU backend's element bodies (elem_eval.h) compiled for more
 * than one x86-64 level, picked at run time (host only, not CRD_HD).
 *
 * src/host/backends/cpu/elem_isa.c is compiled once with the build's flags ("generic")
 * and, on x86-64, again with -O3 -march=x86-64-v3 (AVX2) and -march=x86-64-v4
 * (AVX-512) (Makefile ELEM_ISAS; PORTABLE=1 builds the generic one only).
 * All use -ffp-contract=off, as the OpenCL program does (crd_hd.h): the
 * compiler may vectorize but not fuse or reorder, so every variant gives
 * the same bits as the generic one (t200 checks it; the same loops in the
 * same order, only in vector registers).  crd_elem_isa_select() returns the
 * widest variant the CPU runs, or the one named by CRDYN_ELEM_ISA
 * (generic, x86-64-v3, x86-64-v4) when set and runnable.
 *
 * Each variant also has the range bodies (src/host/backends/cpu/elem_batch.cpp): the
 * same element functions compiled as C++ over crd_lanes (elem_lanes.h),
 * 2, 4 or 8 elements in the lanes of one vector (SSE2, AVX2, AVX-512),
 * with the bits of the per-element bodies (t205).  A group whose elements
 * differ in their pair choice l, or whose lanes take different branches,
 * is evaluated element by element instead.  CRDYN_ELEM_BATCH=0 makes the
 * range bodies run element by element throughout (for A/B runs). */
#ifndef CRDYN_ELEM_ISA_H
#define CRDYN_ELEM_ISA_H

#include <stdint.h>

#include "crdyn/elem_args.h"
#include "crdyn/elem_eval.h"

/* The entries take their arrays in an argument struct (elem_args.h).
 * Per element: element e with its section mt, the outputs at f, k, u
 * (fgo, fino, ko, Eo, u); the struct's range-only fields are not read.
 * Returns the CRD_ELEM_* code (static) / 1 (mid) when the element is bad. */
typedef int crd_elem_static_fn(int e, const crd_elem_static_args *a, const crd_q4_mat *mt, double *f, double *k,
                               double *u);
typedef int crd_elem_mid_fn(int e, const crd_elem_mid_args *a, const crd_q4_mat *mt, double *fgo, double *fino,
                            double *ko, double *Eo, double *u);

/* Elements [e0, e1) as the per-element bodies do them, with the section
 * of element e from a->mat (crd_q4_mat_at) and a->xi for all, the outputs
 * at their element's offset in the struct's arrays (a->geo: the initial
 * geometry when not NULL, the same numbers).  Returns 0, or the
 * CRD_ELEM_* code (static) / 1 (mid) of the first bad element, whose
 * index goes to *bad.  *nbatched += the elements evaluated in full
 * vectors. */
typedef int crd_elem_static_range_fn(int e0, int e1, const crd_elem_static_args *a, int *bad, long long *nbatched);
typedef int crd_elem_mid_range_fn(int e0, int e1, const crd_elem_mid_args *a, int *bad, long long *nbatched);

/* Nodes [n0, n1) of the explicit step: the accelerations a->a, a->wa
 * from the residual Fe - Fi, as crd_exn_accel (explicit_node.h) per node. */
typedef int crd_exn_accel_range_fn(int n0, int n1, const crd_exn_accel_args *a);

typedef struct crd_elem_isa {
  const char *name;          /* "generic", "x86-64-v3", "x86-64-v4" */
  crd_elem_static_fn *stat;
  crd_elem_mid_fn *mid;
  crd_elem_static_range_fn *stat_range;
  crd_elem_mid_range_fn *mid_range;
  crd_exn_accel_range_fn *exn_accel_range;
  int lanes;                 /* elements per vector in the range bodies */
} crd_elem_isa;

/* The initial geometry of each element that its evaluations share
 * (CRD_ELEM_GEO, elem_eval.h). */
void crd_elem_geo_build(int ne, const int *quads, const double *x, const double *p0n, double *geo);

/* The variant to use (never NULL). */
const crd_elem_isa *crd_elem_isa_select(void);
/* The variant called name, or NULL when not built or not runnable here. */
const crd_elem_isa *crd_elem_isa_find(const char *name);

#endif
