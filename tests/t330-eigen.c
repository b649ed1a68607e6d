/* The shift-invert eigensolver (eigen.h) on spring-mass chains with a
 * consistent (non-diagonal) mass: a fixed-free chain against its closed
 * form, a free-free one (singular K, one rigid-body mode) against a dense
 * LAPACK dsygv solve, a tiny problem (ncv = n), and bad input. */
#include <stdlib.h>
#include <string.h>

#include "crdyn/eigen.h"
#include "crdyn/error.h"
#include "crdyn/sparse.h"
#include "tap.h"

/* LAPACK (from OpenBLAS), Fortran calling convention. */
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
            const int *lda, double *b, const int *ldb, double *w, double *work, const int *lwork,
            int *info, size_t jobz_len, size_t uplo_len);

/* Chain of nel two-node bar elements, nodes 0..nel; with fixed, node 0 is
 * clamped.  Element e: stiffness ke[e] [1 -1; -1 1], consistent mass
 * me[e]/6 [2 1; 1 2].  K and M get their own (equal) index arrays, as two
 * assemblies would. */
static int chain(int nel, int fixed, const double *ke, const double *me, crd_csr **K, crd_csr **M)
{
  int32_t *eq = malloc(sizeof *eq * 2 * nel), *sk = NULL, *sm = NULL;
  for (int e = 0; e < nel; ++e)
    for (int a = 0; a < 2; ++a) eq[2 * e + a] = e + a - (fixed ? 1 : 0);
  const int32_t n = nel + (fixed ? 0 : 1);
  int rc = crd_pattern_build(n, nel, 2, eq, K, &sk);
  if (!rc) rc = crd_pattern_build(n, nel, 2, eq, M, &sm);
  for (int e = 0; !rc && e < nel; ++e) {
    const double kl[3] = {ke[e], -ke[e], ke[e]}, ml[3] = {me[e] / 3, me[e] / 6, me[e] / 3};
    for (int t = 0; t < 3; ++t) {
      if (sk[3 * e + t] >= 0) (*K)->val[sk[3 * e + t]] += kl[t];
      if (sm[3 * e + t] >= 0) (*M)->val[sm[3 * e + t]] += ml[t];
    }
  }
  free(eq); free(sk); free(sm);
  return rc;
}

/* Full column-major copy of a CSR upper triangle (dsygv reads 'U'). */
static double *dense(const crd_csr *A)
{
  double *D = calloc((size_t)A->n * A->n, sizeof *D);
  for (int r = 0; r < A->n; ++r)
    for (int p = A->rowptr[r]; p < A->rowptr[r + 1]; ++p) D[(size_t)A->col[p] * A->n + r] = A->val[p];
  return D;
}

/* All eigenvalues of K x = lambda M x by dsygv, ascending. */
static int dense_eig(const crd_csr *K, const crd_csr *M, double *w)
{
  int n = K->n, itype = 1, lwork = 64 * n, info = 0;
  double *a = dense(K), *b = dense(M), *work = malloc(sizeof *work * lwork);
  dsygv_(&itype, "N", "U", &n, a, &n, b, &n, w, work, &lwork, &info, 1, 1);
  free(a); free(b); free(work);
  return info;
}

/* max |X^T M X - I| over the m columns of X. */
static double m_orth_err(const crd_csr *M, const double *X, int m)
{
  const int n = M->n;
  double *y = malloc(sizeof *y * n), err = 0;
  for (int j = 0; j < m; ++j) {
    crd_csr_symv(M, X + (size_t)j * n, y);
    for (int i = 0; i < m; ++i) {
      double d = 0;
      for (int r = 0; r < n; ++r) d += X[(size_t)i * n + r] * y[r];
      d -= i == j;
      if (fabs(d) > err) err = fabs(d);
    }
  }
  free(y);
  return err;
}

/* max over the pairs of ||K x - lambda M x|| / (||K|| ||x||), ||K|| as the
 * largest row sum, so zero eigenvalues are measured too. */
static double residual(const crd_csr *K, const crd_csr *M, const double *lam, const double *X, int m)
{
  const int n = K->n;
  double *kx = malloc(sizeof *kx * n), *mx = malloc(sizeof *mx * n), *rs = calloc(n, sizeof *rs);
  double knorm = 0, err = 0;
  for (int r = 0; r < n; ++r)
    for (int p = K->rowptr[r]; p < K->rowptr[r + 1]; ++p) {
      rs[r] += fabs(K->val[p]);
      if (K->col[p] != r) rs[K->col[p]] += fabs(K->val[p]);
    }
  for (int r = 0; r < n; ++r) knorm = rs[r] > knorm ? rs[r] : knorm;
  for (int j = 0; j < m; ++j) {
    const double *x = X + (size_t)j * n;
    crd_csr_symv(K, x, kx);
    crd_csr_symv(M, x, mx);
    double nr = 0, nx = 0;
    for (int r = 0; r < n; ++r) {
      nr += (kx[r] - lam[j] * mx[r]) * (kx[r] - lam[j] * mx[r]);
      nx += x[r] * x[r];
    }
    double e = sqrt(nr) / (knorm * sqrt(nx));
    if (e > err) err = e;
  }
  free(kx); free(mx); free(rs);
  return err;
}

enum { NEL = 200, NEV = 8 };

int main(void)
{
  /* A steel bar of 10 m, 1e-3 m^2, in 200 elements: k = EA/h, m = rho A h. */
  const double h = 10.0 / NEL, k0 = 210e9 * 1e-3 / h, m0 = 7850 * 1e-3 * h;
  double ke[NEL], me[NEL], lam[NEV], *X = malloc(sizeof *X * NEL * NEV);
  int nconv = -1;

  /* (1) Fixed-free, uniform.  u_i = sin(i theta) solves the interior rows
   * when k (2 - 2 cos t) = lambda m/6 (4 + 2 cos t); the free end holds
   * when u is symmetric about node n, cos(n theta) = 0:
   * lambda_j = 6k/m (1 - cos t)/(2 + cos t), t = (2j - 1) pi / (2n).
   * sigma = 0: K alone is SPD here. */
  for (int e = 0; e < NEL; ++e) ke[e] = k0, me[e] = m0;
  crd_csr *K = NULL, *M = NULL;
  int rc = chain(NEL, 1, ke, me, &K, &M);
  T_OK(rc == 0 && K->n == NEL, "fixed-free chain, n = %d", K ? (int)K->n : -1);
  rc = crd_eigen_shift_invert(K, M, 0.0, NEV, 1e-13, lam, X, &nconv);
  T_OK(rc == 0 && nconv == NEV, "fixed-free: %d of %d converged (rc %d%s%s)", nconv, NEV, rc,
       rc ? ": " : "", rc ? crd_err_message() : "");
  double w[NEL], maxrel = 0, maxrel_dense = 0;
  T_OK(dense_eig(K, M, w) == 0, "dense dsygv of the fixed-free chain");
  for (int j = 0; j < NEV; ++j) {
    const double t = (2 * j + 1) * M_PI / (2 * NEL), exact = 6 * k0 / m0 * (1 - cos(t)) / (2 + cos(t));
    double e = fabs(lam[j] - exact) / exact, ed = fabs(w[j] - exact) / exact;
    if (e > maxrel) maxrel = e;
    if (ed > maxrel_dense) maxrel_dense = ed;
  }
  T_OK(maxrel < 1e-9, "fixed-free: first %d eigenvalues vs closed form, max rel err %.3g "
       "(dense dsygv: %.3g; lambda_1 = %.10g)", NEV, maxrel, maxrel_dense, lam[0]);
  int asc = 1;
  for (int j = 1; j < NEV; ++j) asc &= lam[j] > lam[j - 1];
  T_OK(asc, "fixed-free: eigenvalues ascending");
  double orth = m_orth_err(M, X, NEV), res = residual(K, M, lam, X, NEV);
  T_OK(orth < 1e-10, "fixed-free: max |X^T M X - I| = %.3g", orth);
  T_OK(res < 1e-10, "fixed-free: max ||Kx - lambda Mx|| / (||K|| ||x||) = %.3g", res);
  /* The first mode is a quarter sine: one sign, growing to the free end. */
  int mono = 1;
  for (int i = 1; i < NEL; ++i) mono &= X[i] * X[0] > 0 && fabs(X[i]) > fabs(X[i - 1]);
  T_OK(mono, "fixed-free: mode 1 is monotone with one sign");

  /* (3) Bad input, on the fixed-free chain. */
  crd_csr *D = NULL;
  int32_t *dsc = NULL;
  rc = crd_pattern_build(NEL, 0, 1, NULL, &D, &dsc); /* lumped mass: diagonal only */
  for (int i = 0; i < NEL; ++i) D->val[i] = m0;
  crd_err_clear();
  rc = crd_eigen_shift_invert(K, D, 0.0, NEV, 1e-12, lam, X, &nconv);
  T_OK(rc == CRD_ERR_INPUT && strstr(crd_err_message(), "pattern") && nconv == 0,
       "M on another pattern (diagonal) refused: %s", crd_err_message());
  crd_csr_destroy(&D);
  free(dsc);
  int32_t *col2 = malloc(sizeof *col2 * M->nnz);
  memcpy(col2, M->col, sizeof *col2 * M->nnz);
  crd_csr M2 = *M;
  M2.col = col2;
  col2[1] = 2; /* row 0 couples 0-1 in K, 0-2 in M2 */
  crd_err_clear();
  rc = crd_eigen_shift_invert(K, &M2, 0.0, NEV, 1e-12, lam, X, &nconv);
  T_OK(rc == CRD_ERR_INPUT && strstr(crd_err_message(), "patterns differ"),
       "same nnz, different columns refused: %s", crd_err_message());
  free(col2);
  crd_err_clear();
  rc = crd_eigen_shift_invert(K, M, 0.0, NEL, 1e-12, lam, X, &nconv);
  T_OK(rc == CRD_ERR_INPUT && strstr(crd_err_message(), "nev < n"), "nev = n refused: %s",
       crd_err_message());
  crd_err_clear();
  rc = crd_eigen_shift_invert(K, M, 0.5 * (w[0] + w[1]), 2, 1e-12, lam, X, &nconv);
  T_OK(rc == CRD_ERR_INPUT && strstr(crd_err_message(), "not positive definite"),
       "sigma above lambda_1 refused: %s", crd_err_message());
  crd_csr_destroy(&K);
  crd_csr_destroy(&M);

  /* (2) Free-free, non-uniform (so no closed form: dsygv is the reference).
   * K is singular (rigid translation); sigma < 0 keeps K - sigma M SPD. */
  for (int e = 0; e < NEL - 1; ++e) ke[e] = k0 * (1 + 0.5 * sin(0.37 * e)), me[e] = m0 * (1 + 0.3 * cos(0.11 * e));
  rc = chain(NEL - 1, 0, ke, me, &K, &M);
  T_OK(rc == 0 && K->n == NEL, "free-free chain, n = %d", K ? (int)K->n : -1);
  T_OK(dense_eig(K, M, w) == 0, "dense dsygv of the free-free chain (lambda_0 = %.3g, lambda_1 = %.6g)",
       w[0], w[1]);
  const double sigma = -0.1 * w[1];
  rc = crd_eigen_shift_invert(K, M, sigma, NEV, 1e-13, lam, X, &nconv);
  T_OK(rc == 0 && nconv == NEV, "free-free, sigma = %.4g: %d of %d converged (rc %d%s%s)", sigma, nconv,
       NEV, rc, rc ? ": " : "", rc ? crd_err_message() : "");
  T_OK(fabs(lam[0]) < 1e-8 * fabs(lam[NEV - 1]), "free-free: zero eigenvalue found, |lambda_0| / lambda_%d = %.3g",
       NEV - 1, fabs(lam[0]) / fabs(lam[NEV - 1]));
  maxrel = 0;
  for (int j = 1; j < NEV; ++j) {
    double e = fabs(lam[j] - w[j]) / w[j];
    if (e > maxrel) maxrel = e;
  }
  T_OK(maxrel < 1e-9, "free-free: eigenvalues 1..%d vs dsygv, max rel err %.3g", NEV - 1, maxrel);
  double spread = 0, xmax = 0;
  for (int i = 0; i < NEL; ++i) {
    spread = fmax(spread, fabs(X[i] - X[0]));
    xmax = fmax(xmax, fabs(X[i]));
  }
  T_OK(spread < 1e-8 * xmax, "free-free: mode 0 is a rigid translation, max |x_i - x_0| / max |x| = %.3g",
       spread / xmax);
  orth = m_orth_err(M, X, NEV);
  res = residual(K, M, lam, X, NEV);
  T_OK(orth < 1e-10, "free-free: max |X^T M X - I| = %.3g", orth);
  T_OK(res < 1e-10, "free-free: max ||Kx - lambda Mx|| / (||K|| ||x||) = %.3g", res);
  crd_csr_destroy(&K);
  crd_csr_destroy(&M);

  /* (4) Tiny: 3 equations, nev = 2, so ncv = n (the Krylov space is the
   * whole space). */
  rc = chain(3, 1, ke, me, &K, &M);
  double w3[3], lam3[2], X3[6];
  T_OK(rc == 0 && dense_eig(K, M, w3) == 0, "3-equation chain and its dense solve");
  rc = crd_eigen_shift_invert(K, M, 0.0, 2, 0.0, lam3, X3, &nconv);
  T_OK(rc == 0 && nconv == 2 && fabs(lam3[0] - w3[0]) < 1e-12 * w3[0] && fabs(lam3[1] - w3[1]) < 1e-12 * w3[1],
       "n = 3, nev = 2, tol 0: %.12g %.12g (dsygv %.12g %.12g; rc %d%s%s)", lam3[0], lam3[1], w3[0], w3[1],
       rc, rc ? ": " : "", rc ? crd_err_message() : "");
  crd_csr_destroy(&K);
  crd_csr_destroy(&M);

  free(X);
  return T_DONE();
}
