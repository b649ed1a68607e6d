/* crdyn: the CUDA launchers of the device-resident explicit loop
 * (include/crdyn/cuda_explicit.h; backend.h, "the device-resident explicit
 * loop").  The kernels are explicit_loop.h, the same text as in the OpenCL
 * program: here the launchers unpack crd_cux_args into their flat
 * arguments.  Per step j of a call, in one stream: node1 -> pres -> the
 * element force kernel of crd_cuda.cu (crd_cu_static, want_k 0) -> the
 * force gather of crd_cuda.cu (crd_cu_gather, the CPU's element order) ->
 * node2 -> reduce.  nvcc compiles with -fmad=false (no contraction), so the
 * node values are the host's bits. */
#include <cuda_runtime.h>
#include <limits.h>

#include "crdyn/cuda_explicit.h"
#include "crdyn/explicit_node.h"
#include "explicit_loop.h"

static unsigned grid_of(long long n, int threads)
{
  long long g = (n + threads - 1) / threads;
  return (unsigned)(g > 0 ? g : 1);
}

extern "C" {

int crd_cux_node1(cudaStream_t st, const crd_cux_args *a, int j)
{
  if (a->nn > 0)
    crd_kx_node1<<<grid_of(a->nn, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(
        a->nn, j, a->dt, a->eq, a->locked, a->d, a->p, a->l, a->v, a->w, a->a, a->wa, a->vh, a->wh, a->dprev,
        a->status);
  return (int)cudaGetLastError();
}

int crd_cux_pres(cudaStream_t st, const crd_cux_args *a, int j)
{
  if (a->npres > 0)
    crd_kx_pres<<<grid_of(a->npres, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(
        a->npres, j, a->pres_idx, a->pres, a->d, a->status);
  return (int)cudaGetLastError();
}

int crd_cux_node2(cudaStream_t st, const crd_cux_args *a, int j)
{
  /* at least one block, even without nodes: thread 0 flags element failures */
  crd_kx_node2<<<grid_of(a->nn, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(
      a->nn, a->ne, j, a->dt, a->s, a->nload, a->eq, a->F, a->lptr, a->lidx, a->l_load, a->l_a, a->l_b, a->fac,
      a->mlump, a->plump, a->x, a->d, a->p, a->l, a->v, a->w, a->a, a->wa, a->vh, a->wh, a->contrib, a->first_bad,
      a->status);
  return (int)cudaGetLastError();
}

int crd_cux_reduce(cudaStream_t st, const crd_cux_args *a, int j, int last, int serial)
{
  if (!last && a->nw == 0) return (int)cudaGetLastError(); /* no work entries: nothing to add this step */
  if (serial)
    crd_kx_reduce<<<1, 1, 0, st>>>(a->nn, a->ne, a->nw, j, last, a->nload, a->w_idx, a->w_load, a->w_a, a->w_b,
                                   a->facw, a->d, a->dprev, a->contrib, a->ue, a->acc, a->status);
  else {
    crd_kx_reduce_part<<<CRD_CUX_RED_BLOCKS, CRD_CUX_RED_THREADS, 0, st>>>(
        a->nn, a->ne, a->nw, j, last, a->nload, a->w_idx, a->w_load, a->w_a, a->w_b, a->facw, a->d, a->dprev,
        a->contrib, a->ue, a->part, a->part_bad, a->status);
    crd_kx_reduce_final<<<1, CRD_CUX_RED_BLOCKS, 0, st>>>(j, last, a->part, a->part_bad, a->acc, a->status);
  }
  return (int)cudaGetLastError();
}

int crd_cux_parts(void) { return 10 * CRD_CUX_RED_BLOCKS; }

} /* extern "C" */
