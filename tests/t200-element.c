/* Element tests: finite-difference checks (energy -> f -> k locally, u_L -> T,
 * U -> f_G -> K_G globally) in random deformed states under rotations far past
 * 90 degrees, for every admissible independent pair; symmetry; rigid-motion
 * invariance; six zero-energy modes of a free element, flat and warped. */
#include <string.h>
#include "tap.h"
#include "elem_util.h"

/* am: the membrane (1 tied shear, the default; 0 displacement based): both run */
static crd_q4_mat MAT = {1.0e4, 0.3, 0.05, 0.0, 1.0};


/* current state: rigid rotation Q about a point + translation + small deformation */
static void random_state(const double *X0, const double *p0, const double *Q, double def,
                         double *d, double *p)
{
  const double c[3] = {0.3, 0.2, -0.1}, tr[3] = {0.7, -1.2, 2.0};
  for (int i = 0; i < 4; ++i) {
    double v[3], w[3];
    for (int k = 0; k < 3; ++k) v[k] = X0[3 * i + k] - c[k];
    eu_matvec(Q, v, w);
    for (int k = 0; k < 3; ++k) d[3 * i + k] = w[k] + c[k] + tr[k] - X0[3 * i + k] + def * eu_rand();
    double pp[3] = {p0[3 * i] + def * eu_rand(), p0[3 * i + 1] + def * eu_rand(), p0[3 * i + 2]};
    eu_normalize(pp);
    eu_matvec(Q, pp, p + 3 * i);
  }
}

/* u_G perturbation: translation component or a pair component (p recomputed). */
static void perturb(const double *d, const double *p, const int *l, int dof, double h, double *d2,
                    double *p2)
{
  memcpy(d2, d, 12 * sizeof(double));
  memcpy(p2, p, 12 * sizeof(double));
  int i = dof / 5, a = dof % 5;
  if (a < 3) { d2[3 * i + a] += h; return; }
  int n, m;
  crd_dir_pair(l[i], &n, &m);
  double pn = p[3 * i + n], pm = p[3 * i + m];
  if (a == 3) pn += h; else pm += h;
  crd_dir_from_pair(pn, pm, l[i], p[3 * i + l[i]], p2 + 3 * i);
}

static double maxabs(const double *a, int n)
{
  double m = 0; for (int i = 0; i < n; ++i) if (fabs(a[i]) > m) m = fabs(a[i]);
  return m;
}

static void check_local(const double *xl0, const char *what)
{
  double q[20], f[20], k[400], md;
  for (int a = 0; a < 20; ++a) q[a] = 0.05 * eu_rand();
  crd_q4_local(xl0, q, &MAT, f, k, &md);
  double errf = 0, errk = 0, h = 1e-6;
  for (int a = 0; a < 20; ++a) {
    double qp[20], qm[20], fp[20], fm[20];
    memcpy(qp, q, sizeof q); memcpy(qm, q, sizeof q);
    qp[a] += h; qm[a] -= h;
    double Up = crd_q4_local(xl0, qp, &MAT, fp, NULL, &md);
    double Um = crd_q4_local(xl0, qm, &MAT, fm, NULL, &md);
    errf = fmax(errf, fabs((Up - Um) / (2 * h) - f[a]));
    for (int b = 0; b < 20; ++b) errk = fmax(errk, fabs((fp[b] - fm[b]) / (2 * h) - k[20 * b + a]));
  }
  T_OK(errf <= 1e-6 * maxabs(f, 20), "%s: local f_int = dU/dq (FD err %.2e of %.2e)", what, errf, maxabs(f, 20));
  T_OK(errk <= 1e-6 * maxabs(k, 400), "%s: local k_T = df/dq (FD err %.2e of %.2e)", what, errk, maxabs(k, 400));
}

static void check_global(const double *X0, const double *p0, const double *d, const double *p,
                         const int *l, const char *what)
{
  double fG[20], KG[400], T[400], md;
  crd_q4_global(X0, p0, d, p, l, &MAT, fG, KG, &md);
  crd_cr_frame F;
  double xl0[12], q[20], r0xy[8];
  crd_q4_local_vars(X0, d, p0, p, &F, xl0, q, r0xy);
  crd_q4_transform(&F, X0, d, p, l, T);
  double h = 1e-6, errT = 0, errf = 0, errK = 0, asym = 0;
  for (int b = 0; b < 20; ++b) {
    double dp[12], pp[12], dm[12], pm[12], qp[20], qm[20], fp[20], fm[20];
    perturb(d, p, l, b, h, dp, pp);
    perturb(d, p, l, b, -h, dm, pm);
    crd_cr_frame Fp;
    crd_q4_local_vars(X0, dp, p0, pp, &Fp, xl0, qp, r0xy);
    crd_q4_local_vars(X0, dm, p0, pm, &Fp, xl0, qm, r0xy);
    for (int a = 0; a < 20; ++a) errT = fmax(errT, fabs((qp[a] - qm[a]) / (2 * h) - T[20 * a + b]));
    double Up = crd_q4_global(X0, p0, dp, pp, l, &MAT, fp, NULL, &md);
    double Um = crd_q4_global(X0, p0, dm, pm, l, &MAT, fm, NULL, &md);
    errf = fmax(errf, fabs((Up - Um) / (2 * h) - fG[b]));
    for (int a = 0; a < 20; ++a) errK = fmax(errK, fabs((fp[a] - fm[a]) / (2 * h) - KG[20 * a + b]));
  }
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < 20; ++b) asym = fmax(asym, fabs(KG[20 * a + b] - KG[20 * b + a]));
  T_OK(errT <= 1e-7 * fmax(1.0, maxabs(T, 400)), "%s: T = du_L/du_G (FD err %.2e)", what, errT);
  T_OK(errf <= 1e-6 * maxabs(fG, 20), "%s: f_G = dU/du_G (FD err %.2e of %.2e)", what, errf, maxabs(fG, 20));
  T_OK(errK <= 2e-6 * maxabs(KG, 400), "%s: K_G = df_G/du_G (FD err %.2e of %.2e)", what, errK, maxabs(KG, 400));
  T_OK(asym == 0.0, "%s: K_G exactly symmetric (max diff %.2e)", what, asym);
}

int main(void)
{
  srand(12345);
  double X0[12], p0[12], d[12], p[12], Q[9];
  const double axes[3][3] = {{1, 2, 3}, {-0.3, 1, 0.2}, {0.5, -0.5, 1}};
  const double angles[3] = {2.0, 2.9, -1.7}; /* far past 90 degrees */
  const double warps[3] = {0.0, 0.08, 0.15};
  for (int run = 0; run < 6; ++run) {
    int c = run % 3;
    MAT.am = run < 3 ? 1.0 : 0.0;
    eu_random_quad(X0, p0, warps[c]);
    char what[128];
    crd_cr_frame F0;
    double xl0[12], q[20], z[12] = {0}, r0xy[8];
    crd_q4_local_vars(X0, z, p0, p0, &F0, xl0, q, r0xy);
    snprintf(what, sizeof what, "case %d (warp %.2f, am %g)", c, warps[c], MAT.am);
    check_local(xl0, what);
    eu_rot(axes[c], angles[c], Q);
    random_state(X0, p0, Q, 0.05, d, p);
    for (int lpick = 0; lpick < 3; ++lpick) {
      int l[4];
      int ok = 1;
      for (int i = 0; i < 4; ++i) {
        /* each admissible pair: the dependent component must not be small */
        int li = (crd_dir_choose(p + 3 * i) + lpick) % 3;
        if (fabs(p[3 * i + li]) < 0.2) li = crd_dir_choose(p + 3 * i);
        l[i] = li;
      }
      if (!ok) continue;
      snprintf(what, sizeof what, "case %d (warp %.2f, am %g, rot %.1f rad, pair shift %d)", c, warps[c], MAT.am,
               angles[c], lpick);
      check_global(X0, p0, d, p, l, what);
    }
    /* rigid motion of any size: zero energy and zero f_G */
    random_state(X0, p0, Q, 0.0, d, p);
    int l[4];
    for (int i = 0; i < 4; ++i) l[i] = crd_dir_choose(p + 3 * i);
    double fG[20], md;
    double U = crd_q4_global(X0, p0, d, p, l, &MAT, fG, NULL, &md);
    double scale = MAT.E * MAT.h; /* E h x area ~ 1 */
    T_OK(fabs(U) <= 1e-12 * scale && maxabs(fG, 20) <= 1e-10 * scale,
         "case %d, am %g: rigid motion (rot %.1f rad): U = %.2e, |f_G| = %.2e", c, MAT.am, angles[c], U,
         maxabs(fG, 20));
    /* free element at the initial state: exactly six zero eigenvalues */
    double KG[400], w[20];
    for (int i = 0; i < 4; ++i) l[i] = crd_dir_choose(p0 + 3 * i);
    crd_q4_global(X0, p0, z, p0, l, &MAT, fG, KG, &md);
    eu_eig_sym(20, KG, w);
    int nzero = 0;
    for (int a = 0; a < 20; ++a) nzero += fabs(w[a]) < 1e-8 * w[19];
    T_OK(nzero == 6 && w[6] > 1e-8 * w[19], "case %d, am %g: free element has 6 zero modes (got %d; 7th/max = %.2e)",
         c, MAT.am, nzero, w[6] / w[19]);
  }
  return T_DONE();
}
