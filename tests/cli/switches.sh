#!/bin/sh
# The CRDYN_* environment switches (include/crdyn/switches.h): every one the
# sources read is in the table that `crdyn switches` prints, every one in the
# table is read somewhere, and the sources read them only through
# crd_switch.  The checker is run on a planted source that reads an unknown
# switch and one that calls getenv directly, and must flag both.
# POSIX sh, TAP.  $CRDYN: the binary (default ./build/crdyn).
CRDYN=${CRDYN:-./build/crdyn}
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-switches.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }

"$CRDYN" switches >"$T/table" 2>&1; rc=$?
sed -n 's/^  \(CRDYN_[A-Z0-9_]*\) .*/\1/p' "$T/table" | sort -u >"$T/listed"
[ $rc -eq 0 ] && [ "$(wc -l <"$T/listed")" -ge 10 ] && grep -q '^test hooks' "$T/table" \
  && ok "crdyn switches lists $(wc -l <"$T/listed") switches in three groups" || not_ok "crdyn switches (status $rc)"

# check SRC...: prints what is wrong (nothing when the sources agree with the table)
check() {
  grep -rhoE 'crd_switch\("CRDYN_[A-Z0-9_]+"\)' "$@" | sed 's/.*"\(CRDYN_[A-Z0-9_]*\)".*/\1/' | sort -u >"$T/read"
  comm -23 "$T/read" "$T/listed" | sed 's/^/not in the table: /'
  grep -rnE 'getenv\("CRDYN_' "$@" | sed 's/^/getenv, not crd_switch: /'
}
bad=$(check src/host)
[ -z "$bad" ] && ok "every switch the sources read is in the table, read through crd_switch" || { not_ok "switches"; echo "$bad" | sed 's/^/# /'; }
unused=$(comm -13 "$T/read" "$T/listed")
[ -z "$unused" ] && ok "every switch in the table is read somewhere" || not_ok "switches in the table that nothing reads: $unused"

# the checker sees what it is named for
mkdir -p "$T/planted"
printf 'const char *a = crd_switch("CRDYN_NOT_A_SWITCH");\nconst char *b = getenv("CRDYN_TRACE");\n' >"$T/planted/x.c"
bad=$(check "$T/planted")
echo "$bad" | grep -q 'not in the table: CRDYN_NOT_A_SWITCH' && echo "$bad" | grep -q 'getenv, not crd_switch' \
  && ok "planted: an unknown switch and a direct getenv are flagged" || not_ok "planted source not flagged: $bad"
echo "1..$n"
