/* crdyn: a device backend cross-checked against the CPU backend, element
 * by element, in every evaluation of a run (CRDYN_XCHECK=1; a diagnostic
 * switch, not a user option: docs/cuda.md "Status").
 *
 * The wrapper evaluates each state on the CPU first, into its own buffers,
 * then on the device backend with the caller's buffers (the device's
 * values are what the run goes on with, its K included), and compares the
 * element results: f_e of eval, fg_e and fin_e of eval_mid, and where the
 * tangent is formed the element tangent k_e (210 packed entries) and the
 * skew part E_e (400).  An element whose entries differ from the CPU's by
 * more than the tolerance (CRDYN_XCHECK_TOL, relative to the element's
 * largest entry; default CRD_XCHECK_TOL; 0: bit for bit), or that is not
 * finite on one side, stops the run with a message naming the element, the
 * entry and both values.  The
 * t501/t500 parity tests do the same on chosen states; this does it on the
 * states a run reaches.  The resident explicit loop (ex_* ops) is passed
 * through unchecked: its element work does not come back; so is the stable
 * step's element bound (lambda_max). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "crdyn/switches.h"

#define CRD_XCHECK_TOL 1e-10

typedef struct xc {
  crd_backend *dev, *cpu;
  crd_backend_ops ops;          /* the device's name and ex ops, the checking eval and eval_mid */
  double *F, *Fin, *fg, *fin, *E, *ke; /* the CPU's outputs */
  double tol;                   /* relative; 0: bit for bit */
  long nevals;                  /* comparisons made (named in the message) */
} xc;

static void xc_free(xc *x)
{
  if (!x) return;
  crd_backend_destroy(&x->cpu);
  free(x->F); free(x->Fin); free(x->fg); free(x->fin); free(x->E); free(x->ke);
  free(x);
}

static void xc_destroy(crd_backend *be)
{
  xc *x = be->impl;
  crd_backend_destroy(&x->dev);
  xc_free(x);
  free(be);
}

static void xc_sync(crd_backend *be)
{
  xc *x = be->impl;
  x->dev->deterministic = be->deterministic;
  x->dev->keep_elements = 1;
}

/* The DOF (0..19) of entry k of an element's nper entries: the entry
 * itself for vectors, the row for the packed upper tangent (210) and the
 * row-major 20x20 skew part (400). */
static int entry_dof(int nper, int k)
{
  if (nper == 400) return k / 20;
  if (nper == 210) {
    int row = 0;
    while (k >= 20 - row) k -= 20 - row, ++row;
    return row;
  }
  return k;
}

/* The element's largest difference relative to its largest entry (the
 * entry in *worst); with tol 0, any entry whose bits differ counts as an
 * infinite difference. */
static double element_diff(const double *ea, const double *eb, int nper, double tol, int *worst)
{
  double sc = 0.0, d = 0.0;
  *worst = 0;
  for (int k = 0; k < nper; ++k) sc = fmax(sc, fabs(ea[k]));
  for (int k = 0; k < nper; ++k) {
    double dk = isfinite(ea[k]) && isfinite(eb[k]) ? fabs(ea[k] - eb[k]) : INFINITY;
    if (tol == 0.0 && memcmp(ea + k, eb + k, sizeof(double))) dk = INFINITY;
    if (dk > d) d = dk, *worst = k;
  }
  return d / fmax(sc, 1e-300);
}

/* Compare nper entries per element of the CPU's a and the device's b. */
static int xc_compare(xc *x, const crd_problem *pb, const char *what, int nper, const double *a, const double *b)
{
  x->nevals++;
  for (int e = 0; e < pb->ne; ++e) {
    const double *ea = a + (size_t)nper * e, *eb = b + (size_t)nper * e;
    int worst, dof;
    double rel = element_diff(ea, eb, nper, x->tol, &worst);
    if (rel <= x->tol) continue;
    dof = entry_dof(nper, worst);
    return CRD_ERR(CRD_ERR_NUMERIC, "CRDYN_XCHECK: %s of element %d (nodes %d %d %d %d), entry %d (node %d, %s %d): "
                   "%s %.17g, cpu %.17g (%.2e of the element's largest entry; tolerance %.0e%s; evaluation %ld)",
                   what, e, pb->m->quads[4 * e], pb->m->quads[4 * e + 1], pb->m->quads[4 * e + 2],
                   pb->m->quads[4 * e + 3], worst, pb->m->quads[4 * e + dof / 5],
                   dof % 5 < 3 ? "translation" : "normal component", dof % 5 < 3 ? dof % 5 : dof % 5 - 3,
                   x->dev->ops->name, eb[worst], ea[worst], rel, x->tol, x->tol == 0.0 ? ": bit for bit" : "",
                   x->nevals);
  }
  return 0;
}

static int xc_eval(crd_backend *be, crd_problem *pb, int want_K, double *F, double *U)
{
  xc *x = be->impl;
  xc_sync(be);
  double Uc = 0.0;
  CRD_CALL(x->cpu->ops->eval(x->cpu, pb, want_K, x->F, &Uc));
  size_t n20 = 20 * (size_t)pb->ne;
  memcpy(x->fg, pb->fe, n20 * sizeof(double)); /* the CPU's f_e and k_e; the device's overwrite pb's */
  if (want_K) memcpy(x->ke, pb->ke, 210 * (size_t)pb->ne * sizeof(double));
  CRD_CALL(x->dev->ops->eval(x->dev, pb, want_K, F, U));
  CRD_CALL(xc_compare(x, pb, "internal force f_e", 20, x->fg, pb->fe));
  return want_K ? xc_compare(x, pb, "tangent k_e", 210, x->ke, pb->ke) : 0;
}

/* CRDYN_TEST_XCHECK_ELEM=E[:ke|:E] (tests/cli/opencl.sh): a device error of
 * 1e-7 planted in element E's fg_e (entry 7), or the largest entry of its
 * k_e or E_e, for the check to find. */
static void scale_largest(double *v, int n)
{
  int k = 0;
  for (int j = 1; j < n; ++j)
    if (fabs(v[j]) > fabs(v[k])) k = j;
  v[k] *= 1.0 + 1e-7;
}

static void plant_error(crd_problem *pb, int want_K, crd_mid_out *out)
{
  const char *hook = crd_switch("CRDYN_TEST_XCHECK_ELEM");
  if (!hook) return;
  char *end;
  long e = strtol(hook, &end, 10);
  if (end == hook || e < 0 || e >= pb->ne) return;
  if (!*end) out->fg_e[20 * (size_t)e + 7] *= 1.0 + 1e-7;
  else if (want_K && !strcmp(end, ":ke")) scale_largest(pb->ke + 210 * (size_t)e, 210);
  else if (want_K && !strcmp(end, ":E")) scale_largest(out->E_e + 400 * (size_t)e, 400);
}

static int xc_eval_mid(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  xc *x = be->impl;
  xc_sync(be);
  crd_mid_out oc = {x->F, x->Fin, x->fg, x->fin, x->E, 0.0};
  CRD_CALL(x->cpu->ops->eval_mid(x->cpu, pb, in, want_K, &oc));
  if (want_K) memcpy(x->ke, pb->ke, 210 * (size_t)pb->ne * sizeof(double));
  CRD_CALL(x->dev->ops->eval_mid(x->dev, pb, in, want_K, out));
  plant_error(pb, want_K, out);
  CRD_CALL(xc_compare(x, pb, "midpoint internal force fg_e", 20, x->fg, out->fg_e));
  CRD_CALL(xc_compare(x, pb, "midpoint inertia force fin_e", 20, x->fin, out->fin_e));
  if (!want_K) return 0;
  CRD_CALL(xc_compare(x, pb, "midpoint tangent k_e", 210, x->ke, pb->ke));
  return xc_compare(x, pb, "midpoint skew part E_e", 400, x->E, out->E_e);
}

/* the stable step's element bound: the device backend's, unchecked */
static int xc_lambda_max(crd_backend *be, crd_problem *pb, const double *C, double rot_scale, double *lambda,
                         int *elem)
{
  xc *x = be->impl;
  return x->dev->ops->lambda_max(x->dev, pb, C, rot_scale, lambda, elem);
}

#define XC_FWD(op, ...)          \
  do {                           \
    xc *x = be->impl;            \
    xc_sync(be);                 \
    return x->dev->ops->ex->op(x->dev, __VA_ARGS__); \
  } while (0)
static int xc_ex_begin(crd_backend *be, crd_problem *pb, const crd_ex_setup *s) { XC_FWD(begin, pb, s); }
static int xc_ex_steps(crd_backend *be, const crd_ex_steps_in *in) { XC_FWD(steps, in); }
static int xc_ex_measure(crd_backend *be, crd_ex_measure *o) { XC_FWD(measure, o); }
static int xc_ex_sync(crd_backend *be, crd_ex_state *st) { XC_FWD(sync, st); }
static void xc_ex_end(crd_backend *be)
{
  xc *x = be->impl;
  x->dev->ops->ex->end(x->dev);
}
static const crd_backend_ex_ops xc_ex_ops = {.begin = xc_ex_begin, .steps = xc_ex_steps, .measure = xc_ex_measure,
                                             .sync = xc_ex_sync, .end = xc_ex_end};

/* CRDYN_XCHECK_TOL: a relative tolerance >= 0 (0: bit for bit) */
static int xc_tolerance(xc *x)
{
  const char *t = crd_switch("CRDYN_XCHECK_TOL");
  x->tol = CRD_XCHECK_TOL;
  if (!t) return 0;
  char *end;
  x->tol = strtod(t, &end);
  if (end == t || *end || !(x->tol >= 0) || !isfinite(x->tol))
    return CRD_ERR(CRD_ERR_INPUT, "CRDYN_XCHECK_TOL=%s: expected a relative tolerance >= 0 (0: bit for bit)", t);
  return 0;
}

int crd_backend_xcheck_wrap(crd_problem *pb, crd_backend **be)
{
  crd_backend *dev = *be, *w = calloc(1, sizeof *w);
  xc *x = calloc(1, sizeof *x);
  size_t ne = (size_t)pb->ne, neq = (size_t)pb->neq;
  int rc = (!w || !x || CRD_CALLOC(neq, &x->F) || CRD_CALLOC(neq, &x->Fin) || CRD_CALLOC(20 * ne, &x->fg) ||
            CRD_CALLOC(20 * ne, &x->fin) || CRD_CALLOC(400 * ne, &x->E) || CRD_CALLOC(210 * ne, &x->ke))
               ? CRD_ERR_MEM
               : xc_tolerance(x);
  if (!rc) rc = crd_backend_cpu_create(pb, &x->cpu);
  if (rc) {
    xc_free(x);
    free(w);
    return CRD_TRACE(rc);
  }
  x->dev = dev;
  x->ops = *dev->ops;
  x->ops.destroy = xc_destroy;
  x->ops.eval = xc_eval;
  x->ops.eval_mid = xc_eval_mid;
  x->ops.lambda_max = xc_lambda_max;
  x->ops.ex = dev->ops->ex ? &xc_ex_ops : NULL;
  w->ops = &x->ops;
  w->impl = x;
  w->deterministic = dev->deterministic;
  snprintf(w->device_name, sizeof w->device_name, "%s", dev->device_name);
  snprintf(w->note, sizeof w->note, "%.300s%sCRDYN_XCHECK: every element evaluation is checked against the CPU "
           "backend's (to %.0e of the element's largest entry; not the resident explicit loop's)", dev->note, dev->note[0] ? "; " : "",
           x->tol);
  *be = w;
  return 0;
}
