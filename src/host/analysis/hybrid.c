/* crdyn: the stage that chooses its integrator (hybrid.h; docs/dynamics.md,
 * "Automatic switching"): stretches of explicit or implicit steps, the
 * cost model that ends them, and its state in a checkpoint. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/hybrid.h"
#include "crdyn/linsys.h"
#include "crdyn/parallel.h"
#include "crdyn/solver.h"
#include "crdyn/timer.h"

/* Steps an implicit stretch takes before it may end: its controller starts
 * from the predicted step and needs a few steps to settle on its own. */
#define HY_IMPLICIT_DWELL 10
/* The predicted step is trusted up to this factor of the window it was
 * measured over (a longer step would see slower windows, not measured). */
#define HY_WINDOW_REACH 4.0
/* An implicit stretch that settles on a shorter step than predicted
 * scales the later predictions down by the ratio (kappa); the scale
 * recovers by this factor per window, as the motion that misled the
 * prediction (a kink of a load, a transient) passes.  Each implicit
 * stretch in a row that ends as soon as it may (within twice the dwell)
 * halves the exponent of the recovery: a prediction that stays off is
 * tried again after ever longer explicit stretches, so that the switches
 * back and forth cost a bounded share of the run. */
#define HY_KAPPA_RECOVERY 1.25
/* Weights of the newest measurement in the running means of the costs. */
#define HY_EMA_EXPLICIT 0.05
#define HY_EMA_IMPLICIT 0.3

struct crd_hybrid {
  const crd_stage *st;
  int istage, fixed;       /* fixed: costs from newton_cost (in explicit steps) */
  double beta6, len;       /* |beta - 1/6| of the implicit scheme; the normals' length weight */
  int kind, pending;       /* the stretch's integrator; the next one (-1: none decided) */
  int steps;               /* steps of the stretch in progress */
  /* the cost model */
  double c_ex, c_step, n_it; /* per explicit step; per implicit step; Newton iterations per implicit step */
  double dt_ex;            /* the explicit step (safety times the stable estimate) */
  double h_im;             /* the implicit step: the controller's, or predicted on explicit stretches */
  double h_entry, kappa;   /* the prediction an implicit stretch started from; measured/predicted steps */
  double h_best;           /* the longest step the controller proposed in the stretch */
  int fails;               /* implicit stretches in a row that ended within twice the dwell */
  double v_max;
  double wall, out;        /* wall clock and output time at the last step (measured costs) */
  /* the prediction on explicit stretches: means of (a, len p'') over windows */
  size_t n6;
  double *sum, *mean_prev;
  int win_n, win_len, have_prev;
  double win_t, prev_t;    /* the window being summed and the last one: their lengths in time */
};

static int hybrid_create(crd_run *r, const crd_stage *st, int istage, crd_hybrid **out)
{
  crd_hybrid *hy;
  CRD_CALL(CRD_CALLOC(1, &hy));
  hy->n6 = 6 * (size_t)r->pb->nn;
  if (CRD_CALLOC(hy->n6, &hy->sum) || CRD_CALLOC(hy->n6, &hy->mean_prev)) {
    free(hy->sum);
    free(hy);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  hy->st = st;
  hy->istage = istage;
  hy->fixed = st->newton_cost > 0.0;
  hy->beta6 = fabs(crd_ga_beta(st->rho_inf) - 1.0 / 6.0);
  hy->len = crd_dyn_element_length(r->m);
  hy->kind = CRD_INT_EXPLICIT;
  hy->pending = -1;
  hy->c_ex = 1.0;
  hy->c_step = 3.0 * st->newton_cost;
  hy->n_it = 3.0;
  hy->kappa = 1.0;
  *out = hy;
  return 0;
}

static void hybrid_destroy(crd_hybrid **hp)
{
  if (!*hp) return;
  free((*hp)->sum);
  free((*hp)->mean_prev);
  free(*hp);
  *hp = NULL;
}

double crd_hybrid_v_max(const crd_hybrid *hy)
{
  return hy->v_max;
}

/* Simulated time per unit of cost of each integrator. */
static double rate_explicit(const crd_hybrid *hy)
{
  return hy->dt_ex / hy->c_ex;
}

static double rate_implicit(const crd_hybrid *hy, double h)
{
  return h / hy->c_step;
}

/* The cost of the step just done (measured mode): wall time since the last
 * step less the output's; the first step of a stretch also paid for the
 * stretch's start and is not counted.  Fixed mode: 1 per explicit step,
 * iters * newton_cost per implicit step. */
static double step_cost(crd_hybrid *hy, const crd_run *r, int *counted)
{
  double now = crd_wtime(), c = (now - hy->wall) - (r->time_output - hy->out);
  hy->wall = now;
  hy->out = r->time_output;
  *counted = hy->steps > 1 && c > 0.0;
  return c;
}

/* The third derivative of the motion between the last two windows, as the
 * implicit error estimate measures it (implicit.c, step_error), and the
 * step h for which that estimate equals the tolerance:
 *   eta(H) = |beta - 1/6| H^2 |a'| / v_max,  h = H sqrt(tol / eta(H))
 * with |a'| the difference of the window means over the distance of their
 * centres (exact for a linear a(t); a mode of period well below the window
 * averages out, as it flips sign from step to step of an implicit step of
 * that length).  Returns 0 where nothing moves yet. */
static double predicted_step(const crd_hybrid *hy, const double *mean)
{
  double d2 = 0.0, H = 0.5 * (hy->win_t + hy->prev_t);
  for (size_t k = 0; k < hy->n6; ++k) d2 += (mean[k] - hy->mean_prev[k]) * (mean[k] - hy->mean_prev[k]);
  if (!(hy->v_max > 0.0) || !(H > 0.0)) return 0.0;
  double jerk = sqrt(d2) / H, eta = hy->beta6 * H * H * jerk / hy->v_max;
  double reach = HY_WINDOW_REACH * hy->win_t;
  return eta > 0.0 ? fmin(reach, H * sqrt(hy->st->error_tolerance / eta)) : reach;
}

/* The accelerations of the step into the window; at a window's end the
 * predicted implicit step, then the next window's length (about that
 * step, at least two explicit steps).  Returns the prediction (0: none). */
static double window_step(crd_hybrid *hy, const crd_run *r, const crd_dyn *dy, double dt)
{
  const crd_problem *pb = r->pb;
  for (size_t i = 0; i < (size_t)pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      hy->sum[6 * i + c] += dy->a[3 * i + c];
      hy->sum[6 * i + 3 + c] += hy->len * dy->wa[3 * i + c];
    }
  hy->win_t += dt;
  if (++hy->win_n < hy->win_len) return 0.0;
  for (size_t k = 0; k < hy->n6; ++k) hy->sum[k] /= hy->win_n;
  double h = hy->have_prev ? hy->kappa * predicted_step(hy, hy->sum) : 0.0;
  hy->kappa = fmin(1.0, pow(HY_KAPPA_RECOVERY, ldexp(1.0, -hy->fails)) * hy->kappa);
  double *t = hy->mean_prev;
  hy->mean_prev = hy->sum, hy->sum = t;
  memset(hy->sum, 0, hy->n6 * sizeof(double));
  hy->prev_t = hy->win_t;
  hy->have_prev = 1;
  double H = h > 0.0 ? h : HY_WINDOW_REACH * hy->win_t;
  hy->win_len = (int)fmin(1e6, fmax(2.0, round(H / dt)));
  hy->win_n = 0;
  hy->win_t = 0.0;
  return h;
}

/* A note in the log (not with --quiet) of a switch and its reason, at the
 * end of step `step` (time t). */
static void note_switch(const crd_hybrid *hy, const crd_run *r, double t, int step, double h)
{
  if (r->opts->quiet) return;
  crd_run_progress_break();
  double re = rate_explicit(hy), ri = rate_implicit(hy, h);
  printf("stage %d auto: t = %.6g, step %d: %s -> %s: implicit step %.4g (%s), %.2f Newton iterations per step, "
         "%.4g %s per implicit step against %.4g per explicit step of %.4g: implicit %.3gx the explicit rate "
         "(margin %g)\n", hy->istage, t, step, hy->kind == CRD_INT_EXPLICIT ? "explicit" : "implicit",
         hy->kind == CRD_INT_EXPLICIT ? "implicit" : "explicit", h,
         hy->kind == CRD_INT_EXPLICIT ? "predicted" : "the controller's", hy->n_it, hy->c_step,
         hy->fixed ? "cost units" : "s", hy->c_ex, hy->dt_ex, ri / re, hy->st->switch_margin);
}

int crd_hybrid_explicit_step(crd_hybrid *hy, const crd_run *r, const crd_dyn *dy, double dt)
{
  int counted;
  hy->steps++;
  double c = step_cost(hy, r, &counted);
  if (!hy->fixed && counted) hy->c_ex = hy->steps == 2 ? c : (1 - HY_EMA_EXPLICIT) * hy->c_ex + HY_EMA_EXPLICIT * c;
  hy->dt_ex = dt;
  hy->v_max = fmax(hy->v_max, crd_dyn_rate_norm(dy, r->pb, hy->len));
  double h = window_step(hy, r, dy, dt);
  int want = h > 0.0 && rate_implicit(hy, h) > (1.0 + hy->st->switch_margin) * rate_explicit(hy);
  crd_par_max_int(&want, 1); /* over MPI ranks, whose measured costs differ: one choice for all */
  if (!want) return 0;
  hy->h_im = h;
  note_switch(hy, r, dy->t + dt, dy->step + 1, h); /* the explicit loop records the step after this */
  hy->pending = CRD_INT_IMPLICIT;
  return 1;
}

int crd_hybrid_implicit_step(crd_hybrid *hy, const crd_run *r, const crd_dyn *dy, double h_next, int iters)
{
  int counted;
  hy->steps++;
  double c = step_cost(hy, r, &counted);
  if (hy->fixed) c = iters * hy->st->newton_cost, counted = 1;
  if (counted) hy->c_step = (1 - HY_EMA_IMPLICIT) * hy->c_step + HY_EMA_IMPLICIT * c;
  hy->n_it = (1 - HY_EMA_IMPLICIT) * hy->n_it + HY_EMA_IMPLICIT * iters;
  hy->v_max = fmax(hy->v_max, crd_dyn_rate_norm(dy, r->pb, hy->len));
  hy->h_im = h_next;
  hy->h_best = fmax(hy->h_best, h_next);
  if (hy->steps < HY_IMPLICIT_DWELL) return 0;
  if (hy->steps == HY_IMPLICIT_DWELL && hy->h_entry > 0.0) /* how far the prediction was off */
    hy->kappa = fmin(1.0, hy->kappa * hy->h_best / hy->h_entry);
  int want = rate_explicit(hy) > (1.0 + hy->st->switch_margin) * rate_implicit(hy, hy->h_im);
  crd_par_max_int(&want, 1);
  if (!want) return 0;
  note_switch(hy, r, dy->t, dy->step, hy->h_im);
  hy->pending = CRD_INT_EXPLICIT;
  hy->fails = hy->steps <= 2 * HY_IMPLICIT_DWELL ? (hy->fails < 30 ? hy->fails + 1 : 30) : 0;
  return 1;
}

/* Measured mode, at the stage's start: the explicit step from the stable
 * estimate, the cost of an explicit step taken as that of one internal
 * force, the cost of a Newton iteration as that of one tangent assembly
 * and factorization of K + M / (beta h^2) at the current state (h: 16
 * explicit steps; symbolic analysis not counted, it is done once).  The
 * runs' own measurements replace both; a factorization that fails leaves
 * 30 explicit steps per iteration. */
static int calibrate(crd_hybrid *hy, crd_run *r, crd_dyn *dy)
{
  crd_problem *pb = r->pb;
  double *F, U, dt_stable;
  CRD_CALL(crd_explicit_stable_dt(dy, pb, 1.0, &dt_stable, NULL));
  hy->dt_ex = hy->st->safety * dt_stable;
  if (!isfinite(hy->dt_ex) || CRD_CALLOC(pb->neq, &F)) return 0;
  double h = 16.0 * hy->dt_ex, cm = 1.0 / (crd_ga_beta(hy->st->rho_inf) * h * h), t_f = 0.0, t_k = 0.0;
  int rc = 0;
  for (int pass = 0; pass < 2 && !rc; ++pass) { /* the second pass is timed: caches and buffers warm */
    double t0 = crd_wtime();
    rc = crd_problem_eval(pb, 0, F, &U);
    double t1 = crd_wtime();
    if (!rc) rc = crd_problem_eval(pb, 1, F, &U);
    if (!rc) crd_dyn_assemble_mass(dy, pb, pb->K, cm);
    if (!rc && !r->ls->analysed) rc = crd_linsys_analyse(r->ls, pb->K);
    double t2 = crd_wtime();
    if (!rc) rc = crd_solver_factorize(r->ls->solver, pb->K);
    t_f = t1 - t0, t_k = crd_wtime() - t2 + (t2 - t1);
  }
  free(F);
  crd_err_clear();
  hy->c_ex = fmax(t_f, 1e-9);
  hy->c_step = hy->n_it * (rc == 0 ? t_k : 30.0 * hy->c_ex);
  return 0;
}

/* The sub-stage a stretch runs: the auto stage's keys, its integrator,
 * an implicit stretch's first step at the predicted one. */
static crd_stage stretch_stage(const crd_hybrid *hy, const crd_stage *st)
{
  crd_stage sub = *st;
  sub.integrator = hy->kind;
  sub.mass_scaling = 1.0;
  sub.dt_start = hy->kind == CRD_INT_IMPLICIT ? 0.5 * hy->h_im : 0.0;
  return sub;
}

/* A stretch from its start: the step count, the clocks, a fresh window. */
static void stretch_begin(crd_hybrid *hy, crd_run *r)
{
  hy->steps = 0;
  hy->pending = -1;
  hy->wall = crd_wtime();
  hy->out = r->time_output;
  hy->h_entry = hy->kind == CRD_INT_IMPLICIT ? hy->h_im : 0.0;
  hy->h_best = 0.0;
  hy->win_n = 0;
  hy->win_t = hy->prev_t = 0.0;
  hy->have_prev = 0;
  hy->win_len = hy->h_im > 0.0 && hy->dt_ex > 0.0 ? (int)fmin(1e6, fmax(2.0, round(hy->h_im / hy->dt_ex))) : 8;
  memset(hy->sum, 0, hy->n6 * sizeof(double));
}

static int hybrid_restore(crd_hybrid *hy, const crd_ckpt *c);

int crd_auto_stage(crd_run *r, crd_dyn *dy, const crd_stage *st, int istage)
{
  crd_hybrid *hy = NULL;
  CRD_CALL(hybrid_create(r, st, istage, &hy));
  int rc = 0, resume = dy->cur.resume && dy->cur.stage == istage;
  if (resume && (rc = hybrid_restore(hy, r->restart))) goto out;
  if (resume && hy->pending >= 0) { /* the checkpoint fell on a switch: the next stretch starts afresh */
    hy->kind = hy->pending;
    dy->cur.resume = 0;
    resume = 0;
  }
  if (!resume && !hy->fixed && (rc = calibrate(hy, r, dy))) goto out;
  dy->hybrid = hy;
  while (!rc && dy->t < st->t_end - 1e-12 * (st->t_end + fabs(dy->t))) {
    crd_stage sub = stretch_stage(hy, st);
    if (!resume) stretch_begin(hy, r);
    resume = 0;
    rc = hy->kind == CRD_INT_IMPLICIT ? crd_implicit_stage(r, dy, &sub, istage)
                                       : crd_explicit_stage(r, dy, &sub, istage);
    if (rc || hy->pending < 0) break;
    hy->kind = hy->pending;
    dy->switches++;
  }
out:
  dy->hybrid = NULL;
  hybrid_destroy(&hy);
  return rc ? CRD_TRACE(rc) : 0;
}

void crd_hybrid_ckpt_text(crd_ckpt_writer *w, const crd_hybrid *hy)
{
  crd_ckpt_text_int(w, "hybrid.kind", hy->kind);
  crd_ckpt_text_int(w, "hybrid.pending", hy->pending);
  crd_ckpt_text_int(w, "hybrid.steps", hy->steps);
  crd_ckpt_text_int(w, "hybrid.win_n", hy->win_n);
  crd_ckpt_text_int(w, "hybrid.win_len", hy->win_len);
  crd_ckpt_text_int(w, "hybrid.have_prev", hy->have_prev);
  crd_ckpt_text_int(w, "hybrid.fails", hy->fails);
  crd_ckpt_text_dbl(w, "hybrid.c_ex", hy->c_ex);
  crd_ckpt_text_dbl(w, "hybrid.c_step", hy->c_step);
  crd_ckpt_text_dbl(w, "hybrid.n_it", hy->n_it);
  crd_ckpt_text_dbl(w, "hybrid.dt_ex", hy->dt_ex);
  crd_ckpt_text_dbl(w, "hybrid.h_im", hy->h_im);
  crd_ckpt_text_dbl(w, "hybrid.h_entry", hy->h_entry);
  crd_ckpt_text_dbl(w, "hybrid.kappa", hy->kappa);
  crd_ckpt_text_dbl(w, "hybrid.h_best", hy->h_best);
  crd_ckpt_text_dbl(w, "hybrid.v_max", hy->v_max);
  crd_ckpt_text_dbl(w, "hybrid.win_t", hy->win_t);
  crd_ckpt_text_dbl(w, "hybrid.prev_t", hy->prev_t);
}

int crd_hybrid_ckpt_add(crd_ckpt_writer *w, const crd_hybrid *hy)
{
  CRD_CALL(crd_ckpt_add(w, "hy.sum", hy->sum, hy->n6 * sizeof(double)));
  CRD_CALL(crd_ckpt_add(w, "hy.mean", hy->mean_prev, hy->n6 * sizeof(double)));
  return 0;
}

#define GET_I(key, dst) do { long long v_; CRD_CALL(crd_ckpt_get_int(c, "run", key, &v_)); (dst) = (int)v_; } while (0)
#define GET_D(key, dst) CRD_CALL(crd_ckpt_get_dbl(c, "run", key, &(dst)))

/* The state of an auto stage a checkpoint stopped in; the wall clock of
 * the measured costs starts again from the restart. */
static int hybrid_restore(crd_hybrid *hy, const crd_ckpt *c)
{
  GET_I("hybrid.kind", hy->kind);
  GET_I("hybrid.pending", hy->pending);
  CRD_CHECK(hy->kind == CRD_INT_EXPLICIT || hy->kind == CRD_INT_IMPLICIT, CRD_ERR_INPUT,
            "%s: hybrid.kind %d is neither explicit nor implicit", crd_ckpt_path(c), hy->kind);
  GET_I("hybrid.steps", hy->steps);
  GET_I("hybrid.win_n", hy->win_n);
  GET_I("hybrid.win_len", hy->win_len);
  GET_I("hybrid.have_prev", hy->have_prev);
  GET_I("hybrid.fails", hy->fails);
  GET_D("hybrid.c_ex", hy->c_ex);
  GET_D("hybrid.c_step", hy->c_step);
  GET_D("hybrid.n_it", hy->n_it);
  GET_D("hybrid.dt_ex", hy->dt_ex);
  GET_D("hybrid.h_im", hy->h_im);
  GET_D("hybrid.h_entry", hy->h_entry);
  GET_D("hybrid.kappa", hy->kappa);
  GET_D("hybrid.h_best", hy->h_best);
  GET_D("hybrid.v_max", hy->v_max);
  GET_D("hybrid.win_t", hy->win_t);
  GET_D("hybrid.prev_t", hy->prev_t);
  CRD_CALL(crd_ckpt_get(c, "hy.sum", hy->sum, hy->n6 * sizeof(double)));
  CRD_CALL(crd_ckpt_get(c, "hy.mean", hy->mean_prev, hy->n6 * sizeof(double)));
  hy->wall = crd_wtime();
  return 0;
}
