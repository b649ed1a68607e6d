/* crdyn: the argument structs of the CPU element entries (elem_isa.h): the
 * mesh and state arrays an entry reads and the outputs of a range, one
 * struct per entry kind, filled once per evaluation and passed by
 * pointer.  Plain C over int and double only (no element types), so that
 * the range bodies, which compile the element headers over vector lanes
 * (src/host/backends/cpu/elem_batch.cpp), include it as it is.  The
 * entries read every field once at their start, so the element loops see
 * the same locals as with flat arguments. */
#ifndef CRDYN_ELEM_ARGS_H
#define CRDYN_ELEM_ARGS_H

#include <stdint.h>

/* crd_elem_static: the element's f (20), packed k (210) and u. */
typedef struct crd_elem_static_args {
  const int *quads;           /* 4 nodes per element */
  const double *x, *p0n;      /* initial coordinates and normals, 3 per node */
  const double *dn, *pn;      /* translations and normals, 3 per node */
  const int *ln;              /* the pair choice of each node */
  int want_k;
  /* the range entries only: */
  const double *mat;          /* the sections, CRD_Q4_MAT_STRIDE per element (crd_q4_mat_at) */
  const double *geo;          /* the initial geometry (crd_elem_geo_build), or NULL: formed again */
  double *f, *k, *u;          /* outputs at their element's offset: f + 20 e, k + 210 e, u + e */
} crd_elem_static_args;

/* crd_elem_mid: the implicit midpoint parts fg, fin (20 each), packed k
 * (210), E (400) and u. */
typedef struct crd_elem_mid_args {
  const int *quads;
  const double *x, *p0n;
  const double *d0n, *pan;    /* the state at the step's start */
  const double *dbn, *pbn;    /* the state at the step's end (the iterate) */
  const double *dfn, *pfn;    /* the midpoint state */
  const double *amn, *wamn;   /* the rates of the inertia term: 5 per node, 3 per node */
  const double *Bsn;          /* 6 per node */
  const int *ln;
  const double *Cn;           /* the mass coefficients, 16 per element */
  double cf, cm;              /* the weights of the internal and inertia parts */
  int want_k;
  /* the range entries only: */
  const double *mat;          /* the sections, as crd_elem_static_args */
  double xi;                  /* the section's xi for every element */
  double *fgo, *fino, *ko, *Eo, *u; /* outputs at their element's offset: 20 e, 20 e, 210 e, 400 e, e */
} crd_elem_mid_args;

/* crd_exn_accel over nodes: accelerations a, wa (3 per node) from the
 * residual Fe - Fi. */
typedef struct crd_exn_accel_args {
  const int32_t *eq;          /* 5 equations per node (< 0: not free) */
  const double *Fe, *Fi;      /* external and internal force, per equation */
  const double *mlump, *plump; /* the lumped masses, per node */
  double s;                   /* the rotational mass scaling */
  const double *p;            /* normals, 3 per node */
  const int *ln;
  const double *w_pred;       /* the predicted normal rates of the inertia force */
  double *a, *wa;             /* outputs, 3 per node */
} crd_exn_accel_args;

#endif
