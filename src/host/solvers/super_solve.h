/* crdyn: the two triangular solves with a supernodal Cholesky factor
 * (L L^T = A), in CHOLMOD's supernodal layout, for one right-hand side.
 *
 * Why not cholmod_solve2: for one column it runs a dtrsv and a dgemv per
 * supernode through the BLAS plus a gather and scatter in separate passes,
 * several times the time of reading L at the memory's rate.  Here each
 * supernode's rows are gathered once into a dense vector, its columns
 * applied to it one after the other (the supernode's values read as one
 * stream) and the vector scattered back: each sweep streams L once (the
 * measurements: profiling/README.md). */
#ifndef CRDYN_SUPER_SOLVE_H
#define CRDYN_SUPER_SOLVE_H

/* The factor, CHOLMOD's fields (cholmod_factor with is_super, is_ll, real,
 * int indices): supernode s holds columns super[s] .. super[s+1]-1, its
 * row indices are idx[pi[s] .. pi[s+1]-1] (the columns themselves first),
 * its values x[px[s] ...] column-major with leading dimension
 * pi[s+1]-pi[s]. */
typedef struct crd_super_factor {
  int nsuper;
  const int *super, *pi, *px, *idx;
  const double *x;
} crd_super_factor;

/* The longest row list of a supernode: the workspace crd_super_solve needs. */
int crd_super_max_rows(const crd_super_factor *L);

/* b <- A^{-1} b = L^{-T} L^{-1} b, in place; w: crd_super_max_rows doubles. */
void crd_super_solve(const crd_super_factor *L, double *b, double *w);

#endif
