/* crdyn: the lean explicit force kernel's throughput on a CUDA device
 * (issue 32; src/kernels/crd_cuda_force.cu), for `make gpu-check`.
 *
 * leanbench [N ...]: for each N, a flat plate of about N elements
 * (side round(sqrt N)) in a small random state; the element cache built
 * on the host (crd_ef_geo_build) and every array uploaded once; then the
 * lean kernel (crd_cu_force_lean) and, for comparison, the thread layout
 * of the present force kernel (crd_cu_static, want_k 0), each timed with
 * CUDA events over repeated launches after a warm-up.  One line per size,
 * printed as soon as it is measured: elements/s of each, and the largest
 * difference of the lean forces from the CPU's (crd_elem_static) over the
 * first 20,000 elements, relative to each element's largest force.  Exit
 * status 2 without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "crdyn/cuda_force.h"
#include "crdyn/cuda_kernels.h"
#include "crdyn/elem_force.h"

typedef struct plate {
  int ne, nn, *quads, *l, *kind;
  double *x, *p0, *d, *p, *mat, *geo, *fe, *ue;
} plate;

static double urand(unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffff) / 65535.0 - 0.5;
}

/* an n x n plate of unit elements, bent and stretched a little */
static void plate_make(plate *m, int n)
{
  unsigned s = 32;
  m->ne = n * n;
  m->nn = (n + 1) * (n + 1);
  m->quads = malloc(sizeof(int) * 4 * (size_t)m->ne);
  m->l = malloc(sizeof(int) * (size_t)m->nn);
  m->kind = malloc(sizeof(int) * (size_t)m->ne);
  double **arr[] = {&m->x, &m->p0, &m->d, &m->p};
  for (int k = 0; k < 4; ++k) *arr[k] = malloc(sizeof(double) * 3 * (size_t)m->nn);
  m->mat = malloc(sizeof(double) * 4 * (size_t)m->ne);
  m->geo = malloc(sizeof(double) * CRD_EF_GEO * (size_t)m->ne);
  m->fe = malloc(sizeof(double) * 20 * (size_t)m->ne);
  m->ue = malloc(sizeof(double) * (size_t)m->ne);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      int a = j * (n + 1) + i;
      double X[3] = {(double)i, (double)j, 0.0}, nr[3] = {0.01 * urand(&s), 0.01 * urand(&s), 1.0};
      double r = sqrt(nr[0] * nr[0] + nr[1] * nr[1] + nr[2] * nr[2]);
      for (int c = 0; c < 3; ++c) {
        m->x[3 * a + c] = X[c];
        m->p0[3 * a + c] = c == 2 ? 1.0 : 0.0;
        m->d[3 * a + c] = 1e-3 * urand(&s) + (c == 2 ? 1e-3 * i : 0.0);
        m->p[3 * a + c] = nr[c] / r;
      }
      m->l[a] = 2;
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      int e = j * n + i, a = j * (n + 1) + i;
      int q[4] = {a, a + 1, a + n + 2, a + n + 1};
      memcpy(m->quads + 4 * e, q, sizeof q);
      double mt[4] = {2.1e11, 0.3, 0.01, 1.0};
      memcpy(m->mat + 4 * e, mt, sizeof mt);
    }
  crd_ef_geo_build(m->ne, m->quads, m->x, m->p0, m->mat, m->geo);
}

static void *up(const void *h, size_t bytes)
{
  void *dp = NULL;
  if (cudaMalloc(&dp, bytes ? bytes : 8) != cudaSuccess) return NULL;
  if (h) cudaMemcpy(dp, h, bytes, cudaMemcpyHostToDevice);
  return dp;
}

/* ms per launch of what over reps launches (after two) */
static double time_launches(int reps, int (*launch)(cudaStream_t, const void *), const void *a)
{
  cudaEvent_t t0, t1;
  float ms = 0;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  launch(0, a);
  launch(0, a);
  cudaEventRecord(t0, 0);
  for (int r = 0; r < reps; ++r) launch(0, a);
  cudaEventRecord(t1, 0);
  cudaEventSynchronize(t1);
  cudaEventElapsedTime(&ms, t0, t1);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return ms / reps;
}
static int launch_lean(cudaStream_t st, const void *a) { return crd_cu_force_lean(st, (const crd_cu_force_args *)a); }
static int launch_thread(cudaStream_t st, const void *a) { return crd_cu_static(st, (const crd_cu_static_args *)a); }

/* the lean forces against the CPU's element body on the first elements */
static double check_cpu(const plate *m, int upto)
{
  double worst = 0.0;
  for (int e = 0; e < upto && e < m->ne; ++e) {
    crd_q4_mat mt = crd_q4_mat_at(m->mat, e, 0.0);
    double f[20], k[210], u, mx = 0.0, d = 0.0;
    crd_elem_static(e, m->quads, m->x, m->p0, m->d, m->p, m->l, &mt, 0, f, k, &u);
    for (int c = 0; c < 20; ++c) {
      mx = fmax(mx, fabs(f[c]));
      d = fmax(d, fabs(f[c] - m->fe[20 * e + c]));
    }
    worst = fmax(worst, d / mx);
  }
  return worst;
}

static int bench(int n)
{
  plate m;
  plate_make(&m, n);
  size_t ne = (size_t)m.ne, nn = (size_t)m.nn;
  crd_cu_force_args a = {m.ne, up(m.quads, 16 * ne), up(m.l, 4 * nn), up(m.x, 24 * nn), up(m.d, 24 * nn),
                         up(m.p, 24 * nn), up(m.mat, 32 * ne), up(m.geo, 8 * CRD_EF_GEO * ne), up(NULL, 160 * ne),
                         up(NULL, 8 * ne), up(NULL, 4 * ne), up(NULL, 4)};
  crd_cu_static_args b = {m.ne, 0, a.quads, a.l, a.x, up(m.p0, 24 * nn), a.d, a.p, a.mat, up(NULL, 160 * ne),
                          NULL, up(NULL, 8 * ne), up(NULL, 4 * ne), a.first_bad, CRD_CU_LAYOUT_THREAD};
  if (!a.fe || !b.fe || !b.p0) {
    printf("leanbench: %d elements: device allocation failed\n", m.ne);
    return 1;
  }
  cudaMemcpy(a.first_bad, &m.ne, sizeof(int), cudaMemcpyHostToDevice);
  int reps = m.ne >= 1000000 ? 20 : m.ne >= 100000 ? 100 : 500;
  double ms = time_launches(reps, launch_lean, &a);
  double ms_t = time_launches(reps / 5 + 1, launch_thread, &b);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(m.fe, a.fe, 160 * ne, cudaMemcpyDeviceToHost);
  double dev = check_cpu(&m, 20000);
  printf("lean force, %d elements: %.3g elements/s (%.3f ms per launch); thread layout %.3g elements/s "
         "(%.3f ms); lean/thread %.2fx; forces vs the CPU: %.2e (first 20000 elements)%s%s\n",
         m.ne, m.ne / (ms * 1e-3), ms, m.ne / (ms_t * 1e-3), ms_t, ms_t / ms, dev, err ? ", CUDA error: " : "",
         err ? cudaGetErrorString(err) : "");
  fflush(stdout);
  const void *ptrs[] = {a.quads, a.l, a.x, a.d, a.p, a.mat, a.geo, a.fe, a.ue, a.kind, a.first_bad, b.p0, b.fe, b.ue, b.kind};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; ++i) cudaFree((void *)ptrs[i]);
  return err != cudaSuccess;
}

int main(int argc, char **argv)
{
  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    printf("leanbench: no CUDA device (%s): nothing measured\n", e != cudaSuccess ? cudaGetErrorString(e) : "none");
    return 2;
  }
  struct cudaDeviceProp pr;
  cudaGetDeviceProperties(&pr, 0);
  printf("leanbench: %s, %d SMs\n", pr.name, pr.multiProcessorCount);
  fflush(stdout);
  int rc = 0;
  for (int i = 1; i < argc || (argc == 1 && i < 4); ++i) {
    long n = argc > 1 ? atol(argv[i]) : (i == 1 ? 10000 : i == 2 ? 100000 : 1000000);
    rc |= bench((int)lround(sqrt((double)n)));
  }
  return rc;
}
