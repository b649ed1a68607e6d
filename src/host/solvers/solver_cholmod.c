/* crdyn: the sparse SPD solver interface (solver.h) and its CHOLMOD backend.
 *
 * A solver is an ops table plus the backend's private state (void *impl).
 * The front end (bottom of this file) picks the backend by name, checks the
 * call order (analyse -> factorize -> solve), keeps the pattern it analysed
 * and times every call, so backends only wrap their library.
 * Other backends define their table in their own file (solver_priv.h) and
 * are listed in solver_registry[] under their #ifdef: cusolver
 * (solver_cusolver.c, CRD_HAVE_CUDA), cudss (solver_cudss.c, CRD_HAVE_CUDSS). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>
#include <time.h>

#include <cholmod.h>


#include "crdyn/error.h"
#include "crdyn/solver.h"
#include "crdyn/trace.h"
#include "solver_priv.h"
#include "super_solve.h"

/* CHOLMOD 3 (SuiteSparse 5.x, Debian 12) runs loops of its supernodal
 * factorization under a fixed num_threads(CHOLMOD_OMP_NUM_THREADS = 4)
 * clause, whatever the caller's thread count: on few cores, beside
 * OpenBLAS's own threads, every supernode then oversubscribes the machine
 * (the measurements: profiling/README.md, "Small models and threads").
 * With max-active-levels 0 for the call no
 * region can be active: those loops run on the calling thread; the dense
 * kernels keep the BLAS's threads. */
#ifdef _OPENMP
#define CHOL_SERIAL(call)                                                            \
  do {                                                                               \
    int lv_ = omp_get_max_active_levels();                                           \
    omp_set_max_active_levels(0); /* no region may be active: CHOLMOD's run here */ \
    call;                                                                            \
    omp_set_max_active_levels(lv_);                                                  \
  } while (0)
#else
#define CHOL_SERIAL(call) do { call; } while (0)
#endif

/* crd_solver_ops: solver_priv.h */

void openblas_set_num_threads(int n); /* OpenBLAS's (the Makefile links -lopenblas) */

/* The BLAS's threads pay only on large supernodes: below
 * CRD_BLAS_THREAD_FLOPS per factorization a run is faster with one thread
 * (OpenBLAS's workers split the small supernodes' kernels and spin between
 * calls on the core the element loop wants; the measurements, plate by
 * plate: profiling/README.md, "Small models and threads").  The solver's
 * analyse sets the count for the process (OpenBLAS has one);
 * blas_threads_max is the run's --threads. */
#define CRD_BLAS_THREAD_FLOPS 1e9
static int blas_threads_max = 0;

void crd_solver_set_blas_threads(int n)
{
  if (n > 0) {
    blas_threads_max = n;
    openblas_set_num_threads(n);
  }
}

static int blas_threads_for(double flops)
{
  int n = blas_threads_max > 0 ? blas_threads_max : 1;
  return flops < CRD_BLAS_THREAD_FLOPS ? 1 : n;
}

/* ======================================================================== */
/* CHOLMOD backend                                                          */
/* ======================================================================== */

typedef struct chol_impl {
  cholmod_common c;
  int started;           /* cholmod_start done (cholmod_finish needed) */
  cholmod_factor *L;     /* symbolic after analyse, numeric after factorize */
  cholmod_dense *X, *Y, *E; /* cholmod_solve2 result and workspaces, reused */
  double *sw;               /* crd_super_solve's workspace (supernodal LL^T) */
  int indefinite;        /* simplicial LDL^T instead of supernodal LL^T */
  /* The matrix CHOLMOD factorizes, P A P' (chol_permute): its lower
   * triangle S, S->x[k] = A->val[map[k]], and P (row i of P A P' is row
   * perm[i] of A); bp: a right-hand side in that order. */
  cholmod_sparse *S;
  int *perm, *map;
  double *bp;
} chol_impl;

/* CHOLMOD reports through Common->error_handler, which has no user pointer;
 * the message is kept per thread (the thread that called CHOLMOD) and
 * quoted in our own error message. */
static _Thread_local char chol_msg[512];

static void chol_error_handler(int status, const char *file, int line, const char *message)
{
  const char *base = strrchr(file, '/');
  snprintf(chol_msg, sizeof chol_msg, "%s [CHOLMOD %s:%d, status %d]", message ? message : "",
           base ? base + 1 : file, line, status);
}

static const char *chol_status_name(int status)
{
  switch (status) {
    case CHOLMOD_OK: return "CHOLMOD_OK";
    case CHOLMOD_NOT_INSTALLED: return "CHOLMOD_NOT_INSTALLED";
    case CHOLMOD_OUT_OF_MEMORY: return "CHOLMOD_OUT_OF_MEMORY";
    case CHOLMOD_TOO_LARGE: return "CHOLMOD_TOO_LARGE";
    case CHOLMOD_INVALID: return "CHOLMOD_INVALID";
    case CHOLMOD_GPU_PROBLEM: return "CHOLMOD_GPU_PROBLEM";
    case CHOLMOD_NOT_POSDEF: return "CHOLMOD_NOT_POSDEF";
    case CHOLMOD_DSMALL: return "CHOLMOD_DSMALL";
    default: return "unknown CHOLMOD status";
  }
}

/* The CSR upper triangle, read as CSC, is the lower triangle (stype -1):
 * CHOLMOD uses our arrays in place.  It only reads them, hence the casts. */
static cholmod_sparse chol_wrap(const crd_csr *A)
{
  cholmod_sparse S;
  memset(&S, 0, sizeof S);
  S.nrow = S.ncol = (size_t)A->n;
  S.nzmax = (size_t)A->nnz;
  S.p = (void *)A->rowptr;
  S.i = (void *)A->col;
  S.x = (void *)A->val;
  S.stype = -1;
  S.itype = CHOLMOD_INT;
  S.xtype = CHOLMOD_REAL;
  S.dtype = CHOLMOD_DOUBLE;
  S.sorted = 1;
  S.packed = 1;
  return S;
}

static int chol_create(void **impl)
{
  chol_impl *s = NULL;
  CRD_CALL(CRD_CALLOC(1, &s));
  if (!cholmod_start(&s->c)) {
    free(s);
    return CRD_ERR(CRD_ERR_BACKEND, "cholmod_start failed");
  }
  s->started = 1;
  /* Library code does not print: CHOLMOD's messages go to our buffer. */
  s->c.print = 0;
  s->c.error_handler = chol_error_handler;
  s->c.supernodal = CHOLMOD_SUPERNODAL;
  /* A failed factorization is thrown away (the caller cuts the step), so
   * do not finish the remaining supernodes. */
  s->c.quick_return_if_not_posdef = 1;
  *impl = s;
  return 0;
}

static void chol_free_factor(chol_impl *s)
{
  cholmod_free_factor(&s->L, &s->c);
  cholmod_free_sparse(&s->S, &s->c);
  free(s->perm);
  free(s->map);
  free(s->bp);
  free(s->sw);
  s->perm = s->map = NULL;
  s->bp = s->sw = NULL;
  cholmod_free_dense(&s->X, &s->c);
  cholmod_free_dense(&s->Y, &s->c);
  cholmod_free_dense(&s->E, &s->c);
}

/* CHOLMOD permutes the matrix it is given at every factorization, for a
 * lower triangle with two transposes (cholmod_factorize.c: A2 = triu(PAP'),
 * S = A2'), 6 % of an implicit run on the 100x100 plate, and factorizes
 * in place only a lower triangle in natural order.  So the ordering found
 * (L, from METIS) is kept as perm, the pattern of tril(P A P') is built
 * once with map, the gather each factorization does instead of the
 * transposes, and S is analysed again in its natural order without
 * postordering (perm holds the postorder already): the same elimination
 * tree, supernodes and factor, so the same numbers (the same S, the same
 * symbolic L).  The solves permute b and x themselves. */

/* chol_permute's scratch: inv, the inverse of perm; the entries of
 * tril(P A P') bucketed by row (rowptr, rowcnt: the CSR of the rows), each
 * with its column (rowcol) and its entry of A (rowsrc). */
typedef struct {
  int *inv, *rowcnt, *rowptr, *rowcol;
  int64_t *rowsrc;
} perm_rows;

/* perm, the ordering CHOLMOD found (the identity without one), and its
 * inverse. */
static void perm_take(chol_impl *s, int n, int *inv)
{
  const int *P = s->L->Perm;
  for (int i = 0; i < n; ++i) {
    s->perm[i] = P ? P[i] : i;
    inv[s->perm[i]] = i;
  }
}

/* Entry (i, j), i >= j, of A (CSC lower: column j holds rows i) is entry
 * (max, min) of (inv i, inv j) in tril(P A P'): bucket by new row r, then
 * deal the rows out in increasing r (perm_lower), which sorts every
 * column. */
static void perm_bucket_rows(const crd_csr *A, perm_rows *w)
{
  const int n = (int)A->n;
  for (int j = 0; j < n; ++j)
    for (int64_t k = A->rowptr[j]; k < A->rowptr[j + 1]; ++k) {
      int a = w->inv[A->col[k]], b = w->inv[j];
      w->rowptr[(a > b ? a : b) + 1]++;
    }
  for (int r = 0; r < n; ++r) w->rowptr[r + 1] += w->rowptr[r];
  for (int j = 0; j < n; ++j)
    for (int64_t k = A->rowptr[j]; k < A->rowptr[j + 1]; ++k) {
      int a = w->inv[A->col[k]], b = w->inv[j], r = a > b ? a : b;
      int64_t q = w->rowptr[r] + w->rowcnt[r]++;
      w->rowcol[q] = a > b ? b : a;
      w->rowsrc[q] = k;
    }
}

/* S = tril(P A P') as CHOLMOD's CSC (pattern only) and map (S->x[k] =
 * A->val[map[k]]), dealt out from the rows in increasing order. */
static int perm_lower(chol_impl *s, int n, int64_t nnz, perm_rows *w)
{
  s->S = cholmod_allocate_sparse((size_t)n, (size_t)n, (size_t)nnz, 1, 1, -1, CHOLMOD_REAL, &s->c);
  if (!s->S)
    return CRD_ERR(CRD_ERR_MEM, "CHOLMOD could not hold the permuted %d x %d matrix (%lld entries): %s", n, n,
                   (long long)nnz, chol_status_name(s->c.status));
  int *Sp = s->S->p, *Si = s->S->i;
  for (int c = 0; c <= n; ++c) Sp[c] = 0;
  for (int64_t q = 0; q < nnz; ++q) Sp[w->rowcol[q] + 1]++;
  for (int c = 0; c < n; ++c) Sp[c + 1] += Sp[c];
  for (int c = 0; c < n; ++c) w->rowcnt[c] = Sp[c];
  for (int r = 0; r < n; ++r)
    for (int64_t q = w->rowptr[r]; q < w->rowptr[r + 1]; ++q) {
      int k = w->rowcnt[w->rowcol[q]]++;
      Si[k] = r;
      s->map[k] = (int)w->rowsrc[q];
    }
  return 0;
}

/* The factor of S analysed again in its natural order without postordering
 * (perm holds the postorder already). */
static int perm_analyse_natural(chol_impl *s, int n)
{
  cholmod_free_factor(&s->L, &s->c);
  s->c.nmethods = 1;
  s->c.method[0].ordering = CHOLMOD_NATURAL;
  s->c.postorder = 0;
  CHOL_SERIAL(s->L = cholmod_analyze(s->S, &s->c));
  if (!s->L || s->L->ordering != CHOLMOD_NATURAL)
    return CRD_ERR(CRD_ERR_BACKEND, "CHOLMOD analyse of the permuted %d x %d matrix failed: %s%s%s", n, n,
                   s->L ? "ordering not natural" : chol_status_name(s->c.status), chol_msg[0] ? ": " : "", chol_msg);
  return 0;
}

/* The ordering of the analyse kept as perm, tril(P A P') built once as S
 * with map, and S analysed in its natural order (see above). */
static int chol_permute(chol_impl *s, const crd_csr *A)
{
  const int n = (int)A->n;
  const int64_t nnz = A->nnz;
  perm_rows w = {NULL, NULL, NULL, NULL, NULL};
  int rc = 0;
  if (CRD_CALLOC(n, &s->perm) || CRD_CALLOC(nnz, &s->map) || CRD_CALLOC(n, &s->bp) || CRD_CALLOC(n, &w.inv) ||
      CRD_CALLOC(n + 1, &w.rowptr) || CRD_CALLOC(n + 1, &w.rowcnt) || CRD_CALLOC(nnz, &w.rowcol) ||
      CRD_CALLOC(nnz, &w.rowsrc)) {
    rc = CRD_TRACE(CRD_ERR_MEM);
    goto out;
  }
  perm_take(s, n, w.inv);
  perm_bucket_rows(A, &w);
  if ((rc = perm_lower(s, n, nnz, &w))) goto out;
  rc = perm_analyse_natural(s, n);
out:
  free(w.inv);
  free(w.rowcnt);
  free(w.rowptr);
  free(w.rowcol);
  free(w.rowsrc);
  return rc;
}

static int chol_analyse(void *impl, const crd_csr *A, crd_solver_stats *st)
{
  chol_impl *s = impl;
  cholmod_sparse S = chol_wrap(A);
  chol_free_factor(s);

  /* METIS alone: on shell matrices it matches AMD (docs/performance.md,
   * "The development machine"), and trying both would double the analyse time.  AMD is the fallback
   * when METIS is not compiled in or fails (not for lack of memory: AMD
   * would not help there). */
  chol_msg[0] = 0;
  s->c.nmethods = 1;
  s->c.method[0].ordering = CHOLMOD_METIS;
  s->c.postorder = 1;
  /* CHOLMOD's default relaxed amalgamation (nrelax 4, 16, 48) is kept:
   * (32, 128, 256) stores half as much L again (1.4e7 values instead of
   * 9.3e6 on the 100x100 plate) and, with CHOL_SERIAL, factorizes no
   * faster (alternating runs; an earlier A/B that favoured it was made in
   * the oversubscribed default environment). */
  CHOL_SERIAL(s->L = cholmod_analyze(&S, &s->c));
  if (!s->L && s->c.status != CHOLMOD_OUT_OF_MEMORY) {
    chol_msg[0] = 0;
    s->c.status = CHOLMOD_OK;
    s->c.method[0].ordering = CHOLMOD_AMD;
    CHOL_SERIAL(s->L = cholmod_analyze(&S, &s->c));
  }
  if (!s->L)
    return CRD_ERR(CRD_ERR_BACKEND, "CHOLMOD analyse of a %d x %d matrix (%lld stored entries) failed: %s%s%s",
                   (int)A->n, (int)A->n, (long long)A->nnz, chol_status_name(s->c.status),
                   chol_msg[0] ? ": " : "", chol_msg);
  CRD_CALL(chol_permute(s, A));
  if (blas_threads_max > 0) {
    st->blas_threads = blas_threads_for(s->c.fl);
    openblas_set_num_threads(st->blas_threads);
  }
  st->nnz_factor = s->c.lnz;
  st->nnz_stored = s->L->is_super ? (double)s->L->xsize : s->c.lnz;
  st->flops_factor = s->c.fl;
  return 0;
}


static int chol_factorize(void *impl, const crd_csr *A, int32_t *failed_eq)
{
  chol_impl *s = impl;
  double *Sx = s->S->x;
  const int64_t nnz = A->nnz;
  for (int64_t k = 0; k < nnz; ++k) Sx[k] = A->val[s->map[k]];
  chol_msg[0] = 0;
  s->c.status = CHOLMOD_OK;
  int ok;
  CHOL_SERIAL(ok = cholmod_factorize(s->S, s->L, &s->c));
  if (ok && (s->c.status == CHOLMOD_NOT_POSDEF || s->L->minor < s->L->n)) {
    /* L->minor counts in P A P'; perm maps it back to the caller's
     * equation. */
    size_t k = s->L->minor;
    int eq = k < s->L->n ? s->perm[k] : (int)k;
    *failed_eq = eq;
    return CRD_ERR(CRD_WARN_NOT_POSDEF,
                   "matrix not positive definite: non-positive pivot at equation %d (0-based; "
                   "pivot %zu of %zu in CHOLMOD's ordering)",
                   eq, k + 1, s->L->n);
  }
  if (!ok || s->c.status < 0)
    return CRD_ERR(CRD_ERR_BACKEND, "CHOLMOD factorization of a %d x %d matrix failed: %s%s%s",
                   (int)A->n, (int)A->n, chol_status_name(s->c.status), chol_msg[0] ? ": " : "",
                   chol_msg);
  return 0;
}

/* The supernodal LL^T factor as crd_super_solve reads it; 0 where L is
 * another kind (simplicial LDL^T in indefinite mode): cholmod_solve2. */
static int chol_super(const cholmod_factor *L, crd_super_factor *F)
{
  if (!L->is_super || !L->is_ll || L->xtype != CHOLMOD_REAL || L->dtype != CHOLMOD_DOUBLE ||
      L->itype != CHOLMOD_INT || !L->x)
    return 0;
  *F = (crd_super_factor){(int)L->nsuper, L->super, L->pi, L->px, L->s, L->x};
  return 1;
}

static int chol_solve(void *impl, const double *b, double *x)
{
  chol_impl *s = impl;
  const size_t n = s->L->n;
  for (size_t i = 0; i < n; ++i) s->bp[i] = b[s->perm[i]]; /* P b (chol_permute) */
  crd_super_factor F;
  if (chol_super(s->L, &F)) {
    if (!s->sw && !(s->sw = malloc(sizeof(double) * (size_t)(crd_super_max_rows(&F) + 1))))
      return CRD_ERR(CRD_ERR_MEM, "supernodal solve workspace (n = %zu)", n);
    crd_super_solve(&F, s->bp, s->sw);
    /* x = P' bp; b was read into bp first, so x may alias b */
    for (size_t i = 0; i < n; ++i) x[s->perm[i]] = s->bp[i];
    return 0;
  }
  /* b wrapped in place; X, Y, E are allocated on the first solve and reused
   * by cholmod_solve2 afterwards (no allocation per solve). */
  cholmod_dense B;
  memset(&B, 0, sizeof B);
  B.nrow = n;
  B.ncol = 1;
  B.nzmax = n;
  B.d = n;
  B.x = s->bp;
  B.xtype = CHOLMOD_REAL;
  B.dtype = CHOLMOD_DOUBLE;
  chol_msg[0] = 0;
  int ok;
  CHOL_SERIAL(ok = cholmod_solve2(CHOLMOD_A, s->L, &B, NULL, &s->X, NULL, &s->Y, &s->E, &s->c));
  if (!ok)
    return CRD_ERR(CRD_ERR_BACKEND, "CHOLMOD solve (n = %zu) failed: %s%s%s", n,
                   chol_status_name(s->c.status), chol_msg[0] ? ": " : "", chol_msg);
  const double *X = s->X->x;
  for (size_t i = 0; i < n; ++i) x[s->perm[i]] = X[i];
  return 0;
}

static void chol_destroy(void *impl)
{
  chol_impl *s = impl;
  if (!s) return;
  if (s->started) {
    chol_free_factor(s);
    cholmod_finish(&s->c);
  }
  free(s);
}

/* Indefinite tangents (past a limit point, or under the non-conservative
 * part of a load) need LDL^T: CHOLMOD's simplicial LDL^T accepts negative
 * pivots (no pivoting: a zero pivot still fails).  Supernodal CHOLMOD is
 * LL^T only, so this mode is slower and used only when needed. */
static int chol_set_indefinite(void *impl, int on)
{
  chol_impl *s = impl;
  s->indefinite = on;
  s->c.supernodal = on ? CHOLMOD_SIMPLICIAL : CHOLMOD_SUPERNODAL;
  s->c.final_ll = on ? 0 : 1;
  s->c.quick_return_if_not_posdef = on ? 0 : 1;
  return 0;
}

static int chol_neg_pivots(void *impl)
{
  chol_impl *s = impl;
  if (!s->L || s->L->is_ll || s->L->is_super || s->L->xtype == CHOLMOD_PATTERN) return -1;
  const int *Lp = s->L->p;
  const double *Lx = s->L->x;
  int neg = 0;
  for (size_t j = 0; j < s->L->n; ++j) neg += Lx[Lp[j]] < 0.0; /* D(j) is the first entry of column j */
  return neg;
}

static const crd_solver_ops chol_ops = {
  .set_indefinite = chol_set_indefinite,
  .neg_pivots = chol_neg_pivots,
  .name = "cholmod",
  .create = chol_create,
  .analyse = chol_analyse,
  .factorize = chol_factorize,
  .solve = chol_solve,
  .destroy = chol_destroy,
};

/* ======================================================================== */
/* Front end                                                                */
/* ======================================================================== */

/* The first entry is the default ("auto" or NULL). */
static const crd_solver_ops *const solver_registry[] = {
  &chol_ops,
#ifdef CRD_HAVE_CUDA
  &crd_cusolver_ops,
#endif
#if defined(CRD_HAVE_CUDA) && defined(CRD_HAVE_CUDSS)
  &crd_cudss_ops,
#endif
#ifdef CRD_HAVE_PETSC
  &crd_mumps_ops,
#endif
};
#define NREGISTRY ((int)(sizeof solver_registry / sizeof solver_registry[0]))

struct crd_solver {
  const crd_solver_ops *ops;
  void *impl;
  crd_solver_stats stats;
  int32_t n;        /* pattern given to analyse (checked by factorize) */
  int64_t nnz;
  int analysed;
  int factorized;   /* the last factorization succeeded */
  int refactoring;  /* a factorization of the analysed pattern has run */
  int32_t failed_eq; /* equation of the bad pivot of the last attempt, or -1 */
  int switched;     /* a device solver handed over to CHOLMOD's LDL^T (indefinite) */
};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int crd_solver_create(const char *name, crd_solver **out)
{
  CRD_CHECK(out, CRD_ERR_INPUT, "crd_solver_create: NULL output pointer");
  *out = NULL;
  const crd_solver_ops *ops = NULL;
  if (!name || !strcmp(name, "auto")) {
    ops = solver_registry[0];
  } else {
    for (int k = 0; k < NREGISTRY; ++k)
      if (!strcmp(name, solver_registry[k]->name)) ops = solver_registry[k];
  }
  if (!ops) {
    char known[256] = "";
    size_t len = 0;
    for (int k = 0; k < NREGISTRY && len < sizeof known; ++k)
      len += (size_t)snprintf(known + len, sizeof known - len, "%s, ", solver_registry[k]->name);
    return CRD_ERR(CRD_ERR_INPUT, "unknown linear solver '%s' (known: %sauto)", name, known);
  }
  crd_solver *s = NULL;
  CRD_CALL(CRD_CALLOC(1, &s));
  s->ops = ops;
  s->failed_eq = -1;
  int rc = ops->create(&s->impl);
  if (rc) {
    free(s);
    return CRD_TRACE(rc);
  }
  *out = s;
  return 0;
}

int crd_solver_analyse(crd_solver *s, const crd_csr *A)
{
  CRD_CHECK(s && A, CRD_ERR_INPUT, "crd_solver_analyse: NULL argument");
  CRD_CHECK(A->n >= 0 && A->rowptr && A->col && A->val, CRD_ERR_INPUT,
            "crd_solver_analyse: matrix without arrays (n = %d)", (int)A->n);
  s->analysed = s->factorized = s->refactoring = 0;
  double t0 = now_s();
  CRD_RANGE_PUSH("solver analyse");
  int rc = s->ops->analyse(s->impl, A, &s->stats);
  CRD_RANGE_POP();
  CRD_CALL(rc);
  s->stats.analyse_s += now_s() - t0;
  s->stats.nanalyse++;
  s->n = A->n;
  s->nnz = A->nnz;
  s->analysed = 1;
  return 0;
}

int crd_solver_factorize(crd_solver *s, const crd_csr *A)
{
  CRD_CHECK(s && A, CRD_ERR_INPUT, "crd_solver_factorize: NULL argument");
  CRD_CHECK(s->analysed, CRD_ERR_INPUT, "%s: factorize called before analyse", s->ops->name);
  CRD_CHECK(A->n == s->n && A->nnz == s->nnz, CRD_ERR_INPUT,
            "%s: matrix (n = %d, nnz = %lld) is not the pattern analysed (n = %d, nnz = %lld); "
            "analyse it first", s->ops->name, (int)A->n, (long long)A->nnz, (int)s->n,
            (long long)s->nnz);
  s->factorized = 0;
  s->failed_eq = -1;
  double t0 = now_s();
  CRD_RANGE_PUSH("factorization");
  int rc = s->ops->factorize(s->impl, A, &s->failed_eq);
  CRD_RANGE_POP();
  double dt = now_s() - t0;
  s->stats.factor_s += dt;
  s->stats.nfactor++;
  /* the first factorization of an analysed pattern pays for allocating L
   * (page faults: docs/performance.md); refactorizations are timed apart */
  if (!s->refactoring) {
    s->stats.factor_first_s = dt;
    s->refactoring = 1;
  } else {
    s->stats.refactor_s += dt;
    if (s->stats.nrefactor == 0 || dt < s->stats.refactor_min_s) s->stats.refactor_min_s = dt;
    s->stats.nrefactor++;
  }
  if (rc) return CRD_TRACE(rc); /* warning or error */
  s->factorized = 1;
  return 0;
}

int crd_solver_solve(crd_solver *s, const double *b, double *x)
{
  CRD_CHECK(s && b && x, CRD_ERR_INPUT, "crd_solver_solve: NULL argument");
  CRD_CHECK(s->factorized, CRD_ERR_INPUT,
            "%s: solve called without a successful factorization", s->ops->name);
  double t0 = now_s();
  CRD_RANGE_PUSH("solve");
  int rc = s->ops->solve(s->impl, b, x);
  CRD_RANGE_POP();
  CRD_CALL(rc);
  s->stats.solve_s += now_s() - t0;
  s->stats.nsolve++;
  return 0;
}

int crd_solver_neg_pivots(const crd_solver *s)
{
  if (!s || !s->factorized || !s->ops->neg_pivots) return -1;
  return s->ops->neg_pivots(s->impl);
}

int crd_solver_set_indefinite(crd_solver *s, int on)
{
  CRD_CHECK(s, CRD_ERR_INPUT, "crd_solver_set_indefinite: NULL solver");
  if (on && !s->ops->set_indefinite && s->ops != &chol_ops) {
    /* the device solvers are LL^T only: an indefinite matrix goes on with
     * CHOLMOD's LDL^T on the host, as the cholmod solver would (the
     * integrators then cut steps in the same way); the name says so */
    void *impl = NULL;
    CRD_CALL(chol_ops.create(&impl));
    s->ops->destroy(s->impl);
    s->impl = impl;
    s->ops = &chol_ops;
    s->switched = 1;
  }
  CRD_CHECK(s->ops->set_indefinite, CRD_ERR_UNSUPPORTED, "solver '%s' has no indefinite mode", s->ops->name);
  CRD_CALL(s->ops->set_indefinite(s->impl, on));
  s->analysed = s->factorized = 0; /* a new symbolic factorization is needed */
  return 0;
}

int crd_solver_failed_equation(const crd_solver *s) { return s ? s->failed_eq : -1; }

const crd_solver_stats *crd_solver_get_stats(const crd_solver *s) { return s ? &s->stats : NULL; }

const char *crd_solver_name(const crd_solver *s)
{
  return !s ? "(none)" : s->switched ? "cholmod (LDL^T, after a device solver met an indefinite matrix)" : s->ops->name;
}

void crd_solver_destroy(crd_solver **s)
{
  if (!s || !*s) return;
  (*s)->ops->destroy((*s)->impl);
  free(*s);
  *s = NULL;
}
