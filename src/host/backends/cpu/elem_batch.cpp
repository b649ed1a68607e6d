/* crdyn: the CPU backend's range bodies (include/crdyn/elem_isa.h): the
 * element functions of elem_eval.h compiled over crd_lanes (elem_lanes.h),
 * CRD_LANES elements per vector.
 *
 * Why: one element's work is a few thousand operations on 3-vectors, 2x2
 * and 20x20 blocks; vectorized within one element most of it stays scalar
 * (frames, Gauss-point operators, the frame Hessian).  With the elements
 * in the lanes every operation is a full vector, and the code is still the
 * one source of element physics (the same headers as the OpenCL and CUDA
 * kernels), not a second hand-vectorized copy.
 *
 * Exactness: lane j computes, operation for operation, what the scalar
 * body computes for its element (elem_lanes.h), so the outputs are the
 * per-element bodies' bits (t205 checks it over all variants).  A group
 * falls back to the per-element body of the same variant when its elements
 * differ in the pair choice l of a corner (an int that picks code paths),
 * when its lanes diverged in a branch, or when one of them is bad (the
 * scalar body then names the first bad one and its kind).
 *
 * Built once per variant (Makefile: the -march of elem_isa_<v>.o, and
 * CRD_ELEM_ISA_SUFFIX); C linkage, no C++ runtime (no exceptions, no
 * allocation, no statics with constructors). */
#include <stdlib.h>
#include <string.h>

#include "crdyn/elem_args.h"
#include "crdyn/switches.h"
#include "elem_lanes.h"

/* The element headers over crd_lanes.  Everything they declare is then in
 * lane form (crd_q4_mat included); the C prototypes below use plain
 * doubles under other names. */
#include <math.h>
namespace { /* internal linkage, as elem_lanes.h */
#define double crd_lanes
#include "crdyn/elem_eval.h"
#include "crdyn/explicit_node.h"
#undef double
} /* namespace */

#define CRD_CAT2(a, b) a##b
#define CRD_CAT(a, b) CRD_CAT2(a, b)
#ifdef CRD_ELEM_ISA_SUFFIX
#  define CRD_ISA_FN(n) CRD_CAT(CRD_CAT(n, _), CRD_ELEM_ISA_SUFFIX)
#else
#  define CRD_ISA_FN(n) CRD_CAT(n, _generic)
#endif

extern "C" {
/* the C section (crd_q4_mat of shell_q4.h in double) */
typedef struct crd_q4_mat_c {
  double E, nu, h, xi, am;
} crd_q4_mat_c;

/* this variant's per-element bodies (elem_isa.c) */
int CRD_ISA_FN(crd_elem_static)(int e, const crd_elem_static_args *a, const crd_q4_mat_c *mt, double *f, double *k,
                                double *u);
int CRD_ISA_FN(crd_elem_mid)(int e, const crd_elem_mid_args *a, const crd_q4_mat_c *mt, double *fgo, double *fino,
                             double *ko, double *Eo, double *u);

extern const int CRD_ISA_FN(crd_elem_lanes);
const int CRD_ISA_FN(crd_elem_lanes) = CRD_LANES;

int CRD_ISA_FN(crd_elem_static_range)(int e0, int e1, const crd_elem_static_args *a, int *bad, long long *nbatched);
int CRD_ISA_FN(crd_elem_mid_range)(int e0, int e1, const crd_elem_mid_args *a, int *bad, long long *nbatched);
int CRD_ISA_FN(crd_exn_accel_range)(int n0, int n1, const crd_exn_accel_args *g);
}

enum { W = CRD_LANES };

/* The explicit step's node accelerations (explicit.c, crd_exn_accel), W
 * consecutive nodes in lanes when they share the pair choice l and which
 * of their 5 slots are free (ints that pick code paths); a node that
 * cannot join a group runs alone, broadcast to every lane (the same
 * numbers in each, lane 0 kept).  No branch on values in crd_exn_accel. */
static inline crd_lanes load(const double *t)
{
  crd_lanes r;
  memcpy(&r.v, t, sizeof r.v);
  return r;
}
static inline int slot_mask(const int32_t *eq, int i)
{
  int m = 0;
  for (int k = 0; k < 5; ++k) m |= (eq[5 * i + k] >= 0) << k;
  return m;
}
int CRD_ISA_FN(crd_exn_accel_range)(int n0, int n1, const crd_exn_accel_args *g)
{
  const int32_t *eq = g->eq;
  const double *Fe = g->Fe, *Fi = g->Fi, *mlump = g->mlump, *plump = g->plump, s = g->s, *p = g->p;
  const double *w_pred = g->w_pred;
  const int *ln = g->ln;
  double *a = g->a, *wa = g->wa;
  for (int i = n0; i < n1;) {
    int n = 1, m0 = slot_mask(eq, i);
    if (i + W <= n1) {
      n = W;
      for (int j = 1; j < W; ++j)
        if (ln[i + j] != ln[i] || slot_mask(eq, i + j) != m0) { n = 1; break; }
    }
    int e5[5];
    for (int k = 0; k < 5; ++k) e5[k] = eq[5 * i + k]; /* the group's free slots (only their sign matters) */
    double t_fr[5][W], t_mi[W], t_P[W], t_p[3][W], t_w[3][W]; /* lane j = node i + j */
    for (int j = 0; j < W; ++j) {
      int nd = i + (j < n ? j : 0);
      for (int k = 0; k < 5; ++k) {
        int q = eq[5 * nd + k];
        t_fr[k][j] = q >= 0 ? Fe[q] - Fi[q] : 0.0;
      }
      t_mi[j] = mlump[nd];
      t_P[j] = s * plump[nd];
      for (int c = 0; c < 3; ++c) {
        t_p[c][j] = p[3 * nd + c];
        t_w[c][j] = w_pred[3 * nd + c];
      }
    }
    crd_lanes fr[5], mi = load(t_mi), P = load(t_P), pv[3], wp[3], av[3], wv[3];
    for (int k = 0; k < 5; ++k) fr[k] = load(t_fr[k]);
    for (int c = 0; c < 3; ++c) {
      pv[c] = load(t_p[c]);
      wp[c] = load(t_w[c]);
    }
    crd_exn_accel(e5, fr, mi, P, pv, ln[i], wp, av, wv);
    for (int j = 0; j < n; ++j)
      for (int c = 0; c < 3; ++c) {
        a[3 * (i + j) + c] = av[c].v[j];
        wa[3 * (i + j) + c] = wv[c].v[j];
      }
    i += n;
  }
  return 0;
}

/* CRDYN_ELEM_BATCH=0: element by element (A/B runs); read once */
static int batch_on(void)
{
  static int on = -1;
  if (on < 0) {
    const char *s = crd_switch("CRDYN_ELEM_BATCH");
    on = !(s && s[0] == '0');
  }
  return on;
}

/* The vector of base[off[j]], j = 0..W-1, built in registers: writing the
 * lanes one by one into a vector in memory and loading it whole stalls the
 * load (no store-to-load forwarding from W narrow stores to one wide
 * load), about a dozen cycles per vector, and the element bodies gather a
 * hundred vectors and more. */
static inline crd_lanes lanes_at(const double *base, const size_t *off)
{
#if CRD_LANES == 8
  return crd_lanes(crd_lanes_raw{base[off[0]], base[off[1]], base[off[2]], base[off[3]], base[off[4]], base[off[5]],
                                 base[off[6]], base[off[7]]});
#elif CRD_LANES == 4
  return crd_lanes(crd_lanes_raw{base[off[0]], base[off[1]], base[off[2]], base[off[3]]});
#else
  return crd_lanes(crd_lanes_raw{base[off[0]], base[off[1]]});
#endif
}

/* off[j] = stride es[j]: the offsets of the W elements' rows of a table */
static inline void lanes_off(const int *es, size_t stride, size_t *off)
{
  for (int j = 0; j < W; ++j) off[j] = stride * (size_t)es[j];
}

/* the W elements es' nodal vectors src (dim values per node, the first n
 * of them taken) at their corners, lane j = es[j]: dst[n a + c] */
static inline void gather_nodes(const int *quads, const int *es, const double *src, int dim, int n, crd_lanes *dst)
{
  for (int a = 0; a < 4; ++a) {
    size_t off[W];
    for (int j = 0; j < W; ++j) off[j] = (size_t)dim * (size_t)quads[4 * es[j] + a];
    for (int c = 0; c < n; ++c) dst[n * a + c] = lanes_at(src + c, off);
  }
}
static inline void gather3(const int *quads, const int *es, const double *src, crd_lanes *dst)
{
  gather_nodes(quads, es, src, 3, 3, dst);
}

static inline void mat_lanes(const double *mat, const int *es, double xi, crd_q4_mat *mt)
{
  size_t off[W];
  lanes_off(es, CRD_Q4_MAT_STRIDE, off);
  mt->E = lanes_at(mat, off);
  mt->nu = lanes_at(mat + 1, off);
  mt->h = lanes_at(mat + 2, off);
  mt->am = lanes_at(mat + 3, off);
  mt->xi = xi;
}

static inline crd_q4_mat_c mat_c(const double *mat, int e, double xi)
{
  const double *r = mat + (size_t)CRD_Q4_MAT_STRIDE * e;
  crd_q4_mat_c m = {r[0], r[1], r[2], xi, r[3]};
  return m;
}

/* Groups of W elements with the same pair choice l at each corner (l picks
 * code paths, so the lanes must share it): the elements of a block of at
 * most CRD_BATCH_BLOCK sorted by their corners' l (81 keys; stable, so each
 * key's elements stay in element order). */
#define CRD_BATCH_BLOCK 256
enum { NKEY = 81 }; /* keys 0..80; key NKEY: an l outside 0..2, never batched */
static inline int l_key(const int *quads, const int *ln, int e)
{
  const int *q = quads + 4 * e;
  int k = 0;
  for (int a = 3; a >= 0; --a) {
    int l = ln[q[a]];
    if (l < 0 || l > 2) return NKEY;
    k = 3 * k + l;
  }
  return k;
}
/* idx: the block's elements by key; start[k]..start[k+1]: key k (0..NKEY) */
static void sort_by_l(int e0, int e1, const int *quads, const int *ln, int *idx, int *start)
{
  int cnt[NKEY + 2] = {0};
  unsigned char key[CRD_BATCH_BLOCK];
  for (int e = e0; e < e1; ++e) {
    key[e - e0] = (unsigned char)l_key(quads, ln, e);
    cnt[key[e - e0] + 1]++;
  }
  for (int k = 0; k <= NKEY; ++k) cnt[k + 1] += cnt[k];
  for (int k = 0; k <= NKEY + 1; ++k) start[k] = cnt[k];
  for (int e = e0; e < e1; ++e) idx[cnt[key[e - e0]]++] = e;
}

/* crd_elem_static of the W elements es in lanes: 0 and the outputs
 * written, or -1 (nothing written: the caller evaluates them one by one) */
static int static_lanes(const int *es, const crd_elem_static_args &g)
{
  const int *quads = g.quads, *ln = g.ln, want_k = g.want_k;
  const double *x = g.x, *p0n = g.p0n, *dn = g.dn, *pn = g.pn, *mat = g.mat, *geo = g.geo;
  double *f = g.f, *k = g.k, *u = g.u;
  int l[4];
  for (int a = 0; a < 4; ++a) l[a] = ln[quads[4 * es[0] + a]];
  crd_lanes X0[12], d[12], p[12], KG[400], fe[20], md;
  gather3(quads, es, x, X0);
  gather3(quads, es, dn, d);
  gather3(quads, es, pn, p);
  crd_q4_mat mt;
  mat_lanes(mat, es, 0.0, &mt);
  crd_lanes_diverged = 0;
  /* crd_elem_static's body; the initial half of crd_q4_local_vars and
   * phi(r0) from geo when given (crd_elem_geo_build: the same numbers) */
  crd_cr_frame F;
  crd_lanes x0[12], xl0[12], ul[20], ph0[8], q[20], J[16], abc[12], fl[20], kl[400];
  if (geo) {
    size_t off[W];
    lanes_off(es, CRD_ELEM_GEO, off);
    for (int a = 0; a < 12; ++a) {
      x0[a] = lanes_at(geo + a, off);
      xl0[a] = lanes_at(geo + 12 + a, off);
    }
    for (int a = 0; a < 8; ++a) ph0[a] = lanes_at(geo + 24 + a, off);
  } else {
    crd_lanes p0[12], r0xy[8];
    gather3(quads, es, p0n, p0);
    crd_q4_local_vars_init(X0, p0, x0, xl0, r0xy);
    crd_q4_rot_ph0(r0xy, ph0);
  }
  crd_q4_local_vars_cur(x0, xl0, d, p, &F, ul);
  crd_q4_rot_map_ph0(ul, ph0, q, J, abc);
  crd_lanes ue = crd_q4_local(xl0, q, &mt, fl, want_k ? kl : 0, &md);
  crd_q4_rot_pullback(ul, J, abc, fl, want_k ? kl : 0);
  crd_q4_to_global(&F, X0, d, p, l, 0, fl, kl, fe, want_k ? KG : 0);
  int kind = crd_elem_static_kind(md, xl0, ul, ue);
  if (crd_lanes_diverged || kind) return -1;
  for (int j = 0; j < W; ++j) {
    int e = es[j];
    double *fo = f + 20 * (size_t)e;
    for (int a = 0; a < 20; ++a) fo[a] = fe[a].v[j];
    u[e] = ue.v[j];
    if (!want_k) continue;
    double *ko = k + 210 * (size_t)e;
    int t = 0;
    for (int a = 0; a < 20; ++a)
      for (int b = a; b < 20; ++b) ko[t++] = KG[20 * a + b].v[j];
  }
  return 0;
}

int CRD_ISA_FN(crd_elem_static_range)(int e0, int e1, const crd_elem_static_args *a, int *bad, long long *nbatched)
{
  const crd_elem_static_args g = *a; /* the arrays in locals for the loops */
  const int on = batch_on();
  int first = -1, fkind = 0, idx[CRD_BATCH_BLOCK], start[NKEY + 2];
  for (int b0 = e0; b0 < e1; b0 += CRD_BATCH_BLOCK) {
    int b1 = b0 + CRD_BATCH_BLOCK < e1 ? b0 + CRD_BATCH_BLOCK : e1;
    sort_by_l(b0, b1, g.quads, g.ln, idx, start);
    for (int key = 0; key <= NKEY; ++key) {
      for (int i = start[key], end = start[key + 1]; i < end;) {
        int n = 1; /* elements one by one: a tail, or a group that diverged or has a bad one */
        if (on && key < NKEY && i + W <= end) {
          if (static_lanes(idx + i, g) == 0) {
            *nbatched += W;
            i += W;
            continue;
          }
          n = W;
        }
        for (int j = 0; j < n; ++j, ++i) {
        int e = idx[i];
        crd_q4_mat_c mt = mat_c(g.mat, e, 0.0);
        int kind = CRD_ISA_FN(crd_elem_static)(e, &g, &mt, g.f + 20 * (size_t)e, g.k + 210 * (size_t)e, g.u + e);
        if (kind && (first < 0 || e < first)) {
          first = e;
          fkind = kind;
        }
        }
      }
    }
  }
  if (first >= 0) *bad = first;
  return fkind;
}

/* crd_elem_mid of W elements in lanes, as static_lanes */
static int mid_lanes(const int *es, const crd_elem_mid_args &g)
{
  const int *quads = g.quads, *ln = g.ln, want_k = g.want_k;
  const double *x = g.x, *p0n = g.p0n, *d0n = g.d0n, *pan = g.pan, *dbn = g.dbn, *pbn = g.pbn, *dfn = g.dfn;
  const double *pfn = g.pfn, *amn = g.amn, *wamn = g.wamn, *Bsn = g.Bsn, *Cn = g.Cn, *mat = g.mat;
  const double xi = g.xi, cf = g.cf, cm = g.cm;
  double *fgo = g.fgo, *fino = g.fino, *ko = g.ko, *Eo = g.Eo, *u = g.u;
  crd_elem_mid_in in;
  for (int a = 0; a < 4; ++a) in.l[a] = ln[quads[4 * es[0] + a]];
  /* crd_elem_mid_gather, lane by lane */
  gather3(quads, es, x, in.X0);
  gather3(quads, es, p0n, in.P0);
  gather3(quads, es, d0n, in.da);
  gather3(quads, es, pan, in.pa);
  gather3(quads, es, dbn, in.db);
  gather3(quads, es, pbn, in.pb);
  gather3(quads, es, dfn, in.df);
  gather3(quads, es, pfn, in.pf);
  gather3(quads, es, wamn, in.wam);
  gather_nodes(quads, es, amn, 5, 3, in.am); /* the translations of the 5 rates */
  gather_nodes(quads, es, Bsn, 6, 6, in.Bs);
  {
    size_t off[W];
    lanes_off(es, 16, off);
    for (int a = 0; a < 16; ++a) in.C[a] = lanes_at(Cn + a, off);
  }
  crd_q4_mat mt;
  mat_lanes(mat, es, xi, &mt);
  crd_lanes_diverged = 0;
  /* crd_elem_mid's body */
  crd_lanes KG[400], me[400], E[400], fG[20], fin[20], md, fg_o[20], fin_o[20], k_o[210];
  crd_lanes ue = crd_q4_global_mid(in.X0, in.P0, in.da, in.pa, in.db, in.pb, in.df, in.pf, in.l, in.Bs, cf, &mt,
                                   fG, want_k ? KG : 0, want_k ? E : 0, &md);
  crd_elem_mid_inertia(&in, &mt, fin, me);
  crd_elem_mid_pack(want_k, cm, cf, fG, fin, me, KG, fg_o, fin_o, k_o);
  int badl = (!(md > 0) || !isfinite(ue)) ? 1 : 0;
  if (crd_lanes_diverged || badl) return -1;
  for (int j = 0; j < W; ++j) {
    size_t e = (size_t)es[j];
    for (int a = 0; a < 20; ++a) {
      fgo[20 * e + a] = fg_o[a].v[j];
      fino[20 * e + a] = fin_o[a].v[j];
    }
    u[e] = ue.v[j];
    if (!want_k) continue;
    for (int a = 0; a < 210; ++a) ko[210 * e + a] = k_o[a].v[j];
    for (int a = 0; a < 400; ++a) Eo[400 * e + a] = E[a].v[j];
  }
  return 0;
}

int CRD_ISA_FN(crd_elem_mid_range)(int e0, int e1, const crd_elem_mid_args *a, int *bad, long long *nbatched)
{
  const crd_elem_mid_args g = *a; /* the arrays in locals for the loops */
  const int on = batch_on();
  int first = -1, idx[CRD_BATCH_BLOCK], start[NKEY + 2];
  for (int b0 = e0; b0 < e1; b0 += CRD_BATCH_BLOCK) {
    int b1 = b0 + CRD_BATCH_BLOCK < e1 ? b0 + CRD_BATCH_BLOCK : e1;
    sort_by_l(b0, b1, g.quads, g.ln, idx, start);
    for (int key = 0; key <= NKEY; ++key) {
      for (int i = start[key], end = start[key + 1]; i < end;) {
        int n = 1;
        if (on && key < NKEY && i + W <= end) {
          if (mid_lanes(idx + i, g) == 0) {
            *nbatched += W;
            i += W;
            continue;
          }
          n = W;
        }
        for (int j = 0; j < n; ++j, ++i) {
        int e = idx[i];
        crd_q4_mat_c mt = mat_c(g.mat, e, g.xi);
        size_t s = (size_t)e;
        int b = CRD_ISA_FN(crd_elem_mid)(e, &g, &mt, g.fgo + 20 * s, g.fino + 20 * s, g.ko + 210 * s,
                                         g.Eo + 400 * s, g.u + e);
        if (b && (first < 0 || e < first)) first = e;
        }
      }
    }
  }
  if (first < 0) return 0;
  *bad = first;
  return 1;
}
