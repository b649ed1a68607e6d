#!/bin/sh
# CLBlast against crdyn's own kernels for the explicit loop's vector work
# (profiling/src/clblast_explicit.c: half-step updates, node-measure sums)
# on the plate ladder's node counts.  Needs libclblast-dev (the dep check
# asks for it with the OpenCL packages).  Usage: sh profiling/clblast_explicit.sh [N...]
set -e
mkdir -p build/prof
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -o build/prof/clblast_explicit profiling/src/clblast_explicit.c -lclblast -lOpenCL -lm
timeout 300 ./build/prof/clblast_explicit ${*:-16 32 64}
