/* crdyn tests: the lean force phases with reciprocals (CRD_EF_RCP) and
 * compiled with FMA contraction (Makefile: -ffp-contract=fast, x86-64-v3
 * where the host is x86-64), the choices of the default device build;
 * t230 compares them with the CPU's forces to 1e-12. */
#define CRD_EF_RCP 1
#define EF_HOST_FN ef_run_fma
#include "elem_force_host.h"
