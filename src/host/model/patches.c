/* crdyn: the patches of a shell mesh at its nodes (see patches.h). */
#include <math.h>
#include <stdlib.h>

#include "crdyn/cr_frame.h"
#include "crdyn/error.h"
#include "crdyn/patches.h"

/* The unit normal of each element at each corner: x,xi x x,eta there, at
 * corner a proportional to (x_{a+1} - x_a) x (x_{a-1} - x_a). */
static int corner_normals(const crd_model *m, double *cn)
{
  for (int e = 0; e < m->ne; ++e)
    for (int a = 0; a < 4; ++a) {
      const int32_t *qd = m->quads + 4 * e;
      const double *x0 = m->x + 3 * qd[a], *x1 = m->x + 3 * qd[(a + 1) % 4], *x3 = m->x + 3 * qd[(a + 3) % 4];
      double u[3], v[3], n[3];
      for (int c = 0; c < 3; ++c) {
        u[c] = x1[c] - x0[c];
        v[c] = x3[c] - x0[c];
      }
      crd_cross3(u, v, n);
      double len = crd_norm3(n);
      if (!(len > 0))
        return CRD_ERR(CRD_ERR_INPUT, "%s: element %d (nodes %d %d %d %d) is degenerate at node %d", m->case_path, e,
                       qd[0], qd[1], qd[2], qd[3], qd[a]);
      for (int c = 0; c < 3; ++c) cn[12 * e + 3 * a + c] = n[c] / len;
    }
  return 0;
}

static int uf_find(int *up, int k)
{
  while (up[k] != k) k = up[k] = up[up[k]];
  return k;
}

/* Whether corners (e, a) and (f, b) at the same node share an edge: one of
 * e's two neighbours of the node is one of f's. */
static int share_edge(const int32_t *q, int e, int a, int f, int b)
{
  int e1 = q[4 * e + (a + 1) % 4], e3 = q[4 * e + (a + 3) % 4];
  int f1 = q[4 * f + (b + 1) % 4], f3 = q[4 * f + (b + 3) % 4];
  return e1 == f1 || e1 == f3 || e3 == f1 || e3 == f3;
}

static double angle_deg(const double *u, const double *v)
{
  return acos(fmax(-1.0, fmin(1.0, crd_dot3(u, v)))) * 180.0 / M_PI;
}

/* One node's corners list[0..d): union-find over the pairs that share an
 * edge and lie within the crease angle, then the patch numbers in order of
 * first appearance and the largest angle across patches. */
static void group_node(crd_patches *pt, const int32_t *q, const int *list, int d, double crease_deg, int *up, int *id)
{
  for (int k = 0; k < d; ++k) up[k] = k;
  for (int k = 0; k < d; ++k)
    for (int j = k + 1; j < d; ++j) {
      int e = list[k] / 4, a = list[k] % 4, f = list[j] / 4, b = list[j] % 4;
      if (share_edge(q, e, a, f, b) && angle_deg(pt->cn + 3 * list[k], pt->cn + 3 * list[j]) <= crease_deg)
        up[uf_find(up, k)] = uf_find(up, j);
    }
  int np = 0;
  for (int k = 0; k < d; ++k) id[k] = -1;
  for (int k = 0; k < d; ++k) {
    int r = uf_find(up, k);
    if (id[r] < 0) id[r] = np++;
    pt->corner_patch[list[k]] = id[r];
  }
  int i = q[list[0]];
  pt->npatch[i] = np;
  for (int k = 0; k < d; ++k)
    for (int j = k + 1; j < d; ++j) {
      int e = list[k] / 4, a = list[k] % 4, f = list[j] / 4, b = list[j] % 4;
      if (uf_find(up, k) != uf_find(up, j) && share_edge(q, e, a, f, b))
        pt->split[i] = fmax(pt->split[i], angle_deg(pt->cn + 3 * list[k], pt->cn + 3 * list[j]));
    }
  pt->nsplit += np > 1;
}

/* The corners (4 e + a) of each node, grouped node by node (CSR). */
static int node_corners(const crd_model *m, int **first, int **list)
{
  CRD_CALL(CRD_CALLOC((size_t)m->nn + 1, first));
  CRD_CALL(CRD_CALLOC(4 * (size_t)m->ne, list));
  int *f = *first;
  for (int k = 0; k < 4 * m->ne; ++k) f[m->quads[k] + 1]++;
  for (int i = 0; i < m->nn; ++i) f[i + 1] += f[i];
  int *fill;
  CRD_CALL(CRD_CALLOC((size_t)m->nn, &fill));
  for (int k = 0; k < 4 * m->ne; ++k) {
    int i = m->quads[k];
    (*list)[f[i] + fill[i]++] = k;
  }
  free(fill);
  return 0;
}

static int build(crd_patches *pt, const crd_model *m, double crease_deg)
{
  int *first = NULL, *list = NULL, *up = NULL, *id = NULL, dmax = 0, rc;
  if ((rc = corner_normals(m, pt->cn)) || (rc = node_corners(m, &first, &list))) goto out;
  for (int i = 0; i < m->nn; ++i) dmax = first[i + 1] - first[i] > dmax ? first[i + 1] - first[i] : dmax;
  if ((rc = CRD_CALLOC((size_t)dmax + 1, &up)) || (rc = CRD_CALLOC((size_t)dmax + 1, &id))) goto out;
  for (int i = 0; i < m->nn; ++i)
    if (first[i + 1] > first[i]) group_node(pt, m->quads, list + first[i], first[i + 1] - first[i], crease_deg, up, id);
out:
  free(first); free(list); free(up); free(id);
  return rc;
}

int crd_patches_create(const crd_model *m, double crease_deg, crd_patches **out)
{
  crd_patches *pt;
  *out = NULL;
  CRD_CALL(CRD_CALLOC(1, &pt));
  pt->nn = m->nn;
  pt->ne = m->ne;
  int rc;
  if ((rc = CRD_CALLOC(12 * (size_t)m->ne, &pt->cn)) || (rc = CRD_CALLOC(4 * (size_t)m->ne, &pt->corner_patch)) ||
      (rc = CRD_CALLOC((size_t)m->nn, &pt->npatch)) || (rc = CRD_CALLOC((size_t)m->nn, &pt->split)) ||
      (rc = build(pt, m, crease_deg))) {
    crd_patches_destroy(&pt);
    return CRD_TRACE(rc);
  }
  *out = pt;
  return 0;
}

void crd_patches_destroy(crd_patches **pp)
{
  if (!*pp) return;
  crd_patches *pt = *pp;
  free(pt->cn); free(pt->corner_patch); free(pt->npatch); free(pt->split);
  free(pt);
  *pp = NULL;
}
