/* crdyn: choosing a backend and the messages the backends share (backend.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_eval.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "crdyn/switches.h"

/* The backends a build leaves out register how to build them. */
#ifndef CRD_HAVE_OPENCL
const crd_backend_reg crd_backend_reg_opencl = {
    .name = "opencl",
    .not_built = "install the OpenCL headers and ICD loader (opencl-headers ocl-icd-opencl-dev) and rebuild"};
#endif
#ifndef CRD_HAVE_CUDA
const crd_backend_reg crd_backend_reg_cuda = {
    .name = "cuda", .not_built = "build where nvcc is found (/usr/local/cuda/bin/nvcc, or NVCC=...; docs/cuda.md)"};
#endif

static const crd_backend_reg *const registry[] = {&crd_backend_reg_cpu, &crd_backend_reg_opencl, &crd_backend_reg_cuda};
#define NREG (sizeof registry / sizeof registry[0])

const char *crd_backend_available(void)
{
  static char list[128];
  size_t k = 0;
  for (size_t i = 0; i < NREG; ++i)
    if (registry[i]->create) k += (size_t)snprintf(list + k, sizeof list - k, "%s, ", registry[i]->name);
  snprintf(list + k, sizeof list - k, "auto");
  return list;
}

static const crd_backend_reg *find(const char *name)
{
  for (size_t i = 0; i < NREG; ++i)
    if (!strcmp(registry[i]->name, name)) return registry[i];
  return NULL;
}

/* auto: the built backends above the CPU's priority, highest first, where
 * one answers; else the CPU, with the reason in be->note (run.c prints it). */
static int create_auto(int device, crd_problem *pb, crd_backend **be)
{
  char why[400] = "";
  int tried = 0;
  for (int prio = 1 << 30; prio > crd_backend_reg_cpu.auto_priority;) {
    const crd_backend_reg *best = NULL;
    for (size_t i = 0; i < NREG; ++i) /* the next lower priority */
      if (registry[i]->create && registry[i]->auto_priority < prio &&
          registry[i]->auto_priority > crd_backend_reg_cpu.auto_priority &&
          (!best || registry[i]->auto_priority > best->auto_priority))
        best = registry[i];
    if (!best) break;
    prio = best->auto_priority;
    ++tried;
    if (best->create(pb, device, be) == 0) return 0;
    snprintf(why, sizeof why, "the %s backend is not usable: %s", best == &crd_backend_reg_cuda ? "CUDA" : best->name,
             crd_err_message());
    crd_err_clear();
  }
  if (!tried) {
    if (device >= 0)
      return CRD_ERR(CRD_ERR_INPUT, "--device %d: the auto backend of this build has no devices (use --backend "
                     "opencl)", device);
    snprintf(why, sizeof why, "this build has no CUDA backend");
  }
  CRD_CALL(crd_backend_cpu_create(pb, be));
  snprintf((*be)->note, sizeof (*be)->note, "backend auto: running on the CPU (%s)", why);
  return 0;
}

/* a backend by its name: registered and built, or a message that says how
 * to build it */
static int create(const char *name, int device, crd_problem *pb, crd_backend **be)
{
  *be = NULL;
  if (!strcmp(name, "auto")) return create_auto(device, pb, be);
  const crd_backend_reg *reg = find(name);
  if (!reg)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "backend '%s' is not compiled into this build (available: %s)", name,
                   crd_backend_available());
  if (!reg->create)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "backend '%s' is not compiled into this build (available: %s); %s", name,
                   crd_backend_available(), reg->not_built);
  int rc = reg->create(pb, device, be);
  if (rc == CRD_ERR_BACKEND && reg->on_failure) return CRD_WRAP(rc, reg->on_failure, "--backend %s: ", name);
  CRD_CALL(rc);
  return 0;
}

int crd_backend_create(const char *name, int device, crd_problem *pb, crd_backend **be)
{
  CRD_CALL(create(name, device, pb, be));
  const char *xc = crd_switch("CRDYN_XCHECK"); /* a diagnostic switch: backend_xcheck.c */
  if (xc && !strcmp(xc, "1") && strcmp((*be)->ops->name, "cpu")) {
    int rc = crd_backend_xcheck_wrap(pb, be);
    if (rc) {
      crd_backend_destroy(be);
      return CRD_TRACE(rc);
    }
  }
  return 0;
}

crd_q4_mat crd_backend_section_mat(const crd_problem *pb, int e)
{
  const crd_model *m = pb->m;
  const crd_section *s = &m->sections[m->elem_section[e]];
  crd_q4_mat mt = {s->E, s->nu, s->thickness, 0.0, s->membrane == CRD_MEMBRANE_TIED_SHEAR ? 1.0 : 0.0};
  return mt;
}

void crd_backend_section_table(const crd_problem *pb, double *mat)
{
  for (int e = 0; e < pb->ne; ++e) {
    crd_q4_mat mt = crd_backend_section_mat(pb, e);
    double *row = mat + (size_t)CRD_Q4_MAT_STRIDE * e;
    row[0] = mt.E;
    row[1] = mt.nu;
    row[2] = mt.h;
    row[3] = mt.am;
  }
}

void crd_backend_destroy(crd_backend **pbe)
{
  crd_backend *be = *pbe;
  if (!be) return;
  be->ops->destroy(be);
  *pbe = NULL;
}

int crd_backend_elem_error(const crd_problem *pb, int bad, int kind)
{
  const int32_t *qd = pb->m->quads + 4 * bad;
  static const char *what[] = {"", "is degenerate (det J <= 0 in the initial state)",
                               "is inverted in the current state", "gave a non-finite energy"};
  return CRD_ERR(kind == CRD_ELEM_INVERTED ? CRD_WARN_ELEM_INVERTED
                 : (kind == CRD_ELEM_NONFINITE ? CRD_ERR_NUMERIC : CRD_ERR_INPUT),
                 "element %d (nodes %d %d %d %d) %s", bad, qd[0], qd[1], qd[2], qd[3], what[kind]);
}

void crd_ex_measure_unpack(const double *acc, const int *status, crd_ex_measure *out)
{
  out->wext = acc[0];
  out->kinetic = acc[1];
  for (int c = 0; c < 3; ++c) {
    out->L[c] = acc[2 + c];
    out->J[c] = acc[5 + c];
  }
  out->strain = acc[8];
  out->bad_node = status[2];
  out->bad_step = out->bad_elem = out->bad_kind = -1;
  if (status[0] != INT_MAX) {
    out->bad_step = status[0];
    out->bad_elem = status[1];
  }
}

#ifndef CRD_HAVE_CUDA
int crd_backend_cuda_devices(char *buf, size_t n)
{
  snprintf(buf, n, "this build has no CUDA backend (built without nvcc)\n");
  return 0;
}
#endif

#ifndef CRD_HAVE_OPENCL
int crd_backend_devices(char *buf, size_t n)
{
  snprintf(buf, n, "this build has no OpenCL backend (built without the OpenCL headers and ICD loader)\n");
  return 0;
}
#endif
