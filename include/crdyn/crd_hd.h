/* crdyn: prelude for code shared by the host (gcc), CUDA (nvcc) and OpenCL C.
 *
 * Rules of the shared subset (docs/architecture.md §4): no malloc, globals, function
 * pointers, recursion, VLAs, restrict, designated initializers or compound
 * literals; pure math on private fixed-size arrays. */
#ifndef CRDYN_CRD_HD_H
#define CRDYN_CRD_HD_H

#if defined(__OPENCL_VERSION__)
/* double precision is required (the backend refuses devices without it);
 * no contraction into fma, so that the device rounds as the host does */
#  pragma OPENCL EXTENSION cl_khr_fp64 : enable
#  pragma OPENCL FP_CONTRACT OFF
#  define CRD_HD
#  define CRD_GLOBAL __global
#  define CRD_LOCAL __local
#  define CRD_TID ((int)get_local_id(0))
#  define CRD_NTID ((int)get_local_size(0))
#  define CRD_SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#else
#  include <math.h>
#  define CRD_GLOBAL
#  define CRD_LOCAL
#  if defined(__CUDACC__)
#    define CRD_HD static inline __host__ __device__
#  else
#    define CRD_HD static inline
#  endif
/* CRD_CUDA_EMU: the host emulation of CUDA (tests/cuda_emu/cuda_runtime.h,
 * compiled by g++ for tests/cli/cuda_emu.sh), whose threads have their own
 * threadIdx and whose __syncthreads is a barrier, as on a device */
#  if defined(__CUDA_ARCH__) || defined(CRD_CUDA_EMU)
#    define CRD_TID ((int)threadIdx.x)
#    define CRD_NTID ((int)blockDim.x)
#    define CRD_SYNC() __syncthreads()
#  else
#    define CRD_TID 0
#    define CRD_NTID 1
#    define CRD_SYNC() ((void)0)
#  endif
#endif
#define CRD_FOREACH_THREAD(t, n) for (int t = CRD_TID; t < (n); t += CRD_NTID)

/* The kernels written once for CUDA and OpenCL (src/kernels/elements.h,
 * explicit_loop.h): the entry, a work-group's memory, the work-item's
 * global index and its group's, and the atomics on ints they use.  Flat arguments at the entry
 * (OpenCL sets them one by one; the CUDA launchers unpack their structs). */
#if defined(__OPENCL_VERSION__)
#  define CRD_KERNEL __kernel void
#  define CRD_SHARED __local
#  define CRD_GID ((int)get_global_id(0))
#  define CRD_GROUP ((int)get_group_id(0))
#  define CRD_ATOMIC_MIN(p, v) atomic_min((p), (v))
#  define CRD_ATOMIC_CAS(p, c, v) atomic_cmpxchg((p), (c), (v))
#elif defined(__CUDACC__) || defined(CRD_CUDA_EMU)
#  define CRD_KERNEL __global__ void
#  define CRD_SHARED __shared__
#  define CRD_GID ((int)(blockIdx.x * blockDim.x + threadIdx.x))
#  define CRD_GROUP ((int)blockIdx.x)
#  define CRD_ATOMIC_MIN(p, v) atomicMin((p), (v))
#  define CRD_ATOMIC_CAS(p, c, v) atomicCAS((p), (c), (v))
#endif

/* A choice between two values by a comparison, for the code the CPU also
 * runs with several elements in the lanes of a vector (src/host/
 * backends/cpu/elem_lanes.h redefines them): there CRD_ANY_GE (CRD_ANY_GT)
 * is true when any lane has x >= t (x > t), and CRD_SEL_LT picks lane by
 * lane.  Here, plain C. */
#ifndef CRD_ANY_GE
#  define CRD_ANY_GE(x, t) ((x) >= (t))
#  define CRD_ANY_GT(x, t) ((x) > (t))
#  define CRD_SEL_LT(x, t, a, b) ((x) < (t) ? (a) : (b))
#endif

/* small vector helpers */
CRD_HD double crd_dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
CRD_HD double crd_norm3(const double *a) { return sqrt(crd_dot3(a, a)); }
CRD_HD void crd_cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

#endif
