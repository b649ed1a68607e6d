/* crdyn: the device sparse Cholesky "cudss" (solver.h, docs/cuda.md):
 * NVIDIA cuDSS, built only when the Makefile finds it (CUDSS_DIR, with
 * CRD_HAVE_CUDSS) — the GPU machine of this project has no cuDSS and its
 * 167 MB library does not fit a carry, so this solver has not run there.
 *
 * The matrix is our CSR upper triangle as it is (CUDSS_MTYPE_SPD,
 * CUDSS_MVIEW_UPPER, zero-based, 32-bit indices).  analyse: ANALYSIS
 * (cuDSS's own METIS-based reordering and the symbolic factorization) once
 * per pattern; factorize: the values copied to the device, FACTORIZATION
 * the first time, REFACTORIZATION after that; a pivot that is not positive
 * (CUDSS_DATA_INFO > 0) is CRD_WARN_NOT_POSDEF, mapped back to the
 * caller's equation through CUDSS_DATA_PERM_REORDER_ROW where cuDSS gives
 * it.  nnz(L) is cuDSS's (CUDSS_DATA_LU_NNZ); the flop count is CHOLMOD's
 * for its METIS ordering (cuDSS reports none), labelled so in docs. */
#if defined(CRD_HAVE_CUDA) && defined(CRD_HAVE_CUDSS)

#include <cuda_runtime_api.h>
#include <cudss.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "solver_priv.h"

typedef struct cds {
  cudssHandle_t h;
  cudssConfig_t cfg;
  cudssData_t data;
  cudssMatrix_t A, X, B;
  cudaStream_t st;
  int n, nnz, factored;
  int *rowptr, *col;            /* device */
  double *val, *x, *b;          /* device */
} cds;

#define CDS_OK(call, what)                                                                             \
  do {                                                                                                 \
    cudssStatus_t s_ = (call);                                                                         \
    if (s_ != CUDSS_STATUS_SUCCESS)                                                                    \
      return CRD_ERR(CRD_ERR_BACKEND, "cudss: %s failed (cudssStatus %d)", (what), (int)s_);           \
  } while (0)
#define CUDA_OK(call, what)                                                                            \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) return CRD_ERR(CRD_ERR_BACKEND, "cudss: %s: %s", (what), cudaGetErrorString(e_)); \
  } while (0)

static void cds_free_pattern(cds *s)
{
  if (s->A) cudssMatrixDestroy(s->A);
  if (s->X) cudssMatrixDestroy(s->X);
  if (s->B) cudssMatrixDestroy(s->B);
  if (s->data) cudssDataDestroy(s->h, s->data);
  s->A = s->X = s->B = NULL;
  s->data = NULL;
  void *dev[] = {s->rowptr, s->col, s->val, s->x, s->b};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i)
    if (dev[i]) cudaFree(dev[i]);
  s->rowptr = s->col = NULL;
  s->val = s->x = s->b = NULL;
  s->factored = 0;
}

static void cds_destroy(void *impl)
{
  cds *s = impl;
  if (!s) return;
  cds_free_pattern(s);
  if (s->cfg) cudssConfigDestroy(s->cfg);
  if (s->h) cudssDestroy(s->h);
  if (s->st) cudaStreamDestroy(s->st);
  free(s);
}

static int cds_create(void **impl)
{
  int dev = 0;
  char name[256];
  if (crd_backend_cuda_pick(-1, &dev, name, sizeof name))
    return CRD_WRAP(CRD_ERR_BACKEND, "; use --solver cholmod", "--solver cudss: ");
  cds *s;
  CRD_CALL(CRD_CALLOC(1, &s));
  if (cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking) != cudaSuccess ||
      cudssCreate(&s->h) != CUDSS_STATUS_SUCCESS || cudssSetStream(s->h, s->st) != CUDSS_STATUS_SUCCESS ||
      cudssConfigCreate(&s->cfg) != CUDSS_STATUS_SUCCESS) {
    cds_destroy(s);
    return CRD_ERR(CRD_ERR_BACKEND, "cudss: creating the cuDSS handle on %s failed", name);
  }
  *impl = s;
  return 0;
}

static int cds_analyse(void *impl, const crd_csr *A, crd_solver_stats *st)
{
  cds *s = impl;
  cds_free_pattern(s);
  s->n = A->n;
  s->nnz = (int)A->nnz;
  size_t n = (size_t)A->n, nnz = (size_t)A->nnz;
  CUDA_OK(cudaMalloc((void **)&s->rowptr, sizeof(int) * (n + 1)), "pattern");
  CUDA_OK(cudaMalloc((void **)&s->col, sizeof(int) * (nnz ? nnz : 1)), "pattern");
  CUDA_OK(cudaMalloc((void **)&s->val, sizeof(double) * (nnz ? nnz : 1)), "values");
  CUDA_OK(cudaMalloc((void **)&s->x, sizeof(double) * (n ? n : 1)), "solution");
  CUDA_OK(cudaMalloc((void **)&s->b, sizeof(double) * (n ? n : 1)), "rhs");
  CUDA_OK(cudaMemcpy(s->rowptr, A->rowptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice), "pattern");
  CUDA_OK(cudaMemcpy(s->col, A->col, sizeof(int) * nnz, cudaMemcpyHostToDevice), "pattern");
  CUDA_OK(cudaMemcpy(s->val, A->val, sizeof(double) * nnz, cudaMemcpyHostToDevice), "values");
  CDS_OK(cudssDataCreate(s->h, &s->data), "cudssDataCreate");
  CDS_OK(cudssMatrixCreateCsr(&s->A, A->n, A->n, A->nnz, s->rowptr, NULL, s->col, s->val, CUDA_R_32I, CUDA_R_32I,
                              CUDA_R_64F, CUDSS_MTYPE_SPD, CUDSS_MVIEW_UPPER, CUDSS_BASE_ZERO),
         "cudssMatrixCreateCsr");
  CDS_OK(cudssMatrixCreateDn(&s->X, A->n, 1, A->n, s->x, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
  CDS_OK(cudssMatrixCreateDn(&s->B, A->n, 1, A->n, s->b, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
  CDS_OK(cudssExecute(s->h, CUDSS_PHASE_ANALYSIS, s->cfg, s->data, s->A, s->X, s->B), "analysis");
  CUDA_OK(cudaStreamSynchronize(s->st), "analysis");
  int64_t lnz = 0;
  size_t got = 0;
  if (cudssDataGet(s->h, s->data, CUDSS_DATA_LU_NNZ, &lnz, sizeof lnz, &got) == CUDSS_STATUS_SUCCESS)
    st->nnz_factor = (double)lnz;
  /* flops: CHOLMOD's count for its METIS ordering (cuDSS reports none) */
  int *perm = NULL;
  crd_solver_stats tmp;
  memset(&tmp, 0, sizeof tmp);
  if (CRD_CALLOC(n + 1, &perm) == 0 && crd_solver_host_order(A, perm, &tmp) == 0) {
    st->flops_factor = tmp.flops_factor;
    if (st->nnz_factor <= 0) st->nnz_factor = tmp.nnz_factor;
  }
  free(perm);
  return 0;
}

static int cds_factorize(void *impl, const crd_csr *A, int32_t *failed_eq)
{
  cds *s = impl;
  CUDA_OK(cudaMemcpyAsync(s->val, A->val, sizeof(double) * (size_t)s->nnz, cudaMemcpyHostToDevice, s->st),
          "write matrix values");
  CDS_OK(cudssMatrixSetValues(s->A, s->val), "cudssMatrixSetValues");
  int phase = s->factored ? CUDSS_PHASE_REFACTORIZATION : CUDSS_PHASE_FACTORIZATION;
  CDS_OK(cudssExecute(s->h, phase, s->cfg, s->data, s->A, s->X, s->B), "factorization");
  CUDA_OK(cudaStreamSynchronize(s->st), "factorization");
  int info = 0;
  size_t got = 0;
  CDS_OK(cudssDataGet(s->h, s->data, CUDSS_DATA_INFO, &info, sizeof info, &got), "CUDSS_DATA_INFO");
  if (info != 0) {
    int eq = -1;
    int *perm = malloc(sizeof(int) * (size_t)s->n);
    if (perm && info > 0 && info <= s->n &&
        cudssDataGet(s->h, s->data, CUDSS_DATA_PERM_REORDER_ROW, perm, sizeof(int) * (size_t)s->n, &got) ==
            CUDSS_STATUS_SUCCESS)
      eq = perm[info - 1];
    free(perm);
    *failed_eq = eq;
    s->factored = 0; /* the next attempt factorizes afresh */
    int zero = 0;
    cudssDataSet(s->h, s->data, CUDSS_DATA_INFO, &zero, sizeof zero);
    return CRD_ERR(CRD_WARN_NOT_POSDEF, "matrix not positive definite: non-positive pivot at equation %d (0-based; "
                   "cuDSS info %d)", eq, info);
  }
  s->factored = 1;
  return 0;
}

static int cds_solve(void *impl, const double *b, double *x)
{
  cds *s = impl;
  size_t bytes = sizeof(double) * (size_t)s->n;
  CUDA_OK(cudaMemcpyAsync(s->b, b, bytes, cudaMemcpyHostToDevice, s->st), "write rhs");
  CDS_OK(cudssExecute(s->h, CUDSS_PHASE_SOLVE, s->cfg, s->data, s->A, s->X, s->B), "solve");
  CUDA_OK(cudaMemcpyAsync(x, s->x, bytes, cudaMemcpyDeviceToHost, s->st), "read solution");
  CUDA_OK(cudaStreamSynchronize(s->st), "solve");
  return 0;
}

const crd_solver_ops crd_cudss_ops = {
  .name = "cudss",
  .create = cds_create,
  .analyse = cds_analyse,
  .factorize = cds_factorize,
  .solve = cds_solve,
  .destroy = cds_destroy,
  .set_indefinite = NULL, /* LL^T only: the front end hands indefinite matrices to CHOLMOD */
  .neg_pivots = NULL,
};

#endif /* CRD_HAVE_CUDA && CRD_HAVE_CUDSS */
