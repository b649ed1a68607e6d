/* crdyn: modal analysis: natural frequencies and mode shapes about the
 * initial state, K phi = lambda M phi with K the tangent and M the
 * consistent mass (eqs 40-41) of the initial state (ARPACK shift-invert
 * through CHOLMOD, eigen.h).
 *
 * Shift: sigma = 0 when K is positive definite (a supported structure);
 * otherwise (rigid-body modes) sigma = -1e-8 lambda_ref, lambda_ref the
 * smallest diag(K)/diag(M) over the translations, far below the first
 * elastic eigenvalue and far above the round-off of the rigid modes.
 * Rigid-body modes are the eigenvalues below 1e-9 lambda_ref (their
 * frequency is written as 0).  Outputs: modes.csv (mode,eigenvalue,frequency)
 * and frames/mode_NNN.vtu with the shape (translations scaled to a largest
 * component of 1; normals as the change of the unit normal) in result.pvd,
 * whose time value of each mode is its frequency as in modes.csv (ParaView's
 * time slider reads in frequency; the rigid-body modes share time 0, where
 * ParaView shows them together, one block each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/dynamics.h"
#include "crdyn/eigen.h"
#include "crdyn/error.h"
#include "crdyn/timer.h"

static int write_modes_csv(const char *dir, int n, const double *lam, const double *freq)
{
  size_t cap = 64 + 80 * (size_t)n;
  char *txt = malloc(cap), path[2 * CRD_PATH_MAX];
  if (!txt) return CRD_ERR(CRD_ERR_MEM, "out of memory writing modes.csv");
  size_t len = (size_t)snprintf(txt, cap, "mode,eigenvalue,frequency\n");
  for (int k = 0; k < n; ++k) len += (size_t)snprintf(txt + len, cap - len, "%d,%.17g,%.17g\n", k + 1, lam[k], freq[k]);
  snprintf(path, sizeof path, "%s/modes.csv", dir);
  int rc = crd_write_atomic(path, txt);
  free(txt);
  return rc;
}

static int write_shape(crd_run *r, int k, double freq, const double *phi, double *u, double *dp)
{
  crd_problem *pb = r->pb;
  double umax = 0.0;
  for (int i = 0; i < pb->nn; ++i) {
    double ab[2] = {0, 0}, A1[6];
    for (int c = 0; c < 3; ++c) {
      int e = pb->eq[5 * i + c];
      u[3 * i + c] = e >= 0 ? phi[e] : 0.0;
      umax = fmax(umax, fabs(u[3 * i + c]));
    }
    for (int s = 0; s < 2; ++s) {
      int e = pb->eq[5 * i + 3 + s];
      ab[s] = e >= 0 ? phi[e] : 0.0;
    }
    crd_dir_A1(pb->p + 3 * i, pb->l[i], A1);
    for (int c = 0; c < 3; ++c) dp[3 * i + c] = A1[2 * c] * ab[0] + A1[2 * c + 1] * ab[1];
  }
  double s = umax > 0 ? 1.0 / umax : 1.0;
  for (int a = 0; a < 3 * pb->nn; ++a) { u[a] *= s; dp[a] *= s; }
  char rel[64], path[CRD_PATH_MAX + 80];
  snprintf(rel, sizeof rel, "frames/mode_%03d.vtu", k + 1);
  snprintf(path, sizeof path, "%s/%s", r->dir, rel);
  crd_vtu_field pf[2] = {{"mode_shape", 3, u}, {"normal_change", 3, dp}};
  CRD_CALL(crd_vtu_write(path, pb->nn, pb->m->x, pb->ne, pb->m->quads, 2, pf, 0, NULL));
  CRD_CALL(crd_pvd_add(r->pvd, freq, rel));
  r->nframes++;
  return 0;
}

int crd_modal_run(crd_run *r)
{
  crd_problem *pb = r->pb;
  int n = pb->neq, nev = r->m->analysis.modes, rc = 0, nconv = 0;
  if (nev >= n) {
    if (!r->opts->quiet)
      printf("note: $.analysis.modes: %d modes asked, the model has %d equations: %d computed\n", nev, n, n - 1);
    nev = n - 1;
  }
  crd_dyn *dy = NULL;
  crd_csr M = *pb->K;
  double *F = NULL, *lam = NULL, *vec = NULL, *freq = NULL, *u = NULL, *dp = NULL, U, t0 = crd_wtime();
  M.val = NULL;
  if ((rc = crd_dyn_create(pb, &dy)) || (rc = CRD_CALLOC(n, &F)) || (rc = CRD_CALLOC(M.nnz, &M.val)) ||
      (rc = CRD_CALLOC(nev, &lam)) || (rc = CRD_CALLOC((size_t)n * nev, &vec)) || (rc = CRD_CALLOC(nev, &freq)) ||
      (rc = CRD_CALLOC(3 * (size_t)pb->nn, &u)) || (rc = CRD_CALLOC(3 * (size_t)pb->nn, &dp)))
    goto out;
  if ((rc = crd_problem_eval(pb, 1, F, &U))) goto out;
  crd_dyn_assemble_mass(dy, pb, &M, 1.0);
  r->time_eval += crd_wtime() - t0;
  double lref = INFINITY;
  for (int i = 0; i < pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      int e = pb->eq[5 * i + c];
      if (e < 0) continue;
      int32_t d = pb->K->rowptr[e]; /* the diagonal is the first entry of its row */
      if (M.val[d] > 0) lref = fmin(lref, pb->K->val[d] / M.val[d]);
    }
  if (!isfinite(lref) || !(lref > 0)) lref = 1.0;
  /* sigma = 0 if K factorizes (no rigid-body modes) */
  double sigma = 0.0;
  if ((rc = crd_solver_analyse(pb->solver, pb->K))) goto out;
  pb->analysed = 1;
  if (crd_solver_factorize(pb->solver, pb->K) != 0) sigma = -1e-8 * lref;
  crd_err_clear();
  double ts = crd_wtime();
  rc = crd_eigen_shift_invert(pb->K, &M, sigma, nev, 0.0, lam, vec, &nconv);
  r->time_factor += crd_wtime() - ts;
  if (rc) goto out;
  int nrigid = 0;
  for (int k = 0; k < nev; ++k) {
    int rigid = lam[k] < 1e-9 * lref;
    nrigid += rigid;
    freq[k] = rigid ? 0.0 : sqrt(lam[k]) / (2.0 * M_PI);
  }
  if ((rc = write_modes_csv(r->dir, nev, lam, freq))) goto out;
  if (!r->pvd) {
    char fdir[2 * CRD_PATH_MAX];
    snprintf(fdir, sizeof fdir, "%s/frames", r->dir);
    if ((rc = crd_mkdir_p(fdir)) || (rc = crd_pvd_create(r->dir, &r->pvd))) goto out;
  }
  for (int k = 0; k < nev; ++k)
    if ((rc = write_shape(r, k, freq[k], vec + (size_t)n * k, u, dp))) goto out;
  double zero[3] = {0, 0, 0};
  if ((rc = crd_run_record(r, 0, 0.0, 0.0, 0, 0.0, 0.0, U, zero, zero, 1))) goto out;
  r->modal.nmodes = nev;
  r->modal.nrigid = nrigid;
  r->modal.f1 = nrigid < nev ? freq[nrigid] : 0.0;
  if (!r->opts->quiet) {
    printf("modal: %d modes (sigma %.3g), %d rigid-body\n  mode  eigenvalue            frequency\n", nev, sigma,
           nrigid);
    for (int k = 0; k < nev; ++k) printf("  %4d  %-20.12g  %.8g\n", k + 1, lam[k], freq[k]);
  }
out:
  crd_dyn_destroy(&dy);
  free(F); free(M.val); free(lam); free(vec); free(freq); free(u); free(dp);
  return rc ? crd_err_trace(rc, __FILE__, __LINE__, __func__) : 0;
}
