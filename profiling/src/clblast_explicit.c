/* crdyn profiling: CLBlast against crdyn's own OpenCL kernels for the
 * vector work of the explicit loop, on the first fp64 OpenCL device.
 *
 *   update: the half-step rates of one step, vh = v + c a and wh = w + c wa
 *           (3 nn each): crdyn fuses them into its node kernel (one launch
 *           here, a plain kernel of the same two lines); CLBlast needs
 *           copy + axpy per vector (4 calls).
 *   sums:   the 7 node-measure sums (kinetic energy, L, J) over nn nodes of
 *           an 8-strided array: crdyn's one serial work-item (the host's
 *           order, bitwise equal) against 7 CLBlastDsum calls (tree order).
 *   gemm:   a batched element transform, C_e = A_e B_e for the ne = N^2
 *           elements of the plate, 20x20 each (the shape of T^T K T): a
 *           plain kernel (one work-item per entry) against
 *           CLBlastDgemmStridedBatched.
 *
 * Prints one table row per size with microseconds per call and the ratio
 * CLBlast / own, and the largest relative difference of the results.
 * Built and run by profiling/clblast_explicit.sh; not part of the library. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void upd(const int n, const double c, __global const double *v, __global const double *a,\n"
    "                  __global double *vh, __global const double *w, __global const double *wa,\n"
    "                  __global double *wh) {\n"
    "  int i = get_global_id(0); if (i >= n) return;\n"
    "  vh[i] = v[i] + c * a[i]; wh[i] = w[i] + c * wa[i]; }\n"
    "__kernel void sums(const int nn, __global const double *ct, __global double *out) {\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  double s[7] = {0, 0, 0, 0, 0, 0, 0};\n"
    "  for (int i = 0; i < nn; ++i) for (int k = 0; k < 7; ++k) s[k] += ct[8 * i + k];\n"
    "  for (int k = 0; k < 7; ++k) out[k] = s[k]; }\n"
    "__kernel void gemm(const int nb, __global const double *A, __global const double *B, __global double *C) {\n"
    "  int g = get_global_id(0); if (g >= 400 * nb) return;\n"
    "  int e = g / 400, r = (g % 400) / 20, c = g % 20;\n"
    "  __global const double *a = A + 400 * e + 20 * r, *b = B + 400 * e + c; double s = 0.0;\n"
    "  for (int k = 0; k < 20; ++k) s += a[k] * b[20 * k];\n"
    "  C[g] = s; }\n";

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define CK(x)                                                              \
  do {                                                                     \
    cl_int e_ = (x);                                                       \
    if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, e_); exit(1); } \
  } while (0)
#define CB(x)                                                                          \
  do {                                                                                 \
    CLBlastStatusCode e_ = (x);                                                        \
    if (e_ != CLBlastSuccess) { fprintf(stderr, "%s: CLBlast %d\n", #x, (int)e_); exit(1); } \
  } while (0)

int main(int argc, char **argv)
{
  int reps = 200;
  cl_platform_id plat;
  cl_device_id dev;
  cl_uint np = 0;
  CK(clGetPlatformIDs(1, &plat, &np));
  CK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  char dname[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  CK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CK(err);
  CK(clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL));
  cl_kernel ku = clCreateKernel(prog, "upd", &err);
  CK(err);
  cl_kernel ks = clCreateKernel(prog, "sums", &err);
  CK(err);
  cl_kernel kg = clCreateKernel(prog, "gemm", &err);
  CK(err);
  printf("device: %s, %d repetitions per figure\n\n", dname, reps);
  printf("| plate | nodes | update own us | update CLBlast us | ratio | sums own us | sums CLBlast us | ratio "
         "| sums max rel diff | gemm own us | gemm CLBlast us | ratio | gemm max rel diff |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int ai = 1; ai < argc; ++ai) {
    int m = atoi(argv[ai]), nn = (m + 1) * (m + 1), n = 3 * nn;
    int nb = m * m;
    size_t nh = 8 * (size_t)nn > 400 * (size_t)nb ? 8 * (size_t)nn : 400 * (size_t)nb;
    double *h = malloc(sizeof(double) * (nh + 8)), c = 0.5e-6, r_own[7], r_cb[7];
    double *g1 = malloc(sizeof(double) * 400 * (size_t)nb), *g2 = malloc(sizeof(double) * 400 * (size_t)nb);
    for (size_t i = 0; i < nh + 8; ++i) h[i] = sin(0.37 * i) * (1.0 + 1e-3 * i);
    cl_mem v = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(double) * n, h, &err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(double) * n, h + 1, &err);
    cl_mem w = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(double) * n, h + 2, &err);
    cl_mem wa = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(double) * n, h + 3, &err);
    cl_mem vh = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(double) * n, NULL, &err);
    cl_mem wh = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(double) * n, NULL, &err);
    cl_mem ct = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(double) * 8 * nn, h, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(double) * 8, NULL, &err);
    size_t gb = sizeof(double) * 400 * (size_t)nb;
    cl_mem GA = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, gb, h, &err);
    cl_mem GB = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, gb, h + 3, &err);
    cl_mem GC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gb, NULL, &err);
    CK(err);
    CK(clSetKernelArg(kg, 0, sizeof(int), &nb));
    CK(clSetKernelArg(kg, 1, sizeof(cl_mem), &GA));
    CK(clSetKernelArg(kg, 2, sizeof(cl_mem), &GB));
    CK(clSetKernelArg(kg, 3, sizeof(cl_mem), &GC));
    size_t ggws = (400 * (size_t)nb + 63) / 64 * 64;
    CK(clSetKernelArg(ku, 0, sizeof(int), &n));
    CK(clSetKernelArg(ku, 1, sizeof(double), &c));
    CK(clSetKernelArg(ku, 2, sizeof(cl_mem), &v));
    CK(clSetKernelArg(ku, 3, sizeof(cl_mem), &a));
    CK(clSetKernelArg(ku, 4, sizeof(cl_mem), &vh));
    CK(clSetKernelArg(ku, 5, sizeof(cl_mem), &w));
    CK(clSetKernelArg(ku, 6, sizeof(cl_mem), &wa));
    CK(clSetKernelArg(ku, 7, sizeof(cl_mem), &wh));
    CK(clSetKernelArg(ks, 0, sizeof(int), &nn));
    CK(clSetKernelArg(ks, 1, sizeof(cl_mem), &ct));
    CK(clSetKernelArg(ks, 2, sizeof(cl_mem), &out));
    size_t lws = 64, gws = ((size_t)n + 63) / 64 * 64, one = 1;
    double t[6];
    for (int pass = 0; pass < 2; ++pass) { /* pass 0 warms up (CLBlast compiles its kernels) */
      int R = pass ? reps : 3;
      double t0 = now();
      for (int r = 0; r < R; ++r) CK(clEnqueueNDRangeKernel(q, ku, 1, NULL, &gws, &lws, 0, NULL, NULL));
      CK(clFinish(q));
      double t1 = now();
      for (int r = 0; r < R; ++r) {
        CB(CLBlastDcopy(n, v, 0, 1, vh, 0, 1, &q, NULL));
        CB(CLBlastDaxpy(n, c, a, 0, 1, vh, 0, 1, &q, NULL));
        CB(CLBlastDcopy(n, w, 0, 1, wh, 0, 1, &q, NULL));
        CB(CLBlastDaxpy(n, c, wa, 0, 1, wh, 0, 1, &q, NULL));
      }
      CK(clFinish(q));
      double t2 = now();
      for (int r = 0; r < R; ++r) CK(clEnqueueNDRangeKernel(q, ks, 1, NULL, &one, &one, 0, NULL, NULL));
      CK(clFinish(q));
      CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r_own, r_own, 0, NULL, NULL));
      double t3 = now();
      for (int r = 0; r < R; ++r)
        for (int k = 0; k < 7; ++k) CB(CLBlastDsum(nn, out, k, ct, k, 8, &q, NULL));
      CK(clFinish(q));
      CK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r_cb, r_cb, 0, NULL, NULL));
      double t4 = now();
      int RG = pass ? 20 : 1;
      for (int r = 0; r < RG; ++r) CK(clEnqueueNDRangeKernel(q, kg, 1, NULL, &ggws, &lws, 0, NULL, NULL));
      CK(clFinish(q));
      CK(clEnqueueReadBuffer(q, GC, CL_TRUE, 0, gb, g1, 0, NULL, NULL));
      double t5 = now();
      for (int r = 0; r < RG; ++r)
        CB(CLBlastDgemmStridedBatched(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, 20, 20, 20, 1.0,
                                      GA, 0, 20, 400, GB, 0, 20, 400, 0.0, GC, 0, 20, 400, nb, &q, NULL));
      CK(clFinish(q));
      CK(clEnqueueReadBuffer(q, GC, CL_TRUE, 0, gb, g2, 0, NULL, NULL));
      double t6 = now();
      t[0] = (t1 - t0) / R; t[1] = (t2 - t1) / R; t[2] = (t3 - t2) / R; t[3] = (t4 - t3) / R;
      t[4] = (t5 - t4) / RG; t[5] = (t6 - t5) / RG;
    }
    double md = 0.0;
    for (int k = 0; k < 7; ++k) md = fmax(md, fabs(r_own[k] - r_cb[k]) / fmax(fabs(r_own[k]), 1e-300));
    double gd = 0.0, gm = 0.0;
    for (size_t i = 0; i < 400 * (size_t)nb; ++i) { gd = fmax(gd, fabs(g1[i] - g2[i])); gm = fmax(gm, fabs(g1[i])); }
    printf("| %dx%d | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.1e | %.0f | %.0f | %.2f | %.1e |\n", m, m, nn,
           1e6 * t[0], 1e6 * t[1], t[1] / t[0], 1e6 * t[2], 1e6 * t[3], t[3] / t[2], md, 1e6 * t[4], 1e6 * t[5],
           t[5] / t[4], gd / gm);
    cl_mem all[] = {v, a, w, wa, vh, wh, ct, out, GA, GB, GC};
    for (int i = 0; i < 11; ++i) clReleaseMemObject(all[i]);
    free(h); free(g1); free(g2);
  }
  return 0;
}
