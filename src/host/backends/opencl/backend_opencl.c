/* crdyn: the OpenCL backend (backend.h): element evaluation and assembly on
 * an OpenCL device with double precision (cl_khr_fp64), the kernels of
 * src/kernels/elements.h and explicit_loop.h (one text with the CUDA
 * kernels) over the same CRD_HD headers as the CPU backend (embedded at
 * build time: build/gen/crd_cl_source.c).
 *
 * Per evaluation: the state arrays the kernels read are written to the
 * device, one work-group per element computes its vectors and matrices,
 * the gather kernels assemble F and the CSR values (in the CPU's order:
 * the same bits for the same element values), and the assembled results,
 * the element forces (for the round-off scale f_e norm) and, for implicit
 * steps, the element Newton matrices E are read back.  Factorization and
 * solves stay on the host (CHOLMOD).  Built only with CRD_HAVE_OPENCL. */
#ifdef CRD_HAVE_OPENCL

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crdyn/backend.h"
#include "crdyn/elem_split.h"
#include "crdyn/error.h"
#include "crdyn/problem.h"
#include "crdyn/switches.h"

extern const char crd_cl_source[];

typedef struct ocl {
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k_static, k_mid, k_gather;
  cl_kernel k_static_split, k_mid_split; /* the element split over a work-group (elements.h) */
  int split;                             /* work-items per element for the split kernels; 0: serial */
  int ne, nn, neq, nnz;
  /* constant over a run */
  cl_mem quads, x, p0, mat, fptr, fidx, kptr, kidx, C;
  const double *C_host;             /* the mass coefficients uploaded to C */
  /* state and midpoint inputs */
  cl_mem d, p, l, d0, pa, df, pf, am, wam, Bs;
  /* element and assembled outputs */
  cl_mem fe, fin, ke, E, ue, kind, F, Fin, K;
  cl_mem first_bad;                 /* the element kernels' smallest failing element (1 int) */
  int *kind_h;
  /* the resident explicit loop (ex_*): kernels and the stage's buffers */
  cl_kernel kx_node1, kx_pres, kx_node2, kx_reduce;
  struct {
    int on, nload, npres, nw, cap;      /* cap: steps the factor tables hold */
    double dt, s;
    cl_mem eq, locked, mlump, plump, v, w, a, wa, vh, wh, dprev, contrib, status, acc;
    cl_mem lptr, lidx, l_load, l_a, l_b, w_idx, w_load, w_a, w_b, pres_idx, fac, facw, pres;
  } ex;
  /* CRDYN_OPENCL_CLBLAST=1: the measures of the resident loop summed by
   * CLBlast's xSUM (tree order: not the host's bits, within 1e-13); off by
   * default, since it is slower on PoCL (profiling/RESULTS.md) */
  int (*clblast_dsum)(size_t, cl_mem, size_t, const cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
  void *clblast_lib;
} ocl;

static const char *cl_errstr(cl_int e)
{
  switch (e) {
  case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
  case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
  case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
  case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
  case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
  case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
  case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
  case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL ICD installed)";
  default: return "OpenCL error";
  }
}

#define OCL(call, what)                                                                       \
  do {                                                                                        \
    cl_int e_ = (call);                                                                       \
    if (e_ != CL_SUCCESS)                                                                     \
      return CRD_ERR(CRD_ERR_BACKEND, "opencl: %s: %s (%d)", (what), cl_errstr(e_), (int)e_); \
  } while (0)

/* ---- devices ---------------------------------------------------------- */

typedef struct ocl_dev {
  cl_platform_id plat;
  cl_device_id dev;
} ocl_dev;

/* All devices of all platforms, in the order `crdyn devices` numbers them. */
static int list_all(ocl_dev *out, int max)
{
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return 0;
  int n = 0;
  for (cl_uint i = 0; i < np && i < 16; ++i) {
    cl_device_id devs[32];
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 32, devs, &nd) != CL_SUCCESS) continue;
    for (cl_uint j = 0; j < nd && j < 32 && n < max; ++j) {
      out[n].plat = plats[i];
      out[n].dev = devs[j];
      ++n;
    }
  }
  return n;
}

static int has_fp64(cl_device_id d)
{
  cl_device_fp_config c = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof c, &c, NULL) != CL_SUCCESS) c = 0;
  char ext[8192] = "";
  clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
  return c != 0 && strstr(ext, "cl_khr_fp64") != NULL;
}

int crd_backend_devices(char *buf, size_t n)
{
  ocl_dev devs[64];
  int nd = list_all(devs, 64);
  size_t k = 0;
  buf[0] = 0;
  if (nd == 0) {
    snprintf(buf, n, "no OpenCL devices (no platform or ICD found; on Debian: apt-get install pocl-opencl-icd)\n");
    return 0;
  }
  for (int i = 0; i < nd && k < n; ++i) {
    char pname[256] = "", dname[256] = "", ver[256] = "";
    cl_ulong mem = 0;
    cl_uint cu = 0;
    cl_device_type ty = 0;
    clGetPlatformInfo(devs[i].plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    clGetDeviceInfo(devs[i].dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    clGetDeviceInfo(devs[i].dev, CL_DEVICE_VERSION, sizeof ver - 1, ver, NULL);
    clGetDeviceInfo(devs[i].dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
    clGetDeviceInfo(devs[i].dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(devs[i].dev, CL_DEVICE_TYPE, sizeof ty, &ty, NULL);
    k += (size_t)snprintf(buf + k, n - k, "%d: %s | %s | %s, %s, %u compute units, %.1f GiB, fp64 %s\n", i, pname,
                          dname, ty & CL_DEVICE_TYPE_GPU ? "GPU" : ty & CL_DEVICE_TYPE_CPU ? "CPU" : "other", ver,
                          cu, (double)mem / (1024.0 * 1024.0 * 1024.0), has_fp64(devs[i].dev) ? "yes" : "NO (unusable)");
  }
  return nd;
}

/* ---- setup ------------------------------------------------------------ */

static int mk(ocl *o, size_t bytes, const void *host, cl_mem *m, const char *what)
{
  cl_int err;
  if (bytes == 0) bytes = 8;
  *m = clCreateBuffer(o->ctx, host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, bytes,
                      (void *)host, &err);
  OCL(err, what);
  return 0;
}


static void ex_release(ocl *o)
{
  cl_mem *all[] = {&o->ex.eq, &o->ex.locked, &o->ex.mlump, &o->ex.plump, &o->ex.v, &o->ex.w, &o->ex.a, &o->ex.wa,
                   &o->ex.vh, &o->ex.wh, &o->ex.dprev, &o->ex.contrib, &o->ex.status, &o->ex.acc, &o->ex.lptr,
                   &o->ex.lidx, &o->ex.l_load, &o->ex.l_a, &o->ex.l_b, &o->ex.w_idx, &o->ex.w_load, &o->ex.w_a,
                   &o->ex.w_b, &o->ex.pres_idx, &o->ex.fac, &o->ex.facw, &o->ex.pres};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
    if (*all[i]) {
      clReleaseMemObject(*all[i]);
      *all[i] = NULL;
    }
  o->ex.on = 0;
  o->ex.cap = 0;
}

static void ocl_free(ocl *o)
{
  cl_mem *all[] = {&o->quads, &o->x, &o->p0, &o->mat, &o->fptr, &o->fidx, &o->kptr, &o->kidx, &o->C,
                   &o->d, &o->p, &o->l, &o->d0, &o->pa, &o->df, &o->pf, &o->am, &o->wam, &o->Bs,
                   &o->fe, &o->fin, &o->ke, &o->E, &o->ue, &o->kind, &o->F, &o->Fin, &o->K, &o->first_bad};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
    if (*all[i]) clReleaseMemObject(*all[i]);
  ex_release(o);
  cl_kernel ks[] = {o->kx_node1, o->kx_pres, o->kx_node2, o->kx_reduce};
  for (size_t i = 0; i < sizeof ks / sizeof *ks; ++i)
    if (ks[i]) clReleaseKernel(ks[i]);
  if (o->k_static) clReleaseKernel(o->k_static);
  if (o->k_mid) clReleaseKernel(o->k_mid);
  if (o->k_gather) clReleaseKernel(o->k_gather);
  if (o->k_static_split) clReleaseKernel(o->k_static_split);
  if (o->k_mid_split) clReleaseKernel(o->k_mid_split);
  if (o->prog) clReleaseProgram(o->prog);
  if (o->clblast_lib) dlclose(o->clblast_lib);
  if (o->q) clReleaseCommandQueue(o->q);
  if (o->ctx) clReleaseContext(o->ctx);
  free(o->kind_h);
  free(o);
}

static void ocl_destroy(crd_backend *be)
{
  ocl_free(be->impl);
  free(be);
}

static int build_program(ocl *o, cl_device_id dev, const char *dname)
{
  cl_int err;
  const char *src = crd_cl_source;
  o->prog = clCreateProgramWithSource(o->ctx, 1, &src, NULL, &err);
  OCL(err, "clCreateProgramWithSource");
  err = clBuildProgram(o->prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(o->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    return CRD_ERR(CRD_ERR_BACKEND, "opencl: building the element kernels for %s failed (%d): %s", dname, (int)err,
                   log);
  }
  o->k_static = clCreateKernel(o->prog, "crd_k_static", &err);
  OCL(err, "clCreateKernel(crd_k_static)");
  o->k_mid = clCreateKernel(o->prog, "crd_k_mid", &err);
  OCL(err, "clCreateKernel(crd_k_mid)");
  o->k_gather = clCreateKernel(o->prog, "crd_k_gather", &err);
  OCL(err, "clCreateKernel(crd_k_gather)");
  o->k_static_split = clCreateKernel(o->prog, "crd_k_static_split", &err);
  OCL(err, "clCreateKernel(crd_k_static_split)");
  o->k_mid_split = clCreateKernel(o->prog, "crd_k_mid_split", &err);
  OCL(err, "clCreateKernel(crd_k_mid_split)");
  struct { cl_kernel *k; const char *name; } kx[] = {{&o->kx_node1, "crd_kx_node1"}, {&o->kx_pres, "crd_kx_pres"},
      {&o->kx_node2, "crd_kx_node2"}, {&o->kx_reduce, "crd_kx_reduce"}};
  for (size_t i = 0; i < sizeof kx / sizeof *kx; ++i) {
    *kx[i].k = clCreateKernel(o->prog, kx[i].name, &err);
    OCL(err, kx[i].name);
  }
  return 0;
}

static int upload_model(ocl *o, const crd_problem *pb)
{
  const crd_model *m = pb->m;
  size_t nn = (size_t)pb->nn, ne = (size_t)pb->ne;
  double *mat;
  CRD_CALL(CRD_CALLOC((size_t)CRD_Q4_MAT_STRIDE * ne, &mat));
  crd_backend_section_table(pb, mat);
  int *fptr = NULL, *fidx = NULL, *kptr = NULL, *kidx = NULL;
  int rc = 0;
  if ((rc = crd_map_invert(pb->elem_eq, 20 * ne, pb->neq, &fptr, &fidx)) ||
      (rc = crd_map_invert(pb->scatter, 210 * ne, o->nnz, &kptr, &kidx)))
    goto out;
  if ((rc = mk(o, sizeof(int) * 4 * ne, m->quads, &o->quads, "quads")) ||
      (rc = mk(o, sizeof(double) * 3 * nn, m->x, &o->x, "x")) ||
      (rc = mk(o, sizeof(double) * 3 * nn, pb->p0, &o->p0, "p0")) ||
      (rc = mk(o, sizeof(double) * CRD_Q4_MAT_STRIDE * ne, mat, &o->mat, "materials")) ||
      (rc = mk(o, sizeof(int) * (size_t)(pb->neq + 1), fptr, &o->fptr, "force gather map")) ||
      (rc = mk(o, sizeof(int) * (size_t)(fptr[pb->neq] + 1), fidx, &o->fidx, "force gather map")) ||
      (rc = mk(o, sizeof(int) * (size_t)(o->nnz + 1), kptr, &o->kptr, "matrix gather map")) ||
      (rc = mk(o, sizeof(int) * (size_t)(kptr[o->nnz] + 1), kidx, &o->kidx, "matrix gather map")) ||
      (rc = mk(o, sizeof(int), &o->ne, &o->first_bad, "element status")))
    goto out;
  struct { cl_mem *m; size_t bytes; const char *what; } bufs[] = {
      {&o->d, 3 * nn * sizeof(double), "d"},      {&o->p, 3 * nn * sizeof(double), "p"},
      {&o->l, nn * sizeof(int), "l"},             {&o->d0, 3 * nn * sizeof(double), "d0"},
      {&o->pa, 3 * nn * sizeof(double), "pa"},    {&o->df, 3 * nn * sizeof(double), "df"},
      {&o->pf, 3 * nn * sizeof(double), "pf"},    {&o->am, 5 * nn * sizeof(double), "am"},
      {&o->wam, 3 * nn * sizeof(double), "wam"},  {&o->Bs, 6 * nn * sizeof(double), "Bs"},
      {&o->fe, 20 * ne * sizeof(double), "fe"},   {&o->fin, 20 * ne * sizeof(double), "fin"},
      {&o->ke, 210 * ne * sizeof(double), "ke"},  {&o->ue, ne * sizeof(double), "ue"},
      {&o->kind, ne * sizeof(int), "kind"},       {&o->F, (size_t)pb->neq * sizeof(double), "F"},
      {&o->Fin, (size_t)pb->neq * sizeof(double), "Fin"}, {&o->K, (size_t)o->nnz * sizeof(double), "K"},
      {&o->C, 16 * ne * sizeof(double), "C"}};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs && !rc; ++i) rc = mk(o, bufs[i].bytes, NULL, bufs[i].m, bufs[i].what);
  /* E (400 doubles per element) only when an implicit step asks for it */
out:
  free(mat); free(fptr); free(fidx); free(kptr); free(kidx);
  return rc ? CRD_TRACE(rc) : 0;
}

/* ---- evaluation ------------------------------------------------------- */

static int put(ocl *o, cl_mem m, size_t bytes, const void *h, const char *what)
{
  OCL(clEnqueueWriteBuffer(o->q, m, CL_FALSE, 0, bytes, h, 0, NULL, NULL), what);
  return 0;
}

static int get(ocl *o, cl_mem m, size_t bytes, void *h, const char *what)
{
  OCL(clEnqueueReadBuffer(o->q, m, CL_FALSE, 0, bytes, h, 0, NULL, NULL), what);
  return 0;
}

static int gather(ocl *o, int n, cl_mem ptr, cl_mem idx, cl_mem src, cl_mem dst)
{
  if (n == 0) return 0;
  size_t lws = 64, gws = ((size_t)n + lws - 1) / lws * lws;
  cl_kernel k = o->k_gather;
  OCL(clSetKernelArg(k, 0, sizeof(int), &n), "gather arg");
  OCL(clSetKernelArg(k, 1, sizeof(cl_mem), &ptr), "gather arg");
  OCL(clSetKernelArg(k, 2, sizeof(cl_mem), &idx), "gather arg");
  OCL(clSetKernelArg(k, 3, sizeof(cl_mem), &src), "gather arg");
  OCL(clSetKernelArg(k, 4, sizeof(cl_mem), &dst), "gather arg");
  OCL(clEnqueueNDRangeKernel(o->q, k, 1, NULL, &gws, &lws, 0, NULL, NULL), "gather kernel");
  return 0;
}

/* One work-group per element: of o->split work-items for the split
 * kernels, of one for the serial ones. */
static int elems(ocl *o, cl_kernel k)
{
  size_t lws = o->split > 0 ? (size_t)o->split : 1, gws = (size_t)o->ne * lws;
  OCL(clEnqueueNDRangeKernel(o->q, k, 1, NULL, &gws, &lws, 0, NULL, NULL), "element kernel");
  return 0;
}

/* The element kernels' variant: CRDYN_OPENCL_SPLIT=N (N work-items per
 * element, 0 for the serial kernels), else the split with 64 on a GPU
 * device and the serial kernels on others (on PoCL's CPU device the split
 * is slower: profiling/RESULTS.md).  The choice holds for the implicit
 * kernels and the resident explicit loop's element kernel.  N is bounded
 * by what the device and the kernels allow; a device with less local
 * memory than the workspace gets the serial kernels. */
static int choose_split(ocl *o, cl_device_id dev, const char *dname)
{
  cl_device_type ty = 0;
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof ty, &ty, NULL);
  int n = (ty & CL_DEVICE_TYPE_GPU) ? 64 : 0;
  const char *env = crd_switch("CRDYN_OPENCL_SPLIT");
  if (env && *env) {
    char *end;
    long v = strtol(env, &end, 10);
    if (*end || v < 0 || v > 1024)
      return CRD_ERR(CRD_ERR_INPUT, "CRDYN_OPENCL_SPLIT=%s: expected the work-items per element, 0 to 1024 "
                     "(0: one work-item per element)", env);
    n = (int)v;
  }
  if (n == 0) {
    o->split = 0;
    return 0;
  }
  cl_ulong lmem = 0;
  clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
  if (lmem < sizeof(crd_elem_ws)) {
    if (env && *env)
      return CRD_ERR(CRD_ERR_BACKEND, "CRDYN_OPENCL_SPLIT=%s: %s has %llu bytes of local memory, the split "
                     "element kernels need %zu", env, dname, (unsigned long long)lmem, sizeof(crd_elem_ws));
    o->split = 0;
    return 0;
  }
  size_t lim = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof lim, &lim, NULL);
  cl_kernel ks[] = {o->k_static_split, o->k_mid_split};
  for (size_t i = 0; i < sizeof ks / sizeof *ks; ++i) {
    size_t kw = 0;
    clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kw, &kw, NULL);
    if (kw && kw < lim) lim = kw;
  }
  if (lim && (size_t)n > lim) n = (int)lim;
  o->split = n;
  return 0;
}

#define ARG(k, i, v) OCL(clSetKernelArg((k), (i), sizeof(v), &(v)), "kernel argument")

static int ocl_eval(crd_backend *be, crd_problem *pb, int want_K, double *F, double *U)
{
  ocl *o = be->impl;
  size_t nn = (size_t)o->nn, ne = (size_t)o->ne;
  CRD_CALL(put(o, o->d, 3 * nn * sizeof(double), pb->d, "write d"));
  CRD_CALL(put(o, o->p, 3 * nn * sizeof(double), pb->p, "write p"));
  CRD_CALL(put(o, o->l, nn * sizeof(int), pb->l, "write l"));
  cl_kernel k = o->split ? o->k_static_split : o->k_static;
  int nei = o->ne;
  ARG(k, 0, nei); ARG(k, 1, want_K); ARG(k, 2, o->quads); ARG(k, 3, o->x); ARG(k, 4, o->p0); ARG(k, 5, o->d);
  ARG(k, 6, o->p); ARG(k, 7, o->l); ARG(k, 8, o->mat); ARG(k, 9, o->fe); ARG(k, 10, o->ke); ARG(k, 11, o->ue);
  ARG(k, 12, o->kind); ARG(k, 13, o->first_bad);
  CRD_CALL(elems(o, k));
  CRD_CALL(gather(o, o->neq, o->fptr, o->fidx, o->fe, o->F));
  if (want_K) CRD_CALL(gather(o, o->nnz, o->kptr, o->kidx, o->ke, o->K));
  CRD_CALL(get(o, o->kind, ne * sizeof(int), o->kind_h, "read element status"));
  CRD_CALL(get(o, o->ue, ne * sizeof(double), pb->ue, "read energies"));
  CRD_CALL(get(o, o->fe, 20 * ne * sizeof(double), pb->fe, "read element forces"));
  CRD_CALL(get(o, o->F, (size_t)o->neq * sizeof(double), F, "read F"));
  if (want_K) CRD_CALL(get(o, o->K, (size_t)o->nnz * sizeof(double), pb->K->val, "read K"));
  if (want_K && be->keep_elements) CRD_CALL(get(o, o->ke, 210 * ne * sizeof(double), pb->ke, "read ke"));
  OCL(clFinish(o->q), "clFinish");
  for (int e = 0; e < o->ne; ++e)
    if (o->kind_h[e]) return crd_backend_elem_error(pb, e, o->kind_h[e]);
  double Utot = 0.0, fn = 0.0;
  for (size_t a = 0; a < 20 * ne; ++a) fn += pb->fe[a] * pb->fe[a];
  pb->fe_norm = sqrt(fn);
  for (size_t e = 0; e < ne; ++e) Utot += pb->ue[e];
  for (int i = 0; i < pb->neq; ++i)
    if (!isfinite(F[i])) return CRD_ERR(CRD_ERR_NUMERIC, "internal force not finite at equation %d", i);
  *U = Utot;
  return 0;
}

static int ocl_eval_mid(crd_backend *be, crd_problem *pb, const crd_mid_in *in, int want_K, crd_mid_out *out)
{
  ocl *o = be->impl;
  size_t nn = (size_t)o->nn, ne = (size_t)o->ne, d3 = 3 * nn * sizeof(double);
  if (want_K && !o->E) CRD_CALL(mk(o, 400 * ne * sizeof(double), NULL, &o->E, "E"));
  if (in->C != o->C_host) {
    CRD_CALL(put(o, o->C, 16 * ne * sizeof(double), in->C, "write C"));
    o->C_host = in->C;
  }
  CRD_CALL(put(o, o->d, d3, pb->d, "write d"));
  CRD_CALL(put(o, o->p, d3, pb->p, "write p"));
  CRD_CALL(put(o, o->l, nn * sizeof(int), pb->l, "write l"));
  CRD_CALL(put(o, o->d0, d3, in->d0, "write d0"));
  CRD_CALL(put(o, o->pa, d3, in->pa, "write pa"));
  CRD_CALL(put(o, o->df, d3, in->df, "write df"));
  CRD_CALL(put(o, o->pf, d3, in->pf, "write pf"));
  CRD_CALL(put(o, o->am, 5 * nn * sizeof(double), in->am, "write am"));
  CRD_CALL(put(o, o->wam, d3, in->wam, "write wam"));
  CRD_CALL(put(o, o->Bs, 2 * d3, in->Bs, "write Bs"));
  cl_kernel k = o->split ? o->k_mid_split : o->k_mid;
  int nei = o->ne;
  cl_mem E = o->E ? o->E : o->ke; /* not written unless want_K */
  double cf = in->cf, cm = in->cm, xi = in->xi;
  ARG(k, 0, nei); ARG(k, 1, want_K); ARG(k, 2, o->quads); ARG(k, 3, o->x); ARG(k, 4, o->p0); ARG(k, 5, o->d0);
  ARG(k, 6, o->pa); ARG(k, 7, o->d); ARG(k, 8, o->p); ARG(k, 9, o->df); ARG(k, 10, o->pf); ARG(k, 11, o->am);
  ARG(k, 12, o->wam); ARG(k, 13, o->Bs); ARG(k, 14, o->l); ARG(k, 15, o->C); ARG(k, 16, o->mat);
  ARG(k, 17, cf); ARG(k, 18, cm); ARG(k, 19, xi); ARG(k, 20, o->fe); ARG(k, 21, o->fin); ARG(k, 22, o->ke);
  ARG(k, 23, E); ARG(k, 24, o->ue); ARG(k, 25, o->kind); ARG(k, 26, o->first_bad);
  CRD_CALL(elems(o, k));
  CRD_CALL(gather(o, o->neq, o->fptr, o->fidx, o->fe, o->F));
  CRD_CALL(gather(o, o->neq, o->fptr, o->fidx, o->fin, o->Fin));
  if (want_K) CRD_CALL(gather(o, o->nnz, o->kptr, o->kidx, o->ke, o->K));
  CRD_CALL(get(o, o->kind, ne * sizeof(int), o->kind_h, "read element status"));
  CRD_CALL(get(o, o->ue, ne * sizeof(double), pb->ue, "read energies"));
  CRD_CALL(get(o, o->fe, 20 * ne * sizeof(double), out->fg_e, "read element forces"));
  CRD_CALL(get(o, o->fin, 20 * ne * sizeof(double), out->fin_e, "read element inertia forces"));
  CRD_CALL(get(o, o->F, (size_t)o->neq * sizeof(double), out->Fi, "read Fi"));
  CRD_CALL(get(o, o->Fin, (size_t)o->neq * sizeof(double), out->Fin, "read Fin"));
  if (want_K) {
    CRD_CALL(get(o, o->K, (size_t)o->nnz * sizeof(double), pb->K->val, "read K"));
    CRD_CALL(get(o, o->E, 400 * ne * sizeof(double), out->E_e, "read E"));
    if (be->keep_elements) CRD_CALL(get(o, o->ke, 210 * ne * sizeof(double), pb->ke, "read ke"));
  }
  OCL(clFinish(o->q), "clFinish");
  for (int e = 0; e < o->ne; ++e)
    if (o->kind_h[e]) return crd_backend_mid_error(pb, e);
  double Ut = 0.0, fn = 0.0;
  for (size_t e = 0; e < ne; ++e) {
    Ut += pb->ue[e];
    const double *fin = out->fin_e + 20 * e, *fg = out->fg_e + 20 * e;
    for (int a = 0; a < 20; ++a) fn += fg[a] * fg[a] + fin[a] * fin[a];
  }
  pb->fe_norm = sqrt(fn);
  out->U = Ut;
  return 0;
}

/* ---- the resident explicit loop (backend.h) ---------------------------- */

static void ocl_ex_end(crd_backend *be) { ex_release(be->impl); }

/* the nodal arrays of the resident loop and its counters on the device */
static int ex_alloc_nodes(ocl *o, const crd_problem *pb, const crd_ex_setup *su)
{
  const crd_ex_state *st = &su->st;
  size_t nn = (size_t)o->nn, d3 = 3 * nn * sizeof(double);
  int st0[4] = {2147483647, 2147483647, -1, 0};
  double acc0[9] = {su->wext, 0, 0, 0, 0, 0, 0, 0, 0};
  int rc;
  if ((rc = mk(o, 5 * nn * sizeof(int), pb->eq, &o->ex.eq, "eq")) ||
      (rc = mk(o, nn, su->locked, &o->ex.locked, "locked")) ||
      (rc = mk(o, nn * sizeof(double), su->mlump, &o->ex.mlump, "mlump")) ||
      (rc = mk(o, nn * sizeof(double), su->plump, &o->ex.plump, "plump")) ||
      (rc = mk(o, d3, st->v, &o->ex.v, "v")) || (rc = mk(o, d3, st->w, &o->ex.w, "w")) ||
      (rc = mk(o, d3, st->a, &o->ex.a, "a")) || (rc = mk(o, d3, st->wa, &o->ex.wa, "wa")) ||
      (rc = mk(o, d3, NULL, &o->ex.vh, "vh")) || (rc = mk(o, d3, NULL, &o->ex.wh, "wh")))
    return rc;
  if ((rc = mk(o, d3, NULL, &o->ex.dprev, "d_prev")) ||
      (rc = mk(o, 8 * nn * sizeof(double), NULL, &o->ex.contrib, "node measures")) ||
      (rc = mk(o, sizeof st0, st0, &o->ex.status, "status")) || (rc = mk(o, sizeof acc0, acc0, &o->ex.acc, "acc")))
    return rc;
  return 0;
}

/* the external loads' gather map (lptr/lidx: the inverted load map), their
 * work entries and the prescribed DOFs on the device */
static int ex_alloc_loads(ocl *o, const crd_ex_setup *su, const int *lptr, const int *lidx)
{
  int rc;
  if ((rc = mk(o, sizeof(int) * (size_t)(o->neq + 1), lptr, &o->ex.lptr, "load gather map")) ||
      (rc = mk(o, sizeof(int) * (size_t)(lptr[o->neq] + 1), lidx, &o->ex.lidx, "load gather map")) ||
      (rc = mk(o, sizeof(int) * (size_t)su->nfe, su->fe_load, &o->ex.l_load, "load entries")) ||
      (rc = mk(o, sizeof(double) * (size_t)su->nfe, su->fe_a, &o->ex.l_a, "load entries")) ||
      (rc = mk(o, sizeof(double) * (size_t)su->nfe, su->fe_b, &o->ex.l_b, "load entries")))
    return rc;
  if ((rc = mk(o, sizeof(int) * (size_t)su->nw, su->w_idx, &o->ex.w_idx, "work entries")) ||
      (rc = mk(o, sizeof(int) * (size_t)su->nw, su->w_load, &o->ex.w_load, "work entries")) ||
      (rc = mk(o, sizeof(double) * (size_t)su->nw, su->w_a, &o->ex.w_a, "work entries")) ||
      (rc = mk(o, sizeof(double) * (size_t)su->nw, su->w_b, &o->ex.w_b, "work entries")) ||
      (rc = mk(o, sizeof(int) * (size_t)su->npres, su->pres_idx, &o->ex.pres_idx, "prescribed")))
    return rc;
  return 0;
}

/* the state the loop starts from, and the scalars of its kernels */
static int ex_start_state(ocl *o, const crd_ex_setup *su)
{
  const crd_ex_state *st = &su->st;
  size_t nn = (size_t)o->nn, d3 = 3 * nn * sizeof(double);
  int rc;
  if ((rc = put(o, o->d, d3, st->d, "write d")) || (rc = put(o, o->p, d3, st->p, "write p")) ||
      (rc = put(o, o->l, nn * sizeof(int), st->l, "write l")))
    return rc;
  o->ex.nload = su->nload;
  o->ex.npres = su->npres;
  o->ex.nw = su->nw;
  o->ex.dt = su->dt;
  o->ex.s = su->rot_scale;
  o->ex.on = 1;
  return 0;
}

static int ocl_ex_begin(crd_backend *be, crd_problem *pb, const crd_ex_setup *su)
{
  ocl *o = be->impl;
  ex_release(o);
  int *lptr = NULL, *lidx = NULL, rc = 0;
  if (!(rc = crd_map_invert(su->fe_eq, (size_t)su->nfe, o->neq, &lptr, &lidx)) &&
      !(rc = ex_alloc_nodes(o, pb, su)) && !(rc = ex_alloc_loads(o, su, lptr, lidx)))
    rc = ex_start_state(o, su);
  free(lptr); free(lidx);
  if (rc) ex_release(o);
  return rc ? CRD_TRACE(rc) : 0;
}

static int ocl_ex_steps(crd_backend *be, const crd_ex_steps_in *in)
{
  ocl *o = be->impl;
  if (!o->ex.on) return CRD_ERR(CRD_ERR_BACKEND, "opencl: ex_steps without ex_begin");
  int k = in->k, nl = o->ex.nload, np = o->ex.npres;
  if (k <= 0) return 0;
  if (k > o->ex.cap) { /* the factor tables of one call */
    cl_mem *t[] = {&o->ex.fac, &o->ex.facw, &o->ex.pres};
    for (int i = 0; i < 3; ++i)
      if (*t[i]) { clReleaseMemObject(*t[i]); *t[i] = NULL; }
    CRD_CALL(mk(o, sizeof(double) * (size_t)k * (size_t)(nl > 0 ? nl : 1), NULL, &o->ex.fac, "load factors"));
    CRD_CALL(mk(o, sizeof(double) * (size_t)k * (size_t)(nl > 0 ? nl : 1), NULL, &o->ex.facw, "work factors"));
    CRD_CALL(mk(o, sizeof(double) * (size_t)k * (size_t)(np > 0 ? np : 1), NULL, &o->ex.pres, "prescribed values"));
    o->ex.cap = k;
  }
  if (nl > 0) {
    CRD_CALL(put(o, o->ex.fac, sizeof(double) * (size_t)k * nl, in->fac, "write load factors"));
    CRD_CALL(put(o, o->ex.facw, sizeof(double) * (size_t)k * nl, in->facw, "write work factors"));
  }
  if (np > 0) CRD_CALL(put(o, o->ex.pres, sizeof(double) * (size_t)k * np, in->pres, "write prescribed values"));
  int st0[2] = {2147483647, 2147483647};
  OCL(clEnqueueWriteBuffer(o->q, o->ex.status, CL_TRUE, 0, sizeof st0, st0, 0, NULL, NULL), "write status");
  OCL(clEnqueueWriteBuffer(o->q, o->first_bad, CL_TRUE, 0, sizeof(int), &o->ne, 0, NULL, NULL), "write status");
  int nn = o->nn, ne = o->ne, nw = o->ex.nw, j = 0, last = 0, want_k = 0;
  double dt = o->ex.dt, s = o->ex.s;
  cl_kernel k1 = o->kx_node1, kp = o->kx_pres, ke = o->split ? o->k_static_split : o->k_static, k2 = o->kx_node2,
            kr = o->kx_reduce;
  ARG(k1, 0, nn); ARG(k1, 2, dt); ARG(k1, 3, o->ex.eq); ARG(k1, 4, o->ex.locked); ARG(k1, 5, o->d);
  ARG(k1, 6, o->p); ARG(k1, 7, o->l); ARG(k1, 8, o->ex.v); ARG(k1, 9, o->ex.w); ARG(k1, 10, o->ex.a);
  ARG(k1, 11, o->ex.wa); ARG(k1, 12, o->ex.vh); ARG(k1, 13, o->ex.wh); ARG(k1, 14, o->ex.dprev);
  ARG(k1, 15, o->ex.status);
  ARG(kp, 0, np); ARG(kp, 2, o->ex.pres_idx); ARG(kp, 3, o->ex.pres); ARG(kp, 4, o->d); ARG(kp, 5, o->ex.status);
  ARG(ke, 0, ne); ARG(ke, 1, want_k); ARG(ke, 2, o->quads); ARG(ke, 3, o->x); ARG(ke, 4, o->p0); ARG(ke, 5, o->d);
  ARG(ke, 6, o->p); ARG(ke, 7, o->l); ARG(ke, 8, o->mat); ARG(ke, 9, o->fe); ARG(ke, 10, o->ke);
  ARG(ke, 11, o->ue); ARG(ke, 12, o->kind); ARG(ke, 13, o->first_bad);
  ARG(k2, 0, nn); ARG(k2, 1, ne); ARG(k2, 3, dt); ARG(k2, 4, s); ARG(k2, 5, nl); ARG(k2, 6, o->ex.eq);
  ARG(k2, 7, o->F); ARG(k2, 8, o->ex.lptr); ARG(k2, 9, o->ex.lidx); ARG(k2, 10, o->ex.l_load);
  ARG(k2, 11, o->ex.l_a); ARG(k2, 12, o->ex.l_b); ARG(k2, 13, o->ex.fac); ARG(k2, 14, o->ex.mlump);
  ARG(k2, 15, o->ex.plump); ARG(k2, 16, o->x); ARG(k2, 17, o->d); ARG(k2, 18, o->p); ARG(k2, 19, o->l);
  ARG(k2, 20, o->ex.v); ARG(k2, 21, o->ex.w); ARG(k2, 22, o->ex.a); ARG(k2, 23, o->ex.wa); ARG(k2, 24, o->ex.vh);
  ARG(k2, 25, o->ex.wh); ARG(k2, 26, o->ex.contrib); ARG(k2, 27, o->first_bad); ARG(k2, 28, o->ex.status);
  ARG(kr, 0, nn); ARG(kr, 1, ne); ARG(kr, 2, nw); ARG(kr, 5, nl); ARG(kr, 6, o->ex.w_idx); ARG(kr, 7, o->ex.w_load);
  ARG(kr, 8, o->ex.w_a); ARG(kr, 9, o->ex.w_b); ARG(kr, 10, o->ex.facw); ARG(kr, 11, o->d); ARG(kr, 12, o->ex.dprev);
  ARG(kr, 13, o->ex.contrib); ARG(kr, 14, o->ue); ARG(kr, 15, o->ex.acc); ARG(kr, 16, o->ex.status);
  size_t lws = 64, gn = ((size_t)nn + lws - 1) / lws * lws, gp = ((size_t)np + lws - 1) / lws * lws;
  size_t one = 1, lel = o->split ? (size_t)o->split : 1, gel = (size_t)ne * lel;
  for (j = 0; j < k; ++j) {
    last = j == k - 1;
    ARG(k1, 1, j); ARG(kp, 1, j); ARG(k2, 2, j); ARG(kr, 3, j); ARG(kr, 4, last);
    OCL(clEnqueueNDRangeKernel(o->q, k1, 1, NULL, &gn, &lws, 0, NULL, NULL), "explicit node kernel");
    if (np > 0) OCL(clEnqueueNDRangeKernel(o->q, kp, 1, NULL, &gp, &lws, 0, NULL, NULL), "prescribed kernel");
    OCL(clEnqueueNDRangeKernel(o->q, ke, 1, NULL, &gel, &lel, 0, NULL, NULL), "explicit element kernel");
    CRD_CALL(gather(o, o->neq, o->fptr, o->fidx, o->fe, o->F));
    OCL(clEnqueueNDRangeKernel(o->q, k2, 1, NULL, &gn, &lws, 0, NULL, NULL), "explicit node kernel");
    OCL(clEnqueueNDRangeKernel(o->q, kr, 1, NULL, &one, &one, 0, NULL, NULL), "explicit reduction kernel");
  }
  OCL(clFlush(o->q), "clFlush");
  return 0;
}

/* CLBlast, loaded when CRDYN_OPENCL_CLBLAST=1 asks for it (no link-time
 * dependency: the library is a C++ one the other builds need not carry). */
static int clblast_load(ocl *o)
{
  const char *on = crd_switch("CRDYN_OPENCL_CLBLAST");
  if (!on || strcmp(on, "1") || o->clblast_dsum) return 0;
  o->clblast_lib = dlopen("libclblast.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!o->clblast_lib) o->clblast_lib = dlopen("libclblast.so", RTLD_NOW | RTLD_LOCAL);
  if (!o->clblast_lib)
    return CRD_ERR(CRD_ERR_BACKEND, "CRDYN_OPENCL_CLBLAST=1: CLBlast not found (%s); apt-get install libclblast-dev",
                   dlerror());
  *(void **)&o->clblast_dsum = dlsym(o->clblast_lib, "CLBlastDsum");
  if (!o->clblast_dsum) return CRD_ERR(CRD_ERR_BACKEND, "CRDYN_OPENCL_CLBLAST=1: no CLBlastDsum in libclblast");
  return 0;
}

static int ocl_ex_measure(crd_backend *be, crd_ex_measure *out)
{
  ocl *o = be->impl;
  int st[4];
  double acc[9];
  CRD_CALL(clblast_load(o));
  if (o->clblast_dsum) { /* overwrite the serial sums of the last step's measures */
    for (int k = 0; k < 7; ++k)
      if (o->clblast_dsum((size_t)o->nn, o->ex.acc, 1 + k, o->ex.contrib, k, 8, &o->q, NULL))
        return CRD_ERR(CRD_ERR_BACKEND, "opencl: CLBlastDsum of the node measures failed");
    if (o->clblast_dsum((size_t)o->ne, o->ex.acc, 8, o->ue, 0, 1, &o->q, NULL))
      return CRD_ERR(CRD_ERR_BACKEND, "opencl: CLBlastDsum of the strain energy failed");
  }
  OCL(clEnqueueReadBuffer(o->q, o->ex.status, CL_TRUE, 0, sizeof st, st, 0, NULL, NULL), "read status");
  OCL(clEnqueueReadBuffer(o->q, o->ex.acc, CL_TRUE, 0, sizeof acc, acc, 0, NULL, NULL), "read measures");
  crd_ex_measure_unpack(acc, st, out);
  if (out->bad_step >= 0)
    OCL(clEnqueueReadBuffer(o->q, o->kind, CL_TRUE, sizeof(int) * (size_t)out->bad_elem, sizeof(int),
                            &out->bad_kind, 0, NULL, NULL), "read element status");
  return 0;
}

static int ocl_ex_sync(crd_backend *be, crd_ex_state *st)
{
  ocl *o = be->impl;
  size_t nn = (size_t)o->nn, d3 = 3 * nn * sizeof(double);
  CRD_CALL(get(o, o->d, d3, st->d, "read d"));
  CRD_CALL(get(o, o->p, d3, st->p, "read p"));
  CRD_CALL(get(o, o->l, nn * sizeof(int), st->l, "read l"));
  CRD_CALL(get(o, o->ex.v, d3, st->v, "read v"));
  CRD_CALL(get(o, o->ex.w, d3, st->w, "read w"));
  CRD_CALL(get(o, o->ex.a, d3, st->a, "read a"));
  CRD_CALL(get(o, o->ex.wa, d3, st->wa, "read wa"));
  OCL(clFinish(o->q), "clFinish");
  return 0;
}

static const crd_backend_ex_ops ocl_ex_ops = {.begin = ocl_ex_begin,
                                              .steps = ocl_ex_steps,
                                              .measure = ocl_ex_measure,
                                              .sync = ocl_ex_sync,
                                              .end = ocl_ex_end};
/* the stable step's element bound: the host's, on the state the host holds
 * (an explicit stage starts from it) */
static const crd_backend_ops ocl_ops = {.name = "opencl", .destroy = ocl_destroy, .eval = ocl_eval,
                                        .eval_mid = ocl_eval_mid, .lambda_max = crd_backend_cpu_lambda_max,
                                        .ex = &ocl_ex_ops};

int crd_backend_opencl_create(crd_problem *pb, int device, crd_backend **out)
{
  *out = NULL;
  ocl_dev devs[64];
  int nd = list_all(devs, 64);
  if (nd == 0)
    return CRD_ERR(CRD_ERR_BACKEND, "--backend opencl: no OpenCL device found (no platform or ICD; on Debian: "
                   "apt-get install pocl-opencl-icd for the CPU, or the GPU vendor's ICD)");
  int pick = device;
  if (pick < 0) {
    for (int i = 0; i < nd && pick < 0; ++i)
      if (has_fp64(devs[i].dev)) pick = i;
    if (pick < 0)
      return CRD_ERR(CRD_ERR_BACKEND, "--backend opencl: none of the %d OpenCL devices supports double precision "
                     "(cl_khr_fp64), which crdyn requires (see `crdyn devices`)", nd);
  }
  if (pick >= nd)
    return CRD_ERR(CRD_ERR_INPUT, "--device %d: there are %d OpenCL devices (0..%d; see `crdyn devices`)", pick, nd,
                   nd - 1);
  cl_device_id dev = devs[pick].dev;
  char dname[200] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
  if (!has_fp64(dev))
    return CRD_ERR(CRD_ERR_BACKEND, "--device %d (%s): no double precision (cl_khr_fp64), which crdyn requires; "
                   "choose another device (see `crdyn devices`)", pick, dname);
  if (pb->K->nnz >= 2147483647LL || 210LL * pb->ne >= 2147483647LL)
    return CRD_ERR(CRD_ERR_UNSUPPORTED, "--backend opencl: the model is too large for 32-bit gather indices");
  ocl *o;
  CRD_CALL(CRD_CALLOC(1, &o));
  o->ne = pb->ne;
  o->nn = pb->nn;
  o->neq = pb->neq;
  o->nnz = (int)pb->K->nnz;
  int rc = 0;
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)devs[pick].plat, 0};
  o->ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "opencl: clCreateContext on device %d (%s): %s", pick, dname, cl_errstr(err));
    goto fail;
  }
  o->q = clCreateCommandQueue(o->ctx, dev, 0, &err);
  if (err != CL_SUCCESS) {
    rc = CRD_ERR(CRD_ERR_BACKEND, "opencl: clCreateCommandQueue on device %d (%s): %s", pick, dname, cl_errstr(err));
    goto fail;
  }
  if ((rc = CRD_CALLOC(pb->ne, &o->kind_h)) || (rc = build_program(o, dev, dname)) ||
      (rc = choose_split(o, dev, dname)) || (rc = upload_model(o, pb)))
    goto fail;
  crd_backend *be;
  if ((rc = CRD_CALLOC(1, &be))) goto fail;
  be->ops = &ocl_ops;
  be->impl = o;
  if (o->split)
    snprintf(be->device_name, sizeof be->device_name, "OpenCL device %d: %.180s, element split over %d work-items",
             pick, dname, o->split);
  else
    snprintf(be->device_name, sizeof be->device_name, "OpenCL device %d: %.200s", pick, dname);
  *out = be;
  return 0;
fail:
  ocl_free(o);
  return CRD_TRACE(rc);
}

/* not for auto: on the machines it runs on (PoCL on the CPU) the CPU
 * backend is the faster one */
const crd_backend_reg crd_backend_reg_opencl = {.name = "opencl", .auto_priority = 0,
                                                .create = crd_backend_opencl_create};

#endif /* CRD_HAVE_OPENCL */
