/* crdyn: the model, as loaded and validated from a case file (docs/case_format.md).
 *
 * DATA LAYOUT: nodes are 0-based, x[3*i+k]; quads q[4*e+a] counter-clockwise
 * about the shell's positive normal.  Sets hold node and/or element lists
 * (sorted, unique).  Everything here is plain data owned by crd_model and
 * freed by crd_model_destroy. */
#ifndef CRDYN_MODEL_H
#define CRDYN_MODEL_H

#include <math.h>
#include <stdint.h>

#define CRD_NAME_MAX 64
#define CRD_PATH_MAX 1024

/* Support / fix bits (docs/case_format.md "supports"). */
enum { CRD_FIX_UX = 1, CRD_FIX_UY = 2, CRD_FIX_UZ = 4,
       CRD_FIX_PX = 8, CRD_FIX_PY = 16, CRD_FIX_PZ = 32, CRD_FIX_ALL = 63 };

typedef struct crd_amplitude {      /* [[t0,a0],[t1,a1],...]: linear, held after the last point */
  int n;                            /* 0: no table (default factor applies) */
  double *t, *a;
} crd_amplitude;

/* The membrane strain of a section's elements (shell_q4.h, crd_q4_mat.am). */
enum { CRD_MEMBRANE_TIED_SHEAR = 0, CRD_MEMBRANE_DISPLACEMENT = 1 };

typedef struct crd_section {
  double E, nu, rho, thickness;
  int membrane;                     /* CRD_MEMBRANE_*; "membrane" in the case, tied_shear by default */
} crd_section;

typedef struct crd_set {
  char name[CRD_NAME_MAX];
  int nn, ne;                       /* counts; a set selecting nothing is rejected by the loader */
  int32_t *nodes, *elems;           /* sorted, unique; an element set also lists its nodes */
} crd_set;

typedef struct crd_support {
  int set;                          /* index into model->sets */
  unsigned fix;                     /* CRD_FIX_* bits */
  int has_value;                    /* "value": prescribed displacement of the fixed ux/uy/uz */
  double value;
  crd_amplitude amp;
} crd_support;

enum crd_load_kind { CRD_LOAD_FORCE, CRD_LOAD_MOMENT, CRD_LOAD_PRESSURE, CRD_LOAD_GRAVITY,
                     CRD_LOAD_BODY };

typedef struct crd_load {
  enum crd_load_kind kind;
  int set;                          /* node set (force, moment) or element set (pressure); -1: all */
  int body;                         /* rigid body index (CRD_LOAD_BODY), else -1 */
  double vec[3];                    /* force, moment or gravity vector (per node; see total) */
  double vec2[3];                   /* moment of a body load ("moment" beside "force") */
  double pressure;                  /* follower pressure along the current normal */
  int total;                        /* force divided evenly among the set's nodes (already applied to vec) */
  crd_amplitude amp;
} crd_load;

typedef struct crd_initial {
  int has_velocity;
  double velocity[3], angular_velocity[3], about[3];
} crd_initial;

typedef struct crd_rigid_body {
  char name[CRD_NAME_MAX];
  double mass, inertia[9], reference[3], center_of_mass[3];
  int has_added_mass;
  double added_mass[36];
  double orientation[4];            /* w, x, y, z (body to world) */
  double velocity[3], angular_velocity[3];
  unsigned fix;                     /* CRD_FIX_UX|UY|UZ */
  int tie;                          /* node set index or -1 */
  int integrator;                   /* 0 dqvi, 1 newton_euler */
} crd_rigid_body;

enum crd_analysis_type { CRD_ANALYSIS_STATIC, CRD_ANALYSIS_MODAL, CRD_ANALYSIS_DYNAMIC };
/* CRD_INT_AUTO: the stage runs stretches of either, chosen by the hybrid's
 * cost model (hybrid.h). */
enum crd_integrator { CRD_INT_IMPLICIT, CRD_INT_EXPLICIT, CRD_INT_AUTO };

typedef struct crd_stage {
  enum crd_integrator integrator;
  double t_end;
  double dt;                        /* > 0; explicit "auto": dt_auto = 1 and dt = 0; implicit "auto": dt = dt_max */
  int dt_auto;
  double error_tolerance;           /* implicit "auto": the local error per step, relative (default 1e-4) */
  double dt_min, dt_max;            /* implicit "auto": the step's bounds (defaults: dt_max/65536, length/20) */
  double safety;                    /* explicit auto step safety factor (default 0.9) */
  double rho_inf;                   /* default 1.0 */
  double tolerance;                 /* default 1e-8 */
  int max_iterations;               /* default 20 */
  double mass_scaling;              /* explicit rotational mass scaling (default 1 = none) */
  int monotone_energy;              /* implicit, rho_inf < 1: never let the total energy rise (default 1) */
  double switch_margin;             /* auto: the other integrator must be this much faster to switch (default 0.25) */
  double newton_cost;               /* auto: a Newton iteration's cost in explicit steps, fixed (repeatable
                                     * switching); 0: both costs measured during the run (default) */
  double dt_start;                  /* implicit dt "auto": the first step (0: dt_max/64); set by the hybrid */
} crd_stage;

typedef struct crd_analysis {
  enum crd_analysis_type type;
  /* static */
  int steps;                        /* default 10 */
  double max_load_factor;           /* default 1 */
  int arc_length;                   /* default 0 */
  double arc_length_max_factor;     /* optional stop for arc length (default: max_load_factor) */
  double tolerance;                 /* default 1e-8 */
  int max_iterations;               /* default 25 */
  int nlgeom;                       /* default 1 */
  /* modal */
  int modes;                        /* default 10 */
  /* dynamic */
  int nstages;
  crd_stage *stages;
} crd_analysis;

typedef struct crd_probe {
  char name[CRD_NAME_MAX];
  int node;
} crd_probe;

typedef struct crd_output {
  char dir[CRD_PATH_MAX];           /* default "out/<case file stem>" */
  int history_every;                /* default 1 (0 when only history_dt is given) */
  int vtk_every;                    /* default 0 */
  double history_dt, vtk_dt;        /* simulated time between rows, frames; 0: by step only */
  int nprobes;
  crd_probe *probes;
  int checkpoint_every_steps;       /* 0: none */
  double checkpoint_every_seconds;  /* 0: none */
} crd_output;

/* The most steps a dynamic stage may take (the step counters are int). */
#define CRD_MAX_STAGE_STEPS 1073741824.0

/* A multiple of `every` (> 0) lies in (t0, t1]: a step from t0 to t1
 * passes an output time.  The multiples are counted with a margin of 1e-9
 * of an interval, so that t1 = k every, reached by sums of steps, counts. */
static inline int crd_output_time_passed(double every, double t0, double t1)
{
  return every > 0 && floor(t1 / every + 1e-9) > floor(t0 / every + 1e-9);
}

/* A history row is due at `step`, reached at time t1 from t0: every
 * history_every steps, or where the step passes a multiple of history_dt. */
static inline int crd_output_row_due(const crd_output *o, int step, double t0, double t1)
{
  return (o->history_every > 0 && step % o->history_every == 0) || crd_output_time_passed(o->history_dt, t0, t1);
}

/* The same for a VTU frame (vtk_every, vtk_dt). */
static inline int crd_output_frame_due(const crd_output *o, int step, double t0, double t1)
{
  return (o->vtk_every > 0 && step % o->vtk_every == 0) || crd_output_time_passed(o->vtk_dt, t0, t1);
}

/* Frames are written at all (the frames folder and result.pvd exist). */
static inline int crd_output_has_frames(const crd_output *o) { return o->vtk_every > 0 || o->vtk_dt > 0; }

typedef struct crd_model {
  char case_path[CRD_PATH_MAX];     /* the file as given, for messages */
  char title[256];
  char backend[32];                 /* "cpu" (default), "cuda", "opencl", "auto" */
  double crease_angle;              /* degrees: neighbouring element normals further apart make a fold (default 40) */
  /* mesh */
  int nn, ne;
  double *x;                        /* 3*nn initial coordinates */
  int32_t *quads;                   /* 4*ne */
  int32_t *elem_section;            /* ne: index into sections */
  int nsections;
  crd_section *sections;
  int nsets;
  crd_set *sets;
  int nsupports;
  crd_support *supports;
  int nloads;
  crd_load *loads;
  crd_initial initial;
  int nbodies;
  crd_rigid_body *bodies;
  crd_analysis analysis;
  crd_output output;
} crd_model;

/* Load and validate a case.  On error returns <0 with a message naming the
 * file and the JSON path (e.g. "case.json: $.loads[2].force[1]: not a number"). */
int crd_case_load(const char *path, crd_model **model);
/* Same, from a JSON text in memory; `path` names it in messages and resolves relative files. */
int crd_case_load_string(const char *text, const char *path, crd_model **model);
void crd_model_destroy(crd_model **model);

/* Look up a set by name; -1 if absent. */
int crd_model_find_set(const crd_model *m, const char *name);

#endif
