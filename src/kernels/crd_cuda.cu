/* crdyn: CUDA kernels of the element loop, the assembly and the device
 * solver's value permutation (docs/cuda.md), launched from C through the
 * extern "C" functions of include/crdyn/cuda_kernels.h.
 *
 * The element work is the CRD_HD code of include/crdyn/elem_eval.h and
 * elem_split.h, the same the CPU backend runs (compiled here as __host__
 * __device__).  Three layouts (CRDYN_CUDA_LAYOUT, docs/cuda.md):
 *  - split (default; crd_k_static_split, crd_k_mid_split of elements.h):
 *    one block of CRD_CU_SPLIT_BLOCK threads per element, the threads
 *    sharing the element (docs/architecture.md §4) through a crd_elem_ws
 *    workspace in shared memory (18.7 KB static); thread 0 does the serial
 *    phases (frames, T, the pull-back, the rest of K_G, inertia) and writes
 *    the outputs;
 *  - thread0 (crd_cu_k_static, crd_cu_k_mid, here): one block of
 *    CRD_CU_BLOCK threads per element, thread 0 computing the whole element
 *    into shared memory and the block writing it out together (coalesced):
 *    the layout before the split, kept for the GPU parity run;
 *  - thread (crd_k_static, crd_k_mid of elements.h): one thread per
 *    element, for comparison.
 * All three give the same bits (the split keeps the serial order).
 *
 * Assembly: atomic (atomicAdd of doubles into F and the CSR values, fast,
 * order not repeatable) or deterministic (crd_k_gather of elements.h: a
 * gather per assembled entry over the inverse of the scatter map, in
 * ascending element order: the CPU's order, bitwise repeatable).  Sums (energy, |f_e|^2) are two-stage block
 * reductions in a fixed order, repeatable in both modes. */
#include <cuda_runtime.h>
#include <limits.h>

#include "crdyn/elem_split.h"
#include "crdyn/cuda_kernels.h"
/* the element kernels of the split and thread layouts and the gather: one
 * text with the OpenCL program */
#include "elements.h"

#define CRD_CU_BLOCK 32
#define CRD_CU_SPLIT_BLOCK 64
#define CRD_CU_RED_BLOCKS 256
#define CRD_CU_RED_THREADS 256

static unsigned grid1(long long n, int threads)
{
  long long g = (n + threads - 1) / threads;
  return (unsigned)(g > 0 ? g : 1);
}

__global__ void crd_cu_k_static(int ne, int want_k, const int *quads, const double *x, const double *p0n,
                                const double *dn, const double *pn, const int *ln, const double *mat, double *fe,
                                double *ke, double *ue, int *kind, int *first_bad)
{
  __shared__ double sf[20], sk[210];
  __shared__ int skind;
  const int e = (int)blockIdx.x;
  if (e >= ne) return;
  if (threadIdx.x == 0) {
    crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
    double u;
    skind = crd_elem_static(e, quads, x, p0n, dn, pn, ln, &mt, want_k, sf, sk, &u);
    ue[e] = u;
    kind[e] = skind;
    if (skind) atomicMin(first_bad, e);
  }
  __syncthreads();
  CRD_FOREACH_THREAD(t, 20) fe[20 * (size_t)e + t] = sf[t];
  if (want_k) CRD_FOREACH_THREAD(t, 210) ke[210 * (size_t)e + t] = sk[t];
}

__global__ void crd_cu_k_mid(int ne, int want_k, const int *quads, const double *x, const double *p0n,
                             const double *d0n, const double *pan, const double *dbn, const double *pbn,
                             const double *dfn, const double *pfn, const double *amn, const double *wamn,
                             const double *Bsn, const int *ln, const double *Cn, const double *mat, double cf,
                             double cm, double xi, double *fg, double *fin, double *ke, double *E, double *ue, int *kind,
                             int *first_bad)
{
  __shared__ double sfg[20], sfin[20], sk[210], sE[400];
  const int e = (int)blockIdx.x;
  if (e >= ne) return;
  if (threadIdx.x == 0) {
    crd_q4_mat mt = crd_q4_mat_at(mat, e, xi);
    double u;
    int b = crd_elem_mid(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                         want_k, sfg, sfin, sk, sE, &u);
    ue[e] = u;
    kind[e] = b;
    if (b) atomicMin(first_bad, e);
  }
  __syncthreads();
  CRD_FOREACH_THREAD(t, 20) {
    fg[20 * (size_t)e + t] = sfg[t];
    fin[20 * (size_t)e + t] = sfin[t];
  }
  if (want_k) {
    CRD_FOREACH_THREAD(t, 210) ke[210 * (size_t)e + t] = sk[t];
    CRD_FOREACH_THREAD(t, 400) E[400 * (size_t)e + t] = sE[t];
  }
}

/* dst[map[s]] += src[s] for every s with map[s] >= 0 (dst zeroed first). */
__global__ void crd_cu_k_scatter(long long nsrc, const int *map, const double *src, double *dst)
{
  long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= nsrc) return;
  int t = map[s];
  if (t >= 0) atomicAdd(dst + t, src[s]);
}

/* Stage 1 of a sum: block b sums its stride of a (squared when sq, and
 * b2 likewise when given) into part[b]; stage 2 (one block) sums part. */
__global__ void crd_cu_k_sum(long long n, const double *a, const double *a2, int sq, double *part)
{
  __shared__ double s[CRD_CU_RED_THREADS];
  double v = 0.0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double x = a[i];
    v += sq ? x * x : x;
    if (a2) v += a2[i] * a2[i];
  }
  s[threadIdx.x] = v;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

/* B values of the permuted full matrix from the upper CSR values: entry k
 * goes to pos1[k] and, off the diagonal, also to pos2[k]. */
__global__ void crd_cu_k_permute(long long nnz, const int *pos1, const int *pos2, const double *src, double *dst)
{
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  double v = src[k];
  dst[pos1[k]] = v;
  if (pos2[k] >= 0) dst[pos2[k]] = v;
}

/* y[i] = x[perm[i]] (inv = 0) or y[perm[i]] = x[i] (inv = 1) */
__global__ void crd_cu_k_perm_vec(int n, const int *perm, int inv, const double *x, double *y)
{
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  if (inv) y[perm[i]] = x[i];
  else y[i] = x[perm[i]];
}

extern "C" {

#define CRD_CU_THREAD_BLOCK 64

int crd_cu_static(cudaStream_t st, const crd_cu_static_args *a)
{
  if (a->ne > 0 && a->per_thread == CRD_CU_LAYOUT_SPLIT)
    crd_k_static_split<<<(unsigned)a->ne, CRD_CU_SPLIT_BLOCK, 0, st>>>(
        a->ne, a->want_k, a->quads, a->x, a->p0, a->d, a->p, a->l, a->mat, a->fe, a->ke, a->ue, a->kind,
        a->first_bad);
  else if (a->ne > 0 && a->per_thread == CRD_CU_LAYOUT_THREAD)
    crd_k_static<<<grid1(a->ne, CRD_CU_THREAD_BLOCK), CRD_CU_THREAD_BLOCK, 0, st>>>(
        a->ne, a->want_k, a->quads, a->x, a->p0, a->d, a->p, a->l, a->mat, a->fe, a->ke, a->ue, a->kind,
        a->first_bad);
  else if (a->ne > 0)
    crd_cu_k_static<<<(unsigned)a->ne, CRD_CU_BLOCK, 0, st>>>(a->ne, a->want_k, a->quads, a->x, a->p0, a->d, a->p,
                                                              a->l, a->mat, a->fe, a->ke, a->ue, a->kind,
                                                              a->first_bad);
  return (int)cudaGetLastError();
}

int crd_cu_mid(cudaStream_t st, const crd_cu_mid_args *a)
{
  if (a->ne > 0 && a->per_thread == CRD_CU_LAYOUT_SPLIT)
    crd_k_mid_split<<<(unsigned)a->ne, CRD_CU_SPLIT_BLOCK, 0, st>>>(
        a->ne, a->want_k, a->quads, a->x, a->p0, a->d0, a->pa, a->d, a->p, a->df, a->pf, a->am, a->wam, a->Bs, a->l,
        a->C, a->mat, a->cf, a->cm, a->xi, a->fg, a->fin, a->ke, a->E, a->ue, a->kind, a->first_bad);
  else if (a->ne > 0 && a->per_thread == CRD_CU_LAYOUT_THREAD)
    crd_k_mid<<<grid1(a->ne, CRD_CU_THREAD_BLOCK), CRD_CU_THREAD_BLOCK, 0, st>>>(
        a->ne, a->want_k, a->quads, a->x, a->p0, a->d0, a->pa, a->d, a->p, a->df, a->pf, a->am, a->wam, a->Bs, a->l,
        a->C, a->mat, a->cf, a->cm, a->xi, a->fg, a->fin, a->ke, a->E, a->ue, a->kind, a->first_bad);
  else if (a->ne > 0)
    crd_cu_k_mid<<<(unsigned)a->ne, CRD_CU_BLOCK, 0, st>>>(a->ne, a->want_k, a->quads, a->x, a->p0, a->d0, a->pa,
                                                           a->d, a->p, a->df, a->pf, a->am, a->wam, a->Bs, a->l,
                                                           a->C, a->mat, a->cf, a->cm, a->xi, a->fg, a->fin, a->ke, a->E,
                                                           a->ue, a->kind, a->first_bad);
  return (int)cudaGetLastError();
}

int crd_cu_gather(cudaStream_t st, int n, const int *ptr, const int *idx, const double *src, double *dst)
{
  if (n > 0) crd_k_gather<<<grid1(n, 128), 128, 0, st>>>(n, ptr, idx, src, dst);
  return (int)cudaGetLastError();
}

int crd_cu_scatter(cudaStream_t st, long long nsrc, const int *map, const double *src, double *dst, long long ndst)
{
  cudaError_t e = cudaMemsetAsync(dst, 0, sizeof(double) * (size_t)(ndst > 0 ? ndst : 1), st);
  if (e != cudaSuccess) return (int)e;
  if (nsrc > 0) crd_cu_k_scatter<<<grid1(nsrc, 256), 256, 0, st>>>(nsrc, map, src, dst);
  return (int)cudaGetLastError();
}

int crd_cu_sum(cudaStream_t st, long long n, const double *a, const double *a2, int sq, double *part, double *out)
{
  crd_cu_k_sum<<<CRD_CU_RED_BLOCKS, CRD_CU_RED_THREADS, 0, st>>>(n, a, a2, sq, part);
  crd_cu_k_sum<<<1, CRD_CU_RED_THREADS, 0, st>>>(CRD_CU_RED_BLOCKS, part, NULL, 0, out);
  return (int)cudaGetLastError();
}

int crd_cu_sum_parts(void) { return CRD_CU_RED_BLOCKS; }

int crd_cu_permute(cudaStream_t st, long long nnz, const int *pos1, const int *pos2, const double *src, double *dst)
{
  if (nnz > 0) crd_cu_k_permute<<<grid1(nnz, 256), 256, 0, st>>>(nnz, pos1, pos2, src, dst);
  return (int)cudaGetLastError();
}

int crd_cu_perm_vec(cudaStream_t st, int n, const int *perm, int inv, const double *x, double *y)
{
  if (n > 0) crd_cu_k_perm_vec<<<grid1(n, 256), 256, 0, st>>>(n, perm, inv, x, y);
  return (int)cudaGetLastError();
}

} /* extern "C" */
