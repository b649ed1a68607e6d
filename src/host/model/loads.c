/* crdyn: external loads (see loads.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/cr_frame.h"
#include "crdyn/error.h"
#include "crdyn/loads.h"
#include "crdyn/triads.h"

struct crd_loads {
  double *mass;       /* nn: rho h int N_i dA (initial surface) */
  int32_t *node_elem; /* nn: an element holding the node, and its local index */
  int8_t *node_loc;
};

/* At Gauss point ig (2x2) of the bilinear surface through X (12): shape
 * functions N, their natural derivatives, the tangents a = x,xi, b = x,eta
 * and n = a x b (area vector per unit dxi deta). */
static void surface_gp(const double *X, int ig, double *N, double *Nx, double *Ne, double *a, double *b,
                       double *n)
{
  const double g = 0.57735026918962576451;
  crd_q4_shape((ig == 0 || ig == 3) ? -g : g, ig < 2 ? -g : g, N, Nx, Ne);
  for (int c = 0; c < 3; ++c) a[c] = b[c] = 0.0;
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) { a[c] += Nx[i] * X[3 * i + c]; b[c] += Ne[i] * X[3 * i + c]; }
  crd_cross3(a, b, n);
}

/* int N_i |x,xi x x,eta| dxi deta over the initial element, 2x2 Gauss. */
static void element_areas(const double *X, double *w)
{
  for (int i = 0; i < 4; ++i) w[i] = 0.0;
  for (int ig = 0; ig < 4; ++ig) {
    double N[4], Nx[4], Ne[4], a[3], b[3], n[3];
    surface_gp(X, ig, N, Nx, Ne, a, b, n);
    double J = crd_norm3(n);
    for (int i = 0; i < 4; ++i) w[i] += N[i] * J;
  }
}

/* A moment on a smooth node acts on its normal p as the force M x p: the
 * part of M along p does no work (a smooth node has no rotation about its
 * normal, no drilling stiffness).  A moment with such a part would be
 * dropped in part without a word, so it is refused where it starts: at a
 * smooth node whose rotations are not all fixed, |M . p0| above 1e-6 |M|.
 * At an intersection node every component acts on the triad. */
static int check_moments(const crd_problem *pb)
{
  const crd_model *m = pb->m;
  const unsigned rot = CRD_FIX_PX | CRD_FIX_PY | CRD_FIX_PZ;
  for (int k = 0; k < m->nloads; ++k) {
    const crd_load *ld = &m->loads[k];
    if (ld->kind != CRD_LOAD_MOMENT) continue;
    const crd_set *set = &m->sets[ld->set];
    const double *M = ld->vec;
    double mm = sqrt(crd_dot3(M, M));
    for (int j = 0; j < set->nn; ++j) {
      int i = set->nodes[j];
      const double *p0 = pb->p0 + 3 * i;
      double mn = crd_dot3(M, p0);
      int held = (pb->fix[i] & rot) == rot, triad = pb->tr && pb->tr->of[i] >= 0;
      if (triad || held || fabs(mn) <= 1e-6 * mm) continue;
      return CRD_ERR(CRD_ERR_INPUT,
                     "%s: $.loads[%d]: the moment (%g, %g, %g) on node %d has the component %g along the node's "
                     "normal (%g, %g, %g), where a smooth shell has no rotation to take it (no drilling "
                     "stiffness): give the moment without it, M - (M.p) p, or put it on an intersection node "
                     "(docs/case_format.md, \"loads\")",
                     m->case_path, k, M[0], M[1], M[2], i, mn, p0[0], p0[1], p0[2]);
    }
  }
  return 0;
}

int crd_loads_create(const crd_problem *pb, crd_loads **out)
{
  const crd_model *m = pb->m;
  crd_loads *L;
  CRD_CALL(check_moments(pb));
  CRD_CALL(CRD_CALLOC(1, &L));
  if (CRD_CALLOC(pb->nn, &L->mass) || CRD_CALLOC(pb->nn, &L->node_elem) || CRD_CALLOC(pb->nn, &L->node_loc)) {
    crd_loads_destroy(&L);
    return CRD_TRACE(CRD_ERR_MEM);
  }
  for (int e = 0; e < pb->ne; ++e) {
    double X[12], w[4];
    for (int a = 0; a < 4; ++a)
      for (int c = 0; c < 3; ++c) X[3 * a + c] = m->x[3 * m->quads[4 * e + a] + c];
    element_areas(X, w);
    const crd_section *s = &m->sections[m->elem_section[e]];
    for (int a = 0; a < 4; ++a) {
      int i = m->quads[4 * e + a];
      L->mass[i] += s->rho * s->thickness * w[a];
      L->node_elem[i] = e;
      L->node_loc[i] = (int8_t)a;
    }
  }
  *out = L;
  return 0;
}

void crd_loads_destroy(crd_loads **pL)
{
  crd_loads *L = *pL;
  if (!L) return;
  free(L->mass); free(L->node_elem); free(L->node_loc);
  free(L);
  *pL = NULL;
}

const double *crd_loads_nodal_mass(const crd_loads *L) { return L->mass; }

double crd_loads_factor(const crd_problem *pb, int k, double t, int is_static)
{
  return crd_amplitude_eval(&pb->m->loads[k].amp, t, is_static ? t : 1.0);
}

static void add_trans(const crd_problem *pb, int node, const double *f, double *F)
{
  for (int c = 0; c < 3; ++c) {
    int e = pb->eq[5 * node + c];
    if (e >= 0) F[e] += f[c];
  }
}

/* K[eq_a][eq_b] += v through element e's scatter map (local DOFs a, b). */
static void add_K(crd_problem *pb, int e, int a, int b, double v)
{
  if (a > b) return; /* upper triangle once; callers pass symmetric blocks whole */
  int32_t pos = pb->scatter[210 * (size_t)e + crd_tri_index(a, b, 20)];
  if (pos >= 0) pb->K->val[pos] += v;
}

/* Nodal forces f (12) of pressure P on element e in its current
 * configuration, and when Kp is given df/dx (12x12) for the load stiffness. */
static void pressure_forces(const crd_problem *pb, int e, double P, double *f, double *Kp)
{
  const crd_model *m = pb->m;
  double X[12];
  for (int a = 0; a < 12; ++a) f[a] = 0.0;
  if (Kp) for (int a = 0; a < 144; ++a) Kp[a] = 0.0;
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) X[3 * a + c] = m->x[3 * m->quads[4 * e + a] + c] + pb->d[3 * m->quads[4 * e + a] + c];
  for (int ig = 0; ig < 4; ++ig) {
    double N[4], Nx[4], Ne[4], a[3], b[3], n[3];
    surface_gp(X, ig, N, Nx, Ne, a, b, n);
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 3; ++c) f[3 * i + c] += P * N[i] * n[c];
    if (!Kp) continue;
    /* df_i/dx_j = P N_i (-Nxi_j [b]x + Neta_j [a]x) */
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double ca = P * N[i] * Ne[j], cb = -P * N[i] * Nx[j];
        double S[9] = {0, -(ca * a[2] + cb * b[2]), ca * a[1] + cb * b[1],
                       ca * a[2] + cb * b[2], 0, -(ca * a[0] + cb * b[0]),
                       -(ca * a[1] + cb * b[1]), ca * a[0] + cb * b[0], 0};
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Kp[12 * (3 * i + r) + 3 * j + c] += S[3 * r + c];
      }
  }
}

static void pressure_element(crd_problem *pb, int e, double P, double *F, int want_K)
{
  double f[12], Kp[144];
  pressure_forces(pb, e, P, f, want_K ? Kp : NULL);
  for (int a = 0; a < 4; ++a) add_trans(pb, pb->m->quads[4 * e + a], f + 3 * a, F);
  if (!want_K) return;
  for (int i = 0; i < 4; ++i)
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 4; ++j)
        for (int c = 0; c < 3; ++c) {
          int A = 3 * i + r, B = 3 * j + c;
          add_K(pb, e, 5 * i + r, 5 * j + c, -0.5 * (Kp[12 * A + B] + Kp[12 * B + A]));
        }
}

int crd_loads_assemble(const crd_loads *L, crd_problem *pb, double t, int is_static, double *F, int want_K)
{
  const crd_model *m = pb->m;
  for (int i = 0; i < pb->neq; ++i) F[i] = 0.0;
  for (int k = 0; k < m->nloads; ++k) {
    const crd_load *ld = &m->loads[k];
    double fac = crd_loads_factor(pb, k, t, is_static);
    if (fac == 0.0) continue;
    const crd_set *set = ld->set >= 0 ? &m->sets[ld->set] : NULL;
    switch (ld->kind) {
    case CRD_LOAD_FORCE: {
      double f[3] = {fac * ld->vec[0], fac * ld->vec[1], fac * ld->vec[2]};
      for (int j = 0; j < set->nn; ++j) add_trans(pb, set->nodes[j], f, F);
    } break;
    case CRD_LOAD_MOMENT:
      for (int j = 0; j < set->nn; ++j) {
        int i = set->nodes[j];
        double M[3] = {fac * ld->vec[0], fac * ld->vec[1], fac * ld->vec[2]}, g[3];
        if (pb->tr && pb->tr->of[i] >= 0) { /* a triad node: W^T M on its chart variables */
          crd_triads_add_moment(pb, pb->tr->of[i], M, F, want_K);
          continue;
        }
        crd_cross3(M, pb->p + 3 * i, g);
        crd_problem_add_normal_force(pb, i, g, F);
        if (want_K) { /* symmetric part of dF/dn: g_l d2p_l/dn2 */
          double H[3];
          crd_dir_H(pb->p + 3 * i, pb->l[i], H);
          double gl = g[pb->l[i]];
          int e = L->node_elem[i], a = 5 * L->node_loc[i];
          add_K(pb, e, a + 3, a + 3, -gl * H[0]);
          add_K(pb, e, a + 3, a + 4, -gl * H[1]);
          add_K(pb, e, a + 4, a + 4, -gl * H[2]);
        }
      }
      break;
    case CRD_LOAD_PRESSURE:
      if (!set)
        for (int e = 0; e < pb->ne; ++e) pressure_element(pb, e, fac * ld->pressure, F, want_K);
      else
        for (int j = 0; j < set->ne; ++j) pressure_element(pb, set->elems[j], fac * ld->pressure, F, want_K);
      break;
    case CRD_LOAD_GRAVITY:
      for (int i = 0; i < pb->nn; ++i) {
        double f[3] = {fac * L->mass[i] * ld->vec[0], fac * L->mass[i] * ld->vec[1], fac * L->mass[i] * ld->vec[2]};
        add_trans(pb, i, f, F);
      }
      break;
    case CRD_LOAD_BODY:
      break; /* rigid bodies: not part of the shell problem */
    }
  }
  for (int i = 0; i < pb->neq; ++i)
    if (!isfinite(F[i])) return CRD_ERR(CRD_ERR_NUMERIC, "external load not finite at equation %d", i);
  return 0;
}

int crd_loads_steady(const crd_problem *pb, double t0, double tm, double t1)
{
  for (int k = 0; k < pb->m->nloads; ++k) {
    enum crd_load_kind kd = pb->m->loads[k].kind;
    double f0 = crd_loads_factor(pb, k, t0, 0), fm = crd_loads_factor(pb, k, tm, 0),
           f1 = crd_loads_factor(pb, k, t1, 0);
    /* equal to the round-off of a table's interpolation (a pulse that
     * ends at t_n leaves 1e-14 there) */
    double tol = 1e-12 * fmax(1.0, fabs(f0));
    int same = fabs(fm - f0) <= tol && fabs(f1 - f0) <= tol;
    if (same && fabs(f0) <= tol) continue; /* off over the step, whatever its kind */
    if (kd != CRD_LOAD_FORCE && kd != CRD_LOAD_GRAVITY) return 0;
    if (!same) return 0;
  }
  return 1;
}

double crd_loads_work(const crd_loads *L, const crd_problem *pb, double t0, double t1, int is_static,
                      const double *d0, const double *p0s)
{
  const crd_model *m = pb->m;
  double W = 0.0;
  for (int k = 0; k < m->nloads; ++k) {
    const crd_load *ld = &m->loads[k];
    double fac = 0.5 * (crd_loads_factor(pb, k, t0, is_static) + crd_loads_factor(pb, k, t1, is_static));
    const crd_set *set = ld->set >= 0 ? &m->sets[ld->set] : NULL;
    if (ld->kind == CRD_LOAD_FORCE || ld->kind == CRD_LOAD_MOMENT) {
      for (int j = 0; j < set->nn; ++j) {
        int i = set->nodes[j];
        if (ld->kind == CRD_LOAD_FORCE) {
          for (int c = 0; c < 3; ++c) W += fac * ld->vec[c] * (pb->d[3 * i + c] - d0[3 * i + c]);
        } else if (pb->tr && pb->tr->of[i] >= 0) { /* the turn of the triad since the last record */
          double om[3];
          crd_triads_turn(pb->tr, pb->tr->of[i], om);
          for (int q = 0; q < 3; ++q) W += fac * ld->vec[q] * om[q];
        } else { /* rotation vector of the normal from p0 to p (about p0 x p) */
          double ax[3];
          crd_cross3(p0s + 3 * i, pb->p + 3 * i, ax);
          double s = crd_norm3(ax), c = crd_dot3(p0s + 3 * i, pb->p + 3 * i);
          double sc = s > 1e-300 ? atan2(s, c) / s : 1.0;
          for (int q = 0; q < 3; ++q) W += fac * ld->vec[q] * ax[q] * sc;
        }
      }
    } else if (ld->kind == CRD_LOAD_GRAVITY) {
      for (int i = 0; i < pb->nn; ++i)
        for (int c = 0; c < 3; ++c) W += fac * L->mass[i] * ld->vec[c] * (pb->d[3 * i + c] - d0[3 * i + c]);
    } else if (ld->kind == CRD_LOAD_PRESSURE) {
      /* f(current) . dx: first-order accurate per step */
      int ne = set ? set->ne : pb->ne;
      for (int j = 0; j < ne; ++j) {
        int e = set ? set->elems[j] : j;
        double f[12];
        pressure_forces(pb, e, fac * ld->pressure, f, NULL);
        for (int a = 0; a < 4; ++a) {
          int nd = m->quads[4 * e + a];
          for (int c = 0; c < 3; ++c) W += f[3 * a + c] * (pb->d[3 * nd + c] - d0[3 * nd + c]);
        }
      }
    }
  }
  (void)L;
  return W;
}

double crd_amplitude_eval(const crd_amplitude *a, double t, double dflt)
{
  if (!a || a->n <= 0) return dflt;
  int lo = 0, hi = a->n - 1;
  if (t <= a->t[0]) return a->a[0];
  if (t >= a->t[hi]) return a->a[hi];
  while (hi - lo > 1) {                                     /* t[lo] < t < t[hi] */
    int mid = (lo + hi) / 2;
    if (t < a->t[mid]) hi = mid;
    else lo = mid;
  }
  double s = (t - a->t[lo]) / (a->t[hi] - a->t[lo]);
  return a->a[lo] + s * (a->a[hi] - a->a[lo]);
}

static double amp_next(const crd_amplitude *a, double t, double margin)
{
  for (int i = 0; i < a->n; ++i)
    if (a->t[i] > t + margin) return a->t[i];
  return INFINITY;
}

double crd_loads_next_break(const crd_model *m, double t, double margin)
{
  double tb = INFINITY;
  for (int k = 0; k < m->nloads; ++k) tb = fmin(tb, amp_next(&m->loads[k].amp, t, margin));
  for (int k = 0; k < m->nsupports; ++k) tb = fmin(tb, amp_next(&m->supports[k].amp, t, margin));
  return tb;
}
