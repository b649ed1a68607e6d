#!/bin/sh
# The case-file reference (docs/case_format.md) and its JSON Schema
# (docs/case.schema.json), through tools/schema_check.py (python3-jsonschema):
#  a) the schema is a valid draft 2020-12 schema, its $refs resolve, every
#     property has a description;
#  b) the cases of cases/ and the good cases of the tests validate, and so do
#     the complete example cases of docs/case_format.md, which also pass
#     crdyn check;
#  c) schema and loader take the same keys in every object: each object of
#     each case gets an unknown key, and the list of keys in the loader's
#     message must equal the schema's properties there (both directions);
#     every closed object of the schema is reached; the defaults of the
#     schema get the loader's verdict too (keys of one stage kind only);
#  d) the checks can fail: the cases of tests/cli/schema_bad/ fail
#     validation (and crdyn check), and copies of the schema with a property
#     removed or added make check (c) report the mismatch;
#  e) the path rules of the reference: a mesh file resolves from the case
#     file's folder, output.dir from the working directory.
# POSIX sh, run from the repository root; prints TAP.  $CRDYN: the binary.
CRDYN=${CRDYN:-./build/crdyn}
case "$CRDYN" in /*) ;; *) CRDYN="$(pwd)/$CRDYN" ;; esac
[ -x "$CRDYN" ] || { echo "not ok 1 - $CRDYN is not built"; echo "1..1"; exit 1; }
TOOL=tools/schema_check.py
SCHEMA=docs/case.schema.json
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-schema.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0; nfail=0

ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $1"; }

if ! python3 -c 'import jsonschema' 2>/dev/null; then
  not_ok "python3 cannot import jsonschema (Debian: apt-get install python3-jsonschema)"
  echo "1..$n"; exit 1
fi

# tool ARGS...: run the tool; its "ok - " / "not ok - " lines become numbered
# TAP lines, anything else a comment.  A non-zero exit without a "not ok"
# line (a crash) is a failure too.
tool() {
  python3 "$TOOL" "$@" >"$T/out" 2>&1
  rc=$?; before=$nfail
  while IFS= read -r l; do
    case "$l" in
      "ok - "*) ok "${l#ok - }" ;;
      "not ok - "*) not_ok "${l#not ok - }" ;;
      "# "*) echo "$l" ;;
      *) echo "# $l" ;;
    esac
  done <"$T/out"
  [ "$rc" -eq 0 ] || [ "$nfail" -gt "$before" ] || not_ok "schema_check.py $1 exited with status $rc"
}

GOOD="tests/cli/schema_good/*.json tests/restart/*.json tests/valgrind/*.json"

# a) the schema itself
tool meta

# b) good cases and the reference's examples
# shellcheck disable=SC2086
tool validate cases/*.json $GOOD
tool examples docs/case_format.md --crdyn "$CRDYN"

# c) keys, through the loader's behaviour
# shellcheck disable=SC2086
tool keys --crdyn "$CRDYN" cases/*.json $GOOD --defaults tests/cli/schema_good/*.json

# d) the checks fail where they must: broken cases ...
# bad FILE JSONPATH: schema validation and crdyn check must both refuse it, at JSONPATH
bad() {
  python3 "$TOOL" validate "$1" >"$T/v" 2>&1; vrc=$?
  "$CRDYN" check "$1" >/dev/null 2>"$T/c"; crc=$?
  if [ "$vrc" -eq 1 ] && grep -F -q "fails: $2" "$T/v" && [ "$crc" -ne 0 ] && grep -F -q "$2" "$T/c"; then
    ok "$1 fails validation and crdyn check at $2: $(sed 's/.*fails: //' "$T/v")"
  else
    not_ok "$1 must fail validation and crdyn check at $2 (validate: status $vrc, crdyn check: status $crc)"
    sed 's/^/#   /' "$T/v" "$T/c"
  fi
}
bad tests/cli/schema_bad/unknown_key.json '$.output'
bad tests/cli/schema_bad/wrong_type.json '$.analysis.steps'
bad tests/cli/schema_bad/stage_key.json '$.analysis.stages[0]'

# ... and a schema that lacks a key the loader takes, or has one it does not
# wrong WHAT PYTHON-EDIT EXPECTED: a copy of the schema edited by PYTHON-EDIT
# (on s, the loaded schema) must make check (c) fail with EXPECTED.
wrong() {
  python3 -c "import json, sys
s = json.load(open('$SCHEMA'))
$2
json.dump(s, open(sys.argv[1], 'w'), indent=1)" "$T/wrong.json" || { not_ok "$1: cannot write the copy"; return; }
  python3 "$TOOL" --schema "$T/wrong.json" keys --crdyn "$CRDYN" tests/cli/schema_good/static_parts.json >"$T/k" 2>&1; krc=$?
  if [ "$krc" -eq 1 ] && grep -q "^not ok - .*$3" "$T/k"; then
    ok "$1: check (c) reports it: $(grep "^not ok - .*$3" "$T/k" | head -1 | sed 's/^not ok - //')"
  else
    not_ok "$1: check (c) did not report '$3' (status $krc)"
    grep -v '^ok' "$T/k" | sed 's/^/#   /'
  fi
}
wrong "schema without output.vtk_every" \
  "del s['\$defs']['output']['properties']['vtk_every']" \
  'output: schema and loader disagree: schema only: -; loader only: vtk_every'
wrong "schema with a section key the loader does not take (density)" \
  "s['\$defs']['section']['properties']['density'] = {'description': 'not a key', 'type': 'number'}" \
  'section: schema and loader disagree: schema only: density; loader only: -'
wrong "schema that leaves probes open" \
  "del s['\$defs']['probe']['additionalProperties']" \
  'output.probes\[0\]: schema and loader disagree: the schema leaves it open; the loader takes only: name, node'

# e) relative paths: the mesh file from the case's folder, output.dir from the working directory
mkdir -p "$T/proj/meshes" "$T/work"
cp tests/cli/schema_good/square.msh "$T/proj/meshes/"
cat >"$T/proj/paths.json" <<'JSON'
{
  "format": 1,
  "mesh": {"file": "meshes/square.msh"},
  "sections": [{"elements": "all", "E": 1.0e6, "nu": 0.3, "thickness": 0.1}],
  "supports": [{"set": "edge", "fix": "all"}],
  "loads": [{"set": "all", "force": [0, 0, 1e-6]}],
  "analysis": {"type": "static", "steps": 1},
  "output": {"dir": "results/paths"}
}
JSON
(cd "$T/work" && "$CRDYN" run ../proj/paths.json --quiet) >"$T/p" 2>&1; prc=$?
if [ "$prc" -eq 0 ] && [ -f "$T/work/results/paths/history.csv" ] && [ ! -e "$T/proj/results" ]; then
  ok "a relative mesh file resolves from the case file's folder, a relative output.dir from the working directory"
else
  not_ok "relative paths: status $prc, outputs in: $(cd "$T" && find . -name history.csv | tr '\n' ' ')"
  sed 's/^/#   /' "$T/p"
fi

echo "1..$n"
[ "$nfail" -eq 0 ]
