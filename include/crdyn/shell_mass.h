/* crdyn: inertia of the 4-node shell (docs/theory.md §5, eqs 20-50).
 *
 * A point of the shell is X = sum N_i (x_i + zeta h/2 p_i) (eq 20), so its
 * velocity is sum N_i (v_i + zeta h/2 w_i) with v_i = d_i' and w_i = p_i'
 * (eq 21).  Integrating rho |X'|^2 / 2 through the thickness (the zeta term
 * integrates to h^3/12) gives the kinetic energy (eq 22)
 *   K_e = 1/2 sum_ij ( C_ij v_i . v_j + P_ij w_i . w_j ),
 *   C_ij = rho h int N_i N_j Ja,   P_ij = rho h^3/12 int N_i N_j Ja = h^2/12 C_ij
 * (eq 40a; Ja the det J of the initial geometry in the element frame, eq 38).
 * In the physical variables (d, p) the mass is constant; with the pair
 * n_g of the normal as unknowns, w_i = A1_i n_g,i' (eq 30a) and
 * p_i'' = A1_i n_g,i'' + A2_i (eq 30b), so the director block of the element
 * mass is Q_ij = P_ij A1_i^T A1_j (eq 40b) and the inertia force (eq 37) is
 *   f_m,i = A1_i^T sum_j P_ij A2_j,    A2_j = d2p_j/dn2 : n_g,j' (x) n_g,j',
 * where only component l of A2 is non-zero (eq 29, director.h).
 *
 * Momenta (eqs 46-50) from the same interpolated velocity field:
 *   L_e = sum_ij C_ij v_j,   J_e = sum_ij (C_ij x_i x v_j + P_ij p_i x w_j)
 * (x_i current positions; the exact integral of X x rho X' for the
 * bilinear fields, which is what the consistent mass conserves; eq 47
 * writes the translational part with one shape function, a notation for
 * the same integral).
 *
 * DATA LAYOUT: C[4*i+j] (4x4, symmetric), element generalized vectors as
 * in cr_frame.h (u_G[5*j + 0..2] = d_j, [5*j + 3..4] = pair of node j). */
#ifndef CRDYN_SHELL_MASS_H
#define CRDYN_SHELL_MASS_H

#include "crdyn/director.h"
#include "crdyn/shell_q4.h"

/* C_ij = rho h int N_i N_j Ja over the element (2x2 Gauss: exact for the
 * bilinear N_i N_j times the linear Ja of a quad). */
CRD_HD void crd_q4_mass_coef(const double *xl0, double rho, double h, double *C)
{
  const double gp = 0.57735026918962576451;
  for (int a = 0; a < 16; ++a) C[a] = 0.0;
  for (int ig = 0; ig < 4; ++ig) {
    double N[4], Nxi[4], Neta[4], J[4];
    crd_q4_shape((ig == 0 || ig == 3) ? -gp : gp, ig < 2 ? -gp : gp, N, Nxi, Neta);
    double det = crd_q4_jac(xl0, Nxi, Neta, J);
    for (int i = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j) C[4 * i + j] += rho * h * N[i] * N[j] * det;
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < i; ++j) C[4 * i + j] = C[4 * j + i];
}

/* A2 of node i: the physical director acceleration not carried by the pair
 * acceleration, A2 = sum_ab d2p/dn_a dn_b nd_a nd_b (only component l). */
CRD_HD void crd_q4_A2(const double *p, int l, const double *nd, double *A2)
{
  double H[3];
  crd_dir_H(p, l, H);
  A2[0] = A2[1] = A2[2] = 0.0;
  A2[l] = H[0] * nd[0] * nd[0] + 2.0 * H[1] * nd[0] * nd[1] + H[2] * nd[1] * nd[1];
}

/* Element mass m (20x20 row-major, eq 41) at normals p (12) with dependent
 * components l, scaled by cm (added), and the inertia force f_m (20, eq 37)
 * at pair velocities nd (8: node-major pairs) added into fm when non-NULL.
 * rot_scale multiplies the director inertia P (explicit mass scaling; 1 is
 * the physical value). */
CRD_HD void crd_q4_mass(const double *C, double h, const double *p, const int *l, const double *nd,
                        double rot_scale, double cm, double *m, double *fm)
{
  double A1[4][6], A2[4][3], hh = rot_scale * h * h / 12.0;
  for (int i = 0; i < 4; ++i) {
    crd_dir_A1(p + 3 * i, l[i], A1[i]);
    if (fm) crd_q4_A2(p + 3 * i, l[i], nd + 2 * i, A2[i]);
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double c = C[4 * i + j], P = hh * c;
      if (m) {
        for (int a = 0; a < 3; ++a) m[20 * (5 * i + a) + 5 * j + a] += cm * c;
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) {
            double v = 0.0;
            for (int r = 0; r < 3; ++r) v += A1[i][2 * r + a] * A1[j][2 * r + b];
            m[20 * (5 * i + 3 + a) + 5 * j + 3 + b] += cm * P * v;
          }
      }
      if (fm)
        for (int a = 0; a < 2; ++a) {
          double v = 0.0;
          for (int r = 0; r < 3; ++r) v += A1[i][2 * r + a] * A2[j][r];
          fm[5 * i + 3 + a] += P * v;
        }
    }
}

/* Kinetic energy (returned), linear momentum L (3, added) and angular
 * momentum J about the origin (3, added) of an element from the current
 * positions x (12), normals p (12), velocities v (12) and physical
 * director rates w (12). */
CRD_HD double crd_q4_kinetic(const double *C, double h, const double *x, const double *p,
                             const double *v, const double *w, double *L, double *J)
{
  double K = 0.0, hh = h * h / 12.0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double c = C[4 * i + j], P = hh * c, xv[3], pw[3];
      K += 0.5 * (c * crd_dot3(v + 3 * i, v + 3 * j) + P * crd_dot3(w + 3 * i, w + 3 * j));
      crd_cross3(x + 3 * i, v + 3 * j, xv);
      crd_cross3(p + 3 * i, w + 3 * j, pw);
      for (int a = 0; a < 3; ++a) {
        L[a] += c * v[3 * j + a];
        J[a] += c * xv[a] + P * pw[a];
      }
    }
  return K;
}

#endif
