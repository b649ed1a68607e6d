/* crdyn: rigid bodies: setup from the case, loads, the DQVI and
 * Newton-Euler (RK4) steps, energies and momenta (rigid.h, rigid_body.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/loads.h"
#include "crdyn/rigid.h"
#include "crdyn/rigid_body.h"

int crd_rigid_create(const crd_model *m, crd_rigid **out)
{
  crd_rigid *rg;
  *out = NULL;
  CRD_CALL(CRD_CALLOC(1, &rg));
  rg->m = m, rg->nb = m->nbodies, rg->tol = 1e-14, rg->max_iterations = 25;
  if (rg->nb && CRD_CALLOC(rg->nb, &rg->b)) {
    free(rg);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  for (int ib = 0; ib < rg->nb; ++ib) {
    const crd_rigid_body *B = &m->bodies[ib];
    crd_body_state *s = &rg->b[ib];
    unsigned all = CRD_FIX_UX | CRD_FIX_UY | CRD_FIX_UZ;
    if (B->fix && B->fix != all) {
      crd_rigid_destroy(&rg);
      return CRD_ERR(CRD_ERR_UNSUPPORTED, "%s: $.rigid_bodies[%d].fix: body '%s': only the full spherical joint "
                     "[\"ux\", \"uy\", \"uz\"] is supported", m->case_path, ib, B->name);
    }
    s->fixed = B->fix == all;
    s->integrator = B->integrator;
    s->mass = B->mass;
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = B->center_of_mass[k] - B->reference[k];
    crd_q_rotate_inv(B->orientation, d, s->rg);    /* given in global axes of the initial state */
    crd_rb_mass6(B->mass, B->inertia, s->rg, B->has_added_mass ? B->added_mass : NULL, s->M);
    crd_dq_from_pose(B->orientation, B->reference, s->g);
    crd_q_rotate_inv(B->orientation, B->angular_velocity, s->chi);
    crd_q_rotate_inv(B->orientation, B->velocity, s->chi + 3);
    if (s->fixed) s->chi[3] = s->chi[4] = s->chi[5] = 0.0;
    crd_rb_mat6_vec(s->M, s->chi, s->P);
    if (!crd_rb_posdef6(s->M)) { /* an added mass can spoil it; the kinetic energy must be positive */
      crd_rigid_destroy(&rg);
      return CRD_ERR(CRD_ERR_INPUT, "%s: $.rigid_bodies[%d]: body '%s': the 6x6 mass (with added mass) is not "
                     "positive definite (singular or indefinite)", m->case_path, ib, B->name);
    }
  }
  *out = rg;
  return 0;
}

void crd_rigid_destroy(crd_rigid **prg)
{
  if (!*prg) return;
  free((*prg)->b);
  free(*prg);
  *prg = NULL;
}

/* world position of the centre of mass of body s in pose g */
static void center_of_mass(const crd_body_state *s, const double *g, double *xg)
{
  crd_dq_transform_point(g, s->rg, xg);
}

void crd_rigid_wrench(const crd_rigid *rg, int ib, double t, const double *g, double *Fw, double *Mw, double *Wb)
{
  const crd_model *m = rg->m;
  const crd_body_state *s = &rg->b[ib];
  double q[4], x[3], xg[3], r[3], c[3];
  crd_dq_to_pose(g, q, x);
  center_of_mass(s, g, xg);
  for (int k = 0; k < 3; ++k) Fw[k] = Mw[k] = 0.0, r[k] = xg[k] - x[k];
  for (int l = 0; l < m->nloads; ++l) {
    const crd_load *L = &m->loads[l];
    double a = crd_amplitude_eval(&L->amp, t, 1.0);
    if (L->kind == CRD_LOAD_BODY && L->body == ib) {
      for (int k = 0; k < 3; ++k) Fw[k] += a * L->vec[k], Mw[k] += a * L->vec2[k];
    } else if (L->kind == CRD_LOAD_GRAVITY) {   /* m g at G: a force at Q and the moment r x m g */
      double f[3] = {a * s->mass * L->vec[0], a * s->mass * L->vec[1], a * s->mass * L->vec[2]};
      crd_cross3(r, f, c);
      for (int k = 0; k < 3; ++k) Fw[k] += f[k], Mw[k] += c[k];
    }
  }
  crd_q_rotate_inv(q, Mw, Wb);
  crd_q_rotate_inv(q, Fw, Wb + 3);
}

/* Work of the loads over a step from (t0, g0) to (t1, g1), trapezoidal in
 * the amplitudes: forces at Q on the displacement of Q, moments on the
 * world rotation vector of the step, gravity on the displacement of G
 * (exact for constant gravity: the change of potential energy). */
static double step_work(const crd_rigid *rg, int ib, double t0, const double *g0, double t1, const double *g1)
{
  const crd_model *m = rg->m;
  const crd_body_state *s = &rg->b[ib];
  double q0[4], x0[3], q1[4], x1[3], c[4], dq[4], th[3], thw[3], xg0[3], xg1[3];
  crd_dq_to_pose(g0, q0, x0);
  crd_dq_to_pose(g1, q1, x1);
  center_of_mass(s, g0, xg0);
  center_of_mass(s, g1, xg1);
  crd_q_conj(q0, c);
  crd_q_mul(c, q1, dq);                  /* body-frame relative rotation */
  crd_q_log(dq, th);
  for (int k = 0; k < 3; ++k) th[k] *= 2.0; /* rotation vector */
  crd_q_rotate(q0, th, thw);
  double W = 0.0;
  for (int l = 0; l < m->nloads; ++l) {
    const crd_load *L = &m->loads[l];
    double a = 0.5 * (crd_amplitude_eval(&L->amp, t0, 1.0) + crd_amplitude_eval(&L->amp, t1, 1.0));
    for (int k = 0; k < 3; ++k) {
      if (L->kind == CRD_LOAD_BODY && L->body == ib)
        W += a * (L->vec[k] * (x1[k] - x0[k]) + L->vec2[k] * thw[k]);
      else if (L->kind == CRD_LOAD_GRAVITY)
        W += a * s->mass * L->vec[k] * (xg1[k] - xg0[k]);
    }
  }
  return W;
}

/* One DQVI step of body ib (rigid_body.h). */
static int step_dqvi(crd_rigid *rg, int ib, double t, double h)
{
  crd_body_state *s = &rg->b[ib];
  double Fw[3], Mw[3], W[6], b[6], y[6], r[6], Jac[36], dy[6], f[8] = {1, 0, 0, 0, 0, 0, 0, 0}, g1[8];
  int n = s->fixed ? 3 : 6;
  crd_rigid_wrench(rg, ib, t, s->g, Fw, Mw, W);
  for (int i = 0; i < 6; ++i) b[i] = s->P[i] + 0.5 * h * W[i], y[i] = 0.5 * h * s->chi[i];
  if (s->fixed) y[3] = y[4] = y[5] = 0.0;
  double bn = 0.0;
  for (int i = 0; i < n; ++i) bn += b[i] * b[i];
  bn = sqrt(bn);
  int it, ok = 0;
  for (it = 0; it < rg->max_iterations; ++it) {
    if (crd_dqvi_residual(s->M, y, b, h, r, Jac)) break;
    double rn = 0.0;
    for (int i = 0; i < n; ++i) rn += r[i] * r[i];
    if (sqrt(rn) <= rg->tol * (bn + 1e-300) || rn == 0.0) {
      ok = 1;
      break;
    }
    if (crd_rb_solve(n, Jac, 6, r, dy)) break;
    for (int i = 0; i < n; ++i) y[i] -= dy[i];
  }
  s->newton_iters = it;
  rg->newton_total += it;
  if (!ok)
    return CRD_ERR(CRD_ERR_NUMERIC, "rigid body '%s': the variational step at t = %.9g (dt = %.3g) did not converge "
                   "in %d Newton iterations (a rotation near 180 degrees per step? reduce dt)",
                   rg->m->bodies[ib].name, t, h, it);
  crd_dqvi_f(y, f);
  crd_dq_mul(s->g, f, g1);
  crd_dq_normalize(g1);
  s->wext += step_work(rg, ib, t, s->g, t + h, g1);
  memcpy(s->g, g1, sizeof g1);
  crd_rigid_wrench(rg, ib, t + h, s->g, Fw, Mw, W);
  crd_dqvi_momentum(s->M, y, f, 1.0, h, s->P);
  for (int i = 0; i < 6; ++i) s->P[i] += 0.5 * h * W[i];
  if (s->fixed) {
    s->P[3] = s->P[4] = s->P[5] = 0.0;
    crd_rb_solve(3, s->M, 6, s->P, s->chi);
    s->chi[3] = s->chi[4] = s->chi[5] = 0.0;
  } else
    crd_rb_solve(6, s->M, 6, s->P, s->chi);
  return 0;
}

/* Newton-Euler rates of (g, chi): g' = 1/2 g (x) chi^, chi' = M^-1 dP. */
static void ne_rates(const crd_rigid *rg, int ib, double t, const double *g, const double *chi, double *dg,
                     double *dchi)
{
  const crd_body_state *s = &rg->b[ib];
  double Fw[3], Mw[3], W[6], dP[6], xi[8] = {0, chi[0], chi[1], chi[2], 0, chi[3], chi[4], chi[5]};
  crd_rigid_wrench(rg, ib, t, g, Fw, Mw, W);
  crd_rb_ne_dP(s->M, chi, W, s->fixed, dP);
  crd_dq_mul(g, xi, dg);
  for (int k = 0; k < 8; ++k) dg[k] *= 0.5;
  if (s->fixed) {
    crd_rb_solve(3, s->M, 6, dP, dchi);
    dchi[3] = dchi[4] = dchi[5] = 0.0;
  } else
    crd_rb_solve(6, s->M, 6, dP, dchi);
}

/* One classical RK4 step on (g, chi) with g renormalised onto the unit dual
 * quaternions afterwards (the reference integrator). */
static void step_rk4(crd_rigid *rg, int ib, double t, double h)
{
  crd_body_state *s = &rg->b[ib];
  double kg[4][8], kc[4][6], g[8], c[6], g1[8];
  static const double cf[4] = {0.0, 0.5, 0.5, 1.0}, wt[4] = {1.0, 2.0, 2.0, 1.0};
  for (int st = 0; st < 4; ++st) {
    for (int k = 0; k < 8; ++k) g[k] = s->g[k] + (st ? cf[st] * h * kg[st - 1][k] : 0.0);
    for (int k = 0; k < 6; ++k) c[k] = s->chi[k] + (st ? cf[st] * h * kc[st - 1][k] : 0.0);
    ne_rates(rg, ib, t + cf[st] * h, g, c, kg[st], kc[st]);
  }
  for (int k = 0; k < 8; ++k) {
    g1[k] = s->g[k];
    for (int st = 0; st < 4; ++st) g1[k] += h / 6.0 * wt[st] * kg[st][k];
  }
  for (int k = 0; k < 6; ++k)
    for (int st = 0; st < 4; ++st) s->chi[k] += h / 6.0 * wt[st] * kc[st][k];
  crd_dq_normalize(g1);
  s->wext += step_work(rg, ib, t, s->g, t + h, g1);
  memcpy(s->g, g1, sizeof g1);
  crd_rb_mat6_vec(s->M, s->chi, s->P);
}

int crd_rigid_step(crd_rigid *rg, double t, double h)
{
  for (int ib = 0; ib < rg->nb; ++ib) {
    if (rg->b[ib].integrator == CRD_RB_NEWTON_EULER) step_rk4(rg, ib, t, h);
    else CRD_CALL(step_dqvi(rg, ib, t, h));
  }
  rg->steps++;
  return 0;
}

void crd_rigid_measure(const crd_rigid *rg, double *K, double *L, double *J)
{
  for (int ib = 0; ib < rg->nb; ++ib) {
    const crd_body_state *s = &rg->b[ib];
    double P[6], q[4], x[3], Lw[3], Jw[3], c[3], k = 0.0;
    crd_rb_mat6_vec(s->M, s->chi, P);
    for (int i = 0; i < 6; ++i) k += 0.5 * P[i] * s->chi[i];
    *K += k;
    crd_dq_to_pose(s->g, q, x);
    crd_q_rotate(q, P + 3, Lw);       /* a fixed body's linear momentum (reaction-borne) is counted too */
    crd_q_rotate(q, P, Jw);           /* about Q */
    crd_cross3(x, Lw, c);             /* about the origin: J_O = J_Q + x_Q x L */
    for (int i = 0; i < 3; ++i) L[i] += Lw[i], J[i] += Jw[i] + c[i];
  }
}

double crd_rigid_work(const crd_rigid *rg)
{
  double W = 0.0;
  for (int ib = 0; ib < rg->nb; ++ib) W += rg->b[ib].wext;
  return W;
}

void crd_rigid_columns(const crd_rigid *rg, int ib, double *cols)
{
  const crd_body_state *s = &rg->b[ib];
  double q[4], x[3];
  crd_dq_to_pose(s->g, q, x);
  /* q and -q are the same rotation; the integrator's branch is kept so the column is continuous */
  for (int k = 0; k < 3; ++k) cols[k] = x[k];
  for (int k = 0; k < 4; ++k) cols[3 + k] = q[k];
  crd_q_rotate(q, s->chi + 3, cols + 7);
  crd_q_rotate(q, s->chi, cols + 10);
}
