/* crdyn: checkpoints of a dynamic analysis (dynamics.h, checkpoint.h,
 * docs/checkpoint.md): what the integrators need to go on bitwise as if
 * never stopped, the SIGINT/SIGTERM flag, and the restore.
 *
 * Sections of a dynamics checkpoint (version 1):
 *   "run"      text: sizes, the stage cursor (dy->cur), counters, time,
 *              accumulated work and statistics, the history file's length
 *              and hash, the solver mode
 *   "node.d" "node.p" "node.v" "node.a" "node.w" "node.wa"  f64[3 nn]
 *   "node.a_prev" "node.wa_prev"  f64[3 nn]: a and p'' at the start of the
 *              last accepted step (the error estimate of implicit dt
 *              "auto"); a checkpoint without them restarts with a, p''
 *   "node.l"   i32[nn]: the dependent normal component of each node (the
 *              choice of the independent pair)
 *   "pvd"      text: the result.pvd entries written so far
 *   "ties.state" f64[43 nb]: the rigid bodies of a model with a mesh
 *              (tie.h: triad, rates, work, tie reaction), required when
 *              the case has bodies
 *   "triads.state" f64[40 nt]: the intersection nodes' triads (triads.h),
 *              required when the shell has them: per triad E (9), the
 *              chart (l, k, sy, sx), the explicit step's pi, om and moment
 *              m (3 each), the implicit step's R' and R'' (9 each);
 *   readers ignore sections they do not know. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/checkpoint.h"
#include "crdyn/dynamics.h"
#include "crdyn/hybrid.h"
#include "crdyn/error.h"
#include "crdyn/linsys.h"
#include "crdyn/parallel.h"
#include "crdyn/switches.h"
#include "crdyn/tie.h"
#include "crdyn/timer.h"
#include "crdyn/triads.h"

static volatile sig_atomic_t got_signal;
static struct sigaction old_int, old_term;

static void on_signal(int sig) { got_signal = sig; }

void crd_dyn_signals_install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  /* once: a second Ctrl-C while the step finishes kills the run at once */
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  got_signal = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
}

void crd_dyn_signals_restore(void)
{
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
}

int crd_dyn_interrupted(void) { return got_signal; }

/* "ties.state": the director triads of the rigid bodies, their rates,
 * work and tie reactions (tie.h), when the model has bodies. */
static int ties_add(crd_ckpt_writer *w, const crd_ties *t)
{
  size_t n = crd_ties_state_size(t);
  if (!n) return 0;
  double *st;
  CRD_CALL(CRD_CALLOC(n, &st));
  crd_ties_state_get(t, st);
  int rc = crd_ckpt_add(w, "ties.state", st, n * sizeof(double));
  free(st);
  return rc;
}

/* "triads.state": what the step loops carry at each intersection node
 * (triads.h, dynamics.h): the triad E and its chart (which chart the next
 * step's unknowns are in), the explicit step's spatial angular momentum
 * pi, angular velocity om and the moment m of the last force evaluation
 * (the next step's first kick uses it, explicit_triad.h), the implicit
 * step's R' and R'' (fold_dyn.h).  E_rec, the triads of the last recorded
 * step, is E at a checkpoint, as d_prev is d; J_b is rebuilt from the
 * masses; E_save and crd_triads_mid live within one step. */
#define TRIAD_CKPT 40

static void triads_pack(const crd_problem *pb, const crd_dyn *dy, double *st)
{
  const crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    double *o = st + TRIAD_CKPT * (size_t)k;
    memcpy(o, tr->E + 9 * k, 9 * sizeof(double));
    o[9] = tr->ch[k].l;
    o[10] = tr->ch[k].k;
    o[11] = tr->ch[k].sy;
    o[12] = tr->ch[k].sx;
    memcpy(o + 13, dy->tpi + 3 * k, 3 * sizeof(double));
    memcpy(o + 16, dy->tom + 3 * k, 3 * sizeof(double));
    memcpy(o + 19, dy->tm + 3 * k, 3 * sizeof(double));
    memcpy(o + 22, dy->tRd + 9 * k, 9 * sizeof(double));
    memcpy(o + 31, dy->tRdd + 9 * k, 9 * sizeof(double));
  }
}

static int triads_add(crd_ckpt_writer *w, const crd_problem *pb, const crd_dyn *dy)
{
  if (!pb->tr) return 0;
  size_t n = TRIAD_CKPT * (size_t)pb->tr->n;
  double *st;
  CRD_CALL(CRD_CALLOC(n, &st));
  triads_pack(pb, dy, st);
  int rc = crd_ckpt_add(w, "triads.state", st, n * sizeof(double));
  free(st);
  return rc;
}

/* Test hook CRDYN_TEST_TRIAD_CKPT=no_rates: the triads' rates (pi, om,
 * m, R', R'') not restored, only E and the chart: a restart that must
 * leave the uninterrupted history (tests/cli/fold_restart.sh). */
static int rates_left_out(void)
{
  const char *h = crd_switch("CRDYN_TEST_TRIAD_CKPT");
  return h && !strcmp(h, "no_rates");
}

/* Triad k from its record o; a chart that is not one (l, k in 0..2, signs
 * +-1) refuses the checkpoint. */
static int triad_unpack(crd_problem *pb, crd_dyn *dy, int k, const double *o, const crd_ckpt *c)
{
  crd_triads *tr = pb->tr;
  CRD_CHECK((o[9] == 0 || o[9] == 1 || o[9] == 2) && (o[10] == 0 || o[10] == 1 || o[10] == 2) &&
                fabs(o[11]) == 1.0 && fabs(o[12]) == 1.0, CRD_ERR_INPUT,
            "%s: section 'triads.state': intersection node %d: chart (%g, %g, %g, %g) is not one (l, k in 0..2, "
            "signs +-1)", crd_ckpt_path(c), tr->node[k], o[9], o[10], o[11], o[12]);
  memcpy(tr->E + 9 * k, o, 9 * sizeof(double));
  tr->ch[k].l = (int)o[9];
  tr->ch[k].k = (int)o[10];
  tr->ch[k].sy = o[11];
  tr->ch[k].sx = o[12];
  if (rates_left_out()) return 0;
  memcpy(dy->tpi + 3 * k, o + 13, 3 * sizeof(double));
  memcpy(dy->tom + 3 * k, o + 16, 3 * sizeof(double));
  memcpy(dy->tm + 3 * k, o + 19, 3 * sizeof(double));
  memcpy(dy->tRd + 9 * k, o + 22, 9 * sizeof(double));
  memcpy(dy->tRdd + 9 * k, o + 31, 9 * sizeof(double));
  return 0;
}

/* The triads' state, required when the shell has intersection nodes: a
 * checkpoint without the section, or of another number of triads, is
 * refused with the reason. */
static int triads_restore(crd_problem *pb, crd_dyn *dy, const crd_ckpt *c)
{
  crd_triads *tr = pb->tr;
  if (!tr) return 0;
  size_t len, need = TRIAD_CKPT * sizeof(double) * (size_t)tr->n;
  const double *st = crd_ckpt_find(c, "triads.state", &len);
  CRD_CHECK(st, CRD_ERR_INPUT, "%s: no section 'triads.state': this case's shell has %d intersection node(s) "
            "whose triads (orientation, chart, rates) a restart needs (docs/checkpoint.md)", crd_ckpt_path(c), tr->n);
  CRD_CHECK(len == need, CRD_ERR_INPUT, "%s: section 'triads.state' has %zu bytes, this case's %d intersection "
            "node(s) need %zu (%d f64 each): a checkpoint of another model (wrong sizes)", crd_ckpt_path(c), len,
            tr->n, need, TRIAD_CKPT);
  double o[TRIAD_CKPT];
  for (int k = 0; k < tr->n; ++k) {
    memcpy(o, (const char *)st + TRIAD_CKPT * sizeof(double) * (size_t)k, sizeof o); /* the payload is 8-aligned */
    CRD_CALL(triad_unpack(pb, dy, k, o, c));
  }
  crd_triads_record(tr);
  return 0;
}

/* "run", first part: the sizes the restore checks, and the stage cursor
 * (dy->cur) the integrators go on from. */
static void text_stage(crd_ckpt_writer *w, const crd_run *r, const crd_dyn *dy)
{
  const crd_problem *pb = r->pb;
  crd_ckpt_text_int(w, "nn", pb->nn);
  crd_ckpt_text_int(w, "ne", pb->ne);
  crd_ckpt_text_int(w, "neq", pb->neq);
  crd_ckpt_text_int(w, "nbodies", r->m->nbodies);
  crd_ckpt_text_int(w, "stage", dy->cur.stage);
  crd_ckpt_text_dbl(w, "stage.dt", dy->cur.dt);
  crd_ckpt_text_int(w, "stage.good", dy->cur.good);
  crd_ckpt_text_dbl(w, "stage.E_prev", dy->cur.E_prev);
  crd_ckpt_text_dbl(w, "stage.v_max", dy->cur.v_max);
  crd_ckpt_text_dbl(w, "stage.h_prev", dy->cur.h_prev);
  crd_ckpt_text_dbl(w, "stage.xi_kappa", dy->cur.xi_kappa);
  crd_ckpt_text_dbl(w, "stage.x_roundoff", dy->cur.x_roundoff);
  crd_ckpt_text_int(w, "stage.n", dy->cur.n);
  crd_ckpt_text_int(w, "stage.nsteps", dy->cur.nsteps);
  crd_ckpt_text_dbl(w, "stage.t0", dy->cur.t0);
  crd_ckpt_text_dbl(w, "stage.E_scale", dy->cur.E_scale);
  crd_ckpt_text_dbl(w, "stage.E_start", dy->cur.E_start);
  crd_ckpt_text_int(w, "stage.n_scaled", dy->cur.n_scaled);
  if (dy->hybrid) crd_hybrid_ckpt_text(w, dy->hybrid);
}

/* "run", second part: time, energies, counters, accumulated work and
 * statistics of the analysis and of the run. */
static void text_counters(crd_ckpt_writer *w, const crd_run *r, const crd_dyn *dy)
{
  crd_ckpt_text_dbl(w, "t", dy->t);
  crd_ckpt_text_int(w, "step", dy->step);
  crd_ckpt_text_dbl(w, "kinetic", dy->kinetic);
  crd_ckpt_text_dbl(w, "strain", dy->strain);
  crd_ckpt_text_int(w, "implicit_steps", dy->implicit_steps);
  crd_ckpt_text_int(w, "explicit_steps", dy->explicit_steps);
  crd_ckpt_text_int(w, "dyn.newton_iters", dy->newton_iters);
  crd_ckpt_text_int(w, "dyn.cuts", dy->cuts);
  crd_ckpt_text_int(w, "dyn.switches", dy->switches);
  crd_ckpt_text_dbl(w, "max_energy_residual", dy->max_energy_residual);
  crd_ckpt_text_int(w, "dyn.mono_steps", dy->mono_steps);
  crd_ckpt_text_int(w, "dyn.mono_iters", dy->mono_iters);
  crd_ckpt_text_dbl(w, "dyn.xi_max", dy->xi_max);
  crd_ckpt_text_dbl(w, "rot_mass_scaling", dy->rot_mass_scaling);
  crd_ckpt_text_dbl(w, "dt_auto", dy->dt_auto);
  crd_ckpt_text_dbl(w, "external_work", r->wext);
  crd_ckpt_text_dbl(w, "external_work.bodies", r->wext_ties);
  crd_ckpt_text_dbl(w, "t_prev", r->t_prev);
  crd_ckpt_text_dbl(w, "run.strain", r->strain);
  crd_ckpt_text_int(w, "run.steps", r->steps);
  crd_ckpt_text_int(w, "run.newton_iters", r->newton_iters);
  crd_ckpt_text_int(w, "run.cuts", r->cuts);
}

/* "run", last part: the history file's length and hash (the restart cuts
 * the file back to them), the frames, the solver mode, the wall time. */
static void text_files(crd_ckpt_writer *w, const crd_run *r, int64_t hoff, uint64_t hhash)
{
  crd_ckpt_text_int(w, "history.rows", r->nrows);
  crd_ckpt_text_int(w, "history.bytes", (long long)hoff);
  crd_ckpt_text_int(w, "history.hash", (long long)hhash);
  crd_ckpt_text_int(w, "frames", r->nframes);
  crd_ckpt_text_int(w, "solver.indefinite", r->ls->indefinite);
  crd_ckpt_text_dbl(w, "wall", r->wall_before + crd_wtime() - r->t_start);
}

/* The "run" section closed, then the binary sections: the nodal state,
 * the result.pvd entries and the rigid bodies. */
static int add_state(crd_ckpt_writer *w, const crd_run *r, const crd_dyn *dy)
{
  const crd_problem *pb = r->pb;
  size_t n3 = 3 * (size_t)pb->nn * sizeof(double);
  size_t plen = 0;
  const char *pvd = r->pvd ? crd_pvd_entries(r->pvd, &plen) : "";
  int rc;
  if ((rc = crd_ckpt_text_end(w)) || (rc = crd_ckpt_add(w, "node.d", pb->d, n3)) ||
      (rc = crd_ckpt_add(w, "node.p", pb->p, n3)) ||
      (rc = crd_ckpt_add(w, "node.l", pb->l, (size_t)pb->nn * sizeof(int))) ||
      (rc = crd_ckpt_add(w, "node.v", dy->v, n3)) || (rc = crd_ckpt_add(w, "node.a", dy->a, n3)) ||
      (rc = crd_ckpt_add(w, "node.w", dy->w, n3)) || (rc = crd_ckpt_add(w, "node.wa", dy->wa, n3)) ||
      (rc = crd_ckpt_add(w, "node.a_prev", dy->a_prev, n3)) || (rc = crd_ckpt_add(w, "node.wa_prev", dy->wa_prev, n3)) ||
      (rc = crd_ckpt_add(w, "pvd", pvd, plen + 1)) || /* with its NUL */
      (rc = ties_add(w, r->ties)) || (rc = triads_add(w, pb, dy)) || (dy->hybrid && (rc = crd_hybrid_ckpt_add(w, dy->hybrid))))
    return CRD_TRACE(rc);
  return 0;
}

int crd_dyn_checkpoint_write(crd_run *r, const crd_dyn *dy)
{
  if (r->ckpt_sync) CRD_CALL(r->ckpt_sync(r->ckpt_sync_ctx)); /* a device-resident loop: its state first */
  if (crd_par_rank() > 0) { /* rank 0 alone writes (parallel.h); the others count it */
    r->nckpt++;
    r->ckpt_step = dy->step;
    r->ckpt_wall = crd_wtime();
    return 0;
  }
  int64_t hoff;
  uint64_t hhash;
  crd_history_mark(r->hist, &hoff, &hhash);
  crd_ckpt_writer *w;
  CRD_CALL(crd_ckpt_begin(r->ckpt_path, r->case_hash, &w));
  int rc = crd_ckpt_text_begin(w, "run");
  if (rc) { crd_ckpt_abort(&w); return CRD_TRACE(rc); }
  text_stage(w, r, dy);
  text_counters(w, r, dy);
  text_files(w, r, hoff, hhash);
  if ((rc = add_state(w, r, dy))) {
    crd_ckpt_abort(&w);
    return CRD_TRACE(rc);
  }
  CRD_CALL(crd_ckpt_commit(&w));
  r->nckpt++;
  r->ckpt_step = dy->step;
  r->ckpt_wall = crd_wtime();
  return 0;
}

#define GET_I(key, dst) do { long long v_; CRD_CALL(crd_ckpt_get_int(c, "run", key, &v_)); (dst) = (int)v_; } while (0)
#define GET_D(key, dst) CRD_CALL(crd_ckpt_get_dbl(c, "run", key, &(dst)))

/* The sizes of the checkpoint's model against this case's. */
static int restore_sizes(const crd_run *r, const crd_ckpt *c)
{
  const crd_problem *pb = r->pb;
  int nn, ne, neq, nb;
  GET_I("nn", nn);
  GET_I("ne", ne);
  GET_I("neq", neq);
  GET_I("nbodies", nb);
  CRD_CHECK(nn == pb->nn && ne == pb->ne && neq == pb->neq && nb == r->m->nbodies, CRD_ERR_INPUT,
            "%s: the checkpoint is of a model with %d nodes, %d elements, %d equations, %d bodies; this case has "
            "%d, %d, %d, %d (wrong sizes)", crd_ckpt_path(c), nn, ne, neq, nb, pb->nn, pb->ne, pb->neq,
            r->m->nbodies);
  return 0;
}

/* The nodal state and rates, the rigid bodies' state, then the check of
 * each node's dependent normal component. */
static int restore_state(crd_run *r, crd_dyn *dy, const crd_ckpt *c)
{
  crd_problem *pb = r->pb;
  int nn = pb->nn;
  size_t n3 = 3 * (size_t)nn * sizeof(double);
  CRD_CALL(crd_ckpt_get(c, "node.d", pb->d, n3));
  CRD_CALL(crd_ckpt_get(c, "node.p", pb->p, n3));
  CRD_CALL(crd_ckpt_get(c, "node.l", pb->l, (size_t)nn * sizeof(int)));
  CRD_CALL(crd_ckpt_get(c, "node.v", dy->v, n3));
  CRD_CALL(crd_ckpt_get(c, "node.a", dy->a, n3));
  CRD_CALL(crd_ckpt_get(c, "node.w", dy->w, n3));
  CRD_CALL(crd_ckpt_get(c, "node.wa", dy->wa, n3));
  size_t na;
  if (crd_ckpt_find(c, "node.a_prev", &na)) {
    CRD_CALL(crd_ckpt_get(c, "node.a_prev", dy->a_prev, n3));
    CRD_CALL(crd_ckpt_get(c, "node.wa_prev", dy->wa_prev, n3));
  } else {
    memcpy(dy->a_prev, dy->a, n3);
    memcpy(dy->wa_prev, dy->wa, n3);
  }
  size_t nts = crd_ties_state_size(r->ties);
  if (nts) {
    double *st;
    CRD_CALL(CRD_CALLOC(nts, &st));
    int rc = crd_ckpt_get(c, "ties.state", st, nts * sizeof(double));
    if (!rc) crd_ties_state_set(r->ties, st);
    free(st);
    if (rc) return CRD_TRACE(rc);
  }
  for (int i = 0; i < nn; ++i)
    CRD_CHECK(pb->l[i] >= 0 && pb->l[i] <= 2, CRD_ERR_INPUT, "%s: node %d: dependent normal component %d (not 0..2)",
              crd_ckpt_path(c), i, pb->l[i]);
  return 0;
}

/* The stage cursor (dy->cur), its stage checked against the case's. */
static int restore_stage(const crd_run *r, crd_dyn *dy, const crd_ckpt *c)
{
  GET_I("stage", dy->cur.stage);
  CRD_CHECK(dy->cur.stage >= 0 && dy->cur.stage < r->m->analysis.nstages, CRD_ERR_INPUT,
            "%s: the checkpoint is in stage %d, the case has %d stages", crd_ckpt_path(c), dy->cur.stage,
            r->m->analysis.nstages);
  GET_D("stage.dt", dy->cur.dt);
  GET_I("stage.good", dy->cur.good);
  GET_D("stage.E_prev", dy->cur.E_prev);
  CRD_CALL(crd_ckpt_get_dbl_or(c, "run", "stage.v_max", 0.0, &dy->cur.v_max));
  CRD_CALL(crd_ckpt_get_dbl_or(c, "run", "stage.h_prev", 0.0, &dy->cur.h_prev));
  GET_D("stage.xi_kappa", dy->cur.xi_kappa);
  GET_D("stage.x_roundoff", dy->cur.x_roundoff);
  GET_I("stage.n", dy->cur.n);
  GET_I("stage.nsteps", dy->cur.nsteps);
  GET_D("stage.t0", dy->cur.t0);
  GET_D("stage.E_scale", dy->cur.E_scale);
  GET_D("stage.E_start", dy->cur.E_start);
  GET_I("stage.n_scaled", dy->cur.n_scaled);
  return 0;
}

/* Time, energies, counters, accumulated work and statistics of the
 * analysis and of the run. */
static int restore_counters(crd_run *r, crd_dyn *dy, const crd_ckpt *c)
{
  GET_D("t", dy->t);
  GET_I("step", dy->step);
  GET_D("kinetic", dy->kinetic);
  GET_D("strain", dy->strain);
  GET_I("implicit_steps", dy->implicit_steps);
  GET_I("explicit_steps", dy->explicit_steps);
  GET_I("dyn.newton_iters", dy->newton_iters);
  GET_I("dyn.cuts", dy->cuts);
  double sw;
  CRD_CALL(crd_ckpt_get_dbl_or(c, "run", "dyn.switches", 0.0, &sw));
  dy->switches = (int)sw;
  GET_D("max_energy_residual", dy->max_energy_residual);
  GET_I("dyn.mono_steps", dy->mono_steps);
  GET_I("dyn.mono_iters", dy->mono_iters);
  GET_D("dyn.xi_max", dy->xi_max);
  GET_D("rot_mass_scaling", dy->rot_mass_scaling);
  GET_D("dt_auto", dy->dt_auto);
  GET_D("external_work", r->wext);
  if (r->ties) GET_D("external_work.bodies", r->wext_ties);
  GET_D("t_prev", r->t_prev);
  GET_D("run.strain", r->strain);
  GET_I("run.steps", r->steps);
  GET_I("run.newton_iters", r->newton_iters);
  GET_I("run.cuts", r->cuts);
  GET_D("wall", r->wall_before);
  return 0;
}

/* The solver mode: a run that went indefinite stays so. */
static int restore_solver(crd_linsys *ls, const crd_ckpt *c)
{
  int indef;
  GET_I("solver.indefinite", indef);
  if (indef && !ls->indefinite) CRD_CALL(crd_linsys_set_indefinite(ls));
  return 0;
}

int crd_dyn_checkpoint_restore(crd_run *r, crd_dyn *dy)
{
  const crd_ckpt *c = r->restart;
  crd_problem *pb = r->pb;
  CRD_CALL(restore_sizes(r, c));
  CRD_CALL(restore_state(r, dy, c));
  CRD_CALL(triads_restore(pb, dy, c));
  CRD_CALL(restore_stage(r, dy, c));
  CRD_CALL(restore_counters(r, dy, c));
  CRD_CALL(restore_solver(r->ls, c));
  dy->cur.resume = 1;
  /* the state of the last recorded step, from which the work goes on */
  size_t n3 = 3 * (size_t)pb->nn * sizeof(double);
  memcpy(r->d_prev, pb->d, n3);
  memcpy(r->p_prev, pb->p, n3);
  r->ckpt_step = dy->step;
  return 0;
}

int crd_dyn_step_end(crd_run *r, crd_dyn *dy)
{
  const crd_output *o = &r->m->output;
  if (r->test_sigint_step > 0 && dy->step == r->test_sigint_step) raise(SIGINT);
  /* over MPI ranks all take rank-independent decisions: a signal that
   * reached one rank, or the clock of one, stops or checkpoints them all */
  int ask[2] = {got_signal, o->checkpoint_every_seconds > 0 && crd_wtime() - r->ckpt_wall >= o->checkpoint_every_seconds};
  crd_par_max_int(ask, 2);
  int sig = ask[0];
  int due = sig || (o->checkpoint_every_steps > 0 && dy->step % o->checkpoint_every_steps == 0) || ask[1];
  if (due) CRD_CALL(crd_dyn_checkpoint_write(r, dy));
  /* a crash after this step: rows and frames written after the last
   * checkpoint must be cut off by the restart (tests) */
  if (r->test_sigkill_step > 0 && dy->step == r->test_sigkill_step) raise(SIGKILL);
  if (!due) return 0;
  if (sig) {
    char cmd[3 * CRD_PATH_MAX];
    crd_run_restart_command(r, cmd, sizeof cmd);
    return CRD_ERR(CRD_ERR_INTERRUPTED, "interrupted (%s) at step %d (t = %.9g), checkpoint written to %s; "
                   "continue with: %s", sig == SIGTERM ? "SIGTERM" : "SIGINT", dy->step, dy->t, r->ckpt_path, cmd);
  }
  return 0;
}
