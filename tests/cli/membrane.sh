#!/bin/sh
# The membrane strain on a distorted curved mesh (tests/cli/distorted_roof.py).
CRDYN=${CRDYN:-./build/crdyn}
python3 tests/cli/distorted_roof.py "$CRDYN"
