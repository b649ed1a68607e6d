/* crdyn: the MUMPS solver through PETSc, for runs over MPI ranks
 * (--solver mumps; docs/distributed.md).  Built with `make MPI=1` where
 * PETSc with MUMPS is found (CRD_HAVE_PETSC).
 *
 * The caller's matrix is the upper triangle in CSR (sparse.h), the same on
 * every rank.  Rank r takes the rows of its block into a PETSc SBAIJ
 * matrix (MPISBAIJ over ranks: the upper triangle, as stored here), MUMPS
 * factorizes it distributed (LDL^T, sym = 2: the count of negative pivots,
 * INFOG(12), tells an indefinite matrix, which is refused as CHOLMOD's LL^T
 * refuses it until set_indefinite), each rank holding its part of the
 * factor; a solve takes the right-hand side's block of each rank and
 * gathers the solution on every rank. */
#ifdef CRD_HAVE_PETSC
#include <stdlib.h>
#include <string.h>

#include <petscmat.h>

#include "crdyn/error.h"
#include "crdyn/parallel.h"
#include "solver_priv.h"

typedef struct mumps_impl {
  Mat A, F;                 /* the matrix (this rank's rows) and its factor */
  Vec b, x, xall;           /* right-hand side, solution, the solution on every rank */
  VecScatter toall;
  PetscInt r0, r1;          /* this rank's rows */
  PetscInt *cols;           /* a row's column indices (the longest row's length) */
  int indefinite;
  int neg;                  /* negative pivots of the last factorization */
  crd_solver_stats *st;     /* the front end's figures (nnz_factor, nnz_factor_rank) */
} mumps_impl;

#define PCALL(call)                                                                        \
  do {                                                                                     \
    PetscErrorCode e_ = (call);                                                            \
    if (e_) return CRD_ERR(CRD_ERR_NUMERIC, "PETSc/MUMPS: %s failed (error %d)", #call, (int)e_); \
  } while (0)

static void petsc_end(void)
{
  PetscFinalize();
}

static int mumps_create(void **out)
{
  PetscBool up;
  PetscInitialized(&up);
  if (!up) {
    PCALL(PetscInitializeNoArguments());
    crd_par_at_finalize(petsc_end);
  }
  mumps_impl *m;
  CRD_CALL(CRD_CALLOC(1, &m));
  m->neg = -1;
  *out = m;
  return 0;
}

static void mumps_free_mats(mumps_impl *m)
{
  if (m->toall) VecScatterDestroy(&m->toall);
  if (m->xall) VecDestroy(&m->xall);
  if (m->x) VecDestroy(&m->x);
  if (m->b) VecDestroy(&m->b);
  if (m->F) MatDestroy(&m->F);
  if (m->A) MatDestroy(&m->A);
  free(m->cols);
  m->cols = NULL;
}

static void mumps_destroy(void *impl)
{
  mumps_impl *m = impl;
  if (!m) return;
  mumps_free_mats(m);
  free(m);
}

/* This rank's rows of A into m->A (values inserted, then assembled). */
static int set_rows(mumps_impl *m, const crd_csr *A)
{
  for (PetscInt i = m->r0; i < m->r1; ++i) {
    PetscInt k0 = A->rowptr[i], cnt = A->rowptr[i + 1] - k0;
    for (PetscInt k = 0; k < cnt; ++k) m->cols[k] = A->col[k0 + k];
    PCALL(MatSetValues(m->A, 1, &i, cnt, m->cols, A->val + k0, INSERT_VALUES));
  }
  PCALL(MatAssemblyBegin(m->A, MAT_FINAL_ASSEMBLY));
  PCALL(MatAssemblyEnd(m->A, MAT_FINAL_ASSEMBLY));
  return 0;
}

/* The SBAIJ matrix of this rank's rows, preallocated from the pattern
 * (for SBAIJ the upper-triangle counts, the last two arguments):
 * per row, the entries in this rank's columns and those to its right. */
static int create_matrix(mumps_impl *m, const crd_csr *A)
{
  PetscInt n = A->n, nloc;
  m->r0 = (PetscInt)((long long)n * crd_par_rank() / crd_par_size());
  m->r1 = (PetscInt)((long long)n * (crd_par_rank() + 1) / crd_par_size());
  nloc = m->r1 - m->r0;
  PetscInt *dn = calloc((size_t)(nloc > 0 ? nloc : 1), sizeof *dn), *on = calloc((size_t)(nloc > 0 ? nloc : 1), sizeof *on);
  if (!dn || !on) {
    free(dn);
    free(on);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  PetscInt longest = 1;
  for (PetscInt i = m->r0; i < m->r1; ++i) {
    if (A->rowptr[i + 1] - A->rowptr[i] > longest) longest = A->rowptr[i + 1] - A->rowptr[i];
    for (int32_t k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      if (A->col[k] < m->r1) dn[i - m->r0]++;
      else on[i - m->r0]++;
    }
  }
  m->cols = malloc(sizeof *m->cols * (size_t)longest);
  PetscErrorCode e = m->cols ? 0 : PETSC_ERR_MEM;
  if (!e) e = MatCreate(PETSC_COMM_WORLD, &m->A);
  if (!e) e = MatSetSizes(m->A, nloc, nloc, n, n);
  if (!e) e = MatSetType(m->A, MATSBAIJ);
  if (!e) e = MatXAIJSetPreallocation(m->A, 1, dn, on, dn, on);
  if (!e) e = MatSetOption(m->A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE);
  free(dn);
  free(on);
  if (e) return CRD_ERR(CRD_ERR_NUMERIC, "PETSc: the SBAIJ matrix of %d rows could not be created (error %d)", (int)n, (int)e);
  return 0;
}

static int mumps_analyse(void *impl, const crd_csr *A, crd_solver_stats *st)
{
  mumps_impl *m = impl;
  mumps_free_mats(m);
  CRD_CALL(create_matrix(m, A));
  CRD_CALL(set_rows(m, A));
  PCALL(MatGetFactor(m->A, MATSOLVERMUMPS, MAT_FACTOR_CHOLESKY, &m->F));
  PCALL(MatMumpsSetIcntl(m->F, 7, 5));   /* the ordering: METIS */
  PCALL(MatMumpsSetIcntl(m->F, 24, 1));  /* null pivots detected, not an error */
  MatFactorInfo info;
  PCALL(MatFactorInfoInitialize(&info));
  PCALL(MatCholeskyFactorSymbolic(m->F, m->A, NULL, &info));
  PetscInt nf;
  PetscReal fl;
  PCALL(MatMumpsGetInfog(m->F, 20, &nf)); /* estimated entries of the factor (negative: millions) */
  PCALL(MatMumpsGetRinfog(m->F, 1, &fl)); /* estimated flops of the elimination */
  st->nnz_factor = nf < 0 ? -1e6 * nf : (double)nf;
  st->flops_factor = fl;
  m->st = st;
  PCALL(MatCreateVecs(m->A, &m->x, &m->b));
  PCALL(VecScatterCreateToAll(m->x, &m->toall, &m->xall));
  return 0;
}

/* The factor's entries in all (INFOG(29)) and on the rank that holds most
 * (INFO(27), the maximum over ranks); MUMPS gives a count above 2^31 as
 * minus millions. */
static int factor_sizes(mumps_impl *m)
{
  PetscInt all, mine;
  PCALL(MatMumpsGetInfog(m->F, 29, &all));
  PCALL(MatMumpsGetInfo(m->F, 27, &mine));
  double most = mine < 0 ? -1e6 * mine : (double)mine;
  crd_par_max_dbl(&most, 1);
  if (m->st) {
    m->st->nnz_factor = all < 0 ? -1e6 * all : (double)all;
    m->st->nnz_factor_rank = most;
  }
  return 0;
}

static int mumps_factorize(void *impl, const crd_csr *A, int32_t *failed_eq)
{
  mumps_impl *m = impl;
  *failed_eq = -1;
  CRD_CALL(set_rows(m, A));
  MatFactorInfo info;
  PCALL(MatFactorInfoInitialize(&info));
  PCALL(MatCholeskyFactorNumeric(m->F, m->A, &info));
  MatFactorError fe;
  PCALL(MatFactorGetError(m->F, &fe));
  PetscInt neg, nnull;
  PCALL(MatMumpsGetInfog(m->F, 12, &neg));
  PCALL(MatMumpsGetInfog(m->F, 28, &nnull));
  m->neg = (int)neg;
  CRD_CALL(factor_sizes(m));
  if (fe != MAT_FACTOR_NOERROR || nnull > 0)
    return crd_err_set(CRD_WARN_NOT_POSDEF, __FILE__, __LINE__, __func__,
                       "MUMPS: the matrix is singular (%d null pivots)", (int)nnull);
  if (neg > 0 && !m->indefinite)
    return crd_err_set(CRD_WARN_NOT_POSDEF, __FILE__, __LINE__, __func__,
                       "MUMPS: the matrix is not positive definite (%d negative pivots)", (int)neg);
  return 0;
}

static int mumps_solve(void *impl, const double *b, double *x)
{
  mumps_impl *m = impl;
  PetscScalar *pb;
  const PetscScalar *px;
  PCALL(VecGetArray(m->b, &pb));
  memcpy(pb, b + m->r0, sizeof(double) * (size_t)(m->r1 - m->r0));
  PCALL(VecRestoreArray(m->b, &pb));
  PCALL(MatSolve(m->F, m->b, m->x));
  PCALL(VecScatterBegin(m->toall, m->x, m->xall, INSERT_VALUES, SCATTER_FORWARD));
  PCALL(VecScatterEnd(m->toall, m->x, m->xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscInt n;
  PCALL(VecGetSize(m->xall, &n));
  PCALL(VecGetArrayRead(m->xall, &px));
  memcpy(x, px, sizeof(double) * (size_t)n);
  PCALL(VecRestoreArrayRead(m->xall, &px));
  return 0;
}

static int mumps_set_indefinite(void *impl, int on)
{
  ((mumps_impl *)impl)->indefinite = on;
  return 0;
}

static int mumps_neg_pivots(void *impl)
{
  return ((mumps_impl *)impl)->neg;
}

const crd_solver_ops crd_mumps_ops = {
  .name = "mumps",
  .create = mumps_create,
  .analyse = mumps_analyse,
  .factorize = mumps_factorize,
  .solve = mumps_solve,
  .destroy = mumps_destroy,
  .set_indefinite = mumps_set_indefinite,
  .neg_pivots = mumps_neg_pivots,
};

#endif /* CRD_HAVE_PETSC */
