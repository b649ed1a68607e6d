/* crdyn: quaternions and unit dual quaternions (poses in SE(3)), shared by
 * host and device (crd_hd.h rules).  Xu and Halse (arXiv:1611.00616, 2016,
 * §2; docs/theory.md §7.2) name the operations; the standard algebra is
 * written out here.
 *
 * STORAGE: a quaternion is q[4] = (w, x, y, z); a dual quaternion is
 * p[8] = (real part q_a[4], dual part q_b[4]), p = q_a + eps q_b, eps^2 = 0.
 *
 * Products (Hamilton):  a o b = (a_w b_w - a_v.b_v,  a_w b_v + b_w a_v + a_v x b_v);
 *                       p1 (x) p2 = (a1 o a2,  a1 o b2 + b1 o a2).
 * Conjugate:            q^+ = (q_w, -q_v);  p^+ = (a^+, b^+) (the inverse of a unit p).
 * Rotation:             v' = q o v^ o q^+ = R(q) v  (v^ the pure quaternion (0, v)).
 * Pose (body to world): p = q + eps 1/2 t^ o q  for the rotation q and the
 *                       translation t: a point r of the body maps to R r + t.
 * Velocities:           p' = 1/2 p (x) chi, chi = w_B^ + eps v_B^ (body angular
 *                       velocity, velocity of the reference point in body axes):
 *                       2 p^+ (x) p' = 2 q^+ o q' + eps q^+ o t'^ o q, the terms
 *                       in q^+ o (t^ + t^+) o q' cancelling since t^+ = -t^.
 * 6-vectors in this module are ordered (rotation part, translation part). */
#ifndef CRDYN_DUALQUAT_H
#define CRDYN_DUALQUAT_H

#include "crdyn/crd_hd.h"

CRD_HD void crd_q_mul(const double *a, const double *b, double *c)
{
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + b[0] * a[1] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] + b[0] * a[2] + a[3] * b[1] - a[1] * b[3];
  double z = a[0] * b[3] + b[0] * a[3] + a[1] * b[2] - a[2] * b[1];
  c[0] = w, c[1] = x, c[2] = y, c[3] = z;
}

CRD_HD void crd_q_conj(const double *q, double *c) { c[0] = q[0], c[1] = -q[1], c[2] = -q[2], c[3] = -q[3]; }

/* R(q), row-major, for a unit q. */
CRD_HD void crd_q_to_mat(const double *q, double *R)
{
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* v' = R(q) v (q o v^ o q^+ written out: v + 2 w (q_v x v) + 2 q_v x (q_v x v)). */
CRD_HD void crd_q_rotate(const double *q, const double *v, double *out)
{
  double t[3], u[3];
  crd_cross3(q + 1, v, t);
  for (int k = 0; k < 3; ++k) t[k] *= 2.0;
  crd_cross3(q + 1, t, u);
  for (int k = 0; k < 3; ++k) out[k] = v[k] + q[0] * t[k] + u[k];
}

/* R(q)^T v */
CRD_HD void crd_q_rotate_inv(const double *q, const double *v, double *out)
{
  double c[4];
  crd_q_conj(q, c);
  crd_q_rotate(c, v, out);
}

CRD_HD void crd_q_normalize(double *q)
{
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] /= n;
}

/* sin(t)/t and (cos t - sin t / t)/t^2, with their series near 0. */
CRD_HD double crd_sinc(double t) { return fabs(t) < 1e-4 ? 1.0 - t * t / 6.0 : sin(t) / t; }
CRD_HD double crd_cosc2(double t) { return fabs(t) < 1e-3 ? -1.0 / 3.0 + t * t / 30.0 : (cos(t) - sin(t) / t) / (t * t); }

/* exp(a^) = (cos|a|, sinc|a| a) for a pure quaternion a^: the unit
 * quaternion of a rotation by 2|a| about a/|a|. */
CRD_HD void crd_q_exp(const double *a, double *q)
{
  double th = crd_norm3(a), s = crd_sinc(th);
  q[0] = cos(th), q[1] = s * a[0], q[2] = s * a[1], q[3] = s * a[2];
}

/* The inverse of crd_q_exp on unit quaternions with q_w >= 0 (|a| <= pi/2);
 * a q with q_w < 0 is taken as -q (the same rotation). */
CRD_HD void crd_q_log(const double *q, double *a)
{
  double sg = q[0] < 0 ? -1.0 : 1.0;
  double vn = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double th = atan2(vn, sg * q[0]), s = crd_sinc(th);
  for (int k = 0; k < 3; ++k) a[k] = sg * q[1 + k] / s;
}

/* ---- dual quaternions -------------------------------------------------------------- */

CRD_HD void crd_dq_mul(const double *p1, const double *p2, double *p)
{
  double a[4], b[4], c[4];
  crd_q_mul(p1, p2, a);
  crd_q_mul(p1, p2 + 4, b);
  crd_q_mul(p1 + 4, p2, c);
  for (int k = 0; k < 4; ++k) p[k] = a[k], p[4 + k] = b[k] + c[k];
}

CRD_HD void crd_dq_conj(const double *p, double *c)
{
  crd_q_conj(p, c);
  crd_q_conj(p + 4, c + 4);
}

/* p = q + eps 1/2 t^ o q */
CRD_HD void crd_dq_from_pose(const double *q, const double *t, double *p)
{
  double th[4] = {0.0, t[0], t[1], t[2]};
  for (int k = 0; k < 4; ++k) p[k] = q[k];
  crd_q_mul(th, q, p + 4);
  for (int k = 0; k < 4; ++k) p[4 + k] *= 0.5;
}

/* q = q_a, t = vec(2 q_b o q_a^+) */
CRD_HD void crd_dq_to_pose(const double *p, double *q, double *t)
{
  double c[4], r[4];
  for (int k = 0; k < 4; ++k) q[k] = p[k];
  crd_q_conj(p, c);
  crd_q_mul(p + 4, c, r);
  t[0] = 2 * r[1], t[1] = 2 * r[2], t[2] = 2 * r[3];
}

/* The point r of the body in world: R r + t. */
CRD_HD void crd_dq_transform_point(const double *p, const double *r, double *out)
{
  double q[4], t[3];
  crd_dq_to_pose(p, q, t);
  crd_q_rotate(q, r, out);
  for (int k = 0; k < 3; ++k) out[k] += t[k];
}

/* Back onto the unit dual quaternions: |q_a| = 1 and q_a . q_b = 0. */
CRD_HD void crd_dq_normalize(double *p)
{
  double n = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
  for (int k = 0; k < 8; ++k) p[k] /= n;
  double d = p[0] * p[4] + p[1] * p[5] + p[2] * p[6] + p[3] * p[7];
  for (int k = 0; k < 4; ++k) p[4 + k] -= d * p[k];
}

/* exp of the pure dual quaternion a^ + eps b^ (xi = (a, b)).  With
 * th = |a| the square is -(th^2 + eps 2 a.b), so xi = Th s with the dual
 * angle Th = th + eps a.b/th and a unit dual axis s, and
 * exp(xi) = cos Th + s sin Th; expanding the dual functions
 * (f(x + eps y) = f(x) + eps y f'(x)):
 *   real = (cos th, sinc(th) a)
 *   dual = (-(a.b) sinc(th), sinc(th) b + (a.b) cosc2(th) a). */
CRD_HD void crd_dq_exp(const double *xi, double *p)
{
  const double *a = xi, *b = xi + 3;
  double th = crd_norm3(a), s = crd_sinc(th), c2 = crd_cosc2(th), ab = crd_dot3(a, b);
  p[0] = cos(th);
  p[4] = -ab * s;
  for (int k = 0; k < 3; ++k) {
    p[1 + k] = s * a[k];
    p[5 + k] = s * b[k] + ab * c2 * a[k];
  }
}

/* The inverse of crd_dq_exp (real part with q_w >= 0 after a sign flip of p). */
CRD_HD void crd_dq_log(const double *pin, double *xi)
{
  double p[8], sg = pin[0] < 0 ? -1.0 : 1.0;
  for (int k = 0; k < 8; ++k) p[k] = sg * pin[k];
  double *a = xi, *b = xi + 3;
  crd_q_log(p, a);
  double th = crd_norm3(a), s = crd_sinc(th), c2 = crd_cosc2(th);
  double ab = -p[4] / s;
  for (int k = 0; k < 3; ++k) b[k] = (p[5 + k] - ab * c2 * a[k]) / s;
}

#endif
