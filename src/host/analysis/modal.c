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
 * ParaView shows them together, one block each).
 *
 * Intersection nodes (triads.h): K is statics' tangent with the fold
 * elements (crd_triads_eval), M the consistent mass of the implicit
 * step's stage start (crd_dyn_assemble_mass: crd_fold_mass at rest, with
 * the triad corners' rotational inertia Q_ij = P_ij G_i^T G_j); the three
 * chart variables of a triad are eigenvector components like any other,
 * and the shape's normal change at a triad node is om x p. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/dynamics.h"
#include "crdyn/eigen.h"
#include "crdyn/error.h"
#include "crdyn/linsys.h"
#include "crdyn/timer.h"
#include "crdyn/triads.h"

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

/* The change of the normal p (the first patch's, triads.h) at triad node
 * i: the chart's dtheta turns the triad by om = W dtheta (theta' = M om,
 * W = M^-1, fold_node.h), so dp = om x p. */
static void triad_normal_change(const crd_problem *pb, int i, const double *phi, double *dp)
{
  const crd_triads *tr = pb->tr;
  int k = tr->of[i];
  int32_t q[3] = {pb->eq[5 * i + 3], pb->eq[5 * i + 4], tr->eq3[k]};
  double w[9], om[3] = {0, 0, 0};
  crd_triad_W(tr->E + 9 * k, tr->ch[k], w);
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3 && q[a] >= 0; ++c) om[c] += w[3 * a + c] * phi[q[a]];
  crd_cross3(om, pb->p + 3 * i, dp + 3 * i);
}

static int write_shape(crd_run *r, int k, double freq, const double *phi, double *u, double *dp)
{
  crd_problem *pb = r->pb;
  double umax = 0.0;
  for (int i = 0; i < pb->nn; ++i) {
    if (pb->tr && pb->tr->of[i] >= 0) {
      for (int c = 0; c < 3; ++c) {
        int e = pb->eq[5 * i + c];
        u[3 * i + c] = e >= 0 ? phi[e] : 0.0;
        umax = fmax(umax, fabs(u[3 * i + c]));
      }
      triad_normal_change(pb, i, phi, dp);
      continue;
    }
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

/* What a modal analysis holds: the consistent mass M (on K's pattern),
 * the eigenpairs and frequencies, the shape buffers, the shift, the
 * strain energy of the initial state. */
typedef struct modal_work {
  crd_dyn *dy;
  crd_csr M;
  double *F, *lam, *vec, *freq, *u, *dp;
  int n, nev, nrigid;
  double lref, sigma, U;
} modal_work;

/* The modes asked, at most one fewer than the equations (with a note,
 * not with --quiet, when fewer are computed). */
static int modal_count(const crd_run *r, int n)
{
  int nev = r->m->analysis.modes;
  if (nev >= n) {
    if (!r->opts->quiet)
      printf("note: $.analysis.modes: %d modes asked, the model has %d equations: %d computed\n", nev, n, n - 1);
    nev = n - 1;
  }
  return nev;
}

/* The buffers (M on the pattern of K); modal_free frees what was made. */
static int modal_alloc(const crd_problem *pb, modal_work *mw)
{
  int rc, n = mw->n, nev = mw->nev;
  mw->M = *pb->K;
  mw->M.val = NULL;
  if ((rc = crd_dyn_create(pb, &mw->dy)) || (rc = CRD_CALLOC(n, &mw->F)) ||
      (rc = CRD_CALLOC(mw->M.nnz, &mw->M.val)) ||
      (rc = CRD_CALLOC(nev, &mw->lam)) || (rc = CRD_CALLOC((size_t)n * nev, &mw->vec)) ||
      (rc = CRD_CALLOC(nev, &mw->freq)) || (rc = CRD_CALLOC(3 * (size_t)pb->nn, &mw->u)) ||
      (rc = CRD_CALLOC(3 * (size_t)pb->nn, &mw->dp)))
    return rc;
  return 0;
}

static void modal_free(modal_work *mw)
{
  crd_dyn_destroy(&mw->dy);
  free(mw->F); free(mw->M.val); free(mw->lam); free(mw->vec); free(mw->freq); free(mw->u); free(mw->dp);
}

/* K (the tangent) and M at the initial state (the time since t0 counted
 * as element time), and lambda_ref, the smallest diag(K)/diag(M) over the
 * translations (1 if none). */
static int modal_matrices(crd_run *r, modal_work *mw, double t0)
{
  crd_problem *pb = r->pb;
  int rc;
  if ((rc = crd_problem_eval(pb, 1, mw->F, &mw->U))) return rc;
  crd_dyn_assemble_mass(mw->dy, pb, &mw->M, 1.0);
  r->time_eval += crd_wtime() - t0;
  double lref = INFINITY;
  for (int i = 0; i < pb->nn; ++i)
    for (int c = 0; c < 3; ++c) {
      int e = pb->eq[5 * i + c];
      if (e < 0) continue;
      int32_t d = pb->K->rowptr[e]; /* the diagonal is the first entry of its row */
      if (mw->M.val[d] > 0) lref = fmin(lref, pb->K->val[d] / mw->M.val[d]);
    }
  if (!isfinite(lref) || !(lref > 0)) lref = 1.0;
  mw->lref = lref;
  return 0;
}

/* The shift (sigma = 0 if K factorizes: no rigid-body modes) and the
 * eigenpairs by shift-invert; the rigid-body modes (eigenvalues below
 * 1e-9 lambda_ref) counted, frequency 0. */
static int modal_solve(crd_run *r, modal_work *mw)
{
  crd_problem *pb = r->pb;
  int rc, nconv = 0;
  mw->sigma = 0.0;
  if ((rc = crd_linsys_analyse(r->ls, pb->K))) return rc;
  if (crd_solver_factorize(r->ls->solver, pb->K) != 0) mw->sigma = -1e-8 * mw->lref;
  crd_err_clear();
  double ts = crd_wtime();
  rc = crd_eigen_shift_invert(pb->K, &mw->M, mw->sigma, mw->nev, 0.0, mw->lam, mw->vec, &nconv);
  r->time_factor += crd_wtime() - ts;
  if (rc) return rc;
  mw->nrigid = 0;
  for (int k = 0; k < mw->nev; ++k) {
    int rigid = mw->lam[k] < 1e-9 * mw->lref;
    mw->nrigid += rigid;
    mw->freq[k] = rigid ? 0.0 : sqrt(mw->lam[k]) / (2.0 * M_PI);
  }
  return 0;
}

/* The outputs: modes.csv, the frames of the shapes (the frames folder and
 * result.pvd made when the run has none yet), the history line. */
static int modal_write(crd_run *r, modal_work *mw)
{
  int rc;
  if ((rc = write_modes_csv(r->dir, mw->nev, mw->lam, mw->freq))) return rc;
  if (!r->pvd) {
    char fdir[2 * CRD_PATH_MAX];
    snprintf(fdir, sizeof fdir, "%s/frames", r->dir);
    if ((rc = crd_mkdir_p(fdir)) || (rc = crd_pvd_create(r->dir, &r->pvd))) return rc;
  }
  for (int k = 0; k < mw->nev; ++k)
    if ((rc = write_shape(r, k, mw->freq[k], mw->vec + (size_t)mw->n * k, mw->u, mw->dp))) return rc;
  double zero[3] = {0, 0, 0};
  return crd_run_record(r, 0, 0.0, 0.0, 0, 0.0, 0.0, mw->U, zero, zero, 1);
}

/* The table of the modes on stdout (not with --quiet). */
static void modal_print(const crd_run *r, const modal_work *mw)
{
  if (r->opts->quiet) return;
  printf("modal: %d modes (sigma %.3g), %d rigid-body\n  mode  eigenvalue            frequency\n", mw->nev,
         mw->sigma, mw->nrigid);
  for (int k = 0; k < mw->nev; ++k) printf("  %4d  %-20.12g  %.8g\n", k + 1, mw->lam[k], mw->freq[k]);
}

/* A modal analysis: K and M at the initial state, the eigenpairs, the
 * outputs, the summary's figures and the table. */
int crd_modal_run(crd_run *r)
{
  crd_problem *pb = r->pb;
  modal_work mw;
  memset(&mw, 0, sizeof mw);
  mw.n = pb->neq;
  mw.nev = modal_count(r, mw.n);
  double t0 = crd_wtime();
  int rc;
  if ((rc = modal_alloc(pb, &mw)) || (rc = modal_matrices(r, &mw, t0)) || (rc = modal_solve(r, &mw)) ||
      (rc = modal_write(r, &mw)))
    goto out;
  r->modal.nmodes = mw.nev;
  r->modal.nrigid = mw.nrigid;
  r->modal.f1 = mw.nrigid < mw.nev ? mw.freq[mw.nrigid] : 0.0;
  modal_print(r, &mw);
out:
  modal_free(&mw);
  return rc ? CRD_TRACE(rc) : 0;
}
