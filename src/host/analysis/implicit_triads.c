/* crdyn: intersection nodes in the implicit step (fold_dyn.h for the
 * mathematics and why it conserves, dynamics.h for the calls).
 *
 * The triad R is the node's physical vector: Newmark on its nine numbers
 * (R', R'' in dy->tRd, dy->tRdd), the unknowns the chart's theta at the
 * end of the step in the chart of the step's start (slots 3, 4 of the
 * node and tr->mid->du3), R_f = (1 - af) R_b + af R_a.  The chart is
 * switched only between steps (crd_im_triads_accept): the rates are R'
 * and R'', which no chart enters, so a switch changes nothing of the
 * motion. */
#include <string.h>

#include "crdyn/dynamics.h"
#include "crdyn/error.h"
#include "crdyn/fold_dyn.h"
#include "crdyn/switches.h"
#include "crdyn/triads.h"

/* The chart equations of triad k (-1 where held). */
static void chart_eqs(const crd_problem *pb, int k, int32_t *q)
{
  int i = pb->tr->node[k];
  q[0] = pb->eq[5 * i + 3];
  q[1] = pb->eq[5 * i + 4];
  q[2] = pb->tr->eq3[k];
}

/* R' = [om]_x R in the E layout: each axis e_a' = om x e_a. */
static void spin_rates(const double *E, const double *om, double *Rd)
{
  for (int a = 0; a < 3; ++a) crd_cross3(om, E + 3 * a, Rd + 3 * a);
}

/* The angular velocity of R' (exact where R' = [om]_x R):
 * om = 1/2 sum_a e_a x e_a'. */
static void spin_of(const double *E, const double *Rd, double *om)
{
  om[0] = om[1] = om[2] = 0.0;
  for (int a = 0; a < 3; ++a) {
    double t[3];
    crd_cross3(E + 3 * a, Rd + 3 * a, t);
    for (int c = 0; c < 3; ++c) om[c] += 0.5 * t[c];
  }
}

/* The chart's rates of a triad's R' (theta are components of the axes:
 * theta = (y_n, y_m, z_k), fold_node.h). */
static void chart_rates(crd_triad_chart ch, const double *Rd, double *thd)
{
  int n, m;
  crd_dir_pair(ch.l, &n, &m);
  thd[0] = Rd[3 + n];
  thd[1] = Rd[3 + m];
  thd[2] = Rd[6 + ch.k];
}

int crd_im_triads_begin(crd_dyn *dy, crd_problem *pb, int resume)
{
  crd_triads *tr = pb->tr;
  CRD_CALL(crd_triads_mid_create(tr));
  /* a resumed stage keeps the R' of its last step (the checkpoint's);
   * dy->tom is then that of the stage's start, which the spin would
   * not be */
  for (int k = 0; k < tr->n && !resume; ++k) spin_rates(tr->E + 9 * k, dy->tom + 3 * k, dy->tRd + 9 * k);
  return 0;
}

void crd_im_triads_finish(crd_dyn *dy, crd_problem *pb)
{
  crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) spin_of(tr->E + 9 * k, dy->tRd + 9 * k, dy->tom + 3 * k);
  crd_triads_mid_destroy(tr);
}

void crd_im_triads_start(const crd_dyn *dy, crd_problem *pb, double dt, double *du)
{
  crd_triads *tr = pb->tr;
  crd_triads_mid *m = tr->mid;
  size_t n9 = 9 * sizeof(double) * (size_t)tr->n;
  memcpy(m->Ea, tr->E, n9);
  memcpy(m->V0, dy->tRd, n9);
  memcpy(m->A0, dy->tRdd, n9);
  memcpy(m->ch_a, tr->ch, sizeof(crd_triad_chart) * (size_t)tr->n);
  for (int k = 0; k < tr->n; ++k) { /* the constant-velocity predictor */
    int32_t q[3];
    double thd[3];
    chart_eqs(pb, k, q);
    chart_rates(tr->ch[k], m->V0 + 9 * k, thd);
    int i = tr->node[k];
    du[5 * i + 3] = q[0] >= 0 ? dt * thd[0] : 0.0;
    du[5 * i + 4] = q[1] >= 0 ? dt * thd[1] : 0.0;
    m->du3[k] = q[2] >= 0 ? dt * thd[2] : 0.0;
  }
}

/* Newmark (eq 57) on one number: end rates and midpoint acceleration. */
static void newmark9(const crd_im_param *g, double dt, double du, double v0, double a0, double *v1, double *a1,
                     double *am)
{
  double b = g->beta;
  *a1 = (du - dt * v0 - dt * dt * (0.5 - b) * a0) / (b * dt * dt);
  *v1 = v0 + dt * ((1.0 - g->gamma) * a0 + g->gamma * (*a1));
  *am = (1.0 - g->am) * (*a1) + g->am * a0;
}

int crd_im_triads_state(crd_problem *pb, const crd_im_param *g, double dt, const double *du, double *pf,
                        double *W1, double *WA1)
{
  crd_triads *tr = pb->tr;
  crd_triads_mid *m = tr->mid;
  for (int k = 0; k < tr->n; ++k) {
    int i = tr->node[k];
    int32_t q[3];
    chart_eqs(pb, k, q);
    double *Eb = tr->E + 9 * k, *Ea = m->Ea + 9 * k;
    if (q[0] < 0 && q[1] < 0 && q[2] < 0) {
      memcpy(Eb, Ea, 9 * sizeof(double)); /* held */
    } else {
      double th[3];
      crd_triad_theta(Ea, m->ch_a[k], th);
      th[0] += du[5 * i + 3];
      th[1] += du[5 * i + 4];
      th[2] += m->du3[k];
      if (crd_triad_from_theta(th, m->ch_a[k], Eb) < 0.01)
        return crd_err_set(CRD_WARN_NEWTON_DIVERGED, __FILE__, __LINE__, __func__,
                           "the triad of intersection node %d turned out of its chart in one step", i);
    }
    tr->ch[k] = m->ch_a[k];
    for (int c = 0; c < 9; ++c) {
      size_t x = 9 * (size_t)k + c;
      m->Ef[x] = (1.0 - g->af) * Eb[c] + g->af * Ea[c];
      newmark9(g, dt, Eb[c] - Ea[c], m->V0[x], m->A0[x], &m->V1[x], &m->A1[x], &m->Am[x]);
    }
    for (int c = 0; c < 3; ++c) { /* the node's normal: the first patch's, e_z (triads.h) */
      pb->p[3 * i + c] = Eb[6 + c];
      pf[3 * i + c] = m->Ef[9 * k + 6 + c];
      W1[3 * i + c] = m->V1[9 * k + 6 + c];
      WA1[3 * i + c] = m->A1[9 * k + 6 + c];
    }
  }
  return 0;
}

void crd_im_triads_correct(crd_problem *pb, const double *dx)
{
  crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k)
    if (tr->eq3[k] >= 0) tr->mid->du3[k] -= dx[tr->eq3[k]];
}

void crd_im_triads_restore(crd_problem *pb)
{
  crd_triads *tr = pb->tr;
  const crd_triads_mid *m = tr->mid;
  memcpy(tr->E, m->Ea, 9 * sizeof(double) * (size_t)tr->n);
  memcpy(tr->ch, m->ch_a, sizeof(crd_triad_chart) * (size_t)tr->n);
  for (int k = 0; k < tr->n; ++k) memcpy(pb->p + 3 * tr->node[k], tr->E + 9 * k + 6, 3 * sizeof(double));
}

void crd_im_triads_rates(crd_dyn *dy, const crd_problem *pb, int end)
{
  const crd_triads_mid *m = pb->tr->mid;
  size_t n9 = 9 * sizeof(double) * (size_t)pb->tr->n;
  memcpy(dy->tRd, end ? m->V1 : m->V0, n9);
  memcpy(dy->tRdd, end ? m->A1 : m->A0, n9);
}

void crd_im_triads_accept(crd_problem *pb)
{
  crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) crd_triads_set(pb, k, tr->E + 9 * k);
}

void crd_im_triads_velocity(const crd_dyn *dy, const crd_problem *pb, int e, double *ud)
{
  const crd_triads *tr = pb->tr;
  const int32_t *qd = pb->m->quads + 4 * e;
  int o = 0;
  for (int a = 0; a < 4; ++a) {
    int i = qd[a], k = tr->of[i];
    for (int c = 0; c < 3; ++c) ud[o + c] = dy->v[3 * i + c];
    if (k >= 0) {
      chart_rates(tr->ch[k], dy->tRd + 9 * k, ud + o + 3);
      o += 6;
    } else {
      crd_dyn_pair(pb, i, dy->w + 3 * i, ud + o + 3);
      o += 5;
    }
  }
}

void crd_im_triads_accel(crd_dyn *dy, const crd_problem *pb, const double *dx)
{
  const crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    int i = tr->node[k];
    int32_t q[3];
    chart_eqs(pb, k, q);
    const double *E = tr->E + 9 * k;
    double thd[3], thdd[3], om[3], omd[3], *Rdd = dy->tRdd + 9 * k;
    chart_rates(tr->ch[k], dy->tRd + 9 * k, thd);
    for (int a = 0; a < 3; ++a) thdd[a] = q[a] >= 0 ? dx[q[a]] : 0.0;
    crd_triad_omega(E, tr->ch[k], thd, thdd, om, omd);
    for (int a = 0; a < 3; ++a) { /* e_a'' = om' x e_a + om x (om x e_a) */
      double t[3], u[3];
      crd_cross3(omd, E + 3 * a, t);
      crd_cross3(om, dy->tRd + 9 * k + 3 * a, u);
      for (int c = 0; c < 3; ++c) Rdd[3 * a + c] = t[c] + u[c];
    }
    memcpy(dy->w + 3 * i, dy->tRd + 9 * k + 6, 3 * sizeof(double));
    memcpy(dy->wa + 3 * i, Rdd + 6, 3 * sizeof(double));
  }
}

/* Test hook CRDYN_TEST_TRIAD_MASS=none: the fold elements' mass left out
 * of the assembled matrix (a modal analysis that must fail its comparison,
 * tests/cli/fold_modal.sh).  Leaving out only the triad corners' rotary
 * inertia is no such test: on the folded strip of that test it moves the
 * first six frequencies by less than 2e-5 relative (measured), its
 * h^2/12 scale against the legs' translational inertia. */
static int mass_left_out(void)
{
  const char *h = crd_switch("CRDYN_TEST_TRIAD_MASS");
  return h && !strcmp(h, "none");
}

/* Fold element f's mass m (n x n, scaled by cm) into A and its f_m (n)
 * into F, through its 24-slot equations and scatter (triads.h). */
static void fold_mass(const crd_dyn *dy, const crd_problem *pb, int f, crd_csr *A, double cm, double *F)
{
  const crd_triads *tr = pb->tr;
  int e = tr->elem[f], off[4], map[24];
  crd_fold_node nd[4];
  double p0[12], ud[24], m[576], fm[24];
  crd_triads_corners(pb, f, nd, p0);
  crd_im_triads_velocity(dy, pb, e, ud);
  int n = crd_fold_offsets(nd, off);
  for (int a = 0; a < n * n; ++a) m[a] = 0.0;
  for (int a = 0; a < n; ++a) fm[a] = 0.0;
  const crd_section *s = &pb->m->sections[pb->m->elem_section[e]];
  crd_fold_mass(dy->C + 16 * (size_t)e, s->thickness, nd, ud, 1.0, cm, A ? m : 0, F ? fm : 0);
  if (A && mass_left_out()) return;
  for (int a = 0; a < 4; ++a)
    for (int q = 0; q < 6; ++q) map[6 * a + q] = q < 3 + crd_fold_node_nr(nd + a) ? off[a] + q : -1;
  const int32_t *eq = tr->eq24 + 24 * (size_t)f, *sc = tr->sc24 + 300 * (size_t)f;
  for (int a = 0; a < 24 && F; ++a)
    if (eq[a] >= 0 && map[a] >= 0) F[eq[a]] += fm[map[a]];
  if (!A) return;
  for (int a = 0; a < 24; ++a)
    for (int b = a; b < 24; ++b) {
      int32_t pos = sc[crd_tri_index(a, b, 24)];
      if (pos >= 0 && map[a] >= 0 && map[b] >= 0) A->val[pos] += m[n * map[a] + map[b]];
    }
}

void crd_im_triads_mass(const crd_dyn *dy, const crd_problem *pb, crd_csr *A, double cm, double *F)
{
  for (int f = 0; f < pb->tr->nel; ++f) fold_mass(dy, pb, f, A, cm, F);
}
