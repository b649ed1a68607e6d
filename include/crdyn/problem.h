/* crdyn: the discrete problem of a shell model: nodal normals, DOFs and
 * their equations, the state (translations, normals, independent pairs), the
 * sparse pattern and the assembled internal force and tangent.
 *
 * DOFs: 5 per node, slot 0..2 the translations d, slots 3..4 the
 * independent pair (p_n, p_m) of the unit normal, n < m the two components
 * other than the dependent one l[i] (director.h).  eq[5*i+s] is the
 * equation of slot s or -1 when fixed.  The pair of a node whose normal
 * components are supported is locked (the fixed component must stay
 * independent); others switch when the dependent component stops being the
 * largest (with hysteresis), which only changes what slots 3..4 mean.
 *
 * Intersection nodes (folds, junctions: more than one patch of the shell,
 * patches.h) carry a triad instead: slots 3..4 and tr->eq3 hold its three
 * chart variables (triads.h).  pb->tr is NULL on a smooth mesh, whose
 * arrays and code paths are those of the versions before. */
#ifndef CRDYN_PROBLEM_H
#define CRDYN_PROBLEM_H

#include <stdint.h>

#include "crdyn/backend.h"
#include "crdyn/model.h"
#include "crdyn/sparse.h"

typedef struct crd_prescribed {  /* a translation with a prescribed history */
  int32_t node, comp, support;
} crd_prescribed;

/* Wall time and counts of the element phases (for --timing and the bench):
 * the OpenMP element loops (tangent + force, force only, and the implicit
 * midpoint kernel with its inertia) and the serial scatter into F and K. */
typedef struct crd_phase_times {
  double elem_K_s, elem_f_s, elem_mid_s, assemble_s;
  long long nelem_K, nelem_f, nelem_mid, nassemble;
  long long nelem_batched;       /* of those, evaluated in full vectors (CPU, elem_isa.h) */
  /* the midpoint passes that also form the tangent (a part of elem_mid_s),
   * and the fastest of them per element: the steady rate, without the first
   * touch of the element output arrays that the first pass pays (5.2 KB an
   * element: on the 256x256 plate the page clearing is two thirds of that pass) */
  double elem_mid_K_s, elem_mid_K_fastest_each_s;
  long long nelem_mid_K;
} crd_phase_times;

/* one midpoint element pass of ne elements in s seconds */
static inline void crd_phase_mid_pass(crd_phase_times *tm, long long ne, int want_K, double s)
{
  tm->elem_mid_s += s;
  tm->nelem_mid += ne;
  if (!want_K || ne <= 0) return;
  double each = s / (double)ne;
  if (tm->nelem_mid_K == 0 || each < tm->elem_mid_K_fastest_each_s) tm->elem_mid_K_fastest_each_s = each;
  tm->elem_mid_K_s += s;
  tm->nelem_mid_K += ne;
}

typedef struct crd_problem {
  const crd_model *m;
  int nn, ne, neq;
  double *p0;                    /* 3*nn initial unit normals (eqs 13-14) */
  unsigned *fix;                 /* nn: CRD_FIX_* bits from the supports */
  uint8_t *locked;               /* nn: pair locked by a normal-component support */
  int32_t *eq;                   /* 5*nn */
  int32_t *elem_eq;              /* 20*ne */
  int npres;
  crd_prescribed *pres;
  crd_csr *K;
  int32_t *scatter;              /* ne*210 */
  /* state */
  double *d, *p;                 /* 3*nn each */
  int *l;                        /* nn dependent component */
  /* element buffers (filled by crd_problem_eval) */
  double *fe, *ke;               /* 20*ne, 210*ne (packed upper) */
  double *ue;                    /* ne strain energy per element */
  double fe_norm;                /* sqrt(sum_e |f_e|^2): the scale of f_int round-off */
  int nthreads;
  crd_phase_times tm;
  crd_backend *be;               /* where elements are evaluated (cpu unless set) */
  struct crd_triads *tr;         /* the intersection nodes (triads.h), NULL where none */
} crd_problem;

int crd_problem_create(const crd_model *m, int nthreads, crd_problem **pb);

/* Threads for a pass of `items` independent pieces of work, each piece worth
 * waking a thread for when there are at least `min_items` of them a thread:
 * at most pb->nthreads, at least 1.  A pass too small for a second thread
 * runs on the calling thread alone, so that no team waits at its barrier
 * (on a loaded machine a waiting team costs more than the pass). */
/* elements a thread in a plain per-element loop (results, stable step) */
#define CRD_PASS_MIN_ELEMS 32

static inline int crd_pass_threads(const crd_problem *pb, long items, long min_items)
{
  long nt = pb->nthreads > 0 ? pb->nthreads : 1, fit = min_items > 0 ? items / min_items : items;
  if (fit < nt) nt = fit;
  return nt > 1 ? (int)nt : 1;
}
void crd_problem_destroy(crd_problem **pb);

/* Evaluate every element at the current state: f_int assembled into F (neq,
 * fixed DOFs dropped), the tangent into pb->K values when want_K, total
 * strain energy into *U, by pb->be.  Fails with the element id if an element is
 * inverted or produces a non-finite value. */
int crd_problem_eval(crd_problem *pb, int want_K, double *F, double *U);

/* Replace the CPU backend by `name` ("cpu", "auto", "opencl"; device as
 * in backend.h).  With intersection nodes only the CPU backend runs: "auto"
 * keeps it, another name is refused with the nodes. */
int crd_problem_set_backend(crd_problem *pb, const char *name, int device);

/* Apply an increment du (neq) scaled by s to the state (translations added,
 * pair components added and the dependent component recomputed). */
void crd_problem_update(crd_problem *pb, const double *du, double s);
/* Re-choose independent pairs where the dependent component is no longer
 * dominant; returns the number of switched nodes.  (Triad charts switch in
 * crd_problem_update.) */
int crd_problem_switch_pairs(crd_problem *pb);
/* Set prescribed translations to value * factor. */
void crd_problem_set_prescribed(crd_problem *pb, double t_or_lambda, int is_static);

/* Map a 3-vector generalized force g on node i's normal (dW = g . dp) to its
 * pair equations (A1^T g), added into F (a smooth node). */
void crd_problem_add_normal_force(const crd_problem *pb, int node, const double *g, double *F);

/* The state of the triads, kept beside a copy of d, p, l (statics' step
 * cuts); no-ops on a smooth mesh. */
void crd_problem_save_triads(crd_problem *pb);
void crd_problem_restore_triads(crd_problem *pb);

/* The initial and current normals each corner of element e sees (12
 * each): the nodes' at smooth nodes, the patch's rotated with the triad at
 * an intersection node. */
void crd_problem_elem_normals(const crd_problem *pb, int e, double *p0, double *p);

/* 0 on a smooth mesh; else an UNSUPPORTED error naming the intersection
 * nodes and `what` (e.g. "dynamic analyses"). */
int crd_problem_refuse_triads(const crd_problem *pb, const char *what);

#endif
