/* crdyn: the discrete shell problem (see problem.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/loads.h"
#include "crdyn/cr_frame.h"
#include "crdyn/error.h"
#include "crdyn/explicit_node.h"
#include "crdyn/patches.h"
#include "crdyn/problem.h"
#include "crdyn/trace.h"
#include "crdyn/triads.h"
#include "crdyn/timer.h"

#define CRD_SYMMETRY_DEG 20.0 /* a normal this close to a symmetry plane is put in it (choose_pairs) */

/* Nodal normals (docs/theory.md §1, eqs 13-14): the unit element normals
 * at the node's corners (patches.h), averaged.  An intersection node (more
 * than one patch) gets a triad instead (triads.h; its p0 the first patch's
 * normal).  A smooth node whose element normals stray from their average
 * by more than the crease angle is refused (the apex of a cone: no single
 * normal serves it). */
static int average_normals(crd_problem *pb, const crd_patches *pt)
{
  const crd_model *m = pb->m;
  for (int e = 0; e < pb->ne; ++e)
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 3; ++c) pb->p0[3 * m->quads[4 * e + a] + c] += pt->cn[12 * e + 3 * a + c];
  for (int i = 0; i < pb->nn; ++i) {
    if (pt->npatch[i] > 1) continue;
    double len = crd_norm3(pb->p0 + 3 * i);
    if (!(len > 1e-8))
      return CRD_ERR(CRD_ERR_INPUT, "%s: node %d: the normals of its elements cancel (a fold of 180 degrees)",
                     m->case_path, i);
    for (int c = 0; c < 3; ++c) pb->p0[3 * i + c] /= len;
  }
  return 0;
}

static int check_cones(const crd_problem *pb, const crd_patches *pt)
{
  const crd_model *m = pb->m;
  double cmin = cos(m->crease_angle * M_PI / 180.0);
  for (int e = 0; e < pb->ne; ++e)
    for (int a = 0; a < 4; ++a) {
      int i = m->quads[4 * e + a];
      if (pt->npatch[i] > 1) continue;
      double c = crd_dot3(pt->cn + 12 * e + 3 * a, pb->p0 + 3 * i);
      if (c < cmin)
        return CRD_ERR(CRD_ERR_UNSUPPORTED,
                       "%s: node %d: the normal of element %d differs by %.1f degrees from the nodal average (more "
                       "than crease_angle = %g): the node has no single normal (the apex of a cone, or a crease "
                       "the elements around it turn through); refine the mesh if the surface is smooth there",
                       m->case_path, i, e, acos(fmax(-1.0, fmin(1.0, c))) * 180.0 / M_PI, m->crease_angle);
    }
  return 0;
}

static int nodal_normals(crd_problem *pb)
{
  crd_patches *pt;
  CRD_CALL(crd_patches_create(pb->m, pb->m->crease_angle, &pt));
  int rc;
  if (!(rc = average_normals(pb, pt)) && !(rc = crd_triads_create(pb, pt))) rc = check_cones(pb, pt);
  crd_patches_destroy(&pt);
  return rc;
}

static int count_bits(unsigned v) { int n = 0; for (; v; v >>= 1) n += v & 1; return n; }

/* Each node's independent pair of normal components (l: the dependent
 * one), and whether it may switch (locked: a node with a rotational fix
 * keeps its pair). */
static void choose_pairs(crd_problem *pb)
{
  for (int i = 0; i < pb->nn; ++i) {
    double *p = pb->p0 + 3 * i;
    unsigned nf = (pb->fix[i] >> 3) & 7u;
    int nfix = count_bits(nf);
    if (pb->tr && pb->tr->of[i] >= 0) { /* a triad node: its chart is the triad's (triads.h) */
      pb->l[i] = crd_dir_choose(p);
      pb->locked[i] = 1;
    } else if (nfix == 1) {
      int f = (nf & 1u) ? 0 : (nf & 2u) ? 1 : 2;
      /* A single fixed component expresses a symmetry plane: when it is
       * nearly zero, the averaged normal of the elements on one side of
       * the plane is tilted by half an element angle; the symmetric
       * (mirrored) average lies in the plane, so make it exact. */
      if (fabs(p[f]) < sin(CRD_SYMMETRY_DEG * M_PI / 180.0)) {
        p[f] = 0.0;
        double len = crd_norm3(p);
        for (int c = 0; c < 3; ++c) p[c] /= len;
      }
      int o1 = (f + 1) % 3, o2 = (f + 2) % 3;
      pb->l[i] = fabs(p[o1]) >= fabs(p[o2]) ? o1 : o2;
      pb->locked[i] = 1;
    } else {
      pb->l[i] = crd_dir_choose(p);
      pb->locked[i] = nfix > 0;
    }
  }
}

/* Equation numbers of the free DOFs, node by node (-1: fixed); two fixed
 * normal components fix the normal.  A triad node's three rotational
 * variables follow its translations (slots 3, 4, then tr->eq3), all fixed
 * or all free (crd_triads_check_fix). */
static int number_equations(crd_problem *pb)
{
  int neq = 0;
  for (int i = 0; i < pb->nn; ++i) {
    unsigned fx = pb->fix[i];
    int nfix = count_bits((fx >> 3) & 7u), n, mm, k = pb->tr ? pb->tr->of[i] : -1;
    crd_dir_pair(pb->l[i], &n, &mm);
    for (int s = 0; s < 5; ++s) {
      int fixed;
      if (s < 3) fixed = (fx >> s) & 1u;
      else if (k >= 0) fixed = nfix == 3;
      else fixed = nfix >= 2 || ((fx >> (3 + (s == 3 ? n : mm))) & 1u);
      pb->eq[5 * i + s] = fixed ? -1 : neq++;
    }
    if (k >= 0) pb->tr->eq3[k] = nfix == 3 ? -1 : neq++;
  }
  pb->neq = neq;
  CRD_CHECK(neq > 0, CRD_ERR_INPUT, "%s: every degree of freedom is fixed", pb->m->case_path);
  return 0;
}

/* The prescribed translations (supports with a value): counted, then
 * listed by node and component. */
static int list_prescribed(crd_problem *pb)
{
  const crd_model *m = pb->m;
  int np = 0;
  for (int pass = 0; pass < 2; ++pass) {
    np = 0;
    for (int s = 0; s < m->nsupports; ++s) {
      const crd_support *sp = &m->supports[s];
      if (!sp->has_value) continue;
      const crd_set *set = &m->sets[sp->set];
      for (int k = 0; k < set->nn; ++k)
        for (int c = 0; c < 3; ++c)
          if ((sp->fix >> c) & 1u) {
            if (pass) {
              pb->pres[np].node = set->nodes[k];
              pb->pres[np].comp = c;
              pb->pres[np].support = s;
            }
            ++np;
          }
    }
    if (!pass) CRD_CALL(CRD_CALLOC(np, &pb->pres));
  }
  pb->npres = np;
  return 0;
}

static int setup_dofs(crd_problem *pb)
{
  const crd_model *m = pb->m;
  for (int s = 0; s < m->nsupports; ++s) {
    const crd_set *set = &m->sets[m->supports[s].set];
    for (int k = 0; k < set->nn; ++k) pb->fix[set->nodes[k]] |= m->supports[s].fix;
  }
  CRD_CALL(crd_triads_check_fix(pb));
  choose_pairs(pb);
  CRD_CALL(number_equations(pb));
  return list_prescribed(pb);
}

int crd_problem_create(const crd_model *m, int nthreads, crd_problem **out)
{
  crd_problem *pb;
  *out = NULL;
  CRD_CHECK(m->nn > 0 && m->ne > 0, CRD_ERR_INPUT, "%s: the model has no shell mesh", m->case_path);
  CRD_CALL(CRD_CALLOC(1, &pb));
  pb->m = m;
  pb->nn = m->nn;
  pb->ne = m->ne;
  pb->nthreads = nthreads;
  int rc = 0;
  if ((rc = CRD_CALLOC(3 * (size_t)m->nn, &pb->p0)) || (rc = CRD_CALLOC(m->nn, &pb->fix)) ||
      (rc = CRD_CALLOC(m->nn, &pb->locked)) || (rc = CRD_CALLOC(5 * (size_t)m->nn, &pb->eq)) ||
      (rc = CRD_CALLOC(20 * (size_t)m->ne, &pb->elem_eq)) || (rc = CRD_CALLOC(3 * (size_t)m->nn, &pb->d)) ||
      (rc = CRD_CALLOC(3 * (size_t)m->nn, &pb->p)) || (rc = CRD_CALLOC(m->nn, &pb->l)) ||
      (rc = CRD_CALLOC(20 * (size_t)m->ne, &pb->fe)) || (rc = CRD_CALLOC(210 * (size_t)m->ne, &pb->ke)) ||
      (rc = CRD_CALLOC(m->ne, &pb->ue)))
    goto fail;
  if ((rc = nodal_normals(pb)) || (rc = setup_dofs(pb))) goto fail;
  memcpy(pb->p, pb->p0, 3 * sizeof(double) * (size_t)m->nn);
  for (int e = 0; e < m->ne; ++e)
    for (int a = 0; a < 4; ++a)
      for (int s = 0; s < 5; ++s) pb->elem_eq[20 * e + 5 * a + s] = pb->eq[5 * m->quads[4 * e + a] + s];
  if (pb->tr) rc = crd_triads_pattern(pb); /* 6 DOFs at the triad nodes */
  else rc = crd_pattern_build(pb->neq, m->ne, 20, pb->elem_eq, &pb->K, &pb->scatter);
  if (rc) goto fail;
  if ((rc = crd_backend_cpu_create(pb, &pb->be))) goto fail;
  *out = pb;
  return 0;
fail:
  crd_problem_destroy(&pb);
  return CRD_TRACE(rc);
}

void crd_problem_destroy(crd_problem **ppb)
{
  crd_problem *pb = *ppb;
  if (!pb) return;
  free(pb->p0); free(pb->fix); free(pb->locked); free(pb->eq); free(pb->elem_eq); free(pb->pres);
  free(pb->d); free(pb->p); free(pb->l); free(pb->fe); free(pb->ke); free(pb->ue); free(pb->scatter);
  crd_csr_destroy(&pb->K);
  crd_backend_destroy(&pb->be);
  crd_triads_destroy(&pb->tr);
  free(pb);
  *ppb = NULL;
}

int crd_problem_eval(crd_problem *pb, int want_K, double *F, double *U)
{
  CRD_CALL(pb->be->ops->eval(pb->be, pb, want_K, F, U));
  return 0;
}

int crd_problem_set_backend(crd_problem *pb, const char *name, int device)
{
  if (pb->tr && !strcmp(name, "auto") && device < 0) return 0; /* the CPU backend, already set */
  if (pb->tr && strcmp(name, "cpu")) {
    char what[96];
    snprintf(what, sizeof what, "the %s backend (only the cpu backend evaluates them)", name);
    return crd_problem_refuse_triads(pb, what);
  }
  crd_backend *be;
  CRD_CALL(crd_backend_create(name, device, pb, &be));
  crd_backend_destroy(&pb->be);
  pb->be = be;
  return 0;
}

void crd_problem_update(crd_problem *pb, const double *du, double s)
{
  CRD_RANGE_PUSH("update");
  for (int i = 0; i < pb->nn; ++i) {
    const int32_t *eq = pb->eq + 5 * i;
    for (int c = 0; c < 3; ++c)
      if (eq[c] >= 0) pb->d[3 * i + c] += s * du[eq[c]];
    if ((eq[3] < 0 && eq[4] < 0) || (pb->tr && pb->tr->of[i] >= 0)) continue;
    double *p = pb->p + 3 * i;
    int l = pb->l[i], n, m;
    crd_dir_pair(l, &n, &m);
    double da = eq[3] >= 0 ? s * du[eq[3]] : 0.0, db = eq[4] >= 0 ? s * du[eq[4]] : 0.0;
    double pn[3];
    double q = crd_dir_from_pair(p[n] + da, p[m] + db, l, p[l], pn);
    if (q >= 0.01) {
      p[0] = pn[0]; p[1] = pn[1]; p[2] = pn[2];
    } else {
      /* The increment leaves the chart of this pair: move along the tangent
       * instead and renormalise (first-order consistent); the pair is
       * switched below. */
      double A1[6];
      crd_dir_A1(p, l, A1);
      for (int c = 0; c < 3; ++c) p[c] += A1[2 * c] * da + A1[2 * c + 1] * db;
      double len = crd_norm3(p);
      for (int c = 0; c < 3; ++c) p[c] /= len;
    }
  }
  if (pb->tr) crd_triads_update(pb, du, s);
  crd_problem_switch_pairs(pb);
  CRD_RANGE_POP();
}

int crd_problem_switch_pairs(crd_problem *pb)
{
  int nsw = 0;
  for (int i = 0; i < pb->nn; ++i) {
    if (pb->locked[i]) continue;
    int l = crd_exn_switch(pb->p + 3 * i, pb->l[i]); /* explicit_node.h: shared with the device loops */
    nsw += l != pb->l[i];
    pb->l[i] = l;
  }
  return nsw;
}

void crd_problem_set_prescribed(crd_problem *pb, double t, int is_static)
{
  for (int k = 0; k < pb->npres; ++k) {
    const crd_support *sp = &pb->m->supports[pb->pres[k].support];
    double fac = crd_amplitude_eval(&sp->amp, t, is_static ? t : 1.0);
    pb->d[3 * pb->pres[k].node + pb->pres[k].comp] = sp->value * fac;
  }
}

void crd_problem_add_normal_force(const crd_problem *pb, int node, const double *g, double *F)
{
  double A1[6];
  crd_dir_A1(pb->p + 3 * node, pb->l[node], A1);
  for (int s = 0; s < 2; ++s) {
    int e = pb->eq[5 * node + 3 + s];
    if (e >= 0) F[e] += A1[s] * g[0] + A1[2 + s] * g[1] + A1[4 + s] * g[2];
  }
}

void crd_problem_save_triads(crd_problem *pb)
{
  if (pb->tr) crd_triads_save(pb->tr);
}

void crd_problem_restore_triads(crd_problem *pb)
{
  if (pb->tr) crd_triads_restore(pb->tr);
}

void crd_problem_elem_normals(const crd_problem *pb, int e, double *p0, double *p)
{
  crd_triads_elem_normals(pb, e, p0, p);
}

int crd_problem_refuse_triads(const crd_problem *pb, const char *what)
{
  if (!pb->tr) return 0;
  char list[160];
  crd_triads_list(pb->tr, list, sizeof list);
  return CRD_ERR(CRD_ERR_UNSUPPORTED,
                 "%s: %d intersection node(s) of a folded or branched shell (%s: patches whose normals differ by "
                 "more than crease_angle = %g degrees meet there) are not supported in %s; they run in static "
                 "analyses on the cpu backend (docs/element.md, \"Intersection nodes in the problem\")",
                 pb->m->case_path, pb->tr->n, list, pb->m->crease_angle, what);
}
