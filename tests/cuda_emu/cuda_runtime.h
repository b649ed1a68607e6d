/* crdyn tests: a host emulation of CUDA for the kernels of src/kernels/*.cu
 * (tests/cli/cuda_emu.sh), so that their logic and the CUDA backend's host
 * code run here without a GPU.  The kernel sources are compiled by g++
 * with this header in place of the toolkit's cuda_runtime.h (their launch
 * syntax rewritten to emu_launch); the runtime API (cudaMalloc, copies,
 * events, ...) is emu_runtime.cpp over the toolkit's own declarations.
 * A launch runs at once, block after block; the threads of a block are
 * coroutines (ucontext) switched at __syncthreads.  Not CUDA: the
 * arithmetic is the host's (libm's asin/sin), device memory is host memory. */
#ifndef CRDYN_TEST_CUDA_EMU_H
#define CRDYN_TEST_CUDA_EMU_H

#define __host__
#define __device__
#define __global__
#define __shared__ static
#include <cuda_runtime_api.h>

#include <climits>
#include <cmath>
#include <functional>

struct emu_dim3 {
  unsigned x, y, z;
};
extern emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

void __syncthreads(void);
int atomicCAS(int *addr, int compare, int val);
int atomicMin(int *addr, int val);
double atomicAdd(double *addr, double val);
/* kernel<<<grid, block, 0, st>>>(args) becomes emu_launch(grid, block, [&] { kernel(args); }) */
void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body);

#endif
