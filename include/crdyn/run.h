/* crdyn: running a case: the driver that owns the model, the problem, the
 * loads and the outputs, and hands each analysis a crd_run. */
#ifndef CRDYN_RUN_H
#define CRDYN_RUN_H

#include "crdyn/loads.h"
#include "crdyn/output.h"
#include "crdyn/problem.h"

typedef struct crd_run_opts {
  const char *case_path;
  const char *out_dir;      /* NULL: the case's output.dir */
  const char *backend;      /* NULL: the case's backend */
  int threads;              /* 0: all cores */
  int quiet;                /* no progress lines */
  int check_only;           /* validate and summarise, run nothing */
} crd_run_opts;

typedef struct crd_run {
  const crd_run_opts *opts;
  crd_model *m;
  crd_problem *pb;
  crd_loads *loads;
  char dir[CRD_PATH_MAX];
  crd_history *hist;
  crd_pvd *pvd;
  int nframes;
  double *extra;            /* probe columns of one history row */
  /* energy bookkeeping */
  double wext;              /* accumulated external work */
  double *d_prev, *p_prev;  /* state at the last accepted step (3*nn each) */
  double t_prev;
  /* nodal rates written to the frames (3*nn each, owned by the analysis;
   * NULL outside dynamics): d' and the normal's p' */
  const double *vel, *normal_rate;
  /* statistics for the summary */
  int steps, newton_iters, cuts, nrows;
  double strain, t_start;
  double time_eval, time_factor, time_solve, time_output;
  struct {                  /* dynamics, for the summary */
    int implicit_steps, explicit_steps;
    double max_energy_residual, rot_mass_scaling, dt_stable;
  } dyn;
  struct {                  /* modal, for the summary */
    int nmodes, nrigid;
    double f1;
  } modal;
} crd_run;

/* Run a case from start to end (or just check it).  Returns 0 or <0 with
 * the message in the error buffer. */
int crd_run_case(const crd_run_opts *opts);

/* Record an accepted step: advance the external work, write a history row
 * when due (force = 1 always writes), a frame when due. */
int crd_run_record(crd_run *r, int step, double time, double lf, int iters, double resid,
                   double kinetic, double strain, const double L[3], const double J[3], int force);
/* Progress line (stderr when a terminal, else stdout every few steps). */
void crd_run_progress(crd_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Analyses */
int crd_static_run(crd_run *r);
int crd_dynamic_run(crd_run *r);   /* dynamic.c */
int crd_modal_run(crd_run *r);     /* modal.c */

#endif
