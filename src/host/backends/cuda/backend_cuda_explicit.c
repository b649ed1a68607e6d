/* crdyn: the resident explicit loop of the CUDA backend (backend.h ex_*,
 * docs/cuda.md "Resident explicit loop"), the kernels of
 * src/kernels/explicit_loop.h plus the element force kernel and the force
 * gather of crd_cuda.cu.  The OpenCL backend's loop (backend_opencl.c)
 * runs the same kernel text in the same order over the same
 * explicit_node.h functions, so with serial sums the history is the host
 * loop's, bit for bit.
 *
 * The internal force of a step: the lean kernel (crd_cuda_force.cu,
 * elem_force.h: force only, 4 threads per element, the initial geometry
 * from the cache backend_cuda.c uploads) when dv.geo is given, the
 * default; else the element kernel of the layout (crd_cu_static, want_k
 * 0; CRDYN_CUDA_EX_FORCE=elem).  Both give crd_elem_static's f_G, u_e and
 * CRD_ELEM_* codes: the bits without contraction (CUDA_FMA=0, and the
 * host emulation), to round-off with it (t230, t501).
 *
 * The state stays on the device for the whole stage: ex_begin uploads it
 * with the masses and load tables, ex_steps uploads only the amplitude
 * factors of its k steps and enqueues them, ex_measure brings back the 13
 * numbers of the last step (status and sums), ex_sync the state, only
 * when a frame, a probe row, a checkpoint or the stage end asks for it.
 *
 * F_int is always assembled by the gather (the CPU's element order): an
 * explicit history run to run is then repeatable in both assembly modes.
 * The sums (measures, external work): serial, one thread in node and
 * element order (the host's bits) with --deterministic, else two-stage
 * block sums in a fixed order (repeatable; the host's values to
 * round-off, and not a serial pass over every node each recorded step).
 * CRDYN_CUDA_EX_SUMS=serial|tree overrides it (experiments, the ladder).
 *
 * Device times: CUDA events around the element kernel and the gather of
 * every step (pb->tm element force and assembly, as the eval path), in a
 * ring that is read back when it is full and at every ex_measure. */
#ifdef CRD_HAVE_CUDA

#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda_explicit.h"
#include "crdyn/cuda_explicit.h"
#include "crdyn/cuda_force.h"
#include "crdyn/cuda_kernels.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "crdyn/sparse.h"
#include "crdyn/trace.h"

#define CUX(call, what)                                                                                \
  do {                                                                                                 \
    cudaError_t e_ = (cudaError_t)(call);                                                              \
    if (e_ != cudaSuccess)                                                                             \
      return CRD_ERR(CRD_ERR_BACKEND, "cuda (explicit loop): %s: %s (%s)", (what), cudaGetErrorString(e_), \
                     cudaGetErrorName(e_));                                                            \
  } while (0)

#define RING 128  /* steps whose event times can be pending */

struct crd_cux {
  crd_cux_dev dv;
  crd_problem *pb;                  /* pb->tm: the device times */
  crd_cux_args a;                   /* the kernels' arguments (device pointers) */
  int serial, cap;                  /* cap: steps the factor tables hold */
  int ne_h, st0_h[2], stat_h[4];    /* host sources and targets of the small copies */
  double acc_h[9];
  /* the stage's device buffers */
  int *eq, *lptr, *lidx, *l_load, *w_idx, *w_load, *pres_idx, *status, *part_bad;
  unsigned char *locked;
  double *mlump, *plump, *v, *w, *a_, *wa, *vh, *wh, *dprev, *contrib, *l_a, *l_b, *w_a, *w_b;
  double *fac, *facw, *pres, *acc, *part;
  /* event ring: ev[s][0] before the element kernel, [1] after it, [2] after the gather */
  cudaEvent_t ev[RING][3];
  int nev, head, npend;
};

static int dalloc(void **p, size_t bytes, const void *host, const char *what)
{
  CUX(cudaMalloc(p, bytes ? bytes : 8), what);
  if (host && bytes) CUX(cudaMemcpy(*p, host, bytes, cudaMemcpyHostToDevice), what);
  return 0;
}
#define DALLOC(p, bytes, host, what) dalloc((void **)&(p), (bytes), (host), (what))

static int put(crd_cux *x, void *dst, const void *src, size_t bytes, const char *what)
{
  if (bytes) CUX(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, x->dv.st), what);
  return 0;
}

static int get(crd_cux *x, void *dst, const void *src, size_t bytes, const char *what)
{
  if (bytes) CUX(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, x->dv.st), what);
  return 0;
}

void crd_cux_end(crd_cux **ex)
{
  crd_cux *x = *ex;
  if (!x) return;
  cudaStreamSynchronize(x->dv.st); /* nothing of the stage in flight (also after a failure) */
  void *all[] = {x->eq, x->lptr, x->lidx, x->l_load, x->w_idx, x->w_load, x->pres_idx, x->status, x->part_bad,
                 x->locked, x->mlump, x->plump, x->v, x->w, x->a_, x->wa, x->vh, x->wh, x->dprev, x->contrib,
                 x->l_a, x->l_b, x->w_a, x->w_b, x->fac, x->facw, x->pres, x->acc, x->part};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
    if (all[i]) cudaFree(all[i]);
  for (int s = 0; s < x->nev; ++s)
    for (int k = 0; k < 3; ++k) cudaEventDestroy(x->ev[s][k]);
  free(x);
  *ex = NULL;
}

/* The kernels' view of the buffers (after every reallocation). */
static void bind(crd_cux *x)
{
  crd_cux_args *a = &x->a;
  a->eq = x->eq; a->locked = x->locked;
  a->d = x->dv.d; a->p = x->dv.p; a->l = x->dv.l; a->x = x->dv.x;
  a->mlump = x->mlump; a->plump = x->plump;
  a->v = x->v; a->w = x->w; a->a = x->a_; a->wa = x->wa; a->vh = x->vh; a->wh = x->wh; a->dprev = x->dprev;
  a->contrib = x->contrib; a->F = x->dv.F;
  a->lptr = x->lptr; a->lidx = x->lidx; a->l_load = x->l_load; a->l_a = x->l_a; a->l_b = x->l_b;
  a->w_idx = x->w_idx; a->w_load = x->w_load; a->w_a = x->w_a; a->w_b = x->w_b;
  a->pres_idx = x->pres_idx; a->fac = x->fac; a->facw = x->facw; a->pres = x->pres;
  a->ue = x->dv.ue; a->first_bad = x->dv.first_bad;
  a->status = x->status; a->acc = x->acc; a->part = x->part; a->part_bad = x->part_bad;
}

/* the nodal arrays of the loop and its counters on the device */
static int alloc_nodes(crd_cux *x, const crd_ex_setup *su, size_t nparts)
{
  const crd_ex_state *st = &su->st;
  size_t nn = (size_t)x->dv.nn, d3 = 3 * nn * sizeof(double);
  int st0[4] = {INT_MAX, INT_MAX, -1, 0};
  double acc0[9] = {su->wext, 0, 0, 0, 0, 0, 0, 0, 0};
  int rc;
  if ((rc = DALLOC(x->eq, 5 * nn * sizeof(int), x->pb->eq, "eq")) ||
      (rc = DALLOC(x->locked, nn, su->locked, "locked")) ||
      (rc = DALLOC(x->mlump, nn * sizeof(double), su->mlump, "mlump")) ||
      (rc = DALLOC(x->plump, nn * sizeof(double), su->plump, "plump")) ||
      (rc = DALLOC(x->v, d3, st->v, "v")) || (rc = DALLOC(x->w, d3, st->w, "w")) ||
      (rc = DALLOC(x->a_, d3, st->a, "a")) || (rc = DALLOC(x->wa, d3, st->wa, "wa")) ||
      (rc = DALLOC(x->vh, d3, NULL, "vh")) || (rc = DALLOC(x->wh, d3, NULL, "wh")) ||
      (rc = DALLOC(x->dprev, d3, NULL, "d_prev")))
    return rc;
  if ((rc = DALLOC(x->contrib, 8 * nn * sizeof(double), NULL, "node measures")) ||
      (rc = DALLOC(x->status, sizeof st0, st0, "status")) || (rc = DALLOC(x->acc, sizeof acc0, acc0, "acc")) ||
      (rc = DALLOC(x->part, nparts * sizeof(double), NULL, "block sums")) ||
      (rc = DALLOC(x->part_bad, nparts * sizeof(int), NULL, "block sums")))
    return rc;
  return 0;
}

/* the external loads' gather map, their work entries and the prescribed
 * DOFs on the device (lptr/lidx: the inverted load map) */
static int alloc_loads(crd_cux *x, const crd_ex_setup *su, const int *lptr, const int *lidx)
{
  int neq = x->dv.neq, rc;
  if ((rc = DALLOC(x->lptr, sizeof(int) * (size_t)(neq + 1), lptr, "load gather map")) ||
      (rc = DALLOC(x->lidx, sizeof(int) * (size_t)(lptr[neq] + 1), lidx, "load gather map")) ||
      (rc = DALLOC(x->l_load, sizeof(int) * (size_t)su->nfe, su->fe_load, "load entries")) ||
      (rc = DALLOC(x->l_a, sizeof(double) * (size_t)su->nfe, su->fe_a, "load entries")) ||
      (rc = DALLOC(x->l_b, sizeof(double) * (size_t)su->nfe, su->fe_b, "load entries")))
    return rc;
  if ((rc = DALLOC(x->w_idx, sizeof(int) * (size_t)su->nw, su->w_idx, "work entries")) ||
      (rc = DALLOC(x->w_load, sizeof(int) * (size_t)su->nw, su->w_load, "work entries")) ||
      (rc = DALLOC(x->w_a, sizeof(double) * (size_t)su->nw, su->w_a, "work entries")) ||
      (rc = DALLOC(x->w_b, sizeof(double) * (size_t)su->nw, su->w_b, "work entries")) ||
      (rc = DALLOC(x->pres_idx, sizeof(int) * (size_t)su->npres, su->pres_idx, "prescribed")))
    return rc;
  return 0;
}

/* the ring of event triples that time the batches (x->nev: the complete
 * triples, which crd_cux_end destroys) */
static int create_events(crd_cux *x)
{
  for (; x->nev < RING; ++x->nev) {
    cudaError_t e = cudaSuccess;
    int k = 0;
    for (; k < 3; ++k)
      if ((e = cudaEventCreate(&x->ev[x->nev][k])) != cudaSuccess) break;
    if (e != cudaSuccess) {
      for (int q = 0; q < k; ++q) cudaEventDestroy(x->ev[x->nev][q]);
      return CRD_ERR(CRD_ERR_BACKEND, "cuda (explicit loop): cudaEventCreate: %s", cudaGetErrorString(e));
    }
  }
  return 0;
}

/* the state the loop starts from, and the kernels' arguments */
static int start_state(crd_cux *x, const crd_ex_setup *su)
{
  const crd_cux_dev *dv = &x->dv;
  const crd_ex_state *st = &su->st;
  size_t nn = (size_t)dv->nn, d3 = 3 * nn * sizeof(double);
  int rc;
  if ((rc = put(x, dv->d, st->d, d3, "write d")) || (rc = put(x, dv->p, st->p, d3, "write p")) ||
      (rc = put(x, dv->l, st->l, nn * sizeof(int), "write l")))
    return rc;
  x->a.nn = dv->nn;
  x->a.ne = dv->ne;
  x->a.nload = su->nload;
  x->a.npres = su->npres;
  x->a.nw = su->nw;
  x->a.dt = su->dt;
  x->a.s = su->rot_scale;
  x->ne_h = dv->ne;
  x->st0_h[0] = x->st0_h[1] = INT_MAX;
  bind(x);
  return 0;
}

int crd_cux_begin(crd_cux **ex, const crd_cux_dev *dv, crd_problem *pb, const crd_ex_setup *su, int serial)
{
  crd_cux_end(ex);
  crd_cux *x;
  CRD_CALL(CRD_CALLOC(1, &x));
  x->dv = *dv;
  x->pb = pb;
  x->serial = serial;
  int *lptr = NULL, *lidx = NULL, rc = 0;
  if (!(rc = crd_map_invert(su->fe_eq, (size_t)su->nfe, dv->neq, &lptr, &lidx)) &&
      !(rc = alloc_nodes(x, su, (size_t)crd_cux_parts())) && !(rc = alloc_loads(x, su, lptr, lidx)) &&
      !(rc = create_events(x)))
    rc = start_state(x, su);
  free(lptr); free(lidx);
  *ex = x;
  if (rc) crd_cux_end(ex);
  return rc ? CRD_TRACE(rc) : 0;
}

/* The device times of the oldest pending step (waits for it). */
static int drain_one(crd_cux *x)
{
  cudaEvent_t *e = x->ev[x->head];
  float t1 = 0.0f, t2 = 0.0f;
  CUX(cudaEventSynchronize(e[2]), "explicit step");
  CUX(cudaEventElapsedTime(&t1, e[0], e[1]), "event timing");
  CUX(cudaEventElapsedTime(&t2, e[1], e[2]), "event timing");
  crd_phase_times *tm = &x->pb->tm;
  tm->elem_f_s += 1e-3 * t1;
  tm->nelem_f += x->dv.ne;
  tm->assemble_s += 1e-3 * t2;
  tm->nassemble++;
  x->head = (x->head + 1) % RING;
  x->npend--;
  return 0;
}

/* The step's element forces f_G, energies u_e and codes (kind,
 * first_bad): the lean kernel with the geometry cache, or the layout's
 * element kernel without it. */
static int element_forces(const crd_cux_dev *dv)
{
  if (dv->geo) {
    crd_cu_force_args fa = {dv->ne, dv->quads, dv->l, dv->x, dv->d, dv->p, dv->mat, dv->geo,
                            dv->fe, dv->ue, dv->kind, dv->first_bad};
    return crd_cu_force_lean(dv->st, &fa);
  }
  crd_cu_static_args sa;
  memset(&sa, 0, sizeof sa);
  sa.ne = dv->ne;
  sa.want_k = 0;
  sa.quads = dv->quads; sa.l = dv->l; sa.x = dv->x; sa.p0 = dv->p0; sa.d = dv->d; sa.p = dv->p; sa.mat = dv->mat;
  sa.fe = dv->fe; sa.ke = dv->ke; sa.ue = dv->ue; sa.kind = dv->kind; sa.first_bad = dv->first_bad;
  sa.per_thread = dv->per_thread;
  return crd_cu_static(dv->st, &sa);
}

static int enqueue(crd_cux *x, int k)
{
  crd_cux_dev *dv = &x->dv;
  crd_cux_args *a = &x->a;
  for (int j = 0; j < k; ++j) {
    CUX(crd_cux_node1(dv->st, a, j), "explicit node kernel");
    CUX(crd_cux_pres(dv->st, a, j), "prescribed kernel");
    if (x->npend == RING) CRD_CALL(drain_one(x));
    cudaEvent_t *e = x->ev[(x->head + x->npend) % RING];
    x->npend++;
    CUX(cudaEventRecord(e[0], dv->st), "event");
    CUX(element_forces(dv), "explicit element kernel");
    CUX(cudaEventRecord(e[1], dv->st), "event");
    CUX(crd_cu_gather(dv->st, dv->neq, dv->fptr, dv->fidx, dv->fe, dv->F), "force gather");
    CUX(cudaEventRecord(e[2], dv->st), "event");
    CUX(crd_cux_node2(dv->st, a, j), "explicit node kernel");
    CUX(crd_cux_reduce(dv->st, a, j, j == k - 1, x->serial), "explicit reduction kernel");
  }
  return 0;
}

int crd_cux_steps(crd_cux *x, const crd_ex_steps_in *in)
{
  if (!x) return CRD_ERR(CRD_ERR_BACKEND, "cuda: ex_steps without ex_begin");
  int k = in->k, nl = x->a.nload, np = x->a.npres;
  if (k <= 0) return 0;
  if (k > x->cap) { /* the factor tables of one call */
    CUX(cudaStreamSynchronize(x->dv.st), "explicit steps"); /* the old tables may still be read */
    double **t[] = {&x->fac, &x->facw, &x->pres};
    for (int i = 0; i < 3; ++i)
      if (*t[i]) { cudaFree(*t[i]); *t[i] = NULL; }
    CRD_CALL(DALLOC(x->fac, sizeof(double) * (size_t)k * (size_t)(nl > 0 ? nl : 1), NULL, "load factors"));
    CRD_CALL(DALLOC(x->facw, sizeof(double) * (size_t)k * (size_t)(nl > 0 ? nl : 1), NULL, "work factors"));
    CRD_CALL(DALLOC(x->pres, sizeof(double) * (size_t)k * (size_t)(np > 0 ? np : 1), NULL, "prescribed values"));
    x->cap = k;
    bind(x);
  }
  /* pageable sources: staged by the copy before it returns */
  CRD_CALL(put(x, x->fac, in->fac, sizeof(double) * (size_t)k * (size_t)nl, "write load factors"));
  CRD_CALL(put(x, x->facw, in->facw, sizeof(double) * (size_t)k * (size_t)nl, "write work factors"));
  CRD_CALL(put(x, x->pres, in->pres, sizeof(double) * (size_t)k * (size_t)np, "write prescribed values"));
  CRD_CALL(put(x, x->status, x->st0_h, sizeof x->st0_h, "write status"));
  CRD_CALL(put(x, x->dv.first_bad, &x->ne_h, sizeof x->ne_h, "write status"));
  CRD_RANGE_PUSH("explicit steps (cuda)");
  int rc = enqueue(x, k);
  CRD_RANGE_POP();
  return rc;
}

int crd_cux_measure(crd_cux *x, crd_ex_measure *out)
{
  if (!x) return CRD_ERR(CRD_ERR_BACKEND, "cuda: ex_measure without ex_begin");
  CRD_RANGE_PUSH("explicit measures (cuda)");
  int rc = get(x, x->stat_h, x->status, sizeof x->stat_h, "read status");
  if (!rc) rc = get(x, x->acc_h, x->acc, sizeof x->acc_h, "read measures");
  if (!rc) {
    cudaError_t e = cudaStreamSynchronize(x->dv.st);
    if (e != cudaSuccess)
      rc = CRD_ERR(CRD_ERR_BACKEND, "cuda (explicit loop): explicit steps: %s (%s)", cudaGetErrorString(e),
                   cudaGetErrorName(e));
  }
  while (!rc && x->npend > 0) rc = drain_one(x);
  CRD_RANGE_POP();
  if (rc) return CRD_TRACE(rc);
  crd_ex_measure_unpack(x->acc_h, x->stat_h, out);
  if (out->bad_step >= 0)
    CUX(cudaMemcpy(&out->bad_kind, x->dv.kind + out->bad_elem, sizeof(int), cudaMemcpyDeviceToHost),
        "read element status");
  return 0;
}

int crd_cux_sync(crd_cux *x, crd_ex_state *st)
{
  if (!x) return CRD_ERR(CRD_ERR_BACKEND, "cuda: ex_sync without ex_begin");
  size_t nn = (size_t)x->dv.nn, d3 = 3 * nn * sizeof(double);
  CRD_RANGE_PUSH("explicit state to the host (cuda)");
  int rc = 0;
  if ((rc = get(x, st->d, x->dv.d, d3, "read d")) || (rc = get(x, st->p, x->dv.p, d3, "read p")) ||
      (rc = get(x, st->l, x->dv.l, nn * sizeof(int), "read l")) || (rc = get(x, st->v, x->v, d3, "read v")) ||
      (rc = get(x, st->w, x->w, d3, "read w")) || (rc = get(x, st->a, x->a_, d3, "read a")) ||
      (rc = get(x, st->wa, x->wa, d3, "read wa")))
    goto out;
  cudaError_t e = cudaStreamSynchronize(x->dv.st);
  if (e != cudaSuccess)
    rc = CRD_ERR(CRD_ERR_BACKEND, "cuda (explicit loop): reading the state: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
out:
  CRD_RANGE_POP();
  return rc ? CRD_TRACE(rc) : 0;
}

#endif /* CRD_HAVE_CUDA */
