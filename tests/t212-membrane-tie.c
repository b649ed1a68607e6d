/* The tied membrane shear (shell_q4.h, crd_q4_mem_prepare) at the level of
 * one element:
 *   1. a linear displacement field (u, v; and w on the flat quad, where it
 *      adds the constant w,x^2/2 terms) gives its constant strain at every
 *      Gauss point of a distorted quad, flat or warped: the tie's
 *      correction vanishes.  (On a warped quad a linear w is not a
 *      constant strain: z0,x varies, and the tie acts on it.)  The same
 *      with the tie formed from the wrong Jacobian (a Gauss point's instead
 *      of the centre's) must not hold: the broken tie is caught;
 *   2. in-plane pure bending of a rectangle (u = k x y, v = -k x^2/2 at the
 *      nodes) stores the energy of the bending strain alone (e = (k y, 0,
 *      0)) with the tie, and more with the displacement-based membrane (its
 *      parasitic shear k x);
 *   3. the same for the rectangle turned in its plane by 0.7 rad: the tie is
 *      formed in the element's own basis, so the energy does not depend on
 *      the orientation of the element frame. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"

static const double QUAD[12] = {0, 0, 0, 1.3, 0.1, 0, 1.0, 0.9, 0, 0.2, 1.2, 0};

/* max |e(gp) - e_exact| over the four Gauss points for the linear field
 * u = G x (G 2x2), w = c . x, on xl0 with the given tie */
static double linear_field_error(const double *xl0, const crd_q4_mem *tie, const double *G, const double *c)
{
  crd_q4_mem m = *tie, *mm = &m;
  double Bc[4][20], q[20] = {0}, err = 0;
  crd_q4_mitc_rows(xl0, Bc);
  for (int i = 0; i < 4; ++i) {
    const double x = xl0[3 * i], y = xl0[3 * i + 1];
    q[5 * i] = G[0] * x + G[1] * y;
    q[5 * i + 1] = G[2] * x + G[3] * y;
    q[5 * i + 2] = 1e-9 * (c[0] * x + c[1] * y); /* tiny: the quadratic w terms below round-off */
  }
  crd_q4_mem_state(mm, q);
  const double gp = 0.57735026918962576451, xs[4] = {-gp, gp, gp, -gp}, ys[4] = {-gp, -gp, gp, gp};
  for (int ig = 0; ig < 4; ++ig) {
    double Bm[60], Bb[60], Bs[40], e[3], chi[3], g[2], dNx[4], dNy[4];
    crd_q4_gp_strains_bc(xl0, q, xs[ig], ys[ig], (const double(*)[20])Bc, mm, Bm, Bb, Bs, e, chi, g, dNx, dNy, 0);
    /* exact: the u, v gradient plus z0 coupling, z0 bilinear: z0,x w,x at the point */
    double z0x = 0, z0y = 0;
    for (int i = 0; i < 4; ++i) {
      z0x += dNx[i] * xl0[3 * i + 2];
      z0y += dNy[i] * xl0[3 * i + 2];
    }
    const double wx = 1e-9 * c[0], wy = 1e-9 * c[1];
    double ex[3] = {G[0] + z0x * wx + 0.5 * wx * wx, G[3] + z0y * wy + 0.5 * wy * wy,
                    G[1] + G[2] + z0x * wy + z0y * wx + wx * wy};
    for (int r = 0; r < 3; ++r) err = fmax(err, fabs(e[r] - ex[r]));
  }
  return err;
}

/* the tie of crd_q4_mem_prepare formed from the Jacobian at (xi, eta)
 * instead of the centre's: a deliberately broken tie */
static void broken_tie(const double *xl0, double xi, double eta, crd_q4_mem *mm)
{
  double N[4], Nxi[4], Neta[4], J[4];
  crd_q4_mem_prepare(xl0, 1.0, mm);
  crd_q4_shape(xi, eta, N, Nxi, Neta);
  double det = crd_q4_jac(xl0, Nxi, Neta, J);
  double Gi[4] = {J[3] / det, -J[1] / det, -J[2] / det, J[0] / det};
  mm->t[0] = J[0] * J[2];
  mm->t[1] = J[1] * J[3];
  mm->t[2] = 0.5 * (J[0] * J[3] + J[1] * J[2]);
  mm->v[0] = 2.0 * Gi[0] * Gi[1];
  mm->v[1] = 2.0 * Gi[2] * Gi[3];
  mm->v[2] = 2.0 * (Gi[0] * Gi[3] + Gi[2] * Gi[1]);
}

/* strain energy of the rectangle [0, a] x [-b/2, b/2] turned by ang in
 * its plane, nodes at u = k x y, v = -k x^2/2 (in the rectangle's axes) */
static double bending_energy(double ang, double am, const crd_q4_mat *base)
{
  const double a = 2.0, b = 0.5, k = 1e-4, c = cos(ang), s = sin(ang);
  const double X[4][2] = {{0, -b / 2}, {a, -b / 2}, {a, b / 2}, {0, b / 2}};
  double xl0[12] = {0}, q[20] = {0};
  for (int i = 0; i < 4; ++i) {
    const double x = X[i][0], y = X[i][1], u = k * x * y, v = -0.5 * k * x * x;
    xl0[3 * i] = c * x - s * y;
    xl0[3 * i + 1] = s * x + c * y;
    q[5 * i] = c * u - s * v;
    q[5 * i + 1] = s * u + c * v;
  }
  for (int i = 3; i >= 0; --i) /* node 0 at the origin (shell_q4.h) */
    for (int d = 0; d < 2; ++d) xl0[3 * i + d] -= xl0[d];
  crd_q4_mat mt = *base;
  mt.am = am;
  double md;
  return crd_q4_local(xl0, q, &mt, NULL, NULL, &md);
}

int main(void)
{
  const double G[4] = {1e-3, 4e-4, -2e-4, -7e-4}, c[2] = {0.3, -0.5};
  for (int warp = 0; warp < 2; ++warp) {
    double xl0[12];
    memcpy(xl0, QUAD, sizeof xl0);
    if (warp) { xl0[5] = 0.05; xl0[8] = -0.04; xl0[11] = 0.03; }
    crd_q4_mem mm, bad;
    crd_q4_mem_prepare(xl0, 1.0, &mm);
    const double c0[2] = {0.0, 0.0};
    double err = linear_field_error(xl0, &mm, G, warp ? c0 : c);
    T_OK(err <= 1e-15, "linear field, distorted quad (warp %d): tied strain exact at the Gauss points (err %.2e of 1e-3)",
         warp, err);
    broken_tie(xl0, 0.57735026918962576451, -0.57735026918962576451, &bad);
    double berr = linear_field_error(xl0, &bad, G, warp ? c0 : c);
    T_OK(berr > 1e-6, "the tie formed at a Gauss point instead of the centre is caught (err %.2e)", berr);
  }
  const crd_q4_mat mt = {1.0e4, 0.3, 0.05, 0.0, 1.0};
  const double a = 2.0, b = 0.5, k = 1e-4;
  const double Aeff = mt.E * mt.h / (1.0 - mt.nu * mt.nu);
  const double Uex = 0.5 * Aeff * k * k * a * b * b * b / 12.0; /* int (1/2) A11 (k y)^2 over the rectangle */
  for (int turn = 0; turn < 2; ++turn) {
    const double ang = turn ? 0.7 : 0.0;
    double Ut = bending_energy(ang, 1.0, &mt), Ud = bending_energy(ang, 0.0, &mt);
    T_OK(fabs(Ut - Uex) <= 1e-12 * Uex, "in-plane bending, rectangle turned %.1f rad: tied shear stores %.15g "
         "(bending strain alone: %.15g)", ang, Ut, Uex);
    T_OK(Ud > 1.5 * Uex, "the displacement-based membrane stores %.4g x that (parasitic shear), so the check sees "
         "the tie", Ud / Uex);
  }
  return T_DONE();
}
