#!/bin/sh
# Install the peers that `make bench-peers` runs beside crdyn.  crdyn itself
# does not depend on them and none of their code is kept in this tree.
#   CalculiX ccx (Debian calculix-ccx): S4 implicit / S4R explicit, NLGEOM
#   OpenSees (PyPI openseespy), only if its wheel runs here
# Run as root (apt-get) or with sudo; openseespy goes into profiling/peers/venv.
set -u
if ! command -v ccx >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends calculix-ccx
  else
    sudo apt-get install -y calculix-ccx
  fi
fi
command -v ccx >/dev/null 2>&1 && echo "peers: ccx at $(command -v ccx)" || echo "peers: ccx NOT installed"
# OpenSees into a venv of its own (profiling/peers/venv, ignored by git):
# peers/ops_plate.py runs it from there
V="$(dirname "$0")/venv"
if ! "$V/bin/python" -c 'import openseespy.opensees' 2>/dev/null; then
  python3 -m venv "$V" && "$V/bin/pip" install --quiet openseespy 2>&1 | tail -2 || true
fi
if "$V/bin/python" -c 'import openseespy.opensees as ops; ops.wipe()' 2>/dev/null; then
  echo "peers: openseespy runs ($V)"
else
  echo "peers: openseespy does not run here (no wheel for this Python/platform, or it fails to load)"
fi
