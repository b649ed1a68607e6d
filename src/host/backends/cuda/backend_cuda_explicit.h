/* crdyn: the resident explicit loop of the CUDA backend (backend.h ex_*),
 * private to the backend: backend_cuda.c hands it the device buffers it
 * keeps for the run (crd_cux_dev), backend_cuda_explicit.c keeps the
 * stage's own (state rates, masses, load tables) in a crd_cux.  Only in
 * builds with CRD_HAVE_CUDA. */
#ifndef CRDYN_BACKEND_CUDA_EXPLICIT_H
#define CRDYN_BACKEND_CUDA_EXPLICIT_H

#include <cuda_runtime_api.h>

#include "crdyn/backend.h"

struct crd_problem;

/* The backend's device buffers the loop reads and writes (backend_cuda.c). */
typedef struct crd_cux_dev {
  cudaStream_t st;
  int ne, nn, neq, per_thread;      /* per_thread: the element kernel's layout (CRDYN_CUDA_LAYOUT) */
  const int *quads, *fptr, *fidx;   /* fptr, fidx: the force gather map (crd_map_invert of elem_eq) */
  const double *x, *p0, *mat;
  double *d, *p, *fe, *ke, *ue, *F;
  int *l, *kind, *first_bad;
  const double *geo;                /* the lean force kernel's geometry cache; NULL: the layout's element kernel */
} crd_cux_dev;

typedef struct crd_cux crd_cux;

/* Uploads the stage's state, masses and tables (the setup of ex_begin);
 * serial: the measures and the external work summed by one thread in the
 * host's order (its bits), else by fixed-order block sums. */
int crd_cux_begin(crd_cux **ex, const crd_cux_dev *dv, struct crd_problem *pb, const crd_ex_setup *su, int serial);
int crd_cux_steps(crd_cux *ex, const crd_ex_steps_in *in);
int crd_cux_measure(crd_cux *ex, crd_ex_measure *out);
int crd_cux_sync(crd_cux *ex, crd_ex_state *st);
/* Frees the stage's buffers (NULL: nothing); *ex becomes NULL. */
void crd_cux_end(crd_cux **ex);

#endif
