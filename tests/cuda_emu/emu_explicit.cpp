/* crdyn tests: the kernels of src/kernels/explicit_loop.h, as
 * crd_cuda_explicit.cu launches them, run here without a GPU, under the
 * host emulation of cuda_runtime.h (built by tests/cli/cuda_emu.sh from the
 * real .cu, launch syntax rewritten; emu_runtime.cpp).  What it checks is
 * the kernels' own logic, part of which the OpenCL loop does not run: the
 * reductions (serial: the host's serial sums bit for bit; the
 * fixed-order tree: the same to round-off, repeatable, the first
 * non-finite node), the external work added every step, the skip of every
 * kernel after the failing step, and node2's flag of an element failure.
 * The per-node physics is explicit_node.h, checked against the host loop
 * through the OpenCL loop (t500) and on a GPU (t501). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cuda_runtime.h"
#include "crdyn/cuda_explicit.h"

/* ---- TAP ------------------------------------------------------------------ */
static int n_test = 0, n_fail = 0;
static void ok(int c, const char *msg)
{
  ++n_test;
  if (!c) ++n_fail;
  printf("%sok %d - %s\n", c ? "" : "not ", n_test, msg);
}

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

/* ---- the reductions ------------------------------------------------------- */
struct red_case {
  int nn, ne, nw, nload, k;
  std::vector<double> contrib, ue, d, dprev, w_a, w_b, facw, acc, part;
  std::vector<int> w_idx, w_load, status, part_bad;
  crd_cux_args a;
  red_case(int nn_, int ne_, int nw_, const std::vector<int> &bad)
      : nn(nn_), ne(ne_), nw(nw_), nload(2), k(3), contrib(8 * (size_t)nn_), ue(ne_), d(3 * (size_t)nn_),
        dprev(3 * (size_t)nn_), w_a(nw_), w_b(nw_), facw(6), acc(9), part(crd_cux_parts()), w_idx(nw_),
        w_load(nw_), status(4), part_bad(crd_cux_parts())
  {
    for (int i = 0; i < nn; ++i) {
      for (int c = 0; c < 7; ++c) contrib[8 * i + c] = (c == 0 ? 1.0 + urand() : urand()) * (1 + i % 7);
      for (int c = 0; c < 3; ++c) {
        d[3 * i + c] = urand();
        dprev[3 * i + c] = d[3 * i + c] + 1e-3 * urand();
      }
    }
    for (int b : bad) contrib[8 * b + 7] = 1.0;
    for (int e = 0; e < ne; ++e) ue[e] = 1.0 + urand();
    for (int q = 0; q < nw; ++q) {
      w_idx[q] = rand() % (3 * nn);
      w_load[q] = rand() % nload;
      w_a[q] = urand();
      w_b[q] = urand();
    }
    for (auto &f : facw) f = urand();
    memset(&a, 0, sizeof a);
    a.nn = nn; a.ne = ne; a.nw = nw; a.nload = nload;
    a.d = d.data(); a.dprev = dprev.data(); a.contrib = contrib.data(); a.ue = ue.data();
    a.w_idx = w_idx.data(); a.w_load = w_load.data(); a.w_a = w_a.data(); a.w_b = w_b.data(); a.facw = facw.data();
    a.acc = acc.data(); a.status = status.data(); a.part = part.data(); a.part_bad = part_bad.data();
  }
  void reset(double w0)
  {
    int s0[4] = {INT_MAX, INT_MAX, -1, 0};
    for (int q = 0; q < 4; ++q) status[q] = s0[q];
    for (int q = 0; q < 9; ++q) acc[q] = q ? 42.0 : w0;
  }
  /* the host's serial order: acc as crd_kx_reduce (explicit_loop.h) leaves it */
  void serial(int j, double w0, double *out, int *bad, double *scale) const
  {
    const double *fj = facw.data() + (size_t)j * nload;
    double W = 0.0, Wa = 0.0;
    for (int q = 0; q < nw; ++q) {
      double t = fj[w_load[q]] * w_a[q] * w_b[q] * (d[w_idx[q]] - dprev[w_idx[q]]);
      W += t;
      Wa += fabs(t);
    }
    out[0] = w0 + W;
    scale[0] = fabs(w0) + Wa;
    for (int c = 1; c < 9; ++c) out[c] = scale[c] = 0.0;
    *bad = -1;
    for (int i = 0; i < nn; ++i) {
      for (int c = 0; c < 7; ++c) {
        out[1 + c] += contrib[8 * i + c];
        scale[1 + c] += fabs(contrib[8 * i + c]);
      }
      if (*bad < 0 && contrib[8 * i + 7] != 0.0) *bad = i;
    }
    for (int e = 0; e < ne; ++e) {
      out[8] += ue[e];
      scale[8] += fabs(ue[e]);
    }
  }
};

static void reductions(int nn, int ne, int nw, const std::vector<int> &bad, const char *name)
{
  red_case rc(nn, ne, nw, bad);
  char msg[512];
  double ref[9], sc[9], w0 = 0.5;
  int rbad, j = 1;
  rc.serial(j, w0, ref, &rbad, sc);
  rc.reset(w0);
  crd_cux_reduce(NULL, &rc.a, j, 1, 1);
  int same = !memcmp(rc.acc.data(), ref, sizeof ref) && rc.status[2] == rbad;
  snprintf(msg, sizeof msg, "%s: serial sums are the host's serial sums, bit for bit (W %.6g, K %.6g), first "
           "non-finite node %d", name, rc.acc[0], rc.acc[1], rc.status[2]);
  ok(same, msg);
  rc.reset(w0);
  crd_cux_reduce(NULL, &rc.a, j, 1, 0);
  std::vector<double> t1(rc.acc);
  double worst = 0.0;
  for (int c = 0; c < 9; ++c) worst = fmax(worst, fabs(t1[c] - ref[c]) / fmax(sc[c], 1e-300));
  snprintf(msg, sizeof msg, "%s: tree sums equal the serial ones to %.1e of the sum of magnitudes (<= 1e-14), first "
           "non-finite node %d (serial %d)", name, worst, rc.status[2], rbad);
  ok(worst <= 1e-14 && rc.status[2] == rbad, msg);
  rc.reset(w0);
  crd_cux_reduce(NULL, &rc.a, j, 1, 0);
  snprintf(msg, sizeof msg, "%s: the tree sums repeat bit for bit", name);
  ok(!memcmp(t1.data(), rc.acc.data(), 9 * sizeof(double)), msg);
  for (int serial = 0; serial < 2; ++serial) {
    rc.reset(w0);
    crd_cux_reduce(NULL, &rc.a, j, 0, serial);
    int kept = 1;
    for (int c = 1; c < 9; ++c) kept = kept && rc.acc[c] == 42.0;
    snprintf(msg, sizeof msg, "%s, %s: a step that is not the call's last adds its work only (W %.6g, serial %.6g)",
             name, serial ? "serial" : "tree", rc.acc[0], ref[0]);
    ok(kept && fabs(rc.acc[0] - ref[0]) <= 1e-14 * sc[0] && rc.status[2] == -1, msg);
    rc.reset(w0);
    rc.status[0] = 0; /* an element failed at step 0: step 1 does nothing */
    crd_cux_reduce(NULL, &rc.a, j, 1, serial);
    kept = rc.acc[0] == w0 && rc.status[2] == -1;
    for (int c = 1; c < 9; ++c) kept = kept && rc.acc[c] == 42.0;
    snprintf(msg, sizeof msg, "%s, %s: after a failing step the reduction does nothing", name,
             serial ? "serial" : "tree");
    ok(kept, msg);
  }
}

/* ---- the node kernels: skip and failure flag --------------------------------- */
static void nodes(void)
{
  const int nn = 300, ne = 250, neq = 5 * nn, nload = 1;
  std::vector<int> eq(5 * nn), l(nn, 2), lptr(neq + 1, 0), lidx(1), l_load(1), status(4), first_bad(1, ne);
  std::vector<unsigned char> locked(nn, 0);
  std::vector<double> d(3 * nn), p(3 * nn), x(3 * nn), v(3 * nn), w(3 * nn), ac(3 * nn), wa(3 * nn), vh(3 * nn),
      wh(3 * nn), dprev(3 * nn), contrib(8 * nn), F(neq), mlump(nn, 1.0), plump(nn, 0.01), fac(8, 0.0), l_a(1),
      l_b(1);
  for (int i = 0; i < nn; ++i) {
    for (int k = 0; k < 5; ++k) eq[5 * i + k] = i % 11 == 0 ? -1 : 5 * i + k;
    double q[3] = {0.1 * urand(), 0.1 * urand(), 1.0};
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    for (int c = 0; c < 3; ++c) {
      p[3 * i + c] = q[c] / n;
      x[3 * i + c] = urand();
      d[3 * i + c] = 0.01 * urand();
      v[3 * i + c] = urand();
      w[3 * i + c] = 0.1 * urand();
      ac[3 * i + c] = urand();
      wa[3 * i + c] = 0.1 * urand();
    }
  }
  for (auto &f : F) f = urand();
  crd_cux_args a;
  memset(&a, 0, sizeof a);
  a.nn = nn; a.ne = ne; a.nload = nload; a.dt = 1e-3; a.s = 1.0;
  a.eq = eq.data(); a.locked = locked.data(); a.d = d.data(); a.p = p.data(); a.l = l.data(); a.x = x.data();
  a.mlump = mlump.data(); a.plump = plump.data(); a.v = v.data(); a.w = w.data(); a.a = ac.data(); a.wa = wa.data();
  a.vh = vh.data(); a.wh = wh.data(); a.dprev = dprev.data(); a.contrib = contrib.data(); a.F = F.data();
  a.lptr = lptr.data(); a.lidx = lidx.data(); a.l_load = l_load.data(); a.l_a = l_a.data(); a.l_b = l_b.data();
  a.fac = fac.data(); a.first_bad = first_bad.data(); a.status = status.data();
  int s0[4] = {INT_MAX, INT_MAX, -1, 0};
  memcpy(status.data(), s0, sizeof s0);
  std::vector<double> d0(d);
  crd_cux_node1(NULL, &a, 0);
  ok(d != d0, "node1 advances the free translations");
  std::vector<double> v0(v);
  crd_cux_node2(NULL, &a, 0);
  ok(v != v0 && status[0] == INT_MAX, "node2 updates the rates; no failure flagged while first_bad = ne");
  first_bad[0] = 17; /* the element kernel of step 3 found element 17 bad */
  for (auto &f : F) f += 1.0; /* new forces: a node2 that runs changes v */
  v0 = v;
  crd_cux_node2(NULL, &a, 3);
  ok(status[0] == 3 && status[1] == 17 && v != v0,
     "node2 flags the failure of step 3 (status 3, element 17) and still runs that step, as on OpenCL");
  first_bad[0] = 2; /* later steps: the same failure recomputed, or any other */
  for (auto &f : F) f += 1.0;
  for (auto &q : vh) q += 1.0; /* and new inputs for node1 */
  v0 = v;
  d0 = d;
  std::vector<int> l0(l);
  crd_cux_node1(NULL, &a, 4);
  crd_cux_node2(NULL, &a, 4);
  ok(status[0] == 3 && status[1] == 17 && v == v0 && d == d0 && l == l0,
     "after the failing step node1 and node2 do nothing and the first failure stays reported");
  a.npres = 1;
  std::vector<int> pidx(1, 5);
  std::vector<double> pres(5, 7.25);
  a.pres_idx = pidx.data();
  a.pres = pres.data();
  crd_cux_pres(NULL, &a, 4);
  ok(d[5] == d0[5], "after the failing step the prescribed motion is not applied");
  crd_cux_pres(NULL, &a, 3);
  ok(d[5] == 7.25, "at the failing step it is (the step's state is complete, as on OpenCL)");
}

int main(void)
{
  srand(3);
  reductions(1000, 900, 777, {812, 537}, "1000 nodes, 900 elements, 777 work entries");
  reductions(5, 4, 0, {}, "5 nodes (less than a block), no work entries");
  reductions(3000, 2900, 3, {2999}, "3000 nodes (more than the grid's threads)");
  nodes();
  printf("1..%d\n", n_test);
  return n_fail != 0;
}
