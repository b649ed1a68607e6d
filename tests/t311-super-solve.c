/* crd_super_solve (super_solve.h) against cholmod_solve on the same
 * supernodal factor: a dense matrix (one supernode of 37 columns: blocks
 * of four and a remainder), a 3-DOF-per-node grid ordered by METIS
 * (separator supernodes of many widths) and a random sparse matrix; the
 * solutions agree to round-off and the residuals are at round-off.  The
 * factors are checked to hold supernodes with four or more columns and a
 * remainder, so both paths of the kernels run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "../src/host/solvers/super_solve.h"
#include "tap.h"

static double urand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000 - 0.5;
}

/* lower triangle entries (i >= j) into T; the diagonal made dominant after */
static void put(cholmod_triplet *T, int i, int j, double v)
{
  int *ti = T->i, *tj = T->j;
  double *tx = T->x;
  ti[T->nnz] = i > j ? i : j;
  tj[T->nnz] = i > j ? j : i;
  tx[T->nnz++] = v;
}

static void dominant_diagonal(cholmod_triplet *T, int n, double *rowsum)
{
  const int *ti = T->i, *tj = T->j;
  const double *tx = T->x;
  memset(rowsum, 0, sizeof(double) * n);
  size_t m = T->nnz;
  for (size_t k = 0; k < m; ++k) {
    rowsum[ti[k]] += fabs(tx[k]);
    if (ti[k] != tj[k]) rowsum[tj[k]] += fabs(tx[k]);
  }
  for (int i = 0; i < n; ++i) put(T, i, i, rowsum[i] + 0.5);
}

static void check(const char *what, cholmod_sparse *A, cholmod_common *c)
{
  const int n = (int)A->nrow;
  c->supernodal = CHOLMOD_SUPERNODAL;
  cholmod_factor *L = cholmod_analyze(A, c);
  int ok = L && cholmod_factorize(A, L, c) && L->is_super && L->is_ll;
  T_OK(ok, "%s: supernodal LL^T of n = %d", what, n);
  if (!ok) {
    cholmod_free_factor(&L, c);
    return;
  }
  crd_super_factor F = {(int)L->nsuper, L->super, L->pi, L->px, L->s, L->x};
  const int *sup = L->super;
  int wide = 0, rest = 0, maxc = 0;
  for (int s = 0; s < F.nsuper; ++s) {
    int nc = sup[s + 1] - sup[s];
    wide += nc >= 4;
    rest += nc >= 4 && nc % 4;
    maxc = nc > maxc ? nc : maxc;
  }
  T_OK(wide > 0 && rest > 0, "%s: %d supernodes, %d with >= 4 columns, %d of them with a remainder, widest %d",
       what, F.nsuper, wide, rest, maxc);

  cholmod_dense *B = cholmod_zeros(n, 1, CHOLMOD_REAL, c);
  double *b = B->x, *x = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * crd_super_max_rows(&F));
  unsigned seed = 11;
  for (int i = 0; i < n; ++i) b[i] = urand(&seed);
  cholmod_dense *X = cholmod_solve(CHOLMOD_A, L, B, c);
  /* L is the factor of P A P': x = P' (L L^T)^{-1} P b */
  const int *perm = L->Perm;
  for (int i = 0; i < n; ++i) x[i] = b[perm[i]];
  crd_super_solve(&F, x, w);
  double *xs = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) xs[perm[i]] = x[i];
  const double *xc = X->x;
  double dx = 0, nx = 0;
  for (int i = 0; i < n; ++i) {
    dx += (xs[i] - xc[i]) * (xs[i] - xc[i]);
    nx += xc[i] * xc[i];
  }
  /* residual b - A xs (A: lower triangle stored) */
  double *r = malloc(sizeof(double) * n), nr = 0, nb = 0;
  memcpy(r, b, sizeof(double) * n);
  const int *Ap = A->p, *Ai = A->i;
  const double *Ax = A->x;
  for (int j = 0; j < n; ++j)
    for (int p = Ap[j]; p < Ap[j + 1]; ++p) {
      int i = Ai[p];
      r[i] -= Ax[p] * xs[j];
      if (i != j) r[j] -= Ax[p] * xs[i];
    }
  for (int i = 0; i < n; ++i) {
    nr += r[i] * r[i];
    nb += b[i] * b[i];
  }
  T_OK(sqrt(dx / nx) < 1e-13 && sqrt(nr / nb) < 1e-13,
       "%s: |x - x_cholmod| / |x| = %.2g, |b - A x| / |b| = %.2g", what, sqrt(dx / nx), sqrt(nr / nb));
  free(r);
  free(xs);
  free(x);
  free(w);
  cholmod_free_dense(&X, c);
  cholmod_free_dense(&B, c);
  cholmod_free_factor(&L, c);
}

static cholmod_sparse *from_triplet(cholmod_triplet *T, cholmod_common *c)
{
  cholmod_sparse *A = cholmod_triplet_to_sparse(T, T->nnz, c);
  cholmod_free_triplet(&T, c);
  return A;
}

int main(void)
{
  cholmod_common c;
  cholmod_start(&c);
  c.print = 0;
  unsigned seed = 3;
  double *rowsum = malloc(sizeof(double) * 5000);

  { /* dense, n = 37 */
    const int n = 37;
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, n * (n + 1) / 2 + n, -1, CHOLMOD_REAL, &c);
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < n; ++i) put(T, i, j, urand(&seed));
    dominant_diagonal(T, n, rowsum);
    cholmod_sparse *A = from_triplet(T, &c);
    check("dense 37", A, &c);
    cholmod_free_sparse(&A, &c);
  }
  { /* 30x30 grid of nodes, 3 DOFs each, 9-point coupling, METIS */
    const int m = 30, nd = 3, n = m * m * nd;
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, (size_t)n * 9 * nd + n, -1, CHOLMOD_REAL, &c);
    for (int a = 0; a < m * m; ++a)
      for (int b = 0; b <= a; ++b) {
        int ax = a % m, ay = a / m, bx = b % m, by = b / m;
        if (abs(ax - bx) > 1 || abs(ay - by) > 1) continue;
        for (int p = 0; p < nd; ++p)
          for (int q = 0; q < nd; ++q)
            if (a != b || p > q) put(T, a * nd + p, b * nd + q, urand(&seed));
      }
    dominant_diagonal(T, n, rowsum);
    cholmod_sparse *A = from_triplet(T, &c);
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_METIS;
    check("grid 30x30x3 (METIS)", A, &c);
    c.nmethods = 0;
    cholmod_free_sparse(&A, &c);
  }
  { /* random sparse, n = 600, ~6 off-diagonal entries a row (default ordering) */
    const int n = 600;
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, (size_t)n * 7, -1, CHOLMOD_REAL, &c);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 6; ++k) {
        int j = (int)((urand(&seed) + 0.5) * n) % n;
        if (j != i) put(T, i, j, urand(&seed));
      }
    dominant_diagonal(T, n, rowsum);
    cholmod_sparse *A = from_triplet(T, &c);
    check("random 600", A, &c);
    cholmod_free_sparse(&A, &c);
  }
  free(rowsum);
  cholmod_finish(&c);
  return T_DONE();
}
