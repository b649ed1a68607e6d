/* crdyn: CSR pattern of the upper triangle and the element scatter map
 * (sparse.h).
 *
 * The pattern is built row by row from an equation -> element adjacency:
 * row r collects the equations >= r of every element that touches r.  This
 * needs O(nnz + ne*ndof) memory, where expanding every element pair first
 * and sorting would need another ne*ndof*(ndof+1)/2 entries (as big as the
 * scatter map itself, about 1.2 GB at 1e6 elements of 24 DOFs).  Rows are
 * independent, so the two passes over them (count, then fill) and the scatter
 * pass over elements run as OpenMP loops without synchronisation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "crdyn/error.h"
#include "crdyn/sparse.h"

/* Largest element we accept: keeps ndof*(ndof+1)/2 and the local buffers
 * small; shell elements have 20-24, rigid-body couplings a few more. */
#define CRD_PATTERN_MAX_NDOF 4096

/* Insert c into the sorted, duplicate-free list u[0..*nu) unless present.
 * Rows are short (tens of entries), so binary search plus memmove beats
 * collecting everything and sorting. */
static inline void sorted_insert(int32_t *u, int32_t *nu, int32_t c)
{
  int32_t lo = 0, hi = *nu;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (u[mid] < c) lo = mid + 1; else hi = mid;
  }
  if (lo < *nu && u[lo] == c) return;
  memmove(u + lo + 1, u + lo, (size_t)(*nu - lo) * sizeof *u);
  u[lo] = c;
  ++*nu;
}

/* The columns of row r: r itself first (every row keeps its diagonal, even
 * one no element couples), then the equations > r of the elements touching
 * r, sorted and unique.  u must hold the final count. */
static int32_t row_columns(int32_t r, const int64_t *eptr, const int32_t *elist, int ndof,
                           const int32_t *elem_eq, int32_t *u)
{
  int32_t nu = 1;
  u[0] = r;
  for (int64_t k = eptr[r]; k < eptr[r + 1]; ++k) {
    const int32_t *eq = elem_eq + (size_t)elist[k] * (size_t)ndof;
    for (int a = 0; a < ndof; ++a)
      if (eq[a] > r) sorted_insert(u, &nu, eq[a]);
  }
  return nu;
}

/* Position of column c in row r (c >= r, present by construction). */
static inline int32_t csr_find(const crd_csr *A, int32_t r, int32_t c)
{
  int32_t lo = A->rowptr[r], hi = A->rowptr[r + 1];
  if (c == r) return lo; /* diagonal first */
  ++lo;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (A->col[mid] < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* 1a. The number of elements touching each equation q into eptr[q + 1],
 *     checking that every equation is in [-1, n); then the prefix sum, so
 *     eptr[q] is where q's elements start.  Serial: O(ne*ndof) and memory
 *     bound. */
static int adjacency_count(int32_t n, int32_t ne, int ndof, const int32_t *elem_eq, int64_t *eptr)
{
  for (int64_t e = 0; e < ne; ++e) {
    const int32_t *eq = elem_eq + e * ndof;
    for (int a = 0; a < ndof; ++a) {
      if (eq[a] < -1 || eq[a] >= n)
        return CRD_ERR(CRD_ERR_INPUT, "element %lld, local DOF %d: equation %d out of range [-1, %d)",
                       (long long)e, a, (int)eq[a], (int)n);
      if (eq[a] >= 0) ++eptr[eq[a] + 1];
    }
  }
  for (int32_t r = 0; r < n; ++r) eptr[r + 1] += eptr[r];
  return 0;
}

/* The message for element e whose local DOF a repeats equation q. */
static int shared_equation_error(int32_t e, const int32_t *eq, int a, int32_t q)
{
  int a0 = 0;
  while (eq[a0] != q) ++a0;
  return CRD_ERR(CRD_ERR_INPUT,
                 "element %d: local DOFs %d and %d share equation %d (collapsed node?); "
                 "the scatter map needs distinct equations per element",
                 (int)e, a0, a, (int)q);
}

/* 1b. The elements of every equation into elist (counting sort by
 *     equation, elements in increasing order).  Elements arrive in
 *     increasing order, so an equation listed twice by one element shows up
 *     as a repeat of the last entry: refused, as the packed upper triangle
 *     cannot express it (the pair (a,b) with eq[a] == eq[b] would need
 *     2*k_ab on the diagonal, the map adds k_ab once). */
static int adjacency_fill(int32_t n, int32_t ne, int ndof, const int32_t *elem_eq, const int64_t *eptr,
                          int32_t *elist)
{
  int64_t *next = NULL; /* fill cursor per equation */
  CRD_CALL(CRD_CALLOC((size_t)n + 1, &next));
  memcpy(next, eptr, ((size_t)n + 1) * sizeof *next);
  for (int32_t e = 0; e < ne; ++e) {
    const int32_t *eq = elem_eq + (size_t)e * ndof;
    for (int a = 0; a < ndof; ++a) {
      int32_t q = eq[a];
      if (q < 0) continue;
      if (next[q] > eptr[q] && elist[next[q] - 1] == e) {
        free(next);
        return shared_equation_error(e, eq, a, q);
      }
      elist[next[q]++] = e;
    }
  }
  free(next);
  return 0;
}

/* 2. The number of columns of every row into A->rowptr[r + 1] (rows in
 *    parallel, one candidate buffer per thread).  A row has at most
 *    1 + (number of elements touching it)*ndof candidates, never more than
 *    n - r. */
static int count_columns(crd_csr *A, const int64_t *eptr, const int32_t *elist, int ndof, const int32_t *elem_eq)
{
  const int32_t n = A->n;
  int64_t maxcand = 1;
  int nthr = 1;
  int32_t *buf = NULL;
  for (int32_t r = 0; r < n; ++r) {
    int64_t c = 1 + (eptr[r + 1] - eptr[r]) * ndof;
    if (c > n - r) c = n - r;
    if (c > maxcand) maxcand = c;
  }
#ifdef _OPENMP
  nthr = omp_get_max_threads();
#endif
  CRD_CALL(CRD_CALLOC((size_t)nthr * (size_t)maxcand, &buf));
#pragma omp parallel for schedule(dynamic, 1024)
  for (int32_t r = 0; r < n; ++r) {
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    A->rowptr[r + 1] = row_columns(r, eptr, elist, ndof, elem_eq, buf + (size_t)tid * maxcand);
  }
  free(buf);
  return 0;
}

/* The row counts summed into row starts, with the limit of CHOLMOD's int
 * interface (int32 rowptr); A->nnz the total. */
static int rowptr_prefix(crd_csr *A)
{
  int64_t s = 0;
  for (int32_t r = 0; r < A->n; ++r) {
    s += A->rowptr[r + 1];
    if (s > INT32_MAX)
      return CRD_ERR(CRD_ERR_UNSUPPORTED,
                     "matrix pattern too large: more than 2^31-1 stored entries (upper triangle) "
                     "already at row %d of %d; the int32 CSR/CHOLMOD int interface cannot hold it",
                     (int)r, (int)A->n);
    A->rowptr[r + 1] = (int32_t)s;
  }
  A->nnz = s;
  return 0;
}

/* 3. The columns of every row, straight into their final place (rows in
 *    parallel), and the values zeroed. */
static int fill_columns(crd_csr *A, const int64_t *eptr, const int32_t *elist, int ndof, const int32_t *elem_eq)
{
  const int32_t n = A->n;
  CRD_CALL(CRD_CALLOC(A->nnz, &A->col));
  CRD_CALL(CRD_CALLOC(A->nnz, &A->val));
#pragma omp parallel for schedule(dynamic, 1024)
  for (int32_t r = 0; r < n; ++r)
    row_columns(r, eptr, elist, ndof, elem_eq, A->col + A->rowptr[r]);
  return 0;
}

/* 4. Scatter map: CSR position of every entry of every element's packed
 *    upper triangle, in the order of crd_tri_index (-1 for a fixed DOF). */
static int scatter_map(const crd_csr *A, int32_t ne, int ndof, const int32_t *elem_eq, int32_t **out)
{
  const int64_t ntri = (int64_t)ndof * (ndof + 1) / 2;
  int32_t *scatter = NULL;
  CRD_CALL(CRD_CALLOC((size_t)ne * (size_t)ntri, &scatter));
#pragma omp parallel for schedule(static)
  for (int32_t e = 0; e < ne; ++e) {
    const int32_t *eq = elem_eq + (size_t)e * ndof;
    int32_t *s = scatter + (size_t)e * (size_t)ntri;
    int t = 0;
    for (int i = 0; i < ndof; ++i)
      for (int j = i; j < ndof; ++j, ++t) {
        int32_t p = eq[i], q = eq[j];
        if (p < 0 || q < 0) { s[t] = -1; continue; }
        s[t] = p <= q ? csr_find(A, p, q) : csr_find(A, q, p);
      }
  }
  *out = scatter;
  return 0;
}

int crd_pattern_build(int32_t n, int32_t ne, int ndof, const int32_t *elem_eq,
                      crd_csr **Aout, int32_t **scatter_out)
{
  CRD_CHECK(Aout && scatter_out, CRD_ERR_INPUT, "crd_pattern_build: NULL output pointer");
  *Aout = NULL;
  *scatter_out = NULL;
  CRD_CHECK(n >= 0 && ne >= 0, CRD_ERR_INPUT,
            "crd_pattern_build: negative size (n = %d equations, ne = %d elements)", (int)n, (int)ne);
  CRD_CHECK(ndof >= 1 && ndof <= CRD_PATTERN_MAX_NDOF, CRD_ERR_INPUT,
            "crd_pattern_build: %d DOFs per element (expected 1..%d)", ndof, CRD_PATTERN_MAX_NDOF);
  CRD_CHECK(elem_eq || ne == 0, CRD_ERR_INPUT, "crd_pattern_build: NULL element equation list");

  int rc = 0;
  int64_t *eptr = NULL;
  int32_t *elist = NULL, *scatter = NULL;
  crd_csr *A = NULL;

  /* 1. Equation -> element adjacency, checking the input on the way. */
  if ((rc = CRD_CALLOC((size_t)n + 1, &eptr)) || (rc = adjacency_count(n, ne, ndof, elem_eq, eptr))) goto fail;
  if ((rc = CRD_CALLOC(eptr[n], &elist)) || (rc = adjacency_fill(n, ne, ndof, elem_eq, eptr, elist))) goto fail;
  /* 2. The row counts, then the row starts. */
  if ((rc = CRD_CALLOC(1, &A))) goto fail;
  A->n = n;
  if ((rc = CRD_CALLOC((size_t)n + 1, &A->rowptr)) || (rc = count_columns(A, eptr, elist, ndof, elem_eq)) ||
      (rc = rowptr_prefix(A)))
    goto fail;
  /* 3. The columns; the adjacency is not needed after them. */
  if ((rc = fill_columns(A, eptr, elist, ndof, elem_eq))) goto fail;
  CRD_FREE(eptr);
  CRD_FREE(elist);
  /* 4. The scatter map. */
  if ((rc = scatter_map(A, ne, ndof, elem_eq, &scatter))) goto fail;

  *Aout = A;
  *scatter_out = scatter;
  return 0;

fail:
  free(eptr);
  free(elist);
  free(scatter);
  crd_csr_destroy(&A);
  return CRD_TRACE(rc);
}

void crd_csr_destroy(crd_csr **A)
{
  if (!A || !*A) return;
  free((*A)->rowptr);
  free((*A)->col);
  free((*A)->val);
  free(*A);
  *A = NULL;
}

/* x and y must not overlap (y is zeroed first).
 * Serial: the transposed half scatters into y[c], so a parallel version
 * needs per-thread copies of y or a full (both triangles) pattern; not worth
 * it while symv is used for checks rather than in an iterative solver. */
void crd_csr_symv(const crd_csr *A, const double *x, double *y)
{
  const int32_t n = A->n;
  memset(y, 0, (size_t)n * sizeof *y);
  for (int32_t r = 0; r < n; ++r) {
    const int32_t k0 = A->rowptr[r], k1 = A->rowptr[r + 1];
    const double xr = x[r];
    double acc = A->val[k0] * xr; /* diagonal */
    for (int32_t k = k0 + 1; k < k1; ++k) {
      const int32_t c = A->col[k];
      acc += A->val[k] * x[c];
      y[c] += A->val[k] * xr;
    }
    y[r] += acc;
  }
}

void crd_csr_zero(crd_csr *A)
{
  if (A && A->val) memset(A->val, 0, (size_t)A->nnz * sizeof *A->val);
}

/* The inverse of a scatter map: for each target i, the sources s (in
 * ascending order) with map[s] == i (the CPU's summation order). */
int crd_map_invert(const int32_t *map, size_t nsrc, int ntgt, int **ptr, int **idx)
{
  CRD_CALL(CRD_CALLOC(ntgt + 1, ptr));
  for (size_t s = 0; s < nsrc; ++s)
    if (map[s] >= 0) (*ptr)[map[s] + 1]++;
  for (int i = 0; i < ntgt; ++i) (*ptr)[i + 1] += (*ptr)[i];
  int *fill = NULL;
  if (CRD_CALLOC((*ptr)[ntgt] + 1, idx) || CRD_CALLOC(ntgt + 1, &fill)) {
    free(*ptr); free(*idx); free(fill);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  memcpy(fill, *ptr, sizeof(int) * (size_t)ntgt);
  for (size_t s = 0; s < nsrc; ++s)
    if (map[s] >= 0) (*idx)[fill[map[s]]++] = (int)s;
  free(fill);
  return 0;
}
