/* crdyn: output files.  Every file that can be mistaken for a complete
 * result is written under a temporary name and renamed when complete. */
#ifndef CRDYN_OUTPUT_H
#define CRDYN_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

/* Create the directory and its parents (mkdir -p). */
int crd_mkdir_p(const char *dir);
/* Write text to path atomically (path.tmp then rename). */
int crd_write_atomic(const char *path, const char *text);

/* history.csv (docs/case_format.md).  Rows go to history.csv.part while the run
 * goes on (flushed each row, so a user can follow it); close(complete=1)
 * renames it to history.csv; close(complete=0) leaves the .part file. */
typedef struct crd_history crd_history;
/* columns: the extra column names after the fixed ones (probe and body columns), n of them. */
int crd_history_open(const char *dir, int ncols_extra, const char *const *cols_extra, crd_history **h);
/* fixed: step, time, load_factor, iterations, residual, kinetic, strain,
 * external_work, total, Lx, Ly, Lz, Jx, Jy, Jz (step and iterations as
 * integers); extra: ncols_extra values. */
int crd_history_row(crd_history *h, int step, double time, double load_factor, int iterations,
                    double residual, const double energy[4], const double L[3], const double J[3],
                    const double *extra);
int crd_history_close(crd_history **h, int complete);
/* Bytes written so far (header included) and their FNV-1a 64 hash: what a
 * checkpoint records so that a restart can continue the same file. */
void crd_history_mark(const crd_history *h, int64_t *offset, uint64_t *hash);
/* Restart: reopen dir/history.csv.part (or history.csv, renamed back),
 * check that its first `offset` bytes hash to `hash`, cut it there and
 * append from there on. */
int crd_history_resume(const char *dir, int ncols_extra, int64_t offset, uint64_t hash, crd_history **h);

/* One VTU frame (UnstructuredGrid, VTK_QUAD cells, ASCII or base64
 * appended-free binary-inline; readable by ParaView). */
typedef struct crd_vtu_field {
  const char *name;
  int ncomp;               /* 1 or 3 (or any) */
  const double *data;      /* ncomp * (nn or ne) */
} crd_vtu_field;
int crd_vtu_write(const char *path, int nn, const double *x /* 3*nn current */, int ne,
                  const int32_t *quads, int npf, const crd_vtu_field *point_fields, int ncf,
                  const crd_vtu_field *cell_fields);

/* The parallel frame path (PUnstructuredGrid) over the pieces
 * BASE_p0.vtu .. BASE_p{npieces-1}.vtu in path's folder, declaring the
 * fields' names and components (their data are not read). */
int crd_pvtu_write(const char *path, const char *base, int npieces, int npf, const crd_vtu_field *point_fields,
                   int ncf, const crd_vtu_field *cell_fields);

/* result.pvd: a collection of (time, relative file) written anew (atomically)
 * each time a frame is added, so it always lists the frames that exist. */
typedef struct crd_pvd crd_pvd;
int crd_pvd_create(const char *dir, crd_pvd **p);
int crd_pvd_add(crd_pvd *p, double time, const char *relfile);
/* The <DataSet> lines so far (checkpoint), and a collection set back to
 * them (restart; written at once). */
const char *crd_pvd_entries(const crd_pvd *p, size_t *len);
int crd_pvd_restore(crd_pvd *p, const char *entries, size_t len);
void crd_pvd_destroy(crd_pvd **p);

#endif
