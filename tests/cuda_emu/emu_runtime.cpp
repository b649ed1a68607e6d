/* crdyn tests: the CUDA host emulation (cuda_runtime.h): the launch
 * scheduler (a block's threads as ucontext coroutines, switched at
 * __syncthreads; blocks in turn) and the runtime API functions the CUDA
 * backend calls, over the toolkit's declarations, with host memory for
 * device memory.  A launch runs at once, so every copy and event is
 * already complete: streams and events only keep their handles (an event
 * pair times 1 microsecond).  One emulated device, compute capability 9.0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <vector>

#include "cuda_runtime.h"

emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

/* ---- the scheduler -------------------------------------------------------- */
#define EMU_STACK (1 << 20) /* the element code keeps its matrices on the stack */

static ucontext_t emu_main;
static std::vector<ucontext_t> emu_ctx;
static std::vector<char *> emu_stack;
static std::vector<int> emu_done;
static unsigned emu_cur;
static const std::function<void()> *emu_body;

static void emu_tramp(void)
{
  (*emu_body)();
  emu_done[emu_cur] = 1; /* then uc_link: back to the scheduler */
}

void __syncthreads(void) { swapcontext(&emu_ctx[emu_cur], &emu_main); }

void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body)
{
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  emu_body = &body;
  while (emu_stack.size() < block) emu_stack.push_back((char *)malloc(EMU_STACK));
  emu_ctx.resize(block);
  emu_done.resize(block);
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx = {b, 0, 0};
    for (unsigned t = 0; t < block; ++t) {
      getcontext(&emu_ctx[t]);
      emu_ctx[t].uc_stack.ss_sp = emu_stack[t];
      emu_ctx[t].uc_stack.ss_size = EMU_STACK;
      emu_ctx[t].uc_link = &emu_main;
      makecontext(&emu_ctx[t], emu_tramp, 0);
      emu_done[t] = 0;
    }
    /* round robin: every live thread runs to its next barrier (or its end) */
    for (int live = 1; live;) {
      live = 0;
      for (unsigned t = 0; t < block; ++t) {
        if (emu_done[t]) continue;
        emu_cur = t;
        threadIdx = {t, 0, 0};
        swapcontext(&emu_main, &emu_ctx[t]);
        live |= !emu_done[t];
      }
    }
  }
}

int atomicCAS(int *addr, int compare, int val)
{
  int old = *addr;
  if (old == compare) *addr = val;
  return old;
}

int atomicMin(int *addr, int val)
{
  int old = *addr;
  if (val < old) *addr = val;
  return old;
}

double atomicAdd(double *addr, double val)
{
  double old = *addr;
  *addr = old + val;
  return old;
}

/* ---- the runtime API -------------------------------------------------------- */
extern "C" {

cudaError_t CUDARTAPI cudaGetDeviceCount(int *count)
{
  *count = 1;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
  if (device != 0) return cudaErrorInvalidDevice;
  memset(prop, 0, sizeof *prop);
  snprintf(prop->name, sizeof prop->name, "CUDA host emulation (tests/cuda_emu)");
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 1;
  prop->totalGlobalMem = (size_t)1 << 30;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t CUDARTAPI cudaGetDevice(int *device)
{
  *device = 0;
  return cudaSuccess;
}

static int emu_handle;

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int)
{
  *s = (cudaStream_t)&emu_handle;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *e)
{
  *e = (cudaEvent_t)malloc(8);
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t)
{
  *ms = 1e-3f;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t e)
{
  free((void *)e);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMalloc(void **p, size_t n)
{
  *p = malloc(n ? n : 1);
  if (*p) memset(*p, 0xa5, n); /* not zeroed, as on a device */
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t CUDARTAPI cudaFree(void *p)
{
  free(p);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind)
{
  memmove(dst, src, n);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind, cudaStream_t)
{
  memmove(dst, src, n);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t)
{
  memset(p, v, n);
  return cudaSuccess;
}

const char *CUDARTAPI cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "emulated error"; }
const char *CUDARTAPI cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorEmu"; }
cudaError_t CUDARTAPI cudaGetLastError(void) { return cudaSuccess; }

} /* extern "C" */
