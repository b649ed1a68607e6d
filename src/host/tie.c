/* crdyn: rigid bodies of a shell model as director triads, and the shell
 * nodes tied to them (tie.h has the formulation, docs/rigid_bodies.md the
 * derivation and the measured conservation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/dualquat.h"
#include "crdyn/error.h"
#include "crdyn/rigid_body.h"
#include "crdyn/tie.h"

typedef struct tie_body {
  int ib, fixed, na, off;      /* model body, Q held, unknowns (6 or 3), offset among the unknowns */
  int nt;
  int32_t *node;               /* tied nodes */
  double *c, *e;               /* 3*nt: offset from Q and normal, body axes */
  double *Te, *Tf;             /* 30*nt: d(slots)/d(alpha) at the end, virtual motion at the midpoint */
  double *gp;                  /* 3*nt: the normal force g_perp of each tied node (midpoint plane) */
  double *Rt;                  /* 5*nt: the shell residual of each tied node's slots */
  double Mb[16];               /* director mass (4x4) */
  double q[12], v[12], a[12];  /* end state of the step (or the iterate): phi, d_1, d_2, d_3 */
  double q0[12], v0[12], a0[12];
  double qf[12], R[12];        /* midpoint triad, director residual M a_m - F_f */
  double mext[3];              /* applied moment at tf (world) */
  double r[6];                 /* reduced residual */
  double wext, dW, react[6];
  double *Ge, *Gf, *Z;         /* neq x 6 (column-major per unknown) */
  /* explicit stages: the body with its tied nodes' lumped masses, about Q,
   * body axes; momentum P = M6 chi and its rate, the loads' wrench (world
   * force at Q and moment) at the last evaluation */
  double M6[36], P[6], dP[6], chi[6], Fl[6];
  double th[3];                /* the explicit step's rotation vector (world) */
} tie_body;

struct crd_ties {
  const crd_model *m;
  int nb, nunk, neq;
  tie_body *b;
  int32_t *eq_body, *eq_row;   /* neq: body of a tied equation (-1: free), tied node index * 5 + slot */
  double *J, *S, *rhs, *dal;   /* nunk^2, nunk^2, nunk, nunk */
};

/* v + a th x v + b th x (th x v): the rotation by the vector th (Rodrigues,
 * a = sin t / t, b = (1 - cos t) / t^2, t = |th|). */
static void rot_apply(const double *th, const double *v, double *out)
{
  double t2 = crd_dot3(th, th), t = sqrt(t2), a, b, c1[3], c2[3];
  a = crd_sinc(t);
  b = t < 1e-4 ? 0.5 - t2 / 24.0 : (1.0 - cos(t)) / t2;
  crd_cross3(th, v, c1);
  crd_cross3(th, c1, c2);
  for (int k = 0; k < 3; ++k) out[k] = v[k] + a * c1[k] + b * c2[k];
}

/* y = (Mb (x) I3) x for 12-vectors */
static void mass12(const double *Mb, const double *x, double *y)
{
  for (int I = 0; I < 4; ++I)
    for (int k = 0; k < 3; ++k) {
      double s = 0.0;
      for (int J = 0; J < 4; ++J) s += Mb[4 * I + J] * x[3 * J + k];
      y[3 * I + k] = s;
    }
}

int crd_ties_nbodies(const crd_ties *t) { return t ? t->nb : 0; }
int crd_ties_is_tied_eq(const crd_ties *t, int k) { return t && k >= 0 && t->eq_body[k] >= 0; }

void crd_ties_destroy(crd_ties **pt)
{
  crd_ties *t = *pt;
  if (!t) return;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    free(B->node); free(B->c); free(B->e); free(B->Te); free(B->Tf); free(B->gp); free(B->Rt);
    free(B->Ge); free(B->Gf); free(B->Z);
  }
  free(t->b); free(t->eq_body); free(t->eq_row); free(t->J); free(t->S); free(t->rhs); free(t->dal);
  free(t);
  *pt = NULL;
}

static int body_setup(crd_ties *t, const crd_model *m, crd_problem *pb, int ib, tie_body *B)
{
  const crd_rigid_body *rb = &m->bodies[ib];
  unsigned all = CRD_FIX_UX | CRD_FIX_UY | CRD_FIX_UZ;
  CRD_CHECK(!rb->fix || rb->fix == all, CRD_ERR_UNSUPPORTED, "%s: $.rigid_bodies[%d].fix: body '%s': only the full "
            "spherical joint [\"ux\", \"uy\", \"uz\"] is supported", m->case_path, ib, rb->name);
  CRD_CHECK(!rb->has_added_mass, CRD_ERR_UNSUPPORTED, "%s: $.rigid_bodies[%d].added_mass: body '%s': added mass is "
            "not supported in a model with a shell mesh (only for rigid bodies alone)", m->case_path, ib, rb->name);
  B->ib = ib;
  B->fixed = rb->fix == all;
  B->na = B->fixed ? 3 : 6;
  double R[9], cg[3], d[3];
  crd_q_to_mat(rb->orientation, R);
  for (int k = 0; k < 3; ++k) d[k] = rb->center_of_mass[k] - rb->reference[k];
  crd_q_rotate_inv(rb->orientation, d, cg);
  /* director mass: Mb = [m, m c^T; m c, E], E = 1/2 tr(J) I - J (the second
   * moments int rho X X^T of the body about Q from its inertia tensor) */
  const double *Jq = rb->inertia;
  double tr = Jq[0] + Jq[4] + Jq[8];
  B->Mb[0] = rb->mass;
  for (int i = 0; i < 3; ++i) {
    B->Mb[1 + i] = B->Mb[4 * (1 + i)] = rb->mass * cg[i];
    for (int j = 0; j < 3; ++j) B->Mb[4 * (1 + i) + 1 + j] = (i == j ? 0.5 * tr : 0.0) - Jq[3 * i + j];
  }
  /* initial triad and rates: d_i = R e_i (columns), d_i' = w x d_i */
  for (int k = 0; k < 3; ++k) {
    B->q[k] = rb->reference[k];
    B->v[k] = B->fixed ? 0.0 : rb->velocity[k];
  }
  for (int i = 0; i < 3; ++i) {
    double *di = B->q + 3 + 3 * i, *vi = B->v + 3 + 3 * i, *ai = B->a + 3 + 3 * i;
    for (int k = 0; k < 3; ++k) di[k] = R[3 * k + i];
    crd_cross3(rb->angular_velocity, di, vi);
    crd_cross3(rb->angular_velocity, vi, ai); /* centripetal: the start of the implicit stage */
  }
  if (rb->tie < 0) return 0;
  const crd_set *s = &m->sets[rb->tie];
  B->nt = s->nn;
  CRD_CALL(CRD_CALLOC(s->nn, &B->node));
  CRD_CALL(CRD_CALLOC(3 * s->nn, &B->c));
  CRD_CALL(CRD_CALLOC(3 * s->nn, &B->e));
  CRD_CALL(CRD_CALLOC(30 * s->nn, &B->Te));
  CRD_CALL(CRD_CALLOC(30 * s->nn, &B->Tf));
  CRD_CALL(CRD_CALLOC(3 * s->nn, &B->gp));
  CRD_CALL(CRD_CALLOC(5 * s->nn, &B->Rt));
  for (int a = 0; a < s->nn; ++a) {
    int n = s->nodes[a];
    B->node[a] = n;
    CRD_CHECK(pb->fix[n] == 0, CRD_ERR_INPUT, "%s: $.rigid_bodies[%d].tie: node %d of set '%s' (body '%s') also has "
              "a support: hold the body instead (`fix`)", m->case_path, ib, n, s->name, rb->name);
    for (int k = 0; k < 5; ++k) {
      int q = pb->eq[5 * n + k];
      CRD_CHECK(q >= 0, CRD_ERR_INPUT, "%s: $.rigid_bodies[%d].tie: node %d has a fixed slot", m->case_path, ib, n);
      CRD_CHECK(t->eq_body[q] < 0, CRD_ERR_INPUT, "%s: $.rigid_bodies[%d].tie: node %d is tied to body '%s' and to "
                "body '%s'", m->case_path, ib, n, m->bodies[t->b[t->eq_body[q]].ib].name, rb->name);
    }
    for (int k = 0; k < 5; ++k) {
      int q = pb->eq[5 * n + k];
      t->eq_body[q] = (int32_t)(B - t->b);
      t->eq_row[q] = 5 * a + k;
    }
    for (int k = 0; k < 3; ++k) d[k] = m->x[3 * n + k] + pb->d[3 * n + k] - rb->reference[k];
    crd_q_rotate_inv(rb->orientation, d, B->c + 3 * a);
    crd_q_rotate_inv(rb->orientation, pb->p + 3 * n, B->e + 3 * a);
  }
  return 0;
}

int crd_ties_create(const crd_model *m, crd_problem *pb, crd_ties **out)
{
  *out = NULL;
  if (m->nbodies == 0) return 0;
  crd_ties *t;
  CRD_CALL(CRD_CALLOC(1, &t));
  t->m = m;
  t->nb = m->nbodies;
  t->neq = pb->neq;
  int rc = 0;
  if ((rc = CRD_CALLOC(t->nb, &t->b)) || (rc = CRD_CALLOC(pb->neq, &t->eq_body)) ||
      (rc = CRD_CALLOC(pb->neq, &t->eq_row)))
    goto fail;
  for (int k = 0; k < pb->neq; ++k) t->eq_body[k] = -1;
  for (int b = 0; b < t->nb; ++b) {
    if ((rc = body_setup(t, m, pb, b, &t->b[b]))) goto fail;
    t->b[b].off = t->nunk;
    t->nunk += t->b[b].na;
  }
  size_t n6 = 6 * (size_t)pb->neq, u = (size_t)t->nunk;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    if ((rc = CRD_CALLOC(n6, &B->Ge)) || (rc = CRD_CALLOC(n6, &B->Gf)) || (rc = CRD_CALLOC(n6, &B->Z))) goto fail;
  }
  if ((rc = CRD_CALLOC(u * u, &t->J)) || (rc = CRD_CALLOC(u * u, &t->S)) || (rc = CRD_CALLOC(u, &t->rhs)) ||
      (rc = CRD_CALLOC(u, &t->dal)))
    goto fail;
  *out = t;
  return 0;
fail:
  crd_ties_destroy(&t);
  return crd_err_trace(rc, __FILE__, __LINE__, __func__);
}

/* world position and normal of tied node a of B at the triad q */
static void tied_pose(const tie_body *B, const double *q, int a, double *x, double *p)
{
  const double *c = B->c + 3 * a, *e = B->e + 3 * a;
  for (int k = 0; k < 3; ++k) {
    x[k] = q[k] + c[0] * q[3 + k] + c[1] * q[6 + k] + c[2] * q[9 + k];
    p[k] = e[0] * q[3 + k] + e[1] * q[6 + k] + e[2] * q[9 + k];
  }
}

void crd_ties_node_rates(const crd_ties *t, const crd_problem *pb, double *v, double *a, double *w, double *wa)
{
  (void)pb;
  if (!t) return;
  for (int b = 0; b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    for (int k = 0; k < B->nt; ++k) {
      int n = B->node[k];
      /* the maps are linear in q, so rates map the same way (translation
       * part of q' only through phi') */
      double x[3], p[3];
      tied_pose(B, B->v, k, x, p);
      memcpy(v + 3 * n, x, sizeof x);
      memcpy(w + 3 * n, p, sizeof p);
      tied_pose(B, B->a, k, x, p);
      memcpy(a + 3 * n, x, sizeof x);
      memcpy(wa + 3 * n, p, sizeof p);
    }
  }
}

/* tied slots of du from the triads */
static void write_du(const crd_ties *t, const crd_problem *pb, const double *d0, const double *p0, double *du)
{
  const crd_model *m = t->m;
  for (int b = 0; b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    for (int k = 0; k < B->nt; ++k) {
      int n = B->node[k], nn_, mm;
      double x[3], p[3];
      tied_pose(B, B->q, k, x, p);
      for (int c = 0; c < 3; ++c) du[5 * n + c] = x[c] - m->x[3 * n + c] - d0[3 * n + c];
      crd_dir_pair(pb->l[n], &nn_, &mm);
      du[5 * n + 3] = p[nn_] - p0[3 * n + nn_];
      du[5 * n + 4] = p[mm] - p0[3 * n + mm];
    }
  }
}

void crd_ties_begin(crd_ties *t, crd_problem *pb, const crd_tie_step *ts, double *du)
{
  if (!t) return;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memcpy(B->q0, B->q, sizeof B->q);
    memcpy(B->v0, B->v, sizeof B->v);
    memcpy(B->a0, B->a, sizeof B->a);
    /* constant-velocity predictor: phi + h phi', the triad turned by
     * h w, w = 1/2 sum d_i x d_i' (exact for rigid rates) */
    double w[3] = {0, 0, 0}, c[3], th[3];
    for (int i = 0; i < 3; ++i) {
      crd_cross3(B->q0 + 3 + 3 * i, B->v0 + 3 + 3 * i, c);
      for (int k = 0; k < 3; ++k) w[k] += 0.5 * c[k];
    }
    for (int k = 0; k < 3; ++k) {
      B->q[k] = B->q0[k] + ts->h * B->v0[k];
      th[k] = ts->h * w[k];
    }
    for (int i = 0; i < 3; ++i) rot_apply(th, B->q0 + 3 + 3 * i, B->q + 3 + 3 * i);
    B->dW = 0.0;
  }
  write_du(t, pb, ts->d0, ts->p0, du);
}

/* Applied force (world, at Q) and moment of body ib at time tf; gravity
 * acts on the centre of mass: director forces m g on phi, m c_i g on d_i. */
static void body_loads(const crd_ties *t, const tie_body *B, double tf, double *F12, double *mom)
{
  const crd_model *m = t->m;
  memset(F12, 0, 12 * sizeof(double));
  mom[0] = mom[1] = mom[2] = 0.0;
  for (int l = 0; l < m->nloads; ++l) {
    const crd_load *L = &m->loads[l];
    double a = crd_amplitude_eval(&L->amp, tf, 1.0);
    if (L->kind == CRD_LOAD_BODY && L->body == B->ib) {
      for (int k = 0; k < 3; ++k) F12[k] += a * L->vec[k], mom[k] += a * L->vec2[k];
    } else if (L->kind == CRD_LOAD_GRAVITY) {
      for (int I = 0; I < 4; ++I)
        for (int k = 0; k < 3; ++k) F12[3 * I + k] += a * B->Mb[I] * L->vec[k];
    }
  }
  /* a moment m as director forces f_i = 1/2 m x d_i,f: sum_i d_i x f_i = m
   * for an orthonormal triad, and f . dq = m . dtheta for dd_i = dtheta x d_i */
  for (int i = 0; i < 3; ++i) {
    double f[3];
    crd_cross3(mom, B->qf + 3 + 3 * i, f);
    for (int k = 0; k < 3; ++k) F12[3 + 3 * i + k] += 0.5 * f[k];
  }
}

/* x^T for the rows of a skew matrix: out = -[v]x as a 3x3 row-major */
static void neg_skew(const double *v, double *S)
{
  S[0] = 0.0, S[1] = v[2], S[2] = -v[1];
  S[3] = -v[2], S[4] = 0.0, S[5] = v[0];
  S[6] = v[1], S[7] = -v[0], S[8] = 0.0;
}

void crd_ties_residual(crd_ties *t, crd_problem *pb, const crd_tie_step *ts, double *R, double *r2, double *scale)
{
  if (!t) return;
  const crd_model *m = t->m;
  double h = ts->h, bt = ts->beta, cf = 1.0 - ts->af;
  *scale = 0.0;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double am[12], Ma[12], F12[12];
    for (int k = 0; k < 12; ++k) {
      double dq = B->q[k] - B->q0[k];
      B->a[k] = (dq - h * B->v0[k] - h * h * (0.5 - bt) * B->a0[k]) / (bt * h * h);
      B->v[k] = B->v0[k] + h * ((1.0 - ts->gamma) * B->a0[k] + ts->gamma * B->a[k]);
      am[k] = (1.0 - ts->am) * B->a[k] + ts->am * B->a0[k];
      B->qf[k] = cf * B->q[k] + ts->af * B->q0[k];
    }
    body_loads(t, B, ts->tf, F12, B->mext);
    mass12(B->Mb, am, Ma);
    B->dW = 0.0;
    for (int k = 0; k < 12; ++k) {
      B->R[k] = Ma[k] - F12[k];
      B->dW += F12[k] * (B->q[k] - B->q0[k]);
      *scale = fmax(*scale, fmax(fabs(Ma[k]), fabs(F12[k])));
    }
    /* P_f^T R: translations; rotations sum_i d_i,f x R_i */
    double rt[3] = {B->R[0], B->R[1], B->R[2]}, rr[3] = {0, 0, 0}, c[3];
    for (int i = 0; i < 3; ++i) {
      crd_cross3(B->qf + 3 + 3 * i, B->R + 3 + 3 * i, c);
      for (int k = 0; k < 3; ++k) rr[k] += c[k];
    }
    double ft[3] = {0, 0, 0}, mt[3] = {0, 0, 0};
    for (int a = 0; a < B->nt; ++a) {
      int n = B->node[a], nn_, mm;
      crd_dir_pair(pb->l[n], &nn_, &mm);
      double xe[3], xf[3], re[3], rf[3], pe[3];
      const double *pf = ts->pf + 3 * n, *Bs = ts->Bs + 6 * (size_t)n;
      for (int k = 0; k < 3; ++k) {
        xe[k] = m->x[3 * n + k] + pb->d[3 * n + k];
        xf[k] = m->x[3 * n + k] + ts->df[3 * n + k];
        re[k] = xe[k] - B->q[k];
        rf[k] = xf[k] - B->qf[k];
        pe[k] = pb->p[3 * n + k];
      }
      /* T rows (5 x 6, columns dphi, dtheta): translation dx = dphi - [r]x dth,
       * pair: the (n, m) rows of dp = -[p]x dth at the end; at the
       * midpoint the pair rows y with B y = dth x p_f, y = -(B^T B)^-1 B^T [p_f]x dth */
      double *Te = B->Te + 30 * a, *Tf = B->Tf + 30 * a, Se[9], Sf[9], Sp[9];
      memset(Te, 0, 30 * sizeof(double));
      memset(Tf, 0, 30 * sizeof(double));
      neg_skew(re, Se);
      neg_skew(rf, Sf);
      neg_skew(pe, Sp);
      for (int r = 0; r < 3; ++r) {
        Te[6 * r + r] = Tf[6 * r + r] = 1.0;
        for (int k = 0; k < 3; ++k) Te[6 * r + 3 + k] = Se[3 * r + k], Tf[6 * r + 3 + k] = Sf[3 * r + k];
      }
      for (int k = 0; k < 3; ++k) {
        Te[6 * 3 + 3 + k] = Sp[3 * nn_ + k];
        Te[6 * 4 + 3 + k] = Sp[3 * mm + k];
      }
      double BtB[4] = {0, 0, 0, 0}, Spf[9], BtS[6] = {0, 0, 0, 0, 0, 0};
      neg_skew(pf, Spf);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          for (int r = 0; r < 3; ++r) BtB[2 * i + j] += Bs[2 * r + i] * Bs[2 * r + j];
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k)
          for (int r = 0; r < 3; ++r) BtS[3 * i + k] += Bs[2 * r + i] * Spf[3 * r + k];
      double det = BtB[0] * BtB[3] - BtB[1] * BtB[2];
      double Bi[4] = {BtB[3] / det, -BtB[1] / det, -BtB[2] / det, BtB[0] / det};
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 3; ++k) Tf[6 * (3 + i) + 3 + k] = Bi[2 * i] * BtS[k] + Bi[2 * i + 1] * BtS[3 + k];
      /* the node's residual through T_f: its pull on the body */
      double *Ra = B->Rt + 5 * a;
      for (int s = 0; s < 5; ++s) Ra[s] = R[pb->eq[5 * n + s]];
      for (int s = 0; s < 5; ++s)
        for (int k = 0; k < 3; ++k) ft[k] += Tf[6 * s + k] * Ra[s], mt[k] += Tf[6 * s + 3 + k] * Ra[s];
      /* g_perp = B (B^T B)^-1 R_pair, for the geometric part of the Jacobian */
      double y0 = Bi[0] * Ra[3] + Bi[1] * Ra[4], y1 = Bi[2] * Ra[3] + Bi[3] * Ra[4];
      for (int r = 0; r < 3; ++r) B->gp[3 * a + r] = Bs[2 * r] * y0 + Bs[2 * r + 1] * y1;
      for (int s = 0; s < 5; ++s) R[pb->eq[5 * n + s]] = 0.0;
    }
    for (int k = 0; k < 3; ++k) {
      B->react[k] = -ft[k];
      B->react[3 + k] = -mt[k];
    }
    if (B->fixed) {
      for (int k = 0; k < 3; ++k) B->r[k] = rr[k] + mt[k];
    } else {
      for (int k = 0; k < 3; ++k) B->r[k] = rt[k] + ft[k], B->r[3 + k] = rr[k] + mt[k];
    }
    for (int k = 0; k < B->na; ++k) *r2 += B->r[k] * B->r[k];
  }
}

void crd_ties_zero(const crd_ties *t, double *x)
{
  if (!t) return;
  for (int k = 0; k < t->neq; ++k)
    if (t->eq_body[k] >= 0) x[k] = 0.0;
}

void crd_ties_identity(const crd_ties *t, crd_csr *A)
{
  if (!t) return;
  for (int i = 0; i < A->n; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
      int j = A->col[p];
      if (t->eq_body[i] >= 0 || t->eq_body[j] >= 0) A->val[p] = (i == j) ? 1.0 : 0.0;
    }
}

/* the column of unknown k of body B (0 .. na-1) as a 12-vector dq = P_e e_k */
static void pe_col(const tie_body *B, int k, double *dq, double *dth)
{
  memset(dq, 0, 12 * sizeof(double));
  dth[0] = dth[1] = dth[2] = 0.0;
  int kr = B->fixed ? k : k - 3;
  if (kr < 0) {
    dq[k] = 1.0;
    return;
  }
  dth[kr] = 1.0;
  for (int i = 0; i < 3; ++i) crd_cross3(dth, B->q + 3 + 3 * i, dq + 3 + 3 * i);
}

/* the reduced row of a 12-vector X: P_f^T X (na values) */
static void pf_t(const tie_body *B, const double *X, double *y)
{
  double rr[3] = {0, 0, 0}, c[3];
  for (int i = 0; i < 3; ++i) {
    crd_cross3(B->qf + 3 + 3 * i, X + 3 + 3 * i, c);
    for (int k = 0; k < 3; ++k) rr[k] += c[k];
  }
  int o = 0;
  if (!B->fixed) y[0] = X[0], y[1] = X[1], y[2] = X[2], o = 3;
  for (int k = 0; k < 3; ++k) y[o + k] = rr[k];
}

/* row of the 5 x 6 T of tied slot s restricted to the body's unknowns */
static const double *t_row(const tie_body *B, const double *T, int row) { return T + 6 * row + (B->fixed ? 3 : 0); }

int crd_ties_condense(crd_ties *t, crd_problem *pb, const crd_tie_step *ts)
{
  if (!t) return 0;
  const crd_model *m = t->m;
  int u = t->nunk;
  double cm = (1.0 - ts->am) / (ts->beta * ts->h * ts->h), cf = 1.0 - ts->af;
  memset(t->J, 0, sizeof(double) * (size_t)u * u);
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memset(B->Ge, 0, 6 * sizeof(double) * (size_t)t->neq);
    memset(B->Gf, 0, 6 * sizeof(double) * (size_t)t->neq);
    /* the body's own block: P_f^T (c_m M - dF/dq_f c_f) P_e + the turn of
     * P_f^T: c_f sum_i (dd_i) x R_i, and the tie's geometric part: the
     * turn of the lever arms and normals of T_f, c_f sum_a (dth x r_a) x f_a
     * + (dth x p_a) x g_a (the change of B_a is left out: Newton still
     * converges, at the rate of the rotation over a step) */
    for (int k = 0; k < B->na; ++k) {
      double dq[12], dth[3], Md[12], col[6], g[3] = {0, 0, 0}, c[3], c2[3];
      pe_col(B, k, dq, dth);
      mass12(B->Mb, dq, Md);
      for (int i = 0; i < 12; ++i) Md[i] *= cm;
      for (int i = 0; i < 3; ++i) { /* moment forces 1/2 m x d_i,f */
        crd_cross3(B->mext, dq + 3 + 3 * i, c);
        for (int r = 0; r < 3; ++r) Md[3 + 3 * i + r] -= 0.5 * cf * c[r];
      }
      pf_t(B, Md, col);
      for (int i = 0; i < 3; ++i) {
        crd_cross3(dq + 3 + 3 * i, B->R + 3 + 3 * i, c);
        for (int r = 0; r < 3; ++r) g[r] += cf * c[r];
      }
      for (int a = 0; a < B->nt && (dth[0] != 0 || dth[1] != 0 || dth[2] != 0); ++a) {
        int n = B->node[a];
        double re[3], pe[3];
        for (int r = 0; r < 3; ++r) {
          re[r] = m->x[3 * n + r] + pb->d[3 * n + r] - B->q[r];
          pe[r] = pb->p[3 * n + r];
        }
        crd_cross3(dth, re, c);
        crd_cross3(c, B->Rt + 5 * a, c2);
        for (int r = 0; r < 3; ++r) g[r] += cf * c2[r];
        crd_cross3(dth, pe, c);
        crd_cross3(c, B->gp + 3 * a, c2);
        for (int r = 0; r < 3; ++r) g[r] += cf * c2[r];
      }
      int o = B->fixed ? 0 : 3;
      for (int r = 0; r < 3; ++r) col[o + r] += g[r];
      for (int i = 0; i < B->na; ++i) t->J[(size_t)(B->off + i) * u + B->off + k] += col[i];
    }
  }
  /* the stored upper triangle of K_eff: free-tied entries into the
   * coupling columns Ge = K_ft T_e and Gf = K_ft T_f, tied-tied entries
   * into T_f^T K_tt T_e; then the identity in the tied rows and columns */
  crd_csr *K = pb->K;
  for (int i = 0; i < K->n; ++i)
    for (int64_t p = K->rowptr[i]; p < K->rowptr[i + 1]; ++p) {
      int j = K->col[p];
      int bi = t->eq_body[i], bj = t->eq_body[j];
      double v = K->val[p];
      if (bi < 0 && bj < 0) continue;
      if (bi < 0 || bj < 0) { /* one free (f), one tied (s of body c) */
        int f = bi < 0 ? i : j, s = bi < 0 ? j : i;
        tie_body *C = &t->b[t->eq_body[s]];
        int row = t->eq_row[s], a = row / 5, sl = row % 5;
        const double *te = t_row(C, C->Te + 30 * a, sl), *tf = t_row(C, C->Tf + 30 * a, sl);
        for (int k = 0; k < C->na; ++k) {
          C->Ge[(size_t)k * t->neq + f] += v * te[k];
          C->Gf[(size_t)k * t->neq + f] += v * tf[k];
        }
      } else {
        tie_body *Bi = &t->b[bi], *Bj = &t->b[bj];
        int ri = t->eq_row[i], rj = t->eq_row[j];
        const double *tfi = t_row(Bi, Bi->Tf + 30 * (ri / 5), ri % 5), *tej = t_row(Bj, Bj->Te + 30 * (rj / 5), rj % 5);
        for (int x = 0; x < Bi->na; ++x)
          for (int y = 0; y < Bj->na; ++y) t->J[(size_t)(Bi->off + x) * u + Bj->off + y] += tfi[x] * v * tej[y];
        if (i != j) {
          const double *tfj = t_row(Bj, Bj->Tf + 30 * (rj / 5), rj % 5), *tei = t_row(Bi, Bi->Te + 30 * (ri / 5), ri % 5);
          for (int x = 0; x < Bj->na; ++x)
            for (int y = 0; y < Bi->na; ++y) t->J[(size_t)(Bj->off + x) * u + Bi->off + y] += tfj[x] * v * tei[y];
        }
      }
      K->val[p] = (i == j) ? 1.0 : 0.0;
    }
  /* the non-symmetric element parts E (implicit.c: the free-free part is
   * taken by sweeps) where a row or a column is tied */
  for (int e = 0; ts->E_e && e < pb->ne; ++e) {
    const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
    int any = 0;
    for (int a = 0; a < 20; ++a) any |= eq[a] >= 0 && t->eq_body[eq[a]] >= 0;
    if (!any) continue;
    const double *E = ts->E_e + 400 * (size_t)e;
    for (int a = 0; a < 20; ++a)
      for (int c = 0; c < 20; ++c) {
        int i = eq[a], j = eq[c];
        if (i < 0 || j < 0) continue;
        int bi = t->eq_body[i], bj = t->eq_body[j];
        double v = E[20 * a + c];
        if (bi < 0 && bj < 0) continue;
        if (bi < 0) { /* d R_i / d alpha through the tied u_j */
          tie_body *C = &t->b[bj];
          const double *te = t_row(C, C->Te + 30 * (t->eq_row[j] / 5), t->eq_row[j] % 5);
          for (int k = 0; k < C->na; ++k) C->Ge[(size_t)k * t->neq + i] += v * te[k];
        } else if (bj < 0) { /* d r_b / d u_j */
          tie_body *C = &t->b[bi];
          const double *tf = t_row(C, C->Tf + 30 * (t->eq_row[i] / 5), t->eq_row[i] % 5);
          for (int k = 0; k < C->na; ++k) C->Gf[(size_t)k * t->neq + j] += tf[k] * v;
        } else {
          tie_body *Bi = &t->b[bi], *Bj = &t->b[bj];
          const double *tf = t_row(Bi, Bi->Tf + 30 * (t->eq_row[i] / 5), t->eq_row[i] % 5);
          const double *te = t_row(Bj, Bj->Te + 30 * (t->eq_row[j] / 5), t->eq_row[j] % 5);
          for (int x = 0; x < Bi->na; ++x)
            for (int y = 0; y < Bj->na; ++y) t->J[(size_t)(Bi->off + x) * u + Bj->off + y] += tf[x] * v * te[y];
        }
      }
  }
  return 0;
}

/* Solve the n x n system A x = b in place (A row-major, destroyed) by
 * Gaussian elimination with partial pivoting; -1 when singular. */
static int dense_solve(int n, double *A, double *b)
{
  for (int c = 0; c < n; ++c) {
    int piv = c;
    for (int i = c + 1; i < n; ++i)
      if (fabs(A[(size_t)i * n + c]) > fabs(A[(size_t)piv * n + c])) piv = i;
    if (!(fabs(A[(size_t)piv * n + c]) > 0.0)) return -1;
    if (piv != c) {
      for (int j = 0; j < n; ++j) {
        double x = A[(size_t)c * n + j];
        A[(size_t)c * n + j] = A[(size_t)piv * n + j], A[(size_t)piv * n + j] = x;
      }
      double x = b[c];
      b[c] = b[piv], b[piv] = x;
    }
    for (int i = c + 1; i < n; ++i) {
      double l = A[(size_t)i * n + c] / A[(size_t)c * n + c];
      for (int j = c; j < n; ++j) A[(size_t)i * n + j] -= l * A[(size_t)c * n + j];
      b[i] -= l * b[c];
    }
  }
  for (int i = n - 1; i >= 0; --i) {
    double x = b[i];
    for (int j = i + 1; j < n; ++j) x -= A[(size_t)i * n + j] * b[j];
    b[i] = x / A[(size_t)i * n + i];
  }
  return 0;
}

int crd_ties_solve(crd_ties *t, crd_problem *pb, crd_tie_solve_fn solve, void *ctx, const crd_tie_step *ts,
                   double *dx, double *du, double *dx2)
{
  if (!t) return 0;
  int u = t->nunk, n = t->neq;
  /* Z_b = K_ff^-1 Ge_b; S = J - Gf^T Z; rhs = r - Gf^T dx */
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    for (int k = 0; k < B->na; ++k)
      CRD_CALL(solve(ctx, B->Ge + (size_t)k * n, B->Z + (size_t)k * n));
  }
  memcpy(t->S, t->J, sizeof(double) * (size_t)u * u);
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    for (int x = 0; x < B->na; ++x) {
      const double *gf = B->Gf + (size_t)x * n;
      double r = B->r[x];
      for (int i = 0; i < n; ++i) r -= gf[i] * dx[i];
      t->rhs[B->off + x] = r;
      for (int c = 0; c < t->nb; ++c) {
        const tie_body *C = &t->b[c];
        for (int y = 0; y < C->na; ++y) {
          const double *z = C->Z + (size_t)y * n;
          double v = 0.0;
          for (int i = 0; i < n; ++i) v += gf[i] * z[i];
          t->S[(size_t)(B->off + x) * u + C->off + y] -= v;
        }
      }
    }
  }
  memcpy(t->dal, t->rhs, sizeof(double) * (size_t)u);
  CRD_CHECK(dense_solve(u, t->S, t->dal) == 0, CRD_WARN_NEWTON_DIVERGED,
            "the Newton matrix of the rigid bodies is singular");
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    const double *da = t->dal + B->off;
    for (int y = 0; y < B->na; ++y) {
      const double *z = B->Z + (size_t)y * n;
      for (int i = 0; i < n; ++i) dx[i] -= z[i] * da[y];
      *dx2 += da[y] * da[y];
    }
    /* q <- q(alpha - dalpha): phi - dphi, d_i turned by -dtheta */
    int o = 0;
    if (!B->fixed) {
      for (int k = 0; k < 3; ++k) B->q[k] -= da[k];
      o = 3;
    }
    double th[3] = {-da[o], -da[o + 1], -da[o + 2]}, d[3];
    for (int i = 0; i < 3; ++i) {
      rot_apply(th, B->q + 3 + 3 * i, d);
      memcpy(B->q + 3 + 3 * i, d, sizeof d);
    }
  }
  write_du(t, pb, ts->d0, ts->p0, du);
  return 0;
}

void crd_ties_accept(crd_ties *t)
{
  if (!t) return;
  for (int b = 0; b < t->nb; ++b) t->b[b].wext += t->b[b].dW;
}

void crd_ties_restore(crd_ties *t)
{
  if (!t) return;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memcpy(B->q, B->q0, sizeof B->q);
    memcpy(B->v, B->v0, sizeof B->v);
    memcpy(B->a, B->a0, sizeof B->a);
    B->dW = 0.0;
  }
}

double crd_ties_step_work(const crd_ties *t)
{
  double w = 0.0;
  for (int b = 0; t && b < t->nb; ++b) w += t->b[b].dW;
  return w;
}

double crd_ties_work(const crd_ties *t)
{
  double w = 0.0;
  for (int b = 0; t && b < t->nb; ++b) w += t->b[b].wext;
  return w;
}

/* K = 1/2 v^T M v, L = sum of momenta p_phi, J = phi x p_phi + sum d_i x p_i
 * (p = M v: the momenta conjugate to the triad) */
void crd_ties_measure(const crd_ties *t, double *K, double *L, double *J)
{
  for (int b = 0; t && b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    double p[12], c[3];
    mass12(B->Mb, B->v, p);
    for (int k = 0; k < 12; ++k) *K += 0.5 * B->v[k] * p[k];
    for (int I = 0; I < 4; ++I) {
      crd_cross3(B->q + 3 * I, p + 3 * I, c);
      for (int k = 0; k < 3; ++k) J[k] += c[k];
    }
    for (int k = 0; k < 3; ++k) L[k] += p[k];
  }
}

int crd_ties_ncols(const crd_ties *t)
{
  int n = 0;
  for (int b = 0; t && b < t->nb; ++b) n += 13 + (t->b[b].nt > 0 ? 6 : 0);
  return n;
}

void crd_ties_col_names(const crd_ties *t, char **names, int len)
{
  static const char *const suf[13] = {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"};
  static const char *const rsuf[6] = {"tie_fx", "tie_fy", "tie_fz", "tie_mx", "tie_my", "tie_mz"};
  int k = 0;
  for (int b = 0; t && b < t->nb; ++b)
    for (int c = 0; c < 13; ++c) snprintf(names[k++], (size_t)len, "%s.%s", t->m->bodies[t->b[b].ib].name, suf[c]);
  for (int b = 0; t && b < t->nb; ++b)
    for (int c = 0; c < 6 && t->b[b].nt > 0; ++c)
      snprintf(names[k++], (size_t)len, "%s.%s", t->m->bodies[t->b[b].ib].name, rsuf[c]);
}

/* unit quaternion of the rotation matrix with columns d_1, d_2, d_3
 * (Shepperd: from the largest of the four squared components) */
static void quat_of_triad(const double *q, double *qt)
{
  double R[9];
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) R[3 * k + i] = q[3 + 3 * i + k];
  double tr = R[0] + R[4] + R[8], c[4] = {1 + tr, 1 + 2 * R[0] - tr, 1 + 2 * R[4] - tr, 1 + 2 * R[8] - tr};
  int j = 0;
  for (int k = 1; k < 4; ++k)
    if (c[k] > c[j]) j = k;
  double s = 0.5 * sqrt(c[j]), f = 0.25 / s;
  switch (j) {
  case 0: qt[0] = s, qt[1] = (R[7] - R[5]) * f, qt[2] = (R[2] - R[6]) * f, qt[3] = (R[3] - R[1]) * f; break;
  case 1: qt[1] = s, qt[0] = (R[7] - R[5]) * f, qt[2] = (R[1] + R[3]) * f, qt[3] = (R[2] + R[6]) * f; break;
  case 2: qt[2] = s, qt[0] = (R[2] - R[6]) * f, qt[1] = (R[1] + R[3]) * f, qt[3] = (R[5] + R[7]) * f; break;
  default: qt[3] = s, qt[0] = (R[3] - R[1]) * f, qt[1] = (R[2] + R[6]) * f, qt[2] = (R[5] + R[7]) * f; break;
  }
  if (qt[0] < 0) for (int k = 0; k < 4; ++k) qt[k] = -qt[k];
}

void crd_ties_columns(const crd_ties *t, double *cols)
{
  int k = 0;
  for (int b = 0; t && b < t->nb; ++b) {
    const tie_body *B = &t->b[b];
    double w[3] = {0, 0, 0}, c[3];
    for (int i = 0; i < 3; ++i) { /* w = 1/2 sum d_i x d_i' */
      crd_cross3(B->q + 3 + 3 * i, B->v + 3 + 3 * i, c);
      for (int r = 0; r < 3; ++r) w[r] += 0.5 * c[r];
    }
    for (int r = 0; r < 3; ++r) cols[k + r] = B->q[r];
    quat_of_triad(B->q, cols + k + 3);
    for (int r = 0; r < 3; ++r) cols[k + 7 + r] = B->v[r], cols[k + 10 + r] = w[r];
    k += 13;
  }
  for (int b = 0; t && b < t->nb; ++b)
    if (t->b[b].nt > 0) {
      memcpy(cols + k, t->b[b].react, 6 * sizeof(double));
      k += 6;
    }
}

#define TIE_NSTATE 61 /* q, v, a (36), wext, react (6), explicit P, dP, Fl (18) */
size_t crd_ties_state_size(const crd_ties *t) { return t ? TIE_NSTATE * (size_t)t->nb : 0; }

void crd_ties_state_get(const crd_ties *t, double *s)
{
  for (int b = 0; t && b < t->nb; ++b, s += TIE_NSTATE) {
    const tie_body *B = &t->b[b];
    memcpy(s, B->q, 12 * sizeof(double));
    memcpy(s + 12, B->v, 12 * sizeof(double));
    memcpy(s + 24, B->a, 12 * sizeof(double));
    s[36] = B->wext;
    memcpy(s + 37, B->react, 6 * sizeof(double));
    memcpy(s + 43, B->P, 6 * sizeof(double));
    memcpy(s + 49, B->dP, 6 * sizeof(double));
    memcpy(s + 55, B->Fl, 6 * sizeof(double));
  }
}

void crd_ties_state_set(crd_ties *t, const double *s)
{
  for (int b = 0; t && b < t->nb; ++b, s += TIE_NSTATE) {
    tie_body *B = &t->b[b];
    memcpy(B->q, s, 12 * sizeof(double));
    memcpy(B->v, s + 12, 12 * sizeof(double));
    memcpy(B->a, s + 24, 12 * sizeof(double));
    B->wext = s[36];
    memcpy(B->react, s + 37, 6 * sizeof(double));
    memcpy(B->P, s + 43, 6 * sizeof(double));
    memcpy(B->dP, s + 49, 6 * sizeof(double));
    memcpy(B->Fl, s + 55, 6 * sizeof(double));
  }
}

/* ---- explicit stages ----------------------------------------------------
 * The body and the lumped masses of its tied nodes form one rigid body
 * (tie.h): mass, first moment and inertia about Q in body axes, the
 * tied nodes' director inertia s P_a |p'|^2 / 2 = w^T s P_a (I - p p^T) w / 2
 * included.  Newton-Euler in body axes (rigid_body.h), P' = ad*_chi P + W,
 * by a central-difference step on the group (a Stormer-Verlet splitting):
 *   P_1/2 = P_n + h/2 P'_n,  chi_1/2 = M^-1 P_1/2,
 *   R_1 = Rot(h R_n w_1/2) R_n,  phi_1 = phi_n + h Rot(h R_n w_1/2 / 2) R_n v_1/2,
 *   (shell forces at the new state)  P_1 = P_1/2 + h/2 P'(chi_1, W_1),
 * the last by a fixed point on chi_1 (the gyroscopic term), as the shell's
 * central difference: explicit, second order.  The triad and its rates (q,
 * v, a) stay the state, so stages of either kind follow one another. */

static void rotmat(const double *q, double *R) /* columns d_1, d_2, d_3 */
{
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) R[3 * k + i] = q[3 + 3 * i + k];
}
static void mat_t_vec(const double *R, const double *v, double *o)
{
  for (int i = 0; i < 3; ++i) o[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}
static void mat_vec(const double *R, const double *v, double *o)
{
  for (int i = 0; i < 3; ++i) o[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* chi = M6^-1 P (rotation rows only when Q is held) */
static void ex_velocity(const tie_body *B, const double *P, double *chi)
{
  if (B->fixed) {
    double J[36];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) J[6 * i + j] = B->M6[6 * i + j];
    crd_rb_solve(3, J, 6, P, chi);
    chi[3] = chi[4] = chi[5] = 0.0;
  } else
    crd_rb_solve(6, B->M6, 6, P, chi);
}

/* The wrench on the body (with its tied nodes) at the current state: the
 * shell's forces F = Fe - Fi on the tied slots (a pair force as the
 * 3-vector with its components n, m) and the body's loads at time t.
 * Wb: body axes (tau, f); Fl: the loads alone in world axes (force, moment
 * about Q), for their work. */
static void ex_wrench(const crd_ties *t, const tie_body *B, const crd_problem *pb, const double *Fi,
                      const double *Fe, double time, double *Wb, double *Fl)
{
  const crd_model *m = t->m;
  double F[3] = {0, 0, 0}, M[3] = {0, 0, 0}, R[9], c[3];
  rotmat(B->q, R);
  for (int a = 0; a < B->nt; ++a) {
    int n = B->node[a], nn_, mm;
    const int32_t *eq = pb->eq + 5 * n;
    double f[3], g[3] = {0, 0, 0}, r[3];
    for (int k = 0; k < 3; ++k) {
      f[k] = Fe[eq[k]] - Fi[eq[k]];
      r[k] = m->x[3 * n + k] + pb->d[3 * n + k] - B->q[k];
    }
    crd_dir_pair(pb->l[n], &nn_, &mm);
    g[nn_] = Fe[eq[3]] - Fi[eq[3]];
    g[mm] = Fe[eq[4]] - Fi[eq[4]];
    crd_cross3(r, f, c);
    for (int k = 0; k < 3; ++k) F[k] += f[k], M[k] += c[k];
    crd_cross3(pb->p + 3 * n, g, c);
    for (int k = 0; k < 3; ++k) M[k] += c[k];
  }
  double fl[3] = {0, 0, 0}, ml[3] = {0, 0, 0}, rg[3], cg[3];
  for (int k = 0; k < 3; ++k) cg[k] = B->Mb[1 + k] / B->Mb[0];
  mat_vec(R, cg, rg);
  for (int l = 0; l < m->nloads; ++l) {
    const crd_load *L = &m->loads[l];
    double am = crd_amplitude_eval(&L->amp, time, 1.0);
    if (L->kind == CRD_LOAD_BODY && L->body == B->ib) {
      for (int k = 0; k < 3; ++k) fl[k] += am * L->vec[k], ml[k] += am * L->vec2[k];
    } else if (L->kind == CRD_LOAD_GRAVITY) { /* the body's own mass at G (the tied nodes' is in Fe) */
      double fg[3] = {am * B->Mb[0] * L->vec[0], am * B->Mb[0] * L->vec[1], am * B->Mb[0] * L->vec[2]};
      crd_cross3(rg, fg, c);
      for (int k = 0; k < 3; ++k) fl[k] += fg[k], ml[k] += c[k];
    }
  }
  for (int k = 0; k < 3; ++k) {
    F[k] += fl[k], M[k] += ml[k];
    Fl[k] = fl[k], Fl[3 + k] = ml[k];
  }
  mat_t_vec(R, M, Wb);
  mat_t_vec(R, F, Wb + 3);
}

/* the triad's rates from chi and chi' (body axes) */
static void ex_rates(tie_body *B, const double *chi, const double *dchi)
{
  double R[9], w[3], v[3], al[3], aq[3], c[3], t1[3];
  rotmat(B->q, R);
  mat_vec(R, chi, w);
  mat_vec(R, chi + 3, v);
  mat_vec(R, dchi, al);
  crd_cross3(chi, chi + 3, c);
  for (int k = 0; k < 3; ++k) t1[k] = dchi[3 + k] + c[k];
  mat_vec(R, t1, aq);
  for (int k = 0; k < 3; ++k) B->v[k] = v[k], B->a[k] = aq[k];
  for (int i = 0; i < 3; ++i) {
    const double *d = B->q + 3 + 3 * i;
    double wd[3], wwd[3], ad[3];
    crd_cross3(w, d, wd);
    crd_cross3(w, wd, wwd);
    crd_cross3(al, d, ad);
    for (int k = 0; k < 3; ++k) B->v[3 + 3 * i + k] = wd[k], B->a[3 + 3 * i + k] = ad[k] + wwd[k];
  }
}

void crd_ties_ex_begin(crd_ties *t, const crd_problem *pb, const double *mlump, const double *plump, double s,
                       const double *Fi, const double *Fe, double time, int resume)
{
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double m = B->Mb[0], S[3], J[9], E[9];
    for (int k = 0; k < 3; ++k) S[k] = B->Mb[1 + k];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) E[3 * i + j] = B->Mb[4 * (1 + i) + 1 + j];
    double trE = E[0] + E[4] + E[8];
    for (int i = 0; i < 9; ++i) J[i] = -E[i];
    for (int i = 0; i < 3; ++i) J[4 * i] += trE; /* J = tr(E) I - E */
    for (int a = 0; a < B->nt; ++a) {
      int n = B->node[a];
      const double *c = B->c + 3 * a, *e = B->e + 3 * a;
      double ma = mlump[n], pa = s * plump[n], cc = crd_dot3(c, c), ee = crd_dot3(e, e);
      m += ma;
      for (int i = 0; i < 3; ++i) {
        S[i] += ma * c[i];
        for (int j = 0; j < 3; ++j)
          J[3 * i + j] += ma * ((i == j ? cc : 0.0) - c[i] * c[j]) + pa * ((i == j ? ee : 0.0) - e[i] * e[j]);
      }
    }
    double rg[3] = {S[0] / m, S[1] / m, S[2] / m};
    crd_rb_mass6(m, J, rg, NULL, B->M6);
    if (resume) continue;
    double R[9], w[3] = {0, 0, 0}, c[3], Wb[6];
    rotmat(B->q, R);
    for (int i = 0; i < 3; ++i) {
      crd_cross3(B->q + 3 + 3 * i, B->v + 3 + 3 * i, c);
      for (int k = 0; k < 3; ++k) w[k] += 0.5 * c[k];
    }
    mat_t_vec(R, w, B->chi);
    mat_t_vec(R, B->v, B->chi + 3);
    if (B->fixed) B->chi[3] = B->chi[4] = B->chi[5] = 0.0;
    crd_rb_mat6_vec(B->M6, B->chi, B->P);
    ex_wrench(t, B, pb, Fi, Fe, time, Wb, B->Fl);
    crd_rb_ne_dP(B->M6, B->chi, Wb, B->fixed, B->dP);
    double dchi[6];
    ex_velocity(B, B->dP, dchi);
    ex_rates(B, B->chi, dchi);
  }
}

void crd_ties_ex_move(crd_ties *t, crd_problem *pb, double h)
{
  const crd_model *m = t ? t->m : NULL;
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memcpy(B->q0, B->q, sizeof B->q);
    memcpy(B->v0, B->v, sizeof B->v);
    memcpy(B->a0, B->a, sizeof B->a);
    for (int k = 0; k < 6; ++k) B->P[k] += 0.5 * h * B->dP[k];
    ex_velocity(B, B->P, B->chi);
    double R[9], th[3], hth[3], vw[3], vm[3], d[3];
    rotmat(B->q, R);
    mat_vec(R, B->chi, th);
    mat_vec(R, B->chi + 3, vw);
    for (int k = 0; k < 3; ++k) th[k] *= h, hth[k] = 0.5 * th[k];
    rot_apply(hth, vw, vm);
    for (int k = 0; k < 3; ++k) B->q[k] += h * vm[k];
    for (int i = 0; i < 3; ++i) {
      rot_apply(th, B->q + 3 + 3 * i, d);
      memcpy(B->q + 3 + 3 * i, d, sizeof d);
    }
    memcpy(B->th, th, sizeof th); /* for the work of the moments */
    for (int a = 0; a < B->nt; ++a) {
      int n = B->node[a];
      double x[3], p[3];
      tied_pose(B, B->q, a, x, p);
      for (int k = 0; k < 3; ++k) pb->d[3 * n + k] = x[k] - m->x[3 * n + k], pb->p[3 * n + k] = p[k];
    }
  }
}

void crd_ties_ex_finish(crd_ties *t, const crd_problem *pb, const double *Fi, const double *Fe, double time,
                        double h, double *v, double *a, double *w, double *wa)
{
  for (int b = 0; t && b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double Wb[6], Fl[6], th[3], P1[6], dP[6], chi[6];
    memcpy(th, B->th, sizeof th);
    ex_wrench(t, B, pb, Fi, Fe, time, Wb, Fl);
    memcpy(chi, B->chi, sizeof chi);
    for (int it = 0; it < 6; ++it) { /* chi_1 = M^-1 (P_1/2 + h/2 P'(chi_1)) */
      crd_rb_ne_dP(B->M6, chi, Wb, B->fixed, dP);
      for (int k = 0; k < 6; ++k) P1[k] = B->P[k] + 0.5 * h * dP[k];
      ex_velocity(B, P1, chi);
    }
    crd_rb_ne_dP(B->M6, chi, Wb, B->fixed, dP);
    for (int k = 0; k < 6; ++k) B->P[k] += 0.5 * h * dP[k];
    ex_velocity(B, B->P, B->chi);
    memcpy(B->dP, dP, sizeof dP);
    /* work of the body's loads: trapezoidal in the force and moment */
    B->dW = 0.0;
    for (int k = 0; k < 3; ++k)
      B->dW += 0.5 * (B->Fl[k] + Fl[k]) * (B->q[k] - B->q0[k]) + 0.5 * (B->Fl[3 + k] + Fl[3 + k]) * th[k];
    memcpy(B->Fl, Fl, sizeof Fl);
    double dchi[6];
    ex_velocity(B, dP, dchi);
    ex_rates(B, B->chi, dchi);
    /* the reaction: the shell's pull on the body = total wrench minus the loads */
    double R[9], Ww[3], Mw[3];
    rotmat(B->q, R);
    mat_vec(R, Wb + 3, Ww);
    mat_vec(R, Wb, Mw);
    for (int k = 0; k < 3; ++k) B->react[k] = Ww[k] - Fl[k], B->react[3 + k] = Mw[k] - Fl[3 + k];
  }
  crd_ties_node_rates(t, pb, v, a, w, wa);
}
