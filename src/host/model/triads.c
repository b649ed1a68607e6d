/* crdyn: intersection nodes in the problem (see triads.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_eval.h"
#include "crdyn/error.h"
#include "crdyn/fold_dyn.h"
#include "crdyn/problem.h"
#include "crdyn/switches.h"
#include "crdyn/triads.h"

/* The unit normal of each patch at each triad node: the average of its
 * elements' corner normals (pn + 3 (pofs[k] + j) for patch j of triad k). */
static int patch_normals(const crd_model *m, const crd_patches *pt, const crd_triads *tr, const int *pofs,
                         double *pn)
{
  for (int q = 0; q < 4 * m->ne; ++q) {
    int k = tr->of[m->quads[q]];
    if (k < 0) continue;
    double *v = pn + 3 * (pofs[k] + pt->corner_patch[q]);
    for (int c = 0; c < 3; ++c) v[c] += pt->cn[3 * q + c];
  }
  for (int k = 0; k < tr->n; ++k)
    for (int j = pofs[k]; j < pofs[k + 1]; ++j) {
      double len = crd_norm3(pn + 3 * j);
      if (!(len > 1e-8))
        return CRD_ERR(CRD_ERR_INPUT, "%s: node %d: the normals of the elements of its patch %d cancel (the apex "
                       "of a cone)", m->case_path, tr->node[k], j - pofs[k]);
      for (int c = 0; c < 3; ++c) pn[3 * j + c] /= len;
    }
  return 0;
}

/* R_0 from the patch normals pn[0..np) of one node (triads.h). */
static void initial_triad(const double *pn, int np, double *E)
{
  double *x = E, *y = E + 3, *z = E + 6, best = 0.0;
  for (int c = 0; c < 3; ++c) z[c] = pn[c];
  for (int j = 1; j < np; ++j) {
    double t[3];
    crd_cross3(z, pn + 3 * j, t);
    double s = crd_norm3(t);
    if (s > best) {
      best = s;
      for (int c = 0; c < 3; ++c) x[c] = t[c] / s;
    }
  }
  if (!(best > 1e-8)) { /* all patches parallel: any unit vector normal to e_z */
    double u[3] = {0.0, 0.0, 0.0}, t[3];
    u[(crd_dir_choose(z) + 1) % 3] = 1.0;
    crd_cross3(z, u, t);
    double s = crd_norm3(t);
    for (int c = 0; c < 3; ++c) x[c] = t[c] / s;
  }
  crd_cross3(z, x, y);
}

/* The test hook CRDYN_TEST_TRIAD_C=tilt: c of the corners outside the
 * node's first patch turned by 0.2 degrees about e_x (the fold line of a
 * fold), a corner wrong by construction for tests/cli/fold_frame.sh to
 * catch. */
static void test_tilt(int patch, double *c)
{
  const char *hook = crd_switch("CRDYN_TEST_TRIAD_C");
  if (!hook || strcmp(hook, "tilt") || patch == 0) return;
  double t = 0.2 * M_PI / 180.0, y = c[1], z = c[2];
  c[1] = cos(t) * y - sin(t) * z;
  c[2] = sin(t) * y + cos(t) * z;
}

/* The elements with a corner at a triad node, and c = R_0^T p0 with p0
 * the corner's patch normal at each of their triad corners. */
static int fold_elements(crd_triads *tr, const crd_model *m, const crd_patches *pt, const int *pofs,
                         const double *pn)
{
  for (int e = 0; e < m->ne; ++e) {
    tr->elem_of[e] = -1;
    for (int a = 0; a < 4; ++a)
      if (tr->of[m->quads[4 * e + a]] >= 0) tr->elem_of[e] = 0;
    if (tr->elem_of[e] == 0) tr->elem_of[e] = tr->nel++;
  }
  int nel = tr->nel, rc;
  if ((rc = CRD_CALLOC(nel, &tr->elem)) || (rc = CRD_CALLOC(12 * (size_t)nel, &tr->p0c)) ||
      (rc = CRD_CALLOC(12 * (size_t)nel, &tr->c)) || (rc = CRD_CALLOC(24 * (size_t)nel, &tr->eq24)) ||
      (rc = CRD_CALLOC(300 * (size_t)nel, &tr->sc24)) || (rc = CRD_CALLOC(24 * (size_t)nel, &tr->f24)) ||
      (rc = CRD_CALLOC(300 * (size_t)nel, &tr->k24)))
    return rc;
  for (int e = 0; e < m->ne; ++e) {
    int f = tr->elem_of[e];
    if (f < 0) continue;
    tr->elem[f] = e;
    for (int a = 0; a < 4; ++a) {
      int k = tr->of[m->quads[4 * e + a]];
      if (k < 0) continue;
      tr->at[2 * k] = f;
      tr->at[2 * k + 1] = a;
      const double *p0 = pn + 3 * (pofs[k] + pt->corner_patch[4 * e + a]);
      for (int b = 0; b < 3; ++b) {
        tr->p0c[12 * f + 3 * a + b] = p0[b];
        tr->c[12 * f + 3 * a + b] = crd_dot3(tr->E0 + 9 * k + 3 * b, p0);
      }
      test_tilt(pt->corner_patch[4 * e + a], tr->c + 12 * f + 3 * a);
    }
  }
  return 0;
}

static int alloc_nodes(crd_triads *tr, int nn, int ne)
{
  size_t n = (size_t)tr->n;
  int rc;
  if ((rc = CRD_CALLOC(n, &tr->node)) || (rc = CRD_CALLOC(nn, &tr->of)) || (rc = CRD_CALLOC(n, &tr->npatch)) ||
      (rc = CRD_CALLOC(n, &tr->eq3)) || (rc = CRD_CALLOC(9 * n, &tr->E0)) || (rc = CRD_CALLOC(9 * n, &tr->E)) ||
      (rc = CRD_CALLOC(9 * n, &tr->E_save)) || (rc = CRD_CALLOC(9 * n, &tr->E_rec)) || (rc = CRD_CALLOC(n, &tr->ch)) || (rc = CRD_CALLOC(n, &tr->ch_save)) ||
      (rc = CRD_CALLOC(ne, &tr->elem_of)) || (rc = CRD_CALLOC(2 * n, &tr->at)))
    return rc;
  return 0;
}

/* The triads, their charts and pb->p0 at their nodes. */
static int build(crd_triads *tr, crd_problem *pb, const crd_patches *pt)
{
  const crd_model *m = pb->m;
  int *pofs = NULL, rc;
  double *pn = NULL;
  CRD_CALL(alloc_nodes(tr, m->nn, m->ne));
  tr->n = 0;
  for (int i = 0; i < m->nn; ++i) {
    tr->of[i] = pt->npatch[i] > 1 ? tr->n : -1;
    if (pt->npatch[i] < 2) continue;
    tr->npatch[tr->n] = pt->npatch[i];
    tr->node[tr->n++] = i;
    tr->split = fmax(tr->split, pt->split[i]);
  }
  if ((rc = CRD_CALLOC((size_t)tr->n + 1, &pofs))) return rc;
  for (int k = 0; k < tr->n; ++k) pofs[k + 1] = pofs[k] + tr->npatch[k];
  if (!(rc = CRD_CALLOC(3 * (size_t)pofs[tr->n], &pn)) && !(rc = patch_normals(m, pt, tr, pofs, pn))) {
    for (int k = 0; k < tr->n; ++k) {
      initial_triad(pn + 3 * pofs[k], tr->npatch[k], tr->E0 + 9 * k);
      memcpy(tr->E + 9 * k, tr->E0 + 9 * k, 9 * sizeof(double));
      memcpy(tr->E_rec + 9 * k, tr->E0 + 9 * k, 9 * sizeof(double));
      tr->ch[k] = crd_triad_choose(tr->E + 9 * k);
      memcpy(pb->p0 + 3 * tr->node[k], tr->E0 + 9 * k + 6, 3 * sizeof(double));
    }
    rc = fold_elements(tr, m, pt, pofs, pn);
  }
  free(pofs);
  free(pn);
  return rc;
}

int crd_triads_create(crd_problem *pb, const crd_patches *pt)
{
  pb->tr = NULL;
  if (!pt->nsplit) return 0;
  crd_triads *tr;
  CRD_CALL(CRD_CALLOC(1, &tr));
  tr->n = pt->nsplit;
  int rc = build(tr, pb, pt);
  if (rc) {
    crd_triads_destroy(&tr);
    return CRD_TRACE(rc);
  }
  pb->tr = tr;
  return 0;
}

void crd_triads_destroy(crd_triads **ptr)
{
  crd_triads *tr = *ptr;
  if (!tr) return;
  free(tr->node); free(tr->of); free(tr->npatch); free(tr->eq3); free(tr->E0); free(tr->E); free(tr->E_save); free(tr->E_rec);
  free(tr->ch); free(tr->ch_save); free(tr->elem); free(tr->elem_of); free(tr->at); free(tr->p0c); free(tr->c);
  free(tr->eq24); free(tr->sc24); free(tr->f24); free(tr->k24);
  crd_triads_mid_destroy(tr);
  free(tr);
  *ptr = NULL;
}

/* The first support that fixes some but not all of px, py, pz at node i. */
static int partial_support(const crd_model *m, int i)
{
  for (int s = 0; s < m->nsupports; ++s) {
    const crd_set *set = &m->sets[m->supports[s].set];
    for (int k = 0; k < set->nn; ++k)
      if (set->nodes[k] == i && ((m->supports[s].fix >> 3) & 7u)) return s;
  }
  return -1;
}

int crd_triads_check_fix(const crd_problem *pb)
{
  const crd_triads *tr = pb->tr;
  for (int k = 0; tr && k < tr->n; ++k) {
    int i = tr->node[k];
    unsigned r = (pb->fix[i] >> 3) & 7u;
    if (r == 0 || r == 7u) continue;
    return CRD_ERR(CRD_ERR_UNSUPPORTED,
                   "%s: $.supports[%d]: node %d is an intersection node (%d patches of the shell meet there) and "
                   "its supports fix some of px, py, pz but not all: at an intersection node the three rotational "
                   "components are fixed together (the node's triad held) or not at all (docs/case_format.md, "
                   "\"supports\")",
                   pb->m->case_path, partial_support(pb->m, i), i, tr->npatch[k]);
  }
  return 0;
}

/* The 24-slot equations of element e (6 a corner). */
static void elem_eq24(const crd_problem *pb, int e, int32_t *eq)
{
  for (int a = 0; a < 4; ++a) {
    int i = pb->m->quads[4 * e + a], k = pb->tr->of[i];
    for (int s = 0; s < 5; ++s) eq[6 * a + s] = pb->eq[5 * i + s];
    eq[6 * a + 5] = k >= 0 ? pb->tr->eq3[k] : -1;
  }
}

/* The 20-DOF scatter of an element from its 24-slot one. */
static void scatter20(const int32_t *sc24, int32_t *sc20)
{
  for (int a = 0; a < 20; ++a)
    for (int b = a; b < 20; ++b) {
      int a24 = 6 * (a / 5) + a % 5, b24 = 6 * (b / 5) + b % 5;
      sc20[crd_tri_index(a, b, 20)] = sc24[crd_tri_index(a24, b24, 24)];
    }
}

int crd_triads_pattern(crd_problem *pb)
{
  crd_triads *tr = pb->tr;
  int32_t *eq = NULL, *sc = NULL;
  size_t ne = (size_t)pb->ne;
  int rc;
  if ((rc = CRD_CALLOC(24 * ne, &eq)) || (rc = CRD_CALLOC(210 * ne, &pb->scatter))) goto out;
  for (int e = 0; e < pb->ne; ++e) elem_eq24(pb, e, eq + 24 * (size_t)e);
  if ((rc = crd_pattern_build(pb->neq, pb->ne, 24, eq, &pb->K, &sc))) goto out;
  for (size_t e = 0; e < ne; ++e) scatter20(sc + 300 * e, pb->scatter + 210 * e);
  for (int f = 0; f < tr->nel; ++f) {
    size_t e = (size_t)tr->elem[f];
    memcpy(tr->eq24 + 24 * (size_t)f, eq + 24 * e, 24 * sizeof *eq);
    memcpy(tr->sc24 + 300 * (size_t)f, sc + 300 * e, 300 * sizeof *sc);
  }
out:
  free(eq);
  free(sc);
  return rc;
}

/* The normal a triad corner sees: r = sum_a c_a e_a. */
static void triad_normal(const double *E, const double *c, double *r)
{
  for (int s = 0; s < 3; ++s) r[s] = c[0] * E[s] + c[1] * E[3 + s] + c[2] * E[6 + s];
}

/* The corners of fold element f as fold_node.h takes them, with the
 * initial normals they see. */
static void fold_corners(const crd_problem *pb, int f, crd_fold_node *nd, double *p0)
{
  const crd_triads *tr = pb->tr;
  const int32_t *qd = pb->m->quads + 4 * tr->elem[f];
  for (int a = 0; a < 4; ++a) {
    int i = qd[a], k = tr->of[i];
    if (k >= 0) {
      crd_fold_node_triad(nd + a, tr->E + 9 * k, tr->ch[k], tr->c + 12 * f + 3 * a);
      memcpy(p0 + 3 * a, tr->p0c + 12 * f + 3 * a, 3 * sizeof(double));
    } else {
      crd_fold_node_smooth(nd + a, pb->p + 3 * i, pb->l[i]);
      memcpy(p0 + 3 * a, pb->p0 + 3 * i, 3 * sizeof(double));
    }
  }
}

void crd_triads_corners(const crd_problem *pb, int f, crd_fold_node *nd, double *p0)
{
  fold_corners(pb, f, nd, p0);
}

/* The element's compact variables (crd_fold_offsets) in the 24-slot
 * layout: map[s] the compact index of slot s, -1 where none. */
static void slot_map(const crd_fold_node *nd, int *map)
{
  int off[4];
  crd_fold_offsets(nd, off);
  for (int a = 0; a < 4; ++a)
    for (int s = 0; s < 6; ++s) map[6 * a + s] = s < 3 + crd_fold_node_nr(nd + a) ? off[a] + s : -1;
}

/* The CRD_ELEM_* code of fold element f: the initial and current det J, a
 * finite energy. */
static int fold_kind(const double *X0, const double *p0, const double *d, const crd_fold_node *nd, double md,
                     double U)
{
  if (!(md > 0)) return CRD_ELEM_DEGENERATE;
  double p[12], xl0[12], ul[20], r0xy[8];
  crd_cr_frame F;
  for (int a = 0; a < 4; ++a) memcpy(p + 3 * a, nd[a].p, 3 * sizeof(double));
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
  if (!(crd_q4_current_min_det(xl0, ul) > 0)) return CRD_ELEM_INVERTED;
  return isfinite(U) ? CRD_ELEM_OK : CRD_ELEM_NONFINITE;
}

/* Fold element f into f24, k24 (want_K) and pb->ue; returns its CRD_ELEM_* code. */
static int fold_eval(crd_problem *pb, int f, int want_K)
{
  crd_triads *tr = pb->tr;
  int e = tr->elem[f], map[24];
  const int32_t *qd = pb->m->quads + 4 * e;
  crd_fold_node nd[4];
  double X0[12], d[12], p0[12], fe[24], K[576], md = 0.0;
  crd_elem_gather3(qd, pb->m->x, X0);
  crd_elem_gather3(qd, pb->d, d);
  fold_corners(pb, f, nd, p0);
  crd_q4_mat mt = crd_backend_section_mat(pb, e);
  double U = crd_fold_elem(X0, p0, d, nd, &mt, fe, want_K ? K : 0, &md);
  int off[4], n = crd_fold_offsets(nd, off);
  slot_map(nd, map);
  double *f24 = tr->f24 + 24 * (size_t)f, *k24 = tr->k24 + 300 * (size_t)f;
  for (int s = 0; s < 24; ++s) f24[s] = map[s] >= 0 ? fe[map[s]] : 0.0;
  for (int s = 0; s < 24 && want_K; ++s)
    for (int t = s; t < 24; ++t)
      k24[crd_tri_index(s, t, 24)] = map[s] >= 0 && map[t] >= 0 ? K[n * map[s] + map[t]] : 0.0;
  pb->ue[e] = U;
  return fold_kind(X0, p0, d, nd, md, U);
}

int crd_triads_mid_create(crd_triads *tr)
{
  if (tr->mid) return 0;
  crd_triads_mid *m;
  CRD_CALL(CRD_CALLOC(1, &m));
  size_t n9 = 9 * (size_t)tr->n;
  tr->mid = m;
  if (CRD_CALLOC(n9, &m->Ea) || CRD_CALLOC(n9, &m->Ef) || CRD_CALLOC(n9, &m->V0) || CRD_CALLOC(n9, &m->A0) ||
      CRD_CALLOC(n9, &m->V1) || CRD_CALLOC(n9, &m->A1) || CRD_CALLOC(n9, &m->Am) || CRD_CALLOC(tr->n, &m->du3) ||
      CRD_CALLOC(tr->n, &m->ch_a) || CRD_CALLOC(24 * (size_t)tr->nel, &m->fin24)) {
    crd_triads_mid_destroy(tr);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  return 0;
}

void crd_triads_mid_destroy(crd_triads *tr)
{
  crd_triads_mid *m = tr->mid;
  if (!m) return;
  free(m->Ea); free(m->Ef); free(m->V0); free(m->A0); free(m->V1); free(m->A1); free(m->Am); free(m->du3);
  free(m->ch_a); free(m->fin24);
  free(m);
  tr->mid = NULL;
}

/* The corners of fold element f in the implicit step (fold_dyn.h): the
 * normals at a, b and the midpoint, the normals' midpoint accelerations
 * and the bases, from the smooth nodes' step state in `in` and the
 * triads' in tr->mid. */
typedef struct fold_mid_corners {
  double X0[12], p0[12], da[12], db[12], df[12], pa[12], pb[12], pf[12], am[12], wam[12], B[36];
  crd_fold_node nd[4];
} fold_mid_corners;

/* Test hook CRDYN_TEST_TRIAD_BASIS=A1: the triad corners' basis taken as
 * statics' A1 at the end of the step instead of B (fold_dyn.h), a wrong
 * basis for tests/cli/fold_implicit.sh to catch. */
static int wrong_basis(void)
{
  const char *h = crd_switch("CRDYN_TEST_TRIAD_BASIS");
  return h && !strcmp(h, "A1");
}

static void fold_mid_gather(const crd_problem *pb, int f, const crd_mid_in *in, fold_mid_corners *o)
{
  const crd_triads *tr = pb->tr;
  const crd_triads_mid *m = tr->mid;
  const int32_t *qd = pb->m->quads + 4 * tr->elem[f];
  fold_corners(pb, f, o->nd, o->p0);
  crd_elem_gather3(qd, pb->m->x, o->X0);
  crd_elem_gather3(qd, in->d0, o->da);
  crd_elem_gather3(qd, pb->d, o->db);
  crd_elem_gather3(qd, in->df, o->df);
  for (int a = 0; a < 4; ++a) {
    int i = qd[a], k = tr->of[i];
    for (int c = 0; c < 3; ++c) o->am[3 * a + c] = in->am[5 * (size_t)i + c];
    for (int b = 0; b < 9; ++b) o->B[9 * a + b] = 0.0;
    if (k < 0) {
      memcpy(o->pa + 3 * a, in->pa + 3 * i, 3 * sizeof(double));
      memcpy(o->pb + 3 * a, pb->p + 3 * i, 3 * sizeof(double));
      memcpy(o->pf + 3 * a, in->pf + 3 * i, 3 * sizeof(double));
      memcpy(o->wam + 3 * a, in->wam + 3 * i, 3 * sizeof(double));
      for (int c = 0; c < 3; ++c)
        for (int s = 0; s < 2; ++s) o->B[9 * a + 3 * c + s] = in->Bs[6 * (size_t)i + 2 * c + s];
      continue;
    }
    const double *c = tr->c + 12 * f + 3 * a;
    triad_normal(m->Ea + 9 * k, c, o->pa + 3 * a);
    triad_normal(tr->E + 9 * k, c, o->pb + 3 * a);
    triad_normal(m->Ef + 9 * k, c, o->pf + 3 * a);
    triad_normal(m->Am + 9 * k, c, o->wam + 3 * a);
    if (wrong_basis()) crd_triad_A1(tr->E + 9 * k, tr->ch[k], o->pb + 3 * a, o->B + 9 * a);
    else crd_triad_mid_basis(m->Ef + 9 * k, tr->E + 9 * k, tr->ch[k], c, o->B + 9 * a);
  }
}

/* Fold element f at the midpoint into f24, fin24, k24 (want_K), pb->ue;
 * 1 when it degenerated or its energy is not finite. */
static int fold_eval_mid(crd_problem *pb, int f, const crd_mid_in *in, int want_K)
{
  crd_triads *tr = pb->tr;
  int e = tr->elem[f], map[24];
  fold_mid_corners o;
  fold_mid_gather(pb, f, in, &o);
  crd_fold_mid_in fi = {o.X0, o.p0, o.da, o.pa, o.db, o.pb, o.df, o.pf, o.am, o.wam, o.B, in->C + 16 * (size_t)e,
                        o.nd, in->cf, in->cm};
  crd_q4_mat mt = crd_backend_section_mat(pb, e);
  mt.xi = in->xi;
  double fe[24], fne[24], K[576], md = 0.0;
  double U = crd_fold_mid_elem(&fi, &mt, fe, fne, want_K ? K : 0, &md);
  int n = crd_fold_offsets(o.nd, map);
  slot_map(o.nd, map);
  double *f24 = tr->f24 + 24 * (size_t)f, *n24 = tr->mid->fin24 + 24 * (size_t)f, *k24 = tr->k24 + 300 * (size_t)f;
  for (int s = 0; s < 24; ++s) {
    f24[s] = map[s] >= 0 ? fe[map[s]] : 0.0;
    n24[s] = map[s] >= 0 ? fne[map[s]] : 0.0;
  }
  for (int s = 0; s < 24 && want_K; ++s)
    for (int t = s; t < 24; ++t)
      k24[crd_tri_index(s, t, 24)] = map[s] >= 0 && map[t] >= 0 ? K[n * map[s] + map[t]] : 0.0;
  pb->ue[e] = U;
  return !(md > 0) || !isfinite(U);
}

int crd_triads_eval_mid(crd_problem *pb, const crd_mid_in *in, int want_K, int *bad)
{
  crd_triads *tr = pb->tr;
  *bad = -1;
#pragma omp parallel for schedule(static) num_threads(crd_pass_threads(pb, tr->nel, 8))
  for (int f = 0; f < tr->nel; ++f)
    if (fold_eval_mid(pb, f, in, want_K)) {
#pragma omp critical(crd_triads_bad_mid)
      if (*bad < 0 || tr->elem[f] < *bad) *bad = tr->elem[f];
    }
  return *bad >= 0;
}

void crd_triads_elem_rates(const crd_problem *pb, int e, const double *w, const double *Rd, double *out)
{
  const crd_triads *tr = pb->tr;
  const int32_t *qd = pb->m->quads + 4 * e;
  int f = tr ? tr->elem_of[e] : -1;
  for (int a = 0; a < 4; ++a) {
    int i = qd[a], k = tr ? tr->of[i] : -1;
    if (f >= 0 && k >= 0 && Rd) triad_normal(Rd + 9 * k, tr->c + 12 * f + 3 * a, out + 3 * a);
    else memcpy(out + 3 * a, w + 3 * i, 3 * sizeof(double));
  }
}

int crd_triads_eval(crd_problem *pb, int want_K, int *bad)
{
  crd_triads *tr = pb->tr;
  int kind = 0;
  *bad = -1;
#pragma omp parallel for schedule(static) num_threads(crd_pass_threads(pb, tr->nel, 8))
  for (int f = 0; f < tr->nel; ++f) {
    int k = fold_eval(pb, f, want_K);
    if (k) {
#pragma omp critical(crd_triads_bad)
      if (*bad < 0 || tr->elem[f] < *bad) { *bad = tr->elem[f]; kind = k; }
    }
  }
  return kind;
}

/* Rotate E by the rotation vector om (Rodrigues, each axis). */
static void rotate_triad(const double *om, double *E)
{
  double a = crd_norm3(om), s = a > 0 ? sin(a) / a : 1.0, c2 = a > 0 ? (1.0 - cos(a)) / (a * a) : 0.5;
  for (int r = 0; r < 3; ++r) {
    double *v = E + 3 * r, t[3], u[3];
    crd_cross3(om, v, t);
    crd_cross3(om, t, u);
    for (int c = 0; c < 3; ++c) v[c] += s * t[c] + c2 * u[c];
  }
}

/* The chart of triad k after its triad moved: switched where another is
 * much better conditioned (CRD_TRIAD_SWITCH), else the same (l, k) with
 * the signs of the new triad. */
static void rechart(crd_triads *tr, int k)
{
  const double *E = tr->E + 9 * k;
  crd_triad_chart ch = tr->ch[k], best = crd_triad_choose(E);
  if (crd_triad_measure(E, ch.l, ch.k) < CRD_TRIAD_SWITCH * crd_triad_measure(E, best.l, best.k)) tr->ch[k] = best;
  else tr->ch[k] = crd_triad_chart_at(E, ch.l, ch.k);
}

void crd_triads_set(crd_problem *pb, int k, const double *E)
{
  crd_triads *tr = pb->tr;
  memcpy(tr->E + 9 * k, E, 9 * sizeof(double));
  rechart(tr, k);
  memcpy(pb->p + 3 * tr->node[k], tr->E + 9 * k + 6, 3 * sizeof(double));
}

/* One triad node's increment dth in its chart; the chart switched after. */
static void update_node(crd_triads *tr, int k, const double *dth)
{
  double *E = tr->E + 9 * k, th[3], En[9];
  crd_triad_chart ch = tr->ch[k];
  crd_triad_theta(E, ch, th);
  for (int a = 0; a < 3; ++a) th[a] += dth[a];
  if (crd_triad_from_theta(th, ch, En) >= 0.01) {
    memcpy(E, En, sizeof En);
  } else { /* the increment leaves the chart: rotate by om = W dth instead (first-order consistent) */
    double w[9], om[3];
    crd_triad_W(E, ch, w);
    for (int c = 0; c < 3; ++c) om[c] = w[c] * dth[0] + w[3 + c] * dth[1] + w[6 + c] * dth[2];
    rotate_triad(om, E);
  }
  rechart(tr, k);
}

void crd_triads_update(crd_problem *pb, const double *du, double s)
{
  crd_triads *tr = pb->tr;
  for (int k = 0; k < tr->n; ++k) {
    int i = tr->node[k];
    int32_t q[3] = {pb->eq[5 * i + 3], pb->eq[5 * i + 4], tr->eq3[k]};
    if (q[0] < 0 && q[1] < 0 && q[2] < 0) continue;
    double dth[3];
    for (int a = 0; a < 3; ++a) dth[a] = q[a] >= 0 ? s * du[q[a]] : 0.0;
    update_node(tr, k, dth);
    memcpy(pb->p + 3 * i, tr->E + 9 * k + 6, 3 * sizeof(double)); /* R R_0^T p0 with p0 = e_z0 */
  }
}

void crd_triads_moment_dF(const double *E, crd_triad_chart ch, const double *M, double *D)
{
  double w[9], f[3];
  crd_triad_W(E, ch, w);
  for (int c = 0; c < 3; ++c) f[c] = crd_dot3(w + 3 * c, M);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double dm[3];
      crd_triad_dM(E, ch, w + 3 * b, w + 3 * a, dm);
      D[3 * a + b] = -(f[0] * dm[0] + f[1] * dm[1] + f[2] * dm[2]);
    }
}

/* The CSR position of (slot a, slot b) of triad node k's rotations, through
 * a fold element at the node (-1 where either is held). */
static int32_t moment_pos(const crd_triads *tr, int k, int a, int b)
{
  int f = tr->at[2 * k], j = tr->at[2 * k + 1];
  return tr->sc24[300 * (size_t)f + crd_tri_index(6 * j + 3 + a, 6 * j + 3 + b, 24)];
}

void crd_triads_add_moment(crd_problem *pb, int k, const double *M, double *F, int want_K)
{
  const crd_triads *tr = pb->tr;
  int i = tr->node[k];
  int32_t q[3] = {pb->eq[5 * i + 3], pb->eq[5 * i + 4], tr->eq3[k]};
  double w[9], D[9];
  crd_triad_W(tr->E + 9 * k, tr->ch[k], w);
  for (int a = 0; a < 3; ++a)
    if (q[a] >= 0) F[q[a]] += crd_dot3(w + 3 * a, M);
  if (!want_K) return;
  crd_triads_moment_dF(tr->E + 9 * k, tr->ch[k], M, D);
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      int32_t pos = moment_pos(tr, k, a, b);
      if (pos >= 0) pb->K->val[pos] -= 0.5 * (D[3 * a + b] + D[3 * b + a]);
    }
}

void crd_triads_elem_normals(const crd_problem *pb, int e, double *p0, double *p)
{
  const crd_triads *tr = pb->tr;
  const int32_t *qd = pb->m->quads + 4 * e;
  int f = tr ? tr->elem_of[e] : -1;
  for (int a = 0; a < 4; ++a) {
    int i = qd[a], k = tr ? tr->of[i] : -1;
    if (f >= 0 && k >= 0) {
      memcpy(p0 + 3 * a, tr->p0c + 12 * f + 3 * a, 3 * sizeof(double));
      triad_normal(tr->E + 9 * k, tr->c + 12 * f + 3 * a, p + 3 * a);
    } else {
      memcpy(p0 + 3 * a, pb->p0 + 3 * i, 3 * sizeof(double));
      memcpy(p + 3 * a, pb->p + 3 * i, 3 * sizeof(double));
    }
  }
}

void crd_triads_turn(const crd_triads *tr, int k, double *om)
{
  const double *A = tr->E_rec + 9 * k, *B = tr->E + 9 * k;
  double Q[9] = {0}; /* Q = sum_a b_a a_a^T turns each old axis a_a into the new b_a */
  for (int a = 0; a < 3; ++a)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) Q[3 * r + c] += B[3 * a + r] * A[3 * a + c];
  double v[3] = {0.5 * (Q[7] - Q[5]), 0.5 * (Q[2] - Q[6]), 0.5 * (Q[3] - Q[1])};
  double s = crd_norm3(v), cs = 0.5 * (Q[0] + Q[4] + Q[8] - 1.0), sc = s > 1e-300 ? atan2(s, cs) / s : 1.0;
  for (int c = 0; c < 3; ++c) om[c] = v[c] * sc;
}

void crd_triads_record(crd_triads *tr)
{
  memcpy(tr->E_rec, tr->E, 9 * sizeof(double) * (size_t)tr->n);
}

void crd_triads_save(crd_triads *tr)
{
  memcpy(tr->E_save, tr->E, 9 * sizeof(double) * (size_t)tr->n);
  memcpy(tr->ch_save, tr->ch, sizeof(crd_triad_chart) * (size_t)tr->n);
}

void crd_triads_restore(crd_triads *tr)
{
  memcpy(tr->E, tr->E_save, 9 * sizeof(double) * (size_t)tr->n);
  memcpy(tr->ch, tr->ch_save, sizeof(crd_triad_chart) * (size_t)tr->n);
}

void crd_triads_list(const crd_triads *tr, char *buf, size_t n)
{
  buf[0] = 0;
  for (int k = 0; k < tr->n && k < 4; ++k) {
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%snode %d", k ? ", " : "", tr->node[k]);
  }
  if (tr->n > 4) {
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, " and %d more", tr->n - 4);
  }
}
