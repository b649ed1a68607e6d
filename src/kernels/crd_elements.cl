/* crdyn: OpenCL kernels of the element loop and the assembly.
 *
 * The element work is the CRD_HD code of include/crdyn/elem_eval.h and
 * elem_split.h, the same the CPU backend runs: tools/cl_embed.sh puts the
 * headers above this file in the program source at build time.
 *
 * One work-group per element, in two variants (docs/opencl.md):
 *  - split (crd_k_static_split, crd_k_mid_split): the work-items of the
 *    group share the element (docs/architecture.md §4): Gauss points, the entries of
 *    k_T and f, and the products of the transforms, through a workspace in
 *    __local memory (crd_elem_ws, 18.7 KB); the default on GPU devices;
 *  - serial (crd_k_static, crd_k_mid): one work-item per group does the
 *    whole element (groups of one); faster on PoCL's CPU device, where a
 *    work-group runs on one core anyway (profiling/RESULTS.md), and the
 *    default there.
 * CRDYN_OPENCL_SPLIT=N picks the split with N work-items, 0 the serial
 * kernels.  Both give the same bits (the phases keep the serial order).
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
  if (e >= ne || get_local_id(0) != 0) return; /* the serial variant: groups of one */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
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
  if (e >= ne || get_local_id(0) != 0) return; /* the serial variant: groups of one */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, xi);
  kind[e] = crd_elem_mid(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                         want_k, fg + 20 * e, fin + 20 * e, ke + 210 * e, E + 400 * (size_t)e, ue + e);
}

/* The split variants: every work-item of the group calls the split body. */
__kernel void crd_k_static_split(const int ne, const int want_k, __global const int *quads, __global const double *x,
                                 __global const double *p0n, __global const double *dn, __global const double *pn,
                                 __global const int *ln, __global const double *mat, __global double *fe,
                                 __global double *ke, __global double *ue, __global int *kind)
{
  __local crd_elem_ws ws;
  int e = (int)get_group_id(0);
  if (e >= ne) return; /* the whole group */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
  int kd = crd_elem_static_split(e, quads, x, p0n, dn, pn, ln, &mt, want_k, fe + 20 * e, ke + 210 * e, ue + e, &ws);
  if (get_local_id(0) == 0) kind[e] = kd;
}

__kernel void crd_k_mid_split(const int ne, const int want_k, __global const int *quads, __global const double *x,
                              __global const double *p0n, __global const double *d0n, __global const double *pan,
                              __global const double *dbn, __global const double *pbn, __global const double *dfn,
                              __global const double *pfn, __global const double *amn, __global const double *wamn,
                              __global const double *Bsn, __global const int *ln, __global const double *Cn,
                              __global const double *mat, const double cf, const double cm, __global double *fg,
                              __global double *fin, __global double *ke, __global double *E, __global double *ue,
                              __global int *kind, const double xi)
{
  __local crd_elem_ws ws;
  int e = (int)get_group_id(0);
  if (e >= ne) return; /* the whole group */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, xi);
  int kd = crd_elem_mid_split(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                              want_k, fg + 20 * e, fin + 20 * e, ke + 210 * e, E + 400 * (size_t)e, ue + e, &ws);
  if (get_local_id(0) == 0) kind[e] = kd;
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
