/* crdyn: rigid bodies of a shell model as director triads, and the shell
 * nodes tied to them: set-up and the implicit step (tie.h has the
 * formulation, docs/rigid_bodies.md the derivation and the measured
 * conservation; tie_explicit.c the explicit stages, tie_state.c the
 * measures, columns and checkpoint state). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/director.h"
#include "crdyn/loads.h"
#include "crdyn/dualquat.h"
#include "crdyn/error.h"
#include "crdyn/rigid_body.h"
#include "crdyn/tie.h"
#include "tie_priv.h"

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

/* The director mass of body rb: Mb = [m, m c^T; m c, E] with c the centre
 * of mass from Q in body axes and E = 1/2 tr(J) I - J (the second moments
 * int rho X X^T of the body about Q from its inertia tensor). */
static void body_director_mass(const crd_rigid_body *rb, tie_body *B)
{
  double cg[3], d[3];
  for (int k = 0; k < 3; ++k) d[k] = rb->center_of_mass[k] - rb->reference[k];
  crd_q_rotate_inv(rb->orientation, d, cg);
  const double *Jq = rb->inertia;
  double tr = Jq[0] + Jq[4] + Jq[8];
  B->Mb[0] = rb->mass;
  for (int i = 0; i < 3; ++i) {
    B->Mb[1 + i] = B->Mb[4 * (1 + i)] = rb->mass * cg[i];
    for (int j = 0; j < 3; ++j) B->Mb[4 * (1 + i) + 1 + j] = (i == j ? 0.5 * tr : 0.0) - Jq[3 * i + j];
  }
}

/* The initial triad of body rb (R: its orientation as a matrix) and its
 * rates: d_i = R e_i (columns), d_i' = w x d_i, d_i'' = w x d_i' (a held
 * body's Q does not move). */
static void body_initial_triad(const crd_rigid_body *rb, const double *R, tie_body *B)
{
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
}

/* The arrays of B's nt tied nodes (freed by crd_ties_destroy). */
static int body_tie_alloc(tie_body *B, int nt)
{
  B->nt = nt;
  CRD_CALL(CRD_CALLOC(nt, &B->node));
  CRD_CALL(CRD_CALLOC(3 * nt, &B->c));
  CRD_CALL(CRD_CALLOC(3 * nt, &B->e));
  CRD_CALL(CRD_CALLOC(30 * nt, &B->Te));
  CRD_CALL(CRD_CALLOC(30 * nt, &B->Tf));
  CRD_CALL(CRD_CALLOC(3 * nt, &B->gp));
  CRD_CALL(CRD_CALLOC(5 * nt, &B->Rt));
  return 0;
}

/* Tied node a (of set s) of body ib: refused when it has a support, a fixed
 * slot or is tied to another body; else its equations marked as the body's
 * and its offset and normal from Q in body axes. */
static int body_tie_node(crd_ties *t, const crd_model *m, crd_problem *pb, int ib, tie_body *B, const crd_set *s,
                         int a)
{
  const crd_rigid_body *rb = &m->bodies[ib];
  int n = s->nodes[a];
  double d[3];
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
  return 0;
}

/* Body ib of the model as the director triad B: refused when held other
 * than by a full spherical joint or with added mass; its mass, initial
 * triad and rates, and its tied nodes. */
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
  double R[9];
  crd_q_to_mat(rb->orientation, R);
  body_director_mass(rb, B);
  body_initial_triad(rb, R, B);
  if (rb->tie < 0) return 0;
  const crd_set *s = &m->sets[rb->tie];
  CRD_CALL(body_tie_alloc(B, s->nn));
  for (int a = 0; a < s->nn; ++a) CRD_CALL(body_tie_node(t, m, pb, ib, B, s, a));
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
  return CRD_TRACE(rc);
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
      tie_pose(B, B->v, k, x, p);
      memcpy(v + 3 * n, x, sizeof x);
      memcpy(w + 3 * n, p, sizeof p);
      tie_pose(B, B->a, k, x, p);
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
      tie_pose(B, B->q, k, x, p);
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
    for (int i = 0; i < 3; ++i) tie_rot_apply(th, B->q0 + 3 + 3 * i, B->q + 3 + 3 * i);
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

/* The Newmark rates of body B from its iterate q: a and v at the end, am
 * (the alpha-m acceleration) and the alpha-f triad qf. */
static void body_rates(tie_body *B, const crd_tie_step *ts, double *am)
{
  double h = ts->h, bt = ts->beta, cf = 1.0 - ts->af;
  for (int k = 0; k < 12; ++k) {
    double dq = B->q[k] - B->q0[k];
    B->a[k] = (dq - h * B->v0[k] - h * h * (0.5 - bt) * B->a0[k]) / (bt * h * h);
    B->v[k] = B->v0[k] + h * ((1.0 - ts->gamma) * B->a0[k] + ts->gamma * B->a[k]);
    am[k] = (1.0 - ts->am) * B->a[k] + ts->am * B->a0[k];
    B->qf[k] = cf * B->q[k] + ts->af * B->q0[k];
  }
}

/* The director residual R = M a_m - F_f of body B, the loads' work dW over
 * the step, and scale raised to the largest |M a_m| and |F_f|. */
static void body_director_residual(const crd_ties *t, tie_body *B, const crd_tie_step *ts, const double *am,
                                   double *scale)
{
  double Ma[12], F12[12];
  body_loads(t, B, ts->tf, F12, B->mext);
  tie_mass12(B->Mb, am, Ma);
  B->dW = 0.0;
  for (int k = 0; k < 12; ++k) {
    B->R[k] = Ma[k] - F12[k];
    B->dW += F12[k] * (B->q[k] - B->q0[k]);
    *scale = fmax(*scale, fmax(fabs(Ma[k]), fabs(F12[k])));
  }
}

/* T rows of tied node a of B (5 x 6, columns dphi, dtheta): translation
 * dx = dphi - [r]x dth, pair: the (n, m) rows of dp = -[p]x dth at the end
 * (Te); at the midpoint (Tf) the pair rows y with B y = dth x p_f,
 * y = -(B^T B)^-1 B^T [p_f]x dth.  Bi: (B^T B)^-1 of the node's pair basis. */
static void tied_node_maps(const crd_ties *t, const crd_problem *pb, const crd_tie_step *ts, tie_body *B, int a,
                           double *Bi)
{
  const crd_model *m = t->m;
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
  Bi[0] = BtB[3] / det, Bi[1] = -BtB[1] / det, Bi[2] = -BtB[2] / det, Bi[3] = BtB[0] / det;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) Tf[6 * (3 + i) + 3 + k] = Bi[2 * i] * BtS[k] + Bi[2 * i + 1] * BtS[3 + k];
}

/* The shell residual R of tied node a through T_f: its pull on the body
 * added to (ft, mt); g_perp = B (B^T B)^-1 R_pair for the geometric part of
 * the Jacobian; then the node's rows of R zeroed (the body carries them). */
static void tied_node_pull(const crd_problem *pb, const crd_tie_step *ts, tie_body *B, int a, const double *Bi,
                           double *R, double *ft, double *mt)
{
  int n = B->node[a];
  const double *Bs = ts->Bs + 6 * (size_t)n, *Tf = B->Tf + 30 * a;
  double *Ra = B->Rt + 5 * a;
  for (int s = 0; s < 5; ++s) Ra[s] = R[pb->eq[5 * n + s]];
  for (int s = 0; s < 5; ++s)
    for (int k = 0; k < 3; ++k) ft[k] += Tf[6 * s + k] * Ra[s], mt[k] += Tf[6 * s + 3 + k] * Ra[s];
  double y0 = Bi[0] * Ra[3] + Bi[1] * Ra[4], y1 = Bi[2] * Ra[3] + Bi[3] * Ra[4];
  for (int r = 0; r < 3; ++r) B->gp[3 * a + r] = Bs[2 * r] * y0 + Bs[2 * r + 1] * y1;
  for (int s = 0; s < 5; ++s) R[pb->eq[5 * n + s]] = 0.0;
}

/* Body B's reaction (minus the tied nodes' pull) and reduced residual r:
 * the director residual P_f^T R (rt: translations, rr: rotations) plus the
 * pull; its square added to r2. */
static void body_reduced_residual(tie_body *B, const double *rt, const double *rr, const double *ft,
                                  const double *mt, double *r2)
{
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

void crd_ties_residual(crd_ties *t, crd_problem *pb, const crd_tie_step *ts, double *R, double *r2, double *scale)
{
  if (!t) return;
  *scale = 0.0;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    double am[12];
    body_rates(B, ts, am);
    body_director_residual(t, B, ts, am, scale);
    /* P_f^T R: translations; rotations sum_i d_i,f x R_i */
    double rt[3] = {B->R[0], B->R[1], B->R[2]}, rr[3] = {0, 0, 0}, c[3];
    for (int i = 0; i < 3; ++i) {
      crd_cross3(B->qf + 3 + 3 * i, B->R + 3 + 3 * i, c);
      for (int k = 0; k < 3; ++k) rr[k] += c[k];
    }
    double ft[3] = {0, 0, 0}, mt[3] = {0, 0, 0};
    for (int a = 0; a < B->nt; ++a) {
      double Bi[4];
      tied_node_maps(t, pb, ts, B, a, Bi);
      tied_node_pull(pb, ts, B, a, Bi, R, ft, mt);
    }
    body_reduced_residual(B, rt, rr, ft, mt, r2);
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

/* The tie's geometric part of body B's column for the turn dth, added to g:
 * the turn of the lever arms and normals of T_f, c_f sum_a (dth x r_a) x f_a
 * + (dth x p_a) x g_a (the change of B_a is left out: Newton still
 * converges, at the rate of the rotation over a step). */
static void tie_geometric_turn(const crd_ties *t, const crd_problem *pb, const tie_body *B, const double *dth,
                               double cf, double *g)
{
  const crd_model *m = t->m;
  double c[3], c2[3];
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
}

/* Column k of body B's own block (na values): P_f^T (c_m M - dF/dq_f c_f)
 * P_e e_k + the turn of P_f^T, c_f sum_i (dd_i) x R_i, and the tie's
 * geometric part (tie_geometric_turn). */
static void body_block_col(const crd_ties *t, const crd_problem *pb, const tie_body *B, int k, double cm, double cf,
                           double *col)
{
  double dq[12], dth[3], Md[12], g[3] = {0, 0, 0}, c[3];
  pe_col(B, k, dq, dth);
  tie_mass12(B->Mb, dq, Md);
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
  tie_geometric_turn(t, pb, B, dth, cf, g);
  int o = B->fixed ? 0 : 3;
  for (int r = 0; r < 3; ++r) col[o + r] += g[r];
}

/* Every body's own block into J, and its coupling columns Ge, Gf zeroed
 * for condense_stiffness and condense_elem_parts to fill. */
static void condense_bodies(crd_ties *t, const crd_problem *pb, const crd_tie_step *ts)
{
  int u = t->nunk;
  double cm = (1.0 - ts->am) / (ts->beta * ts->h * ts->h), cf = 1.0 - ts->af;
  for (int b = 0; b < t->nb; ++b) {
    tie_body *B = &t->b[b];
    memset(B->Ge, 0, 6 * sizeof(double) * (size_t)t->neq);
    memset(B->Gf, 0, 6 * sizeof(double) * (size_t)t->neq);
    for (int k = 0; k < B->na; ++k) {
      double col[6];
      body_block_col(t, pb, B, k, cm, cf, col);
      for (int i = 0; i < B->na; ++i) t->J[(size_t)(B->off + i) * u + B->off + k] += col[i];
    }
  }
}

/* The T_e row of tied equation q, restricted to its body's unknowns. */
static const double *te_row(const crd_ties *t, int q)
{
  const tie_body *C = &t->b[t->eq_body[q]];
  return t_row(C, C->Te + 30 * (t->eq_row[q] / 5), t->eq_row[q] % 5);
}

/* The T_f row of tied equation q, restricted to its body's unknowns. */
static const double *tf_row(const crd_ties *t, int q)
{
  const tie_body *C = &t->b[t->eq_body[q]];
  return t_row(C, C->Tf + 30 * (t->eq_row[q] / 5), t->eq_row[q] % 5);
}

/* Tied-tied entry v of row i, column j into J: T_f,i^T v T_e,j. */
static void couple_tied_tied(crd_ties *t, int i, int j, double v)
{
  int u = t->nunk;
  const tie_body *Bi = &t->b[t->eq_body[i]], *Bj = &t->b[t->eq_body[j]];
  const double *tfi = tf_row(t, i), *tej = te_row(t, j);
  for (int x = 0; x < Bi->na; ++x)
    for (int y = 0; y < Bj->na; ++y) t->J[(size_t)(Bi->off + x) * u + Bj->off + y] += tfi[x] * v * tej[y];
}

/* The stored upper triangle of K_eff: free-tied entries into the coupling
 * columns Ge = K_ft T_e and Gf = K_ft T_f, tied-tied entries into
 * T_f^T K_tt T_e (both triangles); then the identity in the tied rows and
 * columns. */
static void condense_stiffness(crd_ties *t, crd_problem *pb)
{
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
        const double *te = te_row(t, s), *tf = tf_row(t, s);
        for (int k = 0; k < C->na; ++k) {
          C->Ge[(size_t)k * t->neq + f] += v * te[k];
          C->Gf[(size_t)k * t->neq + f] += v * tf[k];
        }
      } else {
        couple_tied_tied(t, i, j, v);
        if (i != j) couple_tied_tied(t, j, i, v);
      }
      K->val[p] = (i == j) ? 1.0 : 0.0;
    }
}

/* Entry v (row i, column j) of a non-symmetric element part E with a tied
 * row or column: into Ge, Gf or J. */
static void condense_elem_entry(crd_ties *t, int i, int j, double v)
{
  int bi = t->eq_body[i], bj = t->eq_body[j];
  if (bi < 0 && bj < 0) return;
  if (bi < 0) { /* d R_i / d alpha through the tied u_j */
    tie_body *C = &t->b[bj];
    const double *te = te_row(t, j);
    for (int k = 0; k < C->na; ++k) C->Ge[(size_t)k * t->neq + i] += v * te[k];
  } else if (bj < 0) { /* d r_b / d u_j */
    tie_body *C = &t->b[bi];
    const double *tf = tf_row(t, i);
    for (int k = 0; k < C->na; ++k) C->Gf[(size_t)k * t->neq + j] += tf[k] * v;
  } else {
    couple_tied_tied(t, i, j, v);
  }
}

/* The non-symmetric element parts E (implicit.c: the free-free part is
 * taken by sweeps) where a row or a column is tied. */
static void condense_elem_parts(crd_ties *t, const crd_problem *pb, const crd_tie_step *ts)
{
  for (int e = 0; ts->E_e && e < pb->ne; ++e) {
    const int32_t *eq = pb->elem_eq + 20 * (size_t)e;
    int any = 0;
    for (int a = 0; a < 20; ++a) any |= eq[a] >= 0 && t->eq_body[eq[a]] >= 0;
    if (!any) continue;
    const double *E = ts->E_e + 400 * (size_t)e;
    for (int a = 0; a < 20; ++a)
      for (int c = 0; c < 20; ++c)
        if (eq[a] >= 0 && eq[c] >= 0) condense_elem_entry(t, eq[a], eq[c], E[20 * a + c]);
  }
}

int crd_ties_condense(crd_ties *t, crd_problem *pb, const crd_tie_step *ts)
{
  if (!t) return 0;
  memset(t->J, 0, sizeof(double) * (size_t)t->nunk * t->nunk);
  condense_bodies(t, pb, ts);
  condense_stiffness(t, pb);
  condense_elem_parts(t, pb, ts);
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
      tie_rot_apply(th, B->q + 3 + 3 * i, d);
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
