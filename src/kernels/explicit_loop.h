/* crdyn: the kernels of the device-resident explicit loop (backend.h, "the
 * device-resident explicit loop"), one text for CUDA and OpenCL: included
 * by crd_cuda_explicit.cu (launchers in include/crdyn/cuda_explicit.h) and
 * put into the OpenCL program by tools/cl_embed.sh after the CRD_HD
 * headers and elements.h (backend_opencl.c sets the flat arguments).  The
 * prelude is include/crdyn/crd_hd.h (CRD_KERNEL, CRD_GLOBAL, CRD_GID, ...).
 *
 * Per step j of a call, in one stream or in-order queue: node1 -> pres ->
 * the element force kernel of elements.h (crd_k_static or
 * crd_k_static_split, want_k 0; on CUDA also the thread0 layout) -> the
 * force gather (crd_k_gather, the CPU's element order) -> node2 -> reduce
 * (serial, or on CUDA the tree sums reduce_part -> reduce_final).  The
 * physics is include/crdyn/explicit_node.h, the same as the host loop
 * (explicit.c): the kernels copy a node's values to private arrays, call
 * the header functions and write back.  No contraction (OpenCL: FP_CONTRACT
 * OFF; nvcc: -fmad=false), so the node values are the host's bits.
 *
 * status[0]: first step of the call with an element failure (INT_MAX:
 * none), status[1]: the smallest failing element of that step, status[2]:
 * the first node with a non-finite state (-1: none; written by the sums on
 * the last step).  Every kernel of a step after the first step with an
 * element failure returns at once (status[0] < j), so the state stays that
 * of the failing step; the element kernel and the gather, which do not
 * read status, then recompute the same values from the unchanged state. */

/* Launch shapes of the tree sums (CUDA).  Their grid is fixed, so their
 * order (and their bits) does not depend on the device; powers of two.
 * Overridable only for the host emulation of tests/cli/cuda_emu.sh, which
 * runs the same code on a smaller grid (POSIX threads are slow barriers). */
#ifndef CRD_CUX_NODE_THREADS
#  define CRD_CUX_NODE_THREADS 128
#endif
#ifndef CRD_CUX_RED_BLOCKS
#  define CRD_CUX_RED_BLOCKS 128
#endif
#ifndef CRD_CUX_RED_THREADS
#  define CRD_CUX_RED_THREADS 256
#endif

/* Step j, part 1: half-step rates, advance, pair switch, predicted w. */
CRD_KERNEL crd_kx_node1(const int nn, const int j, const double dt, CRD_GLOBAL const int *eqn,
                        CRD_GLOBAL const unsigned char *locked, CRD_GLOBAL double *dn, CRD_GLOBAL double *pn,
                        CRD_GLOBAL int *ln, CRD_GLOBAL const double *vn, CRD_GLOBAL double *wn,
                        CRD_GLOBAL const double *an, CRD_GLOBAL const double *wan, CRD_GLOBAL double *vhn,
                        CRD_GLOBAL double *whn, CRD_GLOBAL double *dprev, CRD_GLOBAL const int *status)
{
  int i = CRD_GID;
  if (i >= nn || status[0] < j) return;
  int eq[5];
  double d[3], p[3], vh[3], wh[3];
  for (int k = 0; k < 5; ++k) eq[k] = eqn[5 * i + k];
  for (int c = 0; c < 3; ++c) {
    d[c] = dn[3 * i + c];
    p[c] = pn[3 * i + c];
    vh[c] = crd_exn_half(vn[3 * i + c], an[3 * i + c], dt);
    wh[c] = crd_exn_half(wn[3 * i + c], wan[3 * i + c], dt);
    dprev[3 * i + c] = d[c];
  }
  int l = ln[i];
  crd_exn_advance(eq, dt, vh, d, p, l, wh);
  /* the switch looks at p only: the prescribed translations (kernel pres,
   * after this one) do not change it */
  if (!locked[i]) l = crd_exn_switch(p, l);
  ln[i] = l;
  for (int c = 0; c < 3; ++c) {
    dn[3 * i + c] = d[c];
    pn[3 * i + c] = p[c];
    vhn[3 * i + c] = vh[c];
    whn[3 * i + c] = wh[c];
    wn[3 * i + c] = crd_exn_half(wh[c], wan[3 * i + c], dt); /* predicted for the inertia term */
  }
}

/* Step j: the prescribed translations. */
CRD_KERNEL crd_kx_pres(const int npres, const int j, CRD_GLOBAL const int *idx, CRD_GLOBAL const double *val,
                       CRD_GLOBAL double *dn, CRD_GLOBAL const int *status)
{
  int k = CRD_GID;
  if (k >= npres || status[0] < j) return;
  dn[idx[k]] = val[(size_t)j * npres + k];
}

/* Step j, part 2: F_ext - F_int at a node's equations (F_int assembled by
 * the gather, F_ext by the load entries in table order), the
 * accelerations, the end-of-step rates and the node's measures.  Work-item
 * 0 first turns an element failure of this step (first_bad < ne: the
 * element kernel's smallest failing element) into status[0..1]; the other
 * work-items read status[0] <= j either way, so they run this step. */
CRD_KERNEL crd_kx_node2(const int nn, const int ne, const int j, const double dt, const double s, const int nload,
                        CRD_GLOBAL const int *eqn, CRD_GLOBAL const double *F, CRD_GLOBAL const int *lptr,
                        CRD_GLOBAL const int *lidx, CRD_GLOBAL const int *l_load, CRD_GLOBAL const double *l_a,
                        CRD_GLOBAL const double *l_b, CRD_GLOBAL const double *fac, CRD_GLOBAL const double *mlump,
                        CRD_GLOBAL const double *plump, CRD_GLOBAL const double *x, CRD_GLOBAL const double *dn,
                        CRD_GLOBAL const double *pn, CRD_GLOBAL const int *ln, CRD_GLOBAL double *vn,
                        CRD_GLOBAL double *wn, CRD_GLOBAL double *an, CRD_GLOBAL double *wan,
                        CRD_GLOBAL const double *vhn, CRD_GLOBAL const double *whn, CRD_GLOBAL double *contrib,
                        CRD_GLOBAL const int *first_bad, CRD_GLOBAL int *status)
{
  int i = CRD_GID;
  if (i == 0) {
    int fb = *first_bad;
    if (fb < ne && status[0] >= j && CRD_ATOMIC_CAS(status, INT_MAX, j) == INT_MAX) status[1] = fb;
  }
  if (i >= nn || status[0] < j) return;
  int eq[5];
  double fr[5], p[3], wp[3], a[3], wa[3], v[3], w[3], xc[3], d[3], o[7];
  CRD_GLOBAL const double *facj = fac + (size_t)j * nload;
  for (int k = 0; k < 5; ++k) {
    int q = eqn[5 * i + k];
    eq[k] = q;
    fr[k] = 0.0;
    if (q < 0) continue;
    double fi = F[q], fx = 0.0;
    for (int t = lptr[q]; t < lptr[q + 1]; ++t) {
      int u = lidx[t];
      double f = facj[l_load[u]];
      if (f != 0.0) fx += f * l_a[u] * l_b[u];
    }
    fr[k] = fx - fi;
  }
  for (int c = 0; c < 3; ++c) {
    p[c] = pn[3 * i + c];
    wp[c] = wn[3 * i + c];
    d[c] = dn[3 * i + c];
  }
  double P = s * plump[i];
  crd_exn_accel(eq, fr, mlump[i], P, p, ln[i], wp, a, wa);
  for (int c = 0; c < 3; ++c) {
    v[c] = crd_exn_half(vhn[3 * i + c], a[c], dt);
    w[c] = crd_exn_half(whn[3 * i + c], wa[c], dt);
    vn[3 * i + c] = v[c];
    wn[3 * i + c] = w[c];
    an[3 * i + c] = a[c];
    wan[3 * i + c] = wa[c];
    xc[c] = x[3 * i + c] + d[c];
  }
  crd_exn_measure(mlump[i], P, xc, v, p, w, o);
  for (int k = 0; k < 7; ++k) contrib[8 * i + k] = o[k];
  contrib[8 * i + 7] = crd_exn_nonfinite(d, p, v, a, w, wa) ? 1.0 : 0.0;
}

/* The external work of entry k of the work table at step j (fj: the
 * step's work factors). */
CRD_HD double crd_kx_work_entry(CRD_GLOBAL const double *fj, CRD_GLOBAL const int *w_idx,
                                CRD_GLOBAL const int *w_load, CRD_GLOBAL const double *w_a,
                                CRD_GLOBAL const double *w_b, CRD_GLOBAL const double *dn,
                                CRD_GLOBAL const double *dprev, int k)
{
  int q = w_idx[k];
  return fj[w_load[k]] * w_a[k] * w_b[k] * (dn[q] - dprev[q]);
}

/* One work-item: the external work of step j (entries in order) added to
 * acc[0]; on the last step of a call the measures acc[1..8] (K, L, J, U)
 * summed in node and element order, and the first non-finite node.  A
 * serial sum is what makes them the host's bits. */
CRD_KERNEL crd_kx_reduce(const int nn, const int ne, const int nw, const int j, const int last, const int nload,
                         CRD_GLOBAL const int *w_idx, CRD_GLOBAL const int *w_load, CRD_GLOBAL const double *w_a,
                         CRD_GLOBAL const double *w_b, CRD_GLOBAL const double *facw, CRD_GLOBAL const double *dn,
                         CRD_GLOBAL const double *dprev, CRD_GLOBAL const double *contrib,
                         CRD_GLOBAL const double *ue, CRD_GLOBAL double *acc, CRD_GLOBAL int *status)
{
  if (CRD_GID != 0 || status[0] < j) return;
  CRD_GLOBAL const double *fj = facw + (size_t)j * nload;
  double W = 0.0;
  for (int k = 0; k < nw; ++k) W += crd_kx_work_entry(fj, w_idx, w_load, w_a, w_b, dn, dprev, k);
  acc[0] = acc[0] + W;
  if (!last) return;
  double K = 0.0, L0 = 0.0, L1 = 0.0, L2 = 0.0, J0 = 0.0, J1 = 0.0, J2 = 0.0, U = 0.0;
  int bad = -1;
  for (int i = 0; i < nn; ++i) {
    CRD_GLOBAL const double *c = contrib + 8 * i;
    K += c[0];
    L0 += c[1]; L1 += c[2]; L2 += c[3];
    J0 += c[4]; J1 += c[5]; J2 += c[6];
    if (bad < 0 && c[7] != 0.0) bad = i;
  }
  for (int e = 0; e < ne; ++e) U += ue[e];
  acc[1] = K;
  acc[2] = L0; acc[3] = L1; acc[4] = L2;
  acc[5] = J0; acc[6] = J1; acc[7] = J2;
  acc[8] = U;
  status[2] = bad;
}

/* Work-group tree sum of s[0..n) in a fixed order (s[0] holds the result
 * after it); n a power of two, the group's size. */
CRD_HD void crd_kx_tree(CRD_LOCAL double *s, int n)
{
  for (int h = n / 2; h > 0; h /= 2) {
    CRD_SYNC();
    if (CRD_TID < h) s[CRD_TID] += s[CRD_TID + h];
  }
  CRD_SYNC();
}

/* Work-group minimum of sb[0..n) into sb[0], likewise. */
CRD_HD void crd_kx_tree_min(CRD_LOCAL int *sb, int n)
{
  for (int h = n / 2; h > 0; h /= 2) {
    CRD_SYNC();
    if (CRD_TID < h && sb[CRD_TID + h] < sb[CRD_TID]) sb[CRD_TID] = sb[CRD_TID + h];
  }
  CRD_SYNC();
}

/* The tree sums, stage 1 (CRD_CUX_RED_BLOCKS groups of CRD_CUX_RED_THREADS
 * work-items): group b sums its grid stride of the work entries into
 * part[b] and, when last, of the node measures and the element energies
 * into part[RB + 9 b + c] (c: K, L, J, U) and the smallest non-finite node
 * into part_bad[b].  The fixed grid makes the order, and so the bits, the
 * same on every run. */
CRD_KERNEL crd_kx_reduce_part(const int nn, const int ne, const int nw, const int j, const int last,
                              const int nload, CRD_GLOBAL const int *w_idx, CRD_GLOBAL const int *w_load,
                              CRD_GLOBAL const double *w_a, CRD_GLOBAL const double *w_b,
                              CRD_GLOBAL const double *facw, CRD_GLOBAL const double *dn,
                              CRD_GLOBAL const double *dprev, CRD_GLOBAL const double *contrib,
                              CRD_GLOBAL const double *ue, CRD_GLOBAL double *part, CRD_GLOBAL int *part_bad,
                              CRD_GLOBAL const int *status)
{
  CRD_SHARED double s[CRD_CUX_RED_THREADS];
  CRD_SHARED int sb[CRD_CUX_RED_THREADS];
  if (status[0] < j) return; /* uniform: status is not written by this kernel */
  const int t = CRD_TID, b = CRD_GROUP, stride = CRD_CUX_RED_BLOCKS * CRD_CUX_RED_THREADS;
  CRD_GLOBAL const double *fj = facw + (size_t)j * nload;
  double v = 0.0;
  for (int k = b * CRD_CUX_RED_THREADS + t; k < nw; k += stride)
    v += crd_kx_work_entry(fj, w_idx, w_load, w_a, w_b, dn, dprev, k);
  s[t] = v;
  crd_kx_tree(s, CRD_CUX_RED_THREADS);
  if (t == 0) part[b] = s[0];
  if (!last) return;
  CRD_GLOBAL double *out = part + CRD_CUX_RED_BLOCKS + 9 * b;
  for (int c = 0; c < 8; ++c) {
    v = 0.0;
    if (c < 7)
      for (int i = b * CRD_CUX_RED_THREADS + t; i < nn; i += stride) v += contrib[8 * i + c];
    else
      for (int e = b * CRD_CUX_RED_THREADS + t; e < ne; e += stride) v += ue[e];
    s[t] = v;
    crd_kx_tree(s, CRD_CUX_RED_THREADS);
    if (t == 0) out[c] = s[0];
  }
  int bad = INT_MAX;
  for (int i = b * CRD_CUX_RED_THREADS + t; i < nn && bad == INT_MAX; i += stride)
    if (contrib[8 * i + 7] != 0.0) bad = i;
  sb[t] = bad;
  crd_kx_tree_min(sb, CRD_CUX_RED_THREADS);
  if (t == 0) part_bad[b] = sb[0];
}

/* The tree sums, stage 2 (one group of CRD_CUX_RED_BLOCKS work-items): the
 * group partials in a fixed tree, acc[0] += W and, when last, acc[1..8]
 * and status[2]. */
CRD_KERNEL crd_kx_reduce_final(const int j, const int last, CRD_GLOBAL const double *part,
                               CRD_GLOBAL const int *part_bad, CRD_GLOBAL double *acc, CRD_GLOBAL int *status)
{
  CRD_SHARED double s[CRD_CUX_RED_BLOCKS];
  CRD_SHARED int sb[CRD_CUX_RED_BLOCKS];
  if (status[0] < j) return;
  const int t = CRD_TID;
  for (int c = 0; c < (last ? 9 : 1); ++c) {
    s[t] = c == 0 ? part[t] : part[CRD_CUX_RED_BLOCKS + 9 * t + (c - 1)];
    crd_kx_tree(s, CRD_CUX_RED_BLOCKS);
    if (t == 0) {
      if (c == 0) acc[0] = acc[0] + s[0];
      else acc[c] = s[0];
    }
    CRD_SYNC();
  }
  if (!last) return;
  sb[t] = part_bad[t];
  crd_kx_tree_min(sb, CRD_CUX_RED_BLOCKS);
  if (t == 0) status[2] = sb[0] == INT_MAX ? -1 : sb[0];
}
