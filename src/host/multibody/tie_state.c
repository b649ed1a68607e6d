/* crdyn: the tied rigid bodies' energy and momenta, history columns and
 * checkpoint state (tie.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/tie.h"
#include "tie_priv.h"

/* K = 1/2 v^T M v, L = sum of momenta p_phi, J = phi x p_phi + sum d_i x p_i
 * (p = M v: the momenta conjugate to the triad) */
void crd_ties_measure(const crd_ties *t, double *K, double *L, double *J)
{
  for (int b = 0; t && b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    double p[12], c[3];
    tie_mass12(B->Mb, B->v, p);
    for (int k = 0; k < 12; ++k) *K += 0.5 * B->v[k] * p[k];
    for (int I = 0; I < 4; ++I) {
      crd_cross3(B->q + 3 * I, p + 3 * I, c);
      for (int k = 0; k < 3; ++k) J[k] += c[k];
    }
    for (int k = 0; k < 3; ++k) L[k] += p[k];
  }
}

int crd_ties_ncols(const crd_ties *t)
{
  int n = 0;
  for (int b = 0; t && b < t->nb; ++b) n += 13 + (t->b[b].nt > 0 ? 6 : 0);
  return n;
}

void crd_ties_col_names(const crd_ties *t, char **names, int len)
{
  static const char *const suf[13] = {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"};
  static const char *const rsuf[6] = {"tie_fx", "tie_fy", "tie_fz", "tie_mx", "tie_my", "tie_mz"};
  int k = 0;
  for (int b = 0; t && b < t->nb; ++b)
    for (int c = 0; c < 13; ++c) snprintf(names[k++], (size_t)len, "%s.%s", t->m->bodies[t->b[b].ib].name, suf[c]);
  for (int b = 0; t && b < t->nb; ++b)
    for (int c = 0; c < 6 && t->b[b].nt > 0; ++c)
      snprintf(names[k++], (size_t)len, "%s.%s", t->m->bodies[t->b[b].ib].name, rsuf[c]);
}

/* unit quaternion of the rotation matrix with columns d_1, d_2, d_3
 * (Shepperd: from the largest of the four squared components) */
static void quat_of_triad(const double *q, double *qt)
{
  double R[9];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) R[3 * k + i] = q[3 + 3 * i + k];
  double tr = R[0] + R[4] + R[8], c[4] = {1 + tr, 1 + 2 * R[0] - tr, 1 + 2 * R[4] - tr, 1 + 2 * R[8] - tr};
  int j = 0;
  for (int k = 1; k < 4; ++k)
    if (c[k] > c[j]) j = k;
  double s = 0.5 * sqrt(c[j]), f = 0.25 / s;
  switch (j) {
  case 0: qt[0] = s, qt[1] = (R[7] - R[5]) * f, qt[2] = (R[2] - R[6]) * f, qt[3] = (R[3] - R[1]) * f; break;
  case 1: qt[1] = s, qt[0] = (R[7] - R[5]) * f, qt[2] = (R[1] + R[3]) * f, qt[3] = (R[2] + R[6]) * f; break;
  case 2: qt[2] = s, qt[0] = (R[2] - R[6]) * f, qt[1] = (R[1] + R[3]) * f, qt[3] = (R[5] + R[7]) * f; break;
  default: qt[3] = s, qt[0] = (R[3] - R[1]) * f, qt[1] = (R[2] + R[6]) * f, qt[2] = (R[5] + R[7]) * f; break;
  }
  if (qt[0] < 0) for (int k = 0; k < 4; ++k) qt[k] = -qt[k];
}

void crd_ties_columns(const crd_ties *t, double *cols)
{
  int k = 0;
  for (int b = 0; t && b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    double w[3] = {0, 0, 0}, c[3];
    for (int i = 0; i < 3; ++i) { /* w = 1/2 sum d_i x d_i' */
      crd_cross3(B->q + 3 + 3 * i, B->v + 3 + 3 * i, c);
      for (int r = 0; r < 3; ++r) w[r] += 0.5 * c[r];
    }
    for (int r = 0; r < 3; ++r) cols[k + r] = B->q[r];
    quat_of_triad(B->q, cols + k + 3);
    for (int r = 0; r < 3; ++r) cols[k + 7 + r] = B->v[r], cols[k + 10 + r] = w[r];
    k += 13;
  }
  for (int b = 0; t && b < t->nb; ++b)
    if (t->b[b].nt > 0) {
      memcpy(cols + k, t->b[b].react, 6 * sizeof(double));
      k += 6;
    }
}

#define TIE_NSTATE 61 /* q, v, a (36), wext, react (6), explicit P, dP, Fl (18) */
size_t crd_ties_state_size(const crd_ties *t) { return t ? TIE_NSTATE * (size_t)t->nb : 0; }

void crd_ties_state_get(const crd_ties *t, double *s)
{
  for (int b = 0; t && b < t->nb; ++b, s += TIE_NSTATE) {
    const tie_body *B = &t->b[b];
    memcpy(s, B->q, 12 * sizeof(double));
    memcpy(s + 12, B->v, 12 * sizeof(double));
    memcpy(s + 24, B->a, 12 * sizeof(double));
    s[36] = B->wext;
    memcpy(s + 37, B->react, 6 * sizeof(double));
    memcpy(s + 43, B->P, 6 * sizeof(double));
    memcpy(s + 49, B->dP, 6 * sizeof(double));
    memcpy(s + 55, B->Fl, 6 * sizeof(double));
  }
}

void crd_ties_state_set(crd_ties *t, const double *s)
{
  for (int b = 0; t && b < t->nb; ++b, s += TIE_NSTATE) {
    tie_body *B = &t->b[b];
    memcpy(B->q, s, 12 * sizeof(double));
    memcpy(B->v, s + 12, 12 * sizeof(double));
    memcpy(B->a, s + 24, 12 * sizeof(double));
    B->wext = s[36];
    memcpy(B->react, s + 37, 6 * sizeof(double));
    memcpy(B->P, s + 43, 6 * sizeof(double));
    memcpy(B->dP, s + 49, 6 * sizeof(double));
    memcpy(B->Fl, s + 55, 6 * sizeof(double));
  }
}
