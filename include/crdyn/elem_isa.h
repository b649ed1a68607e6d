/* crdyn: the CPU backend's element bodies (elem_eval.h) compiled for more
 * than one x86-64 level, picked at run time (host only, not CRD_HD).
 *
 * src/host/elem_isa.c is compiled once with the build's flags ("generic")
 * and, on x86-64, again with -O3 -march=x86-64-v3 (AVX2) and -march=x86-64-v4
 * (AVX-512) (Makefile ELEM_ISAS; PORTABLE=1 builds the generic one only).
 * All use -ffp-contract=off, as the OpenCL program does (crd_hd.h): the
 * compiler may vectorize but not fuse or reorder, so every variant gives
 * the same bits as the generic one (t200 checks it; the same loops in the
 * same order, only in vector registers).  crd_elem_isa_select() returns the
 * widest variant the CPU runs, or the one named by CRDYN_ELEM_ISA
 * (generic, x86-64-v3, x86-64-v4) when set and runnable. */
#ifndef CRDYN_ELEM_ISA_H
#define CRDYN_ELEM_ISA_H

#include "crdyn/elem_eval.h"

typedef int crd_elem_static_fn(int e, const int *quads, const double *x, const double *p0n, const double *dn,
                               const double *pn, const int *ln, const crd_q4_mat *mt, int want_k, double *f,
                               double *k, double *u);
typedef int crd_elem_mid_fn(int e, const int *quads, const double *x, const double *p0n, const double *d0n,
                            const double *pan, const double *dbn, const double *pbn, const double *dfn,
                            const double *pfn, const double *amn, const double *wamn, const double *Bsn,
                            const int *ln, const double *Cn, const crd_q4_mat *mt, double cf, double cm,
                            int want_k, double *fgo, double *fino, double *ko, double *Eo, double *u);

typedef struct crd_elem_isa {
  const char *name;          /* "generic", "x86-64-v3", "x86-64-v4" */
  crd_elem_static_fn *stat;
  crd_elem_mid_fn *mid;
} crd_elem_isa;

/* The variant to use (never NULL). */
const crd_elem_isa *crd_elem_isa_select(void);
/* The variant called name, or NULL when not built or not runnable here. */
const crd_elem_isa *crd_elem_isa_find(const char *name);

#endif
