/* crdyn: intersection nodes in the problem (docs/element.md, "Intersection
 * nodes in the problem"; the element-level mathematics is fold_node.h).
 *
 * A node where the shell's elements form more than one patch (patches.h)
 * carries a triad instead of a normal: 6 DOFs, slots 0..2 of eq[5 i + s]
 * the translations, slots 3..4 the chart variables theta_0, theta_1 and
 * eq3[k] the third, theta_2 (fold_node.h: theta = (y_n, y_m, z_k)).
 *
 * The initial triad R_0 (E0, rows e_x, e_y, e_z as in fold_node.h): e_z the
 * normal of the node's first patch (the patch of the lowest element
 * corner), e_x = e_z x n_j / |e_z x n_j| with n_j the patch normal furthest
 * from e_z (along the fold line of a fold; any unit vector normal to e_z
 * where every patch is parallel to the first), e_y = e_z x e_x.  A patch's
 * normal is the average of its elements' corner normals at the node.  Each
 * element corner at the node sees r = R R_0^T p0 with p0 its own patch's
 * normal (c = R_0^T p0, fixed).  pb->p0 and pb->p of a triad node hold the
 * first patch's normal and its rotation with the triad (outputs, probes).
 *
 * The elements with a corner at a triad node ("fold elements") are
 * evaluated one by one through crd_fold_elem in a 24-slot layout (6 a
 * corner; slot 5 the third triad variable, -1 at a smooth corner), with
 * their own scatter map into the same CSR pattern; every other element
 * stays on the backend's vector path with its 20 DOFs. */
#ifndef CRDYN_TRIADS_H
#define CRDYN_TRIADS_H

#include <stdint.h>

#include "crdyn/fold_node.h"
#include "crdyn/patches.h"

struct crd_problem;

#define CRD_TRIAD_SWITCH 0.5 /* a chart is left when its measure falls below this fraction of the best's */

/* The implicit step's state of the triads (fold_dyn.h; implicit_triads.c):
 * Newmark acts on R as nine numbers (E layout, rows the axes), the chart
 * stays that of the step's start. */
typedef struct crd_triads_mid {
  double *Ea, *Ef;                /* 9 n: the triads at the step's start and their mean (1 - af) R_b + af R_a */
  double *V0, *A0, *V1, *A1, *Am; /* 9 n: R', R'' at the start and the end; R'' at the midpoint */
  double *du3;                    /* n: the step's increment of theta_2 (theta_0, theta_1: slots 3, 4) */
  crd_triad_chart *ch_a;          /* n: the charts at the start */
  double *fin24;                  /* 24 nel: the fold elements' inertia forces */
} crd_triads_mid;

typedef struct crd_triads {
  int n;                       /* intersection nodes */
  int32_t *node;               /* n: their mesh nodes, ascending */
  int32_t *of;                 /* nn: the triad of a node, -1 at a smooth node */
  int32_t *npatch;             /* n: the patches at each */
  double split;                /* the largest angle (degrees) between neighbouring elements in different patches */
  int32_t *eq3;                /* n: the equation of theta_2 (-1: the triad is held) */
  double *E0, *E, *E_save;     /* 9 n: initial, current and saved triads */
  double *E_rec;               /* 9 n: the triads of the last recorded step (the work of moments) */
  crd_triad_chart *ch, *ch_save;
  int nel;                     /* fold elements */
  int32_t *elem;               /* nel: their ids, ascending */
  int32_t *elem_of;            /* ne: the fold element of an element, -1 */
  int32_t *at;                 /* 2 n: a fold element at each triad node and the node's corner in it */
  double *p0c, *c;             /* 12 nel: a triad corner's patch normal and c = R_0^T p0 (0 at smooth corners) */
  int32_t *eq24;               /* 24 nel */
  int32_t *sc24;               /* 300 nel: CSR positions of the packed upper 24x24 triangle */
  double *f24, *k24;           /* 24 nel, 300 nel: the fold elements' force and tangent (energy: pb->ue) */
  crd_triads_mid *mid;         /* the implicit step's state (NULL outside implicit stages) */
} crd_triads;

/* The triads of the intersection nodes of pt (pb->tr stays NULL where
 * there are none); sets pb->p0 at those nodes to their first patch's
 * normal. */
int crd_triads_create(struct crd_problem *pb, const crd_patches *pt);
void crd_triads_destroy(crd_triads **ptr);

/* A support at a triad node fixes px, py, pz together or none of them:
 * an input error naming the node and the support otherwise. */
int crd_triads_check_fix(const struct crd_problem *pb);

/* The CSR pattern, pb->scatter (20-DOF layout, every element) and the fold
 * elements' 24-slot equations and scatter. */
int crd_triads_pattern(struct crd_problem *pb);

/* The fold elements at the current state into f24, k24 (want_K), pb->ue.
 * Returns 0, or the CRD_ELEM_* code of the first bad one (its id in *bad). */
int crd_triads_eval(struct crd_problem *pb, int want_K, int *bad);

/* The implicit step's state (crd_triads_mid) allocated, and freed. */
int crd_triads_mid_create(crd_triads *tr);
void crd_triads_mid_destroy(crd_triads *tr);

/* The fold elements at the implicit step's midpoint (fold_dyn.h) into
 * f24 (internal), mid->fin24 (inertia), k24 (the Newton matrix, want_K)
 * and pb->ue, from the smooth nodes' step state in `in` and the triads'
 * in tr->mid (tr->E: the end of the step).  Returns 0, or 1 with the
 * first bad element in *bad. */
struct crd_mid_in;
int crd_triads_eval_mid(struct crd_problem *pb, const struct crd_mid_in *in, int want_K, int *bad);

/* The rates of the normals each corner of element e sees, from the
 * nodes' w (3 nn) and the triads' R' (9 n; NULL: w at the triads' nodes
 * too). */
void crd_triads_elem_rates(const struct crd_problem *pb, int e, const double *w, const double *Rd, double *out);

/* The increment du (scaled by s) at the triad nodes: theta + s dtheta in
 * the current chart, the triad rebuilt (a rotation by W s dtheta where that
 * leaves the chart), the chart switched where another is much better
 * conditioned, and pb->p of the node rotated with it. */
void crd_triads_update(struct crd_problem *pb, const double *du, double s);

/* Triad k set to E (a rotation: the explicit step's drift), its chart
 * switched as in crd_triads_update and pb->p of its node with it. */
void crd_triads_set(struct crd_problem *pb, int k, const double *E);

/* A dead moment M (global) at triad node k: F[theta] += W^T M (its work
 * rate is M . om, om = W theta'), and with want_K the symmetric part of
 * its load stiffness taken from pb->K (as at a smooth node, loads.h). */
void crd_triads_add_moment(struct crd_problem *pb, int k, const double *M, double *F, int want_K);
/* D = d(W^T M)/dtheta (row a: dF_a) = -sum_c F_c (d_b m_c . w_a), from
 * dW = -W dM W (fold_node.h). */
void crd_triads_moment_dF(const double *E, crd_triad_chart ch, const double *M, double *D);

/* The corners of fold element f as fold_node.h takes them (current
 * state), with the initial normals they see (12). */
void crd_triads_corners(const struct crd_problem *pb, int f, crd_fold_node *nd, double *p0);

/* The initial and current normals each corner of element e sees (12 each). */
void crd_triads_elem_normals(const struct crd_problem *pb, int e, double *p0, double *p);

/* The rotation vector that turns the triad of node k from its last
 * recorded state to the current one (crd_triads_record marks that). */
void crd_triads_turn(const crd_triads *tr, int k, double *om);
void crd_triads_record(crd_triads *tr);

void crd_triads_save(crd_triads *tr);
void crd_triads_restore(crd_triads *tr);

/* "node 24, node 25, ..." (at most 4 named) for messages. */
void crd_triads_list(const crd_triads *tr, char *buf, size_t n);

#endif
