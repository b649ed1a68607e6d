/* Backend parity, element by element, CUDA against the CPU (the checks of
 * t500-backend.c for OpenCL) on a distorted, curved, partly supported mesh
 * in a tumbled and deformed state, with both device assemblies:
 *  - static/explicit evaluation: f_e, k_e (packed), u_e, assembled F and K,
 *    total energy and f_e norm; force-only evaluation;
 *  - implicit midpoint evaluation (cf = 1/2, the energy correction on):
 *    fg_e, fin_e, K_eff,e, E_e, Fi, Fin, K, then force-only, in the
 *    tumbled state and in that of a first Newton iteration from rest;
 *  - deterministic assembly: two evaluations give the same bits; atomic and
 *    deterministic agree to 1e-12;
 *  - the default layout splits each element over a block (elem_split.h);
 *    the same checks with one thread per element (CRDYN_CUDA_LAYOUT=thread)
 *    and with thread 0 of a block doing the element (thread0);
 *  - an inverted element is reported by both with the same message;
 *  - the resident explicit loop (ex_* ops), serial and tree sums, with the
 *    lean force kernel (the default) and, serial, the element kernel
 *    (CRDYN_CUDA_EX_FORCE=elem); an inverted element stops both: 6 steps
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
#include "crdyn/problem.h"
#include "crdyn/solver.h"

#include "backend_util.h"
#include "resident_util.h"

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

/* Midpoint evaluation (cf = 1/2: the energy correction is on) by the CPU
 * and by cu, tangent and force-only, compared.  Q, Qa: the rotations of
 * the states b and a (tumble(), with random bases Bs and a dissipative
 * stress xi = 0.05); Q NULL: the state of a first Newton iteration from
 * rest (a the reference state, b a displacement and a turn of the normals
 * of 1e-5, xi = 0, the driver's own bases), where most elements' step is
 * nearly rigid and the correction works on small differences. */
static void mid_parity(crd_problem *pb, crd_backend *cpu, crd_backend *cu, const char *mode, const double *Q,
                       const double *Qa)
{
  size_t nn = (size_t)pb->nn, ne = (size_t)pb->ne, neq = (size_t)pb->neq, nnz = (size_t)pb->K->nnz;
  double *d0 = calloc(3 * nn, 8), *pa = calloc(3 * nn, 8), *df = calloc(3 * nn, 8), *pf = calloc(3 * nn, 8);
  double *am = calloc(5 * nn, 8), *wam = calloc(3 * nn, 8), *Bs = calloc(6 * nn, 8);
  static double *C; /* the mass coefficients: constant over a run (backend.h), the device keeps its copy */
  if (!C) {
    C = calloc(16 * ne, 8);
    for (size_t k = 0; k < 16 * ne; ++k) C[k] = 0.01 * (1.0 + 0.5 * eu_rand());
  }
  char what[96];
  snprintf(what, sizeof what, "%s%s", mode, Q ? "" : ", first iteration from rest");
  mode = what;
  if (Q) {
    tumble(pb, Qa, 0.02);
    memcpy(d0, pb->d, 24 * nn);
    memcpy(pa, pb->p, 24 * nn);
    tumble(pb, Q, 0.02);
  } else {
    memcpy(pa, pb->p0, 24 * nn); /* d0 = 0 */
    for (size_t k = 0; k < 3 * nn; ++k) {
      pb->d[k] = 1e-5 * eu_rand();
      pb->p[k] = pb->p0[k] + 1e-5 * eu_rand();
    }
    for (size_t i = 0; i < nn; ++i) eu_normalize(pb->p + 3 * i);
    crd_problem_switch_pairs(pb);
  }
  double cf = 0.5, cm = 1.7e3;
  for (size_t k = 0; k < 3 * nn; ++k) {
    df[k] = cf * pb->d[k] + (1 - cf) * d0[k];
    pf[k] = cf * pb->p[k] + (1 - cf) * pa[k];
    wam[k] = eu_rand();
  }
  for (size_t k = 0; k < 5 * nn; ++k) am[k] = eu_rand();
  if (Q)
    for (size_t k = 0; k < 6 * nn; ++k) Bs[k] = eu_rand();
  else
    for (size_t i = 0; i < nn; ++i) /* the driver's bases (implicit.c build_state) */
      crd_dir_mid_basis(pb->p + 3 * i, pb->l[i], pf + 3 * i, Bs + 6 * i);
  crd_mid_in in = {d0, pa, df, pf, am, wam, Bs, C, cf, cm, Q ? 0.05 : 0.0}; /* xi: the dissipative stress */
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
  /* force-only (the first evaluation of every Newton iteration after the first, implicit.c) */
  memset(fg2, 0, 8 * 20 * ne);
  memset(fin2, 0, 8 * 20 * ne);
  rc = cu->ops->eval_mid(cu, pb, &in, 0, &o2);
  T_OK(rc == 0, "[%s] CUDA force-only midpoint evaluation%s%s", mode, rc ? ": " : "", rc ? crd_err_message() : "");
  r = fmax(block_rel(fg1, fg2, ne, 20, NULL), block_rel(fin1, fin2, ne, 20, NULL));
  T_OK(r <= TOL, "[%s] force-only: fg_e and fin_e %.2e relative", mode, r);
  r = fmax(block_rel(Fi1, Fi2, 1, neq, NULL), block_rel(Fin1, Fin2, 1, neq, NULL));
  T_OK(r <= TOL && fabs(o1.U - o2.U) <= TOL * fabs(o1.U), "[%s] force-only: Fi, Fin %.2e relative, energy", mode, r);
  free(d0); free(pa); free(df); free(pf); free(am); free(wam); free(Bs); free(ke1); free(K1);
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
    mid_parity(pb, cpu, cu, mode, NULL, NULL);
  }
  /* the other layouts (CRDYN_CUDA_LAYOUT=thread, thread0), atomic */
  const char *lays[2] = {"thread", "thread0"};
  for (int il = 0; il < 2; ++il) {
    char what[64];
    snprintf(what, sizeof what, "%s layout", lays[il]);
    setenv("CRDYN_CUDA_LAYOUT", lays[il], 1);
    crd_backend *cut = NULL;
    rc = crd_backend_create("cuda", -1, pb, &cut);
    unsetenv("CRDYN_CUDA_LAYOUT");
    T_OK(rc == 0, "CUDA backend, %s: %s", what, rc ? crd_err_message() : cut->device_name);
    if (!rc) {
      cut->keep_elements = 1;
      srand(7);
      tumble(pb, Q, 0.02);
      static_parity(pb, cpu, cut, what);
      mid_parity(pb, cpu, cut, what, Q, Qa);
      mid_parity(pb, cpu, cut, what, NULL, NULL);
      crd_backend_destroy(&cut);
    }
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
  /* the resident loop's forces: the lean kernel (default) and the
   * layout's element kernel (CRDYN_CUDA_EX_FORCE=elem) */
  setenv("CRDYN_CUDA_EX_FORCE", "elem", 1);
  crd_backend *cue = NULL;
  rc = crd_backend_create("cuda", -1, pb, &cue);
  unsetenv("CRDYN_CUDA_EX_FORCE");
  T_OK(rc == 0 && !strstr(cue->device_name, "lean") && strstr(cu->device_name, "lean"),
       "explicit forces by the lean kernel by default ('%s'), by the element kernel with CRDYN_CUDA_EX_FORCE=elem",
       cu->device_name);
  resident_failure(pb, cu, rc1, msg1);
  if (cue) resident_failure(pb, cue, rc1, msg1);
  /* serial sums (--deterministic) and the tree sums (default) */
  cu->deterministic = 1;
  resident_parity(pb, cpu, cu, Q, "serial sums");
  cu->deterministic = 0;
  resident_parity(pb, cpu, cu, Q, "tree sums");
  if (cue) {
    cue->deterministic = 1;
    resident_parity(pb, cpu, cue, Q, "serial sums, element kernel");
    crd_backend_destroy(&cue);
  }
  const char *emu = getenv("CRDYN_CUDA_EMU"); /* tests/cli/cuda_emu.sh: no cuSOLVER behind the emulation */
  if (emu && !strcmp(emu, "1")) printf("ok %d # SKIP cusolver parity: CUDA host emulation\n", ++t_run);
  else solver_parity(pb, cpu);
  crd_backend_destroy(&cu);
  crd_problem_destroy(&pb);
  crd_model_destroy(&m);
  return T_DONE();
}
