/* crdyn: named ranges of the run's phases for the profilers (NVTX3, seen
 * by Nsight Systems: profiling/nsys.sh).  Header-only; in builds without
 * CUDA (no CRD_HAVE_CUDA) the macros are empty.  Ranges nest per thread and
 * must be popped on every path (use them around a call, not across returns). */
#ifndef CRDYN_TRACE_H
#define CRDYN_TRACE_H

#ifdef CRD_HAVE_CUDA
#  include <nvtx3/nvToolsExt.h>
#  define CRD_RANGE_PUSH(name) nvtxRangePushA(name)
#  define CRD_RANGE_POP() nvtxRangePop()
#else
#  define CRD_RANGE_PUSH(name) ((void)0)
#  define CRD_RANGE_POP() ((void)0)
#endif

#endif
