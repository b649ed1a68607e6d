/* crdyn: the shared motion state of the dynamic integrators (dynamics.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/dynamics.h"
#include "crdyn/tie.h"
#include "crdyn/error.h"
#include "crdyn/cr_frame.h"
#include "crdyn/shell_mass.h"
#include "crdyn/triads.h"
#include "crdyn/explicit_node.h" /* crd_exn_measure: shared with the device loops */

/* The element's initial local coordinates (the frame of the initial state). */
static void initial_local(const crd_problem *pb, int e, double *xl0)
{
  const crd_model *m = pb->m;
  double X0[12], zero[12] = {0}, p0[12], ul[20], r0[8];
  crd_cr_frame F;
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) {
      X0[3 * a + c] = m->x[3 * m->quads[4 * e + a] + c];
      p0[3 * a + c] = pb->p0[3 * m->quads[4 * e + a] + c];
    }
  crd_q4_local_vars(X0, zero, p0, p0, &F, xl0, ul, r0);
}

int crd_dyn_create(const crd_problem *pb, crd_dyn **out)
{
  crd_dyn *dy;
  size_t nn = (size_t)pb->nn;
  *out = NULL;
  CRD_CALL(CRD_CALLOC(1, &dy));
  if (CRD_CALLOC(16 * (size_t)pb->ne, &dy->C) || CRD_CALLOC(nn, &dy->mlump) || CRD_CALLOC(nn, &dy->plump) ||
      CRD_CALLOC(3 * nn, &dy->v) || CRD_CALLOC(3 * nn, &dy->a) || CRD_CALLOC(3 * nn, &dy->w) ||
      CRD_CALLOC(3 * nn, &dy->wa) || CRD_CALLOC(3 * nn, &dy->a_prev) || CRD_CALLOC(3 * nn, &dy->wa_prev)) {
    crd_dyn_destroy(&dy);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  for (int e = 0; e < pb->ne; ++e) {
    const crd_section *s = &pb->m->sections[pb->m->elem_section[e]];
    double xl0[12], *C = dy->C + 16 * (size_t)e;
    initial_local(pb, e, xl0);
    crd_q4_mass_coef(xl0, s->rho, s->thickness, C);
    for (int i = 0; i < 4; ++i) {
      int nd = pb->m->quads[4 * e + i];
      for (int j = 0; j < 4; ++j) {
        dy->mlump[nd] += C[4 * i + j];
        dy->plump[nd] += s->thickness * s->thickness / 12.0 * C[4 * i + j];
      }
    }
  }
  dy->rot_mass_scaling = 1.0;
  if (pb->tr) {
    int rc = crd_ex_triads_create(dy, pb);
    if (rc) {
      crd_dyn_destroy(&dy);
      return CRD_TRACE(rc);
    }
  }
  *out = dy;
  return 0;
}

void crd_dyn_destroy(crd_dyn **pdy)
{
  crd_dyn *dy = *pdy;
  if (!dy) return;
  free(dy->C); free(dy->mlump); free(dy->plump); free(dy->v); free(dy->a); free(dy->w); free(dy->wa); free(dy->a_prev); free(dy->wa_prev);
  free(dy->tJb); free(dy->tpi); free(dy->tom); free(dy->tm); free(dy->tRd); free(dy->tRdd);
  free(dy);
  *pdy = NULL;
}

void crd_dyn_set_initial(crd_dyn *dy, const crd_problem *pb)
{
  const crd_initial *in = &pb->m->initial;
  memset(dy->v, 0, 3 * sizeof(double) * (size_t)pb->nn);
  memset(dy->w, 0, 3 * sizeof(double) * (size_t)pb->nn);
  if (pb->tr) {
    double zero[3] = {0.0, 0.0, 0.0};
    crd_ex_triads_initial(dy, pb, dy->rot_mass_scaling, in->has_velocity ? in->angular_velocity : zero);
  }
  if (!in->has_velocity) return;
  for (int i = 0; i < pb->nn; ++i) {
    double r[3], wr[3], wp[3];
    for (int c = 0; c < 3; ++c) r[c] = pb->m->x[3 * i + c] + pb->d[3 * i + c] - in->about[c];
    crd_cross3(in->angular_velocity, r, wr);
    crd_cross3(in->angular_velocity, pb->p + 3 * i, wp);
    for (int c = 0; c < 3; ++c) {
      dy->v[3 * i + c] = in->velocity[c] + wr[c];
      dy->w[3 * i + c] = wp[c];
    }
  }
}

void crd_dyn_measure(crd_dyn *dy, const crd_problem *pb)
{
  const crd_model *m = pb->m;
  double K = 0.0, L[3] = {0, 0, 0}, J[3] = {0, 0, 0};
  for (int e = 0; e < pb->ne; ++e) {
    double x[12], p[12], v[12], w[12];
    for (int a = 0; a < 4; ++a) {
      int nd = m->quads[4 * e + a];
      for (int c = 0; c < 3; ++c) {
        x[3 * a + c] = m->x[3 * nd + c] + pb->d[3 * nd + c];
        p[3 * a + c] = pb->p[3 * nd + c];
        v[3 * a + c] = dy->v[3 * nd + c];
        w[3 * a + c] = dy->w[3 * nd + c];
      }
    }
    if (pb->tr && pb->tr->elem_of[e] >= 0) { /* a fold element: its corners' normals r = R c, r' = R' c */
      double p0[12];
      crd_triads_elem_normals(pb, e, p0, p);
      crd_triads_elem_rates(pb, e, dy->w, dy->tRd, w);
    }
    const crd_section *s = &m->sections[m->elem_section[e]];
    K += crd_q4_kinetic(dy->C + 16 * (size_t)e, s->thickness, x, p, v, w, L, J);
  }
  crd_ties_measure(dy->ties, &K, L, J);
  dy->kinetic = K;
  memcpy(dy->L, L, sizeof L);
  memcpy(dy->J, J, sizeof J);
}

void crd_dyn_pair(const crd_problem *pb, int i, const double *vec3, double *ab)
{
  int n, mm;
  crd_dir_pair(pb->l[i], &n, &mm);
  ab[0] = vec3[n];
  ab[1] = vec3[mm];
}

void crd_dyn_assemble_mass(const crd_dyn *dy, const crd_problem *pb, crd_csr *A, double cm)
{
  const crd_model *m = pb->m;
  if (pb->tr) crd_im_triads_mass(dy, pb, A, cm, NULL); /* the fold elements */
  for (int e = 0; e < pb->ne; ++e) {
    if (pb->tr && pb->tr->elem_of[e] >= 0) continue;
    double p[12], me[400] = {0};
    int l[4];
    for (int a = 0; a < 4; ++a) {
      int nd = m->quads[4 * e + a];
      for (int c = 0; c < 3; ++c) p[3 * a + c] = pb->p[3 * nd + c];
      l[a] = pb->l[nd];
    }
    const crd_section *s = &m->sections[m->elem_section[e]];
    crd_q4_mass(dy->C + 16 * (size_t)e, s->thickness, p, l, NULL, 1.0, cm, me, NULL);
    const int32_t *sc = pb->scatter + 210 * (size_t)e;
    int t = 0;
    for (int a = 0; a < 20; ++a)
      for (int b = a; b < 20; ++b, ++t)
        if (sc[t] >= 0) A->val[sc[t]] += me[20 * a + b];
  }
}

void crd_dyn_constrain(crd_dyn *dy, const crd_problem *pb)
{
  for (int i = 0; i < pb->nn; ++i) {
    for (int c = 0; c < 3; ++c)
      if (pb->eq[5 * i + c] < 0) {
        int presc = 0;
        for (int k = 0; k < pb->npres; ++k) presc |= pb->pres[k].node == i && pb->pres[k].comp == c;
        if (!presc) dy->v[3 * i + c] = dy->a[3 * i + c] = 0.0;
      }
    if (pb->tr && pb->tr->of[i] >= 0) continue; /* the triad's rates: explicit_triads.c */
    double V[2], A[2], A1[6], A2[3];
    crd_dyn_pair(pb, i, dy->w + 3 * i, V);
    crd_dyn_pair(pb, i, dy->wa + 3 * i, A);
    int fixed = 0;
    for (int s = 0; s < 2; ++s)
      if (pb->eq[5 * i + 3 + s] < 0) { V[s] = A[s] = 0.0; fixed = 1; }
    if (!fixed) continue;
    crd_dir_A1(pb->p + 3 * i, pb->l[i], A1);
    crd_q4_A2(pb->p + 3 * i, pb->l[i], V, A2);
    for (int c = 0; c < 3; ++c) {
      dy->w[3 * i + c] = A1[2 * c] * V[0] + A1[2 * c + 1] * V[1];
      dy->wa[3 * i + c] = A1[2 * c] * A[0] + A1[2 * c + 1] * A[1] + A2[c];
    }
  }
}

void crd_dyn_measure_lumped(crd_dyn *dy, const crd_problem *pb, double rot_scale)
{
  double K = 0.0, L[3] = {0, 0, 0}, J[3] = {0, 0, 0};
  for (int i = 0; i < pb->nn; ++i) {
    double x[3], o[7];
    for (int c = 0; c < 3; ++c) x[c] = pb->m->x[3 * i + c] + pb->d[3 * i + c];
    double P = (pb->tr && pb->tr->of[i] >= 0) ? 0.0 : rot_scale * dy->plump[i]; /* a triad's: below */
    crd_exn_measure(dy->mlump[i], P, x, dy->v + 3 * i, pb->p + 3 * i, dy->w + 3 * i, o);
    K += o[0];
    for (int c = 0; c < 3; ++c) {
      L[c] += o[1 + c];
      J[c] += o[4 + c];
    }
  }
  if (pb->tr) crd_ex_triads_measure(dy, pb, &K, J);
  crd_ties_measure(dy->ties, &K, L, J); /* the bodies' own mass (the tied nodes' is above) */
  dy->kinetic = K;
  memcpy(dy->L, L, sizeof L);
  memcpy(dy->J, J, sizeof J);
}

double crd_dyn_element_length(const crd_model *m)
{
  double s = 0.0;
  for (int e = 0; e < m->ne; ++e) {
    const int32_t *q = m->quads + 4 * e;
    double a = 0.0, b = 0.0;
    for (int c = 0; c < 3; ++c) {
      double u = m->x[3 * q[2] + c] - m->x[3 * q[0] + c], v = m->x[3 * q[3] + c] - m->x[3 * q[1] + c];
      a += u * u;
      b += v * v;
    }
    s += 0.5 * (sqrt(a) + sqrt(b));
  }
  return m->ne > 0 ? s / (m->ne * sqrt(2.0)) : 1.0;
}

double crd_dyn_rate_norm(const crd_dyn *dy, const crd_problem *pb, double len)
{
  double v2 = 0.0, L2 = len * len;
  for (size_t k = 0; k < 3 * (size_t)pb->nn; ++k) v2 += dy->v[k] * dy->v[k] + L2 * dy->w[k] * dy->w[k];
  return sqrt(v2);
}
