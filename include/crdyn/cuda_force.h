/* crdyn: the launcher of the lean explicit force kernel
 * (src/kernels/crd_cuda_force.cu; the element code of
 * include/crdyn/elem_force.h).  Device pointers, asynchronous on the
 * stream, returns a cudaError_t (0: launched).  Only in builds with
 * CRD_HAVE_CUDA, and in the host emulation (tests/cuda_emu). */
#ifndef CRDYN_CUDA_FORCE_H
#define CRDYN_CUDA_FORCE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crd_cu_force_args {
  int ne;
  const int *quads, *l;             /* 4 nodes per element; the pair choice per node */
  const double *x, *d, *p, *mat;    /* initial positions, translations, normals (3 per node); sections */
  const double *geo;                /* CRD_EF_GEO per element, element by element (crd_ef_geo_build) */
  double *fe, *ue;                  /* outputs: f_G (20 per element), strain energy */
  int *kind, *first_bad;            /* CRD_ELEM_* per element; atomicMin of the bad ones (set to ne before) */
} crd_cu_force_args;

/* The elements' internal forces, energies and codes, CRD_EF_LANES threads per element. */
int crd_cu_force_lean(cudaStream_t st, const crd_cu_force_args *a);
/* The threads per block and elements per block of that launch. */
int crd_cu_force_block(void);

#ifdef __cplusplus
}
#endif

#endif
