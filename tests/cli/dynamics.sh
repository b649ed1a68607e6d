#!/bin/sh
# Shell dynamics and modal analysis: conservation on the flying L-plate and
# the free cylindrical panel, the cantilever strip (modal against time
# history, explicit against implicit, two stages), second-order accuracy in
# time of both integrators, plate frequencies (docs/benchmarks.md A1-A3, C1).
CRDYN=${CRDYN:-./build/crdyn}
python3 tests/dyn/checks.py "$CRDYN" || exit 1
python3 tests/dyn/order.py "$CRDYN" implicit | sed 's/^ok 1 /ok /; s/^not ok 1 /not ok /' | grep -v '^1\.\.'
python3 tests/dyn/order.py "$CRDYN" implicit-dissipative | sed 's/^ok 1 /ok /; s/^not ok 1 /not ok /' | grep -v '^1\.\.'
python3 tests/dyn/order.py "$CRDYN" explicit | sed 's/^ok 1 /ok /; s/^not ok 1 /not ok /' | grep -v '^1\.\.'
python3 tests/dyn/adaptive.py "$CRDYN" | sed 's/^ok [0-9]* /ok /; s/^not ok [0-9]* /not ok /' | grep -v '^1\.\.'
python3 tests/dyn/hybrid.py "$CRDYN" | sed 's/^ok [0-9]* /ok /; s/^not ok [0-9]* /not ok /' | grep -v '^1\.\.'
python3 tests/dyn/sliver.py "$CRDYN" | sed 's/^ok [0-9]* /ok /; s/^not ok [0-9]* /not ok /' | grep -v '^1\.\.'
