#!/bin/sh
# Bundle for the GPU machine (docs/cuda.md): that machine has the CUDA
# toolkit and glibc but none of Debian's packages, so the binary travels
# with the shared libraries it needs from here (cJSON, CHOLMOD and its
# SuiteSparse parts, METIS, ARPACK, OpenBLAS/LAPACK, gfortran, quadmath,
# gomp, stdc++, the OpenCL loader): everything `ldd` resolves except glibc
# itself (libc, libm, libdl, libpthread, librt, the loader) and the CUDA
# libraries (the toolkit's).  Also the test and benchmark programs the GPU
# check runs; VARIANTS="PATH:TAG ..." adds other builds of the binary as
# DEST/crdyn-TAG (the device code at -O1 and -G), SANITIZER_WHEEL a
# compute-sanitizer wheel as DEST/sanitizer.whl (unpacked on the GPU
# machine).
#   usage: sh profiling/gpu_bundle.sh [BUILD [DEST]]   (default build build/gpu-bundle)
# DEST/crdyn, DEST/lib/*.so*, DEST/tests/, DEST/bench/, and DEST.tar.gz (the
# packed form that travels: `carry` takes at most 64 MiB in all).
set -e
BUILD=${1:-build}
DEST=${2:-$BUILD/gpu-bundle}
[ -x "$BUILD/crdyn" ] || { echo "gpu_bundle: $BUILD/crdyn is not built (make)"; exit 1; }
rm -rf "$DEST"
mkdir -p "$DEST/lib" "$DEST/tests" "$DEST/bench"
cp "$BUILD/crdyn" "$DEST/"
for v in $VARIANTS; do [ -x "${v%:*}" ] && cp "${v%:*}" "$DEST/crdyn-${v##*:}"; done
[ -n "$SANITIZER_WHEEL" ] && [ -e "$SANITIZER_WHEEL" ] && cp "$SANITIZER_WHEEL" "$DEST/sanitizer.whl"
for t in "$BUILD"/tests/t501-cuda; do [ -x "$t" ] && cp "$t" "$DEST/tests/"; done
for b in "$BUILD"/bench/flopcount "$BUILD"/bench/leanbench; do [ -x "$b" ] && cp "$b" "$DEST/bench/"; done
libs() { # the resolved libraries of the binaries, minus glibc and CUDA
  for f in "$@"; do ldd "$f"; done | awk '/=> \// {print $1, $3}' | sort -u | \
    grep -Ev '^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux[^ ]*)\.so' | \
    grep -Ev '^(libcuda|libcudart|libcusolver|libcusolverMg|libcusparse|libcublas|libcublasLt|libnvJitLink|libcudss[^ ]*)\.so'
}
bins=$(ls "$DEST"/crdyn* "$DEST"/tests/* "$DEST"/bench/* 2>/dev/null)
libs $bins | while read -r name path; do
  cp -L "$path" "$DEST/lib/$name"
done
# a library can need one the binary does not (dlopen'd or indirect): resolve the bundle itself
libs "$DEST"/lib/* | while read -r name path; do
  [ -e "$DEST/lib/$name" ] || cp -L "$path" "$DEST/lib/$name"
done
tar -C "$(dirname "$DEST")" -czf "$DEST.tar.gz" "$(basename "$DEST")"
echo "gpu_bundle: $DEST: $(ls "$DEST/lib" | wc -l) libraries, $(du -sm "$DEST" | cut -f1) MiB; packed $DEST.tar.gz $(du -m "$DEST.tar.gz" | cut -f1) MiB"
