#!/bin/sh
# Per-phase times of the OpenCL backend (PoCL: OpenCL on this machine's CPU)
# against the CPU backend on a ladder of clamped square plates under a
# pressure ramp (implicit, 5 steps): elements + assembly (for OpenCL this
# includes the host<->device copies), factorize, solve, from summary.json.
# Then the explicit loop on the same ladder (gravity ramp, rotational mass
# scaling 100, about 210 steps of the stable step): the CPU backend, the
# OpenCL backend with the host loop (CRDYN_EXPLICIT_HOST=1: elements on the
# device, state copied every step) and with the device-resident loop;
# and with the measures of the recorded steps summed by CLBlast
# (CRDYN_OPENCL_CLBLAST=1; its first call builds CLBlast's kernels, which
# is counted: that is what a run pays); the step-loop time is
# summary.json timing.explicit_step (no output).  CLBlast's own ops on the
# same sizes: profiling/clblast_explicit.sh.
# OPENCL_SPLITS="0 8 32 64" adds implicit OpenCL runs with those element
# kernel variants (CRDYN_OPENCL_SPLIT: work-items per element, 0 serial;
# the plain "opencl" row is the device's default).
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
  for v in cpu opencl $(for sp in $OPENCL_SPLITS; do echo "opencl:$sp"; done); do
    be=${v%%:*}; sp=${v#*:}; [ "$sp" = "$v" ] && sp=
    label=$be; [ -n "$sp" ] && label="$be split $sp"
    CRDYN_OPENCL_SPLIT=$sp timeout 300 "$CRDYN" run "$tmp/p$n.json" --out "$tmp/o$n$be$sp" --quiet --backend $be --threads 2 \
      >/dev/null 2>"$tmp/err" || { echo "| ${n}x$n | $label | failed: $(head -c 200 "$tmp/err") |"; continue; }
    python3 - "$tmp/o$n$be$sp/summary.json" "$n" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n, be = sys.argv[2], sys.argv[3]
t = s.get("time_s", {}); c = s.get("counts", {})
g = lambda k: "%.3f" % t[k] if k in t else "?"
print(f"| {n}x{n} | {be} | {g('wall')} | {g('element_eval_and_assembly')} | {g('factorize')} | {g('solve')} "
      f"| {c.get('steps', '?')} | {c.get('newton_iterations', '?')} |")
PY
  done
done
echo
echo "| mesh | backend | explicit loop | wall s | step loop s | steps | ms/step |"
echo "|---|---|---|---|---|---|---|"
for n in ${*:-16 32 64}; do
  cat >"$tmp/e$n.json" <<J
{"format": 1, "title": "plate ladder $n x $n, explicit",
 "mesh": {"generate": {"type": "rectangle", "lx": 1, "ly": 1, "nx": $n, "ny": $n}},
 "sections": [{"elements": "all", "E": 1.0e7, "nu": 0.3, "rho": 1.0, "thickness": 0.01}],
 "supports": [{"set": "x0", "fix": "all"}],
 "loads": [{"gravity": [0, 0, -10], "amplitude": [[0, 0], [0.01, 1]]}],
 "analysis": {"type": "dynamic", "stages": [{"integrator": "explicit", "t_end": $(python3 -c "print(0.05 / $n)"),
   "dt": "auto", "mass_scaling": 100}]},
 "output": {"history_every": 10}}
J
  for v in cpu:host opencl:host opencl:resident opencl:resident+clblast; do
    be=${v%%:*}; loop=${v#*:}
    h=0; [ "$loop" = host ] && h=1
    cb=0; [ "$loop" = resident+clblast ] && cb=1
    CRDYN_OPENCL_CLBLAST=$cb CRDYN_EXPLICIT_HOST=$h timeout 300 "$CRDYN" run "$tmp/e$n.json" --out "$tmp/x$n$be$loop" --quiet --timing \
      --backend $be --threads 2 >/dev/null 2>"$tmp/err" \
      || { echo "| ${n}x$n | $be | $loop | failed: $(head -c 200 "$tmp/err") |"; continue; }
    python3 - "$tmp/x$n$be$loop/summary.json" "$n" "$be" "$loop" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); n, be, loop = sys.argv[2:5]
x = s["timing"]["explicit_step"]
print(f"| {n}x{n} | {be} | {loop} | {s['time_s']['wall']:.3f} | {x['seconds']:.3f} | {int(x['count'])} "
      f"| {1e3 * x['seconds'] / max(x['count'], 1):.2f} |")
PY
  done
done
