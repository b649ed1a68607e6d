/* crdyn: the device sparse Cholesky "cusolver" (solver.h, docs/cuda.md):
 * cuSOLVER's low-level csrchol (cusolverSp_LOWLEVEL_PREVIEW.h) with the
 * host's METIS ordering.
 *
 * analyse (once per pattern): CHOLMOD orders the matrix with METIS on the
 * host (the ordering of the cholmod solver, and CHOLMOD's counts give
 * nnz(L) and the flops of one factorization); the permuted full matrix
 * B = P A P^T (both triangles: csrchol reads a general CSR) is built once
 * with, for every stored upper entry of A, its one or two positions in B;
 * csrcholAnalysis and the buffer sizes on the device.
 * factorize (per Newton iteration): the upper values are copied to the
 * device, scattered into B by a kernel, csrcholFactor; a pivot that is not
 * positive (csrcholZeroPivot, and the diagonal of L checked: a negative
 * pivot gives a NaN, not a zero) is CRD_WARN_NOT_POSDEF naming the
 * caller's equation, the path on which the integrators cut the step.
 * solve: b permuted on the device, csrcholSolve, x permuted back.
 * No LDL^T: when a matrix turns out indefinite the front end
 * (crd_solver_set_indefinite) goes on with CHOLMOD's LDL^T on the host.
 *
 * cusolverSp is deprecated in CUDA 13 in favour of cuDSS; the build defines
 * DISABLE_CUSOLVER_DEPRECATED.  Only with CRD_HAVE_CUDA. */
#ifdef CRD_HAVE_CUDA

#include <cholmod.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/cuda_kernels.h"
#include "crdyn/error.h"
#include "solver_priv.h"

/* cuSOLVER and cuSPARSE are loaded when the solver is created (dlopen),
 * not linked: libcusolver pulls in cuBLAS and cuBLASLt (~0.6 GB), whose
 * loading added ~0.3 s to every start of crdyn (and made timing-sensitive
 * tests miss their signals).  The calls below go through this table. */
#define CUS_FUNCS(X)                                                                                   \
  X(cusolverSpCreate) X(cusolverSpDestroy) X(cusolverSpSetStream) X(cusolverSpCreateCsrcholInfo)      \
  X(cusolverSpDestroyCsrcholInfo) X(cusolverSpXcsrcholAnalysis) X(cusolverSpDcsrcholBufferInfo)       \
  X(cusolverSpDcsrcholFactor) X(cusolverSpDcsrcholZeroPivot) X(cusolverSpDcsrcholSolve)               \
  X(cusolverSpDcsrcholDiag)
#define CUSP_FUNCS(X) X(cusparseCreateMatDescr) X(cusparseDestroyMatDescr) X(cusparseSetMatType) X(cusparseSetMatIndexBase)
#define CUS_PTR(f) __typeof__(&f) f;
static struct {
  int loaded;
  CUS_FUNCS(CUS_PTR)
  CUSP_FUNCS(CUS_PTR)
} cuf;

int crd_cusolver_load(void)
{
  if (cuf.loaded) return 0;
  const char *libs[2] = {"libcusolver.so.12", "libcusparse.so.12"};
  void *h[2];
  for (int i = 0; i < 2; ++i) {
    h[i] = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h[i])
      return CRD_ERR(CRD_ERR_BACKEND, "--solver cusolver: cannot load %s (%s); put the CUDA toolkit's lib64 on "
                     "LD_LIBRARY_PATH", libs[i], dlerror());
  }
  /* POSIX: a void * from dlsym converts to a function pointer (through memcpy, as ISO C asks) */
#define CUS_SYM(f, lib)                                                                                \
  {                                                                                                    \
    void *p_ = dlsym(h[lib], #f);                                                                      \
    if (!p_) return CRD_ERR(CRD_ERR_BACKEND, "--solver cusolver: %s has no %s", libs[lib], #f);       \
    memcpy(&cuf.f, &p_, sizeof p_);                                                                    \
  }
#define CUS_SYM0(f) CUS_SYM(f, 0)
#define CUS_SYM1(f) CUS_SYM(f, 1)
  CUS_FUNCS(CUS_SYM0)
  CUSP_FUNCS(CUS_SYM1)
  cuf.loaded = 1;
  return 0;
}
#define cusolverSpCreate cuf.cusolverSpCreate
#define cusolverSpDestroy cuf.cusolverSpDestroy
#define cusolverSpSetStream cuf.cusolverSpSetStream
#define cusolverSpCreateCsrcholInfo cuf.cusolverSpCreateCsrcholInfo
#define cusolverSpDestroyCsrcholInfo cuf.cusolverSpDestroyCsrcholInfo
#define cusolverSpXcsrcholAnalysis cuf.cusolverSpXcsrcholAnalysis
#define cusolverSpDcsrcholBufferInfo cuf.cusolverSpDcsrcholBufferInfo
#define cusolverSpDcsrcholFactor cuf.cusolverSpDcsrcholFactor
#define cusolverSpDcsrcholZeroPivot cuf.cusolverSpDcsrcholZeroPivot
#define cusolverSpDcsrcholSolve cuf.cusolverSpDcsrcholSolve
#define cusolverSpDcsrcholDiag cuf.cusolverSpDcsrcholDiag
#define cusparseCreateMatDescr cuf.cusparseCreateMatDescr
#define cusparseDestroyMatDescr cuf.cusparseDestroyMatDescr
#define cusparseSetMatType cuf.cusparseSetMatType
#define cusparseSetMatIndexBase cuf.cusparseSetMatIndexBase

typedef struct cus {
  cusolverSpHandle_t h;
  cusparseMatDescr_t descr;
  csrcholInfo_t info;
  cudaStream_t st;
  int n, nnzA, nnzB;
  int *perm;                    /* host: row i of B is row perm[i] of A */
  double *diag;                 /* host: n, the diagonal of L after a factorization */
  /* device */
  int *rowB, *colB, *pos1, *pos2, *dperm;
  double *valA, *valB, *b, *x;
  void *work;
} cus;

#define CUDA_OK(call, what)                                                                            \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess)                                                                             \
      return CRD_ERR(CRD_ERR_BACKEND, "cusolver: %s: %s", (what), cudaGetErrorString(e_));             \
  } while (0)
#define CUS_OK(call, what)                                                                             \
  do {                                                                                                 \
    cusolverStatus_t s_ = (call);                                                                      \
    if (s_ != CUSOLVER_STATUS_SUCCESS)                                                                 \
      return CRD_ERR(CRD_ERR_BACKEND, "cusolver: %s failed (cusolverStatus %d)", (what), (int)s_);     \
  } while (0)

static void cus_free_pattern(cus *s)
{
  void *dev[] = {s->rowB, s->colB, s->pos1, s->pos2, s->dperm, s->valA, s->valB, s->b, s->x, s->work};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i)
    if (dev[i]) cudaFree(dev[i]);
  s->rowB = s->colB = s->pos1 = s->pos2 = s->dperm = NULL;
  s->valA = s->valB = s->b = s->x = NULL;
  s->work = NULL;
  if (s->info) cusolverSpDestroyCsrcholInfo(s->info);
  s->info = NULL;
  free(s->perm);
  free(s->diag);
  s->perm = NULL;
  s->diag = NULL;
}

static void cus_destroy(void *impl)
{
  cus *s = impl;
  if (!s) return;
  cus_free_pattern(s);
  if (s->descr) cusparseDestroyMatDescr(s->descr);
  if (s->h) cusolverSpDestroy(s->h);
  if (s->st) cudaStreamDestroy(s->st);
  free(s);
}

static int cus_create(void **impl)
{
  int dev = 0;
  char name[256];
  /* the same device as the cuda backend (the first, or the current one) */
  if (crd_backend_cuda_pick(-1, &dev, name, sizeof name))
    return CRD_WRAP(CRD_ERR_BACKEND, "; use --solver cholmod", "--solver cusolver: ");
  CRD_CALL(crd_cusolver_load());
  cudaGetDevice(&dev);
  cus *s;
  CRD_CALL(CRD_CALLOC(1, &s));
  int rc = 0;
  if (cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking) != cudaSuccess ||
      cusolverSpCreate(&s->h) != CUSOLVER_STATUS_SUCCESS || cusolverSpSetStream(s->h, s->st) != CUSOLVER_STATUS_SUCCESS ||
      cusparseCreateMatDescr(&s->descr) != CUSPARSE_STATUS_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "cusolver: creating the cuSOLVER/cuSPARSE handles on %s failed", name);
    cus_destroy(s);
    return rc;
  }
  cusparseSetMatType(s->descr, CUSPARSE_MATRIX_TYPE_GENERAL);
  cusparseSetMatIndexBase(s->descr, CUSPARSE_INDEX_BASE_ZERO);
  *impl = s;
  return 0;
}

/* METIS ordering and the factor's counts from CHOLMOD's analysis (solver_priv.h). */
int crd_solver_host_order(const crd_csr *A, int *perm, crd_solver_stats *st)
{
  cholmod_common c;
  if (!cholmod_start(&c)) return CRD_ERR(CRD_ERR_BACKEND, "cusolver: cholmod_start failed (ordering)");
  c.print = 0;
  c.error_handler = NULL;
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_METIS;
  c.postorder = 1;
  c.supernodal = CHOLMOD_SIMPLICIAL;
  cholmod_sparse S;
  memset(&S, 0, sizeof S);
  S.nrow = S.ncol = (size_t)A->n;
  S.nzmax = (size_t)A->nnz;
  S.p = (void *)A->rowptr;
  S.i = (void *)A->col;
  S.x = (void *)A->val;
  S.stype = -1; /* the upper CSR read as CSC is the lower triangle */
  S.itype = CHOLMOD_INT;
  S.xtype = CHOLMOD_REAL;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = 1;
  S.packed = 1;
  cholmod_factor *L = cholmod_analyze(&S, &c);
  if (!L) {
    c.status = CHOLMOD_OK;
    c.method[0].ordering = CHOLMOD_AMD;
    L = cholmod_analyze(&S, &c);
  }
  if (!L) {
    int status = c.status;
    cholmod_finish(&c);
    return CRD_ERR(CRD_ERR_BACKEND, "cusolver: ordering a %d x %d matrix failed (CHOLMOD status %d)", (int)A->n,
                   (int)A->n, status);
  }
  memcpy(perm, L->Perm, sizeof(int) * (size_t)A->n);
  st->nnz_factor = c.lnz;
  st->flops_factor = c.fl;
  cholmod_free_factor(&L, &c);
  cholmod_finish(&c);
  return 0;
}

/* The entries of each row of B into cnt[row + 1] (an upper entry (r, c) of
 * A is (inv r, inv c) in B and, off the diagonal, its mirror), then the
 * prefix sum: cnt[i] is where row i starts. */
static void permuted_row_counts(const crd_csr *A, const int *inv, int *cnt)
{
  int n = A->n;
  for (int r = 0; r < n; ++r)
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      int c = A->col[k], pr = inv[r], pc = inv[c];
      cnt[pr + 1]++;
      if (c != r) cnt[pc + 1]++;
    }
  for (int i = 0; i < n; ++i) cnt[i + 1] += cnt[i];
}

/* The columns of B dealt into their rows (fill: each row's cursor, from its
 * start), unsorted. */
static void permuted_fill(const crd_csr *A, const int *inv, int *fill, int *colB)
{
  int n = A->n;
  for (int r = 0; r < n; ++r)
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      int c = A->col[k], pr = inv[r], pc = inv[c];
      colB[fill[pr]++] = pc;
      if (c != r) colB[fill[pc]++] = pr;
    }
}

/* The columns sorted within each row (csrchol takes a sorted CSR);
 * insertion sort: rows hold at most a few dozen entries. */
static void sort_rows(int n, const int *rowB, int *colB)
{
  for (int i = 0; i < n; ++i) {
    int a = rowB[i], b = rowB[i + 1];
    for (int j = a + 1; j < b; ++j)
      for (int q = j; q > a && colB[q - 1] > colB[q]; --q) {
        int t = colB[q];
        colB[q] = colB[q - 1];
        colB[q - 1] = t;
      }
  }
}

/* The position of (row, col) in B's sorted rows (binary search; present by
 * construction). */
static int row_find(const int *rowB, const int *colB, int row, int col)
{
  int lo = rowB[row], hi = rowB[row + 1] - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (colB[mid] < col) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The positions of A's entries in B: pos1 of (inv r, inv c), pos2 of its
 * mirror (-1 on the diagonal). */
static void entry_positions(const crd_csr *A, const int *inv, const int *rowB, const int *colB, int *pos1,
                            int *pos2)
{
  int n = A->n;
  for (int r = 0; r < n; ++r)
    for (int64_t k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      int c = A->col[k], pr = inv[r], pc = inv[c];
      pos1[k] = row_find(rowB, colB, pr, pc);
      pos2[k] = c == r ? -1 : row_find(rowB, colB, pc, pr);
    }
}

/* The pattern of B = P A P^T (full) and the positions of A's entries in it
 * (solver_priv.h). */
int crd_cusolver_permute_pattern(const crd_csr *A, const int *perm, int **rowB, int **colB, int **pos1, int **pos2)
{
  int n = A->n;
  int64_t nnzA = A->nnz;
  int *inv = NULL, *cnt = NULL, *fill = NULL;
  int rc = 0;
  int64_t nnzB = 2 * nnzA - n;
  if (nnzB >= 2147483647LL) return CRD_ERR(CRD_ERR_UNSUPPORTED, "cusolver: %lld entries do not fit 32-bit indices", (long long)nnzB);
  if ((rc = CRD_CALLOC(n, &inv)) || (rc = CRD_CALLOC(n + 1, rowB)) || (rc = CRD_CALLOC(nnzB, colB)) ||
      (rc = CRD_CALLOC(nnzA, pos1)) || (rc = CRD_CALLOC(nnzA, pos2)) || (rc = CRD_CALLOC(n + 1, &cnt)))
    goto out;
  for (int i = 0; i < n; ++i) inv[perm[i]] = i;
  permuted_row_counts(A, inv, cnt);
  memcpy(*rowB, cnt, sizeof(int) * (size_t)(n + 1));
  if ((rc = CRD_CALLOC(n + 1, &fill))) goto out;
  memcpy(fill, cnt, sizeof(int) * (size_t)n);
  permuted_fill(A, inv, fill, *colB);
  sort_rows(n, *rowB, *colB);
  entry_positions(A, inv, *rowB, *colB, *pos1, *pos2);
out:
  free(inv); free(cnt); free(fill);
  return rc ? CRD_TRACE(rc) : 0;
}

static int dput(void **d, const void *h, size_t bytes, const char *what)
{
  CUDA_OK(cudaMalloc(d, bytes ? bytes : 8), what);
  if (h && bytes) CUDA_OK(cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice), what);
  return 0;
}

static int cus_analyse(void *impl, const crd_csr *A, crd_solver_stats *st)
{
  cus *s = impl;
  cus_free_pattern(s);
  int n = A->n, *rowB = NULL, *colB = NULL, *pos1 = NULL, *pos2 = NULL, rc = 0;
  s->n = n;
  s->nnzA = (int)A->nnz;
  s->nnzB = (int)(2 * A->nnz - n);
  if ((rc = CRD_CALLOC(n, &s->perm)) || (rc = CRD_CALLOC(n, &s->diag)) || (rc = crd_solver_host_order(A, s->perm, st)) ||
      (rc = crd_cusolver_permute_pattern(A, s->perm, &rowB, &colB, &pos1, &pos2)))
    goto out;
  size_t nA = (size_t)s->nnzA, nB = (size_t)s->nnzB, nn = (size_t)n;
  if ((rc = dput((void **)&s->rowB, rowB, sizeof(int) * (nn + 1), "pattern")) ||
      (rc = dput((void **)&s->colB, colB, sizeof(int) * nB, "pattern")) ||
      (rc = dput((void **)&s->pos1, pos1, sizeof(int) * nA, "value map")) ||
      (rc = dput((void **)&s->pos2, pos2, sizeof(int) * nA, "value map")) ||
      (rc = dput((void **)&s->dperm, s->perm, sizeof(int) * nn, "ordering")) ||
      (rc = dput((void **)&s->valA, NULL, sizeof(double) * nA, "values")) ||
      (rc = dput((void **)&s->valB, NULL, sizeof(double) * nB, "values")) ||
      (rc = dput((void **)&s->b, NULL, sizeof(double) * nn, "rhs")) ||
      (rc = dput((void **)&s->x, NULL, sizeof(double) * nn, "solution")))
    goto out;
  if (cusolverSpCreateCsrcholInfo(&s->info) != CUSOLVER_STATUS_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "cusolver: cusolverSpCreateCsrcholInfo failed");
    goto out;
  }
  cusolverStatus_t cs = cusolverSpXcsrcholAnalysis(s->h, n, s->nnzB, s->descr, s->rowB, s->colB, s->info);
  if (cs != CUSOLVER_STATUS_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "cusolver: csrcholAnalysis of a %d x %d matrix (%d entries) failed (status %d)",
                 n, n, s->nnzB, (int)cs);
    goto out;
  }
  size_t internal = 0, work = 0;
  cs = cusolverSpDcsrcholBufferInfo(s->h, n, s->nnzB, s->descr, s->valB, s->rowB, s->colB, s->info, &internal,
                                    &work);
  if (cs != CUSOLVER_STATUS_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "cusolver: csrcholBufferInfo failed (status %d)", (int)cs);
    goto out;
  }
  rc = dput(&s->work, NULL, work, "csrchol workspace");
out:
  free(rowB); free(colB); free(pos1); free(pos2);
  return rc ? CRD_TRACE(rc) : 0;
}

static int cus_factorize(void *impl, const crd_csr *A, int32_t *failed_eq)
{
  cus *s = impl;
  CUDA_OK(cudaMemcpyAsync(s->valA, A->val, sizeof(double) * (size_t)s->nnzA, cudaMemcpyHostToDevice, s->st),
          "write matrix values");
  CUDA_OK((cudaError_t)crd_cu_permute(s->st, s->nnzA, s->pos1, s->pos2, s->valA, s->valB), "permute values");
  CUS_OK(cusolverSpDcsrcholFactor(s->h, s->n, s->nnzB, s->descr, s->valB, s->rowB, s->colB, s->info, s->work),
         "csrcholFactor");
  int pos = -1;
  CUS_OK(cusolverSpDcsrcholZeroPivot(s->h, s->info, 0.0, &pos), "csrcholZeroPivot");
  if (pos < 0) {
    CUS_OK(cusolverSpDcsrcholDiag(s->h, s->info, s->x), "csrcholDiag");
    CUDA_OK(cudaMemcpyAsync(s->diag, s->x, sizeof(double) * (size_t)s->n, cudaMemcpyDeviceToHost, s->st),
            "read the diagonal of L");
    CUDA_OK(cudaStreamSynchronize(s->st), "factorization");
    for (int i = 0; i < s->n && pos < 0; ++i)
      if (!(s->diag[i] > 0.0)) pos = i;
  }
  if (pos >= 0) {
    int eq = s->perm[pos];
    *failed_eq = eq;
    return CRD_ERR(CRD_WARN_NOT_POSDEF,
                   "matrix not positive definite: non-positive pivot at equation %d (0-based; pivot %d of %d in "
                   "the METIS ordering, cuSOLVER csrchol)", eq, pos + 1, s->n);
  }
  return 0;
}

static int cus_solve(void *impl, const double *b, double *x)
{
  cus *s = impl;
  size_t bytes = sizeof(double) * (size_t)s->n;
  CUDA_OK(cudaMemcpyAsync(s->x, b, bytes, cudaMemcpyHostToDevice, s->st), "write rhs");
  CUDA_OK((cudaError_t)crd_cu_perm_vec(s->st, s->n, s->dperm, 0, s->x, s->b), "permute rhs");
  CUS_OK(cusolverSpDcsrcholSolve(s->h, s->n, s->b, s->x, s->info, s->work), "csrcholSolve");
  CUDA_OK((cudaError_t)crd_cu_perm_vec(s->st, s->n, s->dperm, 1, s->x, s->b), "permute solution");
  CUDA_OK(cudaMemcpyAsync(x, s->b, bytes, cudaMemcpyDeviceToHost, s->st), "read solution");
  CUDA_OK(cudaStreamSynchronize(s->st), "solve");
  return 0;
}

const crd_solver_ops crd_cusolver_ops = {
  .name = "cusolver",
  .create = cus_create,
  .analyse = cus_analyse,
  .factorize = cus_factorize,
  .solve = cus_solve,
  .destroy = cus_destroy,
  .set_indefinite = NULL, /* LL^T only: the front end hands indefinite matrices to CHOLMOD */
  .neg_pivots = NULL,
};

#endif /* CRD_HAVE_CUDA */
