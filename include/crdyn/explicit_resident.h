/* crdyn: the explicit step loop on a device that keeps the state resident
 * (backend.h ex_* ops; explicit_resident.c).  explicit.c hands a stage's
 * step loop to it when the backend has the ops and the loads are of the
 * kinds the device tables carry. */
#ifndef CRDYN_EXPLICIT_RESIDENT_H
#define CRDYN_EXPLICIT_RESIDENT_H

#include <stddef.h>

#include "crdyn/dynamics.h"

/* 1: usable; 0: the backend has the ops but this run needs the host loop
 * (why says what); -1: the backend has no resident loop. */
int crd_explicit_resident_usable(const crd_run *r, char *why, size_t n);
/* A stage's step loop (explicit.c fills it): steps n0+1 .. nsteps of stage
 * istage, step dt from t0, director inertia scale s, a progress line every
 * `every` steps. */
typedef struct crd_ex_loop {
  crd_run *r;
  crd_dyn *dy;
  const crd_stage *st;
  int istage, n0, nsteps, every;
  double dt, t0, s;
} crd_ex_loop;

/* The step loop of lp on the device, the accelerations of the start state
 * in lp->dy. */
int crd_explicit_resident(const crd_ex_loop *lp);

#endif
