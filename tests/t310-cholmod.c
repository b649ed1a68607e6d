/* The CHOLMOD solver behind crd_solver: residuals on an assembled SPD
 * matrix, refactorization on the same pattern, a non-positive pivot named
 * by its equation, call-order and name errors; the factor of P A P' that
 * crd_solver builds itself (solver_cholmod.c, chol_permute) against
 * CHOLMOD's own permuted factorization of A. */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "crdyn/error.h"
#include "crdyn/solver.h"
#include "crdyn/sparse.h"
#include "tap.h"

enum { NX = 30, NY = 25, ND = 2, NDOF = 4 * ND, NTRI = NDOF * (NDOF + 1) / 2 };

static double urand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000 - 0.5;
}

/* Element matrices M^T M + 0.1 I (SPD) on a grid of quads, assembled
 * through the scatter map: SPD since every equation is in some element. */
static void assemble(crd_csr *A, const int32_t *sc, unsigned seed)
{
  crd_csr_zero(A);
  for (int e = 0; e < NX * NY; ++e) {
    double M[NDOF][NDOF];
    for (int i = 0; i < NDOF; ++i)
      for (int j = 0; j < NDOF; ++j) M[i][j] = urand(&seed);
    for (int i = 0; i < NDOF; ++i)
      for (int j = i; j < NDOF; ++j) {
        double s = i == j ? 0.1 : 0.0;
        for (int k = 0; k < NDOF; ++k) s += M[k][i] * M[k][j];
        int32_t pos = sc[(size_t)e * NTRI + crd_tri_index(i, j, NDOF)];
        if (pos >= 0) A->val[pos] += s;
      }
  }
}

static double rel_residual(const crd_csr *A, const double *x, const double *b)
{
  double *r = malloc(sizeof *r * A->n), nr = 0, nb = 0;
  crd_csr_symv(A, x, r);
  for (int i = 0; i < A->n; ++i) {
    nr += (r[i] - b[i]) * (r[i] - b[i]);
    nb += b[i] * b[i];
  }
  free(r);
  return sqrt(nr / nb);
}

int main(void)
{
  /* Grid mesh, 2 DOFs per node, the bottom edge constrained. */
  const int nnode = (NX + 1) * (NY + 1);
  int32_t *nodeeq = malloc(sizeof(int32_t) * nnode * ND), n = 0;
  for (int k = 0; k < nnode; ++k)
    for (int d = 0; d < ND; ++d) nodeeq[k * ND + d] = k < NX + 1 ? -1 : n++;
  int32_t *eq = malloc(sizeof(int32_t) * NX * NY * NDOF);
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      int e = j * NX + i;
      int nodes[4] = {j * (NX + 1) + i, j * (NX + 1) + i + 1, (j + 1) * (NX + 1) + i + 1, (j + 1) * (NX + 1) + i};
      for (int a = 0; a < 4; ++a)
        for (int d = 0; d < ND; ++d) eq[e * NDOF + a * ND + d] = nodeeq[nodes[a] * ND + d];
    }
  crd_csr *A = NULL;
  int32_t *sc = NULL;
  int rc = crd_pattern_build(n, NX * NY, NDOF, eq, &A, &sc);
  T_OK(rc == 0, "pattern of a %dx%d grid, n = %d", NX, NY, (int)n);
  if (rc) return T_DONE();

  crd_solver *s = NULL;
  rc = crd_solver_create("nosuch", &s);
  T_OK(rc == CRD_ERR_INPUT && !s && strstr(crd_err_message(), "nosuch") && strstr(crd_err_message(), "cholmod"),
       "unknown solver name refused, known ones listed: %s", crd_err_message());
  rc = crd_solver_create(NULL, &s);
  T_OK(rc == 0 && !strcmp(crd_solver_name(s), "cholmod"), "default solver is cholmod");
  crd_solver_destroy(&s);
  rc = crd_solver_create("auto", &s);
  T_OK(rc == 0 && s, "'auto' creates a solver");
  crd_solver_destroy(&s);
  T_OK(s == NULL, "destroy sets the pointer to NULL");
  rc = crd_solver_create("cholmod", &s);
  T_OK(rc == 0 && s, "'cholmod' creates a solver");

  double *b = malloc(sizeof *b * n), *x = malloc(sizeof *x * n);
  unsigned seed = 7;
  for (int i = 0; i < n; ++i) b[i] = urand(&seed);
  assemble(A, sc, 1);
  rc = crd_solver_factorize(s, A);
  T_OK(rc == CRD_ERR_INPUT, "factorize before analyse is an error: %s", crd_err_message());

  rc = crd_solver_analyse(s, A);
  T_OK(rc == 0, "analyse (rc %d)", rc);
  rc = crd_solver_solve(s, b, x);
  T_OK(rc == CRD_ERR_INPUT, "solve before factorize is an error: %s", crd_err_message());
  rc = crd_solver_factorize(s, A);
  T_OK(rc == 0, "factorize (rc %d%s%s)", rc, rc ? ": " : "", rc ? crd_err_message() : "");
  rc = crd_solver_solve(s, b, x);
  double res = rel_residual(A, x, b);
  T_OK(rc == 0 && res < 1e-12, "solve: ||Ax-b||/||b|| = %.3g", res);

  /* New values, same pattern: refactorize and solve in place (x aliases b). */
  assemble(A, sc, 99);
  rc = crd_solver_factorize(s, A);
  T_OK(rc == 0, "refactorize with new values");
  memcpy(x, b, sizeof *x * n);
  rc = crd_solver_solve(s, x, x);
  res = rel_residual(A, x, b);
  T_OK(rc == 0 && res < 1e-12, "solve in place after refactorize: ||Ax-b||/||b|| = %.3g", res);

  /* Equation k decoupled with a negative diagonal: whatever the ordering,
   * the first non-positive pivot is k's, so the message must name k. */
  const int k = n / 2 + 3;
  for (int r = 0; r < n; ++r)
    for (int p = A->rowptr[r]; p < A->rowptr[r + 1]; ++p)
      if (r == k || A->col[p] == k) A->val[p] = (r == k && A->col[p] == k) ? -1.0 : 0.0;
  rc = crd_solver_factorize(s, A);
  char want[64];
  snprintf(want, sizeof want, "equation %d ", k);
  T_OK(rc == CRD_WARN_NOT_POSDEF && strstr(crd_err_message(), want),
       "indefinite matrix: CRD_WARN_NOT_POSDEF naming equation %d: %s", k, crd_err_message());
  T_OK(crd_solver_failed_equation(s) == k, "crd_solver_failed_equation = %d", crd_solver_failed_equation(s));
  rc = crd_solver_solve(s, b, x);
  T_OK(rc == CRD_ERR_INPUT, "solve after a failed factorization is an error");

  /* Recovery: the same solver factorizes good values again. */
  assemble(A, sc, 5);
  rc = crd_solver_factorize(s, A);
  T_OK(rc == 0 && crd_solver_failed_equation(s) == -1, "factorize again after the failure (no failed equation)");
  rc = crd_solver_solve(s, b, x);
  res = rel_residual(A, x, b);
  T_OK(rc == 0 && res < 1e-12, "solve after recovery: ||Ax-b||/||b|| = %.3g", res);

  /* CHOLMOD on A itself (its own METIS ordering and permutation): the same
   * factor and the same solution to round-off; a wrong map or perm changes
   * it by far more. */
  {
    cholmod_common c;
    cholmod_start(&c);
    c.print = 0;
    c.supernodal = CHOLMOD_SUPERNODAL;
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_METIS;
    cholmod_sparse W = {.nrow = (size_t)n, .ncol = (size_t)n, .nzmax = (size_t)A->nnz, .p = A->rowptr,
                        .i = A->col, .x = A->val, .stype = -1, .itype = CHOLMOD_INT, .xtype = CHOLMOD_REAL,
                        .dtype = CHOLMOD_DOUBLE, .sorted = 1, .packed = 1};
    cholmod_factor *L = cholmod_analyze(&W, &c);
    int okc = L && cholmod_factorize(&W, L, &c);
    cholmod_dense B = {.nrow = (size_t)n, .ncol = 1, .nzmax = (size_t)n, .d = (size_t)n, .x = b,
                       .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
    cholmod_dense *X = okc ? cholmod_solve(CHOLMOD_A, L, &B, &c) : NULL;
    rc = crd_solver_solve(s, b, x);
    double dx = 0.0, nx = 0.0;
    for (int i = 0; X && i < n; ++i) {
      dx += (((double *)X->x)[i] - x[i]) * (((double *)X->x)[i] - x[i]);
      nx += x[i] * x[i];
    }
    /* the triangular solves are crdyn's (super_solve.c), not cholmod_solve's:
     * the same factor, other rounding */
    T_OK(X && rc == 0 && sqrt(dx) <= 1e-14 * sqrt(nx),
         "solution equal to that of CHOLMOD's own permuted factorization of A to round-off (%.2g relative)",
         sqrt(dx / nx));
    const crd_solver_stats *sc0 = crd_solver_get_stats(s);
    T_OK(L && L->is_super && (double)L->xsize == sc0->nnz_stored && c.lnz == sc0->nnz_factor &&
         c.fl == sc0->flops_factor, "the same factor: %.0f stored (%.0f), nnz(L) %.0f (%.0f), flops %.4g (%.4g)",
         L ? (double)L->xsize : -1.0, sc0->nnz_stored, c.lnz, sc0->nnz_factor, c.fl, sc0->flops_factor);
    cholmod_free_dense(&X, &c);
    cholmod_free_factor(&L, &c);
    cholmod_finish(&c);
  }

  const crd_solver_stats *st = crd_solver_get_stats(s);
  T_OK(st->nanalyse == 1 && st->nfactor == 4 && st->nsolve == 4, "counts: %d analyse, %d factor (the refused call not counted), %d solve",
       st->nanalyse, st->nfactor, st->nsolve);
  T_OK(st->nnz_factor >= A->nnz && st->flops_factor > st->nnz_factor, "nnz(L) %.0f >= nnz(A) %lld, flops %.3g",
       st->nnz_factor, (long long)A->nnz, st->flops_factor);
  T_OK(st->analyse_s >= 0 && st->factor_s > 0 && st->solve_s > 0, "times: analyse %.3g s, factor %.3g s, solve %.3g s",
       st->analyse_s, st->factor_s, st->solve_s);
  T_OK(crd_solver_neg_pivots(s) == -1, "CHOLMOD LL^T cannot count negative pivots");

  /* A different pattern without a new analyse is refused. */
  crd_csr B = *A;
  B.nnz = A->nnz - 1;
  rc = crd_solver_factorize(s, &B);
  T_OK(rc == CRD_ERR_INPUT, "factorize on another pattern is an error: %s", crd_err_message());

  /* Trivial matrix: diagonal only (no graph for METIS to order). */
  crd_csr *D = NULL;
  int32_t *dsc = NULL;
  rc = crd_pattern_build(5, 0, 1, NULL, &D, &dsc);
  for (int i = 0; i < 5; ++i) D->val[i] = i + 1.0;
  double db[5] = {1, 2, 3, 4, 5}, dx[5];
  rc = rc ? rc : crd_solver_analyse(s, D);
  rc = rc ? rc : crd_solver_factorize(s, D);
  rc = rc ? rc : crd_solver_solve(s, db, dx);
  T_OK(rc == 0 && fabs(dx[0] - 1) < 1e-15 && fabs(dx[4] - 1) < 1e-15, "re-analyse on a diagonal matrix and solve (rc %d%s%s)",
       rc, rc ? ": " : "", rc ? crd_err_message() : "");
  crd_csr_destroy(&D);
  free(dsc);

  crd_solver_destroy(&s);
  crd_csr_destroy(&A);
  free(sc); free(eq); free(nodeeq); free(b); free(x);
  return T_DONE();
}
