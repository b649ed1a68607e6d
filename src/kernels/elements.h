/* crdyn: the element kernels and the gather assembly, one text for CUDA
 * and OpenCL: included by crd_cuda.cu (launchers in
 * include/crdyn/cuda_kernels.h) and put into the OpenCL program by
 * tools/cl_embed.sh after the CRD_HD headers (backend_opencl.c sets the
 * flat arguments).  The prelude is include/crdyn/crd_hd.h.
 *
 * The element work is the CRD_HD code of include/crdyn/elem_eval.h and
 * elem_split.h, the same the CPU backend runs.  Two layouts here:
 *  - one element per work-item (crd_k_static, crd_k_mid): OpenCL's serial
 *    variant (groups of one; faster on PoCL's CPU device, where a
 *    work-group runs on one core anyway, and the default there) and
 *    CUDA's "thread" layout (64-thread blocks);
 *  - split (crd_k_static_split, crd_k_mid_split): one work-group per
 *    element, its work-items sharing the element (docs/architecture.md §4):
 *    Gauss points, the entries of k_T and f, and the products of the
 *    transforms, through a crd_elem_ws workspace in group memory (18.7 KB);
 *    work-item 0 does the serial phases and writes the outputs.  The
 *    default on GPUs (CUDA: CRD_CU_SPLIT_BLOCK threads; OpenCL:
 *    CRDYN_OPENCL_SPLIT).
 * Both give the same bits (the split keeps the serial order).  kind[e]:
 * the element's status; first_bad: lowered to the smallest failing
 * element (the resident explicit loop's failure flag, explicit_loop.h).
 *
 * Assembly by gather: one work-item per assembled entry sums its
 * contributions (element, local entry) in ascending element order through
 * the inverse of the scatter map: no atomics on doubles (not core OpenCL
 * 1.2), and the order of the CPU's serial scatter, so the assembled values
 * are the same bits as the CPU's for the same element values. */

CRD_KERNEL crd_k_static(const int ne, const int want_k, CRD_GLOBAL const int *quads, CRD_GLOBAL const double *x,
                        CRD_GLOBAL const double *p0n, CRD_GLOBAL const double *dn, CRD_GLOBAL const double *pn,
                        CRD_GLOBAL const int *ln, CRD_GLOBAL const double *mat, CRD_GLOBAL double *fe,
                        CRD_GLOBAL double *ke, CRD_GLOBAL double *ue, CRD_GLOBAL int *kind, CRD_GLOBAL int *first_bad)
{
  const int e = CRD_GID;
  if (e >= ne) return;
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
  int k = crd_elem_static(e, quads, x, p0n, dn, pn, ln, &mt, want_k, fe + 20 * (size_t)e, ke + 210 * (size_t)e,
                          ue + e);
  kind[e] = k;
  if (k) CRD_ATOMIC_MIN(first_bad, e);
}

CRD_KERNEL crd_k_mid(const int ne, const int want_k, CRD_GLOBAL const int *quads, CRD_GLOBAL const double *x,
                     CRD_GLOBAL const double *p0n, CRD_GLOBAL const double *d0n, CRD_GLOBAL const double *pan,
                     CRD_GLOBAL const double *dbn, CRD_GLOBAL const double *pbn, CRD_GLOBAL const double *dfn,
                     CRD_GLOBAL const double *pfn, CRD_GLOBAL const double *amn, CRD_GLOBAL const double *wamn,
                     CRD_GLOBAL const double *Bsn, CRD_GLOBAL const int *ln, CRD_GLOBAL const double *Cn,
                     CRD_GLOBAL const double *mat, const double cf, const double cm, const double xi,
                     CRD_GLOBAL double *fg, CRD_GLOBAL double *fin, CRD_GLOBAL double *ke, CRD_GLOBAL double *E,
                     CRD_GLOBAL double *ue, CRD_GLOBAL int *kind, CRD_GLOBAL int *first_bad)
{
  const int e = CRD_GID;
  if (e >= ne) return;
  crd_q4_mat mt = crd_q4_mat_at(mat, e, xi);
  int b = crd_elem_mid(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                       want_k, fg + 20 * (size_t)e, fin + 20 * (size_t)e, ke + 210 * (size_t)e,
                       E + 400 * (size_t)e, ue + e);
  kind[e] = b;
  if (b) CRD_ATOMIC_MIN(first_bad, e);
}

/* The split layout: every work-item of the group calls the split body. */
CRD_KERNEL crd_k_static_split(const int ne, const int want_k, CRD_GLOBAL const int *quads,
                              CRD_GLOBAL const double *x, CRD_GLOBAL const double *p0n, CRD_GLOBAL const double *dn,
                              CRD_GLOBAL const double *pn, CRD_GLOBAL const int *ln, CRD_GLOBAL const double *mat,
                              CRD_GLOBAL double *fe, CRD_GLOBAL double *ke, CRD_GLOBAL double *ue,
                              CRD_GLOBAL int *kind, CRD_GLOBAL int *first_bad)
{
  CRD_SHARED crd_elem_ws ws;
  const int e = CRD_GROUP;
  if (e >= ne) return; /* the whole group */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
  int k = crd_elem_static_split(e, quads, x, p0n, dn, pn, ln, &mt, want_k, fe + 20 * (size_t)e,
                                ke + 210 * (size_t)e, ue + e, &ws);
  if (CRD_TID == 0) {
    kind[e] = k;
    if (k) CRD_ATOMIC_MIN(first_bad, e);
  }
}

CRD_KERNEL crd_k_mid_split(const int ne, const int want_k, CRD_GLOBAL const int *quads, CRD_GLOBAL const double *x,
                           CRD_GLOBAL const double *p0n, CRD_GLOBAL const double *d0n, CRD_GLOBAL const double *pan,
                           CRD_GLOBAL const double *dbn, CRD_GLOBAL const double *pbn, CRD_GLOBAL const double *dfn,
                           CRD_GLOBAL const double *pfn, CRD_GLOBAL const double *amn, CRD_GLOBAL const double *wamn,
                           CRD_GLOBAL const double *Bsn, CRD_GLOBAL const int *ln, CRD_GLOBAL const double *Cn,
                           CRD_GLOBAL const double *mat, const double cf, const double cm, const double xi,
                           CRD_GLOBAL double *fg, CRD_GLOBAL double *fin, CRD_GLOBAL double *ke,
                           CRD_GLOBAL double *E, CRD_GLOBAL double *ue, CRD_GLOBAL int *kind,
                           CRD_GLOBAL int *first_bad)
{
  CRD_SHARED crd_elem_ws ws;
  const int e = CRD_GROUP;
  if (e >= ne) return; /* the whole group */
  crd_q4_mat mt = crd_q4_mat_at(mat, e, xi);
  int b = crd_elem_mid_split(e, quads, x, p0n, d0n, pan, dbn, pbn, dfn, pfn, amn, wamn, Bsn, ln, Cn, &mt, cf, cm,
                             want_k, fg + 20 * (size_t)e, fin + 20 * (size_t)e, ke + 210 * (size_t)e,
                             E + 400 * (size_t)e, ue + e, &ws);
  if (CRD_TID == 0) {
    kind[e] = b;
    if (b) CRD_ATOMIC_MIN(first_bad, e);
  }
}

/* dst[i] = sum of src[idx[j]], j = ptr[i] .. ptr[i+1]-1, in that order. */
CRD_KERNEL crd_k_gather(const int n, CRD_GLOBAL const int *ptr, CRD_GLOBAL const int *idx,
                        CRD_GLOBAL const double *src, CRD_GLOBAL double *dst)
{
  int i = CRD_GID;
  if (i >= n) return;
  double s = 0.0;
  for (int j = ptr[i]; j < ptr[i + 1]; ++j) s += src[idx[j]];
  dst[i] = s;
}
