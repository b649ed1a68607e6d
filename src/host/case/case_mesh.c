/* crdyn case loader: the mesh and the sets (docs/case_format.md "mesh", "sets").
 *
 * Parts (inline, Gmsh file, generated) are concatenated; with several parts,
 * or when a part gives "merge_tolerance", nodes closer than the tolerance
 * (the largest one given, default 1e-9 x the model's bounding-box diagonal)
 * are merged with a spatial hash, keeping the first occurrence's position and
 * the order of first occurrences (so a single part keeps its numbering).
 * User node and element indices (sets, probes) refer to the merged numbering.
 * Then every element is checked: repeated nodes, zero area, inverted or
 * concave corners, orientation consistent with its neighbours (an edge
 * shared by exactly two quads must be run in opposite directions); and every
 * node must belong to an element.  Sets: "all" first, then the parts' sets
 * (united by name), then the user's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_priv.h"
#include "crdyn/mesh_io.h"

typedef struct part_src {
  char jp[CRD_JP_MAX];                 /* "$.mesh" or "$.mesh[i]" */
  int is_inline;                       /* nodes/quads given in the case: element paths are exact */
  int noff, eoff;                      /* offsets into the concatenated arrays */
} part_src;

static int cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

void crd_sort_unique(int32_t *a, int *n)
{
  if (*n <= 1) return;
  qsort(a, (size_t)*n, sizeof *a, cmp_i32);
  int k = 1;
  for (int i = 1; i < *n; ++i)
    if (a[i] != a[k - 1]) a[k++] = a[i];
  *n = k;
}

/* Append a set to the model, taking ownership of nodes and elems. */
static int push_set(crd_model *m, const char *name, int32_t *nodes, int nn, int32_t *elems, int ne)
{
  crd_set *s = realloc(m->sets, sizeof *s * (size_t)(m->nsets + 1));
  if (!s) {
    free(nodes);
    free(elems);
    return CRD_ERR(CRD_ERR_MEM, "out of memory adding set '%s'", name);
  }
  m->sets = s;
  s += m->nsets++;
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->nodes = nodes, s->nn = nn, s->elems = elems, s->ne = ne;
  return 0;
}

/* Sort the set's lists and add the nodes of its elements. */
static int set_finish(const crd_model *m, crd_set *s)
{
  crd_sort_unique(s->elems, &s->ne);
  if (s->ne > 0) {
    int32_t *p = realloc(s->nodes, sizeof *p * ((size_t)s->nn + 4 * (size_t)s->ne));
    if (!p) return CRD_ERR(CRD_ERR_MEM, "out of memory in set '%s'", s->name);
    s->nodes = p;
    for (int i = 0; i < s->ne; ++i)
      for (int a = 0; a < 4; ++a) p[s->nn++] = m->quads[4 * (size_t)s->elems[i] + a];
  }
  crd_sort_unique(s->nodes, &s->nn);
  return 0;
}

/* ---- parts ------------------------------------------------------------ */

static int parse_inline(const crd_case_ctx *c, const cJSON *part, const char *jp, crd_mesh_part *out)
{
  const cJSON *nodes, *quads, *e;
  char ap[CRD_JP_MAX], ep[CRD_JP_MAX], vp[CRD_JP_MAX];
  int nn, ne, i = 0;
  CRD_CALL(crd_json_get(c, part, jp, "nodes", 1, &nodes));
  CRD_CALL(crd_json_get(c, part, jp, "quads", 1, &quads));
  CRD_CALL(crd_json_array(c, nodes, crd_jp_key(ap, jp, "nodes"), &nn));
  CRD_CALL(CRD_CALLOC(3 * (size_t)nn, &out->x));
  out->nn = nn;
  cJSON_ArrayForEach(e, nodes) {
    CRD_CALL(crd_json_vec(c, e, crd_jp_idx(ep, ap, i), 3, out->x + 3 * (size_t)i));
    ++i;
  }
  CRD_CALL(crd_json_array(c, quads, crd_jp_key(ap, jp, "quads"), &ne));
  CRD_CALL(CRD_CALLOC(4 * (size_t)ne, &out->quads));
  out->ne = ne;
  i = 0;
  cJSON_ArrayForEach(e, quads) {
    const cJSON *v;
    int a = 0;
    crd_jp_idx(ep, ap, i);
    if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 4)
      return CASE_BAD(c, ep, "expected an array of 4 node indices");
    cJSON_ArrayForEach(v, e) {
      int k;
      CRD_CALL(crd_json_int(c, v, crd_jp_idx(vp, ep, a), &k));
      if (k < 0 || k >= nn)
        return CASE_BAD(c, vp, "node index %d out of range (the part has %d nodes)", k, nn);
      out->quads[4 * (size_t)i + a++] = k;
    }
    ++i;
  }
  return 0;
}

static int load_part(const crd_case_ctx *c, const cJSON *item, part_src *ps, crd_mesh_part *out,
                     double *tol, int *has_tol)
{
  static const char *const keys[] = {"nodes", "quads", "file", "generate", "merge_tolerance", NULL};
  const char *jp = ps->jp;
  char kp[CRD_JP_MAX];
  const cJSON *file, *gen, *t;
  int rc;
  CRD_CALL(crd_json_keys(c, item, jp, keys));
  file = cJSON_GetObjectItemCaseSensitive(item, "file");
  gen = cJSON_GetObjectItemCaseSensitive(item, "generate");
  int is_inline = cJSON_HasObjectItem(item, "nodes") || cJSON_HasObjectItem(item, "quads");
  int kinds = is_inline + !!file + !!gen;
  if (kinds != 1)
    return CASE_BAD(c, jp, "a mesh part takes exactly one of \"nodes\"+\"quads\", \"file\" or \"generate\"");
  if ((t = cJSON_GetObjectItemCaseSensitive(item, "merge_tolerance"))) {
    double v;
    CRD_CALL(crd_json_num(c, t, crd_jp_key(kp, jp, "merge_tolerance"), &v));
    if (v < 0) return CASE_BAD(c, kp, "merge_tolerance must be >= 0");
    if (!*has_tol || v > *tol) *tol = v;
    *has_tol = 1;
  }
  if (is_inline) {
    ps->is_inline = 1;
    CRD_CALL(parse_inline(c, item, jp, out));
  } else if (file) {
    char name[CRD_PATH_MAX], full[2 * CRD_PATH_MAX];
    CRD_CALL(crd_json_str(c, file, crd_jp_key(kp, jp, "file"), 1, name, sizeof name));
    snprintf(full, sizeof full, "%s%s", name[0] == '/' ? "" : c->dir, name);
    rc = crd_gmsh_read(full, out);
    if (rc < 0) return CRD_WRAP(rc, NULL, "%s: %s: ", c->file, kp); /* where the file was asked for */
  } else {
    rc = crd_mesh_generate(gen, c->file, crd_jp_key(kp, jp, "generate"), out);
    if (rc < 0) return CRD_TRACE(rc);
  }
  if (out->nn <= 0 || out->ne <= 0) return CASE_BAD(c, jp, "the part has no quadrilateral elements");
  for (size_t k = 0; k < 4 * (size_t)out->ne; ++k)
    if (out->quads[k] < 0 || out->quads[k] >= out->nn)
      return CASE_BAD(c, jp, "element %zu references node %d, outside the part (%d nodes)", k / 4,
                      (int)out->quads[k], out->nn);
  for (int s = 0; s < out->nsets; ++s) {
    const crd_set *st = &out->sets[s];
    for (int i = 0; i < st->nn; ++i)
      if (st->nodes[i] < 0 || st->nodes[i] >= out->nn)
        return CASE_BAD(c, jp, "set '%s' lists node %d, outside the part", st->name, (int)st->nodes[i]);
    for (int i = 0; i < st->ne; ++i)
      if (st->elems[i] < 0 || st->elems[i] >= out->ne)
        return CASE_BAD(c, jp, "set '%s' lists element %d, outside the part", st->name, (int)st->elems[i]);
  }
  return 0;
}

/* ---- merging coincident nodes ------------------------------------------ */

static int64_t cell_of(double v, double h)
{
  double q = floor(v / h);
  if (q > 4e18) q = 4e18;
  if (q < -4e18) q = -4e18;
  return (int64_t)q;
}

static size_t cell_hash(int64_t i, int64_t j, int64_t k)
{
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)j * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  h ^= (uint64_t)k * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
  return (size_t)(h ^ (h >> 29));
}

/* map[i]: merged index of node i (order of first occurrence); *nnew: merged count. */
static int merge_nodes(const double *x, int n, double tol, double size, int32_t *map, int *nnew)
{
  size_t nb = 1;
  while (nb < 2 * (size_t)n) nb <<= 1;
  int32_t *head = malloc(sizeof *head * nb), *next = malloc(sizeof *next * (size_t)n);
  if (!head || !next) {
    free(head);
    free(next);
    return CRD_ERR(CRD_ERR_MEM, "out of memory merging %d nodes", n);
  }
  memset(head, 0xff, sizeof *head * nb);                     /* all -1 */
  double h = fmax(tol, fmax(1e-12 * size, 1e-300));          /* cells no smaller than tol */
  *nnew = 0;
  for (int i = 0; i < n; ++i) {
    const double *p = x + 3 * (size_t)i;
    int64_t ci = cell_of(p[0], h), cj = cell_of(p[1], h), ck = cell_of(p[2], h);
    int found = -1;
    for (int d = 0; d < 27; ++d) {
      size_t b = cell_hash(ci + d % 3 - 1, cj + d / 3 % 3 - 1, ck + d / 9 - 1) & (nb - 1);
      for (int32_t r = head[b]; r >= 0; r = next[r]) {
        const double *q = x + 3 * (size_t)r;
        double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        if (dx * dx + dy * dy + dz * dz <= tol * tol && (found < 0 || map[r] < map[found])) found = r;
      }
    }
    if (found >= 0) {
      map[i] = map[found];
    } else {
      size_t b = cell_hash(ci, cj, ck) & (nb - 1);
      map[i] = (*nnew)++;
      next[i] = head[b];
      head[b] = i;
    }
  }
  free(head);
  free(next);
  return 0;
}

/* ---- element checks ----------------------------------------------------- */

static void sub3(const double *a, const double *b, double *r)
{ r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2]; }
static void cross3(const double *a, const double *b, double *r)
{ r[0] = a[1] * b[2] - a[2] * b[1]; r[1] = a[2] * b[0] - a[0] * b[2]; r[2] = a[0] * b[1] - a[1] * b[0]; }
static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* 0 good; 1 zero area; 2 zero angle at *corner; 3 inverted or concave at *corner. */
static int quad_shape(const double *x, const int32_t *q, int *corner)
{
  const double *X[4];
  double d1[3], d2[3], n[3], l2 = 0, e[3];
  for (int a = 0; a < 4; ++a) X[a] = x + 3 * (size_t)q[a];
  for (int a = 0; a < 4; ++a) {
    sub3(X[(a + 1) % 4], X[a], e);
    l2 = fmax(l2, dot3(e, e));
  }
  sub3(X[2], X[0], d1);
  sub3(X[3], X[1], d2);
  cross3(d1, d2, n);                                         /* twice the vector area */
  double nn = sqrt(dot3(n, n));
  if (!(nn > 1e-12 * l2)) return 1;
  for (int a = 0; a < 4; ++a) {                              /* corner cross products */
    double u[3], v[3], ca[3];
    sub3(X[(a + 1) % 4], X[a], u);
    sub3(X[(a + 3) % 4], X[a], v);
    cross3(u, v, ca);
    double s = dot3(ca, n) / nn;
    *corner = a;
    if (s < -1e-12 * l2) return 3;
    if (s <= 1e-12 * l2) return 2;
  }
  double t1[3], t2[3], u[3], v[3];                           /* triangles (1,2,3), (1,3,4) */
  sub3(X[1], X[0], u);
  cross3(u, d1, t1);
  sub3(X[3], X[0], v);
  cross3(d1, v, t2);
  *corner = 0;
  return dot3(t1, t2) > 0 ? 0 : 3;
}

static const char *elem_jp(char *buf, const part_src *ps, int np, int e)
{
  int p = np - 1;
  while (p > 0 && ps[p].eoff > e) --p;
  if (ps[p].is_inline) {
    char qp[CRD_JP_MAX];
    return crd_jp_idx(buf, crd_jp_key(qp, ps[p].jp, "quads"), e - ps[p].eoff);
  }
  snprintf(buf, CRD_JP_MAX, "%s", ps[p].jp);
  return buf;
}

typedef struct edge_rec { int32_t lo, hi, e, fwd; } edge_rec;

static int cmp_edge(const void *pa, const void *pb)
{
  const edge_rec *a = pa, *b = pb;
  if (a->lo != b->lo) return (a->lo > b->lo) - (a->lo < b->lo);
  if (a->hi != b->hi) return (a->hi > b->hi) - (a->hi < b->hi);
  return (a->e > b->e) - (a->e < b->e);
}

static int check_elements(const crd_case_ctx *c, const crd_model *m, const part_src *ps, int np,
                          const int32_t *map, int N)
{
  char jp[CRD_JP_MAX];
  for (int e = 0; e < m->ne; ++e) {
    const int32_t *q = m->quads + 4 * (size_t)e;
    int corner = 0, why;
#define ELEM_BAD(...)                                                                   \
    do {                                                                                \
      char what_[256];                                                                  \
      snprintf(what_, sizeof what_, __VA_ARGS__);                                       \
      return CASE_BAD(c, elem_jp(jp, ps, np, e), "element %d (nodes %d %d %d %d) %s", e, \
                      (int)q[0], (int)q[1], (int)q[2], (int)q[3], what_);               \
    } while (0)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        if (q[a] == q[b]) ELEM_BAD("is degenerate: node %d is repeated", (int)q[a]);
    why = quad_shape(m->x, q, &corner);
    if (why == 1) ELEM_BAD("is degenerate: zero area");
    if (why == 2) ELEM_BAD("is degenerate: zero angle at node %d", (int)q[corner]);
    if (why == 3) ELEM_BAD("is inverted or concave at node %d (bow-tie or re-entrant corner)", (int)q[corner]);
#undef ELEM_BAD
  }

  /* orientation: an edge shared by exactly two quads is run once each way */
  edge_rec *ed = malloc(sizeof *ed * 4 * (size_t)m->ne);
  if (!ed) return CRD_ERR(CRD_ERR_MEM, "out of memory checking element orientation");
  for (int e = 0; e < m->ne; ++e)
    for (int a = 0; a < 4; ++a) {
      int32_t i = m->quads[4 * (size_t)e + a], j = m->quads[4 * (size_t)e + (a + 1) % 4];
      edge_rec r = {i < j ? i : j, i < j ? j : i, e, i < j};
      ed[4 * (size_t)e + a] = r;
    }
  size_t ned = 4 * (size_t)m->ne;
  qsort(ed, ned, sizeof *ed, cmp_edge);
  for (size_t k = 0; k < ned;) {
    size_t g = k + 1;
    while (g < ned && ed[g].lo == ed[k].lo && ed[g].hi == ed[k].hi) ++g;
    if (g - k == 2 && ed[k].fwd == ed[k + 1].fwd) {
      edge_rec a = ed[k], b = ed[k + 1];
      free(ed);
      return CASE_BAD(c, elem_jp(jp, ps, np, b.e),
                      "element %d is oriented opposite to its neighbour element %d (both run the "
                      "edge %d-%d the same way): list the nodes of all quads counter-clockwise "
                      "about the same side", (int)b.e, (int)a.e, (int)(a.fwd ? a.lo : a.hi),
                      (int)(a.fwd ? a.hi : a.lo));
    }
    k = g;
  }
  free(ed);

  /* every node on an element */
  unsigned char *used = calloc((size_t)m->nn, 1);
  if (!used) return CRD_ERR(CRD_ERR_MEM, "out of memory checking nodes");
  for (size_t k = 0; k < 4 * (size_t)m->ne; ++k) used[m->quads[k]] = 1;
  for (int i = 0; i < m->nn; ++i)
    if (!used[i]) {                                          /* name the part it came from */
      int j = 0, p = np - 1;
      while (j < N && map[j] != i) ++j;
      while (p > 0 && ps[p].noff > j) --p;
      free(used);
      return CASE_BAD(c, ps[p].jp, "node %d (node %d of this part) at (%g, %g, %g) belongs to no "
                      "element (a free node makes the system singular)", i, j - ps[p].noff,
                      m->x[3 * i], m->x[3 * i + 1], m->x[3 * i + 2]);
    }
  free(used);
  return 0;
}

/* ---- the mesh ------------------------------------------------------------ */

static int mesh_sets(const crd_case_ctx *c, crd_model *m, const crd_mesh_part *parts,
                     const part_src *ps, int np, const int32_t *map)
{
  int32_t *nodes, *elems;
  CRD_CALL(CRD_CALLOC(m->nn, &nodes));
  CRD_CALL(CRD_CALLOC(m->ne, &elems));
  for (int i = 0; i < m->nn; ++i) nodes[i] = i;
  for (int e = 0; e < m->ne; ++e) elems[e] = e;
  CRD_CALL(push_set(m, "all", nodes, m->nn, elems, m->ne));
  for (int p = 0; p < np; ++p)
    for (int s = 0; s < parts[p].nsets; ++s) {
      const crd_set *src = &parts[p].sets[s];
      if (!src->name[0] || !strcmp(src->name, "all"))
        return CASE_BAD(c, ps[p].jp, "the part defines a set named '%s' (reserved)", src->name);
      int k = crd_model_find_set(m, src->name);
      if (k < 0) {
        CRD_CALL(push_set(m, src->name, NULL, 0, NULL, 0));
        k = m->nsets - 1;
      }
      crd_set *dst = &m->sets[k];                            /* unite with the same name */
      int32_t *pn = realloc(dst->nodes, sizeof *pn * ((size_t)dst->nn + (size_t)src->nn + 1));
      if (!pn) return CRD_ERR(CRD_ERR_MEM, "out of memory in set '%s'", src->name);
      dst->nodes = pn;
      for (int i = 0; i < src->nn; ++i) pn[dst->nn++] = map[ps[p].noff + src->nodes[i]];
      int32_t *pe = realloc(dst->elems, sizeof *pe * ((size_t)dst->ne + (size_t)src->ne + 1));
      if (!pe) return CRD_ERR(CRD_ERR_MEM, "out of memory in set '%s'", src->name);
      dst->elems = pe;
      for (int i = 0; i < src->ne; ++i) pe[dst->ne++] = ps[p].eoff + src->elems[i];
    }
  for (int k = 1; k < m->nsets; ++k) {
    CRD_CALL(set_finish(m, &m->sets[k]));
    if (m->sets[k].nn == 0) return CASE_BAD(c, "$.mesh", "the mesh's set '%s' is empty", m->sets[k].name);
  }
  return 0;
}

/* The parts' coordinates one after the other in xall (3 N), checked finite;
 * the model size (the bounding box's diagonal) into c->size. */
static int concat_coords(crd_case_ctx *c, const crd_mesh_part *parts, const part_src *ps, int np, double *xall)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int p = 0; p < np; ++p)
    for (int i = 0; i < 3 * parts[p].nn; ++i) {
      double v = parts[p].x[i];
      if (!isfinite(v)) return CASE_BAD(c, ps[p].jp, "node %d has a coordinate that is not finite", i / 3);
      xall[3 * (size_t)ps[p].noff + i] = v;
      lo[i % 3] = fmin(lo[i % 3], v), hi[i % 3] = fmax(hi[i % 3], v);
    }
  double size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
  c->size = size > 0 ? size : 1;
  return 0;
}

/* The model's nodes and quads from the N concatenated nodes: coincident
 * nodes merged when there are several parts or a merge tolerance (map: old
 * to new node; the first occurrence of a merged node wins). */
static int merge_into_model(crd_case_ctx *c, crd_model *m, const crd_mesh_part *parts, const part_src *ps, int np,
                            const double *xall, int N, int E, double tol, int has_tol, int32_t *map)
{
  int nnew = 0;
  if (np > 1 || has_tol) {
    CRD_CALL(merge_nodes(xall, N, has_tol ? tol : 1e-9 * c->size, c->size, map, &nnew));
  } else {
    for (int i = 0; i < N; ++i) map[i] = i;
    nnew = N;
  }
  CRD_CALL(CRD_CALLOC(3 * (size_t)nnew, &m->x));
  CRD_CALL(CRD_CALLOC(4 * (size_t)E, &m->quads));
  m->nn = nnew, m->ne = E;
  for (int i = N - 1; i >= 0; --i)
    memcpy(m->x + 3 * (size_t)map[i], xall + 3 * (size_t)i, 3 * sizeof(double));
  for (int p = 0; p < np; ++p)
    for (int k = 0; k < 4 * parts[p].ne; ++k)
      m->quads[4 * (size_t)ps[p].eoff + k] = map[ps[p].noff + parts[p].quads[k]];
  return 0;
}

static void free_parts(crd_mesh_part *parts, const part_src *ps, int np)
{
  for (int p = 0; parts && p < np; ++p) {
    if (ps && ps[p].is_inline) {                             /* ours: nodes and quads only */
      free(parts[p].x);
      free(parts[p].quads);
    } else {
      crd_mesh_part_free(&parts[p]);
    }
  }
  free(parts);
}

int crd_case_mesh(crd_case_ctx *c, const cJSON *mesh, crd_model *m)
{
  int np, rc = 0, has_tol = 0, N = 0, E = 0;
  double tol = 0;
  crd_mesh_part *parts = NULL;
  part_src *ps = NULL;
  int32_t *map = NULL;
  double *xall = NULL;
  if (cJSON_IsObject(mesh)) np = 1;
  else if (cJSON_IsArray(mesh)) CRD_CALL(crd_json_array(c, mesh, "$.mesh", &np));
  else return CASE_BAD(c, "$.mesh", "expected an object or an array of parts, got %s", crd_json_type(mesh));
  CRD_CALL_GOTO(CRD_CALLOC(np, &parts), done);
  CRD_CALL_GOTO(CRD_CALLOC(np, &ps), done);

  for (int p = 0; p < np; ++p) {
    const cJSON *item = cJSON_IsArray(mesh) ? cJSON_GetArrayItem(mesh, p) : mesh;
    if (cJSON_IsArray(mesh)) crd_jp_idx(ps[p].jp, "$.mesh", p);
    else snprintf(ps[p].jp, sizeof ps[p].jp, "$.mesh");
    CRD_CALL_GOTO(load_part(c, item, &ps[p], &parts[p], &tol, &has_tol), done);
    ps[p].noff = N, ps[p].eoff = E;
    if ((double)N + parts[p].nn > 2147483647.0 || 4.0 * ((double)E + parts[p].ne) > 2147483647.0) {
      rc = CASE_BAD(c, ps[p].jp, "the mesh is too large (32-bit indices)");
      goto done;
    }
    N += parts[p].nn, E += parts[p].ne;
  }
  CRD_CALL_GOTO(CRD_CALLOC(3 * (size_t)N, &xall), done);
  CRD_CALL_GOTO(CRD_CALLOC(N, &map), done);
  CRD_CALL_GOTO(concat_coords(c, parts, ps, np, xall), done);
  CRD_CALL_GOTO(merge_into_model(c, m, parts, ps, np, xall, N, E, tol, has_tol, map), done);
  CRD_CALL_GOTO(check_elements(c, m, ps, np, map, N), done);
  CRD_CALL_GOTO(mesh_sets(c, m, parts, ps, np, map), done);

done:
  free_parts(parts, ps, np);
  free(ps);
  free(map);
  free(xall);
  return rc < 0 ? rc : 0;
}

/* ---- the user's sets ------------------------------------------------------ */

static int index_list(const crd_case_ctx *c, const cJSON *arr, const char *jp, int limit,
                      const char *what, int32_t **out, int *n)
{
  char ep[CRD_JP_MAX];
  const cJSON *v;
  int i = 0;
  if (!cJSON_IsArray(arr)) return CASE_BAD(c, jp, "expected an array of %s indices, got %s", what, crd_json_type(arr));
  *n = cJSON_GetArraySize(arr);
  CRD_CALL(CRD_CALLOC(*n, out));
  cJSON_ArrayForEach(v, arr) {
    int k;
    CRD_CALL(crd_json_int(c, v, crd_jp_idx(ep, jp, i), &k));
    if (k < 0 || k >= limit)
      return CASE_BAD(c, ep, "%s index %d out of range (the model has %d %ss)", what, k, limit, what);
    (*out)[i++] = k;
  }
  return 0;
}

static int parse_box(const crd_case_ctx *c, const cJSON *it, const char *jp, double *lo, double *hi)
{
  char rp[CRD_JP_MAX];
  if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2)
    return CASE_BAD(c, jp, "expected [[xmin, ymin, zmin], [xmax, ymax, zmax]]");
  CRD_CALL(crd_json_vec(c, cJSON_GetArrayItem(it, 0), crd_jp_idx(rp, jp, 0), 3, lo));
  CRD_CALL(crd_json_vec(c, cJSON_GetArrayItem(it, 1), crd_jp_idx(rp, jp, 1), 3, hi));
  for (int k = 0; k < 3; ++k)
    if (lo[k] > hi[k]) return CASE_BAD(c, jp, "box minimum exceeds maximum in %c", "xyz"[k]);
  double eps = 1e-9 * c->size;
  for (int k = 0; k < 3; ++k) lo[k] -= eps, hi[k] += eps;
  return 0;
}

static int in_box(const double *p, const double *lo, const double *hi)
{
  return p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2] &&
         p[2] <= hi[2];
}

static int user_set(const crd_case_ctx *c, const cJSON *def, const char *jp, crd_model *m)
{
  static const char *const keys[] = {"nodes", "elements", "box", "elements_in_box", NULL};
  char kp[CRD_JP_MAX];
  const char *name = def->string;
  double lo[3], hi[3];
  if (!name[0]) return CASE_BAD(c, jp, "a set name must not be empty");
  if (strlen(name) >= CRD_NAME_MAX) return CASE_BAD(c, jp, "set name longer than %d characters", CRD_NAME_MAX - 1);
  if (!strcmp(name, "all")) return CASE_BAD(c, jp, "'all' is predefined (all nodes and elements); choose another name");
  if (crd_model_find_set(m, name) >= 0) return CASE_BAD(c, jp, "duplicate set: the mesh already defines a set '%s'", name);
  CRD_CALL(crd_json_keys(c, def, jp, keys));
  if (cJSON_GetArraySize(def) != 1)
    return CASE_BAD(c, jp, "a set takes exactly one of \"nodes\", \"elements\", \"box\", \"elements_in_box\"");
  CRD_CALL(push_set(m, name, NULL, 0, NULL, 0));
  crd_set *s = &m->sets[m->nsets - 1];
  const cJSON *it = def->child;
  crd_jp_key(kp, jp, it->string);
  if (!strcmp(it->string, "nodes")) {
    CRD_CALL(index_list(c, it, kp, m->nn, "node", &s->nodes, &s->nn));
  } else if (!strcmp(it->string, "elements")) {
    CRD_CALL(index_list(c, it, kp, m->ne, "element", &s->elems, &s->ne));
  } else if (!strcmp(it->string, "box")) {
    CRD_CALL(parse_box(c, it, kp, lo, hi));
    CRD_CALL(CRD_CALLOC(m->nn, &s->nodes));
    for (int i = 0; i < m->nn; ++i)
      if (in_box(m->x + 3 * (size_t)i, lo, hi)) s->nodes[s->nn++] = i;
  } else {
    CRD_CALL(parse_box(c, it, kp, lo, hi));
    CRD_CALL(CRD_CALLOC(m->ne, &s->elems));
    for (int e = 0; e < m->ne; ++e) {
      double g[3] = {0, 0, 0};
      for (int a = 0; a < 4; ++a)
        for (int k = 0; k < 3; ++k) g[k] += 0.25 * m->x[3 * (size_t)m->quads[4 * (size_t)e + a] + k];
      if (in_box(g, lo, hi)) s->elems[s->ne++] = e;
    }
  }
  if (s->nn == 0 && s->ne == 0)
    return CASE_BAD(c, jp, "set selects no %s", strcmp(it->string, "nodes") && strcmp(it->string, "box") ? "elements" : "nodes");
  CRD_CALL(set_finish(m, s));
  return 0;
}

int crd_case_sets(const crd_case_ctx *c, const cJSON *sets, crd_model *m)
{
  char jp[CRD_JP_MAX];
  const cJSON *def;
  CRD_CALL(crd_json_unique_keys(c, sets, "$.sets"));
  cJSON_ArrayForEach(def, sets) CRD_CALL(user_set(c, def, crd_jp_key(jp, "$.sets", def->string), m));
  return 0;
}
