/* crdyn: the CUDA backend (backend.h, docs/cuda.md): element evaluation
 * and assembly on an NVIDIA GPU, the kernels of src/kernels/crd_cuda.cu
 * built from the same CRD_HD headers as the CPU backend.
 *
 * Resident on the device for the whole run: the mesh (quads, x, p0), the
 * materials, the equation and scatter maps (and their inverses for the
 * deterministic gather), the element mass coefficients C, and every
 * element and assembled buffer.  Per evaluation the host state that
 * changed is copied in (d, p, l; for the implicit midpoint also d0, pa,
 * df, pf and the rates), one block per element computes its vectors and
 * matrices, the assembly runs on the device (atomic or deterministic:
 * be->deterministic, `--deterministic`), the energy and |f_e| are reduced
 * on the device, and what the host integrators read comes back: F (Fi,
 * Fin), the CSR values when a tangent was asked for, u_e (static.c sums
 * them), E_e for the implicit Newton sweeps; the per-element buffers only
 * with keep_elements (tests).  The factorization is the solver's
 * (solver.h: cholmod on the host, or cusolver on the device).
 *
 * Device times (CUDA events) go into pb->tm, NVTX ranges name the phases.
 * Built only with CRD_HAVE_CUDA. */
#ifdef CRD_HAVE_CUDA

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda_explicit.h"
#include "crdyn/backend.h"
#include "crdyn/cuda_kernels.h"
#include "crdyn/elem_eval.h"
#include "crdyn/elem_force.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "crdyn/trace.h"
#include "crdyn/switches.h"

typedef struct cu {
  cudaStream_t st;
  cudaEvent_t ev[3];
  int ne, nn, neq, nnz;
  /* constant over a run */
  int *quads, *elem_eq, *scatter;
  int *fptr, *fidx, *kptr, *kidx;   /* inverse maps, built on the first deterministic assembly */
  double *x, *p0, *mat, *C;
  const double *C_host;             /* the mass coefficients uploaded to C */
  /* state and midpoint inputs */
  int *l;
  double *d, *p, *d0, *pa, *df, *pf, *am, *wam, *Bs;
  /* element and assembled outputs */
  double *fe, *fin, *ke, *E, *ue, *F, *Fin, *K, *part, *sums;
  int *kind, *first_bad;
  int per_thread;                   /* the kernels' layout, CRD_CU_LAYOUT_* (CRDYN_CUDA_LAYOUT, docs/cuda.md) */
  int ex_lean;                      /* explicit forces by the lean kernel (CRDYN_CUDA_EX_FORCE, default 1) */
  double *geo;                      /* its geometry cache (CRD_EF_GEO per element), from the first explicit stage */
  crd_cux *ex;                      /* the resident explicit loop's stage (backend_cuda_explicit.c), or NULL */
} cu;

#define CU(call, what)                                                                                 \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess)                                                                             \
      return CRD_ERR(CRD_ERR_BACKEND, "cuda: %s: %s (%s)", (what), cudaGetErrorString(e_), cudaGetErrorName(e_)); \
  } while (0)
#define CUK(call, what) CU((cudaError_t)(call), what)

/* ---- devices ---------------------------------------------------------- */

int crd_backend_cuda_pick(int device, int *pick, char *name, size_t nname)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0)
    return CRD_ERR(CRD_ERR_BACKEND, "no usable CUDA device on this machine (%s%s)",
                   e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices",
                   e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice ? ": no NVIDIA GPU or driver" : "");
  int k = device < 0 ? 0 : device;
  if (k >= n)
    return CRD_ERR(CRD_ERR_INPUT, "--device %d: there are %d CUDA devices (0..%d)", device, n, n - 1);
  struct cudaDeviceProp pr;
  CU(cudaGetDeviceProperties(&pr, k), "cudaGetDeviceProperties");
  /* the build has sm_90 code and compute_90 PTX: older cards cannot run it */
  if (pr.major < 9)
    return CRD_ERR(CRD_ERR_BACKEND, "CUDA device %d (%s) has compute capability %d.%d; this build "
                   "has code for 9.0 and later only (rebuild with CUDA_ARCH=... for it)", k, pr.name, pr.major,
                   pr.minor);
  *pick = k;
  snprintf(name, nname, "CUDA device %d: %s (sm_%d%d, %d SMs, %.1f GiB)", k, pr.name, pr.major, pr.minor,
           pr.multiProcessorCount, (double)pr.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
  return 0;
}

int crd_backend_cuda_devices(char *buf, size_t n)
{
  int nd = 0;
  cudaError_t e = cudaGetDeviceCount(&nd);
  buf[0] = 0;
  if (e != cudaSuccess || nd == 0) {
    snprintf(buf, n, "no CUDA devices (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 0;
  }
  size_t k = 0;
  for (int i = 0; i < nd && k < n; ++i) {
    struct cudaDeviceProp pr;
    if (cudaGetDeviceProperties(&pr, i) != cudaSuccess) continue;
    k += (size_t)snprintf(buf + k, n - k, "cuda %d: %s, sm_%d%d, %d SMs, %.1f GiB%s\n", i, pr.name, pr.major,
                          pr.minor, pr.multiProcessorCount, (double)pr.totalGlobalMem / (1024.0 * 1024.0 * 1024.0),
                          pr.major < 9 ? " (unusable: this build has code for sm_90 and later)" : "");
  }
  return nd;
}

/* ---- setup ------------------------------------------------------------ */

static int dalloc(void **p, size_t bytes, const void *host, const char *what)
{
  CU(cudaMalloc(p, bytes ? bytes : 8), what);
  if (host && bytes) CU(cudaMemcpy(*p, host, bytes, cudaMemcpyHostToDevice), what);
  return 0;
}
#define DALLOC(p, bytes, host, what) dalloc((void **)&(p), (bytes), (host), (what))


static int upload_gather_maps(cu *c, const crd_problem *pb)
{
  int *fptr = NULL, *fidx = NULL, *kptr = NULL, *kidx = NULL, rc = 0;
  if ((rc = crd_map_invert(pb->elem_eq, 20 * (size_t)c->ne, c->neq, &fptr, &fidx)) ||
      (rc = crd_map_invert(pb->scatter, 210 * (size_t)c->ne, c->nnz, &kptr, &kidx)))
    goto out;
  if ((rc = DALLOC(c->fptr, sizeof(int) * (size_t)(c->neq + 1), fptr, "force gather map")) ||
      (rc = DALLOC(c->fidx, sizeof(int) * (size_t)(fptr[c->neq] + 1), fidx, "force gather map")) ||
      (rc = DALLOC(c->kptr, sizeof(int) * (size_t)(c->nnz + 1), kptr, "matrix gather map")) ||
      (rc = DALLOC(c->kidx, sizeof(int) * (size_t)(kptr[c->nnz] + 1), kidx, "matrix gather map")))
    goto out;
out:
  free(fptr); free(fidx); free(kptr); free(kidx);
  return rc ? CRD_TRACE(rc) : 0;
}

static int upload_model(cu *c, const crd_problem *pb)
{
  const crd_model *m = pb->m;
  size_t nn = (size_t)pb->nn, ne = (size_t)pb->ne, neq = (size_t)pb->neq, nnz = (size_t)c->nnz;
  double *mat;
  CRD_CALL(CRD_CALLOC((size_t)CRD_Q4_MAT_STRIDE * ne, &mat));
  crd_backend_section_table(pb, mat);
  int rc = 0;
  if ((rc = DALLOC(c->quads, sizeof(int) * 4 * ne, m->quads, "quads")) ||
      (rc = DALLOC(c->x, sizeof(double) * 3 * nn, m->x, "x")) ||
      (rc = DALLOC(c->p0, sizeof(double) * 3 * nn, pb->p0, "p0")) ||
      (rc = DALLOC(c->mat, sizeof(double) * CRD_Q4_MAT_STRIDE * ne, mat, "materials")) ||
      (rc = DALLOC(c->elem_eq, sizeof(int) * 20 * ne, pb->elem_eq, "equation map")) ||
      (rc = DALLOC(c->scatter, sizeof(int) * 210 * ne, pb->scatter, "scatter map")))
    goto out;
  struct { void **m; size_t bytes; const char *what; } bufs[] = {
      {(void **)&c->d, 3 * nn * 8, "d"},      {(void **)&c->p, 3 * nn * 8, "p"},
      {(void **)&c->l, nn * sizeof(int), "l"}, {(void **)&c->fe, 20 * ne * 8, "fe"},
      {(void **)&c->ke, 210 * ne * 8, "ke"},  {(void **)&c->ue, ne * 8, "ue"},
      {(void **)&c->kind, ne * sizeof(int), "element status"}, {(void **)&c->first_bad, sizeof(int), "status"},
      {(void **)&c->F, neq * 8, "F"},         {(void **)&c->K, nnz * 8, "K"},
      {(void **)&c->part, (size_t)crd_cu_sum_parts() * 8, "sums"}, {(void **)&c->sums, 2 * 8, "sums"}};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs && !rc; ++i) rc = dalloc(bufs[i].m, bufs[i].bytes, NULL, bufs[i].what);
out:
  free(mat);
  return rc ? CRD_TRACE(rc) : 0;
}

/* The midpoint buffers, allocated on the first implicit evaluation (an
 * explicit or static run does not need them); E only with a tangent. */
static int alloc_mid(cu *c, int want_K)
{
  size_t nn = (size_t)c->nn, ne = (size_t)c->ne, neq = (size_t)c->neq;
  if (!c->d0) {
    int rc = 0;
    if ((rc = DALLOC(c->d0, 3 * nn * 8, NULL, "d0")) || (rc = DALLOC(c->pa, 3 * nn * 8, NULL, "pa")) ||
        (rc = DALLOC(c->df, 3 * nn * 8, NULL, "df")) || (rc = DALLOC(c->pf, 3 * nn * 8, NULL, "pf")) ||
        (rc = DALLOC(c->am, 5 * nn * 8, NULL, "am")) || (rc = DALLOC(c->wam, 3 * nn * 8, NULL, "wam")) ||
        (rc = DALLOC(c->Bs, 6 * nn * 8, NULL, "Bs")) || (rc = DALLOC(c->C, 16 * ne * 8, NULL, "C")) ||
        (rc = DALLOC(c->fin, 20 * ne * 8, NULL, "fin")) || (rc = DALLOC(c->Fin, neq * 8, NULL, "Fin")))
      return CRD_TRACE(rc);
  }
  if (want_K && !c->E) CRD_CALL(DALLOC(c->E, 400 * ne * 8, NULL, "E (400 doubles per element)"));
  return 0;
}

static void cu_free(cu *c)
{
  crd_cux_end(&c->ex);
  void *all[] = {c->quads, c->elem_eq, c->scatter, c->fptr, c->fidx, c->kptr, c->kidx, c->x, c->p0, c->mat,
                 c->C, c->l, c->d, c->p, c->d0, c->pa, c->df, c->pf, c->am, c->wam, c->Bs, c->fe, c->fin,
                 c->ke, c->E, c->ue, c->F, c->Fin, c->K, c->part, c->sums, c->kind, c->first_bad, c->geo};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
    if (all[i]) cudaFree(all[i]);
  for (int i = 0; i < 3; ++i)
    if (c->ev[i]) cudaEventDestroy(c->ev[i]);
  if (c->st) cudaStreamDestroy(c->st);
  free(c);
}

static void cu_destroy(crd_backend *be)
{
  cu_free(be->impl);
  free(be);
}

/* ---- evaluation ------------------------------------------------------- */

static int put(cu *c, void *dst, const void *src, size_t bytes, const char *what)
{
  CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->st), what);
  return 0;
}

static int get(cu *c, void *dst, const void *src, size_t bytes, const char *what)
{
  CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->st), what);
  return 0;
}

/* Assemble element values src (per element: nper) into dst (ndst) through
 * the map (atomic) or its inverse (deterministic). */
static int assemble(cu *c, int det, int nper, const int *map, const int *ptr, const int *idx, const double *src,
                    double *dst, int ndst)
{
  if (det) CUK(crd_cu_gather(c->st, ndst, ptr, idx, src, dst), "gather assembly");
  else CUK(crd_cu_scatter(c->st, (long long)nper * c->ne, map, src, dst, ndst), "atomic assembly");
  return 0;
}

static int start(crd_backend *be, cu *c, const crd_problem *pb)
{
  if (be->deterministic && !c->fptr) CRD_CALL(upload_gather_maps(c, pb));
  size_t nn = (size_t)c->nn;
  int ne = c->ne;
  CRD_CALL(put(c, c->d, pb->d, 3 * nn * 8, "write d"));
  CRD_CALL(put(c, c->p, pb->p, 3 * nn * 8, "write p"));
  CRD_CALL(put(c, c->l, pb->l, nn * sizeof(int), "write l"));
  CRD_CALL(put(c, c->first_bad, &ne, sizeof ne, "write status")); /* staged before the call returns */
  return 0;
}

/* Wait, add the device times of the element kernel and the assembly. */
static int finish(cu *c, double *elem_s, double *asm_s, int *first_bad)
{
  CU(cudaStreamSynchronize(c->st), "element evaluation");
  float t1 = 0.0f, t2 = 0.0f;
  CU(cudaEventElapsedTime(&t1, c->ev[0], c->ev[1]), "event timing");
  CU(cudaEventElapsedTime(&t2, c->ev[1], c->ev[2]), "event timing");
  *elem_s += 1e-3 * t1;
  *asm_s += 1e-3 * t2;
  CU(cudaMemcpy(first_bad, c->first_bad, sizeof *first_bad, cudaMemcpyDeviceToHost), "read status"); /* after the stream */
  return 0;
}

static int cu_eval_(crd_backend *be, crd_problem *pb, int want_K, double *F, double *U)
{
  cu *c = be->impl;
  size_t ne = (size_t)c->ne;
  int det = be->deterministic;
  CRD_CALL(start(be, c, pb));
  crd_cu_static_args a = {c->ne, want_K, c->quads, c->l, c->x, c->p0, c->d, c->p, c->mat,
                          c->fe, c->ke, c->ue, c->kind, c->first_bad, c->per_thread};
  CU(cudaEventRecord(c->ev[0], c->st), "event");
  CRD_RANGE_PUSH(want_K ? "element tangent (cuda)" : "element force (cuda)");
  CUK(crd_cu_static(c->st, &a), "element kernel");
  CU(cudaEventRecord(c->ev[1], c->st), "event");
  CRD_RANGE_POP();
  CRD_RANGE_PUSH("assembly (cuda)");
  CRD_CALL(assemble(c, det, 20, c->elem_eq, c->fptr, c->fidx, c->fe, c->F, c->neq));
  if (want_K) CRD_CALL(assemble(c, det, 210, c->scatter, c->kptr, c->kidx, c->ke, c->K, c->nnz));
  CUK(crd_cu_sum(c->st, (long long)ne, c->ue, NULL, 0, c->part, c->sums), "energy sum");
  CUK(crd_cu_sum(c->st, 20 * (long long)ne, c->fe, NULL, 1, c->part, c->sums + 1), "force norm");
  CU(cudaEventRecord(c->ev[2], c->st), "event");
  CRD_RANGE_POP();
  double sums[2];
  CRD_CALL(get(c, sums, c->sums, sizeof sums, "read sums"));
  CRD_CALL(get(c, F, c->F, (size_t)c->neq * 8, "read F"));
  CRD_CALL(get(c, pb->ue, c->ue, ne * 8, "read energies"));
  if (want_K) CRD_CALL(get(c, pb->K->val, c->K, (size_t)c->nnz * 8, "read K"));
  if (be->keep_elements) {
    CRD_CALL(get(c, pb->fe, c->fe, 20 * ne * 8, "read fe"));
    if (want_K) CRD_CALL(get(c, pb->ke, c->ke, 210 * ne * 8, "read ke"));
  }
  int bad;
  CRD_CALL(finish(c, want_K ? &pb->tm.elem_K_s : &pb->tm.elem_f_s, &pb->tm.assemble_s, &bad));
  if (want_K) pb->tm.nelem_K += c->ne;
  else pb->tm.nelem_f += c->ne;
  pb->tm.nassemble++;
  if (bad < c->ne) {
    int kind = 0;
    CU(cudaMemcpy(&kind, c->kind + bad, sizeof kind, cudaMemcpyDeviceToHost), "read element status");
    return crd_backend_elem_error(pb, bad, kind);
  }
  pb->fe_norm = sqrt(sums[1]);
  for (int i = 0; i < pb->neq; ++i)
    if (!isfinite(F[i])) return CRD_ERR(CRD_ERR_NUMERIC, "internal force not finite at equation %d", i);
  *U = sums[0];
  return 0;
}

static int cu_eval(crd_backend *be, crd_problem *pb, int want_K, double *F, double *U)
{
  CRD_RANGE_PUSH(want_K ? "eval tangent" : "eval force");
  int rc = cu_eval_(be, pb, want_K, F, U);
  CRD_RANGE_POP();
  return rc;
}

static int cu_eval_mid_(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  cu *c = be->impl;
  size_t nn = (size_t)c->nn, ne = (size_t)c->ne, d3 = 3 * nn * 8;
  int det = be->deterministic;
  CRD_CALL(alloc_mid(c, want_K));
  if (in->C != c->C_host) { /* constant over a run: uploaded once */
    CRD_CALL(put(c, c->C, in->C, 16 * ne * 8, "write C"));
    c->C_host = in->C;
  }
  CRD_CALL(start(be, c, pb));
  CRD_CALL(put(c, c->d0, in->d0, d3, "write d0"));
  CRD_CALL(put(c, c->pa, in->pa, d3, "write pa"));
  CRD_CALL(put(c, c->df, in->df, d3, "write df"));
  CRD_CALL(put(c, c->pf, in->pf, d3, "write pf"));
  CRD_CALL(put(c, c->am, in->am, 5 * nn * 8, "write am"));
  CRD_CALL(put(c, c->wam, in->wam, d3, "write wam"));
  CRD_CALL(put(c, c->Bs, in->Bs, 2 * d3, "write Bs"));
  crd_cu_mid_args a = {c->ne, want_K, c->quads, c->l, c->x, c->p0, c->d0, c->pa, c->d, c->p, c->df, c->pf,
                       c->am, c->wam, c->Bs, c->C, c->mat, in->cf, in->cm, in->xi, c->fe, c->fin, c->ke,
                       c->E ? c->E : c->ke, c->ue, c->kind, c->first_bad, c->per_thread};
  CU(cudaEventRecord(c->ev[0], c->st), "event");
  CRD_RANGE_PUSH("element implicit midpoint (cuda)");
  CUK(crd_cu_mid(c->st, &a), "midpoint element kernel");
  CU(cudaEventRecord(c->ev[1], c->st), "event");
  CRD_RANGE_POP();
  CRD_RANGE_PUSH("assembly (cuda)");
  CRD_CALL(assemble(c, det, 20, c->elem_eq, c->fptr, c->fidx, c->fe, c->F, c->neq));
  CRD_CALL(assemble(c, det, 20, c->elem_eq, c->fptr, c->fidx, c->fin, c->Fin, c->neq));
  if (want_K) CRD_CALL(assemble(c, det, 210, c->scatter, c->kptr, c->kidx, c->ke, c->K, c->nnz));
  CUK(crd_cu_sum(c->st, (long long)ne, c->ue, NULL, 0, c->part, c->sums), "energy sum");
  CUK(crd_cu_sum(c->st, 20 * (long long)ne, c->fe, c->fin, 1, c->part, c->sums + 1), "force norm");
  CU(cudaEventRecord(c->ev[2], c->st), "event");
  CRD_RANGE_POP();
  double sums[2];
  CRD_CALL(get(c, sums, c->sums, sizeof sums, "read sums"));
  CRD_CALL(get(c, out->Fi, c->F, (size_t)c->neq * 8, "read Fi"));
  CRD_CALL(get(c, out->Fin, c->Fin, (size_t)c->neq * 8, "read Fin"));
  CRD_CALL(get(c, pb->ue, c->ue, ne * 8, "read energies"));
  if (want_K) {
    CRD_CALL(get(c, pb->K->val, c->K, (size_t)c->nnz * 8, "read K"));
    CRD_CALL(get(c, out->E_e, c->E, 400 * ne * 8, "read E")); /* the host's Newton sweeps (implicit.c) */
  }
  if (be->keep_elements) {
    CRD_CALL(get(c, out->fg_e, c->fe, 20 * ne * 8, "read fg"));
    CRD_CALL(get(c, out->fin_e, c->fin, 20 * ne * 8, "read fin"));
    if (want_K) CRD_CALL(get(c, pb->ke, c->ke, 210 * ne * 8, "read ke"));
  }
  int bad;
  double elem_s = 0.0;
  CRD_CALL(finish(c, &elem_s, &pb->tm.assemble_s, &bad));
  crd_phase_mid_pass(&pb->tm, c->ne, want_K, elem_s);
  pb->tm.nassemble++;
  if (bad < c->ne) return crd_backend_mid_error(pb, bad);
  pb->fe_norm = sqrt(sums[1]);
  out->U = sums[0];
  return 0;
}

static int cu_eval_mid(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  CRD_RANGE_PUSH(want_K ? "eval midpoint tangent" : "eval midpoint");
  int rc = cu_eval_mid_(be, pb, in, want_K, out);
  CRD_RANGE_POP();
  return rc;
}

/* ---- the resident explicit loop (backend.h ex_*; backend_cuda_explicit.c) ---- */

/* The lean kernel's geometry cache (elem_force.h) of every element, on the
 * host (crd_ef_geo_build, an element per iteration), into g.  From the
 * initial positions and normals and the sections: constant over a run. */
static int geo_build(const crd_problem *pb, const double *x, const double *p0, double *g)
{
  double *mat;
  CRD_CALL(CRD_CALLOC((size_t)CRD_Q4_MAT_STRIDE * (size_t)pb->ne, &mat));
  crd_backend_section_table(pb, mat);
  const int *quads = pb->m->quads;
#pragma omp parallel for schedule(static)
  for (int e = 0; e < pb->ne; ++e)
    crd_ef_geo_build(1, quads + 4 * (size_t)e, x, p0, mat + CRD_Q4_MAT_STRIDE * (size_t)e,
                     g + CRD_EF_GEO * (size_t)e);
  free(mat);
  return 0;
}

/* The cache on the device: built and uploaded at the first explicit stage
 * and kept for the later ones (it depends on nothing a stage changes).
 * CRDYN_TEST_CUDA_GEO plants the faults tests/cli/cuda_emu.sh must see:
 * shift uploads the MITC4 tying rows one place off (each takes the next
 * field's value: a wrong shear strain, no failure code), stale builds the
 * cache from the stage's start state instead of the initial one (and again
 * at every stage). */
static int upload_geo(cu *c, const crd_problem *pb, const crd_ex_setup *su)
{
  const char *t = crd_switch("CRDYN_TEST_CUDA_GEO");
  int shift = t && !strcmp(t, "shift"), stale = t && !strcmp(t, "stale");
  if (c->geo && !stale) return 0;
  size_t nn = (size_t)pb->nn, n = CRD_EF_GEO * (size_t)pb->ne;
  double *g = NULL, *xs = NULL;
  int rc = CRD_CALLOC(n, &g);
  if (!rc && stale && !(rc = CRD_CALLOC(3 * nn, &xs)))
    for (size_t k = 0; k < 3 * nn; ++k) xs[k] = pb->m->x[k] + su->st.d[k];
  if (!rc) rc = geo_build(pb, stale ? xs : pb->m->x, stale ? su->st.p : pb->p0, g);
  for (size_t e = 0; !rc && shift && e < (size_t)pb->ne; ++e) {
    double *a = g + CRD_EF_GEO * e + CRD_EF_AXY;
    memmove(a, a + 1, 8 * sizeof(double));
  }
  if (!rc && !c->geo) rc = DALLOC(c->geo, n * sizeof(double), NULL, "geometry cache");
  if (!rc) {
    cudaError_t e = cudaMemcpy(c->geo, g, n * sizeof(double), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) rc = CRD_ERR(CRD_ERR_BACKEND, "cuda: geometry cache: %s", cudaGetErrorString(e));
  }
  free(g);
  free(xs);
  return rc ? CRD_TRACE(rc) : 0;
}

static int cu_ex_begin(crd_backend *be, crd_problem *pb, const crd_ex_setup *su)
{
  cu *c = be->impl;
  crd_cux_end(&c->ex);
  const char *sums = crd_switch("CRDYN_CUDA_EX_SUMS"); /* an experiment's switch, not a user option: docs/cuda.md */
  if (sums && strcmp(sums, "serial") && strcmp(sums, "tree"))
    return CRD_ERR(CRD_ERR_INPUT, "CRDYN_CUDA_EX_SUMS=%s: expected serial or tree", sums);
  int serial = sums ? !strcmp(sums, "serial") : be->deterministic;
  if (!c->fptr) CRD_CALL(upload_gather_maps(c, pb)); /* F_int by the gather in both modes (the CPU's order) */
  crd_cux_dev dv;
  memset(&dv, 0, sizeof dv);
  dv.st = c->st;
  dv.ne = c->ne; dv.nn = c->nn; dv.neq = c->neq; dv.per_thread = c->per_thread;
  dv.quads = c->quads; dv.fptr = c->fptr; dv.fidx = c->fidx;
  dv.x = c->x; dv.p0 = c->p0; dv.mat = c->mat;
  dv.d = c->d; dv.p = c->p; dv.fe = c->fe; dv.ke = c->ke; dv.ue = c->ue; dv.F = c->F;
  dv.l = c->l; dv.kind = c->kind; dv.first_bad = c->first_bad;
  CRD_RANGE_PUSH("explicit stage upload (cuda)");
  int rc = c->ex_lean ? upload_geo(c, pb, su) : 0;
  dv.geo = c->ex_lean ? c->geo : NULL;
  if (!rc) rc = crd_cux_begin(&c->ex, &dv, pb, su, serial);
  CRD_RANGE_POP();
  return rc;
}

static int cu_ex_steps(crd_backend *be, const crd_ex_steps_in *in) { return crd_cux_steps(((cu *)be->impl)->ex, in); }
static int cu_ex_measure(crd_backend *be, crd_ex_measure *out) { return crd_cux_measure(((cu *)be->impl)->ex, out); }
static int cu_ex_sync(crd_backend *be, crd_ex_state *st) { return crd_cux_sync(((cu *)be->impl)->ex, st); }
static void cu_ex_end(crd_backend *be) { crd_cux_end(&((cu *)be->impl)->ex); }

static const crd_backend_ex_ops cu_ex_ops = {.begin = cu_ex_begin,
                                             .steps = cu_ex_steps,
                                             .measure = cu_ex_measure,
                                             .sync = cu_ex_sync,
                                             .end = cu_ex_end};
/* the stable step's element bound: the host's, on the state the host holds
 * (an explicit stage starts from it) */
static const crd_backend_ops cu_ops = {.name = "cuda", .destroy = cu_destroy, .eval = cu_eval, .eval_mid = cu_eval_mid,
                                       .lambda_max = crd_backend_cpu_lambda_max, .ex = &cu_ex_ops};

/* The experiments' switches, not user options (docs/cuda.md): the element
 * layout, split (the default), thread (one thread per element) or thread0
 * (thread 0 of a block); the explicit loop's internal force by the lean
 * kernel (lean, the default) or by the element kernel of the layout (elem). */
static int read_switches(cu *c)
{
  const char *lay = crd_switch("CRDYN_CUDA_LAYOUT");
  c->per_thread = CRD_CU_LAYOUT_SPLIT;
  if (lay && *lay && strcmp(lay, "split")) {
    if (!strcmp(lay, "thread")) c->per_thread = CRD_CU_LAYOUT_THREAD;
    else if (!strcmp(lay, "thread0")) c->per_thread = CRD_CU_LAYOUT_THREAD0;
    else return CRD_ERR(CRD_ERR_INPUT, "CRDYN_CUDA_LAYOUT=%s: expected split, thread or thread0", lay);
  }
  const char *exf = crd_switch("CRDYN_CUDA_EX_FORCE");
  c->ex_lean = 1;
  if (exf && *exf && strcmp(exf, "lean")) {
    if (!strcmp(exf, "elem")) c->ex_lean = 0;
    else return CRD_ERR(CRD_ERR_INPUT, "CRDYN_CUDA_EX_FORCE=%s: expected lean or elem", exf);
  }
  return 0;
}

int crd_backend_cuda_create(crd_problem *pb, int device, crd_backend **out)
{
  *out = NULL;
  int pick = 0;
  char dname[256];
  CRD_CALL(crd_backend_cuda_pick(device, &pick, dname, sizeof dname));
  if (pb->K->nnz >= 2147483647LL || 210LL * pb->ne >= 2147483647LL)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "--backend cuda: the model is too large for 32-bit assembly indices "
                   "(%lld stored entries, %d elements)", (long long)pb->K->nnz, pb->ne);
  CU(cudaSetDevice(pick), "cudaSetDevice");
  cu *c;
  CRD_CALL(CRD_CALLOC(1, &c));
  c->ne = pb->ne;
  c->nn = pb->nn;
  c->neq = pb->neq;
  c->nnz = (int)pb->K->nnz;
  int rc = read_switches(c);
  if (rc) {
    free(c);
    return rc;
  }
  cudaError_t e = cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking);
  for (int i = 0; i < 3 && e == cudaSuccess; ++i) e = cudaEventCreate(&c->ev[i]);
  if (e != cudaSuccess) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "cuda: creating a stream on %s: %s", dname, cudaGetErrorString(e));
    goto fail;
  }
  if ((rc = upload_model(c, pb))) goto fail;
  crd_backend *be;
  if ((rc = CRD_CALLOC(1, &be))) goto fail;
  be->ops = &cu_ops;
  be->impl = c;
  snprintf(be->device_name, sizeof be->device_name, "%.150s%s%s", dname,
           c->per_thread == CRD_CU_LAYOUT_THREAD    ? ", one thread per element"
           : c->per_thread == CRD_CU_LAYOUT_THREAD0 ? ", thread 0 of a block per element"
                                                     : ", element split over a block",
           c->ex_lean ? ", explicit forces by the lean kernel" : "");
  *out = be;
  return 0;
fail:
  cu_free(c);
  return CRD_TRACE(rc);
}

/* auto picks CUDA first where a device answers */
const crd_backend_reg crd_backend_reg_cuda = {
    .name = "cuda",
    .auto_priority = 100,
    .create = crd_backend_cuda_create,
    .on_failure = "; run with --backend cpu (or --backend auto, which falls back to the CPU)"};

#endif /* CRD_HAVE_CUDA */
