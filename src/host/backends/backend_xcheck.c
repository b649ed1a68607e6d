/* crdyn: a device backend cross-checked against the CPU backend, element
 * by element, in every evaluation of a run (CRDYN_XCHECK=1; a diagnostic
 * switch, not a user option: docs/cuda.md "Status").
 *
 * The wrapper evaluates each state on the CPU first, into its own buffers,
 * then on the device backend with the caller's buffers (the device's
 * values are what the run goes on with, its K included), and compares the
 * element forces: f_e of eval, fg_e and fin_e of eval_mid.  An element
 * whose 20 entries differ from the CPU's by more than CRD_XCHECK_TOL of
 * their largest magnitude, or that is not finite on one side, stops the
 * run with a message naming the element, the entry and both values.  The
 * t501/t500 parity tests do the same on chosen states; this does it on the
 * states a run reaches.  The resident explicit loop (ex_* ops) is passed
 * through unchecked: its element work does not come back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"

#define CRD_XCHECK_TOL 1e-10

typedef struct xc {
  crd_backend *dev, *cpu;
  crd_backend_ops ops;          /* the device's name and ex_* ops, the checking eval and eval_mid */
  double *F, *Fin, *fg, *fin, *E; /* the CPU's outputs */
  long nevals;                  /* comparisons made (named in the message) */
} xc;

static void xc_free(xc *x)
{
  if (!x) return;
  crd_backend_destroy(&x->cpu);
  free(x->F); free(x->Fin); free(x->fg); free(x->fin); free(x->E);
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

/* Compare nper entries per element of the CPU's a and the device's b. */
static int xc_compare(xc *x, const crd_problem *pb, const char *what, int nper, const double *a, const double *b)
{
  x->nevals++;
  for (int e = 0; e < pb->ne; ++e) {
    const double *ea = a + (size_t)nper * e, *eb = b + (size_t)nper * e;
    double sc = 0.0, d = 0.0;
    int worst = 0;
    for (int k = 0; k < nper; ++k) sc = fmax(sc, fabs(ea[k]));
    for (int k = 0; k < nper; ++k) {
      double dk = isfinite(ea[k]) && isfinite(eb[k]) ? fabs(ea[k] - eb[k]) : INFINITY;
      if (dk > d) d = dk, worst = k;
    }
    double rel = d / fmax(sc, 1e-300);
    if (!(rel <= CRD_XCHECK_TOL))
      return CRD_ERR(CRD_ERR_NUMERIC, "CRDYN_XCHECK: %s of element %d (nodes %d %d %d %d), entry %d (node %d, %s %d): "
                     "%s %.17g, cpu %.17g (%.2e of the element's largest entry %.3g; evaluation %ld)",
                     what, e, pb->m->quads[4 * e], pb->m->quads[4 * e + 1], pb->m->quads[4 * e + 2],
                     pb->m->quads[4 * e + 3], worst, pb->m->quads[4 * e + worst / 5],
                     worst % 5 < 3 ? "translation" : "normal component", worst % 5 < 3 ? worst % 5 : worst % 5 - 3,
                     x->dev->ops->name, eb[worst], ea[worst], rel, sc, x->nevals);
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
  memcpy(x->fg, pb->fe, n20 * sizeof(double)); /* the CPU's f_e; the device's overwrite pb->fe */
  CRD_CALL(x->dev->ops->eval(x->dev, pb, want_K, F, U));
  return xc_compare(x, pb, "internal force f_e", 20, x->fg, pb->fe);
}

static int xc_eval_mid(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  xc *x = be->impl;
  xc_sync(be);
  crd_mid_out oc = {x->F, x->Fin, x->fg, x->fin, x->E, 0.0};
  CRD_CALL(x->cpu->ops->eval_mid(x->cpu, pb, in, want_K, &oc));
  CRD_CALL(x->dev->ops->eval_mid(x->dev, pb, in, want_K, out));
  const char *hook = getenv("CRDYN_TEST_XCHECK_ELEM"); /* tests/cli/opencl.sh: a device error to find */
  if (hook && atoi(hook) >= 0 && atoi(hook) < pb->ne) out->fg_e[20 * (size_t)atoi(hook) + 7] *= 1.0 + 1e-7;
  CRD_CALL(xc_compare(x, pb, "midpoint internal force fg_e", 20, x->fg, out->fg_e));
  return xc_compare(x, pb, "midpoint inertia force fin_e", 20, x->fin, out->fin_e);
}

#define XC_FWD(op, ...)          \
  do {                           \
    xc *x = be->impl;            \
    xc_sync(be);                 \
    return x->dev->ops->op(x->dev, __VA_ARGS__); \
  } while (0)
static int xc_ex_begin(crd_backend *be, crd_problem *pb, const crd_ex_setup *s) { XC_FWD(ex_begin, pb, s); }
static int xc_ex_steps(crd_backend *be, const crd_ex_steps_in *in) { XC_FWD(ex_steps, in); }
static int xc_ex_measure(crd_backend *be, crd_ex_measure *o) { XC_FWD(ex_measure, o); }
static int xc_ex_sync(crd_backend *be, crd_ex_state *st) { XC_FWD(ex_sync, st); }
static void xc_ex_end(crd_backend *be)
{
  xc *x = be->impl;
  x->dev->ops->ex_end(x->dev);
}

int crd_backend_xcheck_wrap(crd_problem *pb, crd_backend **be)
{
  crd_backend *dev = *be, *w = calloc(1, sizeof *w);
  xc *x = calloc(1, sizeof *x);
  size_t ne = (size_t)pb->ne, neq = (size_t)pb->neq;
  int rc = (!w || !x || CRD_CALLOC(neq, &x->F) || CRD_CALLOC(neq, &x->Fin) || CRD_CALLOC(20 * ne, &x->fg) ||
            CRD_CALLOC(20 * ne, &x->fin) || CRD_CALLOC(400 * ne, &x->E))
               ? CRD_ERR_MEM
               : crd_backend_cpu_create(pb, &x->cpu);
  if (rc) {
    xc_free(x);
    free(w);
    return crd_err_trace(rc, __FILE__, __LINE__, __func__);
  }
  x->dev = dev;
  x->ops = *dev->ops;
  x->ops.destroy = xc_destroy;
  x->ops.eval = xc_eval;
  x->ops.eval_mid = xc_eval_mid;
  x->ops.ex_begin = dev->ops->ex_begin ? xc_ex_begin : NULL;
  x->ops.ex_steps = dev->ops->ex_steps ? xc_ex_steps : NULL;
  x->ops.ex_measure = dev->ops->ex_measure ? xc_ex_measure : NULL;
  x->ops.ex_sync = dev->ops->ex_sync ? xc_ex_sync : NULL;
  x->ops.ex_end = dev->ops->ex_end ? xc_ex_end : NULL;
  w->ops = &x->ops;
  w->impl = x;
  w->deterministic = dev->deterministic;
  snprintf(w->device_name, sizeof w->device_name, "%s", dev->device_name);
  snprintf(w->note, sizeof w->note, "%.300s%sCRDYN_XCHECK: every element evaluation is checked against the CPU "
           "backend's (to %.0e of the element's largest entry; not the resident explicit loop's)", dev->note, dev->note[0] ? "; " : "",
           CRD_XCHECK_TOL);
  *be = w;
  return 0;
}
