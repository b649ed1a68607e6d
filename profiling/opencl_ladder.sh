#!/bin/sh
# Per-phase times of the OpenCL backend (PoCL: OpenCL on this machine's CPU)
# against the CPU backend on a ladder of clamped square plates under a
# pressure ramp (implicit, 5 steps): elements + assembly (for OpenCL this
# includes the host<->device copies), factorize, solve, from summary.json.
# Kept apart from `make bench`.  Usage: sh profiling/opencl_ladder.sh [N...]
CRDYN=${CRDYN:-./build/crdyn}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "| mesh | backend | wall s | elements+assembly s | factorize s | solve s | steps | Newton |"
echo "|---|---|---|---|---|---|---|---|"
for n in ${*:-16 32 64}; do
  cat >"$tmp/p$n.json" <<J
{"format": 1, "title": "plate ladder $n x $n",
 "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": $n, "ny": $n}},
 "sections": [{"elements": "all", "E": 1.0e7, "nu": 0.3, "rho": 1.0, "thickness": 0.01}],
 "supports": [{"set": "x0", "fix": "all"}],
 "loads": [{"elements": "all", "pressure": 1.0, "amplitude": [[0, 0], [0.01, 1]]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "implicit", "t_end": 0.005, "dt": 0.001}]},
 "output": {"history_every": 1}}
J
  for be in cpu opencl; do
    timeout 300 "$CRDYN" run "$tmp/p$n.json" --out "$tmp/o$n$be" --quiet --backend $be --threads 2 >/dev/null 2>"$tmp/err" \
      || { echo "| ${n}x$n | $be | failed: $(head -c 200 "$tmp/err") |"; continue; }
    python3 - "$tmp/o$n$be/summary.json" "$n" "$be" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n, be = sys.argv[2], sys.argv[3]
t = s.get("time_s", {}); c = s.get("counts", {})
g = lambda k: "%.3f" % t[k] if k in t else "?"
print(f"| {n}x{n} | {be} | {g('wall')} | {g('element_eval_and_assembly')} | {g('factorize')} | {g('solve')} "
      f"| {c.get('steps', '?')} | {c.get('newton_iterations', '?')} |")
PY
  done
done
