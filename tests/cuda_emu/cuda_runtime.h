/* crdyn tests: a host emulation of CUDA for the kernels (the .cu files of src/kernels)
 * (tests/cli/cuda_emu.sh), so that their logic and the CUDA backend's host
 * code run here without a GPU.  The kernel sources are compiled by g++
 * with this header in place of the toolkit's cuda_runtime.h (their launch
 * syntax rewritten to emu_launch); the runtime API (cudaMalloc, copies,
 * events, ...) is emu_runtime.cpp over the toolkit's own declarations.
 *
 * What a kernel sees is a block's: every emulated thread has its own
 * threadIdx, blockDim is the launch's, and CRD_TID / CRD_NTID / CRD_SYNC of
 * crdyn/crd_hd.h are threadIdx.x / blockDim.x / __syncthreads (CRD_CUDA_EMU,
 * defined here).  The threads of a block are coroutines (own stacks):
 * __syncthreads is a barrier that every thread of the block must reach, at
 * the same source line; between two barriers the threads run one after the
 * other, each to its next barrier, in an order chosen per run (forward,
 * reverse, or seeded random: CRDYN_CUDA_EMU_ORDER, CRDYN_CUDA_EMU_SEED),
 * the blocks likewise.  __shared__ variables are per block: they live in
 * one section ("emu_shared") that is filled with a NaN pattern (the int
 * -370086) before each block starts.  Not CUDA: the arithmetic is the
 * host's (libm's asin/sin), device memory is host memory, no warps, no
 * concurrency within an epoch (see docs/cuda.md, "Host emulation"). */
#ifndef CRDYN_TEST_CUDA_EMU_H
#define CRDYN_TEST_CUDA_EMU_H

#define CRD_CUDA_EMU 1
#define __host__
#define __device__
#define __global__
#define __launch_bounds__(...)
/* per block: the section is refilled with the pattern at every block start
 * (emu_runtime.cpp); CUDA has no initializer for __shared__ either */
#define __shared__ static __attribute__((section("emu_shared")))
#include <cuda_runtime_api.h>

#include <climits>
#include <cmath>
#include <functional>

struct emu_dim3 {
  unsigned x, y, z;
};
extern emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

/* the barrier, with its source line (a barrier can be told apart, dropped
 * for a test, and threads waiting at different barriers are a fault) */
void emu_syncthreads(const char *file, int line);
#define __syncthreads() emu_syncthreads(__FILE__, __LINE__)
/* no __syncwarp, no warp intrinsics: the emulation has no warps (a kernel
 * that uses them does not compile here, which is the intended signal) */
int atomicCAS(int *addr, int compare, int val);
int atomicMin(int *addr, int val);
double atomicAdd(double *addr, double val);
/* kernel<<<grid, block, 0, st>>>(args) becomes emu_launch(grid, block, [&] { kernel(args); }) */
void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body);

/* ---- for the emulation's own tests (tests/cuda_emu/emu_split.cpp) ------------ */
enum emu_order { EMU_FORWARD, EMU_REVERSE, EMU_RANDOM };
/* the thread and block order (the environment's at the first launch unless
 * set); seed 0 with EMU_RANDOM: keep the current random sequence */
void emu_set_order(emu_order o, unsigned long long seed);
const char *emu_order_name(void);
/* drop the barriers at the lines of file (a suffix of __FILE__) that match:
 * line 0 drops none; the same as CRDYN_CUDA_EMU_DROP_SYNC=file:line */
void emu_drop_sync(const char *file, int line);
/* faults (threads at different barriers, a barrier some thread of the block
 * did not reach): abort with a message (default), or count them */
void emu_fault_count_mode(int on);
int emu_faults(void);
/* the barrier lines met since the last call of emu_sites_clear */
struct emu_site {
  const char *file;
  int line;
  long long hits;
};
int emu_sites(emu_site *out, int max);
void emu_sites_clear(void);

#endif
