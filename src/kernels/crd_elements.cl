/* crdyn: OpenCL kernels of the element loop and the assembly.
 *
 * The element work is the CRD_HD code of include/crdyn/elem_eval.h, the
 * same the CPU backend runs: tools/cl_embed.sh puts the headers above this
 * file in the program source at build time.
 *
 * One work-group per element.  For now a single work-item of the group
 * does the whole element (the per-Gauss-point and per-entry split of
 * DESIGN.md §4 is not done yet: correctness first); the others return.
 *
 * Assembly is a gather: one work-item per assembled entry sums its
 * contributions (element, local entry) in ascending element order through
 * the inverse of the scatter map.  No atomics on doubles (not core OpenCL
 * 1.2), and the sum is in the order of the CPU's serial scatter, so the
 * assembled values are the same bits as the CPU's for the same element
 * values. */

__kernel void crd_k_static(const int ne, const int want_k, __global const int *quads, __global const double *x,
                           __global const double *p0n, __global const double *dn, __global const double *pn,
                           __global const int *ln, __global const double *mat, __global double *fe,
                           __global double *ke, __global double *ue, __global int *kind)
{
  int e = (int)get_group_id(0);
  if (e >= ne || get_local_id(0) != 0) return;
  crd_q4_mat mt;
  mt.E = mat[3 * e];
  mt.nu = mat[3 * e + 1];
  mt.h = mat[3 * e + 2];
  mt.xi = 0.0;
  kind[e] = crd_elem_static(e, quads, x, p0n, dn, pn, ln, &mt, want_k, fe + 20 * e, ke + 210 * e, ue + e);
}

__kernel void crd_k_mid(const int ne, const int want_k, __global const int *quads, __global const double *x,
                        __global const double *p0n, __global const double *d0n, __global const double *pan,
                        __global const double *dbn, __global const double *pbn, __global const double *dfn,
                        __global const double *pfn, __global const double *amn, __global const double *wamn,
                        __global const double *Bsn, __global const int *ln, __global const double *Cn,
                        __global const double *mat, const double cf, const double cm, __global double *fg,
                        __global double *fin, __global double *ke, __global double *E, __global double *ue,
                        __global int *kind, const double xi)
{
  int e = (int)get_group_id(0);
  if (e >= ne || get_local_id(0) != 0) return;
  crd_q4_mat mt;
  mt.E = mat[3 * e];
  mt.nu = mat[3 * e + 1];
  mt.h = mat[3 * e + 2];
  mt.xi = xi;
  kind[e] = crd_elem_mid(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                         want_k, fg + 20 * e, fin + 20 * e, ke + 210 * e, E + 400 * (size_t)e, ue + e);
}

/* dst[i] = sum of src[idx[j]], j = ptr[i] .. ptr[i+1]-1, in that order. */
__kernel void crd_k_gather(const int n, __global const int *ptr, __global const int *idx,
                           __global const double *src, __global double *dst)
{
  int i = (int)get_global_id(0);
  if (i >= n) return;
  double s = 0.0;
  for (int j = ptr[i]; j < ptr[i + 1]; ++j) s += src[idx[j]];
  dst[i] = s;
}
