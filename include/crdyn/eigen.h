/* crdyn: generalized symmetric eigenpairs for modal analysis,
 * K x = lambda M x (ARPACK, shift-invert Lanczos).
 *
 * K symmetric positive semi-definite (a free structure has up to six zero
 * eigenvalues, its rigid-body modes), M symmetric positive definite.  Both
 * are crd_csr upper triangles (sparse.h) with the same pattern: the same
 * rowptr and col contents (a lumped, diagonal M must be stored on K's
 * pattern with explicit zeros). */
#ifndef CRDYN_EIGEN_H
#define CRDYN_EIGEN_H

#include "crdyn/sparse.h"

/* The nev eigenpairs of K x = lambda M x nearest above sigma, ascending.
 *
 * sigma must lie below the smallest eigenvalue so that K - sigma M is SPD
 * and is factorized once by Cholesky (crd_solver "cholmod"); for a free
 * structure take sigma < 0, e.g. minus a small fraction of the first
 * elastic eigenvalue expected.  Convergence is fastest for eigenvalues
 * close to sigma relative to their spacing.
 *
 * nev: 1 <= nev < n (Lanczos needs a basis larger than nev; for all n
 * eigenpairs use a dense solver).  tol: relative accuracy of the Ritz
 * values of (K - sigma M)^-1 M; tol <= 0 means machine precision.
 * lambda (nev) gets the eigenvalues, vecs (n x nev, column-major) the
 * eigenvectors, M-normalized (x^T M x = 1) and M-orthogonal.  *nconv gets
 * the number of converged pairs: nev on success.
 *
 * Returns 0, or <0 with a message (crd_err_message): CRD_ERR_INPUT for bad
 * arguments, a pattern mismatch, or K - sigma M not positive definite;
 * CRD_ERR_NUMERIC when ARPACK stops early (restart cap reached: the
 * *nconv converged pairs are still returned, ascending, in the first slots;
 * usually the lowest, but Lanczos does not guarantee it) or fails (its info
 * code explained in words).
 *
 * Not for concurrent use: ARPACK keeps state in Fortran SAVE variables, so
 * calls are serialized by a process-wide lock. */
int crd_eigen_shift_invert(const crd_csr *K, const crd_csr *M, double sigma, int nev, double tol,
                           double *lambda, double *vecs, int *nconv);

#endif
