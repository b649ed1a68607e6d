#!/usr/bin/env python3
"""Check crdyn case files against the case-file schema, and the schema
against crdyn's loader.

    schema_check.py [--schema FILE] meta
        the schema is a valid JSON Schema (draft 2020-12) and its $refs resolve
    schema_check.py [--schema FILE] validate CASE...
        every case validates against the schema
    schema_check.py [--schema FILE] examples DOC.md --crdyn BIN
        every complete case in a ```json block of DOC.md (one with "format")
        validates and passes `crdyn check`
    schema_check.py [--schema FILE] keys --crdyn BIN [--defaults CASE...] CASE...
        the schema and the loader agree on the keys of every object (below)

The schema defaults to docs/case.schema.json beside this tool's folder.
Output: one line per check, "ok - ..." or "not ok - ...", and "# ..."
notes; the exit status is 1 when a check failed (tests/cli/schema.sh turns
the lines into numbered TAP lines).  Needs python3-jsonschema.

How `keys` compares them, by behaviour only: every object of every given
case (which `crdyn check` must accept) gets one unknown key.  The loader
rejects it with "PATH: unknown key (expected one of: a, b, c)" (a mesh
generator says "(a TYPE generator takes a, b)", leaving out "type"); the
schema, validating the same text, reports the key through
"additionalProperties": false, and the subschema that did lists its
properties.  Both lists must be equal; an object that one side closes and
the other leaves open is a mismatch too.  Then every closed object of the
schema must have been reached by some case.  With --defaults, every key
that a closed object of those cases leaves out and the schema gives a
"default" (else "examples") for is put in with that value: the loader and
the schema must give the same verdict (both accept it, or both refuse it,
as for the keys that only one kind of dynamic stage takes, or history_dt in
a static analysis).
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMA = os.path.normpath(os.path.join(HERE, "..", "docs", "case.schema.json"))
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BOGUS = "zz_not_a_key"

failed = False
TMP = None                                            # a scratch folder, removed at the end


def line(ok, text):
    global failed
    if not ok:
        failed = True
    print(("ok - " if ok else "not ok - ") + text)


def note(text):
    print("# " + text)


def load_schema(path):
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        line(False, "python3 cannot import jsonschema (Debian: apt-get install python3-jsonschema)")
        sys.exit(1)
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    return schema, Draft202012Validator


def pointer_get(doc, ptr):
    """The value at a JSON pointer "#/a/b" (RFC 6901 escapes)."""
    node = doc
    for tok in ptr[2:].split("/") if ptr not in ("#", "#/") else []:
        tok = tok.replace("~1", "/").replace("~0", "~")
        node = node[int(tok)] if isinstance(node, list) else node[tok]
    return node


def subschemas(node, ptr="#"):
    """Every dict in the schema document with its JSON pointer."""
    if isinstance(node, dict):
        yield ptr, node
        for k, v in node.items():
            if k in ("const", "enum", "default", "examples"):
                continue
            yield from subschemas(v, ptr + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from subschemas(v, "%s/%d" % (ptr, i))


def closed_objects(schema):
    """{pointer: subschema} of the subschemas with "additionalProperties": false."""
    return {p: s for p, s in subschemas(schema) if s.get("additionalProperties") is False}


def json_path(path):
    """The loader's way of naming a place: $.a.b[2].c"""
    out = "$"
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else "." + p
    return out


def walk_objects(node, path=()):
    """(path, dict) of every object of a JSON value, outermost first."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk_objects(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk_objects(v, path + (i,))


def at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def all_errors(errors):
    for e in errors:
        yield e
        yield from all_errors(e.context or [])


def first_error(validator, instance):
    from jsonschema.exceptions import best_match
    e = best_match(validator.iter_errors(instance))
    if e is None:
        return None
    return "%s: %s" % (json_path(list(e.absolute_path)), e.message)


# ---------------------------------------------------------------- commands

def cmd_meta(args):
    schema, V = load_schema(args.schema)
    from jsonschema.exceptions import SchemaError
    line(schema.get("$schema") == DRAFT, "%s declares draft 2020-12 ($schema %s)" % (args.schema, schema.get("$schema")))
    try:
        V.check_schema(schema)
        line(True, "%s is valid against the draft 2020-12 metaschema" % args.schema)
    except SchemaError as e:
        line(False, "%s is not a valid draft 2020-12 schema: %s at %s" % (args.schema, e.message, list(e.absolute_path)))
    bad = []
    nref = 0
    for ptr, s in subschemas(schema):
        ref = s.get("$ref")
        if ref is None:
            continue
        nref += 1
        try:
            if not ref.startswith("#"):
                raise KeyError(ref)
            target = pointer_get(schema, ref)
            if not isinstance(target, (dict, bool)):
                raise KeyError(ref)
        except (KeyError, IndexError, ValueError):
            bad.append("%s -> %s" % (ptr, ref))
    line(not bad, "all %d $refs of the schema resolve inside it%s" % (nref, "; not: " + ", ".join(bad) if bad else ""))
    closed = closed_objects(schema)
    undocumented = []
    for ptr, obj in sorted(closed.items()):
        for k, ps in obj.get("properties", {}).items():
            while isinstance(ps, dict) and "description" not in ps and "$ref" in ps:
                ps = pointer_get(schema, ps["$ref"])
            if isinstance(ps, dict) and "description" not in ps and "const" not in ps:
                undocumented.append("%s/properties/%s" % (ptr, k))
    line(not undocumented, "every property of the %d closed objects has a description (editors show it)%s"
         % (len(closed), "; missing: " + ", ".join(undocumented) if undocumented else ""))


def cmd_validate(args):
    schema, V = load_schema(args.schema)
    v = V(schema)
    for f in args.cases:
        try:
            with open(f, encoding="utf-8") as fh:
                inst = json.load(fh)
        except (OSError, ValueError) as e:
            line(False, "%s: cannot be read as JSON: %s" % (f, e))
            continue
        err = first_error(v, inst)
        line(err is None, "%s %s" % (f, "validates against the schema" if err is None else "fails: " + err))


def run_check(crdyn, path):
    r = subprocess.run([crdyn, "check", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return r.returncode, r.stderr.strip()


def absolute_files(case, case_dir):
    """Mesh "file" names made absolute (resolved as the loader does: from the
    case file's folder), so that a copy of the case can live elsewhere."""
    mesh = case.get("mesh")
    parts = mesh if isinstance(mesh, list) else [mesh] if isinstance(mesh, dict) else []
    for p in parts:
        if isinstance(p, dict) and isinstance(p.get("file"), str) and not p["file"].startswith("/"):
            p["file"] = os.path.normpath(os.path.join(case_dir, p["file"]))


def cmd_examples(args):
    schema, V = load_schema(args.schema)
    v = V(schema)
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"^```json\n(.*?)^```", text, re.S | re.M)
    tmp = TMP
    found = 0
    for k, b in enumerate(blocks):
        try:
            case = json.loads(b)
        except ValueError:
            continue                                  # a fragment, not a case
        if not isinstance(case, dict) or "format" not in case:
            continue
        found += 1
        title = case.get("title", "block %d" % (k + 1))
        err = first_error(v, case)
        line(err is None, "%s: example '%s' %s" % (args.doc, title, "validates" if err is None else "fails: " + err))
        p = os.path.join(tmp, "example_%d.json" % (k + 1))
        absolute_files(case, os.path.dirname(os.path.abspath(args.doc)))
        with open(p, "w", encoding="utf-8") as f:
            json.dump(case, f)
        rc, msg = run_check(args.crdyn, p)
        line(rc == 0, "%s: example '%s' passes crdyn check%s" % (args.doc, title, "" if rc == 0 else ": " + msg))
    line(found > 0, "%s holds %d complete example case(s)" % (args.doc, found))


def loader_keys(stderr, jp):
    """The key list of the loader's unknown-key message for jp, or None."""
    m = re.search(re.escape(jp) + r": unknown key \(expected one of: ([^)]*)\)", stderr)
    if m:
        return set(m.group(1).split(", "))
    m = re.search(re.escape(jp) + r": unknown key \(an? \S+ generator takes ([^)]*)\)", stderr)
    if m:
        return set(m.group(1).split(", ")) | {"type"}
    return None


def schema_closed_at(validator, instance, path, key):
    """The subschemas that refuse `key` at `path` through additionalProperties."""
    hits = []
    for e in all_errors(validator.iter_errors(instance)):
        if e.validator == "additionalProperties" and tuple(e.absolute_path) == tuple(path) \
                and isinstance(e.instance, dict) and key in e.instance:
            if not any(h is e.schema for h in hits):
                hits.append(e.schema)
    return hits


def summary(msgs):
    """'message (at N objects, e.g. PLACE)' for each distinct message."""
    return " | ".join("%s (at %d object%s, e.g. %s)" % (m, len(p), "" if len(p) == 1 else "s", p[0])
                      for m, p in msgs.items())


def resolve(schema, s):
    while isinstance(s, dict) and "$ref" in s and "default" not in s:
        s = pointer_get(schema, s["$ref"])
    return s


def cmd_keys(args):
    schema, V = load_schema(args.schema)
    v = V(schema)
    closed = closed_objects(schema)
    by_id = {id(s): p for p, s in closed.items()}

    def pointer_of(s):
        p = by_id.get(id(s))
        if p is None:                                 # a validator that copied the subschema
            same = [q for q, c in closed.items() if c == s]
            p = same[0] if len(same) == 1 else "(unknown subschema with properties %s)" % sorted(s.get("properties", {}))
        return p

    tmp = TMP
    reached = {}                                      # pointer -> number of objects
    where = {}                                        # pointer -> a place, for the message
    diffs = {}                                        # pointer or place -> messages
    nobj = 0
    default_runs = []                                 # (case, path, subschema pointer, key, value)

    def mismatch(k, msg, place):
        diffs.setdefault(k, {}).setdefault(msg, []).append(place)

    defaults_set = set(os.path.abspath(c) for c in (args.defaults or []))
    for cf in list(args.cases) + [c for c in (args.defaults or []) if os.path.abspath(c) not in
                                   set(os.path.abspath(x) for x in args.cases)]:
        with open(cf, encoding="utf-8") as f:
            case = json.load(f)
        absolute_files(case, os.path.dirname(os.path.abspath(cf)))
        base = os.path.join(tmp, os.path.basename(cf))
        with open(base, "w", encoding="utf-8") as f:
            json.dump(case, f)
        rc, msg = run_check(args.crdyn, base)
        if rc != 0:
            line(False, "%s: crdyn check refuses the unchanged case, so its objects say nothing: %s" % (cf, msg))
            continue
        for path, obj in walk_objects(case):
            mutated = copy.deepcopy(case)
            at(mutated, path)[BOGUS] = 0
            with open(base, "w", encoding="utf-8") as f:
                json.dump(mutated, f)
            rc, msg = run_check(args.crdyn, base)
            jp = json_path(path)
            lk = loader_keys(msg, jp + "." + BOGUS)
            hits = schema_closed_at(v, mutated, path, BOGUS)
            place = "%s %s" % (os.path.basename(cf), jp)
            nobj += 1
            if len(hits) > 1:
                mismatch(place, "%d subschemas close this object (%s)" % (len(hits), ", ".join(pointer_of(h) for h in hits)),
                         place)
                continue
            if not hits:
                if lk is not None:
                    mismatch(place, "the schema leaves it open; the loader takes only: %s" % ", ".join(sorted(lk)), place)
                continue
            ptr = pointer_of(hits[0])
            reached[ptr] = reached.get(ptr, 0) + 1
            where.setdefault(ptr, place)
            sk = set(hits[0].get("properties", {}))
            if lk is None:
                mismatch(ptr, "the loader accepts an unknown key" if rc == 0 else
                         "the loader says something else: " + msg.split(base + ": ", 1)[-1], place)
                continue
            only_s, only_l = sk - lk, lk - sk
            if only_s or only_l:
                mismatch(ptr, "schema only: %s; loader only: %s"
                         % (", ".join(sorted(only_s)) or "-", ", ".join(sorted(only_l)) or "-"), place)
            if os.path.abspath(cf) in defaults_set:
                for k, ps in hits[0].get("properties", {}).items():
                    d = resolve(schema, ps)
                    if k in obj or not isinstance(d, dict):
                        continue
                    if "default" in d:
                        default_runs.append((cf, case, path, ptr, k, d["default"]))
                    elif d.get("examples"):
                        default_runs.append((cf, case, path, ptr, k, d["examples"][0]))
    note("%d objects given an unknown key, in %d cases" % (nobj, len(args.cases)))

    for ptr in sorted(closed):
        if ptr in diffs:
            line(False, "%s: schema and loader disagree: %s" % (ptr, summary(diffs[ptr])))
        elif ptr in reached:
            keys = ", ".join(sorted(closed[ptr].get("properties", {})))
            line(True, "%s: schema and loader take the same keys (%s; %d objects, e.g. %s)"
                 % (ptr, keys, reached[ptr], where[ptr]))
        else:
            line(False, "%s: no given case reaches this closed object (add one that does)" % ptr)
    for place in sorted(k for k in diffs if not k.startswith("#")):
        line(False, "%s: schema and loader disagree: %s" % (place, summary(diffs[place])))

    # defaults: the same verdict from both
    nd, bad = 0, []
    for cf, case, path, ptr, k, dflt in default_runs:
        mutated = copy.deepcopy(case)
        at(mutated, path)[k] = dflt
        base = os.path.join(tmp, os.path.basename(cf))
        with open(base, "w", encoding="utf-8") as f:
            json.dump(mutated, f)
        rc, msg = run_check(args.crdyn, base)
        err = first_error(v, mutated)
        nd += 1
        if (rc == 0) != (err is None):
            bad.append("%s %s.%s = %s: loader %s, schema %s" % (os.path.basename(cf), json_path(path), k,
                       json.dumps(dflt), "accepts" if rc == 0 else "refuses (" + msg + ")",
                       "accepts" if err is None else "refuses (" + err + ")"))
        elif rc != 0:
            note("both refuse %s %s.%s = %s: %s" % (os.path.basename(cf), json_path(path), k, json.dumps(dflt),
                                                   msg.split(base + ": ", 1)[-1]))
    if args.defaults:
        line(not bad and nd > 0, "%d defaults (or examples) put in where left out: loader and schema give the same verdict%s"
             % (nd, "; not: " + " | ".join(bad[:4]) if bad else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schema", default=DEFAULT_SCHEMA)
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("meta")
    p = sub.add_parser("validate")
    p.add_argument("cases", nargs="+")
    p = sub.add_parser("examples")
    p.add_argument("doc")
    p.add_argument("--crdyn", required=True)
    p = sub.add_parser("keys")
    p.add_argument("--crdyn", required=True)
    p.add_argument("--defaults", nargs="+", metavar="CASE")
    p.add_argument("cases", nargs="+")
    args = ap.parse_args()
    if args.cmd is None:
        ap.print_help()
        return 2
    global TMP
    with tempfile.TemporaryDirectory(prefix="crdyn-schema-") as TMP:
        {"meta": cmd_meta, "validate": cmd_validate, "examples": cmd_examples, "keys": cmd_keys}[args.cmd](args)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
