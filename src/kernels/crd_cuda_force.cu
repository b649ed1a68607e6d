/* crdyn: the lean explicit force kernel (issue 32; include/crdyn/elem_force.h),
 * launched through include/crdyn/cuda_force.h.
 *
 * CRD_CU_FORCE_BLOCK threads per block, CRD_EF_LANES (4) per element, so
 * 16 elements per block; each element's crd_ef_ws (2,712 bytes) in shared
 * memory, 43 KB per block (static; the 48 KB limit).  Seven phases with a block barrier between them
 * (__syncthreads, met by every thread: a thread past the last element
 * still reaches each barrier).  The lanes of an element sit in one warp.
 * A file of its own so that tests/cli/ptxas.sh can compile this kernel
 * alone at full optimization (a few seconds, against ~40 s for crd_cuda.cu)
 * and read its resource usage. */
#include <cuda_runtime.h>

#include "crdyn/cuda_force.h"
#include "crdyn/elem_force.h"

#define CRD_CU_FORCE_BLOCK 64
#define CRD_CU_FORCE_ELEMS (CRD_CU_FORCE_BLOCK / CRD_EF_LANES)
/* 12 blocks of 64 threads per SM: ptxas gets at most 80 registers a thread
 * (65,536 / 768 = 85, allocated in steps of 8), the target of issue 32;
 * it fits them without a stack (tests/cli/ptxas.sh checks both) */
#ifndef CRD_CU_FORCE_MINBLOCKS /* overridden only by tests/cli/ptxas.sh's broken counterpart */
#  define CRD_CU_FORCE_MINBLOCKS 12
#endif

__global__ void __launch_bounds__(CRD_CU_FORCE_BLOCK, CRD_CU_FORCE_MINBLOCKS)
    crd_cu_k_force_lean(int ne, const int *quads, const double *x, const double *dn, const double *pn,
                        const int *ln, const double *mat, const double *geo, double *fe, double *ue, int *kind,
                        int *first_bad)
{
  __shared__ crd_ef_ws ws[CRD_CU_FORCE_ELEMS];
  const int lane = (int)threadIdx.x % CRD_EF_LANES, el = (int)threadIdx.x / CRD_EF_LANES;
  const int e = (int)blockIdx.x * CRD_CU_FORCE_ELEMS + el, live = e < ne;
  crd_ef_ws *w = ws + el;
  const double *g = geo + CRD_EF_GEO * (size_t)(live ? e : 0);
  if (live) crd_ef_load(lane, e, quads, x, dn, pn, ln, mat, w);
  __syncthreads();
  if (live) crd_ef_frame(lane, g, w);
  __syncthreads();
  if (live) crd_ef_dframe(lane, w);
  __syncthreads();
  if (live) crd_ef_gauss(lane, g, w);
  __syncthreads();
  if (live) crd_ef_fnode(lane, g, w);
  __syncthreads();
  if (live) {
    crd_ef_lam(lane, w);
    crd_ef_corner(lane, g, w);
  }
  __syncthreads();
  if (live && lane == 0) {
    double u;
    int k = crd_ef_kind(g, w, &u);
    ue[e] = u;
    kind[e] = k;
    if (k) atomicMin(first_bad, e);
  }
  if (live) crd_ef_global(lane, w, fe + 20 * (size_t)e + 5 * lane);
}

extern "C" {

int crd_cu_force_lean(cudaStream_t st, const crd_cu_force_args *a)
{
  if (a->ne > 0)
    crd_cu_k_force_lean<<<(unsigned)((a->ne + CRD_CU_FORCE_ELEMS - 1) / CRD_CU_FORCE_ELEMS), CRD_CU_FORCE_BLOCK, 0, st>>>(
        a->ne, a->quads, a->x, a->d, a->p, a->l, a->mat, a->geo, a->fe, a->ue, a->kind, a->first_bad);
  return (int)cudaGetLastError();
}

int crd_cu_force_block(void) { return CRD_CU_FORCE_BLOCK; }

} /* extern "C" */
