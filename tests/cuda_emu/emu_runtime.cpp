/* crdyn tests: the CUDA host emulation (cuda_runtime.h): the launch
 * scheduler and the runtime API functions the CUDA backend calls, over the
 * toolkit's declarations, with host memory for device memory.  A launch
 * runs at once, so every copy and event is already complete: streams and
 * events only keep their handles (an event pair times 1 microsecond).  One
 * emulated device, compute capability 9.0.
 *
 * The scheduler.  A block's threads are coroutines, each with its own
 * stack (1 MiB, a guard page below) and threadIdx.  Every thread runs to
 * its next barrier (or its end), one after the other, in the run's order
 * (forward, reverse, or a seeded random order drawn anew for every epoch);
 * when all have arrived, and at the same barrier (file and line), the next
 * epoch starts.  A barrier that some threads reach while others have
 * returned, or threads waiting at different barriers, is a fault
 * (divergent __syncthreads: a hang or undefined on a device).  Blocks run
 * one after the other, in the same kind of order; before each, the
 * __shared__ section is filled with the NaN pattern.  A block whose first
 * thread returns without meeting a barrier runs its other threads straight
 * on the caller's stack (no context switches: the kernels without
 * barriers); a barrier met there is the same fault.  Under
 * AddressSanitizer the switches are announced
 * (__sanitizer_*_switch_fiber); under valgrind the stacks are registered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <deque>
#include <vector>

#include "cuda_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#  define EMU_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define EMU_ASAN 1
#  endif
#endif
#ifdef EMU_ASAN
#  include <sanitizer/common_interface_defs.h>
#endif
#if __has_include(<valgrind/valgrind.h>)
#  include <valgrind/valgrind.h>
#  define EMU_VALGRIND 1
#endif

emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

/* the __shared__ variables of every kernel (cuda_runtime.h): the linker's
 * bounds of the section; weak, for a program without any */
extern "C" {
extern char __start_emu_shared[] __attribute__((weak));
extern char __stop_emu_shared[] __attribute__((weak));
}

/* ---- configuration ------------------------------------------------------------ */
static int emu_configured;
static emu_order emu_ord = EMU_FORWARD;
static unsigned long long emu_seed, emu_rng;
static int emu_fault_count, emu_faults_n;
static char emu_drop_file[256];
static int emu_drop_line;

static unsigned long long emu_rand(void) /* splitmix64 */
{
  unsigned long long z = (emu_rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void emu_config(void)
{
  if (emu_configured) return;
  emu_configured = 1;
  const char *o = getenv("CRDYN_CUDA_EMU_ORDER"), *s = getenv("CRDYN_CUDA_EMU_SEED"),
             *d = getenv("CRDYN_CUDA_EMU_DROP_SYNC");
  if (o && !strcmp(o, "reverse")) emu_ord = EMU_REVERSE;
  else if (o && !strcmp(o, "random")) emu_ord = EMU_RANDOM;
  else if (o && *o && strcmp(o, "forward")) {
    fprintf(stderr, "cuda_emu: CRDYN_CUDA_EMU_ORDER=%s: not forward, reverse or random\n", o);
    exit(2);
  }
  emu_seed = s && *s ? strtoull(s, 0, 10) : ((unsigned long long)time(0) << 20 ^ (unsigned long long)getpid());
  emu_rng = emu_seed;
  if (d && *d) {
    const char *c = strrchr(d, ':');
    if (!c) {
      fprintf(stderr, "cuda_emu: CRDYN_CUDA_EMU_DROP_SYNC=%s: not FILE:LINE\n", d);
      exit(2);
    }
    snprintf(emu_drop_file, sizeof emu_drop_file, "%.*s", (int)(c - d), d);
    emu_drop_line = atoi(c + 1);
  }
  if (emu_ord == EMU_RANDOM)
    fprintf(stderr, "cuda_emu: threads and blocks in random order, seed %llu (CRDYN_CUDA_EMU_SEED)\n", emu_seed);
  else if (o)
    fprintf(stderr, "cuda_emu: threads and blocks in %s order\n", emu_order_name());
  if (emu_drop_line) fprintf(stderr, "cuda_emu: the barrier at %s:%d dropped\n", emu_drop_file, emu_drop_line);
}

void emu_set_order(emu_order o, unsigned long long seed)
{
  emu_config();
  emu_ord = o;
  if (o == EMU_RANDOM && seed) emu_rng = emu_seed = seed;
}

const char *emu_order_name(void)
{
  return emu_ord == EMU_REVERSE ? "reverse" : emu_ord == EMU_RANDOM ? "random" : "forward";
}

void emu_fault_count_mode(int on)
{
  emu_config();
  emu_fault_count = on;
}

int emu_faults(void) { return emu_faults_n; }

static void emu_fault(const char *msg)
{
  ++emu_faults_n;
  fprintf(stderr, "cuda_emu: FAULT in block %u of a launch of %u x %u: %s\n", blockIdx.x, gridDim.x, blockDim.x, msg);
  if (!emu_fault_count) abort();
}

/* ---- barrier sites ---------------------------------------------------------------- */
struct emu_site_rec {
  const char *file;
  int line, drop;
  long long hits;
};
static std::deque<emu_site_rec> emu_site_v; /* a deque: the records do not move (threads point to them) */

static int emu_site_drops(const char *file, int line)
{
  size_t n = strlen(file), m = strlen(emu_drop_file);
  return emu_drop_line && line == emu_drop_line && n >= m && !strcmp(file + n - m, emu_drop_file);
}

static void emu_sites_redrop(void)
{
  for (auto &r : emu_site_v) r.drop = emu_site_drops(r.file, r.line);
}

static emu_site_rec *emu_site_of(const char *file, int line)
{
  static emu_site_rec *last;
  if (last && last->line == line && last->file == file) return last;
  for (auto &r : emu_site_v)
    if (r.line == line && (r.file == file || !strcmp(r.file, file))) return last = &r;
  emu_site_v.push_back({file, line, emu_site_drops(file, line), 0});
  return last = &emu_site_v.back();
}

void emu_drop_sync(const char *file, int line)
{
  emu_config();
  snprintf(emu_drop_file, sizeof emu_drop_file, "%s", file ? file : "");
  emu_drop_line = file ? line : 0;
  emu_sites_redrop();
}

int emu_sites(emu_site *out, int max)
{
  int n = 0;
  for (auto &r : emu_site_v)
    if (r.hits && n < max) out[n++] = {r.file, r.line, r.hits};
  return n;
}

void emu_sites_clear(void)
{
  for (auto &r : emu_site_v) r.hits = 0;
}

/* ---- the scheduler ------------------------------------------------------------------ */
/* Context switches.  On x86-64 a few instructions (the callee-saved
 * registers, the SSE and x87 control words, the stack pointer): glibc's
 * swapcontext makes a system call for the signal mask at every switch,
 * which made the 65,536-thread block sums of crd_cuda.cu cost seconds.
 * Elsewhere ucontext. */
#if defined(__x86_64__)
typedef void *emu_ctx;
extern "C" void emu_switch(void **save, void *to);
__asm__(".pushsection .text\n"
        ".p2align 4\n"
        ".type emu_switch, @function\n"
        "emu_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size emu_switch, .-emu_switch\n"
        ".popsection\n");
/* a new context: the frame emu_switch pops, returning into fn (which never returns) */
static void emu_ctx_make(emu_ctx *c, char *stack, size_t n, void (*fn)(void))
{
  void **sp = (void **)(((unsigned long)(stack + n)) & ~15UL);
  *--sp = 0;
  *--sp = (void *)fn; /* 16-byte aligned: fn starts as if called */
  for (int r = 0; r < 6; ++r) *--sp = 0;
  unsigned ctl[2] = {0x1f80u, 0x037fu}; /* the ABI's MXCSR and x87 control word */
  __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(ctl[0]), "=m"(ctl[1]));
  *--sp = (void *)((unsigned long)ctl[0] | (unsigned long)(ctl[1] & 0xffffu) << 32);
  *c = (void *)sp;
}
static inline void emu_ctx_swap(emu_ctx *save, emu_ctx *to) { emu_switch(save, *to); }
#else
typedef ucontext_t emu_ctx;
static void emu_ctx_make(emu_ctx *c, char *stack, size_t n, void (*fn)(void))
{
  getcontext(c);
  c->uc_stack.ss_sp = stack;
  c->uc_stack.ss_size = n;
  c->uc_link = 0; /* fn never returns */
  makecontext(c, fn, 0);
}
static inline void emu_ctx_swap(emu_ctx *save, emu_ctx *to) { swapcontext(save, to); }
#endif

#define EMU_STACK (1 << 20) /* the element code keeps its matrices on the stack */
#define EMU_GUARD 4096      /* an inaccessible page below each stack: an overflow faults */
enum { T_NEW, T_READY, T_WAIT, T_DONE };
struct emu_thread {
  emu_ctx ctx; /* held by pointer (a ucontext_t must not move) */
  char *stack;
  int state;
  void *fake;             /* AddressSanitizer's fake stack while switched out */
};
/* a plain array (no destructor at exit: LeakSanitizer's check runs after
 * the static destructors and would see the threads as lost) */
#define EMU_MAX_THREADS 1024 /* CUDA's largest block */
static emu_thread *emu_th[EMU_MAX_THREADS];
static unsigned emu_nth;
static emu_ctx emu_main;
static unsigned emu_cur;
static int emu_direct; /* a thread running on the caller's stack */
static const std::function<void()> *emu_body;
/* the current epoch of the block: threads arrived at a barrier, returned,
 * the barrier of the first to arrive and the first thread at another */
static unsigned ep_wait, ep_done, ep_first, ep_other;
static const emu_site_rec *ep_at, *ep_other_at;
#ifdef EMU_ASAN
static const void *emu_main_bottom;
static size_t emu_main_size;
static void *emu_main_fake;
#endif

/* from the thread to the scheduler.  Under AddressSanitizer the thread's
 * fake stack (detect_stack_use_after_return) is kept in its slot, also
 * when the thread has returned, for the slot's next thread: a fiber that
 * ends destroys its fake stack, and mapping a new one for every thread of
 * every block made the block sums take minutes. */
static void emu_to_main(emu_thread *t)
{
#ifdef EMU_ASAN
  __sanitizer_start_switch_fiber(&t->fake, emu_main_bottom, emu_main_size);
#endif
  emu_ctx_swap(&t->ctx, &emu_main);
#ifdef EMU_ASAN
  __sanitizer_finish_switch_fiber(t->fake, &emu_main_bottom, &emu_main_size);
#endif
}

static void emu_tramp(void)
{
#ifdef EMU_ASAN
  __sanitizer_finish_switch_fiber(emu_th[emu_cur]->fake, &emu_main_bottom, &emu_main_size);
#endif
  (*emu_body)();
  emu_thread *t = emu_th[emu_cur];
  t->state = T_DONE;
  ++ep_done;
  emu_to_main(t);
  abort(); /* not resumed: the slot's next thread starts afresh */
}

static __attribute__((noinline, cold)) void emu_fault_direct(const char *file, int line)
{
  char m[512];
  snprintf(m, sizeof m, "thread %u meets the barrier at %s:%d, which the block's first thread to run returned "
           "without meeting", threadIdx.x, file, line);
  emu_fault(m);
}

void emu_syncthreads(const char *file, int line)
{
  emu_site_rec *s = emu_site_of(file, line);
  ++s->hits;
  if (s->drop) return;
  if (emu_direct) {
    emu_fault_direct(file, line);
    return;
  }
  emu_thread *t = emu_th[emu_cur];
  t->state = T_WAIT;
  if (ep_wait++ == 0) {
    ep_at = s;
    ep_first = emu_cur;
  } else if (s != ep_at && !ep_other_at) {
    ep_other_at = s;
    ep_other = emu_cur;
  }
  emu_to_main(t);
}

static void emu_resume(unsigned i)
{
  emu_thread *t = emu_th[i];
  if (t->state == T_NEW) emu_ctx_make(&t->ctx, t->stack, EMU_STACK, emu_tramp);
  t->state = T_READY;
  emu_cur = i;
  threadIdx = {i, 0, 0};
#ifdef EMU_ASAN
  __sanitizer_start_switch_fiber(&emu_main_fake, t->stack, EMU_STACK);
#endif
  emu_ctx_swap(&emu_main, &t->ctx);
#ifdef EMU_ASAN
  __sanitizer_finish_switch_fiber(emu_main_fake, 0, 0);
#endif
}

/* the order of n items for this epoch (or this launch's blocks) */
static void emu_perm(std::vector<unsigned> &p, unsigned n)
{
  p.resize(n);
  for (unsigned i = 0; i < n; ++i) p[i] = emu_ord == EMU_REVERSE ? n - 1 - i : i;
  if (emu_ord == EMU_RANDOM)
    for (unsigned i = n; i > 1; --i) {
      unsigned j = (unsigned)(emu_rand() % i), x = p[i - 1];
      p[i - 1] = p[j];
      p[j] = x;
    }
}

/* __shared__: the NaN pattern, 0xfffa5a5a in every 32-bit word (a quiet
 * NaN as a double or a float at any 4-byte offset, -370086 as an int) */
static void emu_shared_fill(void)
{
  if (!__start_emu_shared || !__stop_emu_shared) return;
  const unsigned w = 0xfffa5a5au;
  char *p = __start_emu_shared;
  size_t n = (size_t)(__stop_emu_shared - __start_emu_shared), i = 0;
  for (; i + 4 <= n; i += 4) memcpy(p + i, &w, 4);
  for (; i < n; ++i) p[i] = (char)0x5a;
}

void emu_launch(unsigned grid, unsigned block, const std::function<void()> &body)
{
  emu_config();
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  emu_body = &body;
  if (block > EMU_MAX_THREADS) {
    fprintf(stderr, "cuda_emu: a block of %u threads (at most %d)\n", block, EMU_MAX_THREADS);
    abort();
  }
  while (emu_nth < block) {
    emu_thread *t = new emu_thread();
    void *m = mmap(0, EMU_STACK + EMU_GUARD, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, EMU_GUARD, PROT_NONE)) {
      fprintf(stderr, "cuda_emu: no memory for a thread's stack\n");
      abort();
    }
    t->stack = (char *)m + EMU_GUARD;
#ifdef EMU_VALGRIND
    VALGRIND_STACK_REGISTER(t->stack, t->stack + EMU_STACK);
#endif
    emu_th[emu_nth++] = t;
  }
  std::vector<unsigned> border, order;
  emu_perm(border, grid);
  char m[512];
  for (unsigned b : border) {
    blockIdx = {b, 0, 0};
    emu_shared_fill();
    for (unsigned t = 0; t < block; ++t) emu_th[t]->state = T_NEW;
    ep_wait = ep_done = 0;
    ep_other_at = 0;
    emu_perm(order, block);
    emu_resume(order[0]);
    if (emu_th[order[0]]->state == T_DONE) { /* no barrier: the others on this stack */
      emu_direct = 1;
      for (unsigned k = 1; k < block; ++k) {
        emu_cur = order[k];
        threadIdx = {order[k], 0, 0};
        body();
      }
      emu_direct = 0;
      continue;
    }
    for (unsigned k = 1; k < block; ++k) emu_resume(order[k]);
    for (;;) { /* an epoch has ended: every thread at a barrier or returned */
      if (ep_wait == 0) break;
      if (ep_done) {
        snprintf(m, sizeof m, "%u threads wait at the barrier at %s:%d, %u have returned without it", ep_wait,
                 ep_at->file, ep_at->line, ep_done);
        emu_fault(m);
      }
      if (ep_other_at) {
        snprintf(m, sizeof m, "threads wait at different barriers: thread %u at %s:%d, thread %u at %s:%d", ep_first,
                 ep_at->file, ep_at->line, ep_other, ep_other_at->file, ep_other_at->line);
        emu_fault(m);
      }
      ep_wait = 0;
      ep_other_at = 0;
      if (emu_ord == EMU_RANDOM) emu_perm(order, block);
      for (unsigned t : order)
        if (emu_th[t]->state == T_WAIT) emu_resume(t);
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
  emu_config();
  if (emu_ord == EMU_RANDOM)
    snprintf(prop->name, sizeof prop->name, "CUDA host emulation (tests/cuda_emu; threads in random order, seed %llu)",
             emu_seed);
  else
    snprintf(prop->name, sizeof prop->name, "CUDA host emulation (tests/cuda_emu; threads in %s order)",
             emu_order_name());
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
