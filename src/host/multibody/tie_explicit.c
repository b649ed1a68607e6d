/* crdyn: the tied rigid bodies in explicit stages (tie.h has the
 * formulation, docs/rigid_bodies.md the derivation). */
#include <math.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/loads.h"
#include "crdyn/dualquat.h"
#include "crdyn/model.h"
#include "crdyn/rigid_body.h"
#include "crdyn/tie.h"
#include "tie_priv.h"

/* ---- explicit stages ----------------------------------------------------
 * The body and the lumped masses of its tied nodes form one rigid body
 * (tie.h): mass, first moment and inertia about Q in body axes, the
 * tied nodes' director inertia s P_a |p'|^2 / 2 = w^T s P_a (I - p p^T) w / 2
 * included.  Newton-Euler in body axes (rigid_body.h), P' = ad*_chi P + W,
 * by a central-difference step on the group (a Stormer-Verlet splitting):
 *   P_1/2 = P_n + h/2 P'_n,  chi_1/2 = M^-1 P_1/2,
 *   R_1 = Rot(h R_n w_1/2) R_n,  phi_1 = phi_n + h Rot(h R_n w_1/2 / 2) R_n v_1/2,
 *   (shell forces at the new state)  P_1 = P_1/2 + h/2 P'(chi_1, W_1),
 * the last by a fixed point on chi_1 (the gyroscopic term), as the shell's
 * central difference: explicit, second order.  The triad and its rates (q,
 * v, a) stay the state, so stages of either kind follow one another. */

static void rotmat(const double *q, double *R) /* columns d_1, d_2, d_3 */
{
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) R[3 * k + i] = q[3 + 3 * i + k];
}
static void mat_t_vec(const double *R, const double *v, double *o)
{
  for (int i = 0; i < 3; ++i) o[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}
static void mat_vec(const double *R, const double *v, double *o)
{
  for (int i = 0; i < 3; ++i) o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* chi = M6^-1 P (rotation rows only when Q is held) */
static void ex_velocity(const tie_body *B, const double *P, double *chi)
{
  if (B->fixed) {
    double J[36];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) J[6 * i + j] = B->M6[6 * i + j];
    crd_rb_solve(3, J, 6, P, chi);
    chi[3] = chi[4] = chi[5] = 0.0;
  } else
    crd_rb_solve(6, B->M6, 6, P, chi);
}

/* The wrench on the body (with its tied nodes) at the current state: the
 * shell's forces F = Fe - Fi on the tied slots (a pair force as the
 * 3-vector with its components n, m) and the body's loads at time t.
 * Wb: body axes (tau, f); Fl: the loads alone in world axes (force, moment
 * about Q), for their work. */
static void ex_wrench(const crd_ties *t, const tie_body *B, const crd_problem *pb, const double *Fi,
                      const double *Fe, double time, double *Wb, double *Fl)
{
  const crd_model *m = t->m;
  double F[3] = {0, 0, 0}, M[3] = {0, 0, 0}, R[9], c[3];
  rotmat(B->q, R);
  for (int a = 0; a < B->nt; ++a) {
    int n = B->node[a], nn_, mm;
    const int32_t *eq = pb->eq + 5 * n;
    double f[3], g[3] = {0, 0, 0}, r[3];
    for (int k = 0; k < 3; ++k) {
      f[k] = Fe[eq[k]] - Fi[eq[k]];
      r[k] = m->x[3 * n + k] + pb->d[3 * n + k] - B->q[k];
    }
    crd_dir_pair(pb->l[n], &nn_, &mm);
    g[nn_] = Fe[eq[3]] - Fi[eq[3]];
    g[mm] = Fe[eq[4]] - Fi[eq[4]];
    crd_cross3(r, f, c);
    for (int k = 0; k < 3; ++k) F[k] += f[k], M[k] += c[k];
    crd_cross3(pb->p + 3 * n, g, c);
    for (int k = 0; k < 3; ++k) M[k] += c[k];
  }
  double fl[3] = {0, 0, 0}, ml[3] = {0, 0, 0}, rg[3], cg[3];
  for (int k = 0; k < 3; ++k) cg[k] = B->Mb[1 + k] / B->Mb[0];
  mat_vec(R, cg, rg);
  for (int l = 0; l < m->nloads; ++l) {
    const crd_load *L = &m->loads[l];
    double am = crd_amplitude_eval(&L->amp, time, 1.0);
    if (L->kind == CRD_LOAD_BODY && L->body == B->ib) {
      for (int k = 0; k < 3; ++k) fl[k] += am * L->vec[k], ml[k] += am * L->vec2[k];
    } else if (L->kind == CRD_LOAD_GRAVITY) { /* the body's own mass at G (the tied nodes' is in Fe) */
      double fg[3] = {am * B->Mb[0] * L->vec[0], am * B->Mb[0] * L->vec[1], am * B->Mb[0] * L->vec[2]};
      crd_cross3(rg, fg, c);
      for (int k = 0; k < 3; ++k) fl[k] += fg[k], ml[k] += c[k];
    }
  }
  for (int k = 0; k < 3; ++k) {
    F[k] += fl[k], M[k] += ml[k];
    Fl[k] = fl[k], Fl[3 + k] = ml[k];
  }
  mat_t_vec(R, M, Wb);
  mat_t_vec(R, F, Wb + 3);
}

/* the triad's rates from chi and chi' (body axes) */
static void ex_rates(tie_body *B, const double *chi, const double *dchi)
{
  double R[9], w[3], v[3], al[3], aq[3], c[3], t1[3];
  rotmat(B->q, R);
  mat_vec(R, chi, w);
  mat_vec(R, chi + 3, v);
  mat_vec(R, dchi, al);
  crd_cross3(chi, chi + 3, c);
  for (int k = 0; k < 3; ++k) t1[k] = dchi[3 + k] + c[k];
  mat_vec(R, t1, aq);
  for (int k = 0; k < 3; ++k) B->v[k] = v[k], B->a[k] = aq[k];
  for (int i = 0; i < 3; ++i) {
    const double *d = B->q + 3 + 3 * i;
    double wd[3], wwd[3], ad[3];
    crd_cross3(w, d, wd);
    crd_cross3(w, wd, wwd);
    crd_cross3(al, d, ad);
    for (int k = 0; k < 3; ++k) B->v[3 + 3 * i + k] = wd[k], B->a[3 + 3 * i + k] = ad[k] + wwd[k];
  }
}

void crd_ties_ex_begin(crd_ties *t, const crd_problem *pb, const double *mlump, const double *plump, double s,
                       const double *Fi, const double *Fe, double time, int resume)
{
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double m = B->Mb[0], S[3], J[9], E[9];
    for (int k = 0; k < 3; ++k) S[k] = B->Mb[1 + k];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) E[3 * i + j] = B->Mb[4 * (1 + i) + 1 + j];
    double trE = E[0] + E[4] + E[8];
    for (int i = 0; i < 9; ++i) J[i] = -E[i];
    for (int i = 0; i < 3; ++i) J[4 * i] += trE; /* J = tr(E) I - E */
    for (int a = 0; a < B->nt; ++a) {
      int n = B->node[a];
      const double *c = B->c + 3 * a, *e = B->e + 3 * a;
      double ma = mlump[n], pa = s * plump[n], cc = crd_dot3(c, c), ee = crd_dot3(e, e);
      m += ma;
      for (int i = 0; i < 3; ++i) {
        S[i] += ma * c[i];
        for (int j = 0; j < 3; ++j)
          J[3 * i + j] += ma * ((i == j ? cc : 0.0) - c[i] * c[j]) + pa * ((i == j ? ee : 0.0) - e[i] * e[j]);
      }
    }
    double rg[3] = {S[0] / m, S[1] / m, S[2] / m};
    crd_rb_mass6(m, J, rg, NULL, B->M6);
    if (resume) continue;
    double R[9], w[3] = {0, 0, 0}, c[3], Wb[6];
    rotmat(B->q, R);
    for (int i = 0; i < 3; ++i) {
      crd_cross3(B->q + 3 + 3 * i, B->v + 3 + 3 * i, c);
      for (int k = 0; k < 3; ++k) w[k] += 0.5 * c[k];
    }
    mat_t_vec(R, w, B->chi);
    mat_t_vec(R, B->v, B->chi + 3);
    if (B->fixed) B->chi[3] = B->chi[4] = B->chi[5] = 0.0;
    crd_rb_mat6_vec(B->M6, B->chi, B->P);
    ex_wrench(t, B, pb, Fi, Fe, time, Wb, B->Fl);
    crd_rb_ne_dP(B->M6, B->chi, Wb, B->fixed, B->dP);
    double dchi[6];
    ex_velocity(B, B->dP, dchi);
    ex_rates(B, B->chi, dchi);
  }
}

void crd_ties_ex_move(crd_ties *t, crd_problem *pb, double h)
{
  const crd_model *m = t ? t->m : NULL;
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memcpy(B->q0, B->q, sizeof B->q);
    memcpy(B->v0, B->v, sizeof B->v);
    memcpy(B->a0, B->a, sizeof B->a);
    for (int k = 0; k < 6; ++k) B->P[k] += 0.5 * h * B->dP[k];
    ex_velocity(B, B->P, B->chi);
    double R[9], th[3], hth[3], vw[3], vm[3], d[3];
    rotmat(B->q, R);
    mat_vec(R, B->chi, th);
    mat_vec(R, B->chi + 3, vw);
    for (int k = 0; k < 3; ++k) th[k] *= h, hth[k] = 0.5 * th[k];
    tie_rot_apply(hth, vw, vm);
    for (int k = 0; k < 3; ++k) B->q[k] += h * vm[k];
    for (int i = 0; i < 3; ++i) {
      tie_rot_apply(th, B->q + 3 + 3 * i, d);
      memcpy(B->q + 3 + 3 * i, d, sizeof d);
    }
    memcpy(B->th, th, sizeof th); /* for the work of the moments */
    for (int a = 0; a < B->nt; ++a) {
      int n = B->node[a];
      double x[3], p[3];
      tie_pose(B, B->q, a, x, p);
      for (int k = 0; k < 3; ++k) pb->d[3 * n + k] = x[k] - m->x[3 * n + k], pb->p[3 * n + k] = p[k];
    }
  }
}

void crd_ties_ex_finish(crd_ties *t, const crd_problem *pb, const double *Fi, const double *Fe, double time,
                        double h, double *v, double *a, double *w, double *wa)
{
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double Wb[6], Fl[6], th[3], P1[6], dP[6], chi[6];
    memcpy(th, B->th, sizeof th);
    ex_wrench(t, B, pb, Fi, Fe, time, Wb, Fl);
    memcpy(chi, B->chi, sizeof chi);
    for (int it = 0; it < 6; ++it) { /* chi_1 = M^-1 (P_1/2 + h/2 P'(chi_1)) */
      crd_rb_ne_dP(B->M6, chi, Wb, B->fixed, dP);
      for (int k = 0; k < 6; ++k) P1[k] = B->P[k] + 0.5 * h * dP[k];
      ex_velocity(B, P1, chi);
    }
    crd_rb_ne_dP(B->M6, chi, Wb, B->fixed, dP);
    for (int k = 0; k < 6; ++k) B->P[k] += 0.5 * h * dP[k];
    ex_velocity(B, B->P, B->chi);
    memcpy(B->dP, dP, sizeof dP);
    /* work of the body's loads: trapezoidal in the force and moment */
    B->dW = 0.0;
    for (int k = 0; k < 3; ++k)
      B->dW += 0.5 * (B->Fl[k] + Fl[k]) * (B->q[k] - B->q0[k]) + 0.5 * (B->Fl[3 + k] + Fl[3 + k]) * th[k];
    memcpy(B->Fl, Fl, sizeof Fl);
    double dchi[6];
    ex_velocity(B, dP, dchi);
    ex_rates(B, B->chi, dchi);
    /* the reaction: the shell's pull on the body = total wrench minus the loads */
    double R[9], Ww[3], Mw[3];
    rotmat(B->q, R);
    mat_vec(R, Wb + 3, Ww);
    mat_vec(R, Wb, Mw);
    for (int k = 0; k < 3; ++k) B->react[k] = Ww[k] - Fl[k], B->react[3 + k] = Mw[k] - Fl[3 + k];
  }
  crd_ties_node_rates(t, pb, v, a, w, wa);
}
