/* crdyn tests: the element kernels of src/kernels/crd_cuda.cu, the split
 * layout above all, under the host emulation (cuda_runtime.h,
 * emu_runtime.cpp), and the emulation's own power to fail.  Built by
 * tests/cli/cuda_emu.sh from the emulation build of crd_cuda.cu.
 *
 *  1. Parity: the element kernels of the three layouts (split: 64 threads
 *     sharing an element through __shared__ memory, barriers between the
 *     phases; thread0; thread), launched through crd_cu_static / crd_cu_mid
 *     with their real block sizes, give the serial bodies' bits
 *     (crd_elem_static, crd_elem_mid) in the forward, reverse and random
 *     thread orders; the block sums (crd_cu_sum) repeat in every order.
 *  2. A missing barrier: every barrier those kernels meet is dropped in turn
 *     (emu_drop_sync: the kernel as if that __syncthreads / CRD_SYNC line
 *     were deleted) and the results must change in some order (a race made
 *     visible: a thread reads what another has not written yet, or has
 *     overwritten).  A barrier whose removal changes nothing in any order
 *     orders nothing that the kernel reads and is listed as such.
 *  3. Reads of shared memory no thread wrote: a kernel made of the split
 *     phase functions whose thread 0 forgets ws->xl0 gives NaN, not a
 *     plausible number (shared memory is NaN at every block's start).
 *  4. Small kernels with exactly (a) a missing barrier between a phase
 *     that writes shared memory and one that reads it, (b) a read of shared
 *     memory no thread wrote, (c) a barrier in divergent code, and their
 *     correct twins.
 * The random order's seed: CRDYN_CUDA_EMU_SEED (printed). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "crdyn/cuda_kernels.h"
#include "crdyn/elem_split.h"

static int n_test = 0, n_fail = 0;
static void ok(int c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int c, const char *fmt, ...)
{
  va_list ap;
  ++n_test;
  n_fail += !c;
  printf("%sok %d - ", c ? "" : "not ", n_test);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

static unsigned long long seed;
static void set_order(int o) { emu_set_order((emu_order)o, o == EMU_RANDOM ? seed : 0); }
static const char *order_name(int o) { return o == EMU_FORWARD ? "forward" : o == EMU_REVERSE ? "reverse" : "random"; }

/* ---- the elements (as t206-elem-split.c: warped, tumbled, moving) -------------- */
#define NX 4
#define NY 3
#define NN ((NX + 1) * (NY + 1))
#define NE (NX * NY)

static double rnd(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 - 0.5;
}

static void normal(double a, double b, double *p)
{
  double n = sqrt(1 + a * a + b * b);
  p[0] = a / n;
  p[1] = b / n;
  p[2] = 1 / n;
}

struct mesh {
  int quads[4 * NE], ln[NN];
  double x[3 * NN], p0[3 * NN], d0[3 * NN], pa[3 * NN], db[3 * NN], pb[3 * NN], df[3 * NN], pf[3 * NN];
  double am[5 * NN], wam[3 * NN], Bs[6 * NN], C[16 * NE], mat[CRD_Q4_MAT_STRIDE * NE];
  mesh()
  {
    unsigned sd = 11;
    for (int j = 0, e = 0; j < NY; ++j)
      for (int i = 0; i < NX; ++i, ++e) {
        int n0 = j * (NX + 1) + i;
        int q[4] = {n0, n0 + 1, n0 + NX + 2, n0 + NX + 1};
        memcpy(quads + 4 * e, q, sizeof q);
      }
    for (int i = 0; i < NN; ++i) {
      x[3 * i] = (i % (NX + 1)) * 0.5 + 0.05 * rnd(&sd);
      x[3 * i + 1] = (i / (NX + 1)) * 0.4 + 0.05 * rnd(&sd);
      x[3 * i + 2] = 0.03 * rnd(&sd);
      normal(0.05 * rnd(&sd), 0.05 * rnd(&sd), p0 + 3 * i);
      normal(0.2 * rnd(&sd), 0.2 * rnd(&sd), pa + 3 * i);
      normal(0.3 * rnd(&sd), 0.3 * rnd(&sd), pb + 3 * i);
      ln[i] = 2;
      for (int c = 0; c < 3; ++c) {
        d0[3 * i + c] = 0.02 * rnd(&sd);
        db[3 * i + c] = d0[3 * i + c] + 0.01 * rnd(&sd);
        df[3 * i + c] = 0.5 * (d0[3 * i + c] + db[3 * i + c]);
        pf[3 * i + c] = 0.5 * (pa[3 * i + c] + pb[3 * i + c]);
        wam[3 * i + c] = rnd(&sd);
      }
      for (int c = 0; c < 5; ++c) am[5 * i + c] = rnd(&sd);
      for (int c = 0; c < 6; ++c) Bs[6 * i + c] = rnd(&sd);
    }
    for (int a = 0; a < 16 * NE; ++a) C[a] = 0.01 * (1.0 + 0.5 * rnd(&sd));
    for (int e = 0; e < NE; ++e) {
      mat[CRD_Q4_MAT_STRIDE * e] = 2.1e5 * (1 + 0.1 * e);
      mat[CRD_Q4_MAT_STRIDE * e + 1] = 0.3;
      mat[CRD_Q4_MAT_STRIDE * e + 2] = 0.01;
      mat[CRD_Q4_MAT_STRIDE * e + 3] = 1.0;
    }
  }
};
static mesh M;

/* The outputs of one evaluation, all in one vector (ints as doubles). */
typedef std::vector<double> outv;
enum { V_STATIC_F, V_STATIC_K, V_MID_F05, V_MID_K05, V_MID_F06, V_MID_K06, NV };
static const char *vname[NV] = {"static force", "static tangent", "midpoint force (cf 1/2)",
                                "midpoint K_eff and E (cf 1/2, the energy correction's derivative)",
                                "midpoint force (cf 0.6)", "midpoint K_eff and E (cf 0.6)"};
static const double XI = 0.05, CM = 1.7e3;

static void nan_fill(std::vector<double> &v)
{
  for (auto &a : v) a = nan("");
}

/* the serial bodies on the host (elem_eval.h): the reference bits */
static outv serial_eval(int v)
{
  outv o;
  int want_k = v & 1;
  for (int e = 0; e < NE; ++e) {
    crd_q4_mat mt = crd_q4_mat_at(M.mat, e, v < V_MID_F05 ? 0.0 : XI);
    if (v < V_MID_F05) {
      double f[20], k[210] = {0}, u;
      int r = crd_elem_static(e, M.quads, M.x, M.p0, M.db, M.pb, M.ln, &mt, want_k, f, k, &u);
      o.insert(o.end(), f, f + 20);
      if (want_k) o.insert(o.end(), k, k + 210);
      o.push_back(u);
      o.push_back(r);
    } else {
      double cf = v < V_MID_F06 ? 0.5 : 0.6, fg[20], fi[20], k[210] = {0}, E[400] = {0}, u;
      int r = crd_elem_mid(e, M.quads, M.x, M.p0, M.d0, M.pa, M.db, M.pb, M.df, M.pf, M.am, M.wam, M.Bs, M.ln, M.C,
                           &mt, cf, CM, want_k, fg, fi, k, E, &u);
      o.insert(o.end(), fg, fg + 20);
      o.insert(o.end(), fi, fi + 20);
      if (want_k) {
        o.insert(o.end(), k, k + 210);
        o.insert(o.end(), E, E + 400);
      }
      o.push_back(u);
      o.push_back(r);
    }
  }
  return o;
}

/* the kernels through the backend's launchers, layout lay (CRD_CU_LAYOUT_*) */
static outv kernel_eval(int v, int lay)
{
  int want_k = v & 1;
  std::vector<double> f(20 * NE), fi(20 * NE), k(210 * NE), E(400 * NE), u(NE);
  std::vector<int> kind(NE, -7), first_bad(1, NE);
  nan_fill(f), nan_fill(fi), nan_fill(k), nan_fill(E), nan_fill(u);
  if (v < V_MID_F05) {
    crd_cu_static_args a;
    memset(&a, 0, sizeof a);
    a.ne = NE, a.want_k = want_k, a.quads = M.quads, a.l = M.ln, a.x = M.x, a.p0 = M.p0, a.d = M.db, a.p = M.pb;
    a.mat = M.mat, a.fe = f.data(), a.ke = k.data(), a.ue = u.data(), a.kind = kind.data();
    a.first_bad = first_bad.data(), a.per_thread = lay;
    crd_cu_static(0, &a);
  } else {
    crd_cu_mid_args a;
    memset(&a, 0, sizeof a);
    a.ne = NE, a.want_k = want_k, a.quads = M.quads, a.l = M.ln, a.x = M.x, a.p0 = M.p0, a.d0 = M.d0, a.pa = M.pa;
    a.d = M.db, a.p = M.pb, a.df = M.df, a.pf = M.pf, a.am = M.am, a.wam = M.wam, a.Bs = M.Bs, a.C = M.C;
    a.mat = M.mat, a.cf = v < V_MID_F06 ? 0.5 : 0.6, a.cm = CM, a.xi = XI, a.fg = f.data(), a.fin = fi.data();
    a.ke = k.data(), a.E = E.data(), a.ue = u.data(), a.kind = kind.data(), a.first_bad = first_bad.data();
    a.per_thread = lay;
    crd_cu_mid(0, &a);
  }
  outv o;
  for (int e = 0; e < NE; ++e) {
    o.insert(o.end(), f.begin() + 20 * e, f.begin() + 20 * e + 20);
    if (v >= V_MID_F05) o.insert(o.end(), fi.begin() + 20 * e, fi.begin() + 20 * e + 20);
    if (want_k) o.insert(o.end(), k.begin() + 210 * e, k.begin() + 210 * e + 210);
    if (want_k && v >= V_MID_F05) o.insert(o.end(), E.begin() + 400 * e, E.begin() + 400 * e + 400);
    o.push_back(u[e]);
    o.push_back(kind[e]);
  }
  return o;
}

/* the block sums (two launches of 256 x 256 threads, tree order) */
static std::vector<double> sum_in;
static outv sum_eval(void)
{
  std::vector<double> part(crd_cu_sum_parts()), out(1);
  nan_fill(part), nan_fill(out);
  crd_cu_sum(0, (long long)sum_in.size(), sum_in.data(), 0, 1, part.data(), out.data());
  outv o(part);
  o.push_back(out[0]);
  return o;
}

/* entries that differ bitwise, and of those the non-finite ones */
static int ndiff(const outv &a, const outv &b, int *nonfinite)
{
  int n = 0;
  *nonfinite = 0;
  if (a.size() != b.size()) return -1;
  for (size_t i = 0; i < a.size(); ++i)
    if (memcmp(&a[i], &b[i], sizeof(double))) {
      ++n;
      *nonfinite += !isfinite(b[i]);
    }
  return n;
}

static const char *lay_name(int lay)
{
  return lay == CRD_CU_LAYOUT_SPLIT ? "split" : lay == CRD_CU_LAYOUT_THREAD ? "thread" : "thread0";
}

/* ---- 3: the split phases with a forgotten write ------------------------------------- */
/* phases 1-3 of crd_elem_static_split (elem_split.h): thread 0 gathers the
 * element and fills ws->pre and (unless skip) ws->xl0; all threads then the
 * Gauss points and the entries of k_q and f_q; out: k_q, f_q */
__global__ void emu_t_phases(int skip, double *out)
{
  __shared__ crd_elem_ws ws;
  const int e = (int)blockIdx.x;
  crd_q4_mat mt = crd_q4_mat_at(M.mat, e, 0.0);
  if (CRD_TID == 0) {
    double X0[12], p0[12], d[12], p[12], xl0[12], ul[20], r0xy[8], q[20], J[16], abc[12];
    int l[4];
    crd_cr_frame F;
    crd_elem_static_gather(e, M.quads, M.x, M.p0, M.db, M.pb, M.ln, X0, p0, d, p, l);
    crd_q4_local_vars(X0, d, p0, p, &F, xl0, ul, r0xy);
    crd_q4_rot_map(ul, r0xy, q, J, abc);
    crd_q4_avg_pre pr;
    crd_q4_avg_prepare(xl0, q, q, 1.0, &mt, &pr);
    ws.pre = pr;
    if (!skip)
      for (int a = 0; a < 12; ++a) ws.xl0[a] = xl0[a];
  }
  CRD_SYNC();
  crd_split_local_avg(&ws, 1, 0);
  CRD_FOREACH_THREAD(t, 420) out[420 * e + t] = t < 400 ? ws.k[t] : ws.f[t - 400];
}

/* ---- 4: small kernels ------------------------------------------------------------------ */
#define TB 48
/* out[b][t] = s[(t + 1) % n] after every thread t wrote s[t] = 1 + t + 100 b;
 * mode 1: without the barrier between the write and the read (a);
 * mode 2: with it, but adding s[n], which no thread writes (b) */
__global__ void emu_t_shift(int mode, double *out)
{
  __shared__ double s[TB + 1];
  const int t = (int)threadIdx.x, n = (int)blockDim.x, b = (int)blockIdx.x;
  s[t] = 1.0 + t + 100.0 * b;
  if (mode != 1) __syncthreads();
  out[b * n + t] = s[(t + 1) % n] + (mode == 2 ? s[n] : 0.0);
}

/* (c) mode 1: a barrier only half the threads meet; mode 2: two barriers in
 * the branches of a divergent if; mode 0: the barrier for all */
__global__ void emu_t_diverge(int mode, double *out)
{
  __shared__ double s[TB];
  const int t = (int)threadIdx.x;
  s[t] = t;
  if (mode == 1) {
    if (t < TB / 2) __syncthreads();
  } else if (mode == 2) {
    if (t % 2) __syncthreads();
    else __syncthreads();
  } else {
    __syncthreads();
  }
  out[t] = s[TB - 1 - t];
}

static void small_kernels(void)
{
  const int nb = 3;
  std::vector<double> out(nb * TB);
  for (int o = 0; o < 3; ++o) {
    set_order(o);
    for (int mode = 0; mode < 3; ++mode) {
      nan_fill(out);
      emu_launch(nb, TB, [&] { emu_t_shift(mode, out.data()); });
      int right = 0, nonfinite = 0;
      for (int b = 0; b < nb; ++b)
        for (int t = 0; t < TB; ++t) {
          right += out[b * TB + t] == 1.0 + (t + 1) % TB + 100.0 * b;
          nonfinite += !isfinite(out[b * TB + t]);
        }
      if (mode == 0)
        ok(right == nb * TB, "small kernel, %s order: write shared, barrier, read a neighbour's entry: %d of %d right",
           order_name(o), right, nb * TB);
      else if (mode == 1)
        ok(right < nb * TB && nonfinite > 0,
           "small kernel without the barrier between the write and the read, %s order: caught, %d of %d entries "
           "wrong (%d NaN: read before the neighbour wrote)", order_name(o), nb * TB - right, nb * TB, nonfinite);
      else
        ok(nonfinite == nb * TB, "small kernel reading a __shared__ entry no thread wrote, %s order: caught, %d of "
           "%d entries NaN", order_name(o), nonfinite, nb * TB);
    }
  }
  emu_fault_count_mode(1);
  for (int mode = 0; mode < 3; ++mode) {
    int f0 = emu_faults();
    set_order(EMU_FORWARD);
    emu_launch(2, TB, [&] { emu_t_diverge(mode, out.data()); });
    int nf = emu_faults() - f0;
    if (mode == 0) ok(nf == 0, "a barrier that every thread meets: no fault");
    else
      ok(nf > 0, "a barrier in divergent code (%s): caught, %d faults (message above on stderr)",
         mode == 1 ? "met by half the block, the others return" : "different barriers in the two branches", nf);
  }
  emu_fault_count_mode(0);
}

int main(void)
{
  const char *s = getenv("CRDYN_CUDA_EMU_SEED");
  seed = s && *s ? strtoull(s, 0, 10) : 12345;
  printf("# random thread order: seed %llu\n", seed);
  for (int i = 0; i < 50000; ++i) sum_in.push_back(sin(0.37 * i) * (1 + i % 13));

  /* 1. parity */
  std::vector<outv> ref(NV);
  for (int v = 0; v < NV; ++v) ref[v] = serial_eval(v);
  int bad = 0; /* the element codes: the last entry of each element's outputs */
  for (int e = 0; e < NE; ++e)
    bad += (ref[V_STATIC_K][(20 + 210 + 2) * e + 231] != 0.0) + (ref[V_MID_K05][(20 + 20 + 210 + 400 + 2) * e + 651] != 0.0);
  ok(bad == 0, "the %d test elements are sound (no element code)", NE);
  outv sref;
  for (int o = 0; o < 3; ++o) {
    set_order(o);
    for (int lay = 0; lay < 3; ++lay) {
      int worst = 0, wv = 0, nf = 0;
      for (int v = 0; v < NV; ++v) {
        int n = ndiff(ref[v], kernel_eval(v, lay), &nf);
        if (n != 0 && worst == 0) worst = n, wv = v;
      }
      ok(worst == 0, "%s layout, %s order: static (force, tangent) and midpoint (cf 1/2 and 0.6, force, K_eff and E) "
         "element values bitwise the serial bodies' on %d elements%s%s", lay_name(lay), order_name(o), NE,
         worst ? "; differs: " : "", worst ? vname[wv] : "");
    }
    outv so = sum_eval();
    if (o == 0) sref = so;
    int nf, n = ndiff(sref, so, &nf);
    ok(n == 0 && isfinite(so.back()), "block sums (crd_cu_sum, 256 x 256 threads), %s order: %.17g, the same bits as "
       "forward", order_name(o), so.back());
  }

  /* 2. every barrier dropped in turn */
  emu_sites_clear();
  set_order(EMU_FORWARD);
  for (int lay = 0; lay < 3; ++lay)
    for (int v = 0; v < NV; ++v) kernel_eval(v, lay);
  sum_eval();
  emu_site sites[64];
  int ns = emu_sites(sites, 64), caught = 0;
  ok(ns >= 10, "the element kernels and the block sums meet %d barrier lines", ns);
  std::vector<std::string> quiet;
  for (int i = 0; i < ns; ++i) {
    const char *file = strstr(sites[i].file, "include/") ? strstr(sites[i].file, "include/") : sites[i].file;
    emu_drop_sync(sites[i].file, sites[i].line);
    std::string where;
    int total = 0, nonf = 0;
    for (int o = 0; o < 3; ++o) {
      set_order(o);
      int no = 0, nfo = 0;
      for (int lay = 0; lay < 3; ++lay)
        for (int v = 0; v < NV; ++v) {
          int nf, n = ndiff(ref[v], kernel_eval(v, lay), &nf);
          no += n, nfo += nf;
        }
      int nf, n = ndiff(sref, sum_eval(), &nf);
      no += n, nfo += nf;
      if (no) {
        char b[128];
        snprintf(b, sizeof b, "%s%s: %d entries differ (%d not finite)", where.empty() ? "" : "; ", order_name(o), no,
                 nfo);
        where += b;
      }
      total += no, nonf += nfo;
    }
    emu_drop_sync(0, 0);
    if (total) {
      ++caught;
      ok(1, "without the barrier at %s:%d (met %lld times): caught, %s", file, sites[i].line, sites[i].hits,
         where.c_str());
    } else {
      char b[256];
      snprintf(b, sizeof b, "%s:%d", file, sites[i].line);
      quiet.push_back(b);
      printf("# without the barrier at %s:%d the results are the same bits in every order: it orders nothing "
             "these kernels read (a redundant barrier, or one that guards against a later change)\n",
             file, sites[i].line);
    }
  }
  std::string q;
  for (auto &x : quiet) q += (q.empty() ? "; no effect: " : ", ") + x;
  ok(caught >= ns - 2, "%d of the %d barrier lines are needed and their removal is caught%s", caught, ns, q.c_str());

  /* 3. the split phases with a forgotten write */
  std::vector<double> out0(420 * NE), out1(420 * NE);
  for (int o = 0; o < 3; ++o) {
    set_order(o);
    nan_fill(out0), nan_fill(out1);
    emu_launch(NE, 64, [&] { emu_t_phases(0, out0.data()); });
    emu_launch(NE, 64, [&] { emu_t_phases(1, out1.data()); });
    int fin0 = 0, nonf1 = 0;
    for (int i = 0; i < 420 * NE; ++i) fin0 += isfinite(out0[i]), nonf1 += !isfinite(out1[i]);
    ok(fin0 == 420 * NE && nonf1 == 420 * NE,
       "split phases 1-3 (crd_split_local_avg), %s order: with ws->xl0 written all %d entries of k_q and f_q "
       "finite; with thread 0 forgetting it (a read of __shared__ memory no thread wrote) caught: %d of %d NaN",
       order_name(o), fin0, nonf1, 420 * NE);
  }

  /* 4. small kernels */
  small_kernels();
  printf("1..%d\n", n_test);
  return n_fail != 0;
}
