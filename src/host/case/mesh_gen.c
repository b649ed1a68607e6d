/* crdyn: structured shell meshes for "mesh": {"generate": {...}} (docs/case_format.md
 * "Generated meshes"), and the crd_mesh_part helpers shared with the Gmsh reader.
 *
 * Every quad lists its nodes counter-clockwise about the outward (positive)
 * normal.  Every set below is a node set (sorted, unique); mid sets exist only
 * when the division count in that direction is even, so they hit a node row.
 *
 * rectangle {lx, ly, nx, ny}: x in [0,lx], y in [0,ly], z = 0, normal +z.
 *   Node i + (nx+1)*j sits at (lx*i/nx, ly*j/ny, 0); element i + nx*j.
 *   Sets: x0 x1 y0 y1 (edges), x0y0 x1y0 x1y1 x0y1 (corners),
 *         xmid (x = lx/2), ymid (y = ly/2), center (both).
 * cylinder {radius, length, angle: [a0,a1], nc, nl}: x = R sin a, z = R cos a
 *   (a in degrees from +z towards +x), y in [0,length], normal outward.
 *   Node i + na*j, i around (a0 -> a1), j along y; na = nc+1, or nc when the
 *   range is a full 360 degrees: then the seam is closed (a1 nodes are the a0
 *   nodes) and a0, a1 and the four corners do not exist.
 *   Sets: y0 y1 (curved ends), a0 a1 (straight edges), a0y0 a1y0 a0y1 a1y1,
 *         amid (a = (a0+a1)/2), ymid (y = length/2).
 * hemisphere {radius, hole_angle, n}: the quarter x>=0, y>=0, z>=0 of a sphere
 *   about the origin, pole on +z, normal outward.  n by n elements: polar angle
 *   from hole_angle to 90 (node row i), azimuth 0..90 from +x towards +y (j);
 *   node i + (n+1)*j.  Sets: hole, equator, y0 (meridian in y=0),
 *   x0 (meridian in x=0), px = (R,0,0), py = (0,R,0).
 * hemisphere {radius, n} (no hole): closed to the pole, made of 3 mapped
 *   patches like a quarter of a cube-sphere: the top patch (around the pole)
 *   and two side patches facing +x and +y, meeting at the point above
 *   (1,1,1)/sqrt(3) with 120-degree corners, so no quad is degenerate.  n must
 *   be even: each patch is n/2 by n/2 elements (3n^2/4 in all), n elements
 *   along the equator and along each meridian.  The cube coordinates are
 *   equiangular (tan of equal angle steps), which keeps element sizes within
 *   about 1.4x of each other.  Sets: equator, x0, y0, pole, px, py.
 *
 * "origin": [x,y,z] and "rotate": [ax,ay,az,deg] (optional, any generator):
 * the mesh is first rotated by deg degrees about the axis through the
 * generation origin (0,0,0), right-handed, and then translated by origin. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/error.h"
#include "crdyn/mesh_io.h"

#define GEN_MAX_DIV 10000000        /* divisions per direction */
#define GEN_MAX_COUNT (INT32_MAX / 4) /* nodes, elements: 4*ne and 3*nn must fit an int */
#define GEN_PI 3.14159265358979323846

/* ---------------------------------------------------------------- sets */

static int cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static int sort_unique(int32_t *v, int n)
{
  if (n <= 1) return n;
  qsort(v, (size_t)n, sizeof *v, cmp_i32);
  int k = 1;
  for (int i = 1; i < n; ++i)
    if (v[i] != v[k - 1]) v[k++] = v[i];
  return k;
}

/* Add nodes and elements to the set `name`, creating it if needed (a name met
 * twice, e.g. a Gmsh group of one name in two dimensions, is merged).  The
 * nodes of the elements are added too, so an element set lists its nodes.
 * Not in the public header (its interface is fixed); gmsh.c declares it. */
int crd_mesh_part_add_set_(crd_mesh_part *p, const char *name, const int32_t *nodes, int nn,
                           const int32_t *elems, int ne)
{
  CRD_CHECK(strlen(name) < CRD_NAME_MAX, CRD_ERR_INPUT,
            "set name '%s' is too long (at most %d characters)", name, CRD_NAME_MAX - 1);
  crd_set *s = NULL;
  for (int k = 0; k < p->nsets; ++k)
    if (!strcmp(p->sets[k].name, name)) s = &p->sets[k];
  if (!s) {
    crd_set *ns = realloc(p->sets, (size_t)(p->nsets + 1) * sizeof *ns);
    CRD_CHECK(ns, CRD_ERR_MEM, "out of memory adding set '%s'", name);
    p->sets = ns;
    s = &p->sets[p->nsets++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
  }
  int32_t *v;
  int64_t total = (int64_t)s->nn + nn + 4 * (int64_t)ne;
  CRD_CHECK(total < INT32_MAX, CRD_ERR_INPUT, "set '%s' is too large", name);
  CRD_CALL(CRD_CALLOC(total, &v));
  int k = 0;
  for (int i = 0; i < s->nn; ++i) v[k++] = s->nodes[i];
  for (int i = 0; i < nn; ++i) v[k++] = nodes[i];
  for (int e = 0; e < ne; ++e)
    for (int a = 0; a < 4; ++a) v[k++] = p->quads[4 * (int64_t)elems[e] + a];
  free(s->nodes);
  s->nodes = v;
  s->nn = sort_unique(v, k);
  if (ne > 0) {
    CRD_CALL(CRD_CALLOC((int64_t)s->ne + ne, &v));
    k = 0;
    for (int i = 0; i < s->ne; ++i) v[k++] = s->elems[i];
    for (int e = 0; e < ne; ++e) v[k++] = elems[e];
    free(s->elems);
    s->elems = v;
    s->ne = sort_unique(v, k);
  }
  return 0;
}

void crd_mesh_part_free(crd_mesh_part *p)
{
  if (!p) return;
  for (int k = 0; k < p->nsets; ++k) {
    free(p->sets[k].nodes);
    free(p->sets[k].elems);
  }
  free(p->sets);
  free(p->x);
  free(p->quads);
  memset(p, 0, sizeof *p);
}

/* Node set of `count` nodes start, start+stride, ... (a row of a structured grid). */
static int add_line(crd_mesh_part *p, const char *name, int start, int stride, int count)
{
  int32_t *v;
  CRD_CALL(CRD_CALLOC(count, &v));
  for (int k = 0; k < count; ++k) v[k] = (int32_t)(start + k * stride);
  int rc = crd_mesh_part_add_set_(p, name, v, count, NULL, 0);
  free(v);
  CRD_CALL(rc);
  return 0;
}

static int add_point(crd_mesh_part *p, const char *name, int node)
{
  int32_t v = node;
  CRD_CALL(crd_mesh_part_add_set_(p, name, &v, 1, NULL, 0));
  return 0;
}

/* ------------------------------------------------------- JSON checking */

typedef struct gen_ctx {
  const cJSON *gen;
  const char *path, *jpath, *type;
} gen_ctx;

/* Every key must be known and appear once: a typo must not pass silently. */
static int check_keys(const gen_ctx *g, const char *const *allowed)
{
  for (const cJSON *it = g->gen->child; it; it = it->next) {
    const char *key = it->string ? it->string : "";
    int ok = 0;
    for (int k = 0; allowed[k] && !ok; ++k) ok = !strcmp(key, allowed[k]);
    if (!ok) {
      char list[256] = "";
      for (int k = 0; allowed[k]; ++k)
        if (strcmp(allowed[k], "type")) {
          size_t n = strlen(list);
          snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", allowed[k]);
        }
      return CRD_ERR(CRD_ERR_INPUT, "%s: %s.%s: unknown key (a %s generator takes %s)", g->path,
                     g->jpath, key, g->type, list);
    }
    for (const cJSON *prev = g->gen->child; prev != it; prev = prev->next)
      CRD_CHECK(!prev->string || strcmp(prev->string, key), CRD_ERR_INPUT,
                "%s: %s.%s: duplicate key", g->path, g->jpath, key);
  }
  return 0;
}

static int get_required(const gen_ctx *g, const char *key, const char *what, const cJSON **it)
{
  *it = cJSON_GetObjectItemCaseSensitive(g->gen, key);
  CRD_CHECK(*it, CRD_ERR_INPUT, "%s: %s.%s: missing (a %s generator needs %s)", g->path,
            g->jpath, key, g->type, what);
  return 0;
}

static int get_posint(const gen_ctx *g, const char *key, int *v)
{
  const cJSON *it;
  CRD_CALL(get_required(g, key, "a positive integer", &it));
  double d = it->valuedouble;
  CRD_CHECK(cJSON_IsNumber(it) && isfinite(d) && d >= 1 && d == floor(d), CRD_ERR_INPUT,
            "%s: %s.%s: expected a positive integer", g->path, g->jpath, key);
  CRD_CHECK(d <= GEN_MAX_DIV, CRD_ERR_INPUT, "%s: %s.%s: %.0f is too large (at most %d)",
            g->path, g->jpath, key, d, GEN_MAX_DIV);
  *v = (int)d;
  return 0;
}

static int get_posnum(const gen_ctx *g, const char *key, double *v)
{
  const cJSON *it;
  CRD_CALL(get_required(g, key, "a positive number", &it));
  CRD_CHECK(cJSON_IsNumber(it) && isfinite(it->valuedouble) && it->valuedouble > 0,
            CRD_ERR_INPUT, "%s: %s.%s: expected a positive number", g->path, g->jpath, key);
  *v = it->valuedouble;
  return 0;
}

/* An optional array of n numbers; *present says whether the key was given. */
static int get_numarray(const gen_ctx *g, const char *key, int n, double *v, int *present)
{
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(g->gen, key);
  *present = it != NULL;
  if (!it) return 0;
  CRD_CHECK(cJSON_IsArray(it) && cJSON_GetArraySize(it) == n, CRD_ERR_INPUT,
            "%s: %s.%s: expected an array of %d numbers", g->path, g->jpath, key, n);
  int k = 0;
  for (const cJSON *e = it->child; e; e = e->next, ++k)
    CRD_CHECK(cJSON_IsNumber(e) && isfinite(e->valuedouble), CRD_ERR_INPUT,
              "%s: %s.%s[%d]: not a number", g->path, g->jpath, key, k);
  k = 0;
  for (const cJSON *e = it->child; e; e = e->next) v[k++] = e->valuedouble;
  return 0;
}

/* ------------------------------------------------------------ geometry */

/* sin and cos of an angle in degrees, exact at multiples of 90 so that nodes
 * meant to lie on x = 0, z = 0 etc. (symmetry planes, the equator) do. */
static void sincosd(double deg, double *s, double *c)
{
  double q = deg / 90.0;
  if (q == floor(q) && fabs(q) < 1e9) {
    static const double S[4] = {0, 1, 0, -1}, C[4] = {1, 0, -1, 0};
    long k = (((long)q % 4) + 4) % 4;
    *s = S[k];
    *c = C[k];
  } else {
    double r = deg * (GEN_PI / 180.0);
    *s = sin(r);
    *c = cos(r);
  }
}

/* a + (b - a) * i / n, exactly b at i == n (edges land where they are asked to). */
static double lerp_i(double a, double b, int i, int n)
{
  return i == n ? b : a + (b - a) * (double)i / (double)n;
}

static int alloc_part(const gen_ctx *g, crd_mesh_part *p, int64_t nn, int64_t ne)
{
  CRD_CHECK(nn <= GEN_MAX_COUNT && ne <= GEN_MAX_COUNT, CRD_ERR_INPUT,
            "%s: %s: mesh too large (%lld nodes, %lld elements)", g->path, g->jpath,
            (long long)nn, (long long)ne);
  p->nn = (int)nn;
  p->ne = (int)ne;
  CRD_CALL(CRD_CALLOC(3 * nn, &p->x));
  CRD_CALL(CRD_CALLOC(4 * ne, &p->quads));
  return 0;
}

static void set_quad(crd_mesh_part *p, int64_t e, int a, int b, int c, int d)
{
  int32_t *q = p->quads + 4 * e;
  q[0] = a; q[1] = b; q[2] = c; q[3] = d;
}

/* ---------------------------------------------------------- generators */

static int gen_rectangle(const gen_ctx *g, crd_mesh_part *p)
{
  static const char *const keys[] = {"type", "lx", "ly", "nx", "ny", "origin", "rotate", NULL};
  double lx, ly;
  int nx, ny;
  CRD_CALL(check_keys(g, keys));
  CRD_CALL(get_posnum(g, "lx", &lx));
  CRD_CALL(get_posnum(g, "ly", &ly));
  CRD_CALL(get_posint(g, "nx", &nx));
  CRD_CALL(get_posint(g, "ny", &ny));
  CRD_CALL(alloc_part(g, p, (int64_t)(nx + 1) * (ny + 1), (int64_t)nx * ny));
  const int r = nx + 1; /* nodes per row */
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      double *x = p->x + 3 * ((int64_t)i + (int64_t)r * j);
      x[0] = lerp_i(0, lx, i, nx);
      x[1] = lerp_i(0, ly, j, ny);
      x[2] = 0;
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      int n0 = i + r * j;
      set_quad(p, (int64_t)i + (int64_t)nx * j, n0, n0 + 1, n0 + 1 + r, n0 + r);
    }
  CRD_CALL(add_line(p, "x0", 0, r, ny + 1));
  CRD_CALL(add_line(p, "x1", nx, r, ny + 1));
  CRD_CALL(add_line(p, "y0", 0, 1, nx + 1));
  CRD_CALL(add_line(p, "y1", r * ny, 1, nx + 1));
  CRD_CALL(add_point(p, "x0y0", 0));
  CRD_CALL(add_point(p, "x1y0", nx));
  CRD_CALL(add_point(p, "x1y1", nx + r * ny));
  CRD_CALL(add_point(p, "x0y1", r * ny));
  if (nx % 2 == 0) CRD_CALL(add_line(p, "xmid", nx / 2, r, ny + 1));
  if (ny % 2 == 0) CRD_CALL(add_line(p, "ymid", r * (ny / 2), 1, nx + 1));
  if (nx % 2 == 0 && ny % 2 == 0) CRD_CALL(add_point(p, "center", nx / 2 + r * (ny / 2)));
  return 0;
}

static int gen_cylinder(const gen_ctx *g, crd_mesh_part *p)
{
  static const char *const keys[] = {"type", "radius", "length", "angle", "nc", "nl",
                                     "origin", "rotate", NULL};
  double R, L, ang[2];
  int nc, nl, present;
  CRD_CALL(check_keys(g, keys));
  CRD_CALL(get_posnum(g, "radius", &R));
  CRD_CALL(get_posnum(g, "length", &L));
  CRD_CALL(get_numarray(g, "angle", 2, ang, &present));
  CRD_CHECK(present, CRD_ERR_INPUT, "%s: %s.angle: missing (a cylinder generator needs [a0, a1] "
            "in degrees)", g->path, g->jpath);
  CRD_CHECK(ang[1] > ang[0] && ang[1] - ang[0] <= 360 * (1 + 1e-12), CRD_ERR_INPUT,
            "%s: %s.angle: expected a0 < a1 <= a0 + 360, got [%g, %g]", g->path, g->jpath,
            ang[0], ang[1]);
  CRD_CALL(get_posint(g, "nc", &nc));
  CRD_CALL(get_posint(g, "nl", &nl));
  /* A full turn closes the seam: the a1 column would repeat the a0 column. */
  const int closed = fabs(ang[1] - ang[0] - 360) <= 360 * 1e-12;
  CRD_CHECK(!closed || nc >= 3, CRD_ERR_INPUT,
            "%s: %s.nc: a closed (360-degree) cylinder needs at least 3 elements around",
            g->path, g->jpath);
  const int na = closed ? nc : nc + 1; /* nodes around */
  CRD_CALL(alloc_part(g, p, (int64_t)na * (nl + 1), (int64_t)nc * nl));
  for (int j = 0; j <= nl; ++j)
    for (int i = 0; i < na; ++i) {
      double s, c, *x = p->x + 3 * ((int64_t)i + (int64_t)na * j);
      sincosd(lerp_i(ang[0], ang[1], i, nc), &s, &c);
      x[0] = R * s;
      x[1] = lerp_i(0, L, j, nl);
      x[2] = R * c;
    }
  /* d/da (sin a, 0, cos a) x e_y = (sin a, 0, cos a): i (around) then j (along
   * y) is counter-clockwise about the outward normal. */
  for (int j = 0; j < nl; ++j)
    for (int i = 0; i < nc; ++i) {
      int i1 = (i + 1) % na; /* wraps to column 0 only when closed */
      set_quad(p, (int64_t)i + (int64_t)nc * j, i + na * j, i1 + na * j, i1 + na * (j + 1),
               i + na * (j + 1));
    }
  CRD_CALL(add_line(p, "y0", 0, 1, na));
  CRD_CALL(add_line(p, "y1", na * nl, 1, na));
  if (!closed) {
    CRD_CALL(add_line(p, "a0", 0, na, nl + 1));
    CRD_CALL(add_line(p, "a1", nc, na, nl + 1));
    CRD_CALL(add_point(p, "a0y0", 0));
    CRD_CALL(add_point(p, "a1y0", nc));
    CRD_CALL(add_point(p, "a0y1", na * nl));
    CRD_CALL(add_point(p, "a1y1", nc + na * nl));
  }
  if (nc % 2 == 0) CRD_CALL(add_line(p, "amid", nc / 2, na, nl + 1));
  if (nl % 2 == 0) CRD_CALL(add_line(p, "ymid", na * (nl / 2), 1, na));
  return 0;
}

/* Open quarter hemisphere: a polar-angle by azimuth grid. */
static int hemi_open(const gen_ctx *g, crd_mesh_part *p, double R, double hole, int n)
{
  const int r = n + 1;
  CRD_CALL(alloc_part(g, p, (int64_t)r * r, (int64_t)n * n));
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      double st, ct, sp, cp, *x = p->x + 3 * ((int64_t)i + (int64_t)r * j);
      sincosd(lerp_i(hole, 90, i, n), &st, &ct);
      sincosd(lerp_i(0, 90, j, n), &sp, &cp);
      x[0] = R * st * cp;
      x[1] = R * st * sp;
      x[2] = R * ct;
    }
  /* e_theta x e_phi = e_r: theta (i) then phi (j) is counter-clockwise outside. */
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int n0 = i + r * j;
      set_quad(p, (int64_t)i + (int64_t)n * j, n0, n0 + 1, n0 + 1 + r, n0 + r);
    }
  CRD_CALL(add_line(p, "hole", 0, r, r));
  CRD_CALL(add_line(p, "equator", n, r, r));
  CRD_CALL(add_line(p, "y0", 0, 1, r));
  CRD_CALL(add_line(p, "x0", r * n, 1, r));
  CRD_CALL(add_point(p, "px", n));
  CRD_CALL(add_point(p, "py", n + r * n));
  return 0;
}

/* Closed quarter hemisphere: node of the cube lattice point (I,J,K), 0..m each,
 * on the faces K = m (top), I = m (side x) or J = m (side y).  Shared edges get
 * one number: the top owns K = m, side x owns I = m below it, side y the rest. */
static int cube_id(int m, int I, int J, int K)
{
  const int top = (m + 1) * (m + 1), sidex = (m + 1) * m;
  if (K == m) return I + (m + 1) * J;
  if (I == m) return top + J + (m + 1) * K;
  return top + sidex + I + m * K; /* J == m, I < m, K < m */
}

static int hemi_closed(const gen_ctx *g, crd_mesh_part *p, double R, int n)
{
  CRD_CHECK(n % 2 == 0, CRD_ERR_INPUT,
            "%s: %s.n: expected an even integer for a closed hemisphere (3 patches of n/2 by "
            "n/2 elements), got %d", g->path, g->jpath, n);
  const int m = n / 2;
  CRD_CALL(alloc_part(g, p, 3 * (int64_t)m * m + 3 * (int64_t)m + 1, 3 * (int64_t)m * m));
  for (int K = 0; K <= m; ++K)
    for (int J = 0; J <= m; ++J)
      for (int I = 0; I <= m; ++I) {
        if (I != m && J != m && K != m) continue; /* inside the cube */
        double t[3], s = 0; /* cube coordinates, equiangular */
        const int ijk[3] = {I, J, K};
        for (int d = 0; d < 3; ++d) {
          t[d] = ijk[d] == m ? 1.0 : ijk[d] == 0 ? 0.0 : tan(0.25 * GEN_PI * ijk[d] / m);
          s += t[d] * t[d];
        }
        s = R / sqrt(s);
        double *x = p->x + 3 * (int64_t)cube_id(m, I, J, K);
        for (int d = 0; d < 3; ++d) x[d] = s * t[d];
      }
  /* Each patch's two lattice directions are ordered so their cross product is
   * the face's outward normal (+z, +x, +y); the radial projection keeps it. */
  int64_t e = 0;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i)
      set_quad(p, e++, cube_id(m, i, j, m), cube_id(m, i + 1, j, m),
               cube_id(m, i + 1, j + 1, m), cube_id(m, i, j + 1, m));
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < m; ++j)
      set_quad(p, e++, cube_id(m, m, j, k), cube_id(m, m, j + 1, k),
               cube_id(m, m, j + 1, k + 1), cube_id(m, m, j, k + 1));
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < m; ++k)
      set_quad(p, e++, cube_id(m, i, m, k), cube_id(m, i, m, k + 1),
               cube_id(m, i + 1, m, k + 1), cube_id(m, i + 1, m, k));
  /* Boundary lines cross two patches: list the lattice points, then add. */
  int32_t *eq, *x0, *y0;
  CRD_CALL(CRD_CALLOC(3 * (n + 1), &eq));
  x0 = eq + (n + 1);
  y0 = x0 + (n + 1);
  for (int k = 0; k <= m; ++k) {
    eq[k] = cube_id(m, m, k, 0);     /* side x, J = 0..m */
    eq[m + k] = cube_id(m, m - k, m, 0); /* side y, I = m..0 */
    x0[k] = cube_id(m, 0, k, m);     /* top, J = 0..m */
    x0[m + k] = cube_id(m, 0, m, m - k); /* side y, K = m..0 */
    y0[k] = cube_id(m, k, 0, m);     /* top, I = 0..m */
    y0[m + k] = cube_id(m, m, 0, m - k); /* side x, K = m..0 */
  }
  int rc = crd_mesh_part_add_set_(p, "equator", eq, n + 1, NULL, 0);
  if (!rc) rc = crd_mesh_part_add_set_(p, "x0", x0, n + 1, NULL, 0);
  if (!rc) rc = crd_mesh_part_add_set_(p, "y0", y0, n + 1, NULL, 0);
  free(eq);
  CRD_CALL(rc);
  CRD_CALL(add_point(p, "pole", cube_id(m, 0, 0, m)));
  CRD_CALL(add_point(p, "px", cube_id(m, m, 0, 0)));
  CRD_CALL(add_point(p, "py", cube_id(m, 0, m, 0)));
  return 0;
}

static int gen_hemisphere(const gen_ctx *g, crd_mesh_part *p)
{
  static const char *const keys[] = {"type", "radius", "hole_angle", "n", "origin", "rotate",
                                     NULL};
  double R;
  int n;
  CRD_CALL(check_keys(g, keys));
  CRD_CALL(get_posnum(g, "radius", &R));
  CRD_CALL(get_posint(g, "n", &n));
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(g->gen, "hole_angle");
  if (!h) CRD_CALL(hemi_closed(g, p, R, n));
  else {
    CRD_CHECK(cJSON_IsNumber(h) && h->valuedouble > 0 && h->valuedouble < 90, CRD_ERR_INPUT,
              "%s: %s.hole_angle: expected a number of degrees in (0, 90) (leave it out for a "
              "closed hemisphere)", g->path, g->jpath);
    CRD_CALL(hemi_open(g, p, R, h->valuedouble, n));
  }
  return 0;
}

/* ----------------------------------------------------------- the entry */

/* Rotate about the generation origin, then translate (see the top comment). */
static void transform(crd_mesh_part *p, const double *org, int has_org, const double *rot,
                      int has_rot)
{
  double k[3] = {0, 0, 0}, s = 0, c = 1;
  if (has_rot) {
    double len = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]);
    for (int d = 0; d < 3; ++d) k[d] = rot[d] / len;
    sincosd(rot[3], &s, &c);
  }
  for (int64_t i = 0; i < p->nn; ++i) {
    double *x = p->x + 3 * i, v[3] = {x[0], x[1], x[2]};
    if (has_rot) { /* Rodrigues: v c + (k x v) s + k (k.v)(1 - c) */
      double kv = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
      double kxv[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2],
                       k[0] * v[1] - k[1] * v[0]};
      for (int d = 0; d < 3; ++d) v[d] = v[d] * c + kxv[d] * s + k[d] * kv * (1 - c);
    }
    for (int d = 0; d < 3; ++d) x[d] = v[d] + (has_org ? org[d] : 0);
  }
}

static int generate(gen_ctx *g, crd_mesh_part *out)
{
  CRD_CHECK(cJSON_IsObject(g->gen), CRD_ERR_INPUT, "%s: %s: expected an object", g->path,
            g->jpath);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(g->gen, "type");
  CRD_CHECK(t, CRD_ERR_INPUT, "%s: %s.type: missing (rectangle, cylinder or hemisphere)",
            g->path, g->jpath);
  CRD_CHECK(cJSON_IsString(t), CRD_ERR_INPUT,
            "%s: %s.type: expected a string (rectangle, cylinder or hemisphere)", g->path,
            g->jpath);
  g->type = t->valuestring;
  double org[3], rot[4];
  int has_org, has_rot;
  CRD_CALL(get_numarray(g, "origin", 3, org, &has_org));
  CRD_CALL(get_numarray(g, "rotate", 4, rot, &has_rot));
  CRD_CHECK(!has_rot || rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] > 0, CRD_ERR_INPUT,
            "%s: %s.rotate: the axis [ax, ay, az] must not be zero", g->path, g->jpath);
  if (!strcmp(g->type, "rectangle")) CRD_CALL(gen_rectangle(g, out));
  else if (!strcmp(g->type, "cylinder")) CRD_CALL(gen_cylinder(g, out));
  else if (!strcmp(g->type, "hemisphere")) CRD_CALL(gen_hemisphere(g, out));
  else
    return CRD_ERR(CRD_ERR_INPUT,
                   "%s: %s.type: unknown generator '%s' (expected rectangle, cylinder or "
                   "hemisphere)", g->path, g->jpath, g->type);
  transform(out, org, has_org, rot, has_rot);
  return 0;
}

int crd_mesh_generate(const cJSON *gen, const char *path, const char *jpath, crd_mesh_part *out)
{
  gen_ctx g = {gen, path ? path : "(case)", jpath ? jpath : "$.mesh.generate", "?"};
  memset(out, 0, sizeof *out);
  int rc = generate(&g, out);
  if (rc) crd_mesh_part_free(out); /* nothing half-built reaches the caller */
  CRD_CALL(rc);
  return 0;
}
