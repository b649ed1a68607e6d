/* crdyn: the backend seam: where element vectors and matrices are evaluated
 * and assembled (docs/architecture.md §3).  The integrators ask the backend of the
 * problem (pb->be) for assembled results of the current state and for the
 * element quantities they need (lambda_max: the explicit stable step);
 * they never loop over elements themselves.
 *
 * Backends: "cpu" (backend_cpu.c: OpenMP over elements, serial scatter),
 * "opencl" (backend_opencl.c: one work-group per element, deterministic
 * gather assembly on the device; only when built with CRD_HAVE_OPENCL).
 * "cuda" (backend_cuda.c: one block per element, atomic or deterministic
 * device assembly; only when built with CRD_HAVE_CUDA, docs/cuda.md).
 * "auto" is CUDA where built in and a device is usable, else the CPU, and
 * says why in be->note.
 *
 * STATE: the state arrays live in crd_problem (pb->d, p, l) on the host;
 * a device backend copies in what an evaluation reads and copies out the
 * assembled vectors, the assembled matrix values (pb->K->val, the pattern
 * stays on both sides) and the per-element results the host still needs
 * (element forces for the round-off scale, the Newton matrices E).  A
 * backend that keeps the state resident (CUDA) implements the same ops and
 * is told through the same calls which arrays changed.
 *
 * Every op returns the same per-element buffers as the CPU backend when
 * be->keep_elements is set (pb->fe, pb->ke, pb->ue; out->fg_e, fin_e,
 * E_e), which is how the tests compare backends element by element. */
#ifndef CRDYN_BACKEND_H
#define CRDYN_BACKEND_H

#include <stddef.h>

#include "crdyn/shell_q4.h"

struct crd_problem;

/* The implicit midpoint state of a step (implicit.c): start (d0, pa), end
 * (pb->d, pb->p), midpoint (df, pf), midpoint rates am (5 per node,
 * translations in 0..2) and wam (3 per node), bases Bs (6 per node), the
 * element mass coefficients C (16 per element, constant over a run). */
typedef struct crd_mid_in {
  const double *d0, *pa, *df, *pf, *am, *wam, *Bs, *C;
  double cf;  /* 1 - alpha_f: the weight of the end state */
  double cm;  /* (1 - alpha_m) / (beta dt^2): the mass factor of K_eff */
  double xi;  /* the step's algorithmic dissipation (crd_q4_mat.xi; 0: none) */
} crd_mid_in;

typedef struct crd_mid_out {
  double *Fi, *Fin;             /* neq: assembled internal and inertia forces */
  double *fg_e, *fin_e;         /* 20*ne: element internal and inertia forces */
  double *E_e;                  /* 400*ne: non-symmetric parts (filled when want_K) */
  double U;                     /* strain energy at the end state */
} crd_mid_out;


/* ---- the device-resident explicit loop (optional ops) -------------------
 * explicit.c (crd_explicit_stage) asks for it when the backend has the
 * table (ops->ex) and the stage's loads are of the kinds the
 * tables below carry (nodal forces and gravity with amplitudes, prescribed
 * translations); otherwise (NULL ops, moments, follower pressure, the NaN
 * test hook) it runs the host loop and says why in the log.  The per-node
 * physics is include/crdyn/explicit_node.h, the element work elem_eval.h:
 * a backend runs, per step j of ex->steps, in this order
 *   1. per node: vh = v + dt/2 a, wh = w + dt/2 wa, d_prev = d,
 *      crd_exn_advance, then (after 2.) crd_exn_switch unless locked, and
 *      the predicted rate w = wh + dt/2 wa;
 *   2. prescribed translations: d[pres_idx[k]] = pres[j*npres + k];
 *   3. per element: crd_elem_static (want_k 0) -> f_e, u_e; the first
 *      step with an element failure stops the call's later steps;
 *   4. per node: F_int at its equations by the force gather (the CPU's
 *      element order), F_ext by the load entries (table order), then
 *      crd_exn_accel, v = vh + dt/2 a, w = wh + dt/2 wa;
 *   5. the external work of the step, wext += dW (entries in table order),
 *      and on the call's last step the measures (crd_exn_measure summed in
 *      node order, U summed in element order, the first non-finite node).
 * Summed in these orders the results are the host loop's bits. */
typedef struct crd_ex_state {   /* host arrays (3*nn unless said) */
  double *d, *p, *v, *w, *a, *wa;
  int *l;                       /* nn */
} crd_ex_state;

typedef struct crd_ex_setup {
  crd_ex_state st;              /* the state at the stage start (uploaded by ex_begin) */
  const double *mlump, *plump;  /* nn: lumped mass and director inertia */
  double rot_scale;             /* director inertia in use: rot_scale * plump */
  double dt;
  double wext;                  /* external work done so far */
  const unsigned char *locked;  /* nn: pair locked (no switch) */
  int nload;                    /* factor columns per step */
  /* F_ext[fe_eq[k]] = sum over its entries, in k order, of (fac[fe_load[k]] * fe_a[k]) * fe_b[k]
   * (a load whose factor is 0 adds nothing) */
  int nfe;
  const int *fe_eq, *fe_load;
  const double *fe_a, *fe_b;
  /* dW = sum over k of ((facw[w_load[k]] * w_a[k]) * w_b[k]) * (d[w_idx[k]] - d_prev[w_idx[k]]) */
  int nw;
  const int *w_idx, *w_load;
  const double *w_a, *w_b;
  int npres;                    /* prescribed translations: d[pres_idx[k]] */
  const int *pres_idx;
} crd_ex_setup;

typedef struct crd_ex_steps_in {
  int k;                        /* steps to take */
  const double *fac;            /* k*nload: amplitude factor of each load at t_j */
  const double *facw;           /* k*nload: work factor 0.5 (f(t_{j-1}) + f(t_j)) */
  const double *pres;           /* k*npres: prescribed values at t_j */
} crd_ex_steps_in;

typedef struct crd_ex_measure {
  double kinetic, strain, L[3], J[3];   /* of the state after the last step */
  double wext;                  /* external work after the last step */
  int bad_node;                 /* first node with a non-finite state or rate, -1: none */
  int bad_step, bad_elem, bad_kind;     /* first element failure: step j of the call (0-based),
                                         * element, CRD_ELEM_* kind; -1: none */
} crd_ex_measure;

/* The device words of a resident loop (src/kernels/explicit_loop.h) as the
 * measures: acc[0..8] (W_ext, K, L, J, U), status[0..2] (the failing step
 * and its element, INT_MAX: none; the first non-finite node).  bad_kind
 * stays -1: the backend reads it from its element status when bad_step >= 0. */
void crd_ex_measure_unpack(const double *acc, const int *status, crd_ex_measure *out);

typedef struct crd_backend crd_backend;

/* The resident explicit loop of a backend, its own table: begin uploads
 * the state, masses and load tables of a stage; steps advances k steps on
 * the device; measure brings the measures of the last step back; sync the
 * state (into the arrays of begin's setup.st) for output, checkpoints and
 * the stage end; end frees the stage's device buffers (also after a
 * failure). */
typedef struct crd_backend_ex_ops {
  int (*begin)(crd_backend *be, struct crd_problem *pb, const crd_ex_setup *setup);
  int (*steps)(crd_backend *be, const crd_ex_steps_in *in);
  int (*measure)(crd_backend *be, crd_ex_measure *out);
  int (*sync)(crd_backend *be, crd_ex_state *st);
  void (*end)(crd_backend *be);
} crd_backend_ex_ops;

typedef struct crd_backend_ops {
  const char *name;
  void (*destroy)(crd_backend *be);
  /* f_int of the current state into F (neq), the tangent into pb->K when
   * want_K, strain energy *U; pb->fe, pb->ue (and pb->ke when want_K)
   * per element; pb->fe_norm.  Explicit steps use it with want_K = 0. */
  int (*eval)(crd_backend *be, struct crd_problem *pb, int want_K, double *F, double *U);
  /* The implicit midpoint residual parts and K_eff into pb->K (want_K). */
  int (*eval_mid)(crd_backend *be, struct crd_problem *pb, const crd_mid_in *in, int want_K,
                  crd_mid_out *out);
  /* The element bound of the explicit stable step at the current state:
   * the largest eigenvalue of M_e^-1 K_e over the elements into *lambda
   * (0 without elements), the element that has it into *elem (-1: none).
   * M_e is lumped from the element mass coefficients C (16 per element,
   * crd_dyn.C) with the director inertia rot_scale h^2/12 of it. */
  int (*lambda_max)(crd_backend *be, struct crd_problem *pb, const double *C, double rot_scale, double *lambda,
                    int *elem);
  /* The resident explicit loop (NULL: the host loop). */
  const crd_backend_ex_ops *ex;
} crd_backend_ops;

struct crd_backend {
  const crd_backend_ops *ops;
  void *impl;
  int keep_elements;            /* device backends: copy every element buffer back */
  int deterministic;            /* cuda: gather assembly (bitwise repeatable) instead of atomics */
  char device_name[256];        /* for the summary and messages */
  char note[512];               /* what the user should be told (auto fell back to the CPU), or "" */
};

/* "cpu", "auto", "opencl" (device: index in `crdyn devices`, -1 the first
 * with fp64), "cuda".  Fails with a clear message when the backend is not
 * compiled in or no usable device exists. */
int crd_backend_create(const char *name, int device, struct crd_problem *pb, crd_backend **be);
void crd_backend_destroy(crd_backend **be);
/* Which backends this build has ("cpu" or "cpu, opencl"). */
const char *crd_backend_available(void);
/* A text listing of the OpenCL platforms and devices (index, name, fp64)
 * into buf; returns the number of devices, 0 when there is none or the
 * build has no OpenCL (the text says which). */
int crd_backend_devices(char *buf, size_t n);
/* The same for CUDA devices (index for --device with --backend cuda);
 * returns their number (0 without a device or without CUDA in the build). */
int crd_backend_cuda_devices(char *buf, size_t n);

/* A backend as it registers itself (its own file, backends/<name>/): the
 * name --backend takes, its priority for "auto" (auto tries the backends of
 * the build above the CPU's, highest first, and falls back to the CPU), its
 * create, and what a failed create adds to its message when the backend was
 * asked for by name.  A backend the build leaves out registers create NULL
 * and says in not_built how to build it (backend.c). */
typedef struct crd_backend_reg {
  const char *name;
  int auto_priority;
  int (*create)(struct crd_problem *pb, int device, crd_backend **be);
  const char *on_failure; /* appended to a CRD_ERR_BACKEND failure ("; ..."); NULL: the message as it is */
  const char *not_built;
} crd_backend_reg;
extern const crd_backend_reg crd_backend_reg_cpu, crd_backend_reg_opencl, crd_backend_reg_cuda;

/* The section of every element as the element code reads it
 * (CRD_Q4_MAT_STRIDE doubles per element: E, nu, h, am; crd_q4_mat_at),
 * the table every backend hands its element code. */
void crd_backend_section_table(const struct crd_problem *pb, double *mat);
/* Element e's section as the element code takes it (xi = 0). */
crd_q4_mat crd_backend_section_mat(const struct crd_problem *pb, int e);

/* Backends */
int crd_backend_cpu_create(struct crd_problem *pb, crd_backend **be);
/* The CPU backend's lambda_max (cpu/cpu_stable.c), on the host state; the
 * device backends' op too while they have no kernel for it. */
int crd_backend_cpu_lambda_max(crd_backend *be, struct crd_problem *pb, const double *C, double rot_scale,
                               double *lambda, int *elem);
int crd_backend_opencl_create(struct crd_problem *pb, int device, crd_backend **be);
int crd_backend_cuda_create(struct crd_problem *pb, int device, crd_backend **be);
/* *be (a device backend) wrapped so that every element evaluation is
 * compared with the CPU backend's (CRDYN_XCHECK=1, backend_xcheck.c). */
int crd_backend_xcheck_wrap(struct crd_problem *pb, crd_backend **be);
/* The CUDA device to use (device: index, -1 the first) and its description;
 * CRD_ERR_BACKEND with the reason when there is none (backend_cuda.c). */
int crd_backend_cuda_pick(int device, int *pick, char *name, size_t nname);

/* The message for element `bad` that failed with CRD_ELEM_* `kind` (shared by the backends). */
int crd_backend_elem_error(const struct crd_problem *pb, int bad, int kind);
/* The implicit midpoint message for element `bad` (CRD_WARN_ELEM_INVERTED: the step is cut). */
int crd_backend_mid_error(const struct crd_problem *pb, int bad);

#endif
