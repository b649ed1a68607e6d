/* t100-case: the case loader (docs/case_format.md): good cases load with the
 * documented defaults; bad input fails with CRD_ERR_INPUT and a message that
 * names the problem, the file and the JSON path.  Cases are written with
 * single quotes (J() turns them into double quotes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "crdyn/error.h"
#include "crdyn/loads.h"
#include "crdyn/model.h"

static char jbuf[16384];
static const char *J(const char *s)
{
  size_t n = strlen(s);
  if (n >= sizeof jbuf) n = sizeof jbuf - 1;
  for (size_t i = 0; i < n; ++i) jbuf[i] = s[i] == '\'' ? '"' : s[i];
  jbuf[n] = 0;
  return jbuf;
}

/* 2 x 2 quads on [0,2]x[0,2], node i + 3 j at (i, j, 0), CCW about +z. */
#define MESH "'mesh': {'nodes': [[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2,1,0],[0,2,0],[1,2,0],[2,2,0]]," \
             " 'quads': [[0,1,4,3],[1,2,5,4],[3,4,7,6],[4,5,8,7]]}"
#define SECT "'sections': [{'elements': 'all', 'E': 1e7, 'nu': 0.3, 'rho': 1, 'thickness': 0.1}]"
#define STAT "'analysis': {'type': 'static'}"
#define CASE(...) "{'format': 1, " MESH ", " SECT ", " __VA_ARGS__ "}"

/* Expect failure with code `code` and both fragments in the message. */
static void bad_code(int code, const char *json, const char *frag1, const char *frag2, const char *what)
{
  crd_model *m = NULL;
  crd_err_clear();
  int rc = crd_case_load_string(J(json), "cases/bad.json", &m);
  const char *msg = crd_err_message();
  int ok = rc == code && m == NULL && strstr(msg, frag1) && (!frag2 || strstr(msg, frag2)) &&
           strstr(msg, "cases/bad.json");
  T_OK(ok, "bad input rejected: %s [rc %d, message: %s]", what, rc, msg);
  crd_model_destroy(&m);
}
#define BAD(json, f1, f2, what) bad_code(CRD_ERR_INPUT, json, f1, f2, what)

static crd_model *good(const char *json, const char *path, const char *what)
{
  crd_model *m = NULL;
  int rc = crd_case_load_string(J(json), path, &m);
  T_OK(rc == 0 && m, "good case loads: %s%s%s", what, rc ? " -- " : "", rc ? crd_err_message() : "");
  return m;
}

static int set_is(const crd_model *m, const char *name, int nn, const int *nodes, int ne, const int *elems)
{
  int k = crd_model_find_set(m, name);
  if (k < 0) return 0;
  const crd_set *s = &m->sets[k];
  if (s->nn != nn || s->ne != ne) return 0;
  for (int i = 0; i < nn; ++i) if (s->nodes[i] != nodes[i]) return 0;
  for (int i = 0; i < ne; ++i) if (s->elems[i] != elems[i]) return 0;
  return 1;
}

static void test_full_case(void)
{
  crd_model *m = good(CASE(
      "'title': 'plate',"
      "'sets': {'left': {'box': [[0,0,0],[0,2,0]]}, 'tip': {'nodes': [8, 2, 5, 5]},"
      "         'web': {'elements': [3, 1]}, 'corner': {'elements_in_box': [[0,0,-1],[1,1,1]]}},"
      "'supports': [{'set': 'left', 'fix': 'all'}, {'set': 'tip', 'fix': ['ux', 'pz'], 'value': 0.5,"
      "              'amplitude': [[0, 0], [1, 1]]}],"
      "'loads': [{'set': 'tip', 'force': [0, 0, 3], 'total': true, 'amplitude': [[0,0],[2,4]]},"
      "          {'set': 'tip', 'moment': [1, 2, 3]},"
      "          {'elements': 'web', 'pressure': -2.5},"
      "          {'gravity': [0, 0, -9.81]}],"
      "'initial': {'velocity': [1, 0, 0]},"
      STAT ", 'output': {'probes': [{'name': 'A', 'node': 8}], 'vtk_every': 5, 'checkpoint_every': '600s'}"),
      "cases/full.json", "inline mesh, sets, supports, loads");
  if (!m) return;
  T_OK(m->nn == 9 && m->ne == 4, "9 nodes, 4 quads");
  T_OK(!strcmp(m->title, "plate") && !strcmp(m->backend, "cpu"), "title and default backend");
  T_OK(!strcmp(m->output.dir, "out/full"), "default output dir out/<stem>: %s", m->output.dir);
  T_OK(m->nsections == 1 && m->elem_section[3] == 0 && m->sections[0].thickness == 0.1, "section");
  T_OK(crd_model_find_set(m, "all") == 0 && m->sets[0].nn == 9 && m->sets[0].ne == 4, "predefined set all");
  T_OK(set_is(m, "left", 3, (int[]){0, 3, 6}, 0, NULL), "box set, bounds included");
  T_OK(set_is(m, "tip", 3, (int[]){2, 5, 8}, 0, NULL), "node set sorted and unique");
  T_OK(set_is(m, "web", 6, (int[]){1, 2, 4, 5, 7, 8}, 2, (int[]){1, 3}), "element set gets its nodes");
  T_OK(set_is(m, "corner", 4, (int[]){0, 1, 3, 4}, 1, (int[]){0}), "elements_in_box by centroid");
  T_OK(m->nsupports == 2 && m->supports[0].fix == CRD_FIX_ALL &&
       m->supports[0].set == crd_model_find_set(m, "left"), "support fix all");
  T_OK(m->supports[1].fix == (CRD_FIX_UX | CRD_FIX_PZ) && m->supports[1].has_value &&
       m->supports[1].value == 0.5 && m->supports[1].amp.n == 2, "support fix list, value, amplitude");
  T_OK(m->nloads == 4, "4 loads");
  const crd_load *L = m->loads;
  T_OK(L[0].kind == CRD_LOAD_FORCE && L[0].total && L[0].body == -1, "force load, total");
  T_NEAR(L[0].vec[2], 1.0, 0, 1e-15, "total force divided among the 3 nodes");
  T_NEAR(crd_amplitude_eval(&L[0].amp, 1.0, 7), 2.0, 0, 1e-15, "load amplitude midway");
  T_OK(L[1].kind == CRD_LOAD_MOMENT && L[1].vec[1] == 2 && L[1].amp.n == 0, "moment load");
  T_OK(L[2].kind == CRD_LOAD_PRESSURE && L[2].pressure == -2.5 && L[2].set == crd_model_find_set(m, "web"),
       "pressure load on an element set");
  T_OK(L[3].kind == CRD_LOAD_GRAVITY && L[3].vec[2] == -9.81 && L[3].set == -1, "gravity");
  T_OK(m->initial.has_velocity && m->initial.velocity[0] == 1, "initial velocity");
  const crd_analysis *a = &m->analysis;
  T_OK(a->type == CRD_ANALYSIS_STATIC && a->steps == 10 && a->max_load_factor == 1 && !a->arc_length &&
       a->tolerance == 1e-8 && a->max_iterations == 25 && a->nlgeom == 1 &&
       a->arc_length_max_factor == 1, "static defaults");
  T_OK(m->output.nprobes == 1 && m->output.probes[0].node == 8 && m->output.history_every == 1 &&
       m->output.vtk_every == 5 && m->output.checkpoint_every_seconds == 600, "output");
  crd_model_destroy(&m);
  T_OK(m == NULL, "destroy sets the pointer to NULL");
}

static void test_amplitude(void)
{
  double t[] = {0, 1, 3}, a[] = {2, 4, 0};
  crd_amplitude A = {3, t, a}, none = {0, NULL, NULL};
  T_NEAR(crd_amplitude_eval(&none, 5, 0.25), 0.25, 0, 0, "no table: default");
  T_NEAR(crd_amplitude_eval(&A, -1, 9), 2.0, 0, 0, "before the first point: first value");
  T_NEAR(crd_amplitude_eval(&A, 0, 9), 2.0, 0, 0, "at the first point");
  T_NEAR(crd_amplitude_eval(&A, 0.5, 9), 3.0, 0, 1e-15, "linear in between");
  T_NEAR(crd_amplitude_eval(&A, 1, 9), 4.0, 0, 1e-15, "at an inner point");
  T_NEAR(crd_amplitude_eval(&A, 2.5, 9), 1.0, 0, 1e-15, "linear in the last interval");
  T_NEAR(crd_amplitude_eval(&A, 10, 9), 0.0, 0, 0, "held after the last point");
  double t1[] = {2}, a1[] = {5};
  crd_amplitude B = {1, t1, a1};
  T_NEAR(crd_amplitude_eval(&B, 0, 9), 5.0, 0, 0, "one point: constant");
}

static void test_merge(void)
{
  crd_model *m = good(
      "{'format': 1, 'mesh': ["
      "  {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], 'quads': [[0,1,2,3]]},"
      "  {'nodes': [[1,1e-12,0],[2,0,0],[2,1,0],[1,1,0]], 'quads': [[0,1,2,3]]}],"
      SECT ", " STAT "}", "merge.json", "two parts sharing an edge");
  if (!m) return;
  T_OK(m->nn == 6 && m->ne == 2, "shared edge merged: %d nodes", m->nn);
  const int32_t *q = m->quads + 4;
  T_OK(q[0] == 1 && q[1] == 4 && q[2] == 5 && q[3] == 2, "second quad renumbered: %d %d %d %d",
       q[0], q[1], q[2], q[3]);
  T_OK(m->x[3 * 1 + 1] == 0, "merged node keeps the first occurrence's position");
  crd_model_destroy(&m);

  /* a 1e-6 gap is kept apart by the default tolerance and closed by an explicit one */
  const char *gap = "{'format': 1, 'mesh': ["
      "  {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], 'quads': [[0,1,2,3]]},"
      "  {'nodes': [[1.000001,0,0],[2,0,0],[2,1,0],[1.000001,1,0]], 'quads': [[0,1,2,3]]%s}],"
      SECT ", " STAT "}";
  char buf[1024];
  snprintf(buf, sizeof buf, gap, "");
  m = good(buf, "gap.json", "two parts 1e-6 apart");
  T_OK(m && m->nn == 8, "default tolerance (1e-9 x size) keeps a 1e-6 gap");
  crd_model_destroy(&m);
  snprintf(buf, sizeof buf, gap, ", 'merge_tolerance': 1e-5");
  m = good(buf, "gap.json", "merge_tolerance 1e-5");
  T_OK(m && m->nn == 6, "explicit merge_tolerance closes it");
  crd_model_destroy(&m);
}

static void test_dynamic(void)
{
  crd_model *m = good(CASE("'analysis': {'type': 'dynamic', 'stages': ["
                           "  {'integrator': 'explicit', 't_end': 0.001, 'dt': 'auto'},"
                           "  {'integrator': 'implicit', 't_end': 2, 'dt': 0.05, 'rho_inf': 0.5}]},"
                           "'backend': 'auto'"),
                      "dyn.json", "dynamic, two stages");
  if (!m) return;
  const crd_stage *s = m->analysis.stages;
  T_OK(m->analysis.type == CRD_ANALYSIS_DYNAMIC && m->analysis.nstages == 2, "two stages");
  T_OK(s[0].integrator == CRD_INT_EXPLICIT && s[0].dt_auto == 1 && s[0].dt == 0 && s[0].safety == 0.9 &&
       s[0].mass_scaling == 1 && s[0].rho_inf == 1, "explicit stage: auto dt and defaults");
  T_OK(s[1].integrator == CRD_INT_IMPLICIT && !s[1].dt_auto && s[1].dt == 0.05 && s[1].rho_inf == 0.5 &&
       s[1].tolerance == 1e-8 && s[1].max_iterations == 20 && s[1].t_end == 2, "implicit stage defaults");
  T_OK(!strcmp(m->backend, "auto") && !strcmp(m->title, "dyn"), "backend, default title = stem");
  crd_model_destroy(&m);

  m = good(CASE("'analysis': {'type': 'modal'}"), "modal.json", "modal");
  T_OK(m && m->analysis.type == CRD_ANALYSIS_MODAL && m->analysis.modes == 10, "modal default modes");
  crd_model_destroy(&m);
}

static void test_rigid_and_generated(void)
{
  crd_model *m = good("{'format': 1, 'rigid_bodies': [{'name': 'hub', 'mass': 2, "
                      "'inertia': [[1,0,0],[0,2,0],[0,0,3]], 'reference': [1,2,3], 'orientation': [2,0,0,0],"
                      "'fix': ['ux', 'uz'], 'integrator': 'newton_euler'}],"
                      "'loads': [{'body': 'hub', 'moment': [0,0,1]}, {'gravity': [0,0,-1]}],"
                      "'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'implicit', 't_end': 1, 'dt': 0.1}]}}",
                      "rb.json", "rigid bodies only");
  if (m) {
    const crd_rigid_body *b = m->bodies;
    T_OK(m->nn == 0 && m->ne == 0 && m->nsets == 0 && m->nbodies == 1, "no mesh, one body");
    T_OK(b->orientation[0] == 1 && b->center_of_mass[2] == 3 && b->fix == (CRD_FIX_UX | CRD_FIX_UZ) &&
         b->integrator == 1 && b->tie == -1 && !b->has_added_mass, "body: normalised quaternion, defaults");
    T_OK(m->loads[0].kind == CRD_LOAD_BODY && m->loads[0].body == 0 && m->loads[0].vec2[2] == 1, "body load");
  }
  crd_model_destroy(&m);

  m = good("{'format': 1, 'mesh': {'generate': {'type': 'rectangle', 'lx': 2, 'ly': 1, 'nx': 2, 'ny': 1}},"
           SECT ", 'supports': [{'set': 'x0', 'fix': 'all'}], " STAT "}", "gen.json", "generated rectangle");
  if (m) {
    int k = crd_model_find_set(m, "x0");
    T_OK(m->nn == 6 && m->ne == 2 && k > 0 && m->sets[k].nn == 2, "rectangle 2x1: 6 nodes, set x0");
  }
  crd_model_destroy(&m);

  /* two generated strips side by side: the shared edge merges, sets of the same name unite */
  m = good("{'format': 1, 'mesh': [{'generate': {'type': 'rectangle', 'lx': 1, 'ly': 1, 'nx': 1, 'ny': 1}},"
           "{'generate': {'type': 'rectangle', 'lx': 1, 'ly': 1, 'nx': 1, 'ny': 1, 'origin': [1,0,0]}}],"
           SECT ", " STAT "}", "gen2.json", "two generated parts");
  if (m) {
    int k = crd_model_find_set(m, "y0");
    T_OK(m->nn == 6 && m->ne == 2 && k > 0 && m->sets[k].nn == 3, "merged: 6 nodes, united y0 has 3");
  }
  crd_model_destroy(&m);
}

static void test_file(void)
{
  /* a directory of its own: two test runs at once must not share the file */
  char tdir[] = "/tmp/crd_t100f_XXXXXX", path[256];
  if (!mkdtemp(tdir)) { T_OK(0, "mkdtemp %s", tdir); return; }
  snprintf(path, sizeof path, "%s/crd_t100_case.json", tdir);
  FILE *f = fopen(path, "w");
  if (!f) { T_OK(0, "write %s", path); return; }
  fputs(J(CASE(STAT)), f);
  fclose(f);
  crd_model *m = NULL;
  int rc = crd_case_load(path, &m);
  T_OK(rc == 0 && m && !strcmp(m->title, "crd_t100_case") && !strcmp(m->output.dir, "out/crd_t100_case") &&
       !strcmp(m->case_path, path), "crd_case_load from a file: title and dir from the stem");
  crd_model_destroy(&m);
  remove(path);
  rmdir(tdir);

  /* a Gmsh part, found relative to the case file; its physical group becomes a set */
  char dir[] = "/tmp/crd_t100_XXXXXX", msh[256], cas[256];
  if (!mkdtemp(dir)) { T_OK(0, "mkdtemp"); return; }
  snprintf(msh, sizeof msh, "%s/part.msh", dir);
  snprintf(cas, sizeof cas, "%s/gm.json", dir);
  f = fopen(msh, "w");
  if (f) {
    fputs("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
          "$PhysicalNames\n1\n2 1 \"plate\"\n$EndPhysicalNames\n"
          "$Entities\n0 0 1 0\n1 0 0 0 1 1 0 1 1 0\n$EndEntities\n"
          "$Nodes\n1 4 1 4\n2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n$EndNodes\n"
          "$Elements\n1 1 1 1\n2 1 3 1\n1 1 2 3 4\n$EndElements\n", f);
    fclose(f);
  }
  f = fopen(cas, "w");
  if (f) {
    fputs(J("{'format': 1, 'mesh': {'file': 'part.msh'}, 'sections': [{'elements': 'plate', 'E': 1, "
            "'nu': 0.3, 'thickness': 1}], " STAT "}"), f);
    fclose(f);
  }
  rc = crd_case_load(cas, &m);
  int k = rc ? -1 : crd_model_find_set(m, "plate");
  T_OK(rc == 0 && m->nn == 4 && m->ne == 1 && k > 0 && m->sets[k].ne == 1 && m->sets[k].nn == 4,
       "Gmsh part relative to the case file, physical group as a set%s%s", rc ? ": " : "",
       rc ? crd_err_message() : "");
  crd_model_destroy(&m);
  remove(msh);
  remove(cas);
  rmdir(dir);
  rc = crd_case_load("/nonexistent/dir/x.json", &m);
  T_OK(rc == CRD_ERR_IO && strstr(crd_err_message(), "/nonexistent/dir/x.json") && m == NULL,
       "missing file: CRD_ERR_IO naming it [%s]", crd_err_message());
}

static void test_bad(void)
{
  /* JSON itself */
  BAD("{'format': 1,\n 'title': 'x',\n 'mesh': {,}}", "line 3", "malformed JSON", "malformed JSON names the line");
  BAD("{'format': 1} trailing", "line 1", "malformed", "trailing garbage");
  BAD("[1, 2]", "$:", "expected an object", "top level not an object");
  /* keys */
  BAD(CASE(STAT ", 'bogus': 1"), "$.bogus: unknown key", NULL, "unknown top-level key");
  BAD(CASE("'analysis': {'type': 'static', 'stepz': 3}"), "$.analysis.stepz: unknown key", NULL, "unknown nested key");
  BAD(CASE("'analysis': {'type': 'static', 'stages': []}"), "$.analysis.stages: unknown key", NULL,
      "a dynamic key in a static analysis");
  BAD(CASE("'loads': [{'set': 'all', 'force': [1,0,0], 'amplitud': [[0,1]]}], " STAT),
      "$.loads[0].amplitud: unknown key", NULL, "unknown key in a load");
  BAD(CASE(STAT ", 'title': 'a', 'title': 'b'"), "$.title: duplicate key", NULL, "duplicate key");
  BAD("{'format': 2, " MESH ", " SECT ", " STAT "}", "$.format", "unsupported format 2", "bad format version");
  BAD("{" MESH ", " SECT ", " STAT "}", "$: missing required key 'format'", NULL, "missing format");
  BAD("{'format': 1, " SECT ", " STAT "}", "missing required key 'mesh'", NULL, "missing mesh");
  BAD("{'format': 1, " MESH ", " STAT "}", "missing required key 'sections'", NULL, "missing sections");
  BAD(CASE("'output': {}"), "missing required key 'analysis'", NULL, "missing analysis");
  BAD(CASE("'analysis': {'type': 'static', 'steps': 2.5}"), "$.analysis.steps", "expected an integer",
      "non-integer steps");
  BAD(CASE("'analysis': {'type': 'static', 'tolerance': '1e-8'}"), "$.analysis.tolerance", "expected a number",
      "string where a number is expected");
  BAD(CASE("'analysis': {'type': 'static', 'max_load_factor': 1e999}"), "$.analysis.max_load_factor",
      "not finite", "infinite number");
  BAD(CASE("'analysis': {'type': 'quasi'}"), "$.analysis.type", "unknown analysis type", "bad analysis type");
  BAD(CASE(STAT ", 'backend': 'gpu'"), "$.backend", "unknown backend", "bad backend");
  /* sets */
  BAD(CASE("'supports': [{'set': 'nowhere', 'fix': 'all'}], " STAT), "$.supports[0].set", "unknown set 'nowhere'",
      "missing set");
  BAD(CASE("'sets': {'tip': {'box': [[5,5,5],[6,6,6]]}}, " STAT), "$.sets.tip: set selects no nodes", NULL,
      "set selecting nothing");
  BAD(CASE("'sets': {'e': {'elements_in_box': [[5,5,5],[6,6,6]]}}, " STAT), "$.sets.e: set selects no elements",
      NULL, "element set selecting nothing");
  BAD(CASE("'sets': {'tip': {'nodes': [1, 9]}}, " STAT), "$.sets.tip.nodes[1]", "out of range", "set node out of range");
  BAD(CASE("'sets': {'all': {'nodes': [1]}}, " STAT), "$.sets.all", "predefined", "user set named all");
  BAD(CASE("'sets': {'t': {'nodes': [1], 'box': [[0,0,0],[1,1,1]]}}, " STAT), "$.sets.t", "exactly one",
      "set with two selectors");
  BAD(CASE("'sets': {'t': {'box': [[1,0,0],[0,1,1]]}}, " STAT), "$.sets.t.box", "exceeds", "inverted box");
  BAD("{'format': 1, 'mesh': {'generate': {'type': 'rectangle', 'lx': 1, 'ly': 1, 'nx': 1, 'ny': 1}}, " SECT
      ", 'sets': {'x0': {'nodes': [0]}}, " STAT "}", "$.sets.x0", "duplicate set", "user set shadowing a mesh set");
  /* sections */
  BAD("{'format': 1, " MESH ", 'sections': [{'elements': 'all', 'E': 1, 'nu': 0.3, 'thickness': 0}], " STAT "}",
      "$.sections[0].thickness", "> 0", "zero thickness");
  BAD("{'format': 1, " MESH ", 'sections': [{'elements': 'all', 'E': 1, 'nu': 0.3, 'thickness': -0.1}], " STAT "}",
      "$.sections[0].thickness", "> 0", "negative thickness");
  BAD("{'format': 1, " MESH ", 'sections': [{'elements': 'all', 'E': 1, 'nu': 0.5, 'thickness': 1}], " STAT "}",
      "$.sections[0].nu", "(-1, 0.5)", "nu = 0.5");
  BAD("{'format': 1, " MESH ", 'sets': {'w': {'elements': [0]}}, 'sections': ["
      "{'elements': 'w', 'E': 1, 'nu': 0.3, 'thickness': 1}], " STAT "}", "$.sections", "element 1 has no section",
      "element without a section");
  BAD("{'format': 1, " MESH ", 'sets': {'w': {'elements': [2]}}, 'sections': ["
      "{'elements': 'all', 'E': 1, 'nu': 0.3, 'thickness': 1}, {'elements': 'w', 'E': 1, 'nu': 0.3, 'thickness': 1}], "
      STAT "}", "$.sections[1].elements", "element 2 already has a section", "element with two sections");
  BAD("{'format': 1, " MESH ", 'sets': {'t': {'nodes': [0]}}, 'sections': ["
      "{'elements': 't', 'E': 1, 'nu': 0.3, 'thickness': 1}], " STAT "}", "$.sections[0].elements",
      "has no elements", "section on a node set");
  BAD("{'format': 1, " MESH ", 'sections': [{'elements': 'all', 'E': 1, 'nu': 0.3, 'thickness': 1}], "
      "'analysis': {'type': 'modal'}}", "$.sections[0]", "rho > 0", "modal analysis without density");
  /* mesh */
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], 'quads': [[0,1,2,4]]}, " SECT ", " STAT "}",
      "$.mesh.quads[0][3]", "node index 4 out of range", "node index out of range");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], 'quads': [[0,1,1,3]]}, " SECT ", " STAT "}",
      "$.mesh.quads[0]: element 0 (nodes 0 1 1 3)", "node 1 is repeated", "repeated node in a quad");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[2,0,0],[3,0,0]], 'quads': [[0,1,2,3]]}, " SECT ", " STAT "}",
      "element 0", "zero area", "zero-area quad");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[2,0,0],[2,1,0]],"
      " 'quads': [[0,1,2,3],[1,4,2,5]]}, " SECT ", " STAT "}",
      "$.mesh.quads[1]: element 1 (nodes 1 4 2 5)", "degenerate", "bow-tie quad (zero net area)");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[0.2,0.2,0],[0,1,0]], 'quads': [[0,1,2,3]]}, " SECT ", " STAT "}",
      "element 0", "inverted or concave at node 2", "re-entrant (inverted corner) quad");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[2,0,0],[0,1,0],[1,1,0],[2,1,0]],"
      " 'quads': [[0,1,4,3],[1,4,5,2]]}, " SECT ", " STAT "}",
      "$.mesh.quads[1]: element 1", "oriented opposite to its neighbour element 0", "clockwise neighbour");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1,0],[5,5,5]], 'quads': [[0,1,2,3]]}, " SECT
      ", " STAT "}", "$.mesh", "node 4", "free node");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,1,0],[0,1]], 'quads': [[0,1,2,3]]}, " SECT ", " STAT "}",
      "$.mesh.nodes[3]", "3 numbers", "node with two coordinates");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0],[1,0,0],[1,'a',0],[0,1,0]], 'quads': [[0,1,2,3]]}, " SECT ", " STAT "}",
      "$.mesh.nodes[2][1]", "expected a number", "string coordinate");
  BAD("{'format': 1, 'mesh': {'nodes': [[0,0,0]], 'file': 'x.msh'}, " SECT ", " STAT "}", "$.mesh", "exactly one",
      "mesh part with two kinds");
  bad_code(CRD_ERR_IO, "{'format': 1, 'mesh': {'file': 'no_such_part.msh'}, " SECT ", " STAT "}",
           "$.mesh.file", "no_such_part.msh", "missing Gmsh file");
  BAD("{'format': 1, 'mesh': {'generate': {'type': 'rectangle', 'lx': 1, 'ly': 1, 'nx': 1, 'ny': 1, 'origin': [0,0,0], "
      "'colour': 1}}, " SECT ", " STAT "}", "$.mesh.generate.colour", NULL, "unknown generator key (generator's check)");
  /* supports, loads */
  BAD(CASE("'supports': [{'set': 'all', 'fix': ['ux', 'rz']}], " STAT), "$.supports[0].fix[1]", "unknown dof 'rz'",
      "bad fix name");
  BAD(CASE("'supports': [{'set': 'all', 'fix': ['px'], 'value': 1}], " STAT), "$.supports[0].value", "ux, uy or uz",
      "value without a displacement fix");
  BAD(CASE("'loads': [{'set': 'all', 'force': [1, 0, 0], 'amplitude': [[0, 0], [1, 1], [1, 2]]}], " STAT),
      "$.loads[0].amplitude[2][0]", "increase strictly", "non-increasing amplitude times");
  BAD(CASE("'loads': [{'set': 'all', 'force': [1, 0, 0], 'amplitude': []}], " STAT),
      "$.loads[0].amplitude", "non-empty", "empty amplitude");
  BAD(CASE("'loads': [{'set': 'all', 'force': [1, 'x', 0]}], " STAT), "$.loads[0].force[1]: expected a number", NULL,
      "force component not a number");
  BAD(CASE("'loads': [{'set': 'all', 'torque': [1, 0, 0]}], " STAT), "$.loads[0]", "unknown kind of load",
      "unknown load kind");
  BAD(CASE("'loads': [{'body': 'hub', 'force': [1, 0, 0]}], " STAT), "$.loads[0].body", "unknown rigid body 'hub'",
      "load on a missing body");
  /* analysis stages */
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'implicit', 't_end': 1, 'dt': 'auto', "
           "'dt_min': 0.5, 'dt_max': 0.1}]}"),
      "$.analysis.stages[0].dt_min", "exceeds dt_max", "dt auto of an implicit stage with dt_min above dt_max");
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'implicit', 't_end': 1, 'dt': 0.1, "
           "'error_tolerance': 1e-4}]}"),
      "$.analysis.stages[0].error_tolerance", "dt \"auto\"", "error_tolerance with a numeric dt");
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'explicit', 't_end': 1, 'dt': 'auto'},"
           "{'integrator': 'implicit', 't_end': 1, 'dt': 0.1}]}"),
      "$.analysis.stages[1].t_end", "previous stage", "stage not later than the previous");
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': []}"), "$.analysis.stages", "non-empty", "no stages");
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'implicit', 't_end': 1, 'dt': 0.1, "
           "'rho_inf': 1.5}]}"), "$.analysis.stages[0].rho_inf", "[0, 1]", "rho_inf out of range");
  BAD(CASE("'analysis': {'type': 'dynamic', 'stages': [{'integrator': 'implicit', 't_end': 1, 'dt': 0.1, "
           "'safety': 0.5}]}"), "$.analysis.stages[0].safety", "explicit", "safety in an implicit stage");
  /* output, rigid bodies */
  BAD(CASE(STAT ", 'output': {'probes': [{'name': 'A', 'node': 9}]}"), "$.output.probes[0].node", "out of range",
      "probe node out of range");
  BAD(CASE(STAT ", 'output': {'probes': [{'name': 'A', 'node': 1}, {'name': 'A', 'node': 2}]}"),
      "$.output.probes[1].name", "duplicate probe", "duplicate probe name");
  BAD(CASE(STAT ", 'output': {'checkpoint_every': '10min'}"), "$.output.checkpoint_every", "600s", "bad checkpoint");
  BAD(CASE(STAT ", 'output': {'history_every': 0}"), "$.output.history_every", ">= 1", "history_every 0");
  BAD("{'format': 1, 'rigid_bodies': [{'name': 'b', 'mass': 1, 'inertia': [[1,2,0],[0,1,0],[0,0,1]]}], " STAT "}",
      "$.rigid_bodies[0].inertia", "not symmetric", "unsymmetric inertia");
  BAD("{'format': 1, 'rigid_bodies': [{'name': 'b', 'mass': 1, 'inertia': [[1,0,0],[0,1,0],[0,0,1]],"
      " 'orientation': [0,0,0,0]}], " STAT "}", "$.rigid_bodies[0].orientation", "zero length", "zero quaternion");
  BAD("{'format': 1, 'rigid_bodies': [{'name': 'b', 'mass': 1, 'inertia': [[1,0,0],[0,1,0],[0,0,1]]},"
      "{'name': 'b', 'mass': 1, 'inertia': [[1,0,0],[0,1,0],[0,0,1]]}], " STAT "}", "$.rigid_bodies[1].name",
      "duplicate", "duplicate body name");
  BAD("{'format': 1, 'rigid_bodies': [{'name': 'b', 'mass': 1, 'inertia': [[1,0,0],[0,1,0],[0,0,1]], 'fix': ['px']}], "
      STAT "}", "$.rigid_bodies[0].fix[0]", "unknown dof 'px'", "rotation fix on a body");
}

int main(void)
{
  test_full_case();
  test_amplitude();
  test_merge();
  test_dynamic();
  test_rigid_and_generated();
  test_file();
  test_bad();
  return T_DONE();
}
