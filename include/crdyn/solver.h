/* crdyn: sparse symmetric positive definite solvers behind one interface.
 *
 * analyse once per pattern (ordering, symbolic factorization), factorize per
 * new values (Newton iteration), solve any number of right-hand sides.
 * Implementations: "cholmod" (host, supernodal).  Device solvers (cuDSS,
 * cuSOLVER csrchol) implement the same ops. */
#ifndef CRDYN_SOLVER_H
#define CRDYN_SOLVER_H

#include "crdyn/sparse.h"

typedef struct crd_solver crd_solver;

typedef struct crd_solver_stats {
  double analyse_s, factor_s, solve_s;   /* accumulated wall time */
  int nanalyse, nfactor, nsolve;
  double nnz_factor;                     /* entries of L (of the exact factor) */
  double nnz_stored;                     /* values stored for L (relaxed supernodes add zeros; 0: unknown) */
  double flops_factor;                   /* flops of one numeric factorization (exact factor) */
  double factor_first_s;                 /* the first numeric factorization of a pattern (allocates L) */
  double refactor_min_s, refactor_s;     /* later ones: fastest, and their sum */
  int nrefactor;
  int blas_threads;                      /* the BLAS's threads chosen at analyse (0: left as it was) */
  double nnz_factor_rank;                /* MUMPS over MPI ranks: the factor's entries on the rank that holds
                                          * most, after the last factorization (0: one process's solver) */
} crd_solver_stats;

/* name: "cholmod" (or "auto"/NULL for the default). */
int crd_solver_create(const char *name, crd_solver **s);
/* Threads of the dense kernels (the BLAS under CHOLMOD) for the process:
 * at most the run's --threads (OpenBLAS would otherwise take every core);
 * CHOLMOD's analyse then keeps one for a factorization below 1e9 flops
 * (solver_cholmod.c: CRD_BLAS_THREAD_FLOPS). */
void crd_solver_set_blas_threads(int n);
int crd_solver_analyse(crd_solver *s, const crd_csr *A);
/* Returns CRD_WARN_NOT_POSDEF (message names the equation) when a pivot is
 * not positive: the caller decides (cut the step, report a singular model). */
int crd_solver_factorize(crd_solver *s, const crd_csr *A);
/* x = A^{-1} b (x and b may alias). */
int crd_solver_solve(crd_solver *s, const double *b, double *x);
/* Number of negative pivots of the last factorization attempt when the
 * backend can tell (LDL^T), else -1. */
int crd_solver_neg_pivots(const crd_solver *s);
/* The equation (0-based, the caller's numbering) of the non-positive pivot
 * of the last factorization attempt, or -1 when it succeeded (or none ran). */
int crd_solver_failed_equation(const crd_solver *s);
/* Switch to LDL^T for symmetric indefinite matrices (call analyse again). */
int crd_solver_set_indefinite(crd_solver *s, int on);
const crd_solver_stats *crd_solver_get_stats(const crd_solver *s);
const char *crd_solver_name(const crd_solver *s);
void crd_solver_destroy(crd_solver **s);

#endif
