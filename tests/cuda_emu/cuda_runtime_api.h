/* crdyn tests: a host emulation of the few CUDA names the explicit-loop
 * kernels use (tests/cli/cuda_emu.sh), so that their logic (the skip after
 * a failure, the failure flag, the serial and the fixed-order tree sums)
 * runs here without a GPU.  Each block runs in turn; its threads are
 * POSIX threads, __syncthreads a barrier, __shared__ a static (one block
 * at a time).  Not CUDA: the arithmetic is the host's, the memory model
 * the host's. */
#ifndef CRDYN_TEST_CUDA_EMU_H
#define CRDYN_TEST_CUDA_EMU_H

#include <climits>
#include <cmath>
#include <functional>

typedef int cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0 };
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }

struct emu_dim3 {
  unsigned x, y, z;
};
extern thread_local emu_dim3 threadIdx, blockIdx;
extern emu_dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __shared__ static

void __syncthreads(void);
int atomicCAS(int *addr, int compare, int val);
/* kernel<<<grid, block, 0, st>>>(args) becomes emu_launch(grid, block, [&] { kernel(args); }) */
void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body);

#endif
