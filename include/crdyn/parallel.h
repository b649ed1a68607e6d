/* crdyn: runs over MPI ranks (docs/distributed.md).
 *
 * In this version every rank holds the whole model and state (replicated)
 * and the element passes are divided: rank r evaluates the elements of its
 * block [e0, e1) (contiguous blocks of equal count), then the per-element
 * results are gathered on every rank, so that the assembly, the solver and
 * every decision run on the same bits everywhere.  The assembly sums the
 * element contributions in element order as a single process does: a run
 * on N ranks gives the single-process history bit for bit.  Rank 0 alone
 * writes files and prints.
 *
 * Built with MPI only by `make MPI=1` (CRD_HAVE_MPI); otherwise the calls
 * below are those of a single rank and cost nothing. */
#ifndef CRDYN_PARALLEL_H
#define CRDYN_PARALLEL_H

/* MPI_Init where built with MPI (a no-op otherwise); 0 or an error. */
int crd_par_init(int *argc, char ***argv);
/* MPI_Finalize (after a failure: MPI_Abort with the exit status, so that
 * the ranks that did not fail are not left waiting). */
void crd_par_finalize(int status);
int crd_par_rank(void);
int crd_par_size(void);
/* The block of elements of this rank among ne: [*e0, *e1). */
void crd_par_elem_range(int ne, int *e0, int *e1);
/* Per-element arrays (width doubles per element, ne elements) complete on
 * every rank, each rank having filled its own block. */
int crd_par_gather_elems(double *a, int width, int ne);
/* The first failing element over all ranks (bad: this rank's first, or -1)
 * and its kind: the same on every rank. */
void crd_par_first_bad(int *bad, int *kind);
/* v[0..n) replaced by their maximum over the ranks: decisions that depend
 * on what only one rank may have seen (a signal, the wall clock). */
void crd_par_max_int(int *v, int n);
void crd_par_max_dbl(double *v, int n);
/* fn runs at crd_par_finalize, before MPI_Finalize (PETSc's own end). */
void crd_par_at_finalize(void (*fn)(void));

#endif
