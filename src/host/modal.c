/* placeholder until the eigen module lands */
#include "crdyn/error.h"
#include "crdyn/run.h"
int crd_modal_run(crd_run *r)
{
  return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: modal analysis: not built yet", r->m->case_path);
}
