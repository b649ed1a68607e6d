/* crdyn: the linear system of a run: the sparse solver the analyses
 * factorize the problem's matrix with, and the state that solver carries
 * from one analysis call to the next.
 *
 * The run creates it (run.c, with the solver --solver names) and holds it
 * in crd_run.ls; the analyses factorize and solve through it.  The problem
 * (problem.h) keeps the model side: the pattern and values of K.  The
 * pattern is analysed once (the symbolic factorization stays valid while
 * the pattern does); a tangent met indefinite switches the solver to
 * LDL^T for the rest of the run, and a checkpoint records that switch
 * (dyn_checkpoint.c), so that a restart factorizes as the run did. */
#ifndef CRDYN_LINSYS_H
#define CRDYN_LINSYS_H

#include "crdyn/solver.h"
#include "crdyn/sparse.h"

typedef struct crd_linsys {
  crd_solver *solver;
  int analysed;     /* the solver holds the symbolic factorization of the pattern */
  int indefinite;   /* switched to LDL^T */
} crd_linsys;

/* solver: a name of crd_solver_create ("cholmod", "cusolver", "mumps", ...;
 * NULL or "auto": the default). */
int crd_linsys_create(const char *solver, crd_linsys **ls);
void crd_linsys_destroy(crd_linsys **ls);

/* K's pattern analysed (again: a modal analysis, a timed calibration). */
int crd_linsys_analyse(crd_linsys *ls, const crd_csr *K);
/* K's pattern analysed the first time, then its values factorized; the
 * status of crd_solver_factorize (CRD_WARN_NOT_POSDEF: a pivot not
 * positive, the caller decides). */
int crd_linsys_factorize(crd_linsys *ls, const crd_csr *K);
/* LDL^T from here on: the solver switched, K analysed again and
 * factorized (the status as above). */
int crd_linsys_go_indefinite(crd_linsys *ls, const crd_csr *K);
/* LDL^T without a factorization (a restart of a run that had switched). */
int crd_linsys_set_indefinite(crd_linsys *ls);

#endif
