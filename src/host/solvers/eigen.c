/* crdyn: K x = lambda M x by ARPACK's implicitly restarted Lanczos in
 * shift-invert mode (eigen.h).
 *
 * Mode 3 of dsaupd (bmat 'G', which 'LM'): OP = (K - sigma M)^-1 M is
 * self-adjoint in the M inner product and its eigenvalues
 * nu = 1 / (lambda - sigma) are largest for the lambda nearest sigma, which
 * Lanczos finds first and fast.  K - sigma M is factorized once by
 * crd_solver; every Lanczos step then costs one solve and one M product.
 * dseupd maps the Ritz values back to lambda = sigma + 1/nu itself (mode 3
 * with sigma passed), so no transformation is done here. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpack/arpackdef.h> /* a_int: ARPACK's INTEGER (and LOGICAL) width */

#include "crdyn/eigen.h"
#include "crdyn/error.h"
#include "crdyn/solver.h"

/* Restarts (iparam(3)) before giving up: shift-invert near the wanted end
 * converges in tens; hundreds mean a poor sigma or clustered eigenvalues.
 * Overridable at build time to exercise the give-up path. */
#ifndef CRD_EIGEN_MAX_RESTARTS
#define CRD_EIGEN_MAX_RESTARTS 1000
#endif

/* ARPACK's Fortran 77 entry points: every argument by reference, LOGICAL as
 * a default INTEGER, and (gfortran >= 8) one hidden size_t length per
 * CHARACTER argument, appended in order.  The ISO C wrappers (dsaupd_c in
 * arpack.h) would hide this, but are missing from older ARPACK builds. */
void dsaupd_(a_int *ido, const char *bmat, const a_int *n, const char *which, const a_int *nev,
             const double *tol, double *resid, const a_int *ncv, double *v, const a_int *ldv,
             a_int *iparam, a_int *ipntr, double *workd, double *workl, const a_int *lworkl,
             a_int *info, size_t bmat_len, size_t which_len);
void dseupd_(const a_int *rvec, const char *howmny, a_int *select, double *d, double *z,
             const a_int *ldz, const double *sigma, const char *bmat, const a_int *n,
             const char *which, const a_int *nev, const double *tol, double *resid,
             const a_int *ncv, double *v, const a_int *ldv, a_int *iparam, a_int *ipntr,
             double *workd, double *workl, const a_int *lworkl, a_int *info, size_t howmny_len,
             size_t bmat_len, size_t which_len);

/* ARPACK keeps its iteration state in SAVE variables between reverse-
 * communication calls: two problems solved at once (OpenMP threads) would
 * corrupt each other. */
static pthread_mutex_t arpack_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *dsaupd_info_text(int info)
{
  switch (info) {
    case 1: return "the restart cap was reached before all wanted eigenvalues converged";
    case 2:
    case 3: return "no shifts could be applied during a restart cycle (ncv too small relative to nev)";
    case -1: return "n must be positive";
    case -2: return "nev must be positive";
    case -3: return "ncv must satisfy nev < ncv <= n";
    case -4: return "the maximum number of restarts must be positive";
    case -5: return "'which' must be one of LM, SM, LA, SA, BE";
    case -6: return "'bmat' must be I or G";
    case -7: return "the private work array workl is too short";
    case -8: return "the LAPACK tridiagonal eigenvalue routine (dsteqr) failed";
    case -9: return "the starting vector is zero";
    case -10: return "iparam(7) (mode) must be 1..5";
    case -11: return "mode 1 and bmat = G are incompatible";
    case -12: return "iparam(1) (shift strategy) must be 0 or 1";
    case -13: return "nev = 1 and which = BE are incompatible";
    case -9999: return "could not build a Lanczos factorization (the Krylov space of the "
                       "starting vector is smaller than ncv)";
    default: return "unknown ARPACK dsaupd info code";
  }
}

static const char *dseupd_info_text(int info)
{
  switch (info) {
    case -1: return "n must be positive";
    case -2: return "nev must be positive";
    case -3: return "ncv must satisfy nev < ncv <= n";
    case -5: return "'which' must be one of LM, SM, LA, SA, BE";
    case -6: return "'bmat' must be I or G";
    case -7: return "the private work array workl is too short";
    case -8: return "the LAPACK tridiagonal eigenvalue routine (dsteqr) failed";
    case -9: return "the starting vector is zero";
    case -10: return "iparam(7) (mode) must be 1..5";
    case -11: return "mode 1 and bmat = G are incompatible";
    case -12: return "nev = 1 and which = BE are incompatible";
    case -14: return "dsaupd found no eigenvalue to sufficient accuracy";
    case -15: return "howmny must be A or S when eigenvectors are wanted";
    case -16: return "howmny = S is not implemented";
    case -17: return "dseupd counted a different number of converged Ritz values than dsaupd "
                     "(ARPACK's state changed between the calls)";
    default: return "unknown ARPACK dseupd info code";
  }
}

/* The shifted matrix reuses K's index arrays, so M must have the same
 * ones; comparing contents (not pointers) accepts separately built copies. */
static int check_pattern(const crd_csr *K, const crd_csr *M)
{
  CRD_CHECK(K->rowptr && K->col && K->val && M->rowptr && M->col && M->val, CRD_ERR_INPUT,
            "crd_eigen_shift_invert: K or M without arrays");
  CRD_CHECK(K->n == M->n && K->nnz == M->nnz, CRD_ERR_INPUT,
            "crd_eigen_shift_invert: K (n = %d, nnz = %lld) and M (n = %d, nnz = %lld) must "
            "share one pattern", (int)K->n, (long long)K->nnz, (int)M->n, (long long)M->nnz);
  if (K->rowptr != M->rowptr)
    for (int32_t r = 0; r <= K->n; ++r)
      CRD_CHECK(K->rowptr[r] == M->rowptr[r], CRD_ERR_INPUT,
                "crd_eigen_shift_invert: K and M patterns differ (rowptr[%d] = %d in K, %d in M); "
                "store M on K's pattern", (int)r, (int)K->rowptr[r], (int)M->rowptr[r]);
  CRD_CHECK(K->rowptr[K->n] == K->nnz, CRD_ERR_INPUT,
            "crd_eigen_shift_invert: rowptr[n] = %d but nnz = %lld", (int)K->rowptr[K->n],
            (long long)K->nnz);
  if (K->col != M->col)
    for (int64_t k = 0; k < K->nnz; ++k)
      CRD_CHECK(K->col[k] == M->col[k], CRD_ERR_INPUT,
                "crd_eigen_shift_invert: K and M patterns differ (entry %lld: column %d in K, %d in "
                "M); store M on K's pattern", (long long)k, (int)K->col[k], (int)M->col[k]);
  return 0;
}

/* Order the pairs by eigenvalue (dseupd documents ascending order; this
 * keeps the promise if it ever does not).  nev is small: insertion sort. */
static void sort_pairs(int n, int m, double *lambda, double *vecs, double *tmp)
{
  for (int j = 1; j < m; ++j) {
    int i = j;
    while (i > 0 && lambda[i - 1] > lambda[j]) --i;
    if (i == j) continue;
    double lj = lambda[j];
    memcpy(tmp, vecs + (size_t)j * n, (size_t)n * sizeof *tmp);
    memmove(lambda + i + 1, lambda + i, (size_t)(j - i) * sizeof *lambda);
    memmove(vecs + (size_t)(i + 1) * n, vecs + (size_t)i * n, (size_t)(j - i) * n * sizeof *vecs);
    lambda[i] = lj;
    memcpy(vecs + (size_t)i * n, tmp, (size_t)n * sizeof *tmp);
  }
}

/* ARPACK's reverse-communication state and work arrays for one solve;
 * dsaupd and dseupd take every argument by reference, so the sizes live
 * here too. */
typedef struct {
  a_int n, nev, ncv, lworkl, ldv, ido, info;
  a_int iparam[11], ipntr[11];
  double tol, sigma;
  double *resid, *v, *workd, *workl;
  a_int *select;
} arpack_work;

/* The message for a K - sigma M that CHOLMOD found not positive definite
 * (its own message kept as the reason). */
static int not_posdef_error(double sigma)
{
  return CRD_WRAP(CRD_ERR_INPUT,
                  "): sigma must lie below the smallest eigenvalue (sigma < 0 for a free structure), K must be "
                  "positive semi-definite and M positive definite",
                  "K - sigma M with sigma = %g is not positive definite (", sigma);
}

/* A = K - sigma M on K's index arrays (A->val allocated here, freed by the
 * caller), factorized once by CHOLMOD into *s for every Lanczos step. */
static int factor_shifted(const crd_csr *K, const crd_csr *M, double sigma, crd_csr *A, crd_solver **s)
{
  CRD_CALL(CRD_CALLOC(A->nnz, &A->val));
  for (int64_t k = 0; k < A->nnz; ++k) A->val[k] = K->val[k] - sigma * M->val[k];
  CRD_CALL(crd_solver_create("cholmod", s));
  CRD_CALL(crd_solver_analyse(*s, A));
  int rc = crd_solver_factorize(*s, A);
  if (rc == CRD_WARN_NOT_POSDEF) return not_posdef_error(sigma);
  CRD_CALL(rc);
  return 0;
}

/* The sizes, the settings of mode 3 and the work arrays of w (freed by
 * arpack_free).  ncv = min(n, max(2 nev + 1, nev + 20)): a basis about twice
 * nev keeps restarts few; the floor of nev + 20 helps small nev at little
 * cost. */
static int arpack_setup(arpack_work *w, a_int n, int nev, double tol, double sigma)
{
  w->n = n, w->nev = nev, w->tol = tol, w->sigma = sigma;
  w->ncv = 2 * nev + 1 > nev + 20 ? 2 * nev + 1 : nev + 20;
  if (w->ncv > n) w->ncv = n;
  w->lworkl = w->ncv * (w->ncv + 8), w->ldv = n;
  w->ido = 0, w->info = 0; /* info 0: random start */
  CRD_CALL(CRD_CALLOC(n, &w->resid));
  CRD_CALL(CRD_CALLOC((size_t)n * w->ncv, &w->v));
  CRD_CALL(CRD_CALLOC(3 * (size_t)n, &w->workd));
  CRD_CALL(CRD_CALLOC(w->lworkl, &w->workl));
  CRD_CALL(CRD_CALLOC(w->ncv, &w->select));
  w->iparam[0] = 1;                      /* exact shifts */
  w->iparam[2] = CRD_EIGEN_MAX_RESTARTS; /* restart cap in, restarts taken out */
  w->iparam[3] = 1;                      /* block size (the only one implemented) */
  w->iparam[6] = 3;                      /* shift-invert, generalized */
  return 0;
}

/* The work arrays of arpack_setup (each NULL or allocated). */
static void arpack_free(arpack_work *w)
{
  free(w->resid);
  free(w->v);
  free(w->workd);
  free(w->workl);
  free(w->select);
}

/* The Lanczos iteration: dsaupd's requests answered with solves on the
 * factor s and products with M until it is done (ido 99); refused when
 * dsaupd ends in an error. */
static int lanczos(arpack_work *w, const crd_csr *M, crd_solver *s)
{
  for (;;) {
    dsaupd_(&w->ido, "G", &w->n, "LM", &w->nev, &w->tol, w->resid, &w->ncv, w->v, &w->ldv, w->iparam, w->ipntr,
            w->workd, w->workl, &w->lworkl, &w->info, 1, 2);
    double *x = w->workd + w->ipntr[0] - 1, *y = w->workd + w->ipntr[1] - 1;
    if (w->ido == -1) {
      /* First product of a cycle: y = (K - sigma M)^-1 M x in full. */
      crd_csr_symv(M, x, y);
      CRD_CALL(crd_solver_solve(s, y, y));
    } else if (w->ido == 1) {
      /* M x is already at ipntr(3): only the solve is left. */
      CRD_CALL(crd_solver_solve(s, w->workd + w->ipntr[2] - 1, y));
    } else if (w->ido == 2) {
      crd_csr_symv(M, x, y); /* for M-orthogonalization */
    } else {
      break; /* 99: done (or an error in info) */
    }
  }
  const int restarts = w->iparam[2];
  if (w->info < 0 || w->info == 2 || w->info == 3)
    return CRD_ERR(CRD_ERR_NUMERIC,
                   "ARPACK dsaupd failed (info %d: %s) after %d restarts; n = %d, nev = %d, ncv = %d, "
                   "sigma = %g", (int)w->info, dsaupd_info_text(w->info), restarts, (int)w->n, (int)w->nev,
                   (int)w->ncv, w->sigma);
  return 0;
}

/* dseupd's Ritz vectors are M-orthonormal up to its purification step (a
 * rank-one correction for shift-invert), so the m vectors are rescaled to
 * x^T M x = 1 exactly as promised; Mx: a buffer of n. */
static int m_normalize(const crd_csr *M, a_int n, int m, const double *lambda, double *vecs, double *Mx)
{
  for (int j = 0; j < m; ++j) {
    double *xj = vecs + (size_t)j * n, xmx = 0.0;
    crd_csr_symv(M, xj, Mx);
    for (a_int i = 0; i < n; ++i) xmx += xj[i] * Mx[i];
    if (!(xmx > 0.0))
      return CRD_ERR(CRD_ERR_NUMERIC, "eigenvector %d (lambda = %g) has x^T M x = %g: M is not "
                     "positive definite", j, lambda[j], xmx);
    const double scale = 1.0 / sqrt(xmx);
    for (a_int i = 0; i < n; ++i) xj[i] *= scale;
  }
  return 0;
}

/* The ndone converged pairs from dseupd (which maps the Ritz values back to
 * lambda = sigma + 1/nu), M-normalized and sorted; resid serves as the
 * M x buffer. */
static int ritz_pairs(arpack_work *w, const crd_csr *M, int ndone, double *lambda, double *vecs)
{
  const a_int rvec = 1, ldz = w->n;
  a_int einfo = 0;
  dseupd_(&rvec, "A", w->select, lambda, vecs, &ldz, &w->sigma, "G", &w->n, "LM", &w->nev, &w->tol, w->resid,
          &w->ncv, w->v, &w->ldv, w->iparam, w->ipntr, w->workd, w->workl, &w->lworkl, &einfo, 1, 1, 2);
  if (einfo)
    return CRD_ERR(CRD_ERR_NUMERIC, "ARPACK dseupd failed (info %d: %s); n = %d, nev = %d, ncv = %d",
                   (int)einfo, dseupd_info_text(einfo), (int)w->n, (int)w->nev, (int)w->ncv);
  CRD_CALL(m_normalize(M, w->n, ndone, lambda, vecs, w->resid));
  sort_pairs(w->n, ndone, lambda, vecs, w->resid);
  return 0;
}

static int shift_invert(const crd_csr *K, const crd_csr *M, double sigma, int nev, double tol,
                        double *lambda, double *vecs, int *nconv)
{
  int rc = 0;
  crd_solver *s = NULL;
  crd_csr A = *K; /* K - sigma M on K's index arrays */
  A.val = NULL;
  arpack_work w;
  memset(&w, 0, sizeof w);

  if ((rc = factor_shifted(K, M, sigma, &A, &s))) goto done;
  if ((rc = arpack_setup(&w, K->n, nev, tol, sigma)) || (rc = lanczos(&w, M, s))) goto done;
  const int ndone = w.iparam[4]; /* converged Ritz values, <= nev */
  if (ndone > 0 && (rc = ritz_pairs(&w, M, ndone, lambda, vecs))) goto done;
  *nconv = ndone;
  if (w.info == 1 || ndone < nev)
    rc = CRD_ERR(CRD_ERR_NUMERIC,
                 "ARPACK: only %d of %d eigenpairs converged within the cap of %d restarts (tol %g, "
                 "ncv = %d, sigma = %g); move sigma closer to the wanted eigenvalues or loosen tol",
                 ndone, nev, CRD_EIGEN_MAX_RESTARTS, tol, (int)w.ncv, sigma);

done:
  crd_solver_destroy(&s);
  free(A.val);
  arpack_free(&w);
  return rc ? CRD_TRACE(rc) : 0;
}

int crd_eigen_shift_invert(const crd_csr *K, const crd_csr *M, double sigma, int nev, double tol,
                           double *lambda, double *vecs, int *nconv)
{
  CRD_CHECK(K && M && lambda && vecs && nconv, CRD_ERR_INPUT,
            "crd_eigen_shift_invert: NULL argument");
  *nconv = 0;
  CRD_CALL(check_pattern(K, M));
  CRD_CHECK(K->n >= 2 && nev >= 1 && nev < K->n, CRD_ERR_INPUT,
            "crd_eigen_shift_invert: nev = %d eigenpairs of an n = %d problem: need 1 <= nev < n "
            "(Lanczos needs a basis larger than nev; use a dense solver for all eigenpairs)",
            nev, (int)K->n);
  CRD_CHECK(isfinite(sigma) && isfinite(tol), CRD_ERR_INPUT,
            "crd_eigen_shift_invert: sigma = %g and tol = %g must be finite", sigma, tol);
  pthread_mutex_lock(&arpack_lock);
  int rc = shift_invert(K, M, sigma, nev, tol, lambda, vecs, nconv);
  pthread_mutex_unlock(&arpack_lock);
  return rc ? CRD_TRACE(rc) : 0;
}
