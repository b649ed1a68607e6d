/* crdyn: choosing a backend and the messages the backends share (backend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_eval.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"

const char *crd_backend_available(void)
{
  return "cpu"
#ifdef CRD_HAVE_OPENCL
         ", opencl"
#endif
#ifdef CRD_HAVE_CUDA
         ", cuda"
#endif
         ", auto";
}

/* auto: CUDA where it is built in and a device answers, else the CPU; the
 * reason for the CPU goes into be->note (run.c prints it). */
static int create_auto(int device, crd_problem *pb, crd_backend **be)
{
  char why[400];
#ifdef CRD_HAVE_CUDA
  if (crd_backend_cuda_create(pb, device, be) == 0) return 0;
  snprintf(why, sizeof why, "the CUDA backend is not usable: %s", crd_err_message());
  crd_err_clear();
#else
  if (device >= 0)
    return CRD_ERR(CRD_ERR_INPUT, "--device %d: the auto backend of this build has no devices (use --backend "
                   "opencl)", device);
  snprintf(why, sizeof why, "this build has no CUDA backend");
#endif
  CRD_CALL(crd_backend_cpu_create(pb, be));
  snprintf((*be)->note, sizeof (*be)->note, "backend auto: running on the CPU (%s)", why);
  return 0;
}

static int create(const char *name, int device, crd_problem *pb, crd_backend **be);

int crd_backend_create(const char *name, int device, crd_problem *pb, crd_backend **be)
{
  CRD_CALL(create(name, device, pb, be));
  const char *xc = getenv("CRDYN_XCHECK"); /* a diagnostic switch: backend_xcheck.c */
  if (xc && !strcmp(xc, "1") && strcmp((*be)->ops->name, "cpu")) {
    int rc = crd_backend_xcheck_wrap(pb, be);
    if (rc) {
      crd_backend_destroy(be);
      return crd_err_trace(rc, __FILE__, __LINE__, __func__);
    }
  }
  return 0;
}

static int create(const char *name, int device, crd_problem *pb, crd_backend **be)
{
  *be = NULL;
  if (!strcmp(name, "auto")) return create_auto(device, pb, be);
  if (!strcmp(name, "cpu")) {
    if (device >= 0)
      return CRD_ERR(CRD_ERR_INPUT, "--device %d: the %s backend has no devices (use --backend opencl)", device,
                     name);
    CRD_CALL(crd_backend_cpu_create(pb, be));
    return 0;
  }
  if (!strcmp(name, "opencl")) {
#ifdef CRD_HAVE_OPENCL
    CRD_CALL(crd_backend_opencl_create(pb, device, be));
    return 0;
#else
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "backend 'opencl' is not compiled into this build (available: %s); "
                   "install the OpenCL headers and ICD loader (opencl-headers ocl-icd-opencl-dev) and rebuild",
                   crd_backend_available());
#endif
  }
  if (!strcmp(name, "cuda")) {
#ifdef CRD_HAVE_CUDA
    int rc = crd_backend_cuda_create(pb, device, be);
    if (rc == CRD_ERR_BACKEND) {
      char why[512];
      snprintf(why, sizeof why, "%s", crd_err_message());
      return CRD_ERR(rc, "--backend cuda: %s; run with --backend cpu (or --backend auto, which falls back to the "
                     "CPU)", why);
    }
    CRD_CALL(rc);
    return 0;
#else
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "backend 'cuda' is not compiled into this build (available: %s); "
                   "build where nvcc is found (/usr/local/cuda/bin/nvcc, or NVCC=...; docs/cuda.md)",
                   crd_backend_available());
#endif
  }
  return CRD_ERR(CRD_ERR_UNSUPPORTED, "backend '%s' is not compiled into this build (available: %s)", name,
                 crd_backend_available());
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
