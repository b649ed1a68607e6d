/* Backend parity, element by element, CUDA against the CPU (the checks of
 * t500-backend.c for OpenCL) on a distorted, curved, partly supported mesh
 * in a tumbled and deformed state, with both device assemblies:
 *  - static/explicit evaluation: f_e, k_e (packed), u_e, assembled F and K,
 *    total energy and f_e norm; force-only evaluation;
 *  - implicit midpoint evaluation: fg_e, fin_e, K_eff,e, E_e, Fi, Fin, K;
 *  - deterministic assembly: two evaluations give the same bits; atomic and
 *    deterministic agree to 1e-12;
 *  - the same with one thread per element (CRDYN_CUDA_LAYOUT=thread);
 *  - an inverted element is reported by both with the same message;
 *  - the resident explicit loop (ex_* ops), serial and tree sums: 6 steps
 *    (two calls) from a tumbled, moving state with a nodal load, its work and one
 *    prescribed translation, against the same steps done here with the
 *    explicit_node.h functions and the CPU backend's forces (backend.h's
 *    order): state, rates, measures and work to 1e-12;
 *  - the cusolver device Cholesky against CHOLMOD on the assembled K
 *    (solution to 1e-10 relative), and a matrix that is not positive
 *    definite reported as CRD_WARN_NOT_POSDEF with an equation.
 * Criterion: 1e-12 relative to the element's (vector's) largest entry.
 * Without a CUDA device (or in a build without CUDA) every check is
 * reported as skipped with the reason, unless CRDYN_REQUIRE_CUDA=1 (the
 * GPU check, profiling/gpu_check.sh), which makes it a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "elem_util.h"
#include "crdyn/backend.h"
#include "crdyn/error.h"
#include "crdyn/explicit_node.h"
#include "crdyn/problem.h"
#include "crdyn/solver.h"

#include "backend_util.h"

static int same_bits(const double *a, const double *b, size_t n) { return !memcmp(a, b, n * sizeof *a); }

/* Static/explicit evaluation by the CPU and by cu, compared. */
static void static_parity(crd_problem *pb, crd_backend *cpu, crd_backend *cu, const char *mode)
{
  size_t ne = (size_t)pb->ne, neq = (size_t)pb->neq, nnz = (size_t)pb->K->nnz;
  double *F1 = calloc(neq, 8), *F2 = calloc(neq, 8), *F3 = calloc(neq, 8), U1 = 0, U2 = 0, r;
  int rc = cpu->ops->eval(cpu, pb, 1, F1, &U1);
  T_OK(rc == 0, "[%s] CPU evaluation", mode);
  double *fe1 = dup(pb->fe, 20 * ne), *ke1 = dup(pb->ke, 210 * ne), *ue1 = dup(pb->ue, ne), *K1 = dup(pb->K->val, nnz);
  double fn1 = pb->fe_norm;
  memset(pb->fe, 0, 8 * 20 * ne);
  memset(pb->ke, 0, 8 * 210 * ne);
  memset(pb->K->val, 0, 8 * nnz);
  rc = cu->ops->eval(cu, pb, 1, F2, &U2);
  T_OK(rc == 0, "[%s] CUDA evaluation%s%s", mode, rc ? ": " : "", rc ? crd_err_message() : "");
  long same = 0;
  r = block_rel(fe1, pb->fe, ne, 20, &same);
  T_OK(r <= TOL, "[%s] element forces f_e: worst element %.2e relative (<= %.0e)", mode, r, TOL);
  r = block_rel(ke1, pb->ke, ne, 210, &same);
  T_OK(r <= TOL, "[%s] element tangents k_e: worst element %.2e relative (<= %.0e)", mode, r, TOL);
  r = block_rel(ue1, pb->ue, 1, ne, NULL);
  T_OK(r <= TOL, "[%s] element strain energies: %.2e relative", mode, r);
  printf("# [%s] %ld of %zu element entries bitwise equal\n", mode, same, 230 * ne);
  r = block_rel(F1, F2, 1, neq, NULL);
  T_OK(r <= TOL, "[%s] assembled F: %.2e relative", mode, r);
  r = block_rel(K1, pb->K->val, 1, nnz, NULL);
  T_OK(r <= TOL, "[%s] assembled K values: %.2e relative", mode, r);
  T_OK(fabs(U1 - U2) <= TOL * fabs(U1) && fabs(fn1 - pb->fe_norm) <= TOL * fn1,
       "[%s] total energy %.6g and f_e norm agree", mode, U1);
  double *K2 = dup(pb->K->val, nnz), U3 = 0;
  rc = cu->ops->eval(cu, pb, 1, F3, &U3);
  if (cu->deterministic)
    T_OK(rc == 0 && same_bits(F2, F3, neq) && same_bits(K2, pb->K->val, nnz) && U2 == U3,
         "[%s] a second evaluation gives the same bits (F, K, energy)", mode);
  else
    T_OK(rc == 0 && block_rel(F2, F3, 1, neq, NULL) <= TOL && block_rel(K2, pb->K->val, 1, nnz, NULL) <= TOL,
         "[%s] a second evaluation agrees to 1e-12", mode);
  rc = cu->ops->eval(cu, pb, 0, F3, &U3);
  r = block_rel(F1, F3, 1, neq, NULL);
  T_OK(rc == 0 && r <= TOL && fabs(U3 - U1) <= TOL * fabs(U1), "[%s] force-only evaluation (explicit): F %.2e relative", mode, r);
  free(F1); free(F2); free(F3); free(fe1); free(ke1); free(ue1); free(K1); free(K2);
}

static void mid_parity(crd_problem *pb, crd_backend *cpu, crd_backend *cu, const char *mode, const double *Q,
                       const double *Qa)
{
  size_t nn = (size_t)pb->nn, ne = (size_t)pb->ne, neq = (size_t)pb->neq, nnz = (size_t)pb->K->nnz;
  double *d0 = calloc(3 * nn, 8), *pa = calloc(3 * nn, 8), *df = calloc(3 * nn, 8), *pf = calloc(3 * nn, 8);
  double *am = calloc(5 * nn, 8), *wam = calloc(3 * nn, 8), *Bs = calloc(6 * nn, 8), *C = calloc(16 * ne, 8);
  tumble(pb, Qa, 0.02);
  memcpy(d0, pb->d, 24 * nn);
  memcpy(pa, pb->p, 24 * nn);
  tumble(pb, Q, 0.02);
  double cf = 0.5, cm = 1.7e3;
  for (size_t k = 0; k < 3 * nn; ++k) {
    df[k] = cf * pb->d[k] + (1 - cf) * d0[k];
    pf[k] = cf * pb->p[k] + (1 - cf) * pa[k];
    wam[k] = eu_rand();
  }
  for (size_t k = 0; k < 5 * nn; ++k) am[k] = eu_rand();
  for (size_t k = 0; k < 6 * nn; ++k) Bs[k] = eu_rand();
  for (size_t k = 0; k < 16 * ne; ++k) C[k] = 0.01 * (1.0 + 0.5 * eu_rand());
  crd_mid_in in = {d0, pa, df, pf, am, wam, Bs, C, cf, cm};
  double *Fi1 = calloc(neq, 8), *Fin1 = calloc(neq, 8), *Fi2 = calloc(neq, 8), *Fin2 = calloc(neq, 8);
  double *fg1 = calloc(20 * ne, 8), *fin1 = calloc(20 * ne, 8), *E1 = calloc(400 * ne, 8);
  double *fg2 = calloc(20 * ne, 8), *fin2 = calloc(20 * ne, 8), *E2 = calloc(400 * ne, 8);
  crd_mid_out o1 = {Fi1, Fin1, fg1, fin1, E1, 0}, o2 = {Fi2, Fin2, fg2, fin2, E2, 0};
  int rc = cpu->ops->eval_mid(cpu, pb, &in, 1, &o1);
  T_OK(rc == 0, "[%s] CPU midpoint evaluation", mode);
  double *ke1 = dup(pb->ke, 210 * ne), *K1 = dup(pb->K->val, nnz), r;
  memset(pb->ke, 0, 8 * 210 * ne);
  rc = cu->ops->eval_mid(cu, pb, &in, 1, &o2);
  T_OK(rc == 0, "[%s] CUDA midpoint evaluation%s%s", mode, rc ? ": " : "", rc ? crd_err_message() : "");
  long same = 0;
  r = block_rel(fg1, fg2, ne, 20, &same);
  T_OK(r <= TOL, "[%s] midpoint element forces fg_e: worst element %.2e relative", mode, r);
  r = block_rel(fin1, fin2, ne, 20, &same);
  T_OK(r <= TOL, "[%s] midpoint inertia forces fin_e: worst element %.2e relative", mode, r);
  r = block_rel(ke1, pb->ke, ne, 210, &same);
  T_OK(r <= TOL, "[%s] K_eff,e: worst element %.2e relative", mode, r);
  r = block_rel(E1, E2, ne, 400, &same);
  T_OK(r <= TOL, "[%s] non-symmetric parts E_e: worst element %.2e relative", mode, r);
  printf("# [%s] %ld of %zu midpoint element entries bitwise equal\n", mode, same, 650 * ne);
  r = fmax(block_rel(Fi1, Fi2, 1, neq, NULL), block_rel(Fin1, Fin2, 1, neq, NULL));
  T_OK(r <= TOL, "[%s] assembled Fi and Fin: %.2e relative", mode, r);
  r = block_rel(K1, pb->K->val, 1, nnz, NULL);
  T_OK(r <= TOL, "[%s] assembled K_eff: %.2e relative", mode, r);
  T_OK(fabs(o1.U - o2.U) <= TOL * fabs(o1.U), "[%s] midpoint energy %.6g agrees", mode, o1.U);
  free(d0); free(pa); free(df); free(pf); free(am); free(wam); free(Bs); free(C); free(ke1); free(K1);
  free(Fi1); free(Fin1); free(Fi2); free(Fin2); free(fg1); free(fin1); free(E1); free(fg2); free(fin2); free(E2);
}

/* cusolver against CHOLMOD on the CPU's K at the reference state (SPD:
 * supported), then on -K (not positive definite). */
static void solver_parity(crd_problem *pb, crd_backend *cpu)
{
  size_t neq = (size_t)pb->neq;
  memset(pb->d, 0, 24 * (size_t)pb->nn);
  memcpy(pb->p, pb->p0, 24 * (size_t)pb->nn);
  crd_problem_switch_pairs(pb);
  double *F = calloc(neq, 8), *b = calloc(neq, 8), *x1 = calloc(neq, 8), *x2 = calloc(neq, 8), U;
  T_OK(cpu->ops->eval(cpu, pb, 1, F, &U) == 0, "reference tangent for the solvers");
  for (size_t i = 0; i < neq; ++i) b[i] = eu_rand();
  crd_solver *ch = NULL, *cs = NULL;
  int rc = crd_solver_create("cusolver", &cs);
  T_OK(rc == 0, "cusolver created%s%s", rc ? ": " : "", rc ? crd_err_message() : "");
  if (rc) { free(F); free(b); free(x1); free(x2); return; }
  rc = crd_solver_create("cholmod", &ch) || crd_solver_analyse(ch, pb->K) || crd_solver_factorize(ch, pb->K) ||
       crd_solver_solve(ch, b, x1);
  T_OK(rc == 0, "CHOLMOD solve");
  rc = crd_solver_analyse(cs, pb->K);
  T_OK(rc == 0, "cusolver analyse (METIS on the host, csrcholAnalysis)%s%s", rc ? ": " : "", rc ? crd_err_message() : "");
  rc = rc ? rc : crd_solver_factorize(cs, pb->K);
  T_OK(rc == 0, "cusolver factorization%s%s", rc ? ": " : "", rc ? crd_err_message() : "");
  rc = rc ? rc : crd_solver_solve(cs, b, x2);
  double r = block_rel(x1, x2, 1, neq, NULL);
  T_OK(rc == 0 && r <= 1e-10, "cusolver solution matches CHOLMOD's: %.2e relative (<= 1e-10)", r);
  rc = crd_solver_factorize(cs, pb->K); /* refactorization, same values */
  rc = rc ? rc : crd_solver_solve(cs, b, x2);
  T_OK(rc == 0 && block_rel(x1, x2, 1, neq, NULL) <= 1e-10, "cusolver refactorization and solve again");
  const crd_solver_stats *st = crd_solver_get_stats(cs);
  T_OK(st->nnz_factor > 0 && st->flops_factor > 0, "cusolver counts: nnz(L) %.4g, %.4g flops", st->nnz_factor,
       st->flops_factor);
  for (int64_t k = 0; k < pb->K->nnz; ++k) pb->K->val[k] = -pb->K->val[k];
  rc = crd_solver_factorize(cs, pb->K);
  int eq = crd_solver_failed_equation(cs);
  T_OK(rc == CRD_WARN_NOT_POSDEF && eq >= 0 && eq < pb->neq, "-K: not positive definite, equation %d: '%s'", eq,
       rc ? crd_err_message() : "(no error)");
  /* indefinite: the front end hands over to CHOLMOD's LDL^T, which factors -K */
  rc = crd_solver_set_indefinite(cs, 1);
  rc = rc ? rc : crd_solver_analyse(cs, pb->K);
  rc = rc ? rc : crd_solver_factorize(cs, pb->K);
  rc = rc ? rc : crd_solver_solve(cs, b, x2);
  for (size_t i = 0; i < neq; ++i) x2[i] = -x2[i];
  T_OK(rc == 0 && block_rel(x1, x2, 1, neq, NULL) <= 1e-10 && strstr(crd_solver_name(cs), "LDL^T"),
       "indefinite: handed over to '%s', -K solved", crd_solver_name(cs));
  crd_solver_destroy(&ch);
  crd_solver_destroy(&cs);
  free(F); free(b); free(x1); free(x2);
}

/* ---- the resident explicit loop ------------------------------------------ */
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

static void resident_parity(crd_problem *pb, crd_backend *cpu, crd_backend *cu, const double *Q, int serial)
{
  const char *mode = serial ? "serial sums" : "tree sums";
  if (!cu->ops->ex_begin || !cu->ops->ex_steps || !cu->ops->ex_measure || !cu->ops->ex_sync || !cu->ops->ex_end) {
    T_OK(0, "[%s] the CUDA backend has the resident explicit ops", mode);
    return;
  }
  size_t nn = (size_t)pb->nn;
  cu->deterministic = serial; /* --deterministic: serial sums */
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
  int rc = cu->ops->ex_begin(cu, pb, &su);
  /* two calls, 2 steps then the other 4 (the factor tables grow; the status is reset per call) */
  crd_ex_steps_in in1 = {2, c.fac, c.facw, c.pres}, in2 = {EX_K - 2, c.fac + 2, c.facw + 2, c.pres + 2};
  if (!rc) rc = cu->ops->ex_steps(cu, &in1);
  if (!rc) rc = cu->ops->ex_measure(cu, &mc);
  if (!rc) rc = cu->ops->ex_steps(cu, &in2);
  if (!rc) rc = cu->ops->ex_measure(cu, &mc);
  /* the device state into fresh arrays, the host's steps on pb and c */
  double *dv[4];
  for (int k = 0; k < 4; ++k) dv[k] = calloc(3 * nn, 8);
  double *dd = calloc(3 * nn, 8), *dp = calloc(3 * nn, 8);
  int *dl = calloc(nn, sizeof(int));
  crd_ex_state got = {dd, dp, dv[0], dv[1], dv[2], dv[3], dl};
  if (!rc) rc = cu->ops->ex_sync(cu, &got);
  cu->ops->ex_end(cu);
  T_OK(rc == 0, "[%s] resident explicit loop: %d steps on the device%s%s", mode, EX_K, rc ? ": " : "",
       rc ? crd_err_message() : "");
  int rh = ex_host_steps(pb, cpu, &c, &mh);
  T_OK(rh == 0, "[%s] the same steps on the host", mode);
  if (!rc && !rh) {
    double r[7] = {rel_vec(pb->d, dd, 3 * nn), rel_vec(pb->p, dp, 3 * nn), rel_vec(c.v, dv[0], 3 * nn),
                   rel_vec(c.w, dv[1], 3 * nn), rel_vec(c.a, dv[2], 3 * nn), rel_vec(c.wa, dv[3], 3 * nn), 0};
    double worst = 0.0;
    for (int k = 0; k < 6; ++k) worst = fmax(worst, r[k]);
    int lsame = !memcmp(pb->l, dl, nn * sizeof(int)), bits = same_bits(pb->d, dd, 3 * nn) && same_bits(c.v, dv[0], 3 * nn);
    T_OK(worst <= TOL && lsame, "[%s] resident state after %d steps: d %.1e, p %.1e, v %.1e, w %.1e, a %.1e, wa %.1e "
         "relative, pairs %s%s", mode, EX_K, r[0], r[1], r[2], r[3], r[4], r[5], lsame ? "equal" : "DIFFER",
         bits ? " (d, v bitwise)" : "");
    double mhv[9] = {mh.kinetic, mh.strain, mh.L[0], mh.L[1], mh.L[2], mh.J[0], mh.J[1], mh.J[2], mh.wext};
    double mcv[9] = {mc.kinetic, mc.strain, mc.L[0], mc.L[1], mc.L[2], mc.J[0], mc.J[1], mc.J[2], mc.wext};
    double rm = 0.0;
    for (int k = 0; k < 9; ++k) rm = fmax(rm, fabs(mhv[k] - mcv[k]) / fmax(fabs(mhv[k]), 1e-300));
    T_OK(rm <= TOL && mc.bad_node < 0 && mc.bad_step < 0, "[%s] resident measures (K, U, L, J, W_ext) to %.1e "
         "relative%s (K %.6g, W_ext %.6g); no bad node or element", mode, rm, same_bits(mhv, mcv, 9) ? ", bitwise" : "",
         mc.kinetic, mc.wext);
  }
  for (int k = 0; k < 4; ++k) free(dv[k]);
  free(dd); free(dp); free(dl);
  free(c.d); free(c.p); free(c.l); free(c.v); free(c.w); free(c.a); free(c.wa); free(c.mlump); free(c.plump);
}

int main(void)
{
  srand(5);
  char *js = mesh_case();
  crd_model *m = NULL;
  crd_problem *pb = NULL;
  crd_backend *cu = NULL;
  int rc = crd_case_load_string(js, "t501-mesh.json", &m);
  free(js);
  if (rc || crd_problem_create(m, 2, &pb)) {
    T_OK(0, "mesh and problem: %s", crd_err_message());
    return T_DONE();
  }
  rc = crd_backend_create("cuda", -1, pb, &cu);
  if (rc) {
    const char *req = getenv("CRDYN_REQUIRE_CUDA"); /* the GPU check: a skip is a failure */
    int must = req && !strcmp(req, "1");
    printf("%sok 1 %s CUDA backend parity: %s\n1..1\n", must ? "not " : "", must ? "- (CRDYN_REQUIRE_CUDA=1)" : "# SKIP",
           crd_err_message());
    crd_problem_destroy(&pb);
    crd_model_destroy(&m);
    return must;
  }
  T_OK(1, "CUDA backend created: %s (%d elements, %d equations)", cu->device_name, m->ne, pb->neq);
  cu->keep_elements = 1;
  crd_backend *cpu = pb->be;
  double ax[3] = {0.3, -0.8, 0.5}, Q[9], Qa[9];
  eu_rot(ax, 2.6, Q);
  eu_rot(ax, 2.45, Qa);
  for (int det = 0; det < 2; ++det) {
    const char *mode = det ? "deterministic" : "atomic";
    cu->deterministic = det;
    srand(7);
    tumble(pb, Q, 0.02);
    int nl = 0;
    for (int i = 0; i < pb->nn; ++i) nl += pb->l[i] != 2;
    T_OK(nl > 0, "[%s] tumbled state: %d of %d nodes have switched their independent pair", mode, nl, pb->nn);
    static_parity(pb, cpu, cu, mode);
    mid_parity(pb, cpu, cu, mode, Q, Qa);
  }
  /* the one-thread-per-element layout (CRDYN_CUDA_LAYOUT=thread), atomic */
  setenv("CRDYN_CUDA_LAYOUT", "thread", 1);
  crd_backend *cut = NULL;
  rc = crd_backend_create("cuda", -1, pb, &cut);
  unsetenv("CRDYN_CUDA_LAYOUT");
  T_OK(rc == 0, "CUDA backend, one thread per element: %s", rc ? crd_err_message() : cut->device_name);
  if (!rc) {
    cut->keep_elements = 1;
    srand(7);
    tumble(pb, Q, 0.02);
    static_parity(pb, cpu, cut, "thread layout");
    mid_parity(pb, cpu, cut, "thread layout", Q, Qa);
    crd_backend_destroy(&cut);
  }
  /* an inverted element: the same report */
  size_t nn = (size_t)pb->nn;
  double *F1 = calloc((size_t)pb->neq, 8), *F2 = calloc((size_t)pb->neq, 8), U1, U2;
  memset(pb->d, 0, 24 * nn);
  memcpy(pb->p, pb->p0, 24 * nn);
  crd_problem_switch_pairs(pb);
  int nd = m->quads[4 * 10 + 2];
  for (int c = 0; c < 2; ++c) pb->d[3 * nd + c] = 1.6 * (m->x[3 * m->quads[4 * 10] + c] - m->x[3 * nd + c]);
  char msg1[512];
  int rc1 = cpu->ops->eval(cpu, pb, 0, F1, &U1);
  snprintf(msg1, sizeof msg1, "%s", crd_err_message());
  int rc2 = cu->ops->eval(cu, pb, 0, F2, &U2);
  T_OK(rc1 == CRD_WARN_ELEM_INVERTED && rc2 == rc1 && !strcmp(msg1, crd_err_message()),
       "inverted element reported alike: '%s'", msg1);
  free(F1); free(F2);
  resident_parity(pb, cpu, cu, Q, 1);
  resident_parity(pb, cpu, cu, Q, 0);
  solver_parity(pb, cpu);
  crd_backend_destroy(&cu);
  crd_problem_destroy(&pb);
  crd_model_destroy(&m);
  return T_DONE();
}
