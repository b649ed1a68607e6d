/* crdyn: the launchers of the CUDA kernels of the device-resident explicit
 * loop (src/kernels/crd_cuda_explicit.cu over explicit_loop.h) for the host side
 * (src/host/backends/cuda/backend_cuda_explicit.c); backend.h describes the loop.  Every
 * pointer is a device pointer; the launchers are asynchronous on the
 * stream and return a cudaError_t (0: launched).  Only in builds with
 * CRD_HAVE_CUDA.
 *
 * status[0]: the first step of the call with an element failure (INT_MAX:
 * none), status[1]: the smallest failing element of that step, status[2]:
 * the first node with a non-finite state (-1: none; written with the
 * measures on the last step of a call).  acc[0]: the external work so far,
 * acc[1..8]: kinetic energy, L (3), J (3), strain energy of the last step. */
#ifndef CRDYN_CUDA_EXPLICIT_H
#define CRDYN_CUDA_EXPLICIT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crd_cux_args {
  int nn, ne, nload, npres, nw;
  double dt, s;                       /* step, director inertia scale */
  const int *eq;                      /* 5*nn */
  const unsigned char *locked;        /* nn */
  double *d, *p;                      /* 3*nn: the backend's state buffers */
  int *l;                             /* nn */
  const double *x, *mlump, *plump;
  double *v, *w, *a, *wa, *vh, *wh, *dprev;  /* 3*nn */
  double *contrib;                    /* 8*nn: a node's measures and its non-finite flag */
  const double *F;                    /* neq: F_int, assembled by the force gather */
  const int *lptr, *lidx, *l_load;    /* F_ext: the load entries of each equation, in table order */
  const double *l_a, *l_b;
  const int *w_idx, *w_load;          /* the external work entries */
  const double *w_a, *w_b;
  const int *pres_idx;
  const double *fac, *facw, *pres;    /* per step of a call: k*nload, k*nload, k*npres */
  const double *ue;                   /* ne: element strain energies */
  const int *first_bad;               /* the element kernel's smallest failing element (ne: none) */
  int *status;                        /* 4 */
  double *acc;                        /* 9 */
  double *part;                       /* crd_cux_parts() doubles: the tree sums' block partials */
  int *part_bad;                      /* crd_cux_parts() ints: the smallest non-finite node per block */
} crd_cux_args;

/* Step j, part 1: half-step rates, advance, pair switch, predicted w. */
int crd_cux_node1(cudaStream_t st, const crd_cux_args *a, int j);
/* Step j: the prescribed translations. */
int crd_cux_pres(cudaStream_t st, const crd_cux_args *a, int j);
/* Step j, part 2: F_ext - F_int at a node's equations, accelerations,
 * end-of-step rates, the node's measures; flags an element failure of
 * step j (status[0], status[1]) from first_bad. */
int crd_cux_node2(cudaStream_t st, const crd_cux_args *a, int j);
/* Step j: the external work into acc[0] and, when last, the measures.
 * serial: one thread in node and element order (the host loop's bits);
 * else two-stage block sums in a fixed order (repeatable, the host's
 * value to round-off). */
int crd_cux_reduce(cudaStream_t st, const crd_cux_args *a, int j, int last, int serial);
/* The elements crd_cux_args.part (doubles) and part_bad (ints) must hold. */
int crd_cux_parts(void);

#ifdef __cplusplus
}
#endif

#endif
