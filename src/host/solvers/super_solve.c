/* crdyn: supernodal triangular solves (super_solve.h).
 *
 * Supernode s, with nc columns and nr >= nc rows, column j of its values
 * c_j = x + px[s] + j nr (rows 0 .. nr-1: the diagonal block's rows, then
 * those below).  With w = b gathered on the supernode's rows:
 *   forward  (L y = b):   for j = 0 .. nc-1: w_j /= c_j[j];
 *                         w_i -= c_j[i] w_j for i > j;
 *   backward (L^T x = y): for j = nc-1 .. 0:
 *                         w_j = (w_j - sum_{i>j} c_j[i] w_i) / c_j[j];
 * then w scattered back.  The forward sweep's updates of the rows below
 * are the ones a later supernode reads, which is why supernodes go in
 * order (and in reverse for the backward sweep).  Column by column, not
 * four columns at a time with one pass over w for the four: a supernode's
 * values are contiguous, and one stream through them is what the
 * hardware prefetcher follows (four interleaved column streams were
 * slower: profiling/README.md; w is in L1 either way). */
#include "super_solve.h"

/* The per-supernode kernels are built for the generic target and for
 * x86-64-v3 / v4, chosen at load time (an ifunc): the loops run four or
 * eight lanes wide instead of the v2 build's two, so that the arithmetic
 * stays under the memory stream it follows. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CRD_SUPER_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define CRD_SUPER_CLONES
#endif

int crd_super_max_rows(const crd_super_factor *L)
{
  int m = 0;
  for (int s = 0; s < L->nsuper; ++s)
    if (L->pi[s + 1] - L->pi[s] > m) m = L->pi[s + 1] - L->pi[s];
  return m;
}

/* L y = b on one supernode's rows: w (nr) in, w out.  Column by column,
 * so that the supernode's values (contiguous, column-major) are read as
 * one ascending stream; w stays in L1. */
CRD_SUPER_CLONES
static void forward_node(int nc, int nr, const double *restrict X, double *restrict w)
{
  for (int j = 0; j < nc; ++j) {
    const double *restrict c = X + (long)j * nr;
    const double y = w[j] / c[j];
    w[j] = y;
#pragma omp simd
    for (int i = j + 1; i < nr; ++i) w[i] -= c[i] * y;
  }
}

/* L^T x = y on one supernode's rows: w (nr; rows nc.. final) in, w out.
 * Columns last to first and each column's rows last to first: one
 * descending stream through the values. */
CRD_SUPER_CLONES
static void backward_node(int nc, int nr, const double *restrict X, double *restrict w)
{
  for (int j = nc - 1; j >= 0; --j) {
    const double *restrict c = X + (long)j * nr;
    double a = 0.0;
#pragma omp simd reduction(+ : a)
    for (int i = nr - 1; i > j; --i) a += c[i] * w[i];
    w[j] = (w[j] - a) / c[j];
  }
}

void crd_super_solve(const crd_super_factor *L, double *b, double *w)
{
  const int *super = L->super, *pi = L->pi, *px = L->px, *idx = L->idx;
  for (int s = 0; s < L->nsuper; ++s) {
    const int nc = super[s + 1] - super[s], nr = pi[s + 1] - pi[s];
    const int *r = idx + pi[s];
    for (int i = 0; i < nr; ++i) w[i] = b[r[i]];
    forward_node(nc, nr, L->x + px[s], w);
    for (int i = 0; i < nr; ++i) b[r[i]] = w[i];
  }
  for (int s = L->nsuper - 1; s >= 0; --s) {
    const int nc = super[s + 1] - super[s], nr = pi[s + 1] - pi[s];
    const int *r = idx + pi[s];
    for (int i = 0; i < nr; ++i) w[i] = b[r[i]];
    backward_node(nc, nr, L->x + px[s], w);
    for (int i = 0; i < nc; ++i) b[r[i]] = w[i];
  }
}
