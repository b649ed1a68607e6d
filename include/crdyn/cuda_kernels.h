/* crdyn: the launchers of the CUDA kernels (src/kernels/crd_cuda.cu) for
 * the C host code (backend_cuda.c, solver_cusolver.c).  Every pointer is a
 * device pointer; the launchers are asynchronous on the stream and return
 * a cudaError_t (0: launched).  Only in builds with CRD_HAVE_CUDA. */
#ifndef CRDYN_CUDA_KERNELS_H
#define CRDYN_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CRD_CU_LAYOUT_SPLIT 0
#define CRD_CU_LAYOUT_THREAD 1
#define CRD_CU_LAYOUT_THREAD0 2

typedef struct crd_cu_static_args {
  int ne, want_k;
  const int *quads, *l;
  const double *x, *p0, *d, *p, *mat;
  double *fe, *ke, *ue;
  int *kind, *first_bad;        /* first_bad: set to ne before, atomicMin of bad elements */
  int per_thread;               /* layout: 0 one block per element, its threads split the element
                                 * (elem_split.h); 1 one thread per element; 2 one block per
                                 * element, thread 0 computing it (CRD_CU_LAYOUT_*) */
} crd_cu_static_args;

typedef struct crd_cu_mid_args {
  int ne, want_k;
  const int *quads, *l;
  const double *x, *p0, *d0, *pa, *d, *p, *df, *pf, *am, *wam, *Bs, *C, *mat;
  double cf, cm, xi;
  double *fg, *fin, *ke, *E, *ue;
  int *kind, *first_bad;
  int per_thread;               /* layout, as above */
} crd_cu_mid_args;

/* One block per element: f_e, k_e (packed), u_e (elem_eval.h crd_elem_static). */
int crd_cu_static(cudaStream_t st, const crd_cu_static_args *a);
/* One block per element: the implicit midpoint (crd_elem_mid). */
int crd_cu_mid(cudaStream_t st, const crd_cu_mid_args *a);
/* Deterministic assembly: dst[i] = sum_j src[idx[j]], j in ptr[i]..ptr[i+1]-1. */
int crd_cu_gather(cudaStream_t st, int n, const int *ptr, const int *idx, const double *src, double *dst);
/* Atomic assembly: dst (ndst) zeroed, then dst[map[s]] += src[s]. */
int crd_cu_scatter(cudaStream_t st, long long nsrc, const int *map, const double *src, double *dst, long long ndst);
/* *out = sum a (sq: sum a^2, plus sum a2^2 when a2); part holds crd_cu_sum_parts() doubles. */
int crd_cu_sum(cudaStream_t st, long long n, const double *a, const double *a2, int sq, double *part, double *out);
int crd_cu_sum_parts(void);
/* Device solver: values of the permuted full matrix from the upper CSR values. */
int crd_cu_permute(cudaStream_t st, long long nnz, const int *pos1, const int *pos2, const double *src, double *dst);
/* y[i] = x[perm[i]] (inv 0) or y[perm[i]] = x[i] (inv 1). */
int crd_cu_perm_vec(cudaStream_t st, int n, const int *perm, int inv, const double *x, double *y);

#ifdef __cplusplus
}
#endif

#endif
