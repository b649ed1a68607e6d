/* crdyn: running a case: the driver that owns the model, the problem, the
 * linear system, the loads and the outputs, and hands each analysis a
 * crd_run. */
#ifndef CRDYN_RUN_H
#define CRDYN_RUN_H

#include "crdyn/linsys.h"
#include "crdyn/loads.h"
#include "crdyn/output.h"
#include "crdyn/problem.h"

#define CRD_VERSION "0.1.0"

typedef struct crd_run_opts {
  const char *argv0;        /* how crdyn was started (for the printed restart command); NULL: "crdyn" */
  const char *case_path;
  const char *out_dir;      /* NULL: the case's output.dir */
  const char *backend;      /* NULL: the case's backend */
  int device;               /* --device N (OpenCL device index), -1: the backend's choice */
  int threads;              /* 0: all cores */
  int quiet;                /* no progress lines */
  int check_only;           /* validate and summarise, run nothing */
  int timing;               /* per-phase timing table in the log and summary.json */
  const char *restart_path; /* --restart FILE: continue from that checkpoint */
  const char *solver;       /* --solver cholmod|cusolver|cudss|auto, NULL: cholmod */
  int deterministic;        /* --deterministic: bitwise repeatable device assembly (cuda) */
} crd_run_opts;

struct crd_ckpt;
struct crd_ties;

typedef struct crd_run {
  const crd_run_opts *opts;
  crd_model *m;
  crd_problem *pb;
  crd_linsys *ls;           /* the linear solver and its state (linsys.h); the run's, as the analyses share it */
  crd_loads *loads;
  char ckpt_path[CRD_PATH_MAX + 32]; /* DIR/checkpoint.crd (before dir: see run.c's snprintf bounds) */
  char dir[CRD_PATH_MAX];
  crd_history *hist;
  crd_pvd *pvd;
  int nframes;
  int stage;                /* the dynamic stage being run, from 1 (1 outside dynamics): history.csv's last column */
  int integrator;           /* the integrator of the step being recorded (enum crd_integrator) */
  int integrator_col;       /* history.csv has the column "integrator" (a run with an auto stage) */
  double *extra;            /* probe (and rigid body) columns of one history row */
  struct crd_ties *ties;    /* rigid bodies of a model with a mesh (tie.h), NULL: none */
  double wext_ties;         /* the bodies' work already in wext */
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
  double time_implicit, time_explicit; /* wall time of the dynamic stages' step loops */
  struct {                  /* dynamics, for the summary */
    int implicit_steps, explicit_steps;
    int switches;           /* auto stages: changes of integrator */
    double max_energy_residual, rot_mass_scaling, dt_stable;
    int mono_steps, mono_iters;   /* monotone energy (implicit.c): steps solved again, their iterations */
    double xi_max;
    int step;               /* last accepted step and its time */
    double t;
  } dyn;
  /* checkpoints (checkpoint.h, dyn_checkpoint.c) */
  uint64_t case_hash;       /* FNV-1a 64 of the case file */
  struct crd_ckpt *restart; /* the checkpoint a restart continues, NULL otherwise */
  double ckpt_wall;         /* wall clock of the last checkpoint (or of the start) */
  int (*ckpt_sync)(void *ctx); /* set by a device-resident loop: bring its state to the host before a checkpoint */
  void *ckpt_sync_ctx;
  int nckpt, ckpt_step;     /* checkpoints written, step of the last (-1: none) */
  double wall_before;       /* wall seconds of the runs before a restart */
  int test_sigint_step;     /* CRDYN_TEST_SIGINT_STEP: raise SIGINT after that step (tests) */
  int test_sigkill_step;    /* CRDYN_TEST_SIGKILL_STEP: die (SIGKILL) after that step, a crash (tests) */
  int test_energy_step;     /* CRDYN_TEST_ENERGY_STEP: implicit steps gain energy from that step on (tests) */
  int test_nan_step;        /* CRDYN_TEST_NAN_STEP: a NaN external force from that step on (tests) */
  int test_nan_k_step;      /* CRDYN_TEST_NAN_K_STEP: a NaN in the tangent K at that implicit step (tests) */
  int test_sliver_step;     /* CRDYN_TEST_SLIVER_STEP=1: adaptive implicit steps leave the rest before a stage's end
                               or a load's break as a last step however short (tests) */
  int test_mono_cut;        /* CRDYN_TEST_MONO_CUT=1: a step whose energy rise monotone energy cannot bring down is
                               cut, its start acceleration kept (tests) */
  int test_unstable_dt;     /* CRDYN_TEST_UNSTABLE_DT=1: an explicit dt above the stable estimate runs (tests of
                               the energy watchdog) */
  const char *fail_status;  /* "failed" or "interrupted" for summary.json; NULL: running */
  struct {                  /* modal, for the summary */
    int nmodes, nrigid;
    double f1;
  } modal;
} crd_run;

/* summary.json (run_report.c): status "complete", or "failed" /
 * "interrupted" with the message and where the run stopped. */
int crd_run_write_summary(const crd_run *r, double wall, const char *status, const char *message);
/* --timing: the per-phase table on stdout. */
void crd_run_print_timing(const crd_run *r);

/* Run a case from start to end (or just check it).  Returns 0 or <0 with
 * the message in the error buffer. */
int crd_run_case(const crd_run_opts *opts);

/* Record an accepted step: advance the external work, write a history row
 * when due (force = 1 always writes), a frame when due. */
int crd_run_record(crd_run *r, int step, double time, double lf, int iters, double resid,
                   double kinetic, double strain, const double L[3], const double J[3], int force);
/* The same for a device-resident explicit loop (backend.h ex_*): r->wext
 * already holds the work up to this step (the device accumulates it step
 * by step, as crd_run_record does), the state is in pb only when on_host
 * (the caller syncs it before a row with probes or a frame is due). */
int crd_run_record_resident(crd_run *r, int step, double time, double kinetic, double strain, const double L[3],
                            const double J[3], int force, int on_host);
/* Clear the output folder `dir` of the files an earlier run left there
 * (run_folder.c lists them); a restart keeps the history, the checkpoint,
 * result.pvd and the frames before index frames_kept.  Other files are
 * never touched. */
int crd_run_clear_folder(const char *dir, int restart, int frames_kept);
/* The frame of the present state (run_frame.c): frames/frame_NNNNNN.vtu,
 * or over MPI ranks each rank's piece and rank 0's .pvtu; listed in
 * result.pvd at `time`; counts r->nframes. */
int crd_run_write_frame(crd_run *r, double time);

/* The command that continues this run from its checkpoint, as the user
 * would type it: the same binary, case, output folder and the options that
 * shape the results (backend, device, solver, threads, determinism), each
 * word quoted for a POSIX shell where it needs it.  Truncated to n. */
void crd_run_restart_command(const crd_run *r, char *buf, size_t n);

/* Progress line (stderr when a terminal, else stdout every few steps). */
void crd_run_progress(crd_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* End a progress line that the terminal shows in place, before a message
 * is printed (so that no message starts in the middle of it). */
void crd_run_progress_break(void);

/* crdyn check (check_plan.c): the model and, per step or stage, what a run
 * would do (steps, rows, frames); refuses what a run would refuse before
 * its first step (an explicit dt above the stable estimate). */
int crd_check_print(const crd_run *r);

/* Analyses */
int crd_static_run(crd_run *r);
int crd_dynamic_run(crd_run *r);   /* dynamic.c */
int crd_modal_run(crd_run *r);     /* modal.c */
int crd_rigid_run(crd_run *r);     /* rigid_run.c: a model of rigid bodies only */

#endif
