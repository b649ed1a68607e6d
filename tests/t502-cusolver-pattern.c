/* The host part of the cusolver device solver (solver_cusolver.c), which
 * needs no GPU: the permuted full matrix B = P A P^T that csrchol factors,
 * built from the upper CSR triangle A of a real shell tangent and a
 * random permutation.  Checked: rows sorted and without duplicates, B
 * symmetric, and every stored entry of A lands at B(inv[r], inv[c]) and
 * its mirror, with the values: B scattered from A by pos1/pos2 equals the
 * dense P A P^T.  And the libraries, loaded at run time, have every
 * function the solver calls.  Builds without CUDA report a skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "../src/host/solvers/solver_priv.h"

int main(void)
{
#ifndef CRD_HAVE_CUDA
  printf("ok 1 # SKIP this build has no CUDA (solver_cusolver.c not built)\n1..1\n");
  return 0;
#else
  const char *js = "{\"format\": 1, \"mesh\": {\"generate\": {\"type\": \"rectangle\", \"lx\": 1, \"ly\": 1, "
                   "\"nx\": 5, \"ny\": 4}}, \"sections\": [{\"elements\": \"all\", \"E\": 1e7, \"nu\": 0.3, "
                   "\"rho\": 1, \"thickness\": 0.01}], \"supports\": [{\"set\": \"x0\", \"fix\": \"all\"}], "
                   "\"analysis\": {\"type\": \"static\"}}";
  crd_model *m = NULL;
  crd_problem *pb = NULL;
  int rc = crd_case_load_string(js, "t502.json", &m);
  T_OK(rc == 0 && crd_problem_create(m, 1, &pb) == 0, "plate 5x4 problem");
  if (!pb) return T_DONE();
  int n = pb->neq;
  double *F = calloc((size_t)n, 8), U;
  T_OK(crd_problem_eval(pb, 1, F, &U) == 0, "tangent: %d equations, %lld stored entries", n, (long long)pb->K->nnz);
  const crd_csr *A = pb->K;
  int *perm = malloc(sizeof(int) * (size_t)n), *inv = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) perm[i] = i;
  srand(3);
  for (int i = n - 1; i > 0; --i) {
    int j = rand() % (i + 1), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int i = 0; i < n; ++i) inv[perm[i]] = i;
  int *rowB, *colB, *pos1, *pos2;
  rc = crd_cusolver_permute_pattern(A, perm, &rowB, &colB, &pos1, &pos2);
  T_OK(rc == 0, "permuted pattern built%s%s", rc ? ": " : "", rc ? crd_err_message() : "");
  if (rc) return T_DONE();
  long nnzB = rowB[n];
  T_OK(nnzB == 2 * A->nnz - n, "B holds both triangles: %ld entries", nnzB);
  int sorted = 1;
  for (int i = 0; i < n; ++i)
    for (int k = rowB[i] + 1; k < rowB[i + 1]; ++k) sorted &= colB[k - 1] < colB[k];
  T_OK(sorted, "rows of B sorted, no duplicate columns");
  double *valB = calloc((size_t)nnzB, 8), *dense = calloc((size_t)n * n, 8);
  int where = 1;
  for (int r = 0; r < n; ++r)
    for (int k = A->rowptr[r]; k < A->rowptr[r + 1]; ++k) {
      int c = A->col[k], pr = inv[r], pc = inv[c];
      where &= pos1[k] >= rowB[pr] && pos1[k] < rowB[pr + 1] && colB[pos1[k]] == pc;
      where &= c == r ? pos2[k] == -1 : (pos2[k] >= rowB[pc] && pos2[k] < rowB[pc + 1] && colB[pos2[k]] == pr);
      valB[pos1[k]] = A->val[k];
      if (pos2[k] >= 0) valB[pos2[k]] = A->val[k];
      dense[(size_t)pr * n + pc] = dense[(size_t)pc * n + pr] = A->val[k];
    }
  T_OK(where, "every entry of A and its mirror land at B(inv r, inv c) and B(inv c, inv r)");
  int equal = 1;
  for (int i = 0; i < n; ++i)
    for (int k = rowB[i]; k < rowB[i + 1]; ++k) equal &= valB[k] == dense[(size_t)i * n + colB[k]];
  long dense_nz = 0;
  for (size_t k = 0; k < (size_t)n * n; ++k) dense_nz += dense[k] != 0.0;
  long b_nz = 0;
  for (long k = 0; k < nnzB; ++k) b_nz += valB[k] != 0.0;
  T_OK(equal && dense_nz == b_nz, "B's values are P A P^T (%ld nonzeros)", b_nz);
  rc = crd_cusolver_load();
  T_OK(rc == 0, "libcusolver and libcusparse load (dlopen) with every function the solver calls%s%s",
       rc ? ": " : "", rc ? crd_err_message() : "");
  free(F); free(perm); free(inv); free(rowB); free(colB); free(pos1); free(pos2); free(valB); free(dense);
  crd_problem_destroy(&pb);
  crd_model_destroy(&m);
  return T_DONE();
#endif
}
