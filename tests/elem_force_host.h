/* crdyn tests: the lean force kernel's phases (include/crdyn/elem_force.h)
 * run on the host, lane by lane and phase by phase as a block runs them
 * between its barriers (the CUDA kernel, src/kernels/crd_cuda_force.cu,
 * calls the same functions).  EF_HOST_FN names the runner: t230 includes
 * this with the build's flags (no contraction, divisions: the bitwise
 * build) and tests/elem_force_fma.c with CRD_EF_RCP=1 and FMA contraction
 * (the default device build's choices). */
#include "crdyn/elem_force.h"

void EF_HOST_FN(int ne, const int *quads, const double *x, const double *d, const double *p, const int *l,
                const double *mat, const double *geo, double *fe, double *ue, int *kind);
void EF_HOST_FN(int ne, const int *quads, const double *x, const double *d, const double *p, const int *l,
                const double *mat, const double *geo, double *fe, double *ue, int *kind)
{
  for (int e = 0; e < ne; ++e) {
    crd_ef_ws w;
    const double *g = geo + CRD_EF_GEO * (size_t)e;
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_load(i, e, quads, x, d, p, l, mat, &w);
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_frame(i, g, &w);
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_dframe(i, &w);
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_gauss(i, g, &w);
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_fnode(i, g, &w);
    for (int i = 0; i < CRD_EF_LANES; ++i) {
      crd_ef_lam(i, &w);
      crd_ef_corner(i, g, &w);
    }
    kind[e] = crd_ef_kind(g, &w, ue + e);
    for (int i = 0; i < CRD_EF_LANES; ++i) crd_ef_global(i, &w, fe + 20 * (size_t)e + 5 * i);
  }
}
