/* crdyn: OpenCL kernels of the device-resident explicit loop (backend.h,
 * "the device-resident explicit loop"): per step j of a call, node1 ->
 * pres -> elem -> node2 -> reduce, in one in-order queue.  The physics is
 * include/crdyn/explicit_node.h and elem_eval.h (above this file in the
 * program source); the kernels only copy a node's values to private
 * arrays, call them and write back, so the results are the host loop's.
 *
 * status[0]: first step of the call with an element failure (INT_MAX:
 * none), status[1]: the smallest failing element of that step, status[2]:
 * the first node with a non-finite state (-1: none; written by reduce on
 * the last step).  Every kernel of a later step returns at once. */

__kernel void crd_kx_node1(const int nn, const int j, const double dt, __global const int *eqn,
                           __global const uchar *locked, __global double *dn, __global double *pn,
                           __global int *ln, __global const double *vn, __global double *wn,
                           __global const double *an, __global const double *wan, __global double *vhn,
                           __global double *whn, __global double *dprev, __global const int *status)
{
  int i = (int)get_global_id(0);
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

__kernel void crd_kx_pres(const int npres, const int j, __global const int *idx, __global const double *val,
                          __global double *dn, __global const int *status)
{
  int k = (int)get_global_id(0);
  if (k >= npres || status[0] < j) return;
  dn[idx[k]] = val[(size_t)j * npres + k];
}

/* One work-group per element, f_e and u_e only: the serial variant (groups
 * of one work-item). */
__kernel void crd_kx_elem(const int ne, const int j, __global const int *quads, __global const double *x,
                          __global const double *p0n, __global const double *dn, __global const double *pn,
                          __global const int *ln, __global const double *mat, __global double *fe,
                          __global double *ke, __global double *ue, __global int *kind, __global int *status)
{
  int e = (int)get_group_id(0);
  if (e >= ne || get_local_id(0) != 0 || status[0] < j) return;
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
  int kd = crd_elem_static(e, quads, x, p0n, dn, pn, ln, &mt, 0, fe + 20 * e, ke, ue + e);
  kind[e] = kd;
  if (kd) {
    atomic_min(&status[0], j);
    atomic_min(&status[1], e);
  }
}

/* crd_kx_elem with the element split over the work-group (elem_split.h;
 * CRDYN_OPENCL_SPLIT, crd_elements.cl): the Gauss points and the 20 entries
 * of f shared, the same bits.  The step test is read once per group so
 * that all its work-items take the same branch (status changes while the
 * kernel runs). */
__kernel void crd_kx_elem_split(const int ne, const int j, __global const int *quads, __global const double *x,
                                __global const double *p0n, __global const double *dn, __global const double *pn,
                                __global const int *ln, __global const double *mat, __global double *fe,
                                __global double *ke, __global double *ue, __global int *kind, __global int *status)
{
  __local crd_elem_ws ws;
  __local int go;
  int e = (int)get_group_id(0);
  if (e >= ne) return; /* the whole group */
  if (get_local_id(0) == 0) go = status[0] >= j;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!go) return;
  crd_q4_mat mt = crd_q4_mat_at(mat, e, 0.0);
  int kd = crd_elem_static_split(e, quads, x, p0n, dn, pn, ln, &mt, 0, fe + 20 * e, ke, ue + e, &ws);
  if (get_local_id(0) != 0) return;
  kind[e] = kd;
  if (kd) {
    atomic_min(&status[0], j);
    atomic_min(&status[1], e);
  }
}

/* F_int and F_ext at a node's equations (gathers in the host's order),
 * the accelerations, the end-of-step rates and the node's measures. */
__kernel void crd_kx_node2(const int nn, const int j, const double dt, const double s, const int nload,
                           __global const int *eqn, __global const int *fptr, __global const int *fidx,
                           __global const double *fe, __global const int *lptr, __global const int *lidx,
                           __global const int *l_load, __global const double *l_a, __global const double *l_b,
                           __global const double *fac, __global const double *mlump,
                           __global const double *plump, __global const double *x, __global const double *dn,
                           __global const double *pn, __global const int *ln, __global double *vn,
                           __global double *wn, __global double *an, __global double *wan,
                           __global const double *vhn, __global const double *whn, __global double *contrib,
                           __global const int *status)
{
  int i = (int)get_global_id(0);
  if (i >= nn || status[0] < j) return;
  int eq[5];
  double fr[5], p[3], wp[3], a[3], wa[3], v[3], w[3], xc[3], d[3], o[7];
  __global const double *facj = fac + (size_t)j * nload;
  for (int k = 0; k < 5; ++k) {
    int q = eqn[5 * i + k];
    eq[k] = q;
    fr[k] = 0.0;
    if (q < 0) continue;
    double fi = 0.0, fx = 0.0;
    for (int t = fptr[q]; t < fptr[q + 1]; ++t) fi += fe[fidx[t]];
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

/* One work-item: the external work of step j (entries in order) added to
 * acc[0]; on the last step of a call the measures acc[1..8] (K, L, J, U)
 * summed in node and element order, and the first non-finite node.  A
 * serial sum is what makes them the host's bits. */
__kernel void crd_kx_reduce(const int nn, const int ne, const int nw, const int j, const int last,
                            const int nload, __global const int *w_idx, __global const int *w_load,
                            __global const double *w_a, __global const double *w_b, __global const double *facw,
                            __global const double *dn, __global const double *dprev,
                            __global const double *contrib, __global const double *ue, __global double *acc,
                            __global int *status)
{
  if (get_global_id(0) != 0 || status[0] < j) return;
  __global const double *fj = facw + (size_t)j * nload;
  double W = 0.0;
  for (int k = 0; k < nw; ++k) {
    int q = w_idx[k];
    W += fj[w_load[k]] * w_a[k] * w_b[k] * (dn[q] - dprev[q]);
  }
  acc[0] = acc[0] + W;
  if (!last) return;
  double K = 0.0, L0 = 0.0, L1 = 0.0, L2 = 0.0, J0 = 0.0, J1 = 0.0, J2 = 0.0, U = 0.0;
  int bad = -1;
  for (int i = 0; i < nn; ++i) {
    __global const double *c = contrib + 8 * i;
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
