/* crdyn: element results of the 4-node shell: stress resultants and strain
 * energy density, from the element's own strains (shell_q4.h) and
 * constitutive law.  Pure functions on fixed-size arrays, shared by all
 * backends (crd_hd.h rules).
 *
 * FRAME.  Components are in the element's co-rotated frame of the current
 * state (cr_frame.h): e_x = (a - b)/|a - b|, e_y = (a + b)/|a + b| with a, b
 * the unit diagonals 1->3 and 2->4, e_z = e_x x e_y (the shell's positive
 * side: nodes counter-clockwise about it).  On a rectangle e_x is parallel
 * to the edge 1->2; on a distorted quad it bisects the diagonals.
 * crd_q4_results_global returns e_x, e_y in global axes so that a user can
 * rotate the components (T_global = R^T T_local R).
 *
 * DEFINITIONS (per unit length of the element's initial mid-surface, z the
 * distance along e_z, sigma the in-plane and transverse stresses):
 *   N_ab = int sigma_ab dz          membrane forces      (force / length)
 *   M_ab = int sigma_ab z dz        bending and twisting moments (force)
 *   Q_a  = int sigma_az dz          transverse shear forces (force / length)
 * so M_xx > 0 puts the +z face in tension, and the moment vector a section
 * of outward normal +x transmits is (-M_xy, M_xx, 0) per unit width (about
 * e_x, e_y).  With the element strains e (membrane), chi (bending, Voigt,
 * engineering twist) and g (shear, MITC4):
 *   (N_xx, N_yy, N_xy) = A e,  (M_xx, M_yy, M_xy) = D chi,  (Q_x, Q_y) = S g,
 *   u = (N.e + M.chi + Q.g) / 2  (strain energy per unit area),
 * A = h D1, D = h^3/12 D1, S = 5/6 G h (shell_q4.h), and N = du/de, M =
 * du/dchi, Q = du/dg exactly.
 *
 * WHERE.  Values are the means over the 2x2 Gauss points weighted by det J
 * (the points the element integrates its energy at), not values at the
 * centre: then sum_e u_e area_e is the element's strain energy exactly, and
 * the mean resultant is the derivative of the element's energy density with
 * respect to a strain increment that is uniform over the element.  area is
 * the initial projected area sum det J (= |v13 x v24| / 2); u is per unit
 * initial area (divide by h for energy per unit volume).  The MITC4 shear
 * is the assumed field at the Gauss points (its mean over the element is the
 * mean of the four tying-point values on a parallelogram). */
#ifndef CRDYN_SHELL_RESULTS_H
#define CRDYN_SHELL_RESULTS_H

#include "crdyn/cr_frame.h"
#include "crdyn/shell_q4.h"

typedef struct crd_q4_results {
  double N[3];      /* N_xx, N_yy, N_xy */
  double M[3];      /* M_xx, M_yy, M_xy */
  double Q[2];      /* Q_x, Q_y */
  double u;         /* strain energy per unit initial area */
  double area;      /* initial projected area (sum of det J over the Gauss points) */
  double ex[3], ey[3]; /* current frame axes in global coordinates (crd_q4_results_global only) */
} crd_q4_results;

/* Resultants at a point from the strains e (3), chi (3), g (2); returns the
 * strain energy per unit area there. */
CRD_HD double crd_q4_resultants(const crd_q4_mat *mt, const double *e, const double *chi,
                                const double *g, double *N, double *M, double *Q)
{
  double A[9], D[9], s;
  crd_q4_constitutive(mt, A, D, &s);
  for (int r = 0; r < 3; ++r) {
    N[r] = A[3 * r] * e[0] + A[3 * r + 1] * e[1] + A[3 * r + 2] * e[2];
    M[r] = D[3 * r] * chi[0] + D[3 * r + 1] * chi[1] + D[3 * r + 2] * chi[2];
  }
  Q[0] = s * g[0];
  Q[1] = s * g[1];
  return 0.5 * (N[0] * e[0] + N[1] * e[1] + N[2] * e[2] + M[0] * chi[0] + M[1] * chi[1] + M[2] * chi[2] +
                Q[0] * g[0] + Q[1] * g[1]);
}

/* Resultants at Gauss point ig (0..3, ordered as in crd_q4_local_avg) of the
 * element (xl0, q as in shell_q4.h); returns det J there. */
CRD_HD double crd_q4_results_gp(const double *xl0, const double *q, const crd_q4_mat *mt, int ig,
                                double *N, double *M, double *Q, double *u)
{
  const double gp = 0.57735026918962576451;
  double xi = (ig == 0 || ig == 3) ? -gp : gp, eta = (ig < 2) ? -gp : gp;
  double Bm[60], Bb[60], Bs[40], e[3], chi[3], g[2], dNx[4], dNy[4];
  double det = crd_q4_gp_strains(xl0, q, mt->am, xi, eta, Bm, Bb, Bs, e, chi, g, dNx, dNy);
  *u = crd_q4_resultants(mt, e, chi, g, N, M, Q);
  return det;
}

/* Gauss-point means in the element frame (see header); ex, ey are left
 * untouched.  Returns the element's strain energy (u * area). */
CRD_HD double crd_q4_results_local(const double *xl0, const double *q, const crd_q4_mat *mt,
                                   crd_q4_results *res)
{
  double sN[3] = {0.0, 0.0, 0.0}, sM[3] = {0.0, 0.0, 0.0}, sQ[2] = {0.0, 0.0}, sU = 0.0, sA = 0.0;
  for (int ig = 0; ig < 4; ++ig) {
    double N[3], M[3], Q[2], u;
    double det = crd_q4_results_gp(xl0, q, mt, ig, N, M, Q, &u);
    for (int r = 0; r < 3; ++r) {
      sN[r] += det * N[r];
      sM[r] += det * M[r];
    }
    sQ[0] += det * Q[0];
    sQ[1] += det * Q[1];
    sU += det * u;
    sA += det;
  }
  double w = sA != 0.0 ? 1.0 / sA : 0.0;
  for (int r = 0; r < 3; ++r) {
    res->N[r] = w * sN[r];
    res->M[r] = w * sM[r];
  }
  res->Q[0] = w * sQ[0];
  res->Q[1] = w * sQ[1];
  res->u = w * sU;
  res->area = sA;
  return sU;
}

/* The same from the element's global state (X0, p0, d, p: 12 each,
 * node-major, as crd_q4_global), with the current frame axes.  Returns the
 * strain energy, equal to crd_q4_global's. */
CRD_HD double crd_q4_results_global(const double *X0, const double *p0, const double *d, const double *p,
                                    const crd_q4_mat *mt, crd_q4_results *res)
{
  crd_cr_frame F;
  double xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12];
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
  crd_q4_rot_map(ul, r0xy, q, J, abc);
  double U = crd_q4_results_local(xl0, q, mt, res);
  for (int c = 0; c < 3; ++c) {
    res->ex[c] = F.e[0][c];
    res->ey[c] = F.e[1][c];
  }
  return U;
}

#endif
