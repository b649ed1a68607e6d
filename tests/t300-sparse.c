/* crd_pattern_build, the scatter map, crd_csr_symv: checked against dense
 * references on a hand-made mesh (constrained DOFs, an equation no element
 * couples) and on a grid of quads with 3 DOFs per node. */
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/sparse.h"
#include "tap.h"

static double urand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000 - 0.5;
}

/* Everything checked for one mesh. */
static void check_mesh(const char *what, int32_t n, int32_t ne, int ndof, const int32_t *eq)
{
  crd_csr *A = NULL;
  int32_t *sc = NULL;
  int rc = crd_pattern_build(n, ne, ndof, eq, &A, &sc);
  T_OK(rc == 0 && A && sc, "%s: pattern builds (rc %d%s%s)", what, rc, rc ? ": " : "", rc ? crd_err_message() : "");
  if (rc) return;

  /* Dense reference pattern of the upper triangle. */
  char *D = calloc((size_t)n * n, 1);
  for (int32_t r = 0; r < n; ++r) D[(size_t)r * n + r] = 1;
  for (int32_t e = 0; e < ne; ++e)
    for (int i = 0; i < ndof; ++i)
      for (int j = 0; j < ndof; ++j) {
        int32_t p = eq[e * ndof + i], q = eq[e * ndof + j];
        if (p >= 0 && q >= 0 && p <= q) D[(size_t)p * n + q] = 1;
      }
  int64_t nnz_ref = 0;
  for (size_t k = 0; k < (size_t)n * n; ++k) nnz_ref += D[k];
  T_OK(A->n == n && A->nnz == nnz_ref && A->rowptr[n] == nnz_ref, "%s: n %d nnz %lld (dense reference %lld)",
       what, (int)A->n, (long long)A->nnz, (long long)nnz_ref);

  int diag_first = 1, sorted = 1, match = 1;
  for (int32_t r = 0; r < n; ++r) {
    int32_t k0 = A->rowptr[r], k1 = A->rowptr[r + 1];
    if (k1 <= k0 || A->col[k0] != r) diag_first = 0;
    for (int32_t k = k0 + 1; k < k1; ++k)
      if (A->col[k] <= A->col[k - 1]) sorted = 0;
    for (int32_t k = k0; k < k1; ++k)
      if (A->col[k] < r || A->col[k] >= n || !D[(size_t)r * n + A->col[k]]) match = 0;
  }
  T_OK(diag_first, "%s: every row starts with its diagonal", what);
  T_OK(sorted, "%s: columns strictly increasing in every row", what);
  T_OK(match, "%s: every stored entry is in the dense reference pattern", what);

  /* Scatter map: random symmetric element matrices assembled through the
   * map and densely. */
  const int ntri = ndof * (ndof + 1) / 2;
  unsigned seed = 12345u;
  double *ke = malloc(sizeof(double) * (size_t)ne * ntri);
  for (size_t k = 0; k < (size_t)ne * ntri; ++k) ke[k] = urand(&seed);
  double *K = calloc((size_t)n * n, sizeof *K);
  int map_ok = 1;
  crd_csr_zero(A);
  for (int32_t e = 0; e < ne; ++e)
    for (int i = 0; i < ndof; ++i)
      for (int j = i; j < ndof; ++j) {
        int t = crd_tri_index(i, j, ndof);
        int32_t p = eq[e * ndof + i], q = eq[e * ndof + j], pos = sc[(size_t)e * ntri + t];
        double v = ke[(size_t)e * ntri + t];
        if (p < 0 || q < 0) { if (pos != -1) map_ok = 0; continue; }
        if (pos < 0 || pos >= A->nnz) { map_ok = 0; continue; }
        A->val[pos] += v;
        K[(size_t)p * n + q] += v;
        if (p != q) K[(size_t)q * n + p] += v;
      }
  T_OK(map_ok, "%s: scatter is -1 exactly where a DOF is constrained, in range elsewhere", what);
  double err = 0, kmax = 0;
  for (int32_t r = 0; r < n; ++r)
    for (int32_t k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      double d = fabs(A->val[k] - K[(size_t)r * n + A->col[k]]);
      if (d > err) err = d;
    }
  /* Entries outside the pattern must be zero in the dense matrix. */
  for (int32_t r = 0; r < n; ++r)
    for (int32_t c = r; c < n; ++c) {
      if (fabs(K[(size_t)r * n + c]) > kmax) kmax = fabs(K[(size_t)r * n + c]);
      if (!D[(size_t)r * n + c] && K[(size_t)r * n + c] != 0) err = 1e300;
    }
  T_OK(err <= 1e-14 * kmax, "%s: map assembly equals dense assembly (max diff %.3g)", what, err);

  /* symv against the dense product. */
  double *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n);
  for (int32_t r = 0; r < n; ++r) x[r] = urand(&seed);
  crd_csr_symv(A, x, y);
  double yerr = 0, ymax = 0;
  for (int32_t r = 0; r < n; ++r) {
    double s = 0;
    for (int32_t c = 0; c < n; ++c) s += K[(size_t)r * n + c] * x[c];
    if (fabs(y[r] - s) > yerr) yerr = fabs(y[r] - s);
    if (fabs(s) > ymax) ymax = fabs(s);
  }
  T_OK(yerr <= 1e-13 * (ymax + 1), "%s: symv equals dense product (max diff %.3g)", what, yerr);

  crd_csr_zero(A);
  int zero = 1;
  for (int64_t k = 0; k < A->nnz; ++k) zero &= A->val[k] == 0;
  T_OK(zero, "%s: crd_csr_zero clears the values", what);

  free(D); free(ke); free(K); free(x); free(y); free(sc);
  crd_csr_destroy(&A);
  T_OK(A == NULL, "%s: destroy sets the pointer to NULL", what);
}

int main(void)
{
  /* 9 equations; equation 7 in no element (diagonal only); equation 8 only
   * alone in an element with constrained DOFs; element 3 fully constrained. */
  const int32_t small[] = {
    0, 1, 4, -1,
    1, 2, -1, 5,
    5, 6, 2, 3,
    -1, -1, -1, -1,
    -1, 8, -1, -1,
  };
  check_mesh("hand-made mesh", 9, 5, 4, small);

  /* Grid of 7 x 6 quads, 3 DOFs per node, nodes numbered in a scrambled
   * order so rows see columns in every order; the left edge constrained. */
  enum { NX = 7, NY = 6, ND = 3 };
  const int nnode = (NX + 1) * (NY + 1);
  int32_t nodeeq[(NX + 1) * (NY + 1)][ND];
  int32_t neq = 0;
  for (int k = 0; k < nnode; ++k) {
    int node = (k * 17) % nnode; /* 17 coprime with 56 */
    for (int d = 0; d < ND; ++d) nodeeq[node][d] = (node % (NX + 1) == 0) ? -1 : neq++;
  }
  int32_t *geq = malloc(sizeof(int32_t) * NX * NY * 4 * ND);
  for (int j = 0; j < NY; ++j)
    for (int i = 0; i < NX; ++i) {
      int e = j * NX + i;
      int nodes[4] = {j * (NX + 1) + i, j * (NX + 1) + i + 1, (j + 1) * (NX + 1) + i + 1, (j + 1) * (NX + 1) + i};
      for (int a = 0; a < 4; ++a)
        for (int d = 0; d < ND; ++d) geq[e * 4 * ND + a * ND + d] = nodeeq[nodes[a]][d];
    }
  check_mesh("7x6 quad grid, 3 DOF/node", neq, NX * NY, 4 * ND, geq);
  free(geq);

  /* Bad input: clear errors, nothing returned. */
  crd_csr *A = NULL;
  int32_t *sc = NULL;
  const int32_t dup[] = {0, 1, 2, 1};
  int rc = crd_pattern_build(3, 1, 4, dup, &A, &sc);
  T_OK(rc == CRD_ERR_INPUT && !A && !sc && strstr(crd_err_message(), "share equation 1"),
       "an element listing an equation twice is refused: %s", crd_err_message());
  const int32_t range[] = {0, 1, 3, -1};
  rc = crd_pattern_build(3, 1, 4, range, &A, &sc);
  T_OK(rc == CRD_ERR_INPUT && !A && strstr(crd_err_message(), "equation 3 out of range"),
       "an out-of-range equation is refused: %s", crd_err_message());
  rc = crd_pattern_build(4, 0, 4, NULL, &A, &sc);
  T_OK(rc == 0 && A && A->nnz == 4 && A->col[3] == 3, "no elements: diagonal-only pattern");
  crd_csr_destroy(&A);
  free(sc);
  return T_DONE();
}
