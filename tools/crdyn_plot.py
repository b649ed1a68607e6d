#!/usr/bin/env python3
"""Plots of a crdyn run's output, as PNG files for a person to look at.

    python3 tools/crdyn_plot.py OUTDIR_OR_HISTORY_CSV [--out DIR] [--title T]

OUTDIR_OR_HISTORY_CSV is a run's output folder (its history.csv is read; if
it holds only history.csv.part, the file of a run that is still going or did
not finish, that is read with a note), the path of a history file, or the
path of a modes.csv.  The kind of run is the "analysis" of the summary.json
beside the file ("modal", "static", "dynamic"); without a summary.json, a
modes.csv in the folder means modal, and a history whose time is 0 in every
row static.  The PNGs go to --out DIR (created if needed; default: the
folder of the history file):

Modal runs (modes.csv: mode,eigenvalue,frequency):

  modes.png     frequency against mode number, the rigid-body modes (written
                with frequency 0) marked apart from the elastic ones

Static runs (abscissa: load factor; no momentum plot, the momenta of a
static run are zero):

  probes.png    one panel per probe: ux, uy, uz against the load factor
                (only if there are probes)
  energy.png    strain energy and external work against the load factor
                (only if one of them is nonzero somewhere)
  newton.png    as below

Dynamic runs:

  energy.png    kinetic, strain, external work and total against time, and
                the relative drift of total, (total - total[ref]) / max|E|,
                where max|E| is the largest magnitude of any energy column
                and ref is the reference row (below)
  momentum.png  Lx,Ly,Lz and Jx,Jy,Jz, and their relative drift from the
                reference row on,
                (L_i - L_i[ref]) / max|L| and (J_i - J_i[ref]) / max|J|
                (max over the rows of the norm)
  probes.png    one panel per probe: ux, uy, uz (only if there are probes)
  bodies.png    four panels per rigid body: position, orientation
                quaternion, velocity, angular velocity (only if there are
                rigid-body columns)
  steps.png     the step length against time (log axis): between two rows,
                their time difference over their step difference (the mean
                step where the history skips steps); it shows where an
                implicit dt "auto" stage lengthens and shortens its steps,
                and where steps were cut; with an auto stage (column
                "integrator") explicit and implicit steps in two colours
  newton.png    iterations per step and residual (log axis), against step
                (only if some row has a nonzero iteration count)

Reference row: the first row from which external_work stays constant (to
1e-12 of its largest magnitude) to the end, so that the drift measures what
happens once the loading is over; if external work changes up to the last
row, row 0.  The row used is printed.

Stages: where the history has a last column "stage" (the dynamic stage
number, from 1), a vertical line marks each start of a new stage on every
plot, and the boundaries are printed.  Against time the line stands at the
last row of the stage before (the time the new stage starts, where the
history has a row every step); in newton.png, against the step, half way
between that row's step and the next row's.  Histories without it are
plotted as before.

Each PNG carries a text chunk "Description" that lists what its panels
show: the axes, and for each curve its number of points and the ranges of
its abscissa and ordinate, and the vertical lines (tests/cli/plot.sh reads
it).

Prints one line per file written.  Input errors (missing or empty file, a
header that does not start with the fixed crdyn columns, a value that is not
a number) give a message on stderr and exit status 1, and write nothing.
Every figure is drawn before any is written, and each file is written to a
temporary name in the target folder and renamed, so no file is left half
written.  Needs matplotlib (Debian: python3-matplotlib) and numpy; where the
python3 that runs it cannot import them (a pyenv or venv python3 first on
PATH) it runs itself once more with /usr/bin/python3, where Debian's package
installs them (set CRDYN_PLOT_NO_REEXEC=1 to stop that).
"""

import argparse
import csv
import io
import json
import math
import os
import sys
import tempfile

PROG = "crdyn_plot"
FIXED = ["step", "time", "load_factor", "iterations", "residual", "kinetic", "strain",
         "external_work", "total", "Lx", "Ly", "Lz", "Jx", "Jy", "Jz"]
PROBE_SUFFIXES = ["ux", "uy", "uz", "px", "py", "pz"]
BODY_SUFFIXES = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
STAGE = "stage"
INTEGRATOR = "integrator"
MODES_HEADER = ["mode", "eigenvalue", "frequency"]
DPI = 110
WORK_TOL = 1e-12
# Draw markers on the lines when a history has at most this many rows.
MARKER_ROWS = 40


class InputError(Exception):
    pass


def note(msg):
    print(f"{PROG}: note: {msg}", file=sys.stderr)


def import_matplotlib():
    """Import matplotlib with the Agg backend.  Where the python3 first on
    PATH (a pyenv or venv one, say) lacks it but the system interpreter,
    which Debian's python3-matplotlib installs for, is another program, run
    this script again with that one (once)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        return matplotlib, plt, np
    except ImportError as e:
        err = e
    system = "/usr/bin/python3"
    here = os.path.realpath(sys.executable or "")
    if (not os.environ.get("CRDYN_PLOT_NO_REEXEC") and os.access(system, os.X_OK)
            and os.path.realpath(system) != here):
        os.environ["CRDYN_PLOT_NO_REEXEC"] = "1"
        try:
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        except OSError:
            pass
    raise SystemExit(f"{PROG}: error: matplotlib is not importable by {sys.executable} ({err}); "
                     "install it (Debian: apt-get install python3-matplotlib; "
                     "or pip install matplotlib) or run this script with a python3 that has it")


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def locate(arg):
    """Path of the history file named by ARG (a folder or a file)."""
    if os.path.isdir(arg):
        p = os.path.join(arg, "history.csv")
        if os.path.isfile(p):
            return p
        part = p + ".part"
        if os.path.isfile(part):
            note(f"{arg} has no history.csv, only history.csv.part "
                 "(a run still going, or one that did not finish); plotting that")
            return part
        raise InputError(f"{arg}: no history.csv (nor history.csv.part) in this folder")
    if not os.path.exists(arg):
        raise InputError(f"{arg}: no such file or folder")
    if not os.path.isfile(arg):
        raise InputError(f"{arg}: not a regular file")
    return arg


def classify(extra):
    """Split the columns after the fixed ones into probes and bodies, in
    file order: [(name, {suffix: column index})], same for bodies, and the
    names of columns that fit neither."""
    probes, bodies, unknown = [], [], []
    i, n = 0, len(extra)

    def group(suffixes):
        k = len(suffixes)
        if i + k > n or "." not in extra[i]:
            return None
        name = extra[i].rsplit(".", 1)[0]
        if extra[i:i + k] == [f"{name}.{s}" for s in suffixes]:
            return name
        return None

    while i < n:
        name = group(PROBE_SUFFIXES)
        if name is not None:
            probes.append((name, {s: len(FIXED) + i + j for j, s in enumerate(PROBE_SUFFIXES)}))
            i += len(PROBE_SUFFIXES)
            continue
        name = group(BODY_SUFFIXES)
        if name is not None:
            bodies.append((name, {s: len(FIXED) + i + j for j, s in enumerate(BODY_SUFFIXES)}))
            i += len(BODY_SUFFIXES)
            continue
        unknown.append(extra[i])
        i += 1
    return probes, bodies, unknown


def read_history(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV text file ({e})")
    if not rows or all(not r for r in rows):
        raise InputError(f"{path}: empty file (no header line)")
    header = [c.strip() for c in rows[0]]
    if header[:len(FIXED)] != FIXED:
        k = next((j for j in range(len(FIXED)) if j >= len(header) or header[j] != FIXED[j]), 0)
        got = header[k] if k < len(header) else "(end of line)"
        raise InputError(
            f"{path}: line 1 is not a crdyn history header: column {k + 1} is '{got}', "
            f"expected '{FIXED[k]}' (a history header starts with {','.join(FIXED)})")
    # "stage", the dynamic stage number, is the last column where present
    stage = len(header) - 1 if len(header) > len(FIXED) and header[-1] == STAGE else None
    # "integrator" (1 explicit, 2 implicit), before "stage" in runs with an auto stage
    end = stage - 1 if stage is not None and header[stage - 1] == INTEGRATOR else stage
    probes, bodies, unknown = classify(header[len(FIXED):end])
    if unknown:
        note(f"{path}: ignoring column(s) that are neither probe nor rigid-body columns: "
             + ", ".join(unknown[:8]) + (" ..." if len(unknown) > 8 else ""))
    data = []
    body = rows[1:]
    while body and not body[-1]:
        body.pop()
    for ln, r in enumerate(body, start=2):
        if len(r) != len(header):
            if ln == len(body) + 1 and len(r) < len(header) and path.endswith(".part"):
                note(f"{path}: line {ln} is incomplete (a row being written); left out")
                break
            raise InputError(f"{path}: line {ln} has {len(r)} values, the header {len(header)} columns")
        try:
            data.append([float(v) for v in r])
        except ValueError:
            bad = next(j for j, v in enumerate(r) if not _is_float(v))
            raise InputError(f"{path}: line {ln}, column '{header[bad]}': '{r[bad]}' is not a number")
    if not data:
        raise InputError(f"{path}: header only, no data rows")
    return header, data, probes, bodies, stage


def _is_float(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


def read_summary(folder):
    """The "analysis" ("modal", "static", "dynamic") and the "modal" object
    of FOLDER/summary.json; (None, {}) where there is no readable one."""
    path = os.path.join(folder, "summary.json")
    if not os.path.isfile(path):
        return None, {}
    try:
        with open(path, encoding="utf-8") as f:
            js = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        note(f"{path}: not readable as JSON ({e}); telling the kind of run from the files")
        return None, {}
    if not isinstance(js, dict):
        return None, {}
    kind = js.get("analysis")
    if kind not in ("modal", "static", "dynamic"):
        if kind is not None:
            note(f"{path}: unknown analysis '{kind}'; telling the kind of run from the files")
        kind = None
    modal = js.get("modal") if isinstance(js.get("modal"), dict) else {}
    return kind, modal


def read_modes(path):
    """modes.csv: [(mode, eigenvalue, frequency)] in file order."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV text file ({e})")
    if not rows or all(not r for r in rows):
        raise InputError(f"{path}: empty file (no header line)")
    header = [c.strip() for c in rows[0]]
    if header != MODES_HEADER:
        raise InputError(f"{path}: line 1 is not a crdyn modes header (expected {','.join(MODES_HEADER)}, "
                         f"got {','.join(header)})")
    modes = []
    for ln, r in enumerate(rows[1:], start=2):
        if not r:
            continue
        if len(r) != 3:
            raise InputError(f"{path}: line {ln} has {len(r)} values, the header 3 columns")
        try:
            modes.append((int(r[0]), float(r[1]), float(r[2])))
        except ValueError:
            raise InputError(f"{path}: line {ln}: '{','.join(r)}' is not a mode number and two numbers")
    if not modes:
        raise InputError(f"{path}: header only, no modes")
    return modes


def detect(arg):
    """What to plot for ARG: ("modal", modes.csv path, summary's modal
    object) or (kind, history path, {}) with kind "static", "dynamic" or
    None (not known: decided from the history's time column)."""
    if os.path.isfile(arg) and os.path.basename(arg) == "modes.csv":
        _, modal = read_summary(os.path.dirname(arg) or ".")
        return "modal", arg, modal
    folder = arg if os.path.isdir(arg) else (os.path.dirname(arg) or ".")
    kind, modal = read_summary(folder) if os.path.isdir(folder) else (None, {})
    modes = os.path.join(folder, "modes.csv")
    if kind == "modal" or (kind is None and os.path.isfile(modes)):
        if not os.path.isfile(modes):
            raise InputError(f"{folder}: summary.json says a modal run, but there is no modes.csv")
        return "modal", modes, modal
    return kind, locate(arg), {}


# ---------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------

def reference_row(work):
    """First row from which external_work stays constant to the end (to
    WORK_TOL of max |work|); 0 if it changes up to the last row."""
    n = len(work)
    finite = [abs(w) for w in work if math.isfinite(w)]
    scale = max(finite) if finite else 0.0
    if n <= 1 or scale == 0.0:
        return 0, "external_work is constant over the whole history"
    tol = WORK_TOL * scale
    last = work[-1]
    r = n - 1
    while r > 0 and abs(work[r - 1] - last) <= tol:
        r -= 1
    if r == n - 1:
        return 0, "external_work changes up to the last row, so the initial state"
    if r == 0:
        return 0, "external_work is constant over the whole history"
    return r, "external_work is constant from this row on"


def rel_drift(np, v, ref, scale):
    if not (scale > 0.0 and math.isfinite(scale)):
        return np.zeros_like(v)
    return (v - v[ref]) / scale


def nanmax_abs(np, a):
    a = np.abs(np.asarray(a, dtype=float))
    a = a[np.isfinite(a)]
    return float(a.max()) if a.size else 0.0


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------

def style(plt):
    plt.rcParams.update({
        "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
        "legend.fontsize": 9, "xtick.labelsize": 9, "ytick.labelsize": 9,
        "axes.grid": True, "grid.alpha": 0.35, "lines.linewidth": 1.4,
        "axes.titlepad": 14,  # room for a y-axis offset text ("1e-15") under the title
        "axes.formatter.limits": (-3, 4), "axes.formatter.useoffset": False,
        "figure.dpi": DPI, "savefig.dpi": DPI,
    })


def describe(np, fig, xlabel):
    """The text of the PNG's "Description" chunk: per visible panel its
    title and axis labels, per labelled curve its number of points and the
    ranges of x and y, and every vertical marker line (gid "vline") with
    its x.  Read from the drawn artists, so it says what the figure shows."""
    out = []
    for k, ax in enumerate(a for a in fig.axes if a.get_visible()):
        out.append(f"panel {k + 1}: '{ax.get_title()}'; x: {ax.get_xlabel() or xlabel}; "
                   f"y: {ax.get_ylabel()}")
        for ln in ax.get_lines():
            gid = ln.get_gid() or ""
            if gid.startswith("vline:"):
                out.append(f"  vertical line '{gid[6:]}' at x = {float(ln.get_xdata()[0]):.10g}")
                continue
            lab = ln.get_label()
            if lab.startswith("_"):
                continue
            x = np.asarray(ln.get_xdata(), dtype=float)
            y = np.asarray(ln.get_ydata(), dtype=float)
            fin = np.isfinite(x) & np.isfinite(y)
            if fin.any():
                out.append(f"  curve '{lab}': {x.size} points, x {x[fin].min():.10g} .. {x[fin].max():.10g}, "
                           f"y {y[fin].min():.10g} .. {y[fin].max():.10g}")
            else:
                out.append(f"  curve '{lab}': {x.size} points, none finite")
    return "\n".join(out)


def png_bytes(plt, np, fig, xlabel=""):
    desc = describe(np, fig, xlabel)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Description": desc})
    plt.close(fig)
    return buf.getvalue()


def vline(ax, x, label, what=None, **kw):
    """A vertical marker line (legend LABEL, "_..." for none) that describe()
    lists as WHAT (default: the label; gid "vline:WHAT")."""
    ln = ax.axvline(x, label=label, **kw)
    ln.set_gid("vline:" + (what or label.lstrip("_")))
    return ln


def modes_figure(plt, np, modes, title, nrigid_summary=None):
    """modes.png: frequency against mode number, rigid-body modes (frequency
    0, as modal.c writes them) marked apart."""
    num = np.array([m[0] for m in modes], dtype=float)
    f = np.array([m[2] for m in modes], dtype=float)
    rigid = f == 0.0
    nr = int(rigid.sum())
    if nrigid_summary is not None and nrigid_summary != nr:
        note(f"summary.json counts {nrigid_summary} rigid-body mode(s), modes.csv {nr} with frequency 0")
    fig, ax = plt.subplots(1, 1, figsize=(9.0, 5.5), squeeze=True)
    what = "natural frequencies"
    fig.suptitle(f"{title}: {what}" if title else what, fontsize=12)
    mk = {"markersize": 6} if len(modes) <= MARKER_ROWS else {"markersize": 3}
    if (~rigid).any():
        ax.plot(num[~rigid], f[~rigid], "o-", color="C0", label="elastic modes", **mk)
        if (~rigid).sum() <= 20:
            for x, y in zip(num[~rigid], f[~rigid]):
                ax.annotate(f"{y:.4g}", (x, y), textcoords="offset points", xytext=(4, 6), fontsize=8)
    if nr:
        ax.plot(num[rigid], f[rigid], "s", color="C3", linestyle="none",
                label=f"rigid-body modes ({nr}, frequency 0)", **mk)
    el = f[~rigid]
    ax.set_title(f"{len(modes)} modes, {nr} rigid-body"
                 + (f"; elastic {el.min():.6g} .. {el.max():.6g}" if el.size else "; no elastic mode"))
    ax.set_xlabel("mode number")
    ax.set_ylabel("frequency (cycles per unit time)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    fin = f[np.isfinite(f)]
    if fin.size and fin.max() > 0:  # room under 0 for the rigid-body markers
        ax.set_ylim(bottom=min(float(fin.min()), 0.0) - 0.04 * float(fin.max()))
    ax.legend(loc="best")
    fig.tight_layout()
    return png_bytes(plt, np, fig, "mode number")


class Plotter:
    def __init__(self, plt, np, header, data, title, path, kind=None, stage=None):
        self.plt, self.np = plt, np
        self.col = {h: j for j, h in enumerate(header)}
        self.a = np.array(data, dtype=float)
        self.n = self.a.shape[0]
        self.title = title
        t, lf = self.v("time"), self.v("load_factor")
        self.statics = kind == "static" if kind in ("static", "dynamic") else bool(np.all(t == 0.0))
        # Stage boundaries: the rows i where the stage number changes (from
        # one >= 1); stage s[i] starts at time[i - 1].
        self.stage_rows = []
        if stage is not None:
            s = self.a[:, stage]
            self.stage_rows = [i for i in range(1, self.n)
                               if s[i] != s[i - 1] and s[i - 1] >= 1 and np.isfinite(s[i])]
        self.stage = self.a[:, stage] if stage is not None else None
        if not self.statics:
            self.x, self.xlabel = t, "time"
        elif np.isfinite(lf).any() and np.ptp(lf[np.isfinite(lf)]) > 0:
            self.x, self.xlabel = lf, "load factor"
        else:
            self.x, self.xlabel = self.v("step"), "step"
        self.mk = dict(marker="o", markersize=3) if self.n <= MARKER_ROWS else {}
        self.ref, self.ref_why = reference_row(list(self.v("external_work")))

    def v(self, name):
        return self.a[:, self.col[name]]

    def c(self, j):
        return self.a[:, j]

    def figure(self, nrows, ncols, what, w=9.0, h=None, sharex=True):
        h = h if h is not None else 1.0 + 3.0 * nrows
        fig, axes = self.plt.subplots(nrows, ncols, figsize=(w, h), sharex=sharex, squeeze=False)
        fig.suptitle(f"{self.title}: {what}" if self.title else what, fontsize=12)
        return fig, axes

    def mark_ref(self, ax):
        if self.ref > 0:
            vline(ax, self.x[self.ref], f"reference (row {self.ref})",
                  color="0.4", linestyle="--", linewidth=1.0)

    def stage_starts(self, by_step=False):
        """[(x, stage number)] of the stage boundaries: against time (or
        load factor) the first time of the new stage; against the step,
        half way between the last step of one stage and the first of the next."""
        out = []
        for i in self.stage_rows:
            if by_step:
                st = self.v("step")
                out.append((0.5 * (st[i - 1] + st[i]), int(self.stage[i])))
            else:
                out.append((self.x[i - 1], int(self.stage[i])))
        return out

    def mark_stages(self, axes, by_step=False):
        starts = self.stage_starts(by_step)
        if not starts:
            return
        for r, row in enumerate(axes):
            for ax in row:
                if not ax.get_visible():
                    continue
                for j, (x, sn) in enumerate(starts):
                    vline(ax, x, "stage boundary" if j == 0 else "_stage boundary", f"stage {sn} starts",
                          color="C7", linestyle=":", linewidth=1.2)
                    if r == 0:
                        ax.text(x, 1.0, f" stage {sn}", transform=ax.get_xaxis_transform(),
                                fontsize=8, color="0.3", va="top", ha="left")

    def finish(self, fig, axes, xlabel=None, by_step=False):
        self.mark_stages(axes, by_step)
        for row in axes:
            for ax in row:
                if ax.get_visible() and ax.get_legend() is not None:
                    ax.legend(loc="best")  # again, so that the stage boundary is listed
        for ax in axes[-1]:
            ax.set_xlabel(xlabel or self.xlabel)
        fig.tight_layout()
        return png_bytes(self.plt, self.np, fig, xlabel or self.xlabel)

    def energy_static(self):
        """Statics: strain energy and external work against the load factor
        (no kinetic energy, no conservation to show)."""
        fig, ax = self.figure(1, 1, "energy", h=5.5)
        for name, label in (("strain", "strain energy"), ("external_work", "external work")):
            ax[0, 0].plot(self.x, self.v(name), label=label, **self.mk)
        ax[0, 0].set_ylabel("energy")
        ax[0, 0].set_title("strain energy and external work (statics: no kinetic energy)")
        ax[0, 0].legend(loc="best")
        return self.finish(fig, ax)

    def energy(self):
        fig, ax = self.figure(2, 1, "energy", h=7.5)
        for name, label in (("kinetic", "kinetic"), ("strain", "strain"),
                            ("external_work", "external work"), ("total", "total")):
            ax[0, 0].plot(self.x, self.v(name), label=label,
                          linewidth=2.0 if name == "total" else 1.4, **self.mk)
        ax[0, 0].set_ylabel("energy")
        ax[0, 0].set_title("energies (total = kinetic + strain - external work)")
        self.mark_ref(ax[0, 0])
        ax[0, 0].legend(loc="best")
        scale = max(nanmax_abs(self.np, self.v(k)) for k in ("kinetic", "strain", "external_work", "total"))
        d = rel_drift(self.np, self.v("total"), self.ref, scale)
        ax[1, 0].plot(self.x, d, color="C3", label="total", **self.mk)
        self.mark_ref(ax[1, 0])
        ax[1, 0].axhline(0.0, color="0.2", linewidth=0.8)
        ax[1, 0].set_ylabel("relative drift")
        extra = " (all energies are zero)" if scale == 0.0 else ""
        if self.statics:
            extra += "\n(statics: total = strain - external work is not conserved; not a conservation check)"
        ax[1, 0].set_title(f"relative drift of total: (total - total[row {self.ref}]) / max|energy|{extra}")
        ax[1, 0].legend(loc="best")
        return self.finish(fig, ax)

    def momentum(self):
        fig, ax = self.figure(2, 2, "momentum", w=12.0, h=7.5)
        for k, (sym, what) in enumerate((("L", "linear momentum"), ("J", "angular momentum (about the origin)"))):
            comps = [self.v(sym + c) for c in "xyz"]
            norm = self.np.sqrt(sum(c * c for c in comps))
            scale = nanmax_abs(self.np, norm)
            zero = " (all zero)" if scale == 0.0 else ""
            # Loads change the momenta, so their drift is shown from the
            # reference row on only (where the external work stops changing).
            tail = slice(self.ref, None)
            for c, comp in zip("xyz", comps):
                ax[0, k].plot(self.x, comp, label=sym + c, **self.mk)
                ax[1, k].plot(self.x[tail], rel_drift(self.np, comp, self.ref, scale)[tail],
                              label=sym + c, **self.mk)
            ax[0, k].set_title(what + zero)
            ax[0, k].set_ylabel("angular momentum" if sym == "J" else "momentum")
            since = f", from row {self.ref} on" if self.ref > 0 else ""
            ax[1, k].set_title(f"relative drift: ({sym}i - {sym}i[row {self.ref}]) / max|{sym}|{since}{zero}")
            ax[1, k].set_ylabel("relative drift")
            ax[1, k].axhline(0.0, color="0.2", linewidth=0.8)
            for r in (0, 1):
                self.mark_ref(ax[r, k])
                ax[r, k].legend(loc="best")
        return self.finish(fig, ax)

    def probes(self, probes):
        n = len(probes)
        ncols = 1 if n == 1 else (2 if n <= 4 else 3)
        nrows = (n + ncols - 1) // ncols
        fig, ax = self.figure(nrows, ncols, "probe displacements",
                              w=9.0 if ncols == 1 else 6.0 * ncols,
                              h=(4.5 if nrows == 1 else 1.0 + 3.0 * nrows))
        for k, (name, cols) in enumerate(probes):
            a = ax[k // ncols, k % ncols]
            for s in ("ux", "uy", "uz"):
                a.plot(self.x, self.c(cols[s]), label=s, **self.mk)
            a.set_title(f"probe {name}")
            a.set_ylabel("displacement")
            a.legend(loc="best")
        for k in range(n, nrows * ncols):
            ax[k // ncols, k % ncols].set_visible(False)
            # Put the x labels on the panels above the empty ones.
            ax[k // ncols - 1, k % ncols].set_xlabel(self.xlabel)
            ax[k // ncols - 1, k % ncols].tick_params(labelbottom=True)
        return self.finish(fig, ax)

    def bodies(self, bodies):
        groups = (("position", ("x", "y", "z"), "position"),
                  ("orientation (quaternion)", ("qw", "qx", "qy", "qz"), "quaternion"),
                  ("velocity", ("vx", "vy", "vz"), "velocity"),
                  ("angular velocity", ("wx", "wy", "wz"), "angular velocity"))
        fig, ax = self.figure(2 * len(bodies), 2, "rigid bodies", w=12.0, h=1.0 + 6.5 * len(bodies))
        for r, (name, cols) in enumerate(bodies):
            for k, (what, sfx, ylabel) in enumerate(groups):
                a = ax[2 * r + k // 2, k % 2]
                for s in sfx:
                    a.plot(self.x, self.c(cols[s]), label=s, **self.mk)
                a.set_title(f"body {name}: {what}")
                a.set_ylabel(ylabel)
                a.legend(loc="best")
        return self.finish(fig, ax)

    def steps(self):
        np = self.np
        t, st = self.v("time"), self.v("step")
        ds, dt = np.diff(st), np.diff(t)
        sel = (ds > 0) & (dt > 0)
        h, x = dt[sel] / ds[sel], t[1:][sel]
        fig, ax = self.figure(1, 1, "step length", h=4.5)
        mk = self.mk if sel.sum() <= MARKER_ROWS else {}
        if INTEGRATOR in self.col:  # an auto stage: the steps of each integrator in their own colour
            kind = self.v(INTEGRATOR)[1:][sel]
            for code, name, colour in ((1, "explicit steps", "C3"), (2, "implicit steps", "C0")):
                if (kind == code).any():
                    ax[0, 0].semilogy(x, np.where(kind == code, h, np.nan), drawstyle="steps-pre", color=colour,
                                      label=name, **mk)
        else:
            ax[0, 0].semilogy(x, h, drawstyle="steps-pre", color="C2", label="step length", **mk)
        ax[0, 0].set_title(f"step length: {np.min(h):.3g} to {np.max(h):.3g} over {int(np.sum(ds[sel]))} steps")
        ax[0, 0].set_ylabel("dt")
        ax[0, 0].grid(True, which="major", alpha=0.35)
        ax[0, 0].legend(loc="best")
        return self.finish(fig, ax)

    def newton(self):
        np = self.np
        step, it, res = self.v("step"), self.v("iterations"), self.v("residual")
        sel = np.ones(self.n, dtype=bool)
        if self.n > 1:
            sel[0] = False  # row 0, the initial state, has no iterations
        fig, ax = self.figure(2, 1, "Newton iterations", h=7.0)
        mk = self.mk if sel.sum() <= MARKER_ROWS else {}
        ax[0, 0].plot(step[sel], it[sel], drawstyle="steps-mid", color="C0", label="iterations", **mk)
        ax[0, 0].set_ylabel("iterations")
        ax[0, 0].set_title(f"iterations per step (total {int(np.nansum(it))}, "
                           f"max {int(np.nanmax(it[sel]))})")
        ax[0, 0].yaxis.get_major_locator().set_params(integer=True)
        ax[0, 0].set_ylim(bottom=0)
        ax[0, 0].legend(loc="best")
        pos = sel & np.isfinite(res) & (res > 0)
        if pos.any():
            ax[1, 0].semilogy(step[pos], res[pos], color="C3", label="residual", **mk)
            ax[1, 0].legend(loc="best")
            ax[1, 0].set_title("residual at the end of each step")
        else:
            ax[1, 0].set_title("residual: no positive values to show on a log axis")
        ax[1, 0].set_ylabel("residual")
        ax[1, 0].grid(True, which="major", alpha=0.35)
        ax[1, 0].grid(True, which="minor", alpha=0.12)
        return self.finish(fig, ax, xlabel="step", by_step=True)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def write_atomic(path, blob):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_all(blobs, out):
    """Write the (name, PNG bytes) pairs to OUT; 0 or 1 (error printed)."""
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        print(f"{PROG}: error: cannot create the folder {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    for name, blob in blobs:
        dest = os.path.join(out, name)
        try:
            write_atomic(dest, blob)
        except OSError as e:
            print(f"{PROG}: error: cannot write {dest}: {e.strerror or e}", file=sys.stderr)
            return 1
        print(f"wrote {dest}", flush=True)
    written = {name for name, _ in blobs}
    stale = [n for n in ("energy.png", "momentum.png", "probes.png", "bodies.png", "newton.png", "modes.png",
                         "steps.png")
             if n not in written and os.path.exists(os.path.join(out, n))]
    for n in stale:
        note(f"{os.path.join(out, n)} was not rewritten (nothing of that kind in this run); "
             "it is from an earlier plot")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="crdyn_plot.py",
        description="Plot a crdyn run as PNG files: a dynamic history (energy, momentum, probes, "
                    "rigid bodies, Newton iterations), a static one (probes and energies against "
                    "the load factor, Newton iterations) or a modal run's frequencies.")
    ap.add_argument("input", metavar="OUTDIR_OR_HISTORY_CSV",
                    help="a crdyn output folder (its history.csv, or modes.csv for a modal run, "
                         "is read), a history file or a modes.csv")
    ap.add_argument("--out", metavar="DIR",
                    help="folder for the PNG files (default: the folder of the history file)")
    ap.add_argument("--title", metavar="T",
                    help="title over every figure (default: the name of the history's folder)")
    args = ap.parse_args(argv)
    matplotlib, plt, np = import_matplotlib()

    try:
        kind, path, modal = detect(args.input)
        if kind == "modal":
            modes = read_modes(path)
        else:
            header, data, probes, bodies, stage = read_history(path)
    except InputError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1

    style(plt)
    src_dir = os.path.dirname(os.path.abspath(path))
    out = args.out if args.out is not None else (os.path.dirname(path) or ".")
    title = args.title if args.title is not None else os.path.basename(src_dir)

    if kind == "modal":
        nr = sum(1 for m in modes if m[2] == 0.0)
        el = [m[2] for m in modes if m[2] != 0.0]
        print(f"{path}: modal, {len(modes)} modes, {nr} rigid-body (frequency 0)"
              + (f", elastic frequencies {min(el):.6g} .. {max(el):.6g}" if el else ", no elastic mode")
              + "; abscissa: mode number")
        rs = modal.get("rigid_body_modes")
        blobs = [("modes.png", modes_figure(plt, np, modes, title, rs if isinstance(rs, int) else None))]
        return write_all(blobs, out)

    p = Plotter(plt, np, header, data, title, path, kind, stage)
    what = "statics" if p.statics else "dynamics"
    print(f"{path}: {p.n} rows, {len(probes)} probe(s), {len(bodies)} rigid body(ies), "
          f"{what}; abscissa: {p.xlabel}")
    if p.stage_rows:
        print("stage boundaries: " + ", ".join(f"stage {sn} from {p.xlabel} {x:.6g}"
                                               for x, sn in p.stage_starts()))
    iters = np.any(np.nan_to_num(p.v("iterations")) != 0)
    if p.statics:
        figs = []
        if probes:
            figs.append(("probes.png", lambda: p.probes(probes)))
        else:
            note("no probe columns in this history: no probes.png (output.probes in the case adds them)")
        if nanmax_abs(np, p.v("strain")) > 0 or nanmax_abs(np, p.v("external_work")) > 0:
            figs.append(("energy.png", p.energy_static))
        if bodies:
            figs.append(("bodies.png", lambda: p.bodies(bodies)))
    else:
        r = p.ref
        where = f"step {p.v('step')[r]:.0f}, {p.xlabel} {p.x[r]:.6g}"
        print(f"reference row for drift: {r} ({where}): {p.ref_why}")
        figs = [("energy.png", p.energy), ("momentum.png", p.momentum)]
        if np.any((np.diff(p.v("step")) > 0) & (np.diff(p.v("time")) > 0)):
            figs.append(("steps.png", p.steps))
        if probes:
            figs.append(("probes.png", lambda: p.probes(probes)))
        if bodies:
            figs.append(("bodies.png", lambda: p.bodies(bodies)))
    if iters:
        figs.append(("newton.png", p.newton))
    if not figs:
        print(f"{PROG}: error: {path}: nothing to plot (a static history without probes, "
              "with zero energies and no Newton iterations)", file=sys.stderr)
        return 1
    # Draw everything first: an error while drawing leaves no file written.
    blobs = [(name, fn()) for name, fn in figs]
    return write_all(blobs, out)


if __name__ == "__main__":
    sys.exit(main())
