/* crdyn: CUDA kernels of the device-resident explicit loop (backend.h,
 * "the device-resident explicit loop"; include/crdyn/cuda_explicit.h).
 * Per step j of a call, in one stream: node1 -> pres -> the element force
 * kernel of crd_cuda.cu (crd_cu_static, want_k 0) -> the force gather of
 * crd_cuda.cu (crd_cu_gather, the CPU's element order) -> node2 -> reduce.
 * The physics is include/crdyn/explicit_node.h, the same as the host loop
 * (explicit.c) and the OpenCL kernels (src/kernels/crd_explicit.cl), which
 * these mirror line by line: the kernels copy a node's values to private
 * arrays, call the header functions and write back.  nvcc compiles with
 * -fmad=false (no contraction), so the node values are the host's bits.
 *
 * Every kernel of a step after the first step with an element failure
 * returns at once (status[0] < j), so the state stays that of the failing
 * step; the element kernel and the gather, which do not read status, then
 * recompute the same values from the unchanged state. */
#include <cuda_runtime.h>
#include <limits.h>

#include "crdyn/cuda_explicit.h"
#include "crdyn/explicit_node.h"

/* Launch shapes.  The tree sums' grid is fixed, so their order (and their
 * bits) does not depend on the device; powers of two.  Overridable only
 * for the host emulation of tests/cli/cuda_emu.sh, which runs the same
 * code on a smaller grid (POSIX threads are slow barriers). */
#ifndef CRD_CUX_NODE_THREADS
#  define CRD_CUX_NODE_THREADS 128
#endif
#ifndef CRD_CUX_RED_BLOCKS
#  define CRD_CUX_RED_BLOCKS 128
#endif
#ifndef CRD_CUX_RED_THREADS
#  define CRD_CUX_RED_THREADS 256
#endif

static unsigned grid_of(long long n, int threads)
{
  long long g = (n + threads - 1) / threads;
  return (unsigned)(g > 0 ? g : 1);
}

__global__ void crd_cux_k_node1(const crd_cux_args a, int j)
{
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= a.nn || a.status[0] < j) return;
  int eq[5];
  double d[3], p[3], vh[3], wh[3];
  for (int k = 0; k < 5; ++k) eq[k] = a.eq[5 * i + k];
  for (int c = 0; c < 3; ++c) {
    d[c] = a.d[3 * i + c];
    p[c] = a.p[3 * i + c];
    vh[c] = crd_exn_half(a.v[3 * i + c], a.a[3 * i + c], a.dt);
    wh[c] = crd_exn_half(a.w[3 * i + c], a.wa[3 * i + c], a.dt);
    a.dprev[3 * i + c] = d[c];
  }
  int l = a.l[i];
  crd_exn_advance(eq, a.dt, vh, d, p, l, wh);
  /* the switch looks at p only: the prescribed translations (pres, after
   * this kernel) do not change it */
  if (!a.locked[i]) l = crd_exn_switch(p, l);
  a.l[i] = l;
  for (int c = 0; c < 3; ++c) {
    a.d[3 * i + c] = d[c];
    a.p[3 * i + c] = p[c];
    a.vh[3 * i + c] = vh[c];
    a.wh[3 * i + c] = wh[c];
    a.w[3 * i + c] = crd_exn_half(wh[c], a.wa[3 * i + c], a.dt); /* predicted for the inertia term */
  }
}

__global__ void crd_cux_k_pres(const crd_cux_args a, int j)
{
  int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= a.npres || a.status[0] < j) return;
  a.d[a.pres_idx[k]] = a.pres[(size_t)j * a.npres + k];
}

/* F_ext - F_int at a node's equations (F_int assembled by the gather,
 * F_ext by the load entries in table order), the accelerations, the
 * end-of-step rates and the node's measures.  Thread 0 first turns an
 * element failure of this step (first_bad < ne) into status[0..1]; the
 * other threads read status[0] <= j either way, so they run this step. */
__global__ void crd_cux_k_node2(const crd_cux_args a, int j)
{
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i == 0) {
    int fb = *a.first_bad;
    if (fb < a.ne && a.status[0] >= j && atomicCAS(a.status, INT_MAX, j) == INT_MAX) a.status[1] = fb;
  }
  if (i >= a.nn || a.status[0] < j) return;
  int eq[5];
  double fr[5], p[3], wp[3], ac[3], wa[3], v[3], w[3], xc[3], d[3], o[7];
  const double *facj = a.fac + (size_t)j * a.nload;
  for (int k = 0; k < 5; ++k) {
    int q = a.eq[5 * i + k];
    eq[k] = q;
    fr[k] = 0.0;
    if (q < 0) continue;
    double fi = a.F[q], fx = 0.0;
    for (int t = a.lptr[q]; t < a.lptr[q + 1]; ++t) {
      int u = a.lidx[t];
      double f = facj[a.l_load[u]];
      if (f != 0.0) fx += f * a.l_a[u] * a.l_b[u];
    }
    fr[k] = fx - fi;
  }
  for (int c = 0; c < 3; ++c) {
    p[c] = a.p[3 * i + c];
    wp[c] = a.w[3 * i + c];
    d[c] = a.d[3 * i + c];
  }
  double P = a.s * a.plump[i];
  crd_exn_accel(eq, fr, a.mlump[i], P, p, a.l[i], wp, ac, wa);
  for (int c = 0; c < 3; ++c) {
    v[c] = crd_exn_half(a.vh[3 * i + c], ac[c], a.dt);
    w[c] = crd_exn_half(a.wh[3 * i + c], wa[c], a.dt);
    a.v[3 * i + c] = v[c];
    a.w[3 * i + c] = w[c];
    a.a[3 * i + c] = ac[c];
    a.wa[3 * i + c] = wa[c];
    xc[c] = a.x[3 * i + c] + d[c];
  }
  crd_exn_measure(a.mlump[i], P, xc, v, p, w, o);
  for (int k = 0; k < 7; ++k) a.contrib[8 * i + k] = o[k];
  a.contrib[8 * i + 7] = crd_exn_nonfinite(d, p, v, ac, w, wa) ? 1.0 : 0.0;
}

/* The external work of one entry of the work table at step j. */
__device__ static double work_entry(const crd_cux_args &a, const double *fj, int k)
{
  int q = a.w_idx[k];
  return fj[a.w_load[k]] * a.w_a[k] * a.w_b[k] * (a.d[q] - a.dprev[q]);
}

/* One thread: the external work of step j (entries in order) added to
 * acc[0]; on the last step of a call the measures acc[1..8] summed in
 * node and element order and the first non-finite node: the host loop's
 * sums, bit for bit (crd_kx_reduce of crd_explicit.cl). */
__global__ void crd_cux_k_reduce_serial(const crd_cux_args a, int j, int last)
{
  if (blockIdx.x != 0 || threadIdx.x != 0 || a.status[0] < j) return;
  const double *fj = a.facw + (size_t)j * a.nload;
  double W = 0.0;
  for (int k = 0; k < a.nw; ++k) W += work_entry(a, fj, k);
  a.acc[0] = a.acc[0] + W;
  if (!last) return;
  double K = 0.0, L0 = 0.0, L1 = 0.0, L2 = 0.0, J0 = 0.0, J1 = 0.0, J2 = 0.0, U = 0.0;
  int bad = -1;
  for (int i = 0; i < a.nn; ++i) {
    const double *c = a.contrib + 8 * i;
    K += c[0];
    L0 += c[1]; L1 += c[2]; L2 += c[3];
    J0 += c[4]; J1 += c[5]; J2 += c[6];
    if (bad < 0 && c[7] != 0.0) bad = i;
  }
  for (int e = 0; e < a.ne; ++e) U += a.ue[e];
  a.acc[1] = K;
  a.acc[2] = L0; a.acc[3] = L1; a.acc[4] = L2;
  a.acc[5] = J0; a.acc[6] = J1; a.acc[7] = J2;
  a.acc[8] = U;
  a.status[2] = bad;
}

/* Shared-memory tree sum of s[0..CRD_CUX_RED_THREADS) in a fixed order
 * (s[0] holds the result after it). */
__device__ static void tree(double *s)
{
  for (int h = CRD_CUX_RED_THREADS / 2; h > 0; h /= 2) {
    __syncthreads();
    if ((int)threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
  }
  __syncthreads();
}

/* The tree sums, stage 1: block b sums its grid stride of the work
 * entries into part[b] and, when last, of the node measures and the
 * element energies into part[RB + 9 b + c] (c: K, L, J, U) and the
 * smallest non-finite node into part_bad[b].  A fixed grid (RB blocks of
 * RT threads) makes the order, and so the bits, the same on every run. */
__global__ void crd_cux_k_reduce_part(const crd_cux_args a, int j, int last)
{
  __shared__ double s[CRD_CUX_RED_THREADS];
  __shared__ int sb[CRD_CUX_RED_THREADS];
  if (a.status[0] < j) return;  /* uniform: status is not written by this kernel */
  const int t = (int)threadIdx.x, b = (int)blockIdx.x, stride = CRD_CUX_RED_BLOCKS * CRD_CUX_RED_THREADS;
  const double *fj = a.facw + (size_t)j * a.nload;
  double v = 0.0;
  for (int k = b * CRD_CUX_RED_THREADS + t; k < a.nw; k += stride) v += work_entry(a, fj, k);
  s[t] = v;
  tree(s);
  if (t == 0) a.part[b] = s[0];
  if (!last) return;
  double *out = a.part + CRD_CUX_RED_BLOCKS + 9 * b;
  for (int c = 0; c < 8; ++c) {
    v = 0.0;
    if (c < 7)
      for (int i = b * CRD_CUX_RED_THREADS + t; i < a.nn; i += stride) v += a.contrib[8 * i + c];
    else
      for (int e = b * CRD_CUX_RED_THREADS + t; e < a.ne; e += stride) v += a.ue[e];
    s[t] = v;
    tree(s);
    if (t == 0) out[c] = s[0];
  }
  int bad = INT_MAX;
  for (int i = b * CRD_CUX_RED_THREADS + t; i < a.nn && bad == INT_MAX; i += stride)
    if (a.contrib[8 * i + 7] != 0.0) bad = i;
  sb[t] = bad;
  for (int h = CRD_CUX_RED_THREADS / 2; h > 0; h /= 2) {
    __syncthreads();
    if (t < h && sb[t + h] < sb[t]) sb[t] = sb[t + h];
  }
  __syncthreads();
  if (t == 0) a.part_bad[b] = sb[0];
}

/* The tree sums, stage 2 (one block of RB threads): the block partials
 * in a fixed tree, acc[0] += W and, when last, acc[1..8] and status[2]. */
__global__ void crd_cux_k_reduce_final(const crd_cux_args a, int j, int last)
{
  __shared__ double s[CRD_CUX_RED_BLOCKS];
  __shared__ int sb[CRD_CUX_RED_BLOCKS];
  if (a.status[0] < j) return;
  const int t = (int)threadIdx.x;
  for (int c = 0; c < (last ? 9 : 1); ++c) {
    s[t] = c == 0 ? a.part[t] : a.part[CRD_CUX_RED_BLOCKS + 9 * t + (c - 1)];
    for (int h = CRD_CUX_RED_BLOCKS / 2; h > 0; h /= 2) {
      __syncthreads();
      if (t < h) s[t] += s[t + h];
    }
    __syncthreads();
    if (t == 0) {
      if (c == 0) a.acc[0] = a.acc[0] + s[0];
      else a.acc[c] = s[0];
    }
    __syncthreads();
  }
  if (!last) return;
  sb[t] = a.part_bad[t];
  for (int h = CRD_CUX_RED_BLOCKS / 2; h > 0; h /= 2) {
    __syncthreads();
    if (t < h && sb[t + h] < sb[t]) sb[t] = sb[t + h];
  }
  __syncthreads();
  if (t == 0) a.status[2] = sb[0] == INT_MAX ? -1 : sb[0];
}

extern "C" {

int crd_cux_node1(cudaStream_t st, const crd_cux_args *a, int j)
{
  if (a->nn > 0) crd_cux_k_node1<<<grid_of(a->nn, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(*a, j);
  return (int)cudaGetLastError();
}

int crd_cux_pres(cudaStream_t st, const crd_cux_args *a, int j)
{
  if (a->npres > 0) crd_cux_k_pres<<<grid_of(a->npres, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(*a, j);
  return (int)cudaGetLastError();
}

int crd_cux_node2(cudaStream_t st, const crd_cux_args *a, int j)
{
  /* at least one block, even without nodes: thread 0 flags element failures */
  crd_cux_k_node2<<<grid_of(a->nn, CRD_CUX_NODE_THREADS), CRD_CUX_NODE_THREADS, 0, st>>>(*a, j);
  return (int)cudaGetLastError();
}

int crd_cux_reduce(cudaStream_t st, const crd_cux_args *a, int j, int last, int serial)
{
  if (!last && a->nw == 0) return (int)cudaGetLastError(); /* no work entries: nothing to add this step */
  if (serial) crd_cux_k_reduce_serial<<<1, 1, 0, st>>>(*a, j, last);
  else {
    crd_cux_k_reduce_part<<<CRD_CUX_RED_BLOCKS, CRD_CUX_RED_THREADS, 0, st>>>(*a, j, last);
    crd_cux_k_reduce_final<<<1, CRD_CUX_RED_BLOCKS, 0, st>>>(*a, j, last);
  }
  return (int)cudaGetLastError();
}

int crd_cux_parts(void) { return 10 * CRD_CUX_RED_BLOCKS; }

} /* extern "C" */
