/* crdyn case loader (docs/case_format.md, format 1): crd_case_load and friends.
 *
 * The file is parsed with cJSON and walked once, section by section, in the
 * order the sections depend on each other: mesh (case_mesh.c), sets,
 * sections, rigid bodies (their "tie" names a set), supports, loads (which
 * name sets and bodies), initial, analysis, output.  Everything is checked
 * on the way; the first problem stops the load with CRD_ERR_INPUT (CRD_ERR_IO
 * for an unreadable file) and a message "FILE: JSON_PATH: problem".  The
 * model is built in place, so a half-built model is simply destroyed.
 *
 * Choices beyond the format text: "all" is a predefined set (all nodes and
 * elements of the mesh) and a reserved name; set indices stored in loads and
 * supports are real indices into model->sets ("all" included; -1 only for
 * gravity and body loads); a load with "total" stores the per-node share in
 * vec; a support "value" needs one of ux/uy/uz fixed and "amplitude" needs
 * "value"; dynamic and modal analyses need rho > 0 in every section. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_priv.h"

static const char *const dof_names[6] = {"ux", "uy", "uz", "px", "py", "pz"};

/* ---- small pieces ---------------------------------------------------------- */

/* obj[key] names a set: its index (with need_elems, it must hold elements). */
static int get_set(const crd_case_ctx *c, const crd_model *m, const cJSON *obj, const char *jp,
                   const char *key, int need_elems, int *out)
{
  char name[CRD_NAME_MAX + 64], kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get_str(c, obj, jp, key, 1, 1, name, sizeof name));
  crd_jp_key(kp, jp, key);
  *out = crd_model_find_set(m, name);
  if (*out < 0) {
    if (!strcmp(name, "all")) return CASE_BAD(c, kp, "unknown set 'all': the model has no mesh");
    return CASE_BAD(c, kp, "unknown set '%s'", name);
  }
  if (need_elems && m->sets[*out].ne == 0)
    return CASE_BAD(c, kp, "set '%s' has no elements (an element set is needed here)", name);
  return 0;
}

/* "all" or an array of dof names, restricted to `allowed` bits. */
static int parse_fix(const crd_case_ctx *c, const cJSON *it, const char *jp, unsigned allowed, unsigned *out)
{
  char ep[CRD_JP_MAX], list[64] = "";
  const cJSON *v;
  int i = 0;
  for (int k = 0; k < 6; ++k)
    if (allowed & (1u << k)) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", dof_names[k]);
  *out = 0;
  if (cJSON_IsString(it) && !strcmp(it->valuestring, "all")) {
    *out = allowed;
    return 0;
  }
  if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0)
    return CASE_BAD(c, jp, "expected \"all\" or a non-empty array of %s", list);
  cJSON_ArrayForEach(v, it) {
    int k = 0;
    crd_jp_idx(ep, jp, i++);
    if (!cJSON_IsString(v)) return CASE_BAD(c, ep, "expected one of %s, got %s", list, crd_json_type(v));
    while (k < 6 && strcmp(v->valuestring, dof_names[k])) ++k;
    if (k == 6 || !(allowed & (1u << k)))
      return CASE_BAD(c, ep, "unknown dof '%s' (expected one of %s)", v->valuestring, list);
    if (*out & (1u << k)) return CASE_BAD(c, ep, "'%s' is listed twice", v->valuestring);
    *out |= 1u << k;
  }
  return 0;
}

static int parse_amplitude(const crd_case_ctx *c, const cJSON *it, const char *jp, crd_amplitude *a)
{
  char ep[CRD_JP_MAX], tp[CRD_JP_MAX];
  const cJSON *pair;
  int n, i = 0;
  if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) == 0)
    return CASE_BAD(c, jp, "expected a non-empty array of [t, a] pairs");
  n = cJSON_GetArraySize(it);
  CRD_CALL(CRD_CALLOC(n, &a->t));
  CRD_CALL(CRD_CALLOC(n, &a->a));
  a->n = n;
  cJSON_ArrayForEach(pair, it) {
    double ta[2];
    CRD_CALL(crd_json_vec(c, pair, crd_jp_idx(ep, jp, i), 2, ta));
    if (i > 0 && !(ta[0] > a->t[i - 1]))
      return CASE_BAD(c, crd_jp_idx(tp, ep, 0), "time %g does not exceed the previous time %g "
                      "(amplitude times must increase strictly)", ta[0], a->t[i - 1]);
    a->t[i] = ta[0], a->a[i] = ta[1];
    ++i;
  }
  return 0;
}

static int get_amplitude(const crd_case_ctx *c, const cJSON *obj, const char *jp, crd_amplitude *a)
{
  char kp[CRD_JP_MAX];
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "amplitude");
  if (it) CRD_CALL(parse_amplitude(c, it, crd_jp_key(kp, jp, "amplitude"), a));
  return 0;
}

/* A positive number (or >= 0 with allow_zero), for the physical constants. */
static int get_positive(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                        int req, int allow_zero, double *out)
{
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get_num(c, obj, jp, key, req, out));
  if (allow_zero ? *out < 0 : *out <= 0)
    return CASE_BAD(c, crd_jp_key(kp, jp, key), "%s must be %s (got %g)", key,
                    allow_zero ? ">= 0" : "> 0", *out);
  return 0;
}

static int get_int_min(const crd_case_ctx *c, const cJSON *obj, const char *jp, const char *key,
                       int min, int *out)
{
  char kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get_int(c, obj, jp, key, 0, out));
  if (*out < min) return CASE_BAD(c, crd_jp_key(kp, jp, key), "%s must be >= %d (got %d)", key, min, *out);
  return 0;
}

/* ---- sections, supports --------------------------------------------------------- */

static int parse_membrane(const crd_case_ctx *c, const cJSON *it, const char *jp, int *membrane)
{
  char name[32] = "tied_shear", kp[CRD_JP_MAX];
  CRD_CALL(crd_json_get_str(c, it, jp, "membrane", 0, 1, name, sizeof name));
  if (!strcmp(name, "tied_shear")) *membrane = CRD_MEMBRANE_TIED_SHEAR;
  else if (!strcmp(name, "displacement")) *membrane = CRD_MEMBRANE_DISPLACEMENT;
  else
    return CASE_BAD(c, crd_jp_key(kp, jp, "membrane"), "unknown membrane '%s' (expected tied_shear or displacement)",
                    name);
  return 0;
}

static int parse_sections(const crd_case_ctx *c, const cJSON *arr, crd_model *m)
{
  static const char *const keys[] = {"elements", "E", "nu", "rho", "thickness", "membrane", NULL};
  char jp[CRD_JP_MAX], kp[CRD_JP_MAX];
  const cJSON *it;
  int n, i = 0;
  if (!cJSON_IsArray(arr)) return CASE_BAD(c, "$.sections", "expected an array, got %s", crd_json_type(arr));
  n = cJSON_GetArraySize(arr);
  CRD_CALL(CRD_CALLOC(n, &m->sections));
  m->nsections = n;
  CRD_CALL(CRD_CALLOC(m->ne, &m->elem_section));
  for (int e = 0; e < m->ne; ++e) m->elem_section[e] = -1;
  cJSON_ArrayForEach(it, arr) {
    crd_section *s = &m->sections[i];
    int set;
    crd_jp_idx(jp, "$.sections", i);
    CRD_CALL(crd_json_keys(c, it, jp, keys));
    CRD_CALL(get_set(c, m, it, jp, "elements", 1, &set));
    CRD_CALL(get_positive(c, it, jp, "E", 1, 0, &s->E));
    CRD_CALL(crd_json_get_num(c, it, jp, "nu", 1, &s->nu));
    if (!(s->nu > -1 && s->nu < 0.5))
      return CASE_BAD(c, crd_jp_key(kp, jp, "nu"), "nu must lie in (-1, 0.5) (got %g)", s->nu);
    CRD_CALL(get_positive(c, it, jp, "rho", 0, 1, &s->rho));
    CRD_CALL(get_positive(c, it, jp, "thickness", 1, 0, &s->thickness));
    CRD_CALL(parse_membrane(c, it, jp, &s->membrane));
    const crd_set *st = &m->sets[set];
    for (int k = 0; k < st->ne; ++k) {
      int e = st->elems[k];
      if (m->elem_section[e] >= 0)
        return CASE_BAD(c, crd_jp_key(kp, jp, "elements"), "element %d already has a section "
                        "($.sections[%d]); every element needs exactly one", e, (int)m->elem_section[e]);
      m->elem_section[e] = i;
    }
    ++i;
  }
  for (int e = 0; e < m->ne; ++e)
    if (m->elem_section[e] < 0)
      return CASE_BAD(c, "$.sections", "element %d has no section; every element needs exactly one", e);
  return 0;
}

static int parse_supports(const crd_case_ctx *c, const cJSON *arr, crd_model *m)
{
  static const char *const keys[] = {"set", "fix", "value", "amplitude", NULL};
  char jp[CRD_JP_MAX], kp[CRD_JP_MAX];
  const cJSON *it, *fix;
  int i = 0;
  if (!cJSON_IsArray(arr)) return CASE_BAD(c, "$.supports", "expected an array, got %s", crd_json_type(arr));
  m->nsupports = cJSON_GetArraySize(arr);
  CRD_CALL(CRD_CALLOC(m->nsupports, &m->supports));
  cJSON_ArrayForEach(it, arr) {
    crd_support *s = &m->supports[i];
    crd_jp_idx(jp, "$.supports", i++);
    CRD_CALL(crd_json_keys(c, it, jp, keys));
    CRD_CALL(get_set(c, m, it, jp, "set", 0, &s->set));
    CRD_CALL(crd_json_get(c, it, jp, "fix", 1, &fix));
    CRD_CALL(parse_fix(c, fix, crd_jp_key(kp, jp, "fix"), CRD_FIX_ALL, &s->fix));
    if (cJSON_HasObjectItem(it, "value")) {
      CRD_CALL(crd_json_get_num(c, it, jp, "value", 1, &s->value));
      s->has_value = 1;
      if (!(s->fix & (CRD_FIX_UX | CRD_FIX_UY | CRD_FIX_UZ)))
        return CASE_BAD(c, crd_jp_key(kp, jp, "value"), "a prescribed value needs ux, uy or uz in \"fix\"");
    }
    if (cJSON_HasObjectItem(it, "amplitude") && !s->has_value)
      return CASE_BAD(c, crd_jp_key(kp, jp, "amplitude"), "an amplitude needs \"value\" (the displacement it scales)");
    CRD_CALL(get_amplitude(c, it, jp, &s->amp));
  }
  return 0;
}

/* ---- rigid bodies ------------------------------------------------------------------ */

static int check_symmetric(const crd_case_ctx *c, const char *jp, int n, const double *a)
{
  double amax = 0;
  for (int k = 0; k < n * n; ++k) amax = fmax(amax, fabs(a[k]));
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (fabs(a[i * n + j] - a[j * n + i]) > 1e-9 * amax)
        return CASE_BAD(c, jp, "matrix is not symmetric (entries [%d][%d] and [%d][%d] differ)", i, j, j, i);
  return 0;
}

static int parse_body(const crd_case_ctx *c, const cJSON *it, const char *jp, crd_model *m, int ib)
{
  static const char *const keys[] = {"name", "mass", "inertia", "reference", "center_of_mass",
                                     "added_mass", "orientation", "velocity", "angular_velocity",
                                     "fix", "tie", "integrator", NULL};
  crd_rigid_body *b = &m->bodies[ib];
  char kp[CRD_JP_MAX], integ[32] = "dqvi";
  const cJSON *v;
  CRD_CALL(crd_json_keys(c, it, jp, keys));
  CRD_CALL(crd_json_get_str(c, it, jp, "name", 1, 1, b->name, sizeof b->name));
  for (int k = 0; k < ib; ++k)
    if (!strcmp(m->bodies[k].name, b->name))
      return CASE_BAD(c, crd_jp_key(kp, jp, "name"), "duplicate rigid body name '%s'", b->name);
  CRD_CALL(get_positive(c, it, jp, "mass", 1, 0, &b->mass));

  CRD_CALL(crd_json_get(c, it, jp, "inertia", 1, &v));
  crd_jp_key(kp, jp, "inertia");
  CRD_CALL(crd_json_mat(c, v, kp, 3, b->inertia));
  CRD_CALL(check_symmetric(c, kp, 3, b->inertia));
  const double *I = b->inertia;                          /* Cholesky: positive definite */
  double l11 = I[0], l21, l22, l31, l32, l33;
  if (l11 > 0) {
    l11 = sqrt(l11), l21 = I[3] / l11, l31 = I[6] / l11;
    l22 = I[4] - l21 * l21;
    if (l22 > 0) {
      l22 = sqrt(l22), l32 = (I[7] - l31 * l21) / l22;
      l33 = I[8] - l31 * l31 - l32 * l32;
    } else l33 = -1;
  } else l33 = -1;
  if (!(l33 > 0)) return CASE_BAD(c, kp, "inertia is not positive definite");

  CRD_CALL(crd_json_get_vec(c, it, jp, "reference", 0, 3, b->reference));
  memcpy(b->center_of_mass, b->reference, sizeof b->center_of_mass);
  CRD_CALL(crd_json_get_vec(c, it, jp, "center_of_mass", 0, 3, b->center_of_mass));
  if ((v = cJSON_GetObjectItemCaseSensitive(it, "added_mass"))) {
    crd_jp_key(kp, jp, "added_mass");
    CRD_CALL(crd_json_mat(c, v, kp, 6, b->added_mass));
    CRD_CALL(check_symmetric(c, kp, 6, b->added_mass));
    b->has_added_mass = 1;
  }
  b->orientation[0] = 1;
  CRD_CALL(crd_json_get_vec(c, it, jp, "orientation", 0, 4, b->orientation));
  double qn = sqrt(b->orientation[0] * b->orientation[0] + b->orientation[1] * b->orientation[1] +
                   b->orientation[2] * b->orientation[2] + b->orientation[3] * b->orientation[3]);
  if (!(qn > 1e-12)) return CASE_BAD(c, crd_jp_key(kp, jp, "orientation"), "quaternion has zero length");
  for (int k = 0; k < 4; ++k) b->orientation[k] /= qn;
  CRD_CALL(crd_json_get_vec(c, it, jp, "velocity", 0, 3, b->velocity));
  CRD_CALL(crd_json_get_vec(c, it, jp, "angular_velocity", 0, 3, b->angular_velocity));
  if ((v = cJSON_GetObjectItemCaseSensitive(it, "fix")))
    CRD_CALL(parse_fix(c, v, crd_jp_key(kp, jp, "fix"), CRD_FIX_UX | CRD_FIX_UY | CRD_FIX_UZ, &b->fix));
  b->tie = -1;
  if (cJSON_HasObjectItem(it, "tie")) CRD_CALL(get_set(c, m, it, jp, "tie", 0, &b->tie));
  CRD_CALL(crd_json_get_str(c, it, jp, "integrator", 0, 1, integ, sizeof integ));
  if (!strcmp(integ, "dqvi")) b->integrator = 0;
  else if (!strcmp(integ, "newton_euler")) b->integrator = 1;
  else return CASE_BAD(c, crd_jp_key(kp, jp, "integrator"), "unknown integrator '%s' (expected dqvi or newton_euler)", integ);
  return 0;
}

/* ---- loads ----------------------------------------------------------------------------- */

static int parse_load(const crd_case_ctx *c, const cJSON *it, const char *jp, crd_model *m, crd_load *L)
{
  static const char *const k_gravity[] = {"gravity", "amplitude", NULL};
  static const char *const k_body[] = {"body", "force", "moment", "amplitude", NULL};
  static const char *const k_pressure[] = {"elements", "pressure", "amplitude", NULL};
  static const char *const k_force[] = {"set", "force", "total", "amplitude", NULL};
  static const char *const k_moment[] = {"set", "moment", "amplitude", NULL};
  char kp[CRD_JP_MAX];
  L->set = -1, L->body = -1;
  if (!cJSON_IsObject(it)) return CASE_BAD(c, jp, "expected an object, got %s", crd_json_type(it));
  int has_force = cJSON_HasObjectItem(it, "force"), has_moment = cJSON_HasObjectItem(it, "moment");
  if (cJSON_HasObjectItem(it, "gravity")) {
    L->kind = CRD_LOAD_GRAVITY;
    CRD_CALL(crd_json_keys(c, it, jp, k_gravity));
    CRD_CALL(crd_json_get_vec(c, it, jp, "gravity", 1, 3, L->vec));
  } else if (cJSON_HasObjectItem(it, "body")) {
    char name[CRD_NAME_MAX + 64];
    L->kind = CRD_LOAD_BODY;
    CRD_CALL(crd_json_keys(c, it, jp, k_body));
    CRD_CALL(crd_json_get_str(c, it, jp, "body", 1, 1, name, sizeof name));
    for (int k = 0; k < m->nbodies && L->body < 0; ++k)
      if (!strcmp(m->bodies[k].name, name)) L->body = k;
    if (L->body < 0) return CASE_BAD(c, crd_jp_key(kp, jp, "body"), "unknown rigid body '%s'", name);
    if (!has_force && !has_moment) return CASE_BAD(c, jp, "a body load needs \"force\" or \"moment\"");
    CRD_CALL(crd_json_get_vec(c, it, jp, "force", 0, 3, L->vec));
    CRD_CALL(crd_json_get_vec(c, it, jp, "moment", 0, 3, L->vec2));
  } else if (cJSON_HasObjectItem(it, "pressure")) {
    L->kind = CRD_LOAD_PRESSURE;
    CRD_CALL(crd_json_keys(c, it, jp, k_pressure));
    CRD_CALL(get_set(c, m, it, jp, "elements", 1, &L->set));
    CRD_CALL(crd_json_get_num(c, it, jp, "pressure", 1, &L->pressure));
  } else if (has_force && has_moment) {
    return CASE_BAD(c, jp, "give a force and a moment on a set as two loads");
  } else if (has_force) {
    L->kind = CRD_LOAD_FORCE;
    CRD_CALL(crd_json_keys(c, it, jp, k_force));
    CRD_CALL(get_set(c, m, it, jp, "set", 0, &L->set));
    CRD_CALL(crd_json_get_vec(c, it, jp, "force", 1, 3, L->vec));
    CRD_CALL(crd_json_get_bool(c, it, jp, "total", 0, &L->total));
    if (L->total)
      for (int k = 0; k < 3; ++k) L->vec[k] /= m->sets[L->set].nn;
  } else if (has_moment) {
    L->kind = CRD_LOAD_MOMENT;
    CRD_CALL(crd_json_keys(c, it, jp, k_moment));
    CRD_CALL(get_set(c, m, it, jp, "set", 0, &L->set));
    CRD_CALL(crd_json_get_vec(c, it, jp, "moment", 1, 3, L->vec));
  } else {
    return CASE_BAD(c, jp, "unknown kind of load: expected \"force\" or \"moment\" (with \"set\"), "
                    "\"pressure\" (with \"elements\"), \"gravity\" or \"body\"");
  }
  CRD_CALL(get_amplitude(c, it, jp, &L->amp));
  return 0;
}

/* ---- initial, analysis, output -------------------------------------------------------- */

static int parse_initial(const crd_case_ctx *c, const cJSON *it, crd_model *m)
{
  static const char *const keys[] = {"velocity", "angular_velocity", "about", NULL};
  crd_initial *in = &m->initial;
  CRD_CALL(crd_json_keys(c, it, "$.initial", keys));
  CRD_CALL(crd_json_get_vec(c, it, "$.initial", "velocity", 0, 3, in->velocity));
  CRD_CALL(crd_json_get_vec(c, it, "$.initial", "angular_velocity", 0, 3, in->angular_velocity));
  CRD_CALL(crd_json_get_vec(c, it, "$.initial", "about", 0, 3, in->about));
  in->has_velocity = cJSON_HasObjectItem(it, "velocity") || cJSON_HasObjectItem(it, "angular_velocity");
  return 0;
}

/* An implicit stage with dt "auto": the error tolerance and the step's
 * bounds (docs/dynamics.md, "Adaptive implicit steps"). */
static int parse_implicit_auto(const crd_case_ctx *c, const cJSON *it, const char *jp, double len, crd_stage *s)
{
  char kp[CRD_JP_MAX];
  s->error_tolerance = 1e-4, s->dt_max = len / 20.0;
  CRD_CALL(get_positive(c, it, jp, "error_tolerance", 0, 0, &s->error_tolerance));
  CRD_CALL(get_positive(c, it, jp, "dt_max", 0, 0, &s->dt_max));
  s->dt_min = s->dt_max / 65536.0;
  CRD_CALL(get_positive(c, it, jp, "dt_min", 0, 0, &s->dt_min));
  if (!(s->dt_min <= s->dt_max))
    return CASE_BAD(c, crd_jp_key(kp, jp, "dt_min"), "dt_min %g exceeds dt_max %g", s->dt_min, s->dt_max);
  if (len / s->dt_min > CRD_MAX_STAGE_STEPS)
    return CASE_BAD(c, crd_jp_key(kp, jp, "dt_min"), "dt_min %g allows %.3g steps of the stage's %g s (at most %.0f)",
                    s->dt_min, len / s->dt_min, len, CRD_MAX_STAGE_STEPS);
  s->dt = s->dt_max;
  return 0;
}

/* Keys that belong to other kinds of stage: error_tolerance, dt_min and
 * dt_max to adaptive implicit steps (implicit or auto with dt "auto"),
 * switch_margin and newton_cost to auto stages, the implicit keys to
 * implicit and auto stages, the explicit ones to explicit stages (safety
 * also to auto stages; mass_scaling not: an auto stage's integrators must
 * see the same inertia). */
static int stage_key_scope(const crd_case_ctx *c, const cJSON *it, const char *jp, const crd_stage *s, int adaptive)
{
  static const char *const adaptive_only[] = {"error_tolerance", "dt_min", "dt_max", NULL};
  static const char *const auto_only[] = {"switch_margin", "newton_cost", NULL};
  static const char *const implicit_only[] = {"tolerance", "max_iterations", "monotone_energy", NULL};
  static const char *const explicit_only[] = {"safety", "mass_scaling", NULL};
  static const char *const explicit_only_auto[] = {"mass_scaling", NULL};
  char kp[CRD_JP_MAX];
  for (const char *const *k = adaptive_only; *k && !adaptive; ++k)
    if (cJSON_HasObjectItem(it, *k))
      return CASE_BAD(c, crd_jp_key(kp, jp, *k), "applies only to implicit or auto stages with dt \"auto\"");
  for (const char *const *k = auto_only; *k && s->integrator != CRD_INT_AUTO; ++k)
    if (cJSON_HasObjectItem(it, *k))
      return CASE_BAD(c, crd_jp_key(kp, jp, *k), "applies only to stages with integrator \"auto\"");
  const char *const *other = s->integrator == CRD_INT_IMPLICIT ? explicit_only
                             : s->integrator == CRD_INT_EXPLICIT ? implicit_only : explicit_only_auto;
  for (; *other; ++other)
    if (cJSON_HasObjectItem(it, *other))
      return CASE_BAD(c, crd_jp_key(kp, jp, *other), "applies only to %s stages",
                      s->integrator == CRD_INT_EXPLICIT ? "implicit and auto" : "explicit");
  return 0;
}

/* An auto stage's switching: the margin and the fixed Newton cost
 * (docs/dynamics.md, "Automatic switching"). */
static int parse_auto(const crd_case_ctx *c, const cJSON *it, const char *jp, crd_stage *s)
{
  s->switch_margin = 0.25, s->newton_cost = 0.0;
  CRD_CALL(get_positive(c, it, jp, "switch_margin", 0, 1, &s->switch_margin));
  if (cJSON_HasObjectItem(it, "newton_cost")) CRD_CALL(get_positive(c, it, jp, "newton_cost", 1, 0, &s->newton_cost));
  return 0;
}

static int parse_stage_dt(const crd_case_ctx *c, const cJSON *it, const char *jp, double t_prev, crd_stage *s)
{
  char kp[CRD_JP_MAX];
  const cJSON *dt;
  CRD_CALL(crd_json_get(c, it, jp, "dt", 1, &dt));
  crd_jp_key(kp, jp, "dt");
  if (cJSON_IsString(dt)) {
    if (strcmp(dt->valuestring, "auto")) return CASE_BAD(c, kp, "expected a number or \"auto\"");
    s->dt_auto = 1, s->dt = 0;
    if (s->integrator != CRD_INT_EXPLICIT) CRD_CALL(parse_implicit_auto(c, it, jp, s->t_end - t_prev, s));
    return 0;
  }
  if (s->integrator == CRD_INT_AUTO)
    return CASE_BAD(c, kp, "a stage with integrator \"auto\" chooses its steps: dt must be \"auto\"");
  CRD_CALL(crd_json_num(c, dt, kp, &s->dt));
  if (!(s->dt > 0)) return CASE_BAD(c, kp, "dt must be > 0 (got %g)", s->dt);
  if ((s->t_end - t_prev) / s->dt > CRD_MAX_STAGE_STEPS)
    return CASE_BAD(c, kp, "dt %g makes %.3g steps of the stage's %g s (at most %.0f)", s->dt,
                    (s->t_end - t_prev) / s->dt, s->t_end - t_prev, CRD_MAX_STAGE_STEPS);
  return 0;
}

static int parse_stage(const crd_case_ctx *c, const cJSON *it, const char *jp, double t_prev, crd_stage *s)
{
  static const char *const keys[] = {"integrator", "t_end", "dt", "rho_inf", "tolerance",
                                     "max_iterations", "safety", "mass_scaling", "monotone_energy",
                                     "error_tolerance", "dt_min", "dt_max", "switch_margin", "newton_cost", NULL};
  char kp[CRD_JP_MAX], integ[32];
  CRD_CALL(crd_json_keys(c, it, jp, keys));
  CRD_CALL(crd_json_get_str(c, it, jp, "integrator", 1, 1, integ, sizeof integ));
  if (!strcmp(integ, "implicit")) s->integrator = CRD_INT_IMPLICIT;
  else if (!strcmp(integ, "explicit")) s->integrator = CRD_INT_EXPLICIT;
  else if (!strcmp(integ, "auto")) s->integrator = CRD_INT_AUTO;
  else return CASE_BAD(c, crd_jp_key(kp, jp, "integrator"), "unknown integrator '%s' (expected implicit, explicit or auto)", integ);
  const cJSON *dtv = cJSON_GetObjectItemCaseSensitive(it, "dt");
  int adaptive = s->integrator != CRD_INT_EXPLICIT && cJSON_IsString(dtv) && !strcmp(dtv->valuestring, "auto");
  CRD_CALL(stage_key_scope(c, it, jp, s, adaptive));
  CRD_CALL(crd_json_get_num(c, it, jp, "t_end", 1, &s->t_end));
  if (!(s->t_end > t_prev))
    return CASE_BAD(c, crd_jp_key(kp, jp, "t_end"), "t_end %g must exceed %g (the %s)", s->t_end, t_prev,
                    t_prev == 0 ? "start time" : "previous stage's t_end");
  CRD_CALL(parse_stage_dt(c, it, jp, t_prev, s));
  if (s->integrator == CRD_INT_AUTO) CRD_CALL(parse_auto(c, it, jp, s));
  s->safety = 0.9, s->rho_inf = 1.0, s->tolerance = 1e-8, s->max_iterations = 20, s->mass_scaling = 1;
  s->monotone_energy = 1;
  CRD_CALL(crd_json_get_num(c, it, jp, "rho_inf", 0, &s->rho_inf));
  CRD_CALL(crd_json_get_bool(c, it, jp, "monotone_energy", 0, &s->monotone_energy));
  if (!(s->rho_inf >= 0 && s->rho_inf <= 1))
    return CASE_BAD(c, crd_jp_key(kp, jp, "rho_inf"), "rho_inf must lie in [0, 1] (got %g)", s->rho_inf);
  CRD_CALL(get_positive(c, it, jp, "tolerance", 0, 0, &s->tolerance));
  CRD_CALL(get_int_min(c, it, jp, "max_iterations", 1, &s->max_iterations));
  CRD_CALL(crd_json_get_num(c, it, jp, "safety", 0, &s->safety));
  if (!(s->safety > 0 && s->safety <= 1))
    return CASE_BAD(c, crd_jp_key(kp, jp, "safety"), "safety must lie in (0, 1] (got %g)", s->safety);
  CRD_CALL(crd_json_get_num(c, it, jp, "mass_scaling", 0, &s->mass_scaling));
  if (!(s->mass_scaling >= 1))
    return CASE_BAD(c, crd_jp_key(kp, jp, "mass_scaling"), "mass_scaling must be >= 1 (got %g)", s->mass_scaling);
  return 0;
}

static int parse_analysis(const crd_case_ctx *c, const cJSON *it, crd_model *m)
{
  static const char *const k_static[] = {"type", "steps", "max_load_factor", "arc_length",
                                         "arc_length_max_factor", "tolerance", "max_iterations",
                                         "nlgeom", NULL};
  static const char *const k_modal[] = {"type", "modes", NULL};
  static const char *const k_dynamic[] = {"type", "stages", NULL};
  const char *jp = "$.analysis";
  char type[32], kp[CRD_JP_MAX], sp[CRD_JP_MAX];
  crd_analysis *a = &m->analysis;
  a->steps = 10, a->max_load_factor = 1, a->tolerance = 1e-8, a->max_iterations = 25, a->nlgeom = 1;
  a->modes = 10;
  if (!cJSON_IsObject(it)) return CASE_BAD(c, jp, "expected an object, got %s", crd_json_type(it));
  CRD_CALL(crd_json_get_str(c, it, jp, "type", 1, 1, type, sizeof type));
  if (!strcmp(type, "static")) {
    a->type = CRD_ANALYSIS_STATIC;
    CRD_CALL(crd_json_keys(c, it, jp, k_static));
    CRD_CALL(get_int_min(c, it, jp, "steps", 1, &a->steps));
    CRD_CALL(crd_json_get_num(c, it, jp, "max_load_factor", 0, &a->max_load_factor));
    if (a->max_load_factor == 0)
      return CASE_BAD(c, crd_jp_key(kp, jp, "max_load_factor"), "max_load_factor must not be 0");
    CRD_CALL(crd_json_get_bool(c, it, jp, "arc_length", 0, &a->arc_length));
    a->arc_length_max_factor = a->max_load_factor;
    CRD_CALL(crd_json_get_num(c, it, jp, "arc_length_max_factor", 0, &a->arc_length_max_factor));
    CRD_CALL(get_positive(c, it, jp, "tolerance", 0, 0, &a->tolerance));
    CRD_CALL(get_int_min(c, it, jp, "max_iterations", 1, &a->max_iterations));
    CRD_CALL(crd_json_get_bool(c, it, jp, "nlgeom", 0, &a->nlgeom));
    if (a->nlgeom && a->max_load_factor < 0)
      return CASE_BAD(c, crd_jp_key(kp, jp, "max_load_factor"), "max_load_factor %g < 0: load control and arc "
                      "length step towards positive load factors; reverse the loads instead", a->max_load_factor);
    if (a->arc_length && !(a->arc_length_max_factor > 0))
      return CASE_BAD(c, crd_jp_key(kp, jp, "arc_length_max_factor"), "arc_length_max_factor must be > 0 (got %g)",
                      a->arc_length_max_factor);
  } else if (!strcmp(type, "modal")) {
    a->type = CRD_ANALYSIS_MODAL;
    CRD_CALL(crd_json_keys(c, it, jp, k_modal));
    CRD_CALL(get_int_min(c, it, jp, "modes", 1, &a->modes));
  } else if (!strcmp(type, "dynamic")) {
    const cJSON *stages, *st;
    int i = 0;
    a->type = CRD_ANALYSIS_DYNAMIC;
    CRD_CALL(crd_json_keys(c, it, jp, k_dynamic));
    CRD_CALL(crd_json_get(c, it, jp, "stages", 1, &stages));
    crd_jp_key(kp, jp, "stages");
    CRD_CALL(crd_json_array(c, stages, kp, &a->nstages));
    CRD_CALL(CRD_CALLOC(a->nstages, &a->stages));
    cJSON_ArrayForEach(st, stages) {
      CRD_CALL(parse_stage(c, st, crd_jp_idx(sp, kp, i), i ? a->stages[i - 1].t_end : 0, &a->stages[i]));
      ++i;
    }
  } else {
    return CASE_BAD(c, crd_jp_key(kp, jp, "type"), "unknown analysis type '%s' (expected static, modal or dynamic)", type);
  }
  if (a->type != CRD_ANALYSIS_STATIC)                    /* a massless shell has no dynamics */
    for (int k = 0; k < m->nsections; ++k)
      if (!(m->sections[k].rho > 0))
        return CASE_BAD(c, crd_jp_idx(sp, "$.sections", k), "a %s analysis needs rho > 0 in every section",
                        type);
  return 0;
}

/* history_dt and vtk_dt: rows and frames by simulated time, dynamic
 * analyses only (a static or modal analysis has no time) */
static int parse_output_dt(const crd_case_ctx *c, const cJSON *it, crd_model *m)
{
  static const char *const names[2] = {"history_dt", "vtk_dt"};
  double *dst[2] = {&m->output.history_dt, &m->output.vtk_dt};
  char kp[CRD_JP_MAX];
  for (int k = 0; k < 2; ++k) {
    if (!cJSON_GetObjectItemCaseSensitive(it, names[k])) continue;
    CRD_CALL(get_positive(c, it, "$.output", names[k], 1, 0, dst[k]));
    if (m->analysis.type != CRD_ANALYSIS_DYNAMIC)
      return CASE_BAD(c, crd_jp_key(kp, "$.output", names[k]), "%s is a time interval: only dynamic analyses "
                      "have a time (use %s)", names[k], k ? "vtk_every" : "history_every");
  }
  return 0;
}

static int parse_output(const crd_case_ctx *c, const cJSON *it, crd_model *m)
{
  static const char *const keys[] = {"dir",       "history_every", "vtk_every", "history_dt", "vtk_dt",
                                     "probes",    "checkpoint_every", NULL};
  static const char *const k_probe[] = {"name", "node", NULL};
  const char *jp = "$.output";
  char kp[CRD_JP_MAX], pp[CRD_JP_MAX], np_[CRD_JP_MAX];
  crd_output *o = &m->output;
  const cJSON *v;
  CRD_CALL(crd_json_keys(c, it, jp, keys));
  CRD_CALL(crd_json_get_str(c, it, jp, "dir", 0, 1, o->dir, sizeof o->dir));
  CRD_CALL(get_int_min(c, it, jp, "vtk_every", 0, &o->vtk_every));
  CRD_CALL(parse_output_dt(c, it, m));
  /* rows every step unless the case asks for them by step or by time */
  o->history_every = 1;
  CRD_CALL(get_int_min(c, it, jp, "history_every", 1, &o->history_every));
  if (o->history_dt > 0 && !cJSON_GetObjectItemCaseSensitive(it, "history_every")) o->history_every = 0;
  if ((v = cJSON_GetObjectItemCaseSensitive(it, "probes"))) {
    const cJSON *p;
    int i = 0;
    crd_jp_key(kp, jp, "probes");
    if (!cJSON_IsArray(v)) return CASE_BAD(c, kp, "expected an array, got %s", crd_json_type(v));
    o->nprobes = cJSON_GetArraySize(v);
    CRD_CALL(CRD_CALLOC(o->nprobes, &o->probes));
    cJSON_ArrayForEach(p, v) {
      crd_probe *pr = &o->probes[i];
      crd_jp_idx(pp, kp, i);
      CRD_CALL(crd_json_keys(c, p, pp, k_probe));
      CRD_CALL(crd_json_get_str(c, p, pp, "name", 1, 1, pr->name, sizeof pr->name));
      if (strpbrk(pr->name, ", \t\r\n\"'"))
        return CASE_BAD(c, crd_jp_key(np_, pp, "name"), "a probe name (a history.csv column prefix) "
                        "must not contain commas, quotes or white space");
      for (int k = 0; k < i; ++k)
        if (!strcmp(o->probes[k].name, pr->name))
          return CASE_BAD(c, crd_jp_key(np_, pp, "name"), "duplicate probe name '%s'", pr->name);
      CRD_CALL(crd_json_get_int(c, p, pp, "node", 1, &pr->node));
      if (pr->node < 0 || pr->node >= m->nn)
        return CASE_BAD(c, crd_jp_key(np_, pp, "node"), "node index %d out of range (the model has %d nodes)",
                        pr->node, m->nn);
      ++i;
    }
  }
  if ((v = cJSON_GetObjectItemCaseSensitive(it, "checkpoint_every"))) {
    crd_jp_key(kp, jp, "checkpoint_every");
    if (cJSON_IsString(v)) {
      char *end = NULL;
      errno = 0;
      double sec = strtod(v->valuestring, &end);
      if (end == v->valuestring || strcmp(end, "s") || errno || !isfinite(sec) || !(sec > 0))
        return CASE_BAD(c, kp, "expected a number of steps or seconds like \"600s\", got \"%s\"", v->valuestring);
      o->checkpoint_every_seconds = sec;
    } else {
      CRD_CALL(get_int_min(c, it, jp, "checkpoint_every", 0, &o->checkpoint_every_steps));
    }
  }
  return 0;
}

/* ---- the case ----------------------------------------------------------------------- */

/* format, title and backend: the case's header */
static int parse_header(crd_case_ctx *c, const cJSON *root, crd_model *m, const char *stem)
{
  static const char *const backends[] = {"cpu", "cuda", "opencl", "auto", NULL};
  int format, i;
  CRD_CALL(crd_json_get_int(c, root, "$", "format", 1, &format));
  if (format != 1) return CASE_BAD(c, "$.format", "unsupported format %d (this crdyn reads format 1)", format);
  snprintf(m->title, sizeof m->title, "%s", stem);
  CRD_CALL(crd_json_get_str(c, root, "$", "title", 0, 0, m->title, sizeof m->title));
  snprintf(m->backend, sizeof m->backend, "cpu");
  CRD_CALL(crd_json_get_str(c, root, "$", "backend", 0, 1, m->backend, sizeof m->backend));
  for (i = 0; backends[i] && strcmp(backends[i], m->backend); ++i) {}
  if (!backends[i]) return CASE_BAD(c, "$.backend", "unknown backend '%s' (expected cpu, cuda, opencl or auto)", m->backend);
  return 0;
}

/* the mesh (required unless the model is of rigid bodies only), its sets
 * and sections */
static int parse_shell(crd_case_ctx *c, const cJSON *root, crd_model *m, int nbodies)
{
  const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(root, "mesh"), *v;
  const cJSON *sections = cJSON_GetObjectItemCaseSensitive(root, "sections");
  c->size = 1;
  m->crease_angle = 40.0;
  CRD_CALL(crd_json_get_num(c, root, "$", "crease_angle", 0, &m->crease_angle));
  if (!(m->crease_angle > 0 && m->crease_angle < 180))
    return CASE_BAD(c, "$.crease_angle", "crease_angle must lie in (0, 180) degrees (got %g)", m->crease_angle);
  if (mesh) CRD_CALL(crd_case_mesh(c, mesh, m));
  else if (nbodies == 0)
    return CASE_BAD(c, "$", "missing required key 'mesh' (only a model of rigid bodies alone may leave it out)");
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "sets"))) CRD_CALL(crd_case_sets(c, v, m));
  if (sections) CRD_CALL(parse_sections(c, sections, m));
  else if (mesh) return CASE_BAD(c, "$", "missing required key 'sections'");
  return 0;
}

static int parse_bodies(crd_case_ctx *c, const cJSON *bodies, crd_model *m, int nbodies)
{
  char jp[CRD_JP_MAX];
  const cJSON *v;
  int i = 0;
  if (!nbodies) return 0;
  CRD_CALL(CRD_CALLOC(nbodies, &m->bodies));
  m->nbodies = nbodies;
  cJSON_ArrayForEach(v, bodies) {
    CRD_CALL(parse_body(c, v, crd_jp_idx(jp, "$.rigid_bodies", i), m, i));
    ++i;
  }
  return 0;
}

static int parse_loads(crd_case_ctx *c, const cJSON *v, crd_model *m)
{
  char jp[CRD_JP_MAX];
  const cJSON *l;
  int i = 0;
  if (!cJSON_IsArray(v)) return CASE_BAD(c, "$.loads", "expected an array, got %s", crd_json_type(v));
  m->nloads = cJSON_GetArraySize(v);
  CRD_CALL(CRD_CALLOC(m->nloads, &m->loads));
  cJSON_ArrayForEach(l, v) {
    CRD_CALL(parse_load(c, l, crd_jp_idx(jp, "$.loads", i), m, &m->loads[i]));
    ++i;
  }
  return 0;
}

static int parse_case(crd_case_ctx *c, const cJSON *root, crd_model *m, const char *stem)
{
  /* "$schema": the editor's pointer to docs/case.schema.json, read by no one here */
  static const char *const keys[] = {"$schema", "format", "title", "mesh", "sections", "sets", "supports",
                                     "loads", "initial", "rigid_bodies", "analysis", "output",
                                     "backend", "crease_angle", NULL};
  const cJSON *v;
  int nbodies = 0;
  CRD_CALL(crd_json_keys(c, root, "$", keys));
  CRD_CALL(parse_header(c, root, m, stem));
  const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(root, "rigid_bodies");
  if (bodies) {
    if (!cJSON_IsArray(bodies)) return CASE_BAD(c, "$.rigid_bodies", "expected an array, got %s", crd_json_type(bodies));
    nbodies = cJSON_GetArraySize(bodies);
  }
  CRD_CALL(parse_shell(c, root, m, nbodies));
  CRD_CALL(parse_bodies(c, bodies, m, nbodies));
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "supports"))) CRD_CALL(parse_supports(c, v, m));
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "loads"))) CRD_CALL(parse_loads(c, v, m));
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "initial"))) CRD_CALL(parse_initial(c, v, m));
  if (!(v = cJSON_GetObjectItemCaseSensitive(root, "analysis")))
    return CASE_BAD(c, "$", "missing required key 'analysis'");
  CRD_CALL(parse_analysis(c, v, m));

  crd_output *o = &m->output;
  snprintf(o->dir, sizeof o->dir, "out/%s", stem);
  o->history_every = 1;
  if ((v = cJSON_GetObjectItemCaseSensitive(root, "output"))) CRD_CALL(parse_output(c, v, m));
  return 0;
}

int crd_case_load_string(const char *text, const char *path, crd_model **model)
{
  crd_case_ctx c;
  char stem[CRD_PATH_MAX];
  crd_model *m = NULL;
  CRD_CHECK(model, CRD_ERR_INPUT, "crd_case_load_string: model is NULL");
  *model = NULL;
  if (!path) path = "<string>";
  CRD_CHECK(text, CRD_ERR_INPUT, "%s: no text", path);
  CRD_CHECK(strlen(path) < CRD_PATH_MAX, CRD_ERR_INPUT, "case path too long: %.64s...", path);

  memset(&c, 0, sizeof c);
  c.file = path;
  c.size = 1;
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  memcpy(c.dir, path, dlen);
  c.dir[dlen] = 0;
  snprintf(stem, sizeof stem, "%s", path + dlen);
  size_t sl = strlen(stem);
  if (sl > 5 && !strcmp(stem + sl - 5, ".json")) stem[sl - 5] = 0;
  if (!stem[0]) snprintf(stem, sizeof stem, "case");

  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  if (!root) {
    const char *at = end ? end : cJSON_GetErrorPtr();
    int line = 1, col = 1;
    char near[32];
    size_t n = 0;
    if (!at || at < text) at = text;
    for (const char *p = text; p < at && *p; ++p) {
      if (*p == '\n') ++line, col = 1;
      else ++col;
    }
    while (n < sizeof near - 1 && at[n] && at[n] != '\n' && at[n] != '\r') near[n] = at[n], ++n;
    near[n] = 0;
    return CRD_ERR(CRD_ERR_INPUT, "%s: line %d, column %d: malformed JSON %s%s%s", path, line, col,
                   n ? "near '" : "at the end of the text", near, n ? "'" : "");
  }
  int rc = CRD_CALLOC(1, &m);
  if (!rc) {
    snprintf(m->case_path, sizeof m->case_path, "%s", path);
    rc = parse_case(&c, root, m, stem);
  }
  cJSON_Delete(root);
  if (rc) {
    crd_model_destroy(&m);
    return CRD_TRACE(rc);
  }
  *model = m;
  return 0;
}

int crd_case_load(const char *path, crd_model **model)
{
  CRD_CHECK(model, CRD_ERR_INPUT, "crd_case_load: model is NULL");
  *model = NULL;
  CRD_CHECK(path, CRD_ERR_INPUT, "crd_case_load: no path");
  FILE *f = fopen(path, "rb");
  CRD_CHECK(f, CRD_ERR_IO, "%s: cannot open the case file: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *text = malloc(cap);
  while (text) {
    n += fread(text + n, 1, cap - 1 - n, f);
    if (n < cap - 1) break;
    char *t = realloc(text, cap *= 2);
    if (!t) free(text);
    text = t;
  }
  int bad = ferror(f);
  fclose(f);
  CRD_CHECK(text, CRD_ERR_MEM, "%s: out of memory reading the case file", path);
  if (bad) {
    free(text);
    return CRD_ERR(CRD_ERR_IO, "%s: read error", path);
  }
  text[n] = 0;
  if (strlen(text) != n) {
    free(text);
    return CRD_ERR(CRD_ERR_INPUT, "%s: the file contains a NUL byte (not a JSON text)", path);
  }
  int rc = crd_case_load_string(text, path, model);
  free(text);
  if (rc) return CRD_TRACE(rc);
  return 0;
}

void crd_model_destroy(crd_model **pm)
{
  if (!pm || !*pm) return;
  crd_model *m = *pm;
  free(m->x);
  free(m->quads);
  free(m->elem_section);
  free(m->sections);
  for (int k = 0; m->sets && k < m->nsets; ++k) {
    free(m->sets[k].nodes);
    free(m->sets[k].elems);
  }
  free(m->sets);
  for (int k = 0; m->supports && k < m->nsupports; ++k) {
    free(m->supports[k].amp.t);
    free(m->supports[k].amp.a);
  }
  free(m->supports);
  for (int k = 0; m->loads && k < m->nloads; ++k) {
    free(m->loads[k].amp.t);
    free(m->loads[k].amp.a);
  }
  free(m->loads);
  free(m->bodies);
  free(m->analysis.stages);
  free(m->output.probes);
  free(m);
  *pm = NULL;
}

int crd_model_find_set(const crd_model *m, const char *name)
{
  if (!m || !name) return -1;
  for (int k = 0; k < m->nsets; ++k)
    if (!strcmp(m->sets[k].name, name)) return k;
  return -1;
}

