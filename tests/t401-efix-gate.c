/* The energy correction's defences (shell_dyn.h): where the correction is
 * off, nothing of it reaches the force, even when its m is not finite.  A
 * step with an infinite increment makes m and the measures non-finite: the
 * coefficient is gated to 0, and fG must stay as it was, bit for bit.  The
 * control applies the coefficient to m without the gate (what the code did
 * before) and must see the non-finite value, so the check sees the thing it
 * is named for.  A regular non-rigid step still gets its correction.  And
 * the rigid basis's 6x6 Cholesky reports its smallest pivot: a basis that
 * is not SPD (all four nodes at one point, one normal: no rotation about
 * it) switches the correction off. */
#include <math.h>
#include <string.h>
#include "tap.h"
#include "crdyn/shell_dyn.h"

int main(void)
{
  crd_cr_frame F;
  memset(&F, 0, sizeof F);
  F.e[0][0] = F.e[1][1] = F.e[2][2] = 1.0;
  double X0[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, da[12] = {0}, db[12], df[12], pa[12], pb[12], pf[12];
  double Bs[24], f[20], fG[20], fG0[20];
  for (int i = 0; i < 4; ++i) {
    for (int c = 0; c < 3; ++c) pa[3 * i + c] = pb[3 * i + c] = pf[3 * i + c] = c == 2 ? 1.0 : 0.0;
    for (int c = 0; c < 3; ++c) db[3 * i + c] = 1e-3 * (1 + i * i + c), df[3 * i + c] = 0.5 * db[3 * i + c];
    for (int k = 0; k < 6; ++k) Bs[6 * i + k] = k % 3 == 0 ? 1.0 : 0.0;
  }
  for (int a = 0; a < 20; ++a) f[a] = fG[a] = fG0[a] = 0.1 * (a + 1);
  crd_q4_mid_energy_fix(&F, X0, da, pa, db, pb, df, pf, Bs, f, 0.5, fG);
  T_OK(memcmp(fG, fG0, sizeof fG) != 0, "a regular non-rigid step gets its correction");

  memcpy(fG, fG0, sizeof fG);
  db[4] = INFINITY;
  crd_q4_mid_energy_fix(&F, X0, da, pa, db, pb, df, pf, Bs, f, 0.5, fG);
  T_OK(!memcmp(fG, fG0, sizeof fG), "an infinite increment: the correction is off and fG is unchanged, bit for bit");

  /* the control: that step's coefficient and m, multiplied without the gate */
  double xf[12], dz[24], g[24], m[24];
  for (int i = 0; i < 12; ++i) {
    xf[i] = X0[i] + df[i];
    dz[i] = db[i] - da[i], dz[12 + i] = pb[i] - pa[i];
    g[i] = fG0[5 * (i / 3) + i % 3], g[12 + i] = 0.0;
  }
  double cc = crd_dyn_energy_correction(xf, pf, dz, g, 0.5, m);
  int nonfinite = 0;
  for (int q = 0; q < 24; ++q) nonfinite |= !isfinite(cc * m[q]);
  T_OK(cc == 0.0 && nonfinite, "control: the coefficient is 0 and 0 * m is not finite there (cc %g)", cc);

  /* a degenerate element: four coincident nodes with one normal */
  double x1[12] = {0}, p1[12], GtG[36], Lf[36], r[12];
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 3; ++c) p1[3 * i + c] = c == 2 ? 1.0 : 0.0;
  crd_dyn_rigid_r(x1, r);
  crd_dyn_rigid_GtG(r, p1, GtG);
  double piv = crd_dyn_chol6(GtG, Lf);
  T_OK(!(piv > 0), "a rigid basis that is not SPD: the smallest pivot %g is not positive", piv);
  for (int q = 0; q < 24; ++q) dz[q] = 1e-3 * (q + 1), g[q] = 0.1;
  cc = crd_dyn_energy_correction(x1, p1, dz, g, 0.5, m);
  T_OK(cc == 0.0, "and the correction is off there (cc %g)", cc);
  return T_DONE();
}
