/* crdyn tests: the device-resident explicit loop (backend.h ex_* ops) of
 * a device backend (t500 OpenCL, t501 CUDA) against the same steps done
 * here with the explicit_node.h functions and the CPU backend's forces, in
 * backend.h's order: 6 steps in two calls (2, then 4: the factor tables
 * grow, the status is reset) from a tumbled, moving state with a nodal
 * load whose factor is 0 in one step, its work and one prescribed
 * translation; state, rates, pairs, measures and work to 1e-12 (TOL).
 * And an element failure: the step, the element and the CPU's message.
 * Include after backend_util.h. */
#ifndef CRDYN_TEST_RESIDENT_UTIL_H
#define CRDYN_TEST_RESIDENT_UTIL_H

#include "crdyn/explicit_node.h"

static int ru_same_bits(const double *a, const double *b, size_t n) { return !memcmp(a, b, n * sizeof *a); }

#define EX_K 6   /* steps of one ex_steps call */

typedef struct ex_case {
  double *d, *p, *v, *w, *a, *wa, *mlump, *plump;
  int *l;
  int fe_eq[3], fe_load[3], w_idx[3], w_load[3], pres_idx[1];
  double fe_a[3], fe_b[3], w_a[3], w_b[3], fac[EX_K], facw[EX_K], pres[EX_K];
  double dt, s, wext;
  int nfe;
} ex_case;

/* The steps of backend.h's order on the host: the reference. */
static int ex_host_steps(crd_problem *pb, crd_backend *cpu, ex_case *c, crd_ex_measure *ms)
{
  size_t nn = (size_t)pb->nn;
  double *vh = calloc(3 * nn, 8), *wh = calloc(3 * nn, 8), *dprev = calloc(3 * nn, 8), *F = calloc((size_t)pb->neq, 8);
  double dt = c->dt, U = 0.0;
  int rc = 0;
  for (int j = 0; j < EX_K && !rc; ++j) {
    for (size_t i = 0; i < nn; ++i) {
      int eq[5];
      for (int k = 0; k < 5; ++k) eq[k] = pb->eq[5 * i + k];
      for (int q = 0; q < 3; ++q) {
        vh[3 * i + q] = crd_exn_half(c->v[3 * i + q], c->a[3 * i + q], dt);
        wh[3 * i + q] = crd_exn_half(c->w[3 * i + q], c->wa[3 * i + q], dt);
        dprev[3 * i + q] = pb->d[3 * i + q];
      }
      crd_exn_advance(eq, dt, vh + 3 * i, pb->d + 3 * i, pb->p + 3 * i, pb->l[i], wh + 3 * i);
      if (!pb->locked[i]) pb->l[i] = crd_exn_switch(pb->p + 3 * i, pb->l[i]);
      for (int q = 0; q < 3; ++q) c->w[3 * i + q] = crd_exn_half(wh[3 * i + q], c->wa[3 * i + q], dt);
    }
    pb->d[c->pres_idx[0]] = c->pres[j];
    if ((rc = cpu->ops->eval(cpu, pb, 0, F, &U))) break;
    for (size_t i = 0; i < nn; ++i) {
      int eq[5];
      double fr[5];
      for (int k = 0; k < 5; ++k) {
        int q = eq[k] = pb->eq[5 * i + k];
        fr[k] = 0.0;
        if (q < 0) continue;
        double fx = 0.0;
        for (int t = 0; t < c->nfe; ++t)
          if (c->fe_eq[t] == q && c->fac[j] != 0.0) fx += c->fac[j] * c->fe_a[t] * c->fe_b[t];
        fr[k] = fx - F[q];
      }
      crd_exn_accel(eq, fr, c->mlump[i], c->s * c->plump[i], pb->p + 3 * i, pb->l[i], c->w + 3 * i, c->a + 3 * i,
                    c->wa + 3 * i);
      for (int q = 0; q < 3; ++q) {
        c->v[3 * i + q] = crd_exn_half(vh[3 * i + q], c->a[3 * i + q], dt);
        c->w[3 * i + q] = crd_exn_half(wh[3 * i + q], c->wa[3 * i + q], dt);
      }
    }
    double W = 0.0;
    for (int t = 0; t < 3; ++t) W += c->facw[j] * c->w_a[t] * c->w_b[t] * (pb->d[c->w_idx[t]] - dprev[c->w_idx[t]]);
    c->wext += W;
  }
  memset(ms, 0, sizeof *ms);
  ms->wext = c->wext;
  ms->strain = U;
  for (size_t i = 0; i < nn; ++i) {
    double x[3], o[7];
    for (int q = 0; q < 3; ++q) x[q] = pb->m->x[3 * i + q] + pb->d[3 * i + q];
    crd_exn_measure(c->mlump[i], c->s * c->plump[i], x, c->v + 3 * i, pb->p + 3 * i, c->w + 3 * i, o);
    ms->kinetic += o[0];
    for (int q = 0; q < 3; ++q) {
      ms->L[q] += o[1 + q];
      ms->J[q] += o[4 + q];
    }
  }
  free(vh); free(wh); free(dprev); free(F);
  return rc;
}

static double rel_vec(const double *a, const double *b, size_t n)
{
  double da = 0.0, ma = 0.0;
  for (size_t t = 0; t < n; ++t) {
    if (fabs(a[t] - b[t]) > da) da = fabs(a[t] - b[t]);
    if (fabs(a[t]) > ma) ma = fabs(a[t]);
  }
  return ma > 0 ? da / ma : da;
}

static void resident_parity(crd_problem *pb, crd_backend *cpu, crd_backend *cu, const double *Q, const char *mode)
{
  if (!cu->ops->ex) {
    T_OK(0, "[%s] the CUDA backend has the resident explicit ops", mode);
    return;
  }
  size_t nn = (size_t)pb->nn;
  srand(11);
  tumble(pb, Q, 0.01);
  ex_case c;
  memset(&c, 0, sizeof c);
  double **arr[] = {&c.v, &c.w, &c.a, &c.wa};
  for (int k = 0; k < 4; ++k) {
    *arr[k] = calloc(3 * nn, 8);
    for (size_t t = 0; t < 3 * nn; ++t) (*arr[k])[t] = (k < 2 ? 0.2 : 2.0) * eu_rand();
  }
  c.mlump = calloc(nn, 8);
  c.plump = calloc(nn, 8);
  for (size_t i = 0; i < nn; ++i) {
    c.mlump[i] = 0.05 * (1.0 + 0.3 * eu_rand());
    c.plump[i] = 1e-4 * (1.0 + 0.3 * eu_rand());
  }
  c.l = malloc(nn * sizeof(int));
  c.d = dup(pb->d, 3 * nn);
  c.p = dup(pb->p, 3 * nn);
  memcpy(c.l, pb->l, nn * sizeof(int));
  int tip = pb->nn - 1; /* a free corner */
  c.nfe = 0;
  for (int q = 0; q < 3; ++q) {
    if (pb->eq[5 * tip + q] >= 0) {
      c.fe_eq[c.nfe] = pb->eq[5 * tip + q]; c.fe_load[c.nfe] = 0; c.fe_a[c.nfe] = 0.3 + q; c.fe_b[c.nfe] = 1.0;
      ++c.nfe;
    }
    c.w_idx[q] = 3 * tip + q; c.w_load[q] = 0; c.w_a[q] = 0.3 + q; c.w_b[q] = 1.0;
  }
  c.pres_idx[0] = 3 * (pb->nn / 2) + 2;
  for (int j = 0; j < EX_K; ++j) {
    c.fac[j] = j == 2 ? 0.0 : 1.0 + 0.1 * j;  /* one step without the load */
    c.facw[j] = 0.5 * (j ? c.fac[j - 1] : 1.0) + 0.5 * c.fac[j];
    c.pres[j] = pb->d[c.pres_idx[0]] + 1e-5 * (j + 1);
  }
  c.dt = 2e-4;
  c.s = 1.5;
  c.wext = 0.25;
  crd_ex_setup su;
  memset(&su, 0, sizeof su);
  su.st.d = c.d; su.st.p = c.p; su.st.l = c.l; su.st.v = c.v; su.st.w = c.w; su.st.a = c.a; su.st.wa = c.wa;
  su.mlump = c.mlump; su.plump = c.plump; su.rot_scale = c.s; su.dt = c.dt; su.wext = c.wext;
  su.locked = pb->locked; su.nload = 1;
  su.nfe = c.nfe; su.fe_eq = c.fe_eq; su.fe_load = c.fe_load; su.fe_a = c.fe_a; su.fe_b = c.fe_b;
  su.nw = 3; su.w_idx = c.w_idx; su.w_load = c.w_load; su.w_a = c.w_a; su.w_b = c.w_b;
  su.npres = 1; su.pres_idx = c.pres_idx;
  crd_ex_measure mc, mh;
  int rc = cu->ops->ex->begin(cu, pb, &su);
  /* two calls, 2 steps then the other 4 (the factor tables grow; the status is reset per call) */
  crd_ex_steps_in in1 = {2, c.fac, c.facw, c.pres}, in2 = {EX_K - 2, c.fac + 2, c.facw + 2, c.pres + 2};
  if (!rc) rc = cu->ops->ex->steps(cu, &in1);
  if (!rc) rc = cu->ops->ex->measure(cu, &mc);
  if (!rc) rc = cu->ops->ex->steps(cu, &in2);
  if (!rc) rc = cu->ops->ex->measure(cu, &mc);
  /* the device state into fresh arrays, the host's steps on pb and c */
  double *dv[4];
  for (int k = 0; k < 4; ++k) dv[k] = calloc(3 * nn, 8);
  double *dd = calloc(3 * nn, 8), *dp = calloc(3 * nn, 8);
  int *dl = calloc(nn, sizeof(int));
  crd_ex_state got = {dd, dp, dv[0], dv[1], dv[2], dv[3], dl};
  if (!rc) rc = cu->ops->ex->sync(cu, &got);
  cu->ops->ex->end(cu);
  T_OK(rc == 0, "[%s] resident explicit loop: %d steps on the device%s%s", mode, EX_K, rc ? ": " : "",
       rc ? crd_err_message() : "");
  int rh = ex_host_steps(pb, cpu, &c, &mh);
  T_OK(rh == 0, "[%s] the same steps on the host", mode);
  if (!rc && !rh) {
    double r[7] = {rel_vec(pb->d, dd, 3 * nn), rel_vec(pb->p, dp, 3 * nn), rel_vec(c.v, dv[0], 3 * nn),
                   rel_vec(c.w, dv[1], 3 * nn), rel_vec(c.a, dv[2], 3 * nn), rel_vec(c.wa, dv[3], 3 * nn), 0};
    double worst = 0.0;
    for (int k = 0; k < 6; ++k) worst = fmax(worst, r[k]);
    int lsame = !memcmp(pb->l, dl, nn * sizeof(int)), bits = ru_same_bits(pb->d, dd, 3 * nn) && ru_same_bits(c.v, dv[0], 3 * nn);
    T_OK(worst <= TOL && lsame, "[%s] resident state after %d steps: d %.1e, p %.1e, v %.1e, w %.1e, a %.1e, wa %.1e "
         "relative, pairs %s%s", mode, EX_K, r[0], r[1], r[2], r[3], r[4], r[5], lsame ? "equal" : "DIFFER",
         bits ? " (d, v bitwise)" : "");
    double mhv[9] = {mh.kinetic, mh.strain, mh.L[0], mh.L[1], mh.L[2], mh.J[0], mh.J[1], mh.J[2], mh.wext};
    double mcv[9] = {mc.kinetic, mc.strain, mc.L[0], mc.L[1], mc.L[2], mc.J[0], mc.J[1], mc.J[2], mc.wext};
    double rm = 0.0;
    for (int k = 0; k < 9; ++k) rm = fmax(rm, fabs(mhv[k] - mcv[k]) / fmax(fabs(mhv[k]), 1e-300));
    T_OK(rm <= TOL && mc.bad_node < 0 && mc.bad_step < 0, "[%s] resident measures (K, U, L, J, W_ext) to %.1e "
         "relative%s (K %.6g, W_ext %.6g); no bad node or element", mode, rm, ru_same_bits(mhv, mcv, 9) ? ", bitwise" : "",
         mc.kinetic, mc.wext);
  }
  for (int k = 0; k < 4; ++k) free(dv[k]);
  free(dd); free(dp); free(dl);
  free(c.d); free(c.p); free(c.l); free(c.v); free(c.w); free(c.a); free(c.wa); free(c.mlump); free(c.plump);
}

/* The state of the inverted-element check (rates 0, no loads): the first
 * step's element evaluation fails; the resident loop must say so at step
 * 0 with the CPU's element and message (rc_cpu, msg_cpu of its eval). */
static void resident_failure(crd_problem *pb, crd_backend *dev, int rc_cpu, const char *msg_cpu)
{
  if (!dev->ops->ex) {
    T_OK(0, "the %s backend has the resident explicit ops", dev->ops->name);
    return;
  }
  size_t nn = (size_t)pb->nn;
  double *z = calloc(3 * nn, 8), *one = calloc(nn, 8), fac[3] = {0, 0, 0}, pres[3] = {0, 0, 0};
  for (size_t i = 0; i < nn; ++i) one[i] = 1.0;
  double *d = dup(pb->d, 3 * nn), *p = dup(pb->p, 3 * nn), *v = dup(z, 3 * nn), *w = dup(z, 3 * nn),
         *a = dup(z, 3 * nn), *wa = dup(z, 3 * nn);
  int *l = malloc(nn * sizeof(int));
  memcpy(l, pb->l, nn * sizeof(int));
  crd_ex_setup su;
  memset(&su, 0, sizeof su);
  su.st.d = d; su.st.p = p; su.st.l = l; su.st.v = v; su.st.w = w; su.st.a = a; su.st.wa = wa;
  su.mlump = one; su.plump = one; su.rot_scale = 1.0; su.dt = 1e-4; su.locked = pb->locked; su.nload = 0;
  crd_ex_steps_in in = {3, fac, fac, pres};
  crd_ex_measure ms;
  int rc = dev->ops->ex->begin(dev, pb, &su);
  if (!rc) rc = dev->ops->ex->steps(dev, &in);
  if (!rc) rc = dev->ops->ex->measure(dev, &ms);
  dev->ops->ex->end(dev);
  if (rc) {
    T_OK(0, "resident loop with an inverted element: %s", crd_err_message());
  } else {
    int rcm = ms.bad_elem >= 0 ? crd_backend_elem_error(pb, ms.bad_elem, ms.bad_kind) : 0;
    T_OK(ms.bad_step == 0 && rcm == rc_cpu && !strcmp(crd_err_message(), msg_cpu),
         "resident loop: the inverted element stops step %d (of 3) with the CPU's message: '%s'", ms.bad_step,
         ms.bad_elem >= 0 ? crd_err_message() : "(no failure reported)");
  }
  free(z); free(one); free(d); free(p); free(v); free(w); free(a); free(wa); free(l);
}

#endif
