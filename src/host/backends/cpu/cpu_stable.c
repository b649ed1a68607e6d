/* crdyn: the element bound of the explicit stable step (backend.h,
 * ops->lambda_max) on the host: the CPU backend's op, and the one the
 * device backends hand out while they have no kernel for it.
 *
 * Per element, the largest eigenvalue of M_e^-1 K_e at the current state,
 * K_e the element tangent (crd_q4_global) and M_e the lumped mass: row sums
 * of the element mass coefficients C on the translations, and on the pair
 * of each corner the director inertia rot_scale h^2/12 of that row sum seen
 * through the pair's basis (A1^T A1).  The largest over the elements bounds
 * the mesh's (Irons); the explicit stage turns it into its step. */
#include <math.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/cr_frame.h"
#include "crdyn/director.h"
#include "crdyn/problem.h"
#include "crdyn/triads.h"

/* Largest eigenvalue of M^-1 K for one element (lumped M, 20 DOFs) by power
 * iteration with the M-Rayleigh quotient. */
static double element_lambda_max(const double *K, const double *Mt, const double *Mp)
{
  double x[20], y[20], lam = 0.0;
  for (int a = 0; a < 20; ++a) x[a] = 1.0 + 0.1 * a * ((a & 1) ? -1.0 : 1.0);
  for (int it = 0; it < 80; ++it) {
    for (int a = 0; a < 20; ++a) {
      double v = 0.0;
      for (int b = 0; b < 20; ++b) v += K[20 * a + b] * x[b];
      y[a] = v;
    }
    double xKx = 0.0, xMx = 0.0;
    for (int a = 0; a < 20; ++a) xKx += x[a] * y[a];
    for (int i = 0; i < 4; ++i) {
      for (int c = 0; c < 3; ++c) xMx += Mt[i] * x[5 * i + c] * x[5 * i + c];
      const double *B = Mp + 4 * i, *u = x + 5 * i + 3;
      xMx += u[0] * (B[0] * u[0] + B[1] * u[1]) + u[1] * (B[2] * u[0] + B[3] * u[1]);
    }
    lam = xKx / xMx;
    /* x <- M^-1 y, normalised */
    double nx = 0.0;
    for (int i = 0; i < 4; ++i) {
      for (int c = 0; c < 3; ++c) x[5 * i + c] = y[5 * i + c] / Mt[i];
      const double *B = Mp + 4 * i, *r = y + 5 * i + 3;
      double det = B[0] * B[3] - B[1] * B[2];
      x[5 * i + 3] = (B[3] * r[0] - B[1] * r[1]) / det;
      x[5 * i + 4] = (-B[2] * r[0] + B[0] * r[1]) / det;
    }
    for (int a = 0; a < 20; ++a) nx += x[a] * x[a];
    nx = sqrt(nx);
    if (!(nx > 0)) break;
    for (int a = 0; a < 20; ++a) x[a] /= nx;
  }
  return lam;
}

/* The normals element e sees (initial P0, current p) and the pairs l:
 * the nodes' own, or at a corner on an intersection node its patch's
 * normal rotated with the triad and the best pair of it. */
static void element_normals(const crd_problem *pb, int e, double *P0, double *p, int *l)
{
  const crd_model *m = pb->m;
  int fold = pb->tr && pb->tr->elem_of[e] >= 0;
  if (fold) crd_triads_elem_normals(pb, e, P0, p);
  for (int a = 0; a < 4; ++a) {
    int nd = m->quads[4 * e + a];
    if (!fold) {
      memcpy(P0 + 3 * a, pb->p0 + 3 * nd, 3 * sizeof(double));
      memcpy(p + 3 * a, pb->p + 3 * nd, 3 * sizeof(double));
    }
    l[a] = fold && pb->tr->of[nd] >= 0 ? crd_dir_choose(p + 3 * a) : pb->l[nd];
  }
}

/* The largest eigenvalue bound of element e at the current state.  A
 * corner on an intersection node is taken as a smooth director with its
 * patch's normal r and the element's share P of the triad's inertia: that
 * share, P (I - r r^T) on the angular velocity, is exactly a director's
 * P |r'|^2 (explicit_triad.h), and the shares sum to the triad's J, so
 * the assembled mesh is the elements constrained (each corner's r' =
 * om x r) with the same mass and stiffness: the Rayleigh quotient of any
 * mode of the mesh is at most the largest element one (Irons), as for
 * smooth nodes. */
static double element_lambda(const crd_problem *pb, const double *Cm, double rot_scale, int e)
{
  const crd_model *m = pb->m;
  double X0[12], P0[12], d[12], p[12], K[400], Mt[4], Mp[16], md;
  int l[4];
  const double *C = Cm + 16 * (size_t)e;
  const crd_section *s = &m->sections[m->elem_section[e]];
  element_normals(pb, e, P0, p, l);
  for (int a = 0; a < 4; ++a) {
    int nd = m->quads[4 * e + a];
    for (int c = 0; c < 3; ++c) {
      X0[3 * a + c] = m->x[3 * nd + c];
      d[3 * a + c] = pb->d[3 * nd + c];
    }
    Mt[a] = C[4 * a] + C[4 * a + 1] + C[4 * a + 2] + C[4 * a + 3];
    double A1[6], P = rot_scale * s->thickness * s->thickness / 12.0 * Mt[a];
    crd_dir_A1(p + 3 * a, l[a], A1);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        Mp[4 * a + 2 * i + j] = P * (A1[i] * A1[j] + A1[2 + i] * A1[2 + j] + A1[4 + i] * A1[4 + j]);
  }
  crd_q4_mat mt = crd_backend_section_mat(pb, e);
  crd_q4_global(X0, P0, d, p, l, &mt, NULL, K, &md);
  return element_lambda_max(K, Mt, Mp);
}

/* The elements in parallel; ties go to the lowest element, so the element
 * named does not depend on the threads. */
int crd_backend_cpu_lambda_max(crd_backend *be, struct crd_problem *pb, const double *C, double rot_scale,
                               double *lambda, int *elem)
{
  (void)be;
  double lmax = 0.0;
  int emax = -1;
#pragma omp parallel num_threads(crd_pass_threads(pb, pb->ne, CRD_PASS_MIN_ELEMS))
  {
    double lmax_t = 0.0;
    int emax_t = -1;
#pragma omp for schedule(static) nowait
    for (int e = 0; e < pb->ne; ++e) {
      double lam = element_lambda(pb, C, rot_scale, e);
      if (lam > lmax_t) lmax_t = lam, emax_t = e;
    }
#pragma omp critical(crd_stable_dt)
    if (lmax_t > lmax || (lmax_t == lmax && emax_t >= 0 && (emax < 0 || emax_t < emax))) lmax = lmax_t, emax = emax_t;
  }
  *lambda = lmax;
  *elem = emax;
  return 0;
}
