#!/bin/sh
# include/crdyn/fold_node.h (intersection nodes) stays in the shared subset
# that the CPU, CUDA and OpenCL compile (docs/architecture.md §4): a kernel
# calling its entry points compiles as C99 with -Wall -Wextra -Werror, under
# nvcc as CUDA (device code), and under clang as OpenCL C 1.2.  nvcc or
# clang missing: those checks are skipped.  A planted use of a VLA must be
# refused by the C99 check run with -Werror=vla, so the check can fail.
# POSIX sh, TAP, run from the repository root.
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-fold.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip()   { n=$((n + 1)); echo "ok $n # SKIP $*"; }

# body: a kernel body over private copies of its input Eg, writing out
body() {
  cat <<EOF
  double E[36], X0[12], p0[12], d[12];
  for (int a = 0; a < 36; ++a) E[a] = Eg[a];
  for (int a = 0; a < 12; ++a) { X0[a] = Eg[a]; p0[a] = Eg[12 + a]; d[a] = 0.0; }
  crd_fold_node nd[4];
  for (int i = 0; i < 4; ++i) {
    double c[3] = {0.0, 0.0, 1.0};
    crd_fold_node_triad(nd + i, E + 9 * i, crd_triad_choose(E + 9 * i), c);
  }
  double f[24], K[576], md, th[3], thd[3], thdd[3], A2[3], z[3] = {0.0, 0.0, 0.0}, C[16], m[576], fm[24];
  crd_q4_mat mt; mt.E = 1.0; mt.nu = 0.3; mt.h = 0.1; mt.xi = 0.0; mt.am = 1.0;
  out[0] = crd_fold_elem(X0, p0, d, nd, &mt, f, K, &md);
  crd_triad_switch(E, nd[0].ch, crd_triad_chart_at(E, 0, 1), z, z, th, thd, thdd);
  crd_triad_A2(E, nd[0].ch, nd[0].p, thd, A2);
  crd_q4_mass_coef(X0, 1.0, 0.1, C);
  for (int a = 0; a < 24; ++a) fm[a] = 0.0;
  crd_fold_mass(C, 0.1, nd, f, 1.0, 1.0, 0, fm);
  (void)m;
  out[1] = f[0] + K[1] + thdd[0] + A2[0] + fm[3];
EOF
}

{ echo '#include "crdyn/fold_node.h"'
  echo 'void k_fold(const double *Eg, double *out) {'; body; echo '}'; } >"$T/c99.c"
if gcc -std=c99 -Wall -Wextra -Werror -Werror=vla -Iinclude -c "$T/c99.c" -o "$T/c99.o" 2>"$T/c99.log"; then
  ok "fold_node.h compiles as C99, -Wall -Wextra -Werror"
else
  not_ok "fold_node.h as C99"; sed 's/^/# /' "$T/c99.log" | head -20
fi
{ echo '#include "crdyn/fold_node.h"'; echo 'void bad(int n) { double v[n]; v[0] = 0; (void)v; }'; } >"$T/vla.c"
gcc -std=c99 -Werror=vla -Iinclude -c "$T/vla.c" -o "$T/vla.o" 2>/dev/null \
  && not_ok "planted VLA passed the C99 check" || ok "a planted VLA is refused by the same check"

if command -v nvcc >/dev/null 2>&1; then
  { echo '#include "crdyn/fold_node.h"'
    echo '__global__ void k_fold(const double *Eg, double *out) {'; body; echo '}'; } >"$T/dev.cu"
  if nvcc -x cu -Iinclude -c "$T/dev.cu" -o "$T/dev.o" >"$T/nv.log" 2>&1 && ! grep -qi warning "$T/nv.log"; then
    ok "fold_node.h compiles as CUDA device code (nvcc -x cu), no warnings"
  else
    not_ok "fold_node.h under nvcc"; sed 's/^/# /' "$T/nv.log" | head -20
  fi
else
  skip "nvcc not found"
fi

if command -v clang >/dev/null 2>&1; then
  { echo '#include "crdyn/fold_node.h"'
    echo '__kernel void k_fold(__global const double *Eg, __global double *out) {'; body; echo '}'; } >"$T/dev.cl"
  if clang -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only -Iinclude "$T/dev.cl" >"$T/cl.log" 2>&1; then
    ok "fold_node.h compiles as OpenCL C 1.2 (clang -x cl)"
  else
    not_ok "fold_node.h as OpenCL C"; sed 's/^/# /' "$T/cl.log" | head -20
  fi
else
  skip "clang not found"
fi
echo "1..$n"
