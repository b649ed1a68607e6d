/* t110: mesh generators (rectangle, cylinder, hemisphere open and closed,
 * origin/rotate, bad keys) and the Gmsh 4.1 ASCII reader. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/error.h"
#include "crdyn/mesh_io.h"
#include "tap.h"

/* ------------------------------------------------------------ helpers */

static int gen(const char *json, crd_mesh_part *p)
{
  cJSON *j = cJSON_Parse(json);
  if (!j) { printf("# bad test JSON: %s\n", json); return -99; }
  int rc = crd_mesh_generate(j, "case.json", "$.mesh.generate", p);
  cJSON_Delete(j);
  return rc;
}

static const crd_set *set(const crd_mesh_part *p, const char *name)
{
  for (int k = 0; k < p->nsets; ++k)
    if (!strcmp(p->sets[k].name, name)) return &p->sets[k];
  return NULL;
}

static int set_nn(const crd_mesh_part *p, const char *name)
{
  const crd_set *s = set(p, name);
  return s ? s->nn : -1;
}

static const double *X(const crd_mesh_part *p, int i) { return p->x + 3 * i; }

/* The single node of a one-node set, or -1. */
static int point(const crd_mesh_part *p, const char *name)
{
  const crd_set *s = set(p, name);
  return s && s->nn == 1 ? s->nodes[0] : -1;
}

/* Sets sorted, unique, in range; quads in range, no repeated node. */
static int well_formed(const crd_mesh_part *p)
{
  for (int k = 0; k < p->nsets; ++k) {
    const crd_set *s = &p->sets[k];
    for (int i = 0; i < s->nn; ++i)
      if (s->nodes[i] < 0 || s->nodes[i] >= p->nn || (i && s->nodes[i] <= s->nodes[i - 1]))
        return 0;
    for (int i = 0; i < s->ne; ++i)
      if (s->elems[i] < 0 || s->elems[i] >= p->ne || (i && s->elems[i] <= s->elems[i - 1]))
        return 0;
  }
  for (int e = 0; e < p->ne; ++e)
    for (int a = 0; a < 4; ++a) {
      int n = p->quads[4 * e + a];
      if (n < 0 || n >= p->nn) return 0;
      for (int b = a + 1; b < 4; ++b)
        if (p->quads[4 * e + b] == n) return 0;
    }
  return 1;
}

/* Quads whose normal (diagonal cross product) does not point along out(centroid). */
typedef void (*outward_fn)(const double *c, double *o);
static void out_z(const double *c, double *o) { (void)c; o[0] = 0; o[1] = 0; o[2] = 1; }
static void out_cyl(const double *c, double *o) { o[0] = c[0]; o[1] = 0; o[2] = c[2]; }
static void out_sph(const double *c, double *o) { o[0] = c[0]; o[1] = c[1]; o[2] = c[2]; }

static int bad_normals(const crd_mesh_part *p, outward_fn out)
{
  int bad = 0;
  for (int e = 0; e < p->ne; ++e) {
    const int32_t *q = p->quads + 4 * e;
    double d1[3], d2[3], c[3], o[3];
    for (int k = 0; k < 3; ++k) {
      d1[k] = X(p, q[2])[k] - X(p, q[0])[k];
      d2[k] = X(p, q[3])[k] - X(p, q[1])[k];
      c[k] = 0.25 * (X(p, q[0])[k] + X(p, q[1])[k] + X(p, q[2])[k] + X(p, q[3])[k]);
    }
    double n[3] = {d1[1] * d2[2] - d1[2] * d2[1], d1[2] * d2[0] - d1[0] * d2[2],
                   d1[0] * d2[1] - d1[1] * d2[0]};
    out(c, o);
    bad += n[0] * o[0] + n[1] * o[1] + n[2] * o[2] <= 0;
  }
  return bad;
}

/* Pairs of nodes closer than tol (O(n^2); test meshes are small). */
static int close_pairs(const crd_mesh_part *p, double tol)
{
  int n = 0;
  for (int i = 0; i < p->nn; ++i)
    for (int j = i + 1; j < p->nn; ++j) {
      double d = 0;
      for (int k = 0; k < 3; ++k) d += (X(p, i)[k] - X(p, j)[k]) * (X(p, i)[k] - X(p, j)[k]);
      n += sqrt(d) < tol;
    }
  return n;
}

/* Edges used by exactly one quad (the boundary); -1 if an edge has > 2 quads
 * or two quads run an edge the same way (inconsistent orientation). */
static int boundary_edges(const crd_mesh_part *p)
{
  int ned = 4 * p->ne, nb = 0;
  for (int i = 0; i < ned; ++i) {
    int a = p->quads[i], b = p->quads[4 * (i / 4) + (i % 4 + 1) % 4], same = 0, opp = 0;
    for (int j = 0; j < ned; ++j) {
      int c = p->quads[j], d = p->quads[4 * (j / 4) + (j % 4 + 1) % 4];
      same += c == a && d == b;
      opp += c == b && d == a;
    }
    if (same != 1 || opp > 1) return -1;
    nb += opp == 0;
  }
  return nb;
}

static double area(const crd_mesh_part *p)
{
  double A = 0;
  for (int e = 0; e < p->ne; ++e) {
    const int32_t *q = p->quads + 4 * e;
    double d1[3], d2[3];
    for (int k = 0; k < 3; ++k) {
      d1[k] = X(p, q[2])[k] - X(p, q[0])[k];
      d2[k] = X(p, q[3])[k] - X(p, q[1])[k];
    }
    double n[3] = {d1[1] * d2[2] - d1[2] * d2[1], d1[2] * d2[0] - d1[0] * d2[2],
                   d1[0] * d2[1] - d1[1] * d2[0]};
    A += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  return A;
}

/* Every node of set `name` has coordinate k equal to v. */
static int set_on(const crd_mesh_part *p, const char *name, int k, double v)
{
  const crd_set *s = set(p, name);
  if (!s || !s->nn) return 0;
  for (int i = 0; i < s->nn; ++i)
    if (fabs(X(p, s->nodes[i])[k] - v) > 1e-12 * (1 + fabs(v))) return 0;
  return 1;
}

/* The generator fails and the message holds `want`. */
static void bad(const char *json, const char *want)
{
  crd_mesh_part p;
  crd_err_clear();
  int rc = gen(json, &p);
  T_OK(rc < 0 && strstr(crd_err_message(), want) && p.nn == 0 && !p.x,
       "rejects %s: '%s' (want '%s')", json, crd_err_message(), want);
}

/* -------------------------------------------------------- generators */

static void test_rectangle(void)
{
  crd_mesh_part p;
  int rc = gen("{\"type\":\"rectangle\",\"lx\":10,\"ly\":1,\"nx\":16,\"ny\":4}", &p);
  T_OK(rc == 0, "rectangle: generates (%s)", rc ? crd_err_message() : "");
  if (rc) return;
  T_OK(p.nn == 85 && p.ne == 64, "rectangle: 85 nodes, 64 elements (got %d, %d)", p.nn, p.ne);
  T_OK(well_formed(&p), "rectangle: quads and sets well formed");
  T_NEAR(X(&p, 3 + 17 * 2)[0], 10.0 * 3 / 16, 1e-14, 0, "rectangle node (3,2) x");
  T_NEAR(X(&p, 3 + 17 * 2)[1], 0.5, 1e-14, 0, "rectangle node (3,2) y");
  T_OK(X(&p, 84)[0] == 10 && X(&p, 84)[1] == 1 && X(&p, 84)[2] == 0,
       "rectangle: last node at (lx,ly,0)");
  T_OK(bad_normals(&p, out_z) == 0, "rectangle: all normals +z");
  T_OK(boundary_edges(&p) == 2 * (16 + 4), "rectangle: consistent orientation, 40 boundary edges");
  T_OK(set_nn(&p, "x0") == 5 && set_nn(&p, "x1") == 5 && set_nn(&p, "y0") == 17 &&
           set_nn(&p, "y1") == 17, "rectangle: edge sets 5, 5, 17, 17 nodes");
  T_OK(set_on(&p, "x1", 0, 10) && set_on(&p, "y1", 1, 1) && set_on(&p, "x0", 0, 0) &&
           set_on(&p, "y0", 1, 0), "rectangle: edge sets on their edges");
  T_OK(point(&p, "x0y0") == 0 && point(&p, "x1y0") == 16 && point(&p, "x1y1") == 84 &&
           point(&p, "x0y1") == 68, "rectangle: corner sets");
  T_OK(set_nn(&p, "xmid") == 5 && set_on(&p, "xmid", 0, 5) && set_nn(&p, "ymid") == 17 &&
           set_on(&p, "ymid", 1, 0.5), "rectangle: mid lines");
  int c = point(&p, "center");
  T_OK(c >= 0 && X(&p, c)[0] == 5 && X(&p, c)[1] == 0.5, "rectangle: center node at (5, 0.5)");
  crd_mesh_part_free(&p);
  T_OK(p.nn == 0 && !p.x && !p.sets, "free zeroes the part");

  rc = gen("{\"type\":\"rectangle\",\"lx\":3,\"ly\":2,\"nx\":3,\"ny\":2}", &p);
  T_OK(rc == 0 && !set(&p, "xmid") && set(&p, "ymid") && !set(&p, "center"),
       "rectangle: odd nx has no xmid and no center");
  crd_mesh_part_free(&p);
}

static void test_cylinder(void)
{
  crd_mesh_part p;
  const double R = 25, L = 25, a1 = 40 * M_PI / 180;
  int rc = gen("{\"type\":\"cylinder\",\"radius\":25,\"length\":25,\"angle\":[0,40],\"nc\":4,"
               "\"nl\":6}", &p);
  T_OK(rc == 0, "cylinder: generates (%s)", rc ? crd_err_message() : "");
  if (rc) return;
  T_OK(p.nn == 35 && p.ne == 24, "cylinder: 35 nodes, 24 elements (got %d, %d)", p.nn, p.ne);
  T_OK(well_formed(&p), "cylinder: quads and sets well formed");
  int n = point(&p, "a0y1");
  T_OK(n == 30 && X(&p, n)[0] == 0 && X(&p, n)[1] == L && X(&p, n)[2] == R,
       "cylinder: node at a0 on y = L is (0, L, R)");
  n = point(&p, "a1y0");
  T_NEAR(X(&p, n)[0], R * sin(a1), 1e-14, 0, "cylinder a1y0 x = R sin a1");
  T_NEAR(X(&p, n)[2], R * cos(a1), 1e-14, 0, "cylinder a1y0 z = R cos a1");
  int off = 0;
  for (int i = 0; i < p.nn; ++i) off += fabs(hypot(X(&p, i)[0], X(&p, i)[2]) - R) > 1e-12;
  T_OK(off == 0, "cylinder: all nodes at distance R from the axis");
  T_OK(bad_normals(&p, out_cyl) == 0, "cylinder: all normals outward");
  T_OK(boundary_edges(&p) == 2 * (4 + 6), "cylinder: consistent orientation");
  T_OK(set_nn(&p, "y0") == 5 && set_nn(&p, "y1") == 5 && set_nn(&p, "a0") == 7 &&
           set_nn(&p, "a1") == 7 && set_on(&p, "y1", 1, L) && set_on(&p, "a0", 0, 0),
       "cylinder: edge sets");
  T_OK(point(&p, "a0y0") == 0 && point(&p, "a1y1") == 34, "cylinder: corner sets");
  T_OK(set_nn(&p, "amid") == 7 && set_on(&p, "amid", 0, R * sin(a1 / 2)) &&
           set_nn(&p, "ymid") == 5 && set_on(&p, "ymid", 1, L / 2), "cylinder: mid lines");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"cylinder\",\"radius\":2,\"length\":3,\"angle\":[30,390],\"nc\":8,"
           "\"nl\":2}", &p);
  T_OK(rc == 0, "closed cylinder: generates (%s)", rc ? crd_err_message() : "");
  if (rc) return;
  T_OK(p.nn == 24 && p.ne == 16, "closed cylinder: 24 nodes, 16 elements (got %d, %d)", p.nn, p.ne);
  T_OK(well_formed(&p), "closed cylinder: well formed");
  T_OK(close_pairs(&p, 1e-6) == 0, "closed cylinder: no duplicate nodes on the seam");
  T_OK(boundary_edges(&p) == 16, "closed cylinder: seam closed (only the 2 x 8 end edges free)");
  T_OK(bad_normals(&p, out_cyl) == 0, "closed cylinder: all normals outward");
  T_OK(!set(&p, "a0") && !set(&p, "a1") && !set(&p, "a0y0") && set_nn(&p, "y0") == 8 &&
           set_nn(&p, "amid") == 3 && set_nn(&p, "ymid") == 8,
       "closed cylinder: no a0/a1 sets, y0 8 nodes, amid, ymid");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"cylinder\",\"radius\":1,\"length\":3,\"angle\":[-90,90],\"nc\":2,"
           "\"nl\":1}", &p);
  T_OK(rc == 0 && point(&p, "a0y0") >= 0 && X(&p, point(&p, "a0y0"))[0] == -1 &&
           X(&p, point(&p, "a0y0"))[2] == 0 && X(&p, point(&p, "a1y0"))[0] == 1 &&
           bad_normals(&p, out_cyl) == 0,
       "half cylinder [-90, 90]: edges at x = -R and x = +R, normals outward");
  crd_mesh_part_free(&p);
}

static void test_hemisphere(void)
{
  crd_mesh_part p;
  const double R = 10, h = 18 * M_PI / 180;
  int rc = gen("{\"type\":\"hemisphere\",\"radius\":10,\"hole_angle\":18,\"n\":4}", &p);
  T_OK(rc == 0, "hemisphere with hole: generates (%s)", rc ? crd_err_message() : "");
  if (rc) return;
  T_OK(p.nn == 25 && p.ne == 16, "hemisphere with hole: 25 nodes, 16 elements (got %d, %d)", p.nn,
       p.ne);
  T_OK(well_formed(&p), "hemisphere with hole: well formed");
  int off = 0, quarter = 1;
  for (int i = 0; i < p.nn; ++i) {
    off += fabs(sqrt(X(&p, i)[0] * X(&p, i)[0] + X(&p, i)[1] * X(&p, i)[1] +
                     X(&p, i)[2] * X(&p, i)[2]) - R) > 1e-12;
    quarter &= X(&p, i)[0] >= 0 && X(&p, i)[1] >= 0 && X(&p, i)[2] >= 0;
  }
  T_OK(off == 0 && quarter, "hemisphere with hole: all nodes at distance R, in x,y,z >= 0");
  T_OK(bad_normals(&p, out_sph) == 0, "hemisphere with hole: all normals outward");
  T_OK(boundary_edges(&p) == 16, "hemisphere with hole: consistent orientation, 4n boundary edges");
  T_OK(set_nn(&p, "equator") == 5 && set_on(&p, "equator", 2, 0) && set_nn(&p, "hole") == 5 &&
           set_on(&p, "hole", 2, R * cos(h)), "hemisphere with hole: equator and hole sets");
  T_OK(set_nn(&p, "x0") == 5 && set_on(&p, "x0", 0, 0) && set_nn(&p, "y0") == 5 &&
           set_on(&p, "y0", 1, 0), "hemisphere with hole: meridian sets x0, y0");
  int px = point(&p, "px"), py = point(&p, "py");
  T_OK(px >= 0 && X(&p, px)[0] == R && X(&p, px)[1] == 0 && X(&p, px)[2] == 0,
       "hemisphere with hole: px at (R, 0, 0)");
  T_OK(py >= 0 && X(&p, py)[0] == 0 && X(&p, py)[1] == R && X(&p, py)[2] == 0,
       "hemisphere with hole: py at (0, R, 0)");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"hemisphere\",\"radius\":10,\"n\":8}", &p);
  T_OK(rc == 0, "closed hemisphere: generates (%s)", rc ? crd_err_message() : "");
  if (rc) return;
  T_OK(p.nn == 61 && p.ne == 48, "closed hemisphere n=8: 61 nodes, 48 elements (got %d, %d)",
       p.nn, p.ne);
  T_OK(well_formed(&p), "closed hemisphere: well formed");
  off = 0;
  for (int i = 0; i < p.nn; ++i)
    off += fabs(sqrt(X(&p, i)[0] * X(&p, i)[0] + X(&p, i)[1] * X(&p, i)[1] +
                     X(&p, i)[2] * X(&p, i)[2]) - R) > 1e-12;
  T_OK(off == 0, "closed hemisphere: all nodes at distance R");
  T_OK(bad_normals(&p, out_sph) == 0, "closed hemisphere: all normals outward");
  T_OK(close_pairs(&p, 1e-6) == 0, "closed hemisphere: no duplicate nodes at patch seams");
  T_OK(boundary_edges(&p) == 24, "closed hemisphere: watertight (only 3n boundary edges)");
  int pole = point(&p, "pole");
  T_OK(pole >= 0 && X(&p, pole)[0] == 0 && X(&p, pole)[1] == 0 && X(&p, pole)[2] == R,
       "closed hemisphere: pole at (0, 0, R)");
  px = point(&p, "px"), py = point(&p, "py");
  T_OK(px >= 0 && py >= 0 && X(&p, px)[0] == R && X(&p, px)[2] == 0 && X(&p, py)[1] == R &&
           X(&p, py)[0] == 0, "closed hemisphere: px, py on the equator");
  T_OK(set_nn(&p, "equator") == 9 && set_on(&p, "equator", 2, 0) && set_nn(&p, "x0") == 9 &&
           set_on(&p, "x0", 0, 0) && set_nn(&p, "y0") == 9 && set_on(&p, "y0", 1, 0),
       "closed hemisphere: equator, x0, y0 have n+1 nodes on their planes");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"hemisphere\",\"radius\":1,\"n\":16}", &p);
  T_NEAR(rc ? 0 : area(&p), M_PI / 2, 0.01, 0, "closed hemisphere n=16: area ~ pi R^2 / 2");
  crd_mesh_part_free(&p);
}

static void test_transform(void)
{
  crd_mesh_part p;
  int rc = gen("{\"type\":\"rectangle\",\"lx\":2,\"ly\":1,\"nx\":2,\"ny\":1,"
               "\"rotate\":[0,0,2,90],\"origin\":[1,2,3]}", &p);
  T_OK(rc == 0, "rotate + origin: generates");
  if (rc) return;
  int n = point(&p, "x1y0"); /* (2,0,0) -> rotated (0,2,0) -> moved (1,4,3) */
  T_OK(n >= 0 && X(&p, n)[0] == 1 && X(&p, n)[1] == 4 && X(&p, n)[2] == 3,
       "rotate 90 about z, then translate: (2,0,0) -> (1,4,3): got (%g,%g,%g)", X(&p, n)[0],
       X(&p, n)[1], X(&p, n)[2]);
  n = point(&p, "x1y1"); /* (2,1,0) -> (-1,2,0) -> (0,4,3) */
  T_NEAR(X(&p, n)[0], 0.0, 0.0, 1e-14, "rotated x1y1 x");
  T_NEAR(X(&p, n)[1], 4.0, 1e-14, 0.0, "rotated x1y1 y");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"rectangle\",\"lx\":2,\"ly\":1,\"nx\":2,\"ny\":1,\"rotate\":[1,0,0,30]}", &p);
  n = rc ? -1 : point(&p, "x1y1"); /* (2,1,0) -> (2, cos30, sin30) */
  T_OK(n >= 0 && fabs(X(&p, n)[1] - cos(M_PI / 6)) < 1e-14 && fabs(X(&p, n)[2] - 0.5) < 1e-14,
       "rotate 30 about x: (2,1,0) -> (2, cos 30, sin 30)");
  crd_mesh_part_free(&p);

  rc = gen("{\"type\":\"cylinder\",\"radius\":1,\"length\":2,\"angle\":[0,90],\"nc\":2,\"nl\":2,"
           "\"origin\":[5,0,0]}", &p);
  n = rc ? -1 : point(&p, "a0y0");
  T_OK(n >= 0 && X(&p, n)[0] == 5 && X(&p, n)[2] == 1, "cylinder origin: a0y0 at (5,0,1)");
  crd_mesh_part_free(&p);
}

static void test_bad_keys(void)
{
  const char *J = "case.json: $.mesh.generate";
  char want[256];
  snprintf(want, sizeof want, "%s.nx: expected a positive integer", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":0,\"ny\":1}", want);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1.5,\"ny\":1}", want);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":\"4\",\"ny\":1}", want);
  snprintf(want, sizeof want, "%s.nz: unknown key", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1,\"nz\":1}", want);
  snprintf(want, sizeof want, "%s.ly: missing", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"nx\":1,\"ny\":1}", want);
  snprintf(want, sizeof want, "%s.lx: expected a positive number", J);
  bad("{\"type\":\"rectangle\",\"lx\":-1,\"ly\":1,\"nx\":1,\"ny\":1}", want);
  snprintf(want, sizeof want, "%s.nx: duplicate key", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1,\"nx\":2}", want);
  snprintf(want, sizeof want, "%s.angle:", J);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"angle\":[40,0],\"nc\":2,\"nl\":2}", want);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"angle\":[0,400],\"nc\":2,\"nl\":2}", want);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"angle\":[0],\"nc\":2,\"nl\":2}", want);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"nc\":2,\"nl\":2}", want);
  snprintf(want, sizeof want, "%s.angle[1]: not a number", J);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"angle\":[0,\"x\"],\"nc\":2,\"nl\":2}", want);
  snprintf(want, sizeof want, "%s.nc:", J);
  bad("{\"type\":\"cylinder\",\"radius\":1,\"length\":1,\"angle\":[0,360],\"nc\":2,\"nl\":2}", want);
  snprintf(want, sizeof want, "%s.radius: expected a positive number", J);
  bad("{\"type\":\"cylinder\",\"radius\":0,\"length\":1,\"angle\":[0,90],\"nc\":2,\"nl\":2}", want);
  snprintf(want, sizeof want, "%s.hole_angle:", J);
  bad("{\"type\":\"hemisphere\",\"radius\":1,\"hole_angle\":95,\"n\":4}", want);
  snprintf(want, sizeof want, "%s.n: expected an even integer", J);
  bad("{\"type\":\"hemisphere\",\"radius\":1,\"n\":5}", want);
  snprintf(want, sizeof want, "%s.lx: unknown key", J);
  bad("{\"type\":\"hemisphere\",\"radius\":1,\"n\":4,\"lx\":1}", want);
  snprintf(want, sizeof want, "%s.type: unknown generator 'sphere'", J);
  bad("{\"type\":\"sphere\",\"radius\":1}", want);
  snprintf(want, sizeof want, "%s.type: missing", J);
  bad("{\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1}", want);
  snprintf(want, sizeof want, "%s.rotate:", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1,\"rotate\":[0,0,0,30]}", want);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1,\"rotate\":[0,0,1]}", want);
  snprintf(want, sizeof want, "%s.origin:", J);
  bad("{\"type\":\"rectangle\",\"lx\":1,\"ly\":1,\"nx\":1,\"ny\":1,\"origin\":5}", want);
  snprintf(want, sizeof want, "%s: expected an object", J);
  bad("[1,2]", want);
}

/* ----------------------------------------------------------- Gmsh */

static char tmpdir[] = "/tmp/crd_t110_XXXXXX";

static const char *write_msh(const char *name, const char *text)
{
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
  return path;
}

/* A 2 x 1 quad plate with non-contiguous node tags 10..60 in three entity
 * blocks (one parametric), physical groups in 0D, 1D, 2D (one unnamed), and
 * sections to skip. */
static const char *MSH_GOOD =
    "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    "$Comments\nnot a $Nodes section\n$EndComments\n"
    "$PhysicalNames\n3\n0 5 \"tip\"\n1 6 \"left edge\"\n2 7 \"plate\"\n$EndPhysicalNames\n"
    "$Entities\n2 1 1 0\n"
    "1 0 0 0 0\n"
    "2 2 1 0 1 5\n"
    "1 0 0 0 0 1 0 2 6 9 2 1 -2\n"
    "1 0 0 0 2 1 0 1 7 1 1\n"
    "$EndEntities\n"
    "$Nodes\n3 6 10 60\n"
    "0 2 0 1\n60\n2 1 0\n"
    "1 1 1 2\n10\n40\n0 0 0 0\n0 1 0 1\n"
    "2 1 0 3\n20\n30\n50\n1 0 0\n2 0 0\n1 1 0\n"
    "$EndNodes\n"
    "$Elements\n3 4 1 4\n"
    "0 2 15 1\n1 60\n"
    "1 1 1 1\n2 10 40\n"
    "2 1 3 2\n3 10 20 50 40\n4 20 30 60 50\n"
    "$EndElements\n"
    "$NodeData\n1\n\"u\"\n1\n0.0\n3\n0\n1\n6\n10 0\n20 0\n30 0\n40 0\n50 0\n60 0\n$EndNodeData\n";

static void test_gmsh(void)
{
  crd_mesh_part p;
  if (!mkdtemp(tmpdir)) { T_OK(0, "mkdtemp"); return; }
  const char *f = write_msh("good.msh", MSH_GOOD);
  int rc = crd_gmsh_read(f, &p);
  T_OK(rc == 0, "gmsh: reads a 4.1 file (%s)", rc ? crd_err_message() : "");
  if (!rc) {
    T_OK(p.nn == 6 && p.ne == 2, "gmsh: 6 nodes, 2 quads (got %d, %d)", p.nn, p.ne);
    T_OK(well_formed(&p), "gmsh: well formed");
    /* file order: tags 60, 10, 40, 20, 30, 50 -> indices 0..5 */
    T_OK(X(&p, 0)[0] == 2 && X(&p, 0)[1] == 1 && X(&p, 2)[1] == 1 && X(&p, 5)[0] == 1,
         "gmsh: non-contiguous tags mapped in file order; parametric block read");
    const int32_t want[8] = {1, 3, 5, 2, 3, 4, 0, 5};
    T_OK(!memcmp(p.quads, want, sizeof want), "gmsh: quad connectivity as given");
    T_OK(bad_normals(&p, out_z) == 0, "gmsh: quads keep their (counter-clockwise) order");
    const crd_set *s = set(&p, "plate");
    T_OK(s && s->ne == 2 && s->nn == 6, "gmsh: 2D group 'plate' is an element set with its nodes");
    s = set(&p, "left edge");
    T_OK(s && s->ne == 0 && s->nn == 2 && s->nodes[0] == 1 && s->nodes[1] == 2,
         "gmsh: 1D group 'left edge' is the node set {1, 2}");
    T_OK(point(&p, "tip") == 0 && set(&p, "tip")->ne == 0, "gmsh: 0D group 'tip' is node 0");
    T_OK(p.nsets == 3, "gmsh: unnamed group makes no set (%d sets)", p.nsets);
    crd_mesh_part_free(&p);
  }

  /* A triangle block (type 2) on line 44. */
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", MSH_GOOD);
  char *q = strstr(buf, "2 1 3 2\n");
  q[4] = '2';
  f = write_msh("tri.msh", buf);
  rc = crd_gmsh_read(f, &p);
  char want[512];
  snprintf(want, sizeof want, "%s:44: element type 2", f);
  T_OK(rc < 0 && strstr(crd_err_message(), want) &&
           strstr(crd_err_message(), "only 4-node quadrangles are supported") && p.nn == 0,
       "gmsh: a triangle is an error naming the file, line and type: '%s'", crd_err_message());

  f = write_msh("v22.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n");
  rc = crd_gmsh_read(f, &p);
  snprintf(want, sizeof want, "%s:2: Gmsh format version 2.2 is not supported", f);
  T_OK(rc < 0 && strstr(crd_err_message(), want) && strstr(crd_err_message(), "4.1"),
       "gmsh: format 2.2 is an error: '%s'", crd_err_message());

  f = write_msh("bin.msh", "$MeshFormat\n4.1 1 8\n");
  rc = crd_gmsh_read(f, &p);
  T_OK(rc < 0 && strstr(crd_err_message(), "binary"), "gmsh: binary is an error: '%s'",
       crd_err_message());

  snprintf(buf, sizeof buf, "%s", MSH_GOOD);
  q = strstr(buf, "4 20 30 60 50");
  q[8] = '7'; /* node tag 70 is not in $Nodes */
  f = write_msh("tag.msh", buf);
  rc = crd_gmsh_read(f, &p);
  snprintf(want, sizeof want, "%s:46: node tag 70 is not in $Nodes", f);
  T_OK(rc < 0 && strstr(crd_err_message(), want), "gmsh: unknown node tag: '%s'",
       crd_err_message());

  snprintf(buf, sizeof buf, "%s", MSH_GOOD);
  q = strstr(buf, "$EndNodes");
  q[1] = 'X';
  f = write_msh("cut.msh", buf);
  rc = crd_gmsh_read(f, &p);
  T_OK(rc < 0 && strstr(crd_err_message(), "expected $EndNodes"), "gmsh: bad section end: '%s'",
       crd_err_message());

  f = write_msh("notmsh.msh", "hello\n");
  rc = crd_gmsh_read(f, &p);
  T_OK(rc < 0 && strstr(crd_err_message(), "notmsh.msh:1: not a Gmsh .msh file"),
       "gmsh: not a .msh file: '%s'", crd_err_message());

  snprintf(buf, sizeof buf, "%s/missing.msh", tmpdir);
  rc = crd_gmsh_read(buf, &p);
  T_OK(rc == CRD_ERR_IO && strstr(crd_err_message(), "missing.msh"), "gmsh: missing file: '%s'",
       crd_err_message());

  const char *names[] = {"good.msh", "tri.msh", "v22.msh", "bin.msh", "tag.msh", "cut.msh",
                         "notmsh.msh"};
  for (size_t k = 0; k < sizeof names / sizeof *names; ++k) {
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, names[k]);
    unlink(buf);
  }
  rmdir(tmpdir);
}

int main(void)
{
  test_rectangle();
  test_cylinder();
  test_hemisphere();
  test_transform();
  test_bad_keys();
  test_gmsh();
  return T_DONE();
}
