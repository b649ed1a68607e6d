/* crdyn: what a linear solver backend implements (solver.h front end in
 * solver_cholmod.c, which times, checks the call order and keeps the
 * pattern).  Private to src/host. */
#ifndef CRDYN_SOLVER_PRIV_H
#define CRDYN_SOLVER_PRIV_H

#include <stdint.h>

#include "crdyn/solver.h"

typedef struct crd_solver_ops {
  const char *name;
  int (*create)(void **impl);
  /* Ordering and symbolic factorization; fills stats->nnz_factor and
   * stats->flops_factor. */
  int (*analyse)(void *impl, const crd_csr *A, crd_solver_stats *stats);
  /* Numeric factorization on the analysed pattern; on CRD_WARN_NOT_POSDEF
   * *failed_eq is the caller's equation of the bad pivot (-1 if unknown). */
  int (*factorize)(void *impl, const crd_csr *A, int32_t *failed_eq);
  int (*solve)(void *impl, const double *b, double *x);
  void (*destroy)(void *impl);
  /* Switch to an LDL^T factorization that accepts indefinite matrices
   * (takes effect at the next analyse); NULL when unsupported. */
  int (*set_indefinite)(void *impl, int on);
  /* Negative pivots of the last LDL^T factorization (-1: unknown). */
  int (*neg_pivots)(void *impl);
} crd_solver_ops;

#ifdef CRD_HAVE_CUDA
extern const crd_solver_ops crd_cusolver_ops;   /* solver_cusolver.c */
/* The full pattern of B = P A P^T (row i of B is row perm[i] of A; A the
 * upper CSR triangle): rowB (n+1), colB (2 nnz - n, sorted per row), and
 * for every stored entry k of A its position pos1[k] in B and, off the
 * diagonal, pos2[k] of its mirror (-1 on the diagonal).  Host only, so
 * that it is tested without a GPU (t502-cusolver-pattern). */
/* Load cuSOLVER and cuSPARSE (dlopen) and find every function the solver
 * calls; needs no GPU (t502 checks it). */
int crd_cusolver_load(void);
/* The ordering the host gives the device solvers: CHOLMOD's analysis with
 * METIS (AMD when METIS fails); perm (n) and st->nnz_factor, flops_factor. */
int crd_solver_host_order(const crd_csr *A, int *perm, crd_solver_stats *st);
int crd_cusolver_permute_pattern(const crd_csr *A, const int *perm, int **rowB, int **colB, int **pos1, int **pos2);
#endif
#ifdef CRD_HAVE_PETSC
extern const crd_solver_ops crd_mumps_ops;      /* solver_mumps.c (MPI builds with PETSc) */
#endif
#if defined(CRD_HAVE_CUDA) && defined(CRD_HAVE_CUDSS)
extern const crd_solver_ops crd_cudss_ops;      /* solver_cudss.c */
#endif

#endif
