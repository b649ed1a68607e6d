/* crdyn: implicit stage: generalized-alpha with the quasi energy-momentum
 * internal force (docs/theory.md §6, eqs 55-59; the derivation is in docs/dynamics.md).
 *
 * Unknown: the increment du of the generalized variables over the step
 * (translations and pair components; the pair is fixed within a step).
 * Newmark (eq 57) acts on the translations d and on the normal as a
 * 3-vector p (p_b from the pair, |p_b| = 1):
 *   a_b = (dd - dt v0 - dt^2 (1/2 - beta) a0) / (beta dt^2)
 *   v_b = v0 + dt ((1 - gamma) a0 + gamma a_b),  a_m = (1 - am) a_b + am a0,
 * the same for (p, w = p', wa = p'').  The balance (eq 58) at the generalized
 * midpoint, with x_f, p_f = (1 - af) (.)_b + af (.)_a (p_f not normalised):
 *   translations:  C a_m + F_int,f - F_ext = 0
 *   normals:       P_i^T (P a_m + g_int,f - g_ext) = 0,  P_i^T p_f,i = 0
 * where P_i spans the plane orthogonal to p_f,i (the pair's A1 at p_b with
 * its p_f component removed): the constraint force along p_f does no work
 * over the step (p_f . (p_b - p_a) = 0 when af = 1/2) and has no moment, and
 * the internal forces are the gradient at (x_f, p_f) of a rigid-motion
 * invariant function (shell_dyn.h).  With rho_inf = 1 this makes linear and
 * angular momentum exact and leaves only the "quasi" strain-energy error.
 * This is eqs 39-42 (M n'' + f_m with p'' = A1 n'' + A2) with p'' taken
 * from the Newmark relations of the normal itself.
 * Newton on the symmetric effective tangent
 *   K_eff = c_m M + c_f K_f,  c_m = (1 - am)/(beta dt^2),  c_f = 1 - af,
 * M with the director blocks P_ij P_i^T P_j (eq 40b with P for A1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/dynamics.h"
#include "crdyn/hybrid.h"
#include "crdyn/error.h"
#include "crdyn/linsys.h"
#include "crdyn/shell_dyn.h"
#include "crdyn/cr_frame.h"
#include "crdyn/shell_mass.h"
#include "crdyn/tie.h"
#include "crdyn/timer.h"
#include "crdyn/triads.h"

typedef crd_im_param ga_param; /* dynamics.h: the intersection nodes' step takes them too */

/* Chung-Hulbert 1993 parameters from the spectral radius at infinity. */
static ga_param ga_from_rho(double rho)
{
  ga_param g;
  g.am = (2.0 * rho - 1.0) / (rho + 1.0);
  g.af = rho / (rho + 1.0);
  g.gamma = 0.5 - g.am + g.af;
  g.beta = 0.25 * (1.0 - g.am + g.af) * (1.0 - g.am + g.af);
  return g;
}

double crd_ga_beta(double rho_inf)
{
  return ga_from_rho(rho_inf).beta;
}

typedef struct im_work {
  double *d0, *p0, *pf, *df;      /* 3*nn: start state, midpoint state */
  int *l0;
  double *du, *V0, *A0, *V1, *A1, *Vf, *Am; /* 5*nn per slot (translations used) */
  double *W0, *WA0, *W1, *WA1, *WAm;        /* 3*nn: normal rates p', p'' */
  double *Bs;                               /* 6*nn: bases P_i (3x2) */
  double *R, *Fi, *Fin, *Fe, *dx; /* neq */
  double *fin_e, *fg_e;           /* 20*ne: element inertia and internal forces */
  double xi;                      /* the step's algorithmic dissipation (crd_q4_mat.xi) */
  double *E_e;                    /* 400*ne: the non-symmetric part of the element Newton matrices */
  double *y, *yp;                 /* neq: right-hand sides of this sweep and of the last */
  double x_roundoff;              /* the increment norm that round-off of the positions allows */
  crd_ties *ties;                 /* rigid bodies and their tied nodes (NULL: none) */
  crd_tie_step ts;                /* what the step shares with them */
  crd_linsys *ls;                 /* the run's: K_eff factorized, the sweeps' solves */
} im_work;

static void work_free(im_work *w)
{
  free(w->d0); free(w->p0); free(w->pf); free(w->df); free(w->l0);
  free(w->W0); free(w->WA0); free(w->W1); free(w->WA1); free(w->WAm); free(w->Bs);
  free(w->du); free(w->V0); free(w->A0); free(w->V1); free(w->A1); free(w->Vf); free(w->Am);
  free(w->R); free(w->Fi); free(w->Fin); free(w->Fe); free(w->dx); free(w->fin_e); free(w->fg_e); free(w->E_e);
  free(w->y); free(w->yp);
}

static int work_alloc(im_work *w, int nn, int ne, int neq)
{
  size_t n3 = 3 * (size_t)nn, n5 = 5 * (size_t)nn;
  if (CRD_CALLOC(n3, &w->d0) || CRD_CALLOC(n3, &w->p0) || CRD_CALLOC(n3, &w->pf) || CRD_CALLOC(n3, &w->df) ||
      CRD_CALLOC(nn, &w->l0) || CRD_CALLOC(n3, &w->W0) || CRD_CALLOC(n3, &w->WA0) || CRD_CALLOC(n3, &w->W1) ||
      CRD_CALLOC(n3, &w->WA1) || CRD_CALLOC(n3, &w->WAm) || CRD_CALLOC(2 * n3, &w->Bs) || CRD_CALLOC(n5, &w->du) || CRD_CALLOC(n5, &w->V0) || CRD_CALLOC(n5, &w->A0) ||
      CRD_CALLOC(n5, &w->V1) || CRD_CALLOC(n5, &w->A1) || CRD_CALLOC(n5, &w->Vf) || CRD_CALLOC(n5, &w->Am) ||
      CRD_CALLOC(neq, &w->R) || CRD_CALLOC(neq, &w->Fi) || CRD_CALLOC(neq, &w->Fin) || CRD_CALLOC(neq, &w->Fe) ||
      CRD_CALLOC(neq, &w->dx) || CRD_CALLOC(20 * (size_t)ne, &w->fin_e) || CRD_CALLOC(20 * (size_t)ne, &w->fg_e) ||
      CRD_CALLOC(400 * (size_t)ne, &w->E_e) || CRD_CALLOC(neq, &w->y) || CRD_CALLOC(neq, &w->yp)) {
    work_free(w);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  return 0;
}

static double nrm(int n, const double *a)
{
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * a[i];
  return sqrt(s);
}

/* The normal of node i at pair value p0's pair + s * du (chart of l);
 * returns 1 - a^2 - b^2 (small: the step leaves the chart). */
static double pair_state(const double *p0, int l, const double *dpair, double s, double *p)
{
  int n, m;
  crd_dir_pair(l, &n, &m);
  return crd_dir_from_pair(p0[n] + s * dpair[0], p0[m] + s * dpair[1], l, p0[l], p);
}

/* Newmark for one value: end and midpoint rates. */
static void newmark(const ga_param *g, double dt, double du, double v0, double a0, double *v1, double *a1,
                    double *am)
{
  double b = g->beta;
  *a1 = (du - dt * v0 - dt * dt * (0.5 - b) * a0) / (b * dt * dt);
  *v1 = v0 + dt * ((1.0 - g->gamma) * a0 + g->gamma * (*a1));
  *am = (1.0 - g->am) * (*a1) + g->am * a0;
}

/* State at the end of the step and at the midpoint from du, the rates, and
 * the bases P_i.  Returns CRD_WARN_NEWTON_DIVERGED when a normal leaves its
 * chart. */
static int build_state(crd_problem *pb, im_work *w, const ga_param *g, double dt)
{
  double cf = 1.0 - g->af;
  for (int i = 0; i < pb->nn; ++i) {
    const double *du = w->du + 5 * i;
    double *pb_ = pb->p + 3 * i, *pf = w->pf + 3 * i;
    const double *pa = w->p0 + 3 * i;
    for (int c = 0; c < 3; ++c) {
      size_t k = 5 * (size_t)i + c;
      pb->d[3 * i + c] = w->d0[3 * i + c] + du[c];
      w->df[3 * i + c] = w->d0[3 * i + c] + cf * du[c];
      newmark(g, dt, du[c], w->V0[k], w->A0[k], &w->V1[k], &w->A1[k], &w->Am[k]);
    }
    if (pb->tr && pb->tr->of[i] >= 0) continue; /* a triad: below */
    if (pair_state(pa, pb->l[i], du + 3, 1.0, pb_) < 0.01)
      return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                         "the normal of node %d turned too far in one step", i);
    for (int c = 0; c < 3; ++c) {
      size_t k = 3 * (size_t)i + c;
      pf[c] = cf * pb_[c] + g->af * pa[c];
      newmark(g, dt, pb_[c] - pa[c], w->W0[k], w->WA0[k], &w->W1[k], &w->WA1[k], &w->WAm[k]);
    }
    crd_dir_mid_basis(pb_, pb->l[i], pf, w->Bs + 6 * (size_t)i);
  }
  return pb->tr ? crd_im_triads_state(pb, g, dt, w->du, w->pf, w->W1, w->WA1) : 0;
}

/* Element residuals and effective tangents by the backend: Fi (internal),
 * Fin (inertia) and K_eff in pb->K; *U strain energy at the end of the
 * step. */
static int assemble(crd_problem *pb, const crd_dyn *dy, im_work *w, const ga_param *g, double cm,
                    int want_K, double *U)
{
  crd_mid_in in = {w->d0, w->p0, w->df, w->pf, w->Am, w->WAm, w->Bs, dy->C, 1.0 - g->af, cm, w->xi};
  crd_mid_out out = {w->Fi, w->Fin, w->fg_e, w->fin_e, w->E_e, 0.0};
  int rc = pb->be->ops->eval_mid(pb->be, pb, &in, want_K, &out);
  if (rc) return rc > 0 ? rc : CRD_TRACE(rc);
  *U = out.U;
  return 0;
}

/* Generalized inertia force Fm (eq 37) of the current state at the pair
 * rates of w (physical p'), assembled into F. */
static void assemble_fm(const crd_problem *pb, const crd_dyn *dy, const double *wvec, double *F)
{
  const crd_model *m = pb->m;
  for (int i = 0; i < pb->neq; ++i) F[i] = 0.0;
  if (pb->tr) crd_im_triads_mass(dy, pb, NULL, 0.0, F); /* the fold elements (dy->tRd: wvec is dy->w) */
  for (int e = 0; e < pb->ne; ++e) {
    if (pb->tr && pb->tr->elem_of[e] >= 0) continue;
    double p[12], nd[8], fm[20] = {0};
    int l[4];
    for (int a = 0; a < 4; ++a) {
      int n = m->quads[4 * e + a];
      for (int c = 0; c < 3; ++c) p[3 * a + c] = pb->p[3 * n + c];
      crd_dyn_pair(pb, n, wvec + 3 * n, nd + 2 * a);
      l[a] = pb->l[n];
    }
    const crd_section *s = &m->sections[m->elem_section[e]];
    crd_q4_mass(dy->C + 16 * (size_t)e, s->thickness, p, l, nd, 1.0, 1.0, NULL, fm);
    const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
    for (int a = 0; a < 20; ++a)
      if (eq[a] >= 0) F[eq[a]] += fm[a];
  }
}

/* K_eff is positive definite for small steps; the geometric terms of
 * strongly stressed states can make it indefinite at a given step (the
 * same matrix is then still regular): go on with LDL^T from there. */
static int factorize(crd_run *r, int allow_ldl)
{
  crd_problem *pb = r->pb;
  int rc = crd_linsys_factorize(r->ls, pb->K);
  if (rc == CRD_WARN_NOT_POSDEF && allow_ldl && !r->ls->indefinite) {
    crd_run_progress(r, "effective tangent indefinite: switching to LDL^T");
    rc = crd_linsys_go_indefinite(r->ls, pb->K);
  }
  return rc;
}

/* Physical rates of node i from its slot rates V, A (5 each) at the
 * current normal: v, a from slots 0..2; w = A1 n', wa = A1 n'' + A2. */
static void set_physical(crd_dyn *dy, const crd_problem *pb, int i, const double *V, const double *A)
{
  double A1[6], A2[3];
  const double *p = pb->p + 3 * i;
  crd_dir_A1(p, pb->l[i], A1);
  crd_q4_A2(p, pb->l[i], V + 3, A2);
  for (int c = 0; c < 3; ++c) {
    dy->v[3 * i + c] = V[c];
    dy->a[3 * i + c] = A[c];
    dy->w[3 * i + c] = A1[2 * c] * V[3] + A1[2 * c + 1] * V[4];
    dy->wa[3 * i + c] = A1[2 * c] * A[3] + A1[2 * c + 1] * A[4] + A2[c];
  }
}

/* Consistent initial accelerations: M A = Fext - Fint - Fm at the current
 * state (fixed slots: zero acceleration). */
static int initial_accel(crd_run *r, crd_dyn *dy, im_work *w, double t)
{
  crd_problem *pb = r->pb;
  double U, t0 = crd_wtime();
  CRD_CALL(crd_problem_eval(pb, 0, w->Fi, &U));
  CRD_CALL(crd_loads_assemble(r->loads, pb, t, 0, w->Fe, 0));
  assemble_fm(pb, dy, dy->w, w->Fin);
  crd_csr_zero(pb->K);
  crd_dyn_assemble_mass(dy, pb, pb->K, 1.0);
  r->time_eval += crd_wtime() - t0;
  for (int i = 0; i < pb->neq; ++i) w->R[i] = w->Fe[i] - w->Fi[i] - w->Fin[i];
  /* tied nodes take their accelerations from the bodies (below); the
   * free ones are solved for with the tied ones held (a start-up
   * approximation: the coupling mass M_ft a_t is left out) */
  crd_ties_zero(dy->ties, w->R);
  crd_ties_identity(dy->ties, pb->K);
  int rc = factorize(r, 0);
  if (rc) return CRD_ERR(CRD_ERR_NUMERIC, "the mass matrix is not positive definite: %s", crd_err_message());
  CRD_CALL(crd_solver_solve(r->ls->solver, w->R, w->dx));
  dy->strain = U;
  for (int i = 0; i < pb->nn; ++i) {
    double V[5], A[5];
    for (int c = 0; c < 3; ++c) V[c] = dy->v[3 * i + c];
    crd_dyn_pair(pb, i, dy->w + 3 * i, V + 3);
    for (int s = 0; s < 5; ++s) {
      int e = pb->eq[5 * i + s];
      A[s] = e >= 0 ? w->dx[e] : 0.0;
    }
    set_physical(dy, pb, i, V, A);
  }
  if (pb->tr) crd_im_triads_accel(dy, pb, w->dx); /* the triads' R'' and their nodes' w, wa */
  crd_ties_node_rates(dy->ties, pb, dy->v, dy->a, dy->w, dy->wa);
  return 0;
}

static void restore(crd_problem *pb, const im_work *w)
{
  memcpy(pb->d, w->d0, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(pb->p, w->p0, 3 * sizeof(double) * (size_t)pb->nn);
  memcpy(pb->l, w->l0, sizeof(int) * (size_t)pb->nn);
  if (pb->tr) crd_im_triads_restore(pb);
}

/* The Newton increment: (S + E) dx = R with S = K_eff, symmetric and
 * factorized, and E the sum of the element parts it leaves out
 * (crd_q4_mid_skew), by the iteration dx <- S^-1 (R - E dx).  S^-1 E is of
 * the order of an element's rotation over half a step, so each sweep gains
 * about that factor; CRD_IM_SWEEPS sweeps make Newton converge as with the
 * full matrix, for the cost of solves with the factor already at hand.
 *
 * stop > 0: an inexact Newton step (Dembo, Eisenstat and Steihaug 1982).
 * The sweeps end once the linear residual of the iterate, b - (S + E) x,
 * is at most stop.  It costs nothing extra: with x_s = S^-1 y_{s-1}
 * (y_{-1} = b) and y_s = b - E x_s, that residual is y_s - y_{s-1}, the
 * difference of two right-hand sides the sweeps form anyway.  stop = 0:
 * all CRD_IM_SWEEPS sweeps (the bodies' Schur columns, tie.h). */
#define CRD_IM_SWEEPS 2
static int sweep_solve(crd_problem *pb, im_work *w, const double *b, double *x, double stop)
{
  const int n = pb->neq;
  CRD_CALL(crd_solver_solve(w->ls->solver, b, x));
  const double *prev = b;
  for (int sweep = 0; sweep < CRD_IM_SWEEPS; ++sweep) {
    double *y = w->y;
    memcpy(y, b, sizeof(double) * (size_t)n);
    for (int e = 0; e < pb->ne; ++e) {
      const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
      const double *E = w->E_e + 400 * (size_t)e;
      double xe[20];
      for (int a = 0; a < 20; ++a) xe[a] = eq[a] >= 0 ? x[eq[a]] : 0.0;
      for (int a = 0; a < 20; ++a) {
        if (eq[a] < 0) continue;
        double v = 0.0;
        for (int c = 0; c < 20; ++c) v += E[20 * a + c] * xe[c];
        y[eq[a]] -= v;
      }
    }
    crd_ties_zero(w->ties, y); /* the tied rows are the bodies' (tie.h) */
    if (stop > 0.0) {
      double r2 = 0.0;
      for (int i = 0; i < n; ++i) r2 += (y[i] - prev[i]) * (y[i] - prev[i]);
      if (sqrt(r2) <= stop) break;
    }
    CRD_CALL(crd_solver_solve(w->ls->solver, y, x));
    w->y = w->yp; /* this sweep's y is the next one's prev */
    w->yp = y;
    prev = y;
  }
  return 0;
}

/* The forcing term of the inexact Newton step from a residual res (ref:
 * the force scale): a linear residual below CRD_SWEEP_ETA rel res, i.e.
 * CRD_SWEEP_ETA rel^2 ref, is of second order in the residual as Newton's
 * own remainder c rel^2 ref, so the convergence stays quadratic; and
 * one below a tenth of the tolerance cannot hold convergence back.
 * Measured on the bench plate (100x100, tol 1e-8): linear residual
 * relative to |R| after the first sweep 1e-6 to 9e-6 in a step's first
 * iteration (rel ~ 0.4), 4e-9 to 1.2e-7 in its second (rel ~ 1e-2), so
 * one sweep meets it where two were run (docs/dynamics.md §2). */
#define CRD_SWEEP_ETA 1e-4
static int newton_increment(crd_problem *pb, im_work *w, double res, double ref, double tol)
{
  double stop = crd_ties_nbodies(w->ties) ? 0.0 : fmax(0.1 * tol * ref, CRD_SWEEP_ETA * (res / ref) * res);
  return sweep_solve(pb, w, w->R, w->dx, stop);
}

/* the solve the bodies' Schur complement uses for its columns (tie.h) */
typedef struct sweep_ctx {
  crd_problem *pb;
  im_work *w;
} sweep_ctx;
static int sweep_cb(void *ctx, const double *b, double *x)
{
  sweep_ctx *c = ctx;
  return sweep_solve(c->pb, c->w, b, x, 0.0);
}

/* The start of a step: the state and rates at t0 saved, the
 * constant-velocity predictor of the increment. */
static void ga_start(crd_problem *pb, const crd_dyn *dy, im_work *w, double dt)
{
  size_t nn = (size_t)pb->nn;
  memcpy(w->d0, pb->d, 3 * sizeof(double) * nn);
  memcpy(w->p0, pb->p, 3 * sizeof(double) * nn);
  memcpy(w->l0, pb->l, sizeof(int) * nn);
  for (size_t i = 0; i < nn; ++i) {
    for (int c = 0; c < 3; ++c) {
      w->V0[5 * i + c] = dy->v[3 * i + c];
      w->A0[5 * i + c] = dy->a[3 * i + c];
    }
    crd_dyn_pair(pb, (int)i, dy->w + 3 * i, w->V0 + 5 * i + 3);
    crd_dyn_pair(pb, (int)i, dy->wa + 3 * i, w->A0 + 5 * i + 3);
    for (int c = 0; c < 3; ++c) {
      w->W0[3 * i + c] = dy->w[3 * i + c];
      w->WA0[3 * i + c] = dy->wa[3 * i + c];
    }
    for (int s = 0; s < 5; ++s) {
      size_t k = 5 * i + s;
      w->du[k] = pb->eq[k] >= 0 ? dt * w->V0[k] : 0.0; /* constant-velocity predictor */
    }
  }
  if (pb->tr) crd_im_triads_start(dy, pb, dt, w->du); /* the triads' state, their chart variables' predictor */
}

/* The element forces (and K_eff when want_K) at the state of w->du, and
 * the loads at the midpoint configuration. */
static int evaluate(crd_run *r, crd_dyn *dy, im_work *w, const ga_param *g, double cm, double dt, double tf,
                    int want_K, double *U)
{
  crd_problem *pb = r->pb;
  double te = crd_wtime();
  int rc;
  if ((rc = build_state(pb, w, g, dt)) || (rc = assemble(pb, dy, w, g, cm, want_K, U))) return rc;
  double *sd = pb->d, *sp = pb->p;
  pb->d = w->df;
  pb->p = w->pf;
  rc = crd_loads_assemble(r->loads, pb, tf, 0, w->Fe, want_K);
  pb->d = sd;
  pb->p = sp;
  r->time_eval += crd_wtime() - te;
  return rc;
}

/* Modified Newton (a warm ga_step) goes back to full Newton once an
 * iteration gains less than this factor on the residual. */
#define CRD_MOD_GAIN 0.1
/* the residual (relative to the force scale) below which ga_step looks one
 * correction ahead: within two orders of the tolerance (10: 4.22 Newton
 * iterations per step on the flying plate, 100: 4.12, 1e5: 4.11) */
#define CRD_LOOK_AHEAD 100.0
/* The forces alone first (ga_want_K) only where the state may be converged
 * or within the look-ahead's reach: after an iteration that left the
 * relative residual at rel, Newton's next is about c rel^2, with c above
 * 1e-5 in what was measured (5e-3 and 1.2e-4 in the two iterations of a
 * step of the bench plate, 1e-2 to 0.7 on the flying plate).  For rel >=
 * sqrt(1e7 tol) the next residual is then above CRD_LOOK_AHEAD tol, and
 * that state's tangent is evaluated at once, with its forces (the same
 * bits as the force pass: the iterates do not change, one force pass is
 * saved per such iteration; bench plate and flying plate histories
 * bitwise unchanged).  A step where c is smaller loses the look-ahead at
 * that iteration (the tangent just evaluated replaced the E of the factor
 * at hand). */
#define CRD_K_FIRST 3162.0

/* What the Newton iterations of one step share: the step (run, motion,
 * stage, parameters, c_m, length, the load time t_f), ga_step's outputs,
 * the policy state of modified Newton and of the tangent-first choice, and
 * the measures of the current iteration. */
typedef struct ga_newton {
  crd_run *r;
  crd_dyn *dy;
  im_work *w;
  const crd_stage *st;
  const ga_param *g;
  double cm, dt, tf;
  int *iters;                /* out: the iterations done */
  double *res, *U;           /* out: the residual, the strain energy */
  int modified, need_K;      /* modified Newton on the factor at hand; a tangent asked for */
  double res_last, rel_last; /* the residual of the last corrected iteration, absolute and relative */
  double dxn;                /* the norm of the last correction */
  double ref, dun;           /* this iteration: the force scale, |du| */
} ga_newton;

/* The prescribed translations at t1 (the problem's state) taken into the
 * increment from the start state. */
static void ga_prescribe(crd_problem *pb, im_work *w, double t1)
{
  crd_problem_set_prescribed(pb, t1, 0);
  for (int k = 0; k < pb->npres; ++k) {
    int i = pb->pres[k].node, c = pb->pres[k].comp;
    w->du[5 * i + c] = pb->d[3 * i + c] - w->d0[3 * i + c];
  }
}

/* Whether this iteration evaluates the tangent with the forces.  Never in
 * modified Newton.  From the second iteration on, the forces alone first:
 * the evaluation that finds the step converged needs no K (one tangent in
 * every 2-3 saved for the cost of a force pass in the others, ~1/5 of
 * one), unless modified Newton just stalled or the last relative residual
 * is beyond the look-ahead's reach (CRD_K_FIRST). */
static int ga_want_K(const ga_newton *s, int it)
{
  return !s->modified && (it == 0 || s->need_K || s->rel_last >= CRD_K_FIRST * sqrt(s->st->tolerance));
}

/* The residual R = F_in + F_i - F_e at the state of w->du (and the
 * tangent when want_K), with the bodies' balance: *res its norm, ref the
 * force scale, dun |du|. */
static int ga_residual(ga_newton *s, int it, int want_K)
{
  crd_problem *pb = s->r->pb;
  im_work *w = s->w;
  int n = pb->neq;
  int rc = evaluate(s->r, s->dy, w, s->g, s->cm, s->dt, s->tf, want_K, s->U);
  if (rc) return rc;
  crd_dyn_test_nan(s->r, s->dy->step + 1, w->Fe, n);
  for (int i = 0; i < n; ++i) w->R[i] = w->Fin[i] + w->Fi[i] - w->Fe[i];
  double rb2 = 0.0, bscale = 0.0;
  crd_ties_residual(w->ties, pb, &w->ts, w->R, &rb2, &bscale); /* the bodies' balance; tied rows of R zeroed */
  *s->res = sqrt(nrm(n, w->R) * nrm(n, w->R) + rb2);
  s->ref = fmax(fmax(fmax(nrm(n, w->Fe), nrm(n, w->Fi)), fmax(nrm(n, w->Fin), 1e-6 * pb->fe_norm)), bscale);
  s->dun = nrm(5 * pb->nn, w->du);
  *s->iters = it;
  return 0;
}

/* Watchdog: a non-finite residual, named where it is (node, slot and
 * which force).  CRD_WARN_NEWTON_DIVERGED (the step is cut) or 0. */
static int ga_watch_nonfinite(const ga_newton *s, int it)
{
  if (isfinite(*s->res)) return 0;
  crd_problem *pb = s->r->pb;
  const im_work *w = s->w;
  int n = pb->neq;
  int bad = crd_nonfinite_eq(w->R, n), slot, node = bad >= 0 ? crd_problem_eq_node(pb, bad, &slot) : -1;
  const char *what = bad < 0 ? "" : crd_nonfinite_eq(w->Fe, n) == bad ? " (the external force)"
                   : crd_nonfinite_eq(w->Fi, n) == bad ? " (the internal force)" : " (the inertia force)";
  if (node >= 0)
    return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                       "non-finite residual at node %d, %s %d%s, Newton iteration %d", node,
                       slot < 3 ? "translation" : "normal component", slot < 3 ? slot : slot - 3, what, it);
  return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                     "the residual norm overflowed (Newton iteration %d)", it);
}

/* A non-finite Newton increment after a finite residual: reported as
 * such, with the phase that made it (the element skew parts, the assembled
 * tangent, or else the factorization or the solve), not left to show up as
 * a non-finite residual at the next iteration.  Still a warning: the step
 * is cut as for a diverged Newton iteration. */
static int ga_watch_increment(const ga_newton *s, int it)
{
  const crd_problem *pb = s->r->pb;
  const im_work *w = s->w;
  int bad = crd_nonfinite_eq(w->dx, pb->neq), slot;
  if (bad < 0) return 0;
  int node = crd_problem_eq_node(pb, bad, &slot);
  long kbad = -1, ebad = -1;
  for (long k = 0; k < (long)pb->K->nnz && kbad < 0; ++k)
    if (!isfinite(pb->K->val[k])) kbad = k;
  for (long k = 0; k < 400L * pb->ne && ebad < 0; ++k)
    if (!isfinite(w->E_e[k])) ebad = k / 400;
  char phase[160];
  if (ebad >= 0) snprintf(phase, sizeof phase, "the elements: element %ld's skew part E_e is not finite", ebad);
  else if (kbad >= 0) snprintf(phase, sizeof phase, "the elements or the assembly: stored entry %ld of the tangent K "
                               "is not finite", kbad);
  else snprintf(phase, sizeof phase, "the factorization or the solve (the tangent and the residual are finite)");
  return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                     "non-finite Newton increment at node %d, %s %d, Newton iteration %d: from %s", node,
                     slot < 3 ? "translation" : "normal component", slot < 3 ? slot : slot - 3, it, phase);
}

/* Converged on the residual, or on the increment once the residual has
 * reached the round-off floor of the element forces (stiffness times the
 * round-off of the positions, above tol * ref for stiff shells): an
 * increment below tol |du|, or at the round-off of the positions
 * themselves, cannot be improved on. */
static int ga_converged(const ga_newton *s, int it)
{
  const double tol = s->st->tolerance, res = *s->res, ref = s->ref;
  return it > 0 && (res <= tol * ref || (s->dxn <= tol * s->dun && res <= sqrt(tol) * ref) ||
                    (s->dxn <= s->w->x_roundoff && res <= 1e-4 * ref));
}

/* Near the tolerance, the next correction first, with the factor at hand
 * (one sweep solve, no evaluation): when it is below tol |du| the state is
 * converged on the increment criterion of ga_converged, applied to the
 * error of this iterate (what the next correction measures) rather than to
 * the size of the last one (*done).  The iteration that would only confirm
 * it (a tangent, a factorization, a force pass) is saved: at a tolerance at
 * the round-off floor of the forces (1e-10 on the flying plate) that is
 * most steps' last one (docs/dynamics.md §2).  The state is the one
 * evaluated, so its energy, forces and rates agree; the correction is not
 * applied.  Not with rigid bodies tied in (their increments are solved
 * jointly, crd_ties_solve), nor after a tangent of this state (E is no
 * longer the factor's).  Otherwise *have_dx: the correction in w->dx is the
 * increment of modified Newton. */
static int ga_look_ahead(ga_newton *s, int it, int want_K, int *done, int *have_dx)
{
  crd_problem *pb = s->r->pb;
  im_work *w = s->w;
  const double tol = s->st->tolerance;
  if (!(it > 0 && !want_K && crd_ties_nbodies(w->ties) == 0 && *s->res <= CRD_LOOK_AHEAD * tol * s->ref))
    return 0;
  double ts = crd_wtime();
  int rc = newton_increment(pb, w, *s->res, s->ref, tol);
  s->r->time_solve += crd_wtime() - ts;
  if (rc) return rc;
  if (nrm(pb->neq, w->dx) <= tol * s->dun)
    *done = 1;
  else
    *have_dx = 1;
  return 0;
}

/* Watchdog: the iteration limit, with the largest residual named.
 * CRD_WARN_NEWTON_DIVERGED (the step is cut) or 0. */
static int ga_watch_iterations(const ga_newton *s, int it)
{
  if (it < s->st->max_iterations) return 0;
  crd_problem *pb = s->r->pb;
  const double *R = s->w->R;
  int n = pb->neq, kmax = 0, slot = 0;
  for (int i = 1; i < n; ++i)
    if (fabs(R[i]) > fabs(R[kmax])) kmax = i;
  int node = n > 0 ? crd_problem_eq_node(pb, kmax, &slot) : -1;
  return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                     "Newton did not converge in %d iterations (residual %.3g relative, largest at node %d, %s %d)",
                     it, *s->res / s->ref, node, slot < 3 ? "translation" : "normal component",
                     slot < 3 ? slot : slot - 3);
}

/* Modified Newton that gained less than CRD_MOD_GAIN in this iteration:
 * the old factor does not carry it, full Newton from here, the tangent
 * evaluated at this state in the next iteration (1: iterate again). */
static int ga_modified_stalls(ga_newton *s, int it)
{
  if (!(s->modified && it > 0 && *s->res > CRD_MOD_GAIN * s->res_last)) return 0;
  s->modified = 0;
  s->need_K = 1;
  return 1;
}

/* Full Newton: the tangent at this state (unless this iteration evaluated
 * it with the forces; the forces come out the same), the bodies condensed
 * into it, and its factorization.  Modified Newton keeps the factor at
 * hand. */
static int ga_factor_tangent(ga_newton *s, int want_K)
{
  crd_run *r = s->r;
  im_work *w = s->w;
  int rc = 0;
  if (!s->modified && !want_K && (rc = evaluate(r, s->dy, w, s->g, s->cm, s->dt, s->tf, 1, s->U))) return rc;
  double tf0 = crd_wtime();
  if (!s->modified) {
    if ((rc = crd_ties_condense(w->ties, r->pb, &w->ts))) return rc;
    if (r->test_nan_k_step > 0 && s->dy->step + 1 == r->test_nan_k_step) /* test hook: a broken tangent */
      r->pb->K->val[r->pb->K->nnz / 2] = NAN;
    rc = factorize(r, 1);
  }
  r->time_factor += crd_wtime() - tf0;
  return rc;
}

/* The Newton correction (the look-ahead's when modified Newton has it),
 * the bodies' increments with it, applied to du; dxn its norm. */
static int ga_correct(ga_newton *s, int have_dx)
{
  crd_run *r = s->r;
  crd_problem *pb = r->pb;
  im_work *w = s->w;
  int n = pb->neq, rc;
  double ts = crd_wtime();
  double dx2 = 0.0;
  if ((!(s->modified && have_dx) && (rc = newton_increment(pb, w, *s->res, s->ref, s->st->tolerance))) ||
      (rc = crd_ties_solve(w->ties, pb, sweep_cb, &(sweep_ctx){pb, w}, &w->ts, w->dx, w->du, &dx2)))
    return rc;
  r->time_solve += crd_wtime() - ts;
  for (size_t k = 0; k < 5 * (size_t)pb->nn; ++k)
    if (pb->eq[k] >= 0) w->du[k] -= w->dx[pb->eq[k]];
  if (pb->tr) crd_im_triads_correct(pb, w->dx);
  s->dxn = sqrt(nrm(n, w->dx) * nrm(n, w->dx) + dx2);
  return 0;
}

/* The rates at the end of a converged step into dy. */
static void ga_end_rates(const crd_problem *pb, crd_dyn *dy, const im_work *w)
{
  for (size_t i = 0; i < (size_t)pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      dy->v[3 * i + c] = w->V1[5 * i + c];
      dy->a[3 * i + c] = w->A1[5 * i + c];
      dy->w[3 * i + c] = w->W1[3 * i + c];
      dy->wa[3 * i + c] = w->WA1[3 * i + c];
    }
  if (pb->tr) crd_im_triads_rates(dy, pb, 1);
}

/* One step t0 -> t0 + dt with the dissipation w->xi.  0: converged (state,
 * rates in dy and *U at the end; the pairs are switched by the caller once
 * it accepts the step); CRD_WARN_*: not converged, the state is restored
 * (the caller cuts).  warm: solve the same step again from the converged
 * state of the last call (only w->xi changed): the start state saved then
 * and the increment are kept. */
static int ga_step(crd_run *r, crd_dyn *dy, im_work *w, const crd_stage *st, const ga_param *g, double t0,
                   double dt, int warm, int *iters, double *res, double *U)
{
  crd_problem *pb = r->pb;
  if (!warm) ga_start(pb, dy, w, dt);
  double t1 = t0 + dt, tf = t0 + (1.0 - g->af) * dt;
  ga_prescribe(pb, w, t1);
  double cm = (1.0 - g->am) / (g->beta * dt * dt);
  crd_tie_step tst = {w->d0, w->p0, w->df, w->pf, w->Bs, w->E_e, dt, g->am, g->af, g->beta, g->gamma, tf};
  w->ts = tst;
  if (!warm) crd_ties_begin(w->ties, pb, &w->ts, w->du);
  /* warm: modified Newton on the factor at hand (that of the solve just
   * converged; only xi changed, by a little), forces alone per iteration,
   * until an iteration gains less than CRD_MOD_GAIN: then full Newton */
  ga_newton s = {r, dy, w, st, g, cm, dt, tf, iters, res, U, warm, 0, INFINITY, INFINITY, 0.0, 0.0, 0.0};
  int rc;
  for (int it = 0;; ++it) {
    const int want_K = ga_want_K(&s, it);
    int done = 0, have_dx = 0;
    s.need_K = 0;
    if ((rc = ga_residual(&s, it, want_K)) || (rc = ga_watch_nonfinite(&s, it))) break;
    if (ga_converged(&s, it)) {
      *res /= s.ref;
      break;
    }
    if ((rc = ga_look_ahead(&s, it, want_K, &done, &have_dx))) break;
    if (done) {
      *res /= s.ref;
      break;
    }
    if ((rc = ga_watch_iterations(&s, it))) break;
    if (ga_modified_stalls(&s, it)) continue;
    s.res_last = *res;
    s.rel_last = *res / s.ref;
    if ((rc = ga_factor_tangent(&s, want_K)) || (rc = ga_correct(&s, have_dx)) || (rc = ga_watch_increment(&s, it)))
      break;
  }
  if (rc) {
    restore(pb, w);
    crd_ties_restore(w->ties);
    return rc > 0 ? rc : CRD_TRACE(rc);
  }
  ga_end_rates(pb, dy, w);
  return 0;
}

/* Back to the state at the start of the step after ga_step accepted it
 * (a watchdog refused it): positions, normals, pairs and rates. */
static void restore_all(crd_problem *pb, crd_dyn *dy, const im_work *w)
{
  restore(pb, w);
  crd_ties_restore(w->ties);
  for (size_t i = 0; i < (size_t)pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      dy->v[3 * i + c] = w->V0[5 * i + c];
      dy->a[3 * i + c] = w->A0[5 * i + c];
      dy->w[3 * i + c] = w->W0[3 * i + c];
      dy->wa[3 * i + c] = w->WA0[3 * i + c];
    }
  if (pb->tr) crd_im_triads_rates(dy, pb, 0);
}

/* Total energy K + U - W after a converged step (the watchdog's and the
 * history's: kinetic + strain - external work); *dW the step's external
 * work, *scale the energy scale. */
static double step_energy(crd_run *r, crd_dyn *dy, const im_work *w, double h, double U, double *dW,
                          double *scale)
{
  crd_problem *pb = r->pb;
  crd_dyn_measure(dy, pb);
  *dW = crd_loads_work(r->loads, pb, r->t_prev, dy->t + h, 0, r->d_prev, r->p_prev) +
        crd_ties_step_work(w->ties);
  *scale = fmax(*scale, fmax(dy->kinetic + U, fabs(r->wext + *dW)));
  return dy->kinetic + U - (r->wext + *dW);
}

/* Monotone energy for rho_inf < 1 ("monotone_energy", docs/dynamics.md).
 * The total energy at the step ends of generalized-alpha is not a Lyapunov
 * function: a step may raise it by a little.  A step that raises it, e =
 * E_n+1 - E_n > 0, under steady loads (crd_loads_steady: their work is the
 * same whatever time of the step the scheme takes them at; under loads
 * that vary, E_n+1 - E_n also holds the difference between the work of
 * F(t_n+1-alpha_f) and the trapezoidal work, of first order in the step,
 * which is no energy error of the scheme) is solved again with the
 * dissipative stress xi C (eps_b - eps_a) of crd_q4_local_avg, which takes
 * energy out (xi |d eps|_C^2 >= 0) and has no resultant force or moment,
 * with xi found by a secant on e(xi) that brings e to or below zero:
 *   xi_1 = 1.25 kappa e_0   (kappa = xi / (e(0) - e(xi)) of the last such
 *                            step: the inverse of |d eps|_C^2; 1e-3 at first)
 *   xi_k+1 = xi_k + (xi_k - xi_k-1) (e_k + e_0 / 4) / (e_k-1 - e_k)
 * aiming a quarter of the rise below zero, each solve warm from the last.
 * A step it cannot bring down in CRD_MONO_TRIES solves is cut like one that
 * did not converge. */
#define CRD_MONO_TRIES 8
static int monotone(crd_run *r, crd_dyn *dy, im_work *w, const crd_stage *st, const ga_param *g, double h,
                    double E_prev, double e0, int *iters, double *res, double *U, double *E, double *dW,
                    double *scale)
{
  crd_problem *pb = r->pb;
  double xa = 0.0, ea = e0, xb = dy->cur.xi_kappa > 0 ? 1.25 * dy->cur.xi_kappa * e0 : 1e-3;
  for (int k = 0; k < CRD_MONO_TRIES; ++k) {
    int it = 0;
    w->xi = xb;
    int rc = ga_step(r, dy, w, st, g, dy->t, h, 1, &it, res, U);
    *iters += it;
    dy->mono_iters += it;
    if (rc) { /* the rates in dy are those of the first solve */
      restore_all(pb, dy, w);
      return rc;
    }
    *E = step_energy(r, dy, w, h, *U, dW, scale);
    double eb = *E - E_prev;
    if (eb <= 0.0) {
      dy->cur.xi_kappa = xb / (e0 - eb);
      dy->mono_steps++;
      if (xb > dy->xi_max) dy->xi_max = xb;
      return 0;
    }
    double xn = ea > eb ? xb + (xb - xa) * (eb + 0.25 * e0) / (ea - eb) : 4.0 * xb;
    xa = xb;
    ea = eb;
    xb = fmin(fmax(xn, 1.5 * xb), 64.0 * xb);
  }
  restore_all(pb, dy, w);
  return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                     "the energy rose by %.3g (%.3g of the energy scale) and %d solves with the dissipation "
                     "up to xi = %.3g did not bring it down", e0, e0 / *scale, CRD_MONO_TRIES, xa);
}

/* What the step loop of a stage carries from step to step. */
typedef struct im_stage {
  crd_run *r;
  crd_dyn *dy;
  const crd_stage *st;
  int istage;
  ga_param g;
  im_work w;
  double dt_nom, dt, dt_min; /* the nominal step, the current one, the floor of the cuts */
  double E_prev;             /* the total energy after the last accepted step */
  int good;                  /* steps accepted since the step was last cut or grown */
  int every, k0;             /* progress every so many steps, counted from step k0 */
  int mono;                  /* monotone energy is enforced */
  int adaptive;              /* dt "auto": the step from the error estimate (step_error) */
  double dt_next;            /* adaptive: the next step the estimate of the accepted one asks for */
  double len;                /* adaptive: the mean element size, the length that weighs the normals */
  double t_note0, t_note;    /* adaptive: progress about every twentieth of the stage's time, from t_note0 */
  int stop;                  /* an auto stage ends this stretch (hybrid.h) */
} im_stage;

/* The norm of the rates at the end of the step just solved
 * (crd_dyn_rate_norm). */
static double rate_norm(const im_stage *s)
{
  return crd_dyn_rate_norm(s->dy, s->r->pb, s->len);
}

/* The local error estimate of a converged step of length h (docs/dynamics.md,
 * "Adaptive implicit steps").  The Newmark displacement update misses the
 * third-order term of the Taylor series by h^3 (beta - 1/6) a'
 * (Zienkiewicz and Xie, Earthquake Engng Struct. Dyn. 20 (1991) 871-887,
 * who take a' h ~ a_1 - a_0).  Here a' is the centred difference over two
 * steps, (a_1 - a_-1) / (h + h_prev), a_-1 the acceleration at the start of
 * the last accepted step: with rho_inf = 1 the modes a step does not
 * resolve keep their energy, and their accelerations flip sign from step
 * to step; a_1 - a_0 sees them at any h, a_1 - a_-1 does not.  (The first
 * step of a stage has no a_-1 and takes a_1 - a_0.)  Translations and the
 * normals (as 3-vectors, weighed by the element length L) are measured
 * against the motion of the step at the largest rate of the stage so far:
 *   eta = |h^3 (beta - 1/6) a'| / (h v_max),
 * for a vibration of frequency omega h^2 omega^2 |beta - 1/6|: a number of
 * steps per period.  *v_end: the rate norm at the step's end. */
static double step_error(const im_stage *s, double h, double *v_end)
{
  const crd_problem *pb = s->r->pb;
  const im_work *w = &s->w;
  const crd_dyn *dy = s->dy;
  const int centred = dy->cur.h_prev > 0.0;
  const double L2 = s->len * s->len;
  const double c = fabs(s->g.beta - 1.0 / 6.0) * h * h * h / (centred ? h + dy->cur.h_prev : h);
  double e2 = 0.0;
  for (size_t i = 0; i < (size_t)pb->nn; ++i)
    for (int k = 0; k < 3; ++k) {
      double a = centred ? dy->a_prev[3 * i + k] : w->A0[5 * i + k];
      double wa = centred ? dy->wa_prev[3 * i + k] : w->WA0[3 * i + k];
      double ed = c * (w->A1[5 * i + k] - a), ep = c * (w->WA1[3 * i + k] - wa);
      e2 += ed * ed + L2 * ep * ep;
    }
  *v_end = rate_norm(s);
  double scale = h * fmax(s->dy->cur.v_max, *v_end);
  if (e2 == 0.0) return 0.0;
  return sqrt(e2) / fmax(scale, 1e-300);
}

/* Adaptive steps: a converged step whose estimate exceeds twice the
 * tolerance is refused (the state back at the step's start) and tried
 * again shorter, counted with the cuts (1); otherwise (0) the next step is
 * h 0.9 sqrt(tol / eta), within a factor 2 of h and the stage's bounds
 * (eta grows as h^2: a local error of order h^3 against a motion of order
 * h).  A step from rest (no rate yet in the stage) is taken as it is: its
 * estimate does not depend on h there (a_0 = 0 and the motion is that of
 * a_1 alone), but it sets the next step. */
static int adapt_step(im_stage *s, double h)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  const crd_stage *st = s->st;
  double v_end, eta = step_error(s, h, &v_end), tol = st->error_tolerance;
  double fac = eta > 0.0 ? 0.9 * sqrt(tol / eta) : 2.0;
  if (eta > 2.0 * tol && h > st->dt_min * (1.0 + 1e-9) && dy->cur.v_max > 0.0) {
    restore_all(r->pb, dy, &s->w);
    s->dt = fmax(st->dt_min, h * fmax(0.25, fac));
    dy->cuts++;
    r->cuts++;
    crd_run_progress(r, "stage %d: step %d, t = %.6g: error estimate %.3g over twice the tolerance %.3g: "
                     "dt %.4g -> %.4g", s->istage, dy->step + 1, dy->t, eta, tol, h, s->dt);
    return 1;
  }
  s->dt_next = fmin(st->dt_max, fmax(st->dt_min, h * fmin(2.0, fmax(0.5, fac))));
  dy->cur.v_max = fmax(dy->cur.v_max, v_end);
  for (size_t i = 0; i < (size_t)r->pb->nn; ++i) /* the step's start: a_-1 of the next estimate */
    for (int k = 0; k < 3; ++k) {
      dy->a_prev[3 * i + k] = s->w.A0[5 * i + k];
      dy->wa_prev[3 * i + k] = s->w.WA0[3 * i + k];
    }
  dy->cur.h_prev = h;
  return 0;
}

/* What one step tried gives: Newton iterations, relative residual, strain
 * energy, total energy, energy scale and external work of the step. */
typedef struct im_step {
  int iters;
  double res, U, E, scale, dW;
} im_step;

/* A note (not with --quiet) that the stage is shorter than its dt. */
static void note_long_dt(const im_stage *s)
{
  const crd_stage *st = s->st;
  double t = s->dy->t;
  if (s->dt_nom > st->t_end - t && !s->r->opts->quiet) {
    crd_run_progress_break();
    printf("note: stage %d: dt %.6g exceeds the stage's length %.6g: one step of %.6g\n", s->istage, s->dt_nom,
           st->t_end - t, st->t_end - t);
  }
}

/* A stage's start: the round-off of the positions (the floor of the
 * increment criterion), consistent initial accelerations, the total energy
 * and the energy scale at the start. */
static int stage_begin(im_stage *s)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  crd_problem *pb = r->pb;
  note_long_dt(s);
  double xn = 0.0;
  for (int i = 0; i < 3 * pb->nn; ++i) xn += pb->m->x[i] * pb->m->x[i] + pb->d[i] * pb->d[i];
  s->w.x_roundoff = 64.0 * 2.2e-16 * sqrt(xn);
  int rc = initial_accel(r, dy, &s->w, dy->t);
  if (rc) return rc;
  crd_dyn_measure(dy, pb);
  s->E_prev = dy->kinetic + dy->strain - r->wext;
  dy->cur.E_scale = fmax(dy->kinetic + dy->strain, fabs(r->wext));
  dy->cur.v_max = s->adaptive ? fmax(rate_norm(s), dy->hybrid ? crd_hybrid_v_max(dy->hybrid) : 0.0) : 0.0;
  dy->cur.h_prev = 0.0;
  return 0;
}

/* A restart: the stage's start was done before the checkpoint, whose
 * state of the step loop is taken up. */
static void stage_resume(im_stage *s)
{
  const crd_dyn *dy = s->dy;
  s->w.x_roundoff = dy->cur.x_roundoff;
  s->dt = dy->cur.dt;
  s->good = dy->cur.good;
  s->E_prev = dy->cur.E_prev;
}

/* Whether the stage enforces monotone energy: prescribed motion does work
 * the energy balance does not count; the rises of rigid bodies
 * (generalized-alpha on their triads) are not the shell's strains' to take
 * out. */
static int stage_monotone(const crd_stage *st, const crd_problem *pb, const crd_ties *ties)
{
  return st->monotone_energy && st->rho_inf < 1.0 && pb->npres == 0 && crd_ties_nbodies(ties) == 0;
}

/* The next step's length: dt, or the rest of the stage when that is
 * shorter or dt would leave less than 1e-6 dt_nom of it. */
static double step_length(const crd_stage *st, double t, double dt, double dt_nom)
{
  double h = fmin(dt, st->t_end - t);
  if (st->t_end - (t + h) < 1e-6 * dt_nom) h = st->t_end - t;
  return h;
}

/* An adaptive step ends on the next time point of an amplitude table that
 * it would pass (a kink of a load, or a whole pulse shorter than the step,
 * is never stepped over: the error estimate sees a load only at the steps'
 * ends), or on the stage's end.  A step that would leave less than half of
 * itself before that end takes half of what is left, so that no step is
 * shorter than half of the one before it.  Why: generalized-alpha's
 * acceleration a_n at a step's start is not the balance acceleration of
 * the state u_n but lags it by a defect of the order of the last step's
 * length; a step of length h after it changes the total energy by
 *   (1 - gamma / (1 - alpha_m)) h v.M (a_n - a_eq(u_n)) + O(h^2)
 * (zero at rho_inf = 1; 1/12 of it at 0.8), linear in h with a coefficient
 * that the step before set, while the dissipative stress of monotone
 * energy takes out xi |d eps|_C^2, of order xi h^2.  A sliver after a long
 * step can thus raise the energy by more than any xi removes, and cutting
 * it makes that worse (docs/dynamics.md, "Adaptive implicit steps").
 * s->sliver (the test hook CRDYN_TEST_SLIVER_STEP): the rest as a last
 * step however short, as before. */
static double adaptive_length(const im_stage *s)
{
  const crd_stage *st = s->st;
  double t = s->dy->t, h = s->dt;
  double te = fmin(st->t_end, crd_loads_next_break(s->r->m, t, 1e-9 * s->dt_nom)), rest = te - t;
  if (s->r->test_sliver_step) {
    h = step_length(st, t, h, s->dt_nom);
    return t + h > te ? te - t : h;
  }
  if (rest - h < 1e-6 * s->dt_nom) return rest;
  return rest - h < 0.5 * h ? 0.5 * rest : h;
}

/* Energy watchdog, before the step is accepted: with no external power
 * the total energy must not rise (rho_inf <= 1).  A rise is refused (the
 * state back at the step's start) with CRD_WARN_NEWTON_DIVERGED. */
static int watch_energy(im_stage *s, const im_step *o)
{
  crd_problem *pb = s->r->pb;
  double E = o->E, E_prev = s->E_prev, scale = o->scale;
  if (!(o->dW == 0.0 && pb->npres == 0 && E - E_prev > CRD_WATCH_ENERGY_RISE * scale)) return 0;
  restore_all(pb, s->dy, &s->w);
  return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                     "the total energy rose by %.3g (%.3g of the energy scale %.3g, limit %g) with no "
                     "external power", E - E_prev, (E - E_prev) / scale, scale, CRD_WATCH_ENERGY_RISE);
}

/* One solve of a step of length h: generalized-alpha, its energy, monotone
 * energy where the energy rose under steady loads (*mono_failed: monotone
 * energy could not bring the rise down), the energy watchdog.  0: the step
 * may be accepted (*o); CRD_WARN_*: not (the state is back at the step's
 * start); < 0: an error. */
static int solve_step(im_stage *s, double h, im_step *o, int *mono_failed)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  crd_problem *pb = r->pb;
  o->iters = 0;
  o->res = 0.0;
  o->U = 0.0;
  s->w.xi = 0.0;
  *mono_failed = 0;
  int rc = ga_step(r, dy, &s->w, s->st, &s->g, dy->t, h, 0, &o->iters, &o->res, &o->U);
  o->E = 0.0;
  o->scale = dy->cur.E_scale;
  o->dW = 0.0;
  if (rc == 0) {
    crd_dyn_test_energy(r, dy->step + 1, dy, pb);
    o->E = step_energy(r, dy, &s->w, h, o->U, &o->dW, &o->scale);
    if (s->mono && o->E > s->E_prev && crd_loads_steady(pb, dy->t, dy->t + (1.0 - s->g.af) * h, dy->t + h)) {
      rc = monotone(r, dy, &s->w, s->st, &s->g, h, s->E_prev, o->E - s->E_prev, &o->iters, &o->res, &o->U,
                    &o->E, &o->dW, &o->scale);
      *mono_failed = rc > 0;
    }
  }
  if (rc == 0) rc = watch_energy(s, o);
  return rc;
}

/* One step of length h tried (solve_step).  A rise that monotone energy
 * could not bring down is solved once more from balance accelerations at
 * the step's start (initial_accel, as at a stage's start): the start
 * acceleration of generalized-alpha lags the balance acceleration of the
 * state by a defect that the step before left (a much longer step, or a
 * load that changed its rate, e.g. a pulse's end), and the step's energy
 * changes by (1 - gamma / (1 - alpha_m)) h v.M (a_n - a_eq) + O(h^2):
 * linear in h, where the dissipative stress takes out energy as h^2, so
 * that neither more dissipation nor a shorter step removes it
 * (adaptive_length).  Positions, velocities and so the energy are those
 * of the step's start either way.  The test hook CRDYN_TEST_MONO_CUT=1
 * cuts the step instead, as before.  0, CRD_WARN_* (cut the step) or < 0
 * as solve_step. */
static int try_step(im_stage *s, double h, im_step *o)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  int mono_failed, rc = solve_step(s, h, o, &mono_failed);
  if (!(rc > 0 && mono_failed) || r->test_mono_cut) return rc;
  char why[1024];
  snprintf(why, sizeof why, "%s", crd_err_message());
  if ((rc = initial_accel(r, dy, &s->w, dy->t))) return CRD_TRACE(rc);
  crd_run_progress(r, "stage %d: step %d, t = %.6g: balance accelerations at the step's start, solved again (%s)",
                   s->istage, dy->step + 1, dy->t, why);
  return solve_step(s, h, o, &mono_failed);
}

/* A step of length h that failed (why: the error message): the next try
 * with half of it, or the stage fails below the floor (dt/1024; dt_min of
 * an adaptive stage). */
static int cut_step(im_stage *s, double h)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  char why[1024];
  snprintf(why, sizeof why, "%s", crd_err_message());
  dy->cuts++;
  r->cuts++;
  s->dt = 0.5 * h;
  if (s->dt < s->dt_min)
    return CRD_ERR(CRD_ERR_NUMERIC, "stage %d (implicit): step %d at t = %.9g failed even with dt = %.3g "
                   "(floor %s = %.3g): %s", s->istage, dy->step + 1, dy->t, h, s->adaptive ? "dt_min" : "dt/1024",
                   s->dt_min, why);
  crd_run_progress(r, "stage %d: step %d, t = %.6g: step cut to dt = %.4g (%s)", s->istage, dy->step + 1, dy->t,
                   s->dt, why);
  return 0;
}

/* The history line of an accepted step, the energy residual of an
 * energy-conserving stage (rho_inf = 1), and progress about every
 * twentieth of the stage. */
static int record_step(im_stage *s, const im_step *o, int last)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  int rc;
  if ((rc = crd_run_record(r, dy->step, dy->t, 1.0, o->iters, o->res, dy->kinetic, o->U, dy->L, dy->J, last)))
    return rc;
  if (s->st->rho_inf == 1.0) {
    double de = fabs(o->E - s->E_prev) / fmax(fabs(o->E), 1e-300);
    if (de > dy->max_energy_residual) dy->max_energy_residual = de;
  }
  s->E_prev = o->E;
  int due = s->adaptive ? dy->t >= s->t_note : (dy->implicit_steps - s->k0) % s->every == 0;
  if (s->adaptive && due) s->t_note = dy->t + (s->st->t_end - s->t_note0) / 20.0;
  if (due || last)
    crd_run_progress(r, "stage %d implicit: t = %.6g  step %d  Newton %d  E = %.10g", s->istage, dy->t, dy->step,
                     o->iters, o->E);
  return 0;
}

/* A step of length h accepted: the pairs switched, the bodies' step kept,
 * the clock and counters on, the history; the step grown back towards dt
 * after 4 good steps; the step loop's state for a checkpoint, and the
 * step's end (outputs, checkpoints: crd_dyn_step_end). */
static int accept_step(im_stage *s, double h, const im_step *o)
{
  crd_run *r = s->r;
  crd_dyn *dy = s->dy;
  int rc;
  crd_problem_switch_pairs(r->pb);
  if (r->pb->tr) crd_im_triads_accept(r->pb); /* the charts switched: the rates R', R'' know no chart */
  crd_ties_accept(s->w.ties);
  dy->t += h;
  dy->step++;
  dy->implicit_steps++;
  dy->newton_iters += o->iters;
  r->newton_iters += o->iters;
  r->steps++;
  dy->strain = o->U;
  dy->cur.E_scale = o->scale;
  int last = dy->t >= s->st->t_end - 1e-9 * s->dt_nom;
  s->stop = !last && dy->hybrid && crd_hybrid_implicit_step(dy->hybrid, r, dy, s->adaptive ? s->dt_next : s->dt, o->iters);
  if ((rc = record_step(s, o, last || s->stop))) return rc;
  if (s->adaptive)
    s->dt = s->dt_next;
  else if (s->dt < s->dt_nom && ++s->good >= 4) {
    s->dt = fmin(2.0 * s->dt, s->dt_nom);
    s->good = 0;
  }
  dy->cur.dt = s->dt;
  dy->cur.good = s->good;
  dy->cur.E_prev = s->E_prev;
  return crd_dyn_step_end(r, dy);
}

/* An implicit stage: its start (or a restart's), then steps to t_end, each
 * tried, then cut or accepted. */
int crd_implicit_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage)
{
  crd_problem *pb = r->pb;
  im_stage s;
  memset(&s, 0, sizeof s);
  s.r = r;
  s.dy = dy;
  s.st = st;
  s.istage = istage;
  s.g = ga_from_rho(st->rho_inf);
  CRD_CALL(work_alloc(&s.w, pb->nn, pb->ne, pb->neq));
  s.w.ties = dy->ties;
  s.w.ls = r->ls;
  int resume = dy->cur.resume && dy->cur.stage == istage, rc = 0;
  dy->cur.resume = 0;
  dy->cur.stage = istage;
  s.adaptive = st->dt_auto;
  s.dt_nom = st->dt; /* adaptive: dt_max */
  s.dt = !s.adaptive ? s.dt_nom : st->dt_start > 0 ? fmin(st->dt_max, fmax(st->dt_min, st->dt_start))
                                                  : fmax(st->dt_min, st->dt_max / 64.0);
  r->integrator = CRD_INT_IMPLICIT;
  s.dt_min = s.adaptive ? st->dt_min : s.dt_nom / 1024.0;
  s.len = crd_dyn_element_length(r->m);
  if (pb->tr && (rc = crd_im_triads_begin(dy, pb, resume))) goto out;
  if (resume)
    stage_resume(&s);
  else if ((rc = stage_begin(&s)))
    goto out;
  dy->cur.x_roundoff = s.w.x_roundoff;
  int nsteps = crd_stage_steps(st->t_end - dy->t, s.dt_nom);
  s.every = nsteps > 20 ? nsteps / 20 : 1;
  s.t_note0 = s.t_note = dy->t;
  s.k0 = dy->implicit_steps;
  s.mono = stage_monotone(st, pb, s.w.ties);
  double tl = crd_wtime(), to = r->time_output; /* step-loop time without the output */
  while (dy->t < st->t_end - 1e-9 * s.dt_nom && !s.stop) {
    im_step o;
    double h = s.adaptive ? adaptive_length(&s) : step_length(st, dy->t, s.dt, s.dt_nom);
    rc = try_step(&s, h, &o);
    if (rc > 0)
      rc = cut_step(&s, h);
    else if (rc == 0 && !(s.adaptive && adapt_step(&s, h)))
      rc = accept_step(&s, h, &o);
    if (rc) goto out;
  }
  r->time_implicit += crd_wtime() - tl - (r->time_output - to);
out:
  if (pb->tr) crd_im_triads_finish(dy, pb); /* the spin for a stage after this one */
  work_free(&s.w);
  return rc ? CRD_TRACE(rc) : 0;
}
