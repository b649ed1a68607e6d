#!/bin/sh
# Element results in the VTU frames: stress resultants of the cantilever
# strip under an end moment (M/b, zero shear and membrane force), energy
# density against the history, nodal velocities in dynamics, well-formed
# frames.  $CRDYN: the binary (exported by tests/run.sh).
CRDYN=${CRDYN:-./build/crdyn}
command -v python3 >/dev/null 2>&1 || { echo "not ok 1 - python3 not found"; echo "1..1"; exit 1; }
exec python3 tests/results/checks.py "$CRDYN"
