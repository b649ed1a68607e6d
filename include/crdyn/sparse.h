/* crdyn: the CSR upper triangle of a symmetric matrix and the element
 * scatter map (built once per mesh; the same map serves every backend).
 *
 * DATA LAYOUT: row r holds columns c >= r, sorted; the diagonal is the first
 * entry of each row.  Seen as CSC the same arrays are the lower triangle,
 * which is how CHOLMOD takes them (stype = -1), with no copy.
 * An element's packed upper triangle is row-major over its ndof local DOFs:
 * t(i,j) = i*ndof - i*(i-1)/2 + (j-i) for i <= j (crd_tri_index).
 * scatter[e*ntri + t] is the CSR position of the entry, or -1 when either DOF
 * is constrained. */
#ifndef CRDYN_SPARSE_H
#define CRDYN_SPARSE_H

#include <stddef.h>
#include <stdint.h>

typedef struct crd_csr {
  int32_t n;          /* rows = columns */
  int64_t nnz;        /* stored entries (upper triangle with diagonal) */
  int32_t *rowptr;    /* n+1 (int32: CHOLMOD's int interface; nnz < 2^31 checked) */
  int32_t *col;       /* nnz */
  double *val;        /* nnz */
} crd_csr;

static inline int crd_tri_index(int i, int j, int ndof)
{
  if (i > j) { int t = i; i = j; j = t; }
  return i * ndof - i * (i - 1) / 2 + (j - i);
}

/* Build the pattern of an n x n matrix from ne elements of ndof local DOFs:
 * elem_eq[e*ndof + a] is the global equation of local DOF a, or -1 when
 * constrained.  Returns the CSR (values zeroed) and the scatter map
 * (ne * ndof*(ndof+1)/2 entries).  OpenMP-parallel where it pays. */
int crd_pattern_build(int32_t n, int32_t ne, int ndof, const int32_t *elem_eq,
                      crd_csr **A, int32_t **scatter);
void crd_csr_destroy(crd_csr **A);
/* y = A x with A symmetric stored as its upper triangle. */
void crd_csr_symv(const crd_csr *A, const double *x, double *y);
/* Zero the values. */
void crd_csr_zero(crd_csr *A);

/* The inverse of a scatter map (the device backends' gather assembly): for
 * each target i < ntgt, the sources s in ascending order (the CPU's
 * summation order) with map[s] == i, as idx[ptr[i] .. ptr[i+1]-1]; map
 * entries < 0 are skipped.  *ptr and *idx are allocated (free them). */
int crd_map_invert(const int32_t *map, size_t nsrc, int ntgt, int **ptr, int **idx);

#endif
