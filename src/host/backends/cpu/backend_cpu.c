/* crdyn: the CPU backend: an OpenMP loop over the elements (elem_eval.h),
 * then the serial scatter in element order into the assembled vectors and
 * the CSR values (the order every backend's assembly reproduces). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_eval.h"
#include "crdyn/elem_isa.h"
#include "crdyn/error.h"
#include "crdyn/parallel.h"
#include "crdyn/timer.h"
#include "crdyn/problem.h"
#include "crdyn/switches.h"
#include "crdyn/triads.h"

/* The backend's state: the element variant and the sections per element
 * (E, nu, h at 3 e, the table the device backends upload too). */
typedef struct cpu_impl {
  const crd_elem_isa *isa;
  double *mat;
  double *geo; /* CRD_ELEM_GEO per element: the initial geometry (crd_elem_geo_build) */
} cpu_impl;

/* Elements go to the threads in chunks of CRD_CPU_CHUNK consecutive ones
 * each to the range body (which groups them by their pair choices); a
 * mesh of fewer than CRD_CPU_CHUNK elements a thread is dealt out evenly
 * in multiples of 8 (the widest lanes), so that a small model uses every
 * thread too (the free cylindrical panel, 128 elements, ran on one), but
 * in chunks of at least CRD_CPU_CHUNK_MIN (some 100 us of element work: a
 * thread's wake-up is not worth less).  The element results do not depend
 * on the chunks (each element's bytes are the same in any lane group:
 * kernbench's batch_bitwise). */
#define CRD_CPU_CHUNK 256
#define CRD_CPU_CHUNK_MIN 32

static int cpu_chunk(const crd_problem *pb)
{
  int nt = pb->nthreads > 0 ? pb->nthreads : 1;
  if (nt <= 1 || pb->ne >= CRD_CPU_CHUNK * nt) return CRD_CPU_CHUNK;
  int c = (pb->ne + nt - 1) / nt;
  c = (c + 7) / 8 * 8;
  return c < CRD_CPU_CHUNK_MIN ? CRD_CPU_CHUNK_MIN : c;
}

/* Over MPI ranks (parallel.h): the element results of every block on
 * every rank, before the assembly sums them in element order. */
static int gather(const crd_problem *pb, double *f20, int wf, double *ue, double *ke, double *E_e)
{
  if (crd_par_size() == 1) return 0;
  if (crd_par_rank() == 1 && crd_switch("CRDYN_TEST_MPI_SKEW")) { /* a planted difference (parity test) */
    int e0, e1;
    crd_par_elem_range(pb->ne, &e0, &e1);
    for (size_t k = (size_t)wf * e0; k < (size_t)wf * e1; ++k) f20[k] *= 1.0 + 1e-12;
  }
  CRD_CALL(crd_par_gather_elems(f20, wf, pb->ne));
  CRD_CALL(crd_par_gather_elems(ue, 1, pb->ne));
  if (ke) CRD_CALL(crd_par_gather_elems(ke, 210, pb->ne));
  if (E_e) CRD_CALL(crd_par_gather_elems(E_e, 400, pb->ne));
  return 0;
}

/* Elements [e0, e1) on the vector path, less the fold elements (triads.h,
 * evaluated apart): the runs between them. */
static int stat_runs(const cpu_impl *ci, const crd_problem *pb, int e0, int e1, const crd_elem_static_args *sa,
                     int *eb, long long *nb)
{
  const int32_t *of = pb->tr ? pb->tr->elem_of : NULL;
  while (e0 < e1) {
    int r1 = e0;
    while (r1 < e1 && !(of && of[r1] >= 0)) ++r1;
    if (r1 > e0) {
      int kind = ci->isa->stat_range(e0, r1, sa, eb, nb);
      if (kind) return kind;
    }
    e0 = r1;
    while (e0 < e1 && of && of[e0] >= 0) ++e0;
  }
  return 0;
}

/* A fold element's force and tangent (24 slots, triads.h) into F and K. */
static void scatter_fold(crd_problem *pb, int f, int want_K, double *F, double *fn)
{
  const crd_triads *tr = pb->tr;
  const int32_t *eq = tr->eq24 + 24 * (size_t)f, *sc = tr->sc24 + 300 * (size_t)f;
  const double *fe = tr->f24 + 24 * (size_t)f, *ke = tr->k24 + 300 * (size_t)f;
  for (int a = 0; a < 24; ++a) {
    *fn += fe[a] * fe[a];
    if (eq[a] >= 0) F[eq[a]] += fe[a];
  }
  if (!want_K) return;
  for (int t = 0; t < 300; ++t)
    if (sc[t] >= 0) pb->K->val[sc[t]] += ke[t];
}

/* The same for the implicit midpoint (the fold elements: crd_triads_eval_mid). */
static int mid_runs(const cpu_impl *ci, const crd_problem *pb, int e0, int e1, const crd_elem_mid_args *ma,
                    int *eb, long long *nb)
{
  const int32_t *of = pb->tr->elem_of;
  while (e0 < e1) {
    int r1 = e0;
    while (r1 < e1 && of[r1] < 0) ++r1;
    if (r1 > e0 && ci->isa->mid_range(e0, r1, ma, eb, nb)) return 1;
    e0 = r1;
    while (e0 < e1 && of[e0] >= 0) ++e0;
  }
  return 0;
}

/* A fold element's midpoint forces and Newton matrix (24 slots) into Fi,
 * Fin and K. */
static void scatter_fold_mid(crd_problem *pb, int f, int want_K, crd_mid_out *out, double *fn)
{
  const crd_triads *tr = pb->tr;
  const int32_t *eq = tr->eq24 + 24 * (size_t)f;
  const double *fg = tr->f24 + 24 * (size_t)f, *fin = tr->mid->fin24 + 24 * (size_t)f;
  for (int a = 0; a < 24; ++a) {
    *fn += fg[a] * fg[a] + fin[a] * fin[a];
    if (eq[a] < 0) continue;
    out->Fi[eq[a]] += fg[a];
    out->Fin[eq[a]] += fin[a];
  }
  if (!want_K) return;
  const int32_t *sc = tr->sc24 + 300 * (size_t)f;
  const double *ke = tr->k24 + 300 * (size_t)f;
  for (int t = 0; t < 300; ++t)
    if (sc[t] >= 0) pb->K->val[sc[t]] += ke[t];
}

static int cpu_eval(crd_backend *be, crd_problem *pb, int want_K, double *F, double *U)
{
  const cpu_impl *ci = be->impl;
  const crd_elem_isa *isa = ci->isa;
  const crd_model *m = pb->m;
  const int chunk = cpu_chunk(pb);
  int ea, ez; /* this rank's elements (parallel.h; all of them in a single process) */
  crd_par_elem_range(pb->ne, &ea, &ez);
  int bad = -1, badkind = 0, nch = (ez - ea + chunk - 1) / chunk;
  long long nb = 0;
  const crd_elem_static_args sa = {.quads = m->quads, .x = m->x, .p0n = pb->p0, .dn = pb->d, .pn = pb->p,
                                   .ln = pb->l, .want_k = want_K, .mat = ci->mat, .geo = ci->geo, .f = pb->fe,
                                   .k = pb->ke, .u = pb->ue};
  double t0 = crd_wtime();
#pragma omp parallel for schedule(static) reduction(+ : nb) num_threads(crd_pass_threads(pb, nch, 1))
  for (int c = 0; c < nch; ++c) {
    int e0 = ea + c * chunk, e1 = e0 + chunk < ez ? e0 + chunk : ez, eb = -1;
    int kind = !pb->tr ? isa->stat_range(e0, e1, &sa, &eb, &nb) : stat_runs(ci, pb, e0, e1, &sa, &eb, &nb);
    if (kind) {
#pragma omp critical(crd_eval_bad)
      if (bad < 0 || eb < bad) { bad = eb; badkind = kind; }
    }
  }
  if (pb->tr) { /* the fold elements, one by one (triads.h) */
    int fb, kind = crd_triads_eval(pb, want_K, &fb);
    if (kind && (bad < 0 || fb < bad)) { bad = fb; badkind = kind; }
  }
  double t1 = crd_wtime();
  pb->tm.nelem_batched += nb;
  if (want_K) { pb->tm.elem_K_s += t1 - t0; pb->tm.nelem_K += ez - ea; }
  else { pb->tm.elem_f_s += t1 - t0; pb->tm.nelem_f += ez - ea; }
  crd_par_first_bad(&bad, &badkind);
  if (bad >= 0) return crd_backend_elem_error(pb, bad, badkind);
  CRD_CALL(gather(pb, pb->fe, 20, pb->ue, want_K ? pb->ke : NULL, NULL));
  double Utot = 0.0, fn = 0.0;
  for (int i = 0; i < pb->neq; ++i) F[i] = 0.0;
  if (want_K) crd_csr_zero(pb->K);
  /* one pass: the scatter and |f_e|^2 (in element order, as the other
   * backends sum it) */
  for (int e = 0; e < pb->ne; ++e) {
    Utot += pb->ue[e];
    if (pb->tr && pb->tr->elem_of[e] >= 0) {
      scatter_fold(pb, pb->tr->elem_of[e], want_K, F, &fn);
      continue;
    }
    const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
    const double *fe = pb->fe + 20 * (size_t)e;
    for (int a = 0; a < 20; ++a) {
      fn += fe[a] * fe[a];
      if (eq[a] >= 0) F[eq[a]] += fe[a];
    }
    if (!want_K) continue;
    const int32_t *sc = pb->scatter + 210 * (size_t)e;
    const double *ke = pb->ke + 210 * (size_t)e;
    for (int t = 0; t < 210; ++t)
      if (sc[t] >= 0) pb->K->val[sc[t]] += ke[t];
  }
  pb->fe_norm = sqrt(fn);
  for (int i = 0; i < pb->neq; ++i)
    if (!isfinite(F[i])) return CRD_ERR(CRD_ERR_NUMERIC, "internal force not finite at equation %d", i);
  pb->tm.assemble_s += crd_wtime() - t1;
  pb->tm.nassemble++;
  *U = Utot;
  return 0;
}

int crd_backend_mid_error(const crd_problem *pb, int bad)
{
  const int32_t *qd = pb->m->quads + 4 * bad;
  return crd_err_set(CRD_WARN_ELEM_INVERTED, __FILE__, __LINE__, __func__,
                     "element %d (nodes %d %d %d %d) degenerated or gave a non-finite energy", bad, qd[0],
                     qd[1], qd[2], qd[3]);
}

/* The midpoint element results scattered in element order into Fi, Fin
 * and K; the strain energy and |f_e|^2 summed on the way. */
static void mid_assemble(crd_problem *pb, int want_K, crd_mid_out *out, double *Utot, double *fnorm)
{
  int n = pb->neq;
  for (int i = 0; i < n; ++i) out->Fi[i] = out->Fin[i] = 0.0;
  if (want_K) crd_csr_zero(pb->K);
  double Ut = 0.0, fn = 0.0;
  for (int e = 0; e < pb->ne; ++e) {
    Ut += pb->ue[e];
    if (pb->tr && pb->tr->elem_of[e] >= 0) {
      scatter_fold_mid(pb, pb->tr->elem_of[e], want_K, out, &fn);
      continue;
    }
    const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
    const double *fin = out->fin_e + 20 * (size_t)e, *fg = out->fg_e + 20 * (size_t)e;
    for (int a = 0; a < 20; ++a) {
      fn += fg[a] * fg[a] + fin[a] * fin[a];
      if (eq[a] >= 0) {
        out->Fin[eq[a]] += fin[a];
        out->Fi[eq[a]] += fg[a];
      }
    }
    if (!want_K) continue;
    const int32_t *sc = pb->scatter + 210 * (size_t)e;
    const double *ke = pb->ke + 210 * (size_t)e;
    for (int t = 0; t < 210; ++t)
      if (sc[t] >= 0) pb->K->val[sc[t]] += ke[t];
  }
  *Utot = Ut;
  *fnorm = fn;
}

static int cpu_eval_mid(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  if (pb->tr && !pb->tr->mid) /* the triads' step state comes from the implicit stage (implicit_triads.c) */
    CRD_CALL(crd_problem_refuse_triads(pb, "the implicit dynamic element kernel outside an implicit stage"));
  const cpu_impl *ci = be->impl;
  const crd_elem_isa *isa = ci->isa;
  const crd_model *m = pb->m;
  const int chunk = cpu_chunk(pb);
  int ea, ez; /* this rank's elements (parallel.h) */
  crd_par_elem_range(pb->ne, &ea, &ez);
  int bad = -1, badkind = 0, nch = (ez - ea + chunk - 1) / chunk;
  long long nb = 0;
  const crd_elem_mid_args ma = {.quads = m->quads, .x = m->x, .p0n = pb->p0, .d0n = in->d0, .pan = in->pa,
                                .dbn = pb->d, .pbn = pb->p, .dfn = in->df, .pfn = in->pf, .amn = in->am,
                                .wamn = in->wam, .Bsn = in->Bs, .ln = pb->l, .Cn = in->C, .cf = in->cf,
                                .cm = in->cm, .want_k = want_K, .mat = ci->mat, .xi = in->xi, .fgo = out->fg_e,
                                .fino = out->fin_e, .ko = pb->ke, .Eo = out->E_e, .u = pb->ue};
  double t0 = crd_wtime();
#pragma omp parallel for schedule(static) reduction(+ : nb) num_threads(crd_pass_threads(pb, nch, 1))
  for (int c = 0; c < nch; ++c) {
    int e0 = ea + c * chunk, e1 = e0 + chunk < ez ? e0 + chunk : ez, eb = -1;
    int b = !pb->tr ? isa->mid_range(e0, e1, &ma, &eb, &nb) : mid_runs(ci, pb, e0, e1, &ma, &eb, &nb);
    if (b) {
#pragma omp critical(crd_im_bad)
      if (bad < 0 || eb < bad) bad = eb;
    }
  }
  int fb;
  if (pb->tr && crd_triads_eval_mid(pb, in, want_K, &fb) && (bad < 0 || fb < bad)) bad = fb;
  double t1 = crd_wtime();
  pb->tm.nelem_batched += nb;
  crd_phase_mid_pass(&pb->tm, ez - ea, want_K, t1 - t0);
  crd_par_first_bad(&bad, &badkind);
  if (bad >= 0) return crd_backend_mid_error(pb, bad);
  CRD_CALL(gather(pb, out->fg_e, 20, pb->ue, want_K ? pb->ke : NULL, want_K ? out->E_e : NULL));
  CRD_CALL(crd_par_gather_elems(out->fin_e, 20, pb->ne));
  double Ut = 0.0, fn = 0.0;
  mid_assemble(pb, want_K, out, &Ut, &fn);
  pb->fe_norm = sqrt(fn);
  pb->tm.assemble_s += crd_wtime() - t1;
  pb->tm.nassemble++;
  out->U = Ut;
  return 0;
}

static void cpu_destroy(crd_backend *be)
{
  if (!be) return;
  cpu_impl *ci = be->impl;
  if (ci) {
    free(ci->mat);
    free(ci->geo);
  }
  free(ci);
  free(be);
}

/* no resident explicit loop: the explicit stage runs its loop on the host */
static const crd_backend_ops cpu_ops = {.name = "cpu", .destroy = cpu_destroy, .eval = cpu_eval, .eval_mid = cpu_eval_mid,
                                        .lambda_max = crd_backend_cpu_lambda_max};

int crd_backend_cpu_create(crd_problem *pb, crd_backend **out)
{
  /* the element bodies' variant: the widest this CPU runs (elem_isa.h) */
  const char *want = crd_switch("CRDYN_ELEM_ISA");
  const crd_elem_isa *isa = crd_elem_isa_select();
  if (want && strcmp(want, isa->name))
    return CRD_ERR(CRD_ERR_INPUT, "CRDYN_ELEM_ISA=%s: no such element variant in this build, or this CPU cannot "
                   "run it (names: generic, x86-64-v3, x86-64-v4)", want);
  crd_backend *be;
  cpu_impl *ci = NULL;
  CRD_CALL(CRD_CALLOC(1, &be));
  int rc;
  size_t ne1 = (size_t)(pb->ne > 0 ? pb->ne : 1);
  if ((rc = CRD_CALLOC(1, &ci)) || (rc = CRD_CALLOC((size_t)CRD_Q4_MAT_STRIDE * ne1, &ci->mat)) ||
      (rc = CRD_CALLOC(CRD_ELEM_GEO * ne1, &ci->geo))) {
    if (ci) {
      free(ci->mat);
      free(ci->geo);
    }
    free(ci);
    free(be);
    return CRD_TRACE(rc);
  }
  const crd_model *m = pb->m;
  crd_backend_section_table(pb, ci->mat);
  crd_elem_geo_build(pb->ne, m->quads, m->x, pb->p0, ci->geo);
  ci->isa = isa;
  be->ops = &cpu_ops;
  be->impl = ci;
  snprintf(be->device_name, sizeof be->device_name, "host CPU (OpenMP, elements %s, %d per vector)", isa->name,
           isa->lanes);
  *out = be;
  return 0;
}

/* --backend cpu: the device index is for the device backends */
static int cpu_create_reg(crd_problem *pb, int device, crd_backend **be)
{
  if (device >= 0)
    return CRD_ERR(CRD_ERR_INPUT, "--device %d: the %s backend has no devices (use --backend opencl)", device, "cpu");
  return crd_backend_cpu_create(pb, be);
}

const crd_backend_reg crd_backend_reg_cpu = {.name = "cpu", .auto_priority = 10, .create = cpu_create_reg};
