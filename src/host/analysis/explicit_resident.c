/* crdyn: the explicit step loop on a device (backend.h ex_* ops): the state
 * stays on the device; the host builds the load tables once per stage and
 * the amplitude factors of each call, and gets back the measures at the
 * steps it records (history rows, frames, progress, checkpoints, the stage
 * end) and the state only where a row with probes, a frame, a checkpoint
 * or the stage end needs it.  The per-step physics is explicit_node.h,
 * the same as the host loop's (explicit.c), summed in the same orders:
 * the history is the host loop's, bit for bit (tests/cli/opencl.sh).
 *
 * Checkpoints: by steps at their step; by seconds or after a signal at the
 * next recorded step (the host loop: the next step); the state comes to
 * the host first through r->ckpt_sync.
 *
 * Watchdogs: an element failure stops the stage at the step it happened
 * (the device skips the later steps of the call); the non-finite state and
 * the energy balance are checked at every recorded step (the host loop
 * checks every step; with history_every = 1 they are the same). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/explicit_resident.h"
#include "crdyn/loads.h"
#include "crdyn/timer.h"
#include "crdyn/switches.h"

typedef struct tables {
  int nfe, nw, cap_fe, cap_w;
  int *fe_eq, *fe_load, *w_idx, *w_load, *pres_idx;
  double *fe_a, *fe_b, *w_a, *w_b;
} tables;

static void tables_free(tables *t)
{
  free(t->fe_eq); free(t->fe_load); free(t->w_idx); free(t->w_load); free(t->pres_idx);
  free(t->fe_a); free(t->fe_b); free(t->w_a); free(t->w_b);
}

/* The entries of crd_loads_assemble and crd_loads_work for nodal forces
 * and gravity, in those loops' order (the device sums them in it). */
static int build_tables(const crd_run *r, tables *t)
{
  const crd_problem *pb = r->pb;
  const crd_model *m = pb->m;
  const double *mass = crd_loads_nodal_mass(r->loads);
  size_t nfe = 0, nw = 0;
  for (int k = 0; k < m->nloads; ++k) {
    const crd_load *ld = &m->loads[k];
    int nnod = ld->kind == CRD_LOAD_FORCE ? m->sets[ld->set].nn : ld->kind == CRD_LOAD_GRAVITY ? pb->nn : 0;
    nfe += 3 * (size_t)nnod;
    nw += 3 * (size_t)nnod;
  }
  if ((nfe && (CRD_CALLOC(nfe, &t->fe_eq) || CRD_CALLOC(nfe, &t->fe_load) || CRD_CALLOC(nfe, &t->fe_a) ||
               CRD_CALLOC(nfe, &t->fe_b))) ||
      (nw && (CRD_CALLOC(nw, &t->w_idx) || CRD_CALLOC(nw, &t->w_load) || CRD_CALLOC(nw, &t->w_a) ||
              CRD_CALLOC(nw, &t->w_b))) ||
      (pb->npres && CRD_CALLOC(pb->npres, &t->pres_idx)))
    return CRD_TRACE(CRD_ERR_MEM);
  int f = 0, w = 0;
  for (int k = 0; k < m->nloads; ++k) {
    const crd_load *ld = &m->loads[k];
    if (ld->kind != CRD_LOAD_FORCE && ld->kind != CRD_LOAD_GRAVITY) continue;
    int grav = ld->kind == CRD_LOAD_GRAVITY, nnod = grav ? pb->nn : m->sets[ld->set].nn;
    for (int j = 0; j < nnod; ++j) {
      int i = grav ? j : m->sets[ld->set].nodes[j];
      for (int c = 0; c < 3; ++c) {
        /* force: fac * vec_c (times 1, exact); gravity: fac * mass_i * vec_c */
        double a = grav ? mass[i] : ld->vec[c], b = grav ? ld->vec[c] : 1.0;
        int eq = pb->eq[5 * i + c];
        if (eq >= 0) {
          t->fe_eq[f] = eq; t->fe_load[f] = k; t->fe_a[f] = a; t->fe_b[f] = b;
          ++f;
        }
        t->w_idx[w] = 3 * i + c; t->w_load[w] = k; t->w_a[w] = a; t->w_b[w] = b;
        ++w;
      }
    }
  }
  t->nfe = f;
  t->nw = w;
  for (int k = 0; k < pb->npres; ++k) t->pres_idx[k] = 3 * pb->pres[k].node + pb->pres[k].comp;
  return 0;
}

int crd_explicit_resident_usable(const crd_run *r, char *why, size_t n)
{
  const crd_backend_ops *op = r->pb->be->ops;
  if (!op->ex) {
    snprintf(why, n, "the %s backend has no resident explicit loop", op->name);
    return -1;
  }
  const char *host = crd_switch("CRDYN_EXPLICIT_HOST"); /* measurements: the host loop on a device backend */
  if (host && !strcmp(host, "1")) {
    snprintf(why, n, "CRDYN_EXPLICIT_HOST=1");
    return 0;
  }
  if (r->pb->tr) { /* explicit_triads.c */
    snprintf(why, n, "the shell has intersection nodes (their triads step on the host)");
    return 0;
  }
  if (r->m->nbodies > 0) { /* ties (tie.h) advance bodies with their tied nodes on the host */
    snprintf(why, n, "the model has rigid bodies (their tied nodes step on the host)");
    return 0;
  }
  if (r->test_nan_step > 0) {
    snprintf(why, n, "the NaN test hook (CRDYN_TEST_NAN_STEP) is a host-loop hook");
    return 0;
  }
  for (int k = 0; k < r->m->nloads; ++k) {
    int kd = r->m->loads[k].kind;
    if (kd == CRD_LOAD_MOMENT || kd == CRD_LOAD_PRESSURE) {
      snprintf(why, n, "load %d is a %s, which the device tables do not carry (nodal forces and gravity only)", k,
               kd == CRD_LOAD_MOMENT ? "moment" : "follower pressure");
      return 0;
    }
  }
  return 1;
}

/* r->ckpt_sync: crd_dyn_checkpoint_write brings the device state to the
 * host first, whenever a checkpoint is written (by steps, seconds or a
 * signal), so a checkpoint never holds a stale state. */
typedef struct sync_ctx {
  crd_backend *be;
  crd_ex_state *st;
} sync_ctx;

static int ckpt_sync(void *ctx)
{
  sync_ctx *c = ctx;
  return c->be->ops->ex->sync(c->be, c->st);
}

/* The driver's state across the calls of a stage: the load tables, the
 * device setup (its st: the host arrays the state syncs to), the buffers
 * of the amplitude factors of a call (room for cap steps), and the time of
 * the last step whose factors were computed. */
typedef struct resident {
  const crd_ex_loop *lp;
  crd_backend *be;
  tables tb;
  crd_ex_setup su;
  double *fac, *facw, *pres;
  int cap;
  double t_prev;
} resident;

/* The device's setup: the start state, the lumped inertia, the step and
 * the load tables (rs->tb). */
static void fill_setup(resident *rs)
{
  const crd_ex_loop *lp = rs->lp;
  const crd_run *r = lp->r;
  crd_problem *pb = r->pb;
  crd_dyn *dy = lp->dy;
  const tables *tb = &rs->tb;
  crd_ex_setup *su = &rs->su;
  memset(su, 0, sizeof *su);
  su->st.d = pb->d; su->st.p = pb->p; su->st.l = pb->l;
  su->st.v = dy->v; su->st.w = dy->w; su->st.a = dy->a; su->st.wa = dy->wa;
  su->mlump = dy->mlump; su->plump = dy->plump; su->rot_scale = lp->s; su->dt = lp->dt; su->wext = r->wext;
  su->locked = pb->locked; su->nload = pb->m->nloads;
  su->nfe = tb->nfe; su->fe_eq = tb->fe_eq; su->fe_load = tb->fe_load; su->fe_a = tb->fe_a; su->fe_b = tb->fe_b;
  su->nw = tb->nw; su->w_idx = tb->w_idx; su->w_load = tb->w_load; su->w_a = tb->w_a; su->w_b = tb->w_b;
  su->npres = pb->npres; su->pres_idx = tb->pres_idx;
}

/* How many steps after step n reach the next recorded step: a history
 * row, a frame, a progress line, a checkpoint (possible) or the stage
 * end (the steps of one device call). */
static int steps_to_record(const crd_ex_loop *lp, int n)
{
  const crd_run *r = lp->r;
  const crd_output *o = &r->m->output;
  int k = 0, S0 = lp->dy->step, nsteps = lp->nsteps;
  double t0 = lp->t0, dt = lp->dt;
  for (int q = n + 1; q <= nsteps; ++q) {
    int S = S0 + (q - n);
    double tq0 = t0 + (q - 1) * dt, tq = q == nsteps ? lp->st->t_end : t0 + q * dt; /* as the steps' times below */
    ++k;
    if (q == nsteps || crd_output_row_due(o, S, tq0, tq) || crd_output_frame_due(o, S, tq0, tq) ||
        q % lp->every == 0 || (o->checkpoint_every_steps > 0 && S % o->checkpoint_every_steps == 0) ||
        r->test_sigint_step == S || r->test_sigkill_step == S)
      break;
  }
  return k;
}

/* Room in the factor buffers for k steps (grown, never shrunk). */
static int reserve_factors(resident *rs, int k)
{
  if (k <= rs->cap) return 0;
  int nl = rs->lp->r->m->nloads, npres = rs->lp->r->pb->npres;
  free(rs->fac); free(rs->facw); free(rs->pres);
  rs->fac = rs->facw = rs->pres = NULL;
  if (CRD_CALLOC((size_t)k * (nl > 0 ? nl : 1), &rs->fac) || CRD_CALLOC((size_t)k * (nl > 0 ? nl : 1), &rs->facw) ||
      CRD_CALLOC((size_t)k * (npres > 0 ? npres : 1), &rs->pres))
    return CRD_TRACE(CRD_ERR_MEM);
  rs->cap = k;
  return 0;
}

/* The amplitude factors of the loads (at the step's end, and the mean over
 * the step for the work) and the prescribed values of steps n+1 .. n+k, the
 * host's factors at the host's times; returns the time of step n+k. */
static double fill_factors(resident *rs, int n, int k)
{
  const crd_ex_loop *lp = rs->lp;
  crd_problem *pb = lp->r->pb;
  const crd_model *m = pb->m;
  int nl = m->nloads;
  double t1 = rs->t_prev;
  for (int j = 0; j < k; ++j) {
    int q = n + 1 + j;
    t1 = (q == lp->nsteps) ? lp->st->t_end : lp->t0 + q * lp->dt;
    for (int ld = 0; ld < nl; ++ld) {
      rs->fac[(size_t)j * nl + ld] = crd_loads_factor(pb, ld, t1, 0);
      rs->facw[(size_t)j * nl + ld] = 0.5 * (crd_loads_factor(pb, ld, rs->t_prev, 0) + crd_loads_factor(pb, ld, t1, 0));
    }
    for (int pk = 0; pk < pb->npres; ++pk) {
      const crd_support *sp = &m->supports[pb->pres[pk].support];
      rs->pres[(size_t)j * pb->npres + pk] = sp->value * crd_amplitude_eval(&sp->amp, t1, 1.0);
    }
    rs->t_prev = t1;
  }
  return t1;
}

/* Steps n+1 .. n+k on the device and their measures; an element failure
 * stops the stage at the step it happened, named as the host loop does. */
static int device_steps(resident *rs, int n, int k, crd_ex_measure *ms)
{
  const crd_ex_loop *lp = rs->lp;
  crd_backend *be = rs->be;
  crd_ex_steps_in in = {k, rs->fac, rs->facw, rs->pres};
  CRD_CALL(be->ops->ex->steps(be, &in));
  CRD_CALL(be->ops->ex->measure(be, ms));
  if (ms->bad_step < 0) return 0;
  int bad_n = n + 1 + ms->bad_step;
  double tb1 = (bad_n == lp->nsteps) ? lp->st->t_end : lp->t0 + bad_n * lp->dt;
  crd_backend_elem_error(lp->r->pb, ms->bad_elem, ms->bad_kind);
  return CRD_WRAP(CRD_ERR_NUMERIC, NULL, "stage %d (explicit): step %d at t = %.9g failed: ", lp->istage,
                  lp->dy->step + ms->bad_step + 1, tb1);
}

/* The measures of a call's last step (t1, k steps on) taken into dy, then
 * the watchdogs there: a non-finite state or rate, the energy balance
 * (explicit.c's, over the k steps; not with prescribed motions). */
static int take_measures(const crd_ex_loop *lp, const crd_ex_measure *ms, int k, double t1)
{
  crd_dyn *dy = lp->dy;
  dy->strain = ms->strain;
  dy->kinetic = ms->kinetic;
  memcpy(dy->L, ms->L, sizeof ms->L);
  memcpy(dy->J, ms->J, sizeof ms->J);
  if (ms->bad_node >= 0)
    return CRD_ERR(CRD_ERR_NUMERIC, "stage %d (explicit): step %d at t = %.9g failed: the state or rates of node "
                   "%d are not finite", lp->istage, dy->step + k, t1, ms->bad_node);
  double E = dy->kinetic + dy->strain - ms->wext;
  double scale = fmax(dy->cur.E_scale, fmax(dy->kinetic + dy->strain, fabs(ms->wext)));
  if (scale > 0) dy->cur.n_scaled += k;
  double nsc = dy->cur.n_scaled, lim = fmax(CRD_WATCH_EXPLICIT_BALANCE, nsc > 0 ? 4.0 / (nsc * nsc) : INFINITY);
  if (lp->r->pb->npres == 0 && fabs(E - dy->cur.E_start) > lim * scale)
    return CRD_ERR(CRD_ERR_NUMERIC, "stage %d (explicit): step %d at t = %.9g failed: energy balance error %.3g "
                   "(%.3g of the energy scale %.3g, limit %.3g): unstable step %.4g (stable estimate %.4g)?",
                   lp->istage, dy->step + k, t1, E - dy->cur.E_start, fabs(E - dy->cur.E_start) / scale, scale, lim,
                   lp->dt, dy->dt_auto);
  dy->cur.E_scale = scale;
  return 0;
}

/* The call's last step (n, at t1, k steps on) done: the counters, its
 * history row (the state brought to the host first where the row has
 * probes, a frame is due or the stage ends), a progress line, and a
 * checkpoint or a signal (crd_dyn_step_end). */
static int record_call(resident *rs, const crd_ex_measure *ms, int n, int k, double t1)
{
  const crd_ex_loop *lp = rs->lp;
  crd_run *r = lp->r;
  crd_dyn *dy = lp->dy;
  const crd_output *o = &r->m->output;
  r->wext = ms->wext;
  dy->t = t1;
  dy->step += k;
  dy->explicit_steps += k;
  r->steps += k;
  double tl0 = lp->t0 + (n - 1) * lp->dt; /* the time of the step before the last */
  int row = n == lp->nsteps || crd_output_row_due(o, dy->step, tl0, dy->t);
  int on_host = n == lp->nsteps || (row && o->nprobes > 0) || crd_output_frame_due(o, dy->step, tl0, dy->t);
  if (on_host) CRD_CALL(rs->be->ops->ex->sync(rs->be, &rs->su.st));
  CRD_CALL(crd_run_record_resident(r, dy->step, dy->t, dy->kinetic, dy->strain, dy->L, dy->J, n == lp->nsteps,
                                   on_host));
  if (n % lp->every == 0 || n == lp->nsteps)
    crd_run_progress(r, "stage %d explicit: t = %.6g  step %d  E = %.10g", lp->istage, dy->t, dy->step,
                     dy->kinetic + dy->strain - r->wext);
  dy->cur.n = n;
  CRD_CALL(crd_dyn_step_end(r, dy));
  return 0;
}

/* The loop, call by call: each advances to the next recorded step on the
 * device and records it on the host. */
static int call_loop(resident *rs)
{
  const crd_ex_loop *lp = rs->lp;
  int n = lp->n0;
  while (n < lp->nsteps) {
    int k = steps_to_record(lp, n);
    CRD_CALL(reserve_factors(rs, k));
    double t1 = fill_factors(rs, n, k);
    crd_ex_measure ms;
    CRD_CALL(device_steps(rs, n, k, &ms));
    n += k;
    CRD_CALL(take_measures(lp, &ms, k, t1));
    CRD_CALL(record_call(rs, &ms, n, k, t1));
  }
  return 0;
}

int crd_explicit_resident(const crd_ex_loop *lp)
{
  crd_run *r = lp->r;
  resident rs;
  memset(&rs, 0, sizeof rs);
  rs.lp = lp;
  rs.be = r->pb->be;
  int rc = 0, begun = 0;
  if ((rc = build_tables(r, &rs.tb))) goto out;
  fill_setup(&rs);
  if ((rc = rs.be->ops->ex->begin(rs.be, r->pb, &rs.su))) goto out;
  begun = 1;
  sync_ctx sc = {rs.be, &rs.su.st};
  r->ckpt_sync = ckpt_sync;
  r->ckpt_sync_ctx = &sc;
  double tl = crd_wtime(), to = r->time_output;
  rs.t_prev = r->t_prev;
  if ((rc = call_loop(&rs))) goto out;
  r->time_explicit += crd_wtime() - tl - (r->time_output - to);
out:
  r->ckpt_sync = NULL;
  r->ckpt_sync_ctx = NULL;
  if (begun) rs.be->ops->ex->end(rs.be);
  tables_free(&rs.tb);
  free(rs.fac); free(rs.facw); free(rs.pres);
  return rc ? CRD_TRACE(rc) : 0;
}
