/* crdyn: one VTU frame of the run's state (run.h, docs/case_format.md
 * "Frames"): the nodal fields, the element results in their co-rotated
 * frames, and at intersection nodes the triads and the corners' normals.
 *
 * In one process the frame is frames/frame_NNNNNN.vtu.  Over MPI ranks
 * (parallel.h) each rank writes the piece of its block of elements,
 * frames/frame_NNNNNN_pR.vtu (those elements and the nodes they use, with
 * the fields `node_id` and `element_id` giving their indices in the
 * mesh), and rank 0 writes frames/frame_NNNNNN.pvtu, which ParaView opens
 * as one data set; result.pvd lists the .pvtu.  A node shared by two
 * blocks is in both pieces, with the same values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_eval.h"
#include "crdyn/error.h"
#include "crdyn/output.h"
#include "crdyn/parallel.h"
#include "crdyn/run.h"
#include "crdyn/shell_results.h"
#include "crdyn/triads.h"

/* Per-element results of the current state (shell_results.h), as VTU cell
 * fields: the resultants in the co-rotated element frame, that frame's axes,
 * and the strain energy per unit initial area. */
enum { RES_NXX, RES_NYY, RES_NXY, RES_MXX, RES_MYY, RES_MXY, RES_QX, RES_QY, RES_SED, RES_NSCALAR };
static const char *const res_names[RES_NSCALAR] = {"N_xx", "N_yy", "N_xy", "M_xx", "M_yy",
                                                   "M_xy", "Q_x",  "Q_y",  "strain_energy_density"};
enum { MAX_POINT_FIELDS = 8, MAX_CELL_FIELDS = RES_NSCALAR + 4 };

/* The results of elements [e0, e1) into sc (RES_NSCALAR arrays of ne),
 * ex, ey (3 ne); the other elements' entries are left alone. */
static void element_results(const crd_problem *pb, int e0, int e1, double *sc, double *ex, double *ey)
{
  const crd_model *m = pb->m;
  size_t ne = (size_t)m->ne;
#pragma omp parallel for schedule(static) num_threads(crd_pass_threads(pb, e1 - e0, CRD_PASS_MIN_ELEMS))
  for (int e = e0; e < e1; ++e) {
    double X0[12], p0[12], d[12], p[12];
    const int32_t *qd = m->quads + 4 * e;
    crd_elem_gather3(qd, m->x, X0);
    crd_elem_gather3(qd, pb->d, d);
    crd_problem_elem_normals(pb, e, p0, p); /* a patch's own normal at an intersection node */
    crd_q4_mat mt = crd_backend_section_mat(pb, e);
    crd_q4_results res;
    crd_q4_results_global(X0, p0, d, p, &mt, &res);
    const double v[RES_NSCALAR] = {res.N[0], res.N[1], res.N[2], res.M[0], res.M[1],
                                   res.M[2], res.Q[0], res.Q[1], res.u};
    for (int k = 0; k < RES_NSCALAR; ++k) sc[k * ne + (size_t)e] = v[k];
    for (int c = 0; c < 3; ++c) {
      ex[3 * (size_t)e + c] = res.ex[c];
      ey[3 * (size_t)e + c] = res.ey[c];
    }
  }
}

/* The fields of a shell with intersection nodes (triads.h): at each node
 * 1 where it carries a triad, 0 elsewhere, and the triad's e_x, e_y there
 * (zero at smooth nodes, whose frame is their normal alone; e_z is the
 * "normal" field); for each element the normal each of its corners sees,
 * 12 components: its patch's normal at an intersection node, the node's
 * normal elsewhere.  NULL arrays where the shell has no triads. */
typedef struct triad_out {
  double *mask, *ex, *ey, *corner;
} triad_out;

static int triad_out_fill(const crd_problem *pb, triad_out *t)
{
  const crd_triads *tr = pb->tr;
  const crd_model *m = pb->m;
  int rc;
  if (!tr) return 0;
  if ((rc = CRD_CALLOC((size_t)m->nn, &t->mask)) || (rc = CRD_CALLOC(3 * (size_t)m->nn, &t->ex)) ||
      (rc = CRD_CALLOC(3 * (size_t)m->nn, &t->ey)) || (rc = CRD_CALLOC(12 * (size_t)m->ne, &t->corner)))
    return rc;
  for (int k = 0; k < tr->n; ++k) {
    size_t i = (size_t)tr->node[k];
    t->mask[i] = 1.0;
    memcpy(t->ex + 3 * i, tr->E + 9 * k, 3 * sizeof(double));
    memcpy(t->ey + 3 * i, tr->E + 9 * k + 3, 3 * sizeof(double));
  }
  for (int e = 0; e < m->ne; ++e) {
    double p0[12];
    crd_problem_elem_normals(pb, e, p0, t->corner + 12 * (size_t)e);
  }
  return 0;
}

/* The whole frame's arrays: current positions, element results, triads. */
typedef struct frame_data {
  double *xc, *sc, *ex, *ey;
  triad_out tri;
  crd_vtu_field pf[MAX_POINT_FIELDS], cf[MAX_CELL_FIELDS];
  int npf, ncf;
} frame_data;

static void frame_data_free(frame_data *f)
{
  free(f->xc);
  free(f->sc);
  free(f->ex);
  free(f->ey);
  free(f->tri.mask);
  free(f->tri.ex);
  free(f->tri.ey);
  free(f->tri.corner);
}

static int frame_data_fill(const crd_run *r, int e0, int e1, frame_data *f)
{
  const crd_problem *pb = r->pb;
  const crd_model *m = r->m;
  size_t ne = (size_t)m->ne;
  int rc;
  if ((rc = CRD_CALLOC(3 * (size_t)m->nn, &f->xc)) || (rc = CRD_CALLOC(RES_NSCALAR * ne, &f->sc)) ||
      (rc = CRD_CALLOC(3 * ne, &f->ex)) || (rc = CRD_CALLOC(3 * ne, &f->ey)) ||
      (rc = triad_out_fill(pb, &f->tri)))
    return rc;
  for (int i = 0; i < 3 * m->nn; ++i) f->xc[i] = m->x[i] + pb->d[i];
  element_results(pb, e0, e1, f->sc, f->ex, f->ey);
  f->npf = f->ncf = 0;
  f->pf[f->npf++] = (crd_vtu_field){"displacement", 3, pb->d};
  f->pf[f->npf++] = (crd_vtu_field){"normal", 3, pb->p};
  /* rates only where there are any (dynamics): a zero field in a static
   * frame would read as a computed state of rest */
  if (r->vel && r->normal_rate) {
    f->pf[f->npf++] = (crd_vtu_field){"velocity", 3, r->vel};
    f->pf[f->npf++] = (crd_vtu_field){"normal_rate", 3, r->normal_rate};
  }
  for (int k = 0; k < RES_NSCALAR; ++k) f->cf[f->ncf++] = (crd_vtu_field){res_names[k], 1, f->sc + (size_t)k * ne};
  f->cf[f->ncf++] = (crd_vtu_field){"frame_x", 3, f->ex};
  f->cf[f->ncf++] = (crd_vtu_field){"frame_y", 3, f->ey};
  if (f->tri.mask) {
    f->pf[f->npf++] = (crd_vtu_field){"intersection", 1, f->tri.mask};
    f->pf[f->npf++] = (crd_vtu_field){"triad_x", 3, f->tri.ex};
    f->pf[f->npf++] = (crd_vtu_field){"triad_y", 3, f->tri.ey};
    f->cf[f->ncf++] = (crd_vtu_field){"corner_normals", 12, f->tri.corner};
  }
  return 0;
}

/* Rows `rows` (n of them) of the field fl (ncomp doubles a row) into out. */
static void pick_rows(const crd_vtu_field *fl, const int32_t *rows, int n, double *out)
{
  for (int k = 0; k < n; ++k)
    memcpy(out + (size_t)fl->ncomp * k, fl->data + (size_t)fl->ncomp * rows[k], (size_t)fl->ncomp * sizeof(double));
}

/* The piece of elements [e0, e1): the nodes they use (ascending), their
 * quads renumbered, every field restricted to them, and their indices in
 * the mesh (`node_id`, `element_id`).  buf holds the positions (3 nn)
 * first, then the restricted fields one after the other. */
typedef struct piece {
  int nn, ne;
  int32_t *node, *local, *quads; /* node: nn mesh indices; local: the mesh's nn, -1 outside */
  double *buf;
  crd_vtu_field pf[MAX_POINT_FIELDS + 1], cf[MAX_CELL_FIELDS + 1];
} piece;

static void piece_free(piece *pc)
{
  free(pc->node);
  free(pc->local);
  free(pc->quads);
  free(pc->buf);
}

static int piece_mesh(const crd_model *m, int e0, int e1, piece *pc)
{
  int rc;
  pc->ne = e1 - e0;
  if ((rc = CRD_CALLOC((size_t)m->nn, &pc->local)) || (rc = CRD_CALLOC((size_t)m->nn, &pc->node)) ||
      (rc = CRD_CALLOC(4 * (size_t)pc->ne + 1, &pc->quads)))
    return rc;
  for (int i = 0; i < m->nn; ++i) pc->local[i] = -1;
  for (int k = 4 * e0; k < 4 * e1; ++k) pc->local[m->quads[k]] = 0;
  pc->nn = 0;
  for (int i = 0; i < m->nn; ++i)
    if (pc->local[i] == 0) {
      pc->local[i] = pc->nn;
      pc->node[pc->nn++] = i;
    }
  for (int k = 4 * e0; k < 4 * e1; ++k) pc->quads[k - 4 * e0] = pc->local[m->quads[k]];
  return 0;
}

static int piece_fields(const frame_data *f, int e0, piece *pc)
{
  size_t total = 4 * (size_t)pc->nn + (size_t)pc->ne;
  for (int k = 0; k < f->npf; ++k) total += (size_t)f->pf[k].ncomp * pc->nn;
  for (int k = 0; k < f->ncf; ++k) total += (size_t)f->cf[k].ncomp * pc->ne;
  int32_t *elems = NULL;
  int rc;
  if ((rc = CRD_CALLOC(total, &pc->buf)) || (rc = CRD_CALLOC((size_t)pc->ne + 1, &elems))) {
    free(elems);
    return rc;
  }
  for (int k = 0; k < pc->ne; ++k) elems[k] = e0 + k;
  double *w = pc->buf;
  const crd_vtu_field xf = {"x", 3, f->xc};
  pick_rows(&xf, pc->node, pc->nn, w);
  w += 3 * (size_t)pc->nn;
  for (int k = 0; k < f->npf; ++k) {
    pick_rows(&f->pf[k], pc->node, pc->nn, w);
    pc->pf[k] = (crd_vtu_field){f->pf[k].name, f->pf[k].ncomp, w};
    w += (size_t)f->pf[k].ncomp * pc->nn;
  }
  for (int k = 0; k < f->ncf; ++k) {
    pick_rows(&f->cf[k], elems, pc->ne, w);
    pc->cf[k] = (crd_vtu_field){f->cf[k].name, f->cf[k].ncomp, w};
    w += (size_t)f->cf[k].ncomp * pc->ne;
  }
  for (int k = 0; k < pc->nn; ++k) w[k] = pc->node[k]; /* mesh indices: exact in a double */
  pc->pf[f->npf] = (crd_vtu_field){"node_id", 1, w};
  w += pc->nn;
  for (int k = 0; k < pc->ne; ++k) w[k] = e0 + k;
  pc->cf[f->ncf] = (crd_vtu_field){"element_id", 1, w};
  free(elems);
  return 0;
}

/* This rank's piece of the frame. */
static int write_piece(const crd_run *r, const frame_data *f, int e0, int e1, const char *path)
{
  piece pc = {0};
  int rc = piece_mesh(r->m, e0, e1, &pc);
  if (!rc) rc = piece_fields(f, e0, &pc);
  if (!rc) rc = crd_vtu_write(path, pc.nn, pc.buf, pc.ne, pc.quads, f->npf + 1, pc.pf, f->ncf + 1, pc.cf);
  piece_free(&pc);
  return rc;
}

/* Over ranks: every rank writes its piece, then rank 0 the .pvtu naming
 * them (after all pieces exist: the status is agreed first). */
static int write_parallel(crd_run *r, const frame_data *f, int e0, int e1, const char *base, double time)
{
  int nranks = crd_par_size(), rank = crd_par_rank();
  char path[CRD_PATH_MAX + 96], rel[96];
  snprintf(path, sizeof path, "%s/frames/%s_p%d.vtu", r->dir, base, rank);
  int ready = 0; /* a collective call: rank 0 has made the folder and cleared an earlier run's frames */
  crd_par_max_int(&ready, 1);
  int rc = write_piece(r, f, e0, e1, path);
  int agreed = rc != 0;
  crd_par_max_int(&agreed, 1);
  if (agreed) return rc ? rc : CRD_ERR(CRD_ERR_IO, "%s: another rank could not write its piece of %s", r->dir, base);
  if (rank != 0) return 0;
  snprintf(path, sizeof path, "%s/frames/%s.pvtu", r->dir, base);
  crd_vtu_field pf[MAX_POINT_FIELDS + 1], cf[MAX_CELL_FIELDS + 1];
  memcpy(pf, f->pf, sizeof f->pf);
  memcpy(cf, f->cf, sizeof f->cf);
  pf[f->npf] = (crd_vtu_field){"node_id", 1, NULL};
  cf[f->ncf] = (crd_vtu_field){"element_id", 1, NULL};
  CRD_CALL(crd_pvtu_write(path, base, nranks, f->npf + 1, pf, f->ncf + 1, cf));
  snprintf(rel, sizeof rel, "frames/%s.pvtu", base);
  return crd_pvd_add(r->pvd, time, rel);
}

int crd_run_write_frame(crd_run *r, double time)
{
  int e0 = 0, e1 = r->m->ne, parallel = crd_par_size() > 1;
  if (parallel) crd_par_elem_range(r->m->ne, &e0, &e1);
  frame_data f = {0};
  char base[32], rel[64], path[CRD_PATH_MAX + 80];
  snprintf(base, sizeof base, "frame_%06d", r->nframes);
  int rc = frame_data_fill(r, e0, e1, &f);
  if (!rc && parallel) {
    rc = write_parallel(r, &f, e0, e1, base, time);
  } else if (!rc) {
    snprintf(rel, sizeof rel, "frames/%s.vtu", base);
    snprintf(path, sizeof path, "%s/%s", r->dir, rel);
    rc = crd_vtu_write(path, r->m->nn, f.xc, r->m->ne, r->m->quads, f.npf, f.pf, f.ncf, f.cf);
    if (!rc) rc = crd_pvd_add(r->pvd, time, rel);
  }
  frame_data_free(&f);
  if (!rc) r->nframes++;
  return rc;
}
