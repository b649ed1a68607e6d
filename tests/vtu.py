"""Reader for the ASCII VTU frames and the result.pvd collection crdyn writes
(src/host/io/output.c), for the tests.  Standard library only.

read_vtu(path) parses the XML and checks the structure a VTK reader
(ParaView) relies on: one UnstructuredGrid Piece, every DataArray with the
advertised number of tuples and components, connectivity inside the point
range, offsets 4, 8, ..., types 9 (VTK_QUAD).  It raises ValueError naming
the file and the array on any mismatch, and returns a Frame.
"""
import os
import xml.etree.ElementTree as ET


class Frame:
    def __init__(self, points, quads, point_data, cell_data):
        self.points = points          # [(x, y, z)], current positions
        self.quads = quads            # [(a, b, c, d)]
        self.point_data = point_data  # name -> list of tuples (ncomp > 1) or floats
        self.cell_data = cell_data


def _values(da, path, what):
    text = da.text or ""
    try:
        return [float(v) for v in text.split()]
    except ValueError as exc:
        raise ValueError(f"{path}: {what}: not a number ({exc})") from None


def _group(vals, ncomp):
    if ncomp == 1:
        return vals
    return [tuple(vals[i:i + ncomp]) for i in range(0, len(vals), ncomp)]


def _arrays(parent, count, path, where):
    out = {}
    if parent is None:
        return out
    for da in parent.findall("DataArray"):
        name = da.get("Name")
        if not name or name in out:
            raise ValueError(f"{path}: {where}: DataArray without a name or a repeated name '{name}'")
        if da.get("format") != "ascii" or da.get("type") != "Float64":
            raise ValueError(f"{path}: {where}/{name}: expected ascii Float64")
        ncomp = int(da.get("NumberOfComponents", "1"))
        vals = _values(da, path, f"{where}/{name}")
        if len(vals) != ncomp * count:
            raise ValueError(f"{path}: {where}/{name}: {len(vals)} values, want {ncomp} x {count}")
        out[name] = _group(vals, ncomp)
    return out


def read_vtu(path):
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "UnstructuredGrid":
        raise ValueError(f"{path}: not a VTKFile of type UnstructuredGrid")
    pieces = root.findall("UnstructuredGrid/Piece")
    if len(pieces) != 1:
        raise ValueError(f"{path}: {len(pieces)} pieces, want 1")
    pc = pieces[0]
    nn, ne = int(pc.get("NumberOfPoints")), int(pc.get("NumberOfCells"))
    pts = pc.find("Points/DataArray")
    if pts is None or int(pts.get("NumberOfComponents", "0")) != 3:
        raise ValueError(f"{path}: Points: no 3-component DataArray")
    xyz = _values(pts, path, "Points")
    if len(xyz) != 3 * nn:
        raise ValueError(f"{path}: Points: {len(xyz)} values for {nn} points")
    cells = {da.get("Name"): da for da in pc.findall("Cells/DataArray")}
    for k in ("connectivity", "offsets", "types"):
        if k not in cells:
            raise ValueError(f"{path}: Cells: no '{k}' array")
    conn = [int(v) for v in cells["connectivity"].text.split()]
    offs = [int(v) for v in cells["offsets"].text.split()]
    types = [int(v) for v in cells["types"].text.split()]
    if len(conn) != 4 * ne or offs != [4 * (e + 1) for e in range(ne)] or types != [9] * ne:
        raise ValueError(f"{path}: Cells: connectivity/offsets/types do not describe {ne} quads")
    if conn and (min(conn) < 0 or max(conn) >= nn):
        raise ValueError(f"{path}: Cells: connectivity outside 0..{nn - 1}")
    return Frame(_group(xyz, 3), [tuple(conn[4 * e:4 * e + 4]) for e in range(ne)],
                 _arrays(pc.find("PointData"), nn, path, "PointData"),
                 _arrays(pc.find("CellData"), ne, path, "CellData"))


def read_pvd(path):
    """[(timestep, absolute frame path)]; every listed file must exist."""
    root = ET.parse(path).getroot()
    if root.tag != "VTKFile" or root.get("type") != "Collection":
        raise ValueError(f"{path}: not a VTKFile of type Collection")
    out = []
    base = os.path.dirname(path)
    for ds in root.findall("Collection/DataSet"):
        f = os.path.join(base, ds.get("file"))
        if not os.path.isfile(f):
            raise ValueError(f"{path}: lists {ds.get('file')}, which does not exist")
        out.append((float(ds.get("timestep")), f))
    return out


def initial_area(frame, e):
    """Initial area |v13 x v24| / 2 of quad e, from the current points minus
    the displacement (the area crdyn's energy density is per unit of)."""
    d = frame.point_data["displacement"]
    x = [tuple(p[c] - d[i][c] for c in range(3)) for i, p in
         ((i, frame.points[i]) for i in frame.quads[e])]
    a = [x[2][c] - x[0][c] for c in range(3)]
    b = [x[3][c] - x[1][c] for c in range(3)]
    n = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    return 0.5 * (n[0] ** 2 + n[1] ** 2 + n[2] ** 2) ** 0.5
