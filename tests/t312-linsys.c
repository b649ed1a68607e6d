/* The run's linear system (linsys.h) on a chain of springs: the pattern
 * analysed once however often it is factorized (again only when asked), a
 * negative definite matrix refused by LL^T and factorized after the switch
 * to LDL^T, the switch kept, create and destroy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/linsys.h"
#include "crdyn/sparse.h"
#include "tap.h"

enum { N = 40 };

/* Springs k_e between equations e and e+1, equation 0 held by one more:
 * s times that stiffness (s < 0: negative definite). */
static void assemble(crd_csr *A, const int32_t *sc, double s)
{
  crd_csr_zero(A);
  for (int e = 0; e < N - 1; ++e) {
    double k = s * (1.0 + 0.1 * e);
    A->val[sc[3 * e + crd_tri_index(0, 0, 2)]] += k;
    A->val[sc[3 * e + crd_tri_index(0, 1, 2)]] -= k;
    A->val[sc[3 * e + crd_tri_index(1, 1, 2)]] += k;
  }
  A->val[sc[crd_tri_index(0, 0, 2)]] += s;
}

static double residual(crd_linsys *ls, const crd_csr *A)
{
  double b[N], x[N], r[N], nr = 0.0, nb = 0.0;
  for (int i = 0; i < N; ++i) b[i] = sin(1.0 + i);
  if (crd_solver_solve(ls->solver, b, x)) return INFINITY;
  crd_csr_symv(A, x, r);
  for (int i = 0; i < N; ++i) nr += (r[i] - b[i]) * (r[i] - b[i]), nb += b[i] * b[i];
  return sqrt(nr / nb);
}

int main(void)
{
  int32_t eq[2 * (N - 1)];
  for (int e = 0; e < N - 1; ++e) eq[2 * e] = e, eq[2 * e + 1] = e + 1;
  crd_csr *A = NULL;
  int32_t *sc = NULL;
  int rc = crd_pattern_build(N, N - 1, 2, eq, &A, &sc);
  T_OK(rc == 0, "pattern of a chain of %d equations", N);
  if (rc) return T_DONE();

  crd_linsys *ls = NULL;
  rc = crd_linsys_create("nosuch", &ls);
  T_OK(rc == CRD_ERR_INPUT && !ls && strstr(crd_err_message(), "nosuch"), "an unknown solver refused: %s",
       crd_err_message());
  rc = crd_linsys_create(NULL, &ls);
  T_OK(rc == 0 && ls && !ls->analysed && !ls->indefinite && !strcmp(crd_solver_name(ls->solver), "cholmod"),
       "created with the default solver, nothing analysed, LL^T");
  if (rc) return T_DONE();

  assemble(A, sc, 1.0);
  rc = crd_linsys_factorize(ls, A);
  double res = residual(ls, A);
  T_OK(rc == 0 && ls->analysed && res < 1e-12, "factorized (analysed on the way): residual %.3g", res);
  assemble(A, sc, 2.0);
  rc = crd_linsys_factorize(ls, A);
  res = residual(ls, A);
  const crd_solver_stats *st = crd_solver_get_stats(ls->solver);
  T_OK(rc == 0 && st->nanalyse == 1 && st->nfactor == 2 && res < 1e-12,
       "new values: factorized again, the pattern analysed once (%d analyses, %d factorizations)", st->nanalyse,
       st->nfactor);

  assemble(A, sc, -1.0);
  rc = crd_linsys_factorize(ls, A);
  T_OK(rc == CRD_WARN_NOT_POSDEF && !ls->indefinite, "negative definite: LL^T refuses it (%s)", crd_err_message());
  crd_err_clear();
  rc = crd_linsys_go_indefinite(ls, A);
  res = residual(ls, A);
  T_OK(rc == 0 && ls->indefinite && st->nanalyse == 2 && res < 1e-12,
       "switched to LDL^T: analysed again and factorized, residual %.3g", res);
  rc = crd_linsys_factorize(ls, A);
  T_OK(rc == 0 && ls->indefinite && st->nanalyse == 2, "the switch stays: factorized again without an analysis");
  rc = crd_linsys_analyse(ls, A);
  T_OK(rc == 0 && st->nanalyse == 3 && !crd_linsys_factorize(ls, A) && st->nanalyse == 3 && residual(ls, A) < 1e-12,
       "analysed again when asked (a modal analysis), then factorized without another");

  crd_linsys_destroy(&ls);
  T_OK(ls == NULL, "destroy sets the pointer to NULL");
  crd_linsys_destroy(&ls);
  T_OK(1, "destroying NULL is a no-op");
  rc = crd_linsys_create("cholmod", &ls);
  T_OK(rc == 0 && !crd_linsys_set_indefinite(ls) && ls->indefinite && !ls->analysed,
       "set_indefinite (a restart): LDL^T before any analysis");
  crd_linsys_destroy(&ls);
  crd_csr_destroy(&A);
  free(sc);
  return T_DONE();
}
