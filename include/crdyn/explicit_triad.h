/* crdyn: the explicit central-difference step at an intersection node
 * (triads.h, fold_node.h; docs/dynamics.md, "Intersection nodes in the
 * explicit step").  Per-node mathematics only; the host glue is
 * src/host/analysis/explicit_triads.c.
 *
 * INERTIA.  An element corner at the node sees the normal r = R c
 * (c = R_0^T p0, fixed) and carries the lumped director inertia
 * P = h^2/12 sum_j C_aj of its element (shell_mass.h; times the rotational
 * mass scaling).  The triad turns with angular velocity om, so r' = om x r
 * and the corner's kinetic energy is
 *   1/2 P |om x r|^2 = 1/2 om . P (I - r r^T) om.
 * Summed over the node's corners:
 *   T_rot = 1/2 om . J om,   J = sum_corners P (I - r r^T) = R J_b R^T,
 *   J_b = sum_corners P (I - c c^T)           (constant, the triad's axes).
 * For a small rotation about an in-plane axis t of one patch (t . r = 0)
 * the energy is 1/2 P |om|^2 per corner of that patch, the director
 * energy a smooth node of the same patch has; the turn about a patch's own
 * normal moves nothing of that patch.  J_b is regular once two patches of
 * different normals meet (sum of rank-2 projectors on different planes),
 * which is what makes a node an intersection node.  Each corner's share
 * P (I - r r^T) is exactly the inertia of a smooth director of inertia P
 * with normal r, which the stable step estimate uses (explicit.c).
 *
 * MOMENT.  The chart's generalized force F_theta (the residual at the
 * node's three chart equations) has the power F_theta . theta' =
 * F_theta . M om, so the moment is m = M^T F_theta = sum_c F_c m_c
 * (fold_node.h: theta' = M om; a dead moment M_ext enters F_theta as
 * W^T M_ext and comes back as M_ext).
 *
 * STEP (spatial angular momentum pi = J om, Euler's equation
 * pi' = m, the gyroscopic term inside J's rotation): a kick-drift-kick
 * splitting like the translations' velocity form,
 *   pi_{n+1/2} = pi_n + dt/2 m_n,
 *   R_{n+1} = exp(dt om_h) R_n,  om_h = J(R_{n+1/2})^-1 pi_{n+1/2},
 *             R_{n+1/2} = exp(dt/2 om_h) R_n     (implicit midpoint of the
 *             free rotation, solved by fixed-point iteration),
 *   pi_{n+1} = pi_{n+1/2} + dt/2 m_{n+1},  om_{n+1} = J(R_{n+1})^-1 pi_{n+1}.
 * The drift leaves pi unchanged and each kick adds dt/2 of the moment, so
 * with the translations' x_n x v_n and the normals' (docs/dynamics.md) the
 * node's share of the angular momentum changes only by the moments, which
 * the internal forces balance; the scheme is symmetric in time (the drift
 * is the midpoint rule), second order, and its energy error oscillates. */
#ifndef CRDYN_EXPLICIT_TRIAD_H
#define CRDYN_EXPLICIT_TRIAD_H

#include "crdyn/crd_hd.h"
#include "crdyn/fold_node.h"

/* J_b += P (I - c c^T). */
CRD_HD void crd_ext_corner_inertia(double P, const double *c, double *Jb)
{
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) Jb[3 * a + b] += P * ((a == b ? 1.0 : 0.0) - c[a] * c[b]);
}

/* J = s R J_b R^T with R = [e_x e_y e_z] (column a is row a of E). */
CRD_HD void crd_ext_spatial(const double *E, const double *Jb, double s, double *J)
{
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double v = 0.0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) v += E[3 * a + i] * Jb[3 * a + b] * E[3 * b + j];
      J[3 * i + j] = s * v;
    }
}

/* x = A^-1 b (3x3, Cramer); returns det A. */
CRD_HD double crd_ext_solve3(const double *A, const double *b, double *x)
{
  double c0[3], c1[3], c2[3], t[3];
  for (int r = 0; r < 3; ++r) c0[r] = A[3 * r], c1[r] = A[3 * r + 1], c2[r] = A[3 * r + 2];
  crd_cross3(c1, c2, t);
  double det = crd_dot3(c0, t);
  double u[3], v[3];
  crd_cross3(b, c2, u);  /* det[b c1 c2] etc. by the scalar triple products */
  crd_cross3(c1, b, v);
  x[0] = crd_dot3(b, t) / det;
  x[1] = crd_dot3(c0, u) / det;
  x[2] = crd_dot3(c0, v) / det;
  return det;
}

/* m = M^T F = sum_c F_c m_c, the moment of the chart force F (3). */
CRD_HD void crd_ext_moment(const double *E, crd_triad_chart ch, const double *F, double *m)
{
  double M[9];
  crd_triad_rows(E, ch, M);
  for (int c = 0; c < 3; ++c) m[c] = F[0] * M[c] + F[1] * M[3 + c] + F[2] * M[6 + c];
}

/* Rotate each axis of E by the rotation vector phi (Rodrigues). */
CRD_HD void crd_ext_rotate(const double *phi, double *E)
{
  double a = crd_norm3(phi), s = a > 0 ? sin(a) / a : 1.0, c2 = a > 1e-4 ? (1.0 - cos(a)) / (a * a)
                                                                          : 0.5 - a * a / 24.0;
  for (int r = 0; r < 3; ++r) {
    double *v = E + 3 * r, t[3], u[3];
    crd_cross3(phi, v, t);
    crd_cross3(phi, t, u);
    for (int c = 0; c < 3; ++c) v[c] += s * t[c] + c2 * u[c];
  }
}

/* om = J(E)^-1 pi with J = s R J_b R^T. */
CRD_HD void crd_ext_omega(const double *E, const double *Jb, double s, const double *pi, double *om)
{
  double J[9];
  crd_ext_spatial(E, Jb, s, J);
  crd_ext_solve3(J, pi, om);
}

/* om and om' = J^-1 (m - om x pi) from pi = J om and pi' = m: with
 * J = R J_b R^T and R' = [om x] R, J' = [om x] J - J [om x], so
 * pi' = J om' + om x (J om) - J (om x om) = J om' + om x pi (Euler). */
CRD_HD void crd_ext_omega_dot(const double *E, const double *Jb, double s, const double *pi, const double *m,
                              double *om, double *omd)
{
  double J[9], g[3], r[3];
  crd_ext_spatial(E, Jb, s, J);
  crd_ext_solve3(J, pi, om);
  crd_cross3(om, pi, g);
  for (int c = 0; c < 3; ++c) r[c] = m[c] - g[c];
  crd_ext_solve3(J, r, omd);
}

/* The drift: E <- exp(dt om_h) E with om_h = J(E_mid)^-1 pi, E_mid =
 * exp(dt/2 om_h) E (fixed-point iteration from om_h = J(E)^-1 pi, to
 * round-off: the map contracts by about dt |om|).  Returns the
 * iterations used (at most 50). */
CRD_HD int crd_ext_drift(const double *Jb, double s, const double *pi, double dt, double *E)
{
  double om[3], Em[9], phi[3];
  crd_ext_omega(E, Jb, s, pi, om);
  int it = 0;
  for (; it < 50; ++it) {
    for (int a = 0; a < 9; ++a) Em[a] = E[a];
    for (int c = 0; c < 3; ++c) phi[c] = 0.5 * dt * om[c];
    crd_ext_rotate(phi, Em);
    double on[3];
    crd_ext_omega(Em, Jb, s, pi, on);
    double d = 0.0, n = 0.0;
    for (int c = 0; c < 3; ++c) d += (on[c] - om[c]) * (on[c] - om[c]), n += on[c] * on[c], om[c] = on[c];
    if (d <= 1e-30 * n) break;
  }
  for (int c = 0; c < 3; ++c) phi[c] = dt * om[c];
  crd_ext_rotate(phi, E);
  return it + 1;
}

#endif
