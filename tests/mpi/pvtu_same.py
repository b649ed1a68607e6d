#!/usr/bin/env python3
"""The parallel frames of a run over MPI ranks against the single
process's frames, exactly.

    python3 tests/mpi/pvtu_same.py SERIAL_DIR PARALLEL_DIR NRANKS

SERIAL_DIR holds frames/frame_NNNNNN.vtu and result.pvd of a one-process
run; PARALLEL_DIR the same run's frames/frame_NNNNNN.pvtu, each naming
NRANKS pieces frame_NNNNNN_pR.vtu, and its result.pvd.  For every frame:
the .pvtu declares the serial file's fields (and node_id, element_id);
the pieces together hold every element once and every node at least once
(a node in two pieces with the same text in both); each element's
connectivity, mapped through node_id, is the serial one; and every value
of every field and of the points is the same text as in the serial file
(both written with the same format from the same bits).  result.pvd
lists the .pvtu where the serial one lists the .vtu, with the same times.
Prints one line; exit status 0 when all holds.  Standard library only."""
import os
import re
import sys

ARRAY = re.compile(r'<DataArray type="(\w+)"(?: Name="(\w+)")?(?: NumberOfComponents="(\d+)")? format="ascii">'
                   r'(.*?)</DataArray>', re.S)


def read_vtu(path):
    """{name: [rows of tokens]}; the points under 'Points'."""
    text = open(path).read()
    out = {}
    for m in ARRAY.finditer(text):
        name, nc, toks = m.group(2), int(m.group(3) or 1), m.group(4).split()
        if name is None:
            name = "Points"
        if name in ("connectivity", "offsets", "types"):
            out[name] = toks
        else:
            out[name] = [tuple(toks[i:i + nc]) for i in range(0, len(toks), nc)]
    return out


def quads(v):
    c = [int(t) for t in v["connectivity"]]
    return [tuple(c[4 * k:4 * k + 4]) for k in range(len(c) // 4)]


def compare_frame(ser_path, pv_path, nranks):
    ser = read_vtu(ser_path)
    text = open(pv_path).read()
    sources = re.findall(r'<Piece Source="([^"]+)"/>', text)
    if len(sources) != nranks:
        return "%s names %d pieces, not %d" % (pv_path, len(sources), nranks)
    declared = set(re.findall(r'<PDataArray type="Float64" Name="(\w+)"', text))
    want = set(k for k in ser if k not in ("Points", "connectivity", "offsets", "types")) | {"node_id", "element_id"}
    if declared != want:
        return "%s declares %s, the serial frame has %s" % (pv_path, sorted(declared), sorted(want))
    nodes, elems = {}, {}
    for src in sources:
        pc = read_vtu(os.path.join(os.path.dirname(pv_path), src))
        nid = [int(float(t[0])) for t in pc["node_id"]]
        for k, e in enumerate(int(float(t[0])) for t in pc["element_id"]):
            if e in elems:
                return "element %d in two pieces" % e
            elems[e] = (tuple(nid[a] for a in quads(pc)[k]),
                        {f: pc[f][k] for f in want if f in pc and len(pc[f]) == len(pc["element_id"])})
        for k, i in enumerate(nid):
            row = {f: pc[f][k] for f in list(want) + ["Points"] if f in pc and len(pc[f]) == len(nid)}
            if i in nodes and nodes[i] != row:
                return "node %d differs between pieces" % i
            nodes[i] = row
    sq = quads(ser)
    if sorted(elems) != list(range(len(sq))) or sorted(nodes) != list(range(len(ser["Points"]))):
        return "the pieces hold %d elements and %d nodes of %d and %d" % (len(elems), len(nodes), len(sq),
                                                                          len(ser["Points"]))
    for e, (q, row) in elems.items():
        if q != sq[e]:
            return "element %d: nodes %s, serial %s" % (e, q, sq[e])
        for f, v in row.items():
            if f != "element_id" and v != ser[f][e]:
                return "element %d field %s: %s, serial %s" % (e, f, v, ser[f][e])
    for i, row in nodes.items():
        for f, v in row.items():
            if f != "node_id" and v != ser[f][i]:
                return "node %d field %s: %s, serial %s" % (i, f, v, ser[f][i])
    return ""


def main():
    sdir, pdir, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    frames = sorted(f for f in os.listdir(os.path.join(sdir, "frames")) if re.match(r"frame_\d{6}\.vtu$", f))
    if not frames:
        print("no serial frames in %s" % sdir)
        return 1
    for f in frames:
        pv = os.path.join(pdir, "frames", f[:-4] + ".pvtu")
        why = compare_frame(os.path.join(sdir, "frames", f), pv, nranks) if os.path.exists(pv) else pv + " missing"
        if why:
            print("frame %s: %s" % (f, why))
            return 1
    spvd = open(os.path.join(sdir, "result.pvd")).read().replace(".vtu\"", ".pvtu\"")
    if spvd != open(os.path.join(pdir, "result.pvd")).read():
        print("result.pvd differs from the serial one (with .vtu read as .pvtu)")
        return 1
    print("%d frames, %d pieces each, equal to the serial frames value for value" % (len(frames), nranks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
