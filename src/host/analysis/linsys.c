/* crdyn: the linear system of a run (linsys.h). */
#include <stdlib.h>

#include "crdyn/error.h"
#include "crdyn/linsys.h"

int crd_linsys_create(const char *solver, crd_linsys **out)
{
  crd_linsys *ls;
  *out = NULL;
  CRD_CALL(CRD_CALLOC(1, &ls));
  int rc = crd_solver_create(solver, &ls->solver);
  if (rc) {
    free(ls);
    return CRD_TRACE(rc);
  }
  *out = ls;
  return 0;
}

void crd_linsys_destroy(crd_linsys **pls)
{
  crd_linsys *ls = *pls;
  if (!ls) return;
  crd_solver_destroy(&ls->solver);
  free(ls);
  *pls = NULL;
}

int crd_linsys_analyse(crd_linsys *ls, const crd_csr *K)
{
  CRD_CALL(crd_solver_analyse(ls->solver, K));
  ls->analysed = 1;
  return 0;
}

int crd_linsys_factorize(crd_linsys *ls, const crd_csr *K)
{
  if (!ls->analysed) CRD_CALL(crd_linsys_analyse(ls, K));
  return crd_solver_factorize(ls->solver, K);
}

int crd_linsys_set_indefinite(crd_linsys *ls)
{
  CRD_CALL(crd_solver_set_indefinite(ls->solver, 1));
  ls->indefinite = 1;
  return 0;
}

int crd_linsys_go_indefinite(crd_linsys *ls, const crd_csr *K)
{
  CRD_CALL(crd_linsys_set_indefinite(ls));
  CRD_CALL(crd_linsys_analyse(ls, K));
  return crd_solver_factorize(ls->solver, K);
}
