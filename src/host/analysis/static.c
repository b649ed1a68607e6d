/* crdyn: static analysis.  Newton with load control and step cutting, or
 * with Crisfield's cylindrical arc length (through limit points), or the
 * geometrically linear answer (nlgeom false: one solve at the initial state).
 *
 * Residual R = F_ext(lambda) - F_int(u); converged when
 * |R| <= tol * max(|F_ext|, |F_int|).  The tangent is K_G minus the
 * symmetric part of the load stiffness (loads.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/linsys.h"
#include "crdyn/run.h"
#include "crdyn/timer.h"
#include "crdyn/triads.h"

typedef struct st_work {
  double *Fi, *Fe, *R, *du, *dut, *Fref, *Du, *Du_prev;
  double *d_save, *p_save;
  int *l_save;
} st_work;

static double dot(int n, const double *a, const double *b)
{
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* dot product over the translational DOFs (mask 1) only */
static double mdot(int n, const double *mask, const double *a, const double *b)
{
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += mask[i] * a[i] * b[i];
  return s;
}

static const char *slot_name(int l, int s)
{
  static const char *t[] = {"ux", "uy", "uz"}, *pn[3][2] = {{"py", "pz"}, {"px", "pz"}, {"px", "py"}};
  return s < 3 ? t[s] : pn[l][s - 3];
}

/* "equation 12 (node 2, pz)" for messages; "theta_0".."theta_2" at an
 * intersection node (the triad's chart variables, triads.h) */
static void eq_where(const crd_problem *pb, int eq, char *buf, size_t n)
{
  for (int i = 0; i < pb->nn; ++i) {
    int k = pb->tr ? pb->tr->of[i] : -1;
    for (int s = 0; s < 6; ++s) {
      int q = s < 5 ? pb->eq[5 * i + s] : k >= 0 ? pb->tr->eq3[k] : -1;
      if (q != eq) continue;
      if (k >= 0 && s >= 3) snprintf(buf, n, "equation %d (node %d, theta_%d of its triad)", eq, i, s - 3);
      else snprintf(buf, n, "equation %d (node %d, %s)", eq, i, slot_name(pb->l[i], s));
      return;
    }
  }
  snprintf(buf, n, "equation %d", eq);
}

static void save_state(crd_problem *pb, st_work *w)
{
  memcpy(w->d_save, pb->d, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(w->p_save, pb->p, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(w->l_save, pb->l, sizeof(int) * (size_t)pb->nn);
  crd_problem_save_triads(pb);
}

static void restore_state(crd_problem *pb, const st_work *w)
{
  memcpy(pb->d, w->d_save, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(pb->p, w->p_save, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(pb->l, w->l_save, sizeof(int) * (size_t)pb->nn);
  crd_problem_restore_triads(pb);
}

/* Residual and (optionally) tangent at the current state and load factor. */
static int residual(crd_run *r, st_work *w, double lam, int want_K, double *rnorm, double *ref, double *U)
{
  crd_problem *pb = r->pb;
  int n = pb->neq;
  double t0 = crd_wtime();
  CRD_CALL(crd_problem_eval(pb, want_K, w->Fi, U));
  CRD_CALL(crd_loads_assemble(r->loads, pb, lam, 1, w->Fe, want_K));
  r->time_eval += crd_wtime() - t0;
  for (int i = 0; i < n; ++i) w->R[i] = w->Fe[i] - w->Fi[i];
  *rnorm = sqrt(dot(n, w->R, w->R));
  /* Element forces cancel in the sum: f_int carries round-off of about
   * 1e-15 of the element forces, so no residual below ~1e-6 x tol of
   * their size is resolvable (tol >= 1e-9). */
  *ref = fmax(fmax(sqrt(dot(n, w->Fe, w->Fe)), sqrt(dot(n, w->Fi, w->Fi))), 1e-6 * pb->fe_norm);
  return 0;
}

/* Factorize the tangent in pb->K; a non-positive pivot at the very first
 * factorization means the model is singular (not enough supports). */
static int factorize(crd_run *r, int first)
{
  crd_problem *pb = r->pb;
  double t0 = crd_wtime();
  int rc = crd_linsys_factorize(r->ls, pb->K);
  if (rc == CRD_WARN_NOT_POSDEF && !first && !r->ls->indefinite) {
    /* past a limit point, or under the non-conservative part of a load
     * (moments in 3D, pressure): go on with LDL^T from here */
    crd_run_progress(r, "tangent indefinite: switching to LDL^T");
    rc = crd_linsys_go_indefinite(r->ls, pb->K);
  }
  r->time_factor += crd_wtime() - t0;
  if (rc == CRD_WARN_NOT_POSDEF && first) {
    char where[96];
    int eq = crd_solver_failed_equation(r->ls->solver);
    if (eq < 0) eq = 0;
    eq_where(pb, eq, where, sizeof where);
    return CRD_ERR(CRD_ERR_INPUT, "%s: the stiffness matrix is singular at %s: the supports do not "
                   "prevent every rigid-body motion (singular model)", pb->m->case_path, where);
  }
  return rc;
}

static int solve(crd_run *r, const double *b, double *x)
{
  double t0 = crd_wtime();
  CRD_CALL(crd_solver_solve(r->ls->solver, b, x));
  r->time_solve += crd_wtime() - t0;
  return 0;
}

/* A solution far larger than the model means a (numerically) singular
 * tangent that the factorization did not catch. */
static double model_size(const crd_model *m)
{
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (int i = 0; i < m->nn; ++i)
    for (int c = 0; c < 3; ++c) { lo[c] = fmin(lo[c], m->x[3 * i + c]); hi[c] = fmax(hi[c], m->x[3 * i + c]); }
  return fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
}

/* Newton at fixed load factor.  Returns 0 converged, CRD_WARN_* to cut. */
static int newton(crd_run *r, st_work *w, double lam, int first, int *iters, double *res)
{
  const crd_analysis *an = &r->m->analysis;
  crd_problem *pb = r->pb;
  double rn, ref, U, r0 = -1.0, size = model_size(r->m);
  for (int it = 0; it <= an->max_iterations; ++it) {
    int rc = residual(r, w, lam, 1, &rn, &ref, &U);
    if (rc == CRD_WARN_ELEM_INVERTED) return rc;
    CRD_CALL(rc);
    if (r0 < 0) r0 = rn;
    *iters = it;
    *res = ref > 0 ? rn / ref : rn;
    if (rn <= an->tolerance * ref || rn < 1e-300) return 0;
    if (it == an->max_iterations || !(rn < 1e8 * fmax(r0, ref))) break;
    rc = factorize(r, first && it == 0);
    if (rc > 0) return rc;
    CRD_CALL(rc);
    CRD_CALL(solve(r, w->R, w->du));
    double mx = 0;
    for (int i = 0; i < pb->neq; ++i) mx = fmax(mx, fabs(w->du[i]));
    if (first && it == 0 && !(mx < 1e6 * size))
      return CRD_ERR(CRD_ERR_INPUT, "%s: the stiffness matrix is numerically singular (a first "
                     "increment of %.3g for a model of size %.3g): the supports do not prevent every "
                     "rigid-body motion (singular model)", r->m->case_path, mx, size);
    crd_problem_update(pb, w->du, 1.0);
    r->newton_iters++;
    /* At the round-off floor of f_int (large membrane forces cancelling)
     * the residual stalls above tol * ref: accept when the correction is
     * negligible against the model size and the residual is small. */
    if (mx <= 1e-3 * an->tolerance * size && rn <= sqrt(an->tolerance) * ref) {
      *iters = it + 1;
      return 0;
    }
  }
  return CRD_ERR(CRD_WARN_NEWTON_DIVERGED, "Newton did not converge at load factor %.6g "
                 "(residual %.3e relative after %d iterations)", lam, *res, *iters);
}

static int run_linear(crd_run *r, st_work *w)
{
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  double rn, ref, U, lam = an->max_load_factor;
  crd_problem_set_prescribed(pb, 0.0, 1);
  /* the tangent of the initial state; prescribed values enter through the
   * internal force of the state they define: K du = F - f_int(u_p) ~ F - K_pf u_p */
  crd_problem_set_prescribed(pb, lam, 1);
  CRD_CALL(residual(r, w, lam, 1, &rn, &ref, &U));
  int rc = factorize(r, 1);
  if (rc > 0) return CRD_ERR(CRD_ERR_NUMERIC, "the initial stiffness is not positive definite");
  CRD_CALL(rc);
  CRD_CALL(solve(r, w->R, w->du));
  crd_problem_update(pb, w->du, 1.0);
  /* strain energy of the linear solution: 1/2 u.K u = 1/2 u.R */
  double Ulin = 0.5 * dot(pb->neq, w->du, w->R);
  double L0[3] = {0, 0, 0};
  r->steps = 1;
  return crd_run_record(r, 1, 0.0, lam, 1, 0.0, 0.0, Ulin, L0, L0, 1);
}

static int run_load_control(crd_run *r, st_work *w)
{
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  double lam = 0.0, dlam0 = an->max_load_factor / an->steps, dlam = dlam0, L0[3] = {0, 0, 0};
  int step = 0, first = 1;
  while (lam < an->max_load_factor * (1.0 - 1e-12)) {
    /* substeps after a cut still land on the grid of the requested steps */
    double next = dlam0 * (floor(lam / dlam0 + 1e-9) + 1.0);
    double lnew = fmin(fmin(lam + dlam, next), an->max_load_factor);
    if (next - lnew < 1e-9 * dlam0) lnew = next;
    save_state(pb, w);
    crd_problem_set_prescribed(pb, lnew, 1);
    int iters = 0;
    double res = 0;
    int rc = newton(r, w, lnew, first, &iters, &res);
    if (rc < 0) return CRD_TRACE(rc);
    if (rc > 0) {
      restore_state(pb, w);
      dlam *= 0.5;
      r->cuts++;
      if (dlam < dlam0 / 4096.0) {
        char last[512];
        snprintf(last, sizeof last, "%s", crd_err_message());
        return CRD_ERR(CRD_ERR_NUMERIC, "static step at load factor %.6g failed after cutting the "
                       "increment to %.3g (last: %s)", lnew, dlam * 2, last);
      }
      crd_run_progress(r, "cut: load factor %.6g -> increment %.3g (%s)", lnew, dlam, crd_err_message());
      continue;
    }
    first = 0;
    lam = lnew;
    ++step;
    double U = 0.0;
    for (int e = 0; e < pb->ne; ++e) U += pb->ue[e];
    CRD_CALL(crd_run_record(r, step, 0.0, lam, iters, res, 0.0, U, L0, L0,
                            lam >= an->max_load_factor * (1.0 - 1e-12)));
    crd_run_progress(r, "step %d  load factor %.6g  iterations %d  residual %.2e", step, lam, iters, res);
    if (iters <= 4 && dlam < dlam0) dlam = fmin(dlam0, dlam * 2.0);
  }
  r->steps = step;
  return 0;
}

/* Crisfield's cylindrical arc length on the translational DOFs, with the
 * proportional reference load F_ref = F_ext(1) (amplitude tables refused).
 * What the steps share: */
typedef struct arc_state {
  crd_run *r;
  st_work *w;
  const double *mask; /* 1 on the translational equations (the constraint's), 0 on the others */
  int n;              /* equations */
  double size;        /* the model's size (the round-off floor of the corrections) */
  double lam, ds;     /* the load factor reached, the arc length */
  double nt;          /* |dut| of this step's predictor (the floor of the cuts) */
  double Dlam;        /* the load factor increment of this step */
  double lam_stop;    /* the load factor to reach */
  int step, first, maxinc, desired; /* steps done, none yet, at most, Newton iterations aimed at */
} arc_state;

/* Arc length needs proportional loads and no prescribed displacements. */
static int arc_check(const crd_run *r)
{
  for (int k = 0; k < r->m->nloads; ++k)
    CRD_CHECK(r->m->loads[k].amp.n == 0, CRD_ERR_INPUT,
              "%s: $.loads[%d]: arc length needs proportional loads (no amplitude table)", r->m->case_path, k);
  CRD_CHECK(r->pb->npres == 0, CRD_ERR_INPUT, "%s: arc length with prescribed displacements is not supported",
            r->m->case_path);
  return 0;
}

/* The translational mask of the constraint (allocated; the caller frees it). */
static int arc_mask(const crd_problem *pb, double **mask)
{
  CRD_CALL(CRD_CALLOC(pb->neq, mask));
  for (int i = 0; i < pb->nn; ++i)
    for (int c = 0; c < 3; ++c)
      if (pb->eq[5 * i + c] >= 0) (*mask)[pb->eq[5 * i + c]] = 1.0;
  return 0;
}

/* The predictor: the tangent at the step's start, dut = K^-1 F_ref, the
 * first arc (the first load step's share of |dut|), and the load increment
 * along the arc in the direction of the last step's increment. */
static int arc_predict(arc_state *a)
{
  crd_run *r = a->r;
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  st_work *w = a->w;
  int n = a->n, rc;
  double rn, ref, U;
  if ((rc = residual(r, w, a->lam, 1, &rn, &ref, &U)) < 0) return rc;
  if ((rc = crd_loads_assemble(r->loads, pb, 1.0, 1, w->Fref, 0)) < 0) return rc;
  rc = factorize(r, a->first);
  if (rc < 0) return rc;
  if ((rc = solve(r, w->Fref, w->dut))) return rc;
  a->nt = sqrt(mdot(n, a->mask, w->dut, w->dut));
  if (a->ds < 0) a->ds = (an->max_load_factor / an->steps) * a->nt;
  double sgn = 1.0;
  if (a->step > 0) sgn = mdot(n, a->mask, w->Du_prev, w->dut) >= 0 ? 1.0 : -1.0;
  double dlam = sgn * a->ds / a->nt;
  for (int i = 0; i < n; ++i) w->Du[i] = dlam * w->dut[i];
  crd_problem_update(pb, w->Du, 1.0);
  a->Dlam = dlam;
  return 0;
}

/* The load increment dl of a correction du that keeps the step on the
 * arc, |Du + du + dl dut|^2 = ds^2: of the two roots, the one keeping the
 * increment closest to the previous one.  CRD_WARN_NEWTON_DIVERGED: none. */
static int arc_root(const arc_state *a, double *dl)
{
  const st_work *w = a->w;
  const double *mask = a->mask;
  int n = a->n;
  double A = mdot(n, mask, w->dut, w->dut);
  double DuDu = mdot(n, mask, w->Du, w->Du), Dudu = mdot(n, mask, w->Du, w->du), dudu = mdot(n, mask, w->du, w->du);
  double Dudt = mdot(n, mask, w->Du, w->dut), dudt = mdot(n, mask, w->du, w->dut);
  double B = 2.0 * (Dudt + dudt), C = DuDu + 2.0 * Dudu + dudu - a->ds * a->ds;
  double disc = B * B - 4.0 * A * C;
  if (disc < 0) return CRD_WARN_NEWTON_DIVERGED;
  double l1 = (-B + sqrt(disc)) / (2 * A), l2 = (-B - sqrt(disc)) / (2 * A);
  double c1 = DuDu + Dudu + l1 * Dudt, c2 = DuDu + Dudu + l2 * Dudt;
  *dl = c1 >= c2 ? l1 : l2;
  return 0;
}

enum { ARC_GO_ON, ARC_CONVERGED, ARC_FAILED };

/* One corrector iteration at load factor lam + Dlam: the residual (*res
 * relative), converged on it, else the tangent, du = K^-1 R and
 * dut = K^-1 F_ref, the load increment on the arc, the update; converged
 * too at the round-off floor (a correction negligible against the model
 * and a small residual).  *state: ARC_*; returns < 0 on an error (and
 * what the solves return). */
static int arc_iteration(arc_state *a, double *res, int *state)
{
  crd_run *r = a->r;
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  st_work *w = a->w;
  int n = a->n, rc;
  double rn, ref, U, dl;
  *state = ARC_FAILED;
  rc = residual(r, w, a->lam + a->Dlam, 1, &rn, &ref, &U);
  if (rc) return rc > 0 ? 0 : rc;
  *res = ref > 0 ? rn / ref : rn;
  if (rn <= an->tolerance * ref) return *state = ARC_CONVERGED, 0;
  rc = factorize(r, 0);
  if (rc) return rc > 0 ? 0 : rc;
  if ((rc = crd_loads_assemble(r->loads, pb, 1.0, 1, w->Fref, 0)) < 0) return rc;
  if ((rc = solve(r, w->R, w->du)) || (rc = solve(r, w->Fref, w->dut))) return rc;
  if (arc_root(a, &dl)) return 0;
  for (int i = 0; i < n; ++i) w->du[i] += dl * w->dut[i];
  for (int i = 0; i < n; ++i) w->Du[i] += w->du[i];
  a->Dlam += dl;
  crd_problem_update(pb, w->du, 1.0);
  r->newton_iters++;
  double mx = 0;
  for (int i = 0; i < n; ++i) mx = fmax(mx, a->mask[i] * fabs(w->du[i]));
  *state = mx <= 1e-3 * an->tolerance * a->size && rn <= sqrt(an->tolerance) * ref ? ARC_CONVERGED : ARC_GO_ON;
  return 0;
}

/* The corrector: iterations until converged (*conv), failed, or the
 * iteration limit; *it the iterations, *res the relative residual. */
static int arc_correct(arc_state *a, int *it, double *res, int *conv)
{
  int state = ARC_GO_ON, rc;
  for (*it = 1; *it <= a->r->m->analysis.max_iterations; ++*it) {
    if ((rc = arc_iteration(a, res, &state))) return rc;
    if (state != ARC_GO_ON) break;
  }
  *conv = state == ARC_CONVERGED;
  return 0;
}

/* A step that did not converge: back to its start with half the arc, or
 * the analysis fails once the arc is below 1e-8 of the predictor's. */
static int arc_cut(arc_state *a)
{
  crd_run *r = a->r;
  restore_state(r->pb, a->w);
  a->ds *= 0.5;
  r->cuts++;
  if (a->ds < 1e-8 * a->nt * r->m->analysis.max_load_factor)
    return CRD_ERR(CRD_ERR_NUMERIC, "arc length failed at load factor %.6g: the arc was cut below %.3g",
                   a->lam, a->ds);
  crd_run_progress(r, "cut: arc length %.3g", a->ds);
  return 0;
}

/* A converged step: the load factor on, its increment kept (the next
 * predictor's direction), the history and progress, and the next arc
 * scaled towards `desired` iterations (by a factor of 0.5 to 2). */
static int arc_accept(arc_state *a, int it, double res)
{
  crd_run *r = a->r;
  crd_problem *pb = r->pb;
  double L0[3] = {0, 0, 0};
  int rc;
  a->first = 0;
  a->lam += a->Dlam;
  memcpy(a->w->Du_prev, a->w->Du, sizeof(double) * a->n);
  ++a->step;
  double Us = 0.0;
  for (int e = 0; e < pb->ne; ++e) Us += pb->ue[e];
  int last = a->lam >= a->lam_stop * (1.0 - 1e-9) || a->step >= a->maxinc;
  if ((rc = crd_run_record(r, a->step, 0.0, a->lam, it, res, 0.0, Us, L0, L0, last))) return rc;
  crd_run_progress(r, "arc step %d  load factor %.6g  iterations %d  residual %.2e", a->step, a->lam, it, res);
  a->ds *= fmin(2.0, fmax(0.5, sqrt((double)a->desired / (double)(it > 0 ? it : 1))));
  return 0;
}

/* A converged step whose increment points against the last one (their
 * translational dot product negative) has left the path it was following:
 * near a sharp turn of the path the arc can reach back across it and the
 * corrector then converges onto the part already traced, after which the
 * predictor rule keeps walking back.  Such a step is cut like one that did
 * not converge, so the arc shrinks until it resolves the turn. */
static int arc_turned_back(const arc_state *a)
{
  return a->step > 0 && mdot(a->n, a->mask, a->w->Du, a->w->Du_prev) < 0.0;
}

/* Arc-length steps to the stop factor (at most 20 x steps): each a
 * predictor and a corrector, then accepted or cut. */
static int run_arc_length(crd_run *r, st_work *w)
{
  crd_problem *pb = r->pb;
  const crd_analysis *an = &r->m->analysis;
  int n = pb->neq, rc;
  if ((rc = arc_check(r))) return rc;
  double *mask = NULL;
  CRD_CALL(arc_mask(pb, &mask));
  arc_state a = {r, w, mask, n, model_size(r->m), 0.0, -1.0, 0.0, 0.0, an->arc_length_max_factor, 0, 1,
                 20 * an->steps, 5}; /* lam_stop: default max_load_factor (case.c) */
  memset(w->Du_prev, 0, sizeof(double) * n);
  while (a.lam < a.lam_stop * (1.0 - 1e-9) && a.step < a.maxinc) {
    int it = 0, conv = 0;
    double res = 0;
    save_state(pb, w);
    if ((rc = arc_predict(&a)) || (rc = arc_correct(&a, &it, &res, &conv))) goto out;
    if (conv && arc_turned_back(&a)) {
      crd_run_progress(r, "arc step at load factor %.6g turned back along the path", a.lam + a.Dlam);
      conv = 0;
    }
    if ((rc = conv ? arc_accept(&a, it, res) : arc_cut(&a))) goto out;
  }
  r->steps = a.step;
  rc = 0;
out:
  free(mask);
  return rc;
}

int crd_static_run(crd_run *r)
{
  crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  CRD_CHECK(m->nsupports > 0, CRD_ERR_INPUT,
            "%s: $.supports: a static analysis needs supports that prevent rigid-body motion (singular model)",
            m->case_path);
  st_work w;
  memset(&w, 0, sizeof w);
  int n = pb->neq, nn = pb->nn, rc;
  if ((rc = CRD_CALLOC(n, &w.Fi)) || (rc = CRD_CALLOC(n, &w.Fe)) || (rc = CRD_CALLOC(n, &w.R)) ||
      (rc = CRD_CALLOC(n, &w.du)) || (rc = CRD_CALLOC(n, &w.dut)) || (rc = CRD_CALLOC(n, &w.Fref)) ||
      (rc = CRD_CALLOC(n, &w.Du)) || (rc = CRD_CALLOC(n, &w.Du_prev)) ||
      (rc = CRD_CALLOC(3 * (size_t)nn, &w.d_save)) || (rc = CRD_CALLOC(3 * (size_t)nn, &w.p_save)) ||
      (rc = CRD_CALLOC(nn, &w.l_save)))
    goto out;
  double L0[3] = {0, 0, 0};
  if ((rc = crd_run_record(r, 0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, L0, L0, 1))) goto out;
  /* The tangent of the initial state must be positive definite: this
   * catches singular models even when the first residual is zero. */
  {
    double rn, ref, U;
    if ((rc = residual(r, &w, 0.0, 1, &rn, &ref, &U)) || (rc = factorize(r, 1))) goto out;
  }
  if (!m->analysis.nlgeom) rc = run_linear(r, &w);
  else if (m->analysis.arc_length) rc = run_arc_length(r, &w);
  else rc = run_load_control(r, &w);
out:
  free(w.Fi); free(w.Fe); free(w.R); free(w.du); free(w.dut); free(w.Fref); free(w.Du); free(w.Du_prev);
  free(w.d_save); free(w.p_save); free(w.l_save);
  return rc ? CRD_TRACE(rc) : 0;
}
