/* crdyn bench: DGEMM ceiling of the BLAS crdyn links (OpenBLAS through
 * CHOLMOD's supernodal kernels).  Best of REPS runs of C = A B, n x n,
 * 2 n^3 flops each; the thread count is OpenBLAS's (OPENBLAS_NUM_THREADS).
 * usage: ceil_dgemm [n] [reps]; prints {"n":..,"threads":..,"gflops":..}. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cblas.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 2000, reps = argc > 2 ? atoi(argv[2]) : 5;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
         *c = malloc(sizeof(double) * n * n);
  if (!a || !b || !c) { fprintf(stderr, "ceil_dgemm: out of memory\n"); return 1; }
  for (long i = 0; i < (long)n * n; ++i) { a[i] = 1.0 + (i % 7) * 0.1; b[i] = 0.5 - (i % 5) * 0.1; c[i] = 0.0; }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n); /* warm-up */
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("{\"n\": %d, \"threads\": %d, \"seconds\": %.6f, \"gflops\": %.3f, \"check\": %.6g}\n", n,
         openblas_get_num_threads(), best, 2.0 * n * (double)n * n / best * 1e-9, c[n + 1]);
  free(a); free(b); free(c);
  return 0;
}
