/* crdyn bench: memory bandwidth ceiling, STREAM-triad like:
 * a[i] = b[i] + s c[i] over arrays far larger than the caches, best of REPS,
 * counted as 3 x 8 bytes per element (no write-allocate traffic counted, as
 * STREAM does).  OpenMP threads: OMP_NUM_THREADS.
 * usage: ceil_stream [mib per array] [reps]; prints {"gbytes_per_s":..}. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
  long mib = argc > 1 ? atol(argv[1]) : 128;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  long n = mib * 1024 * 1024 / 8;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
  if (!a || !b || !c) { fprintf(stderr, "ceil_stream: out of memory\n"); return 1; }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; } /* first touch by the same threads */
  double best = 1e30, s = 3.0;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    double t = now() - t0;
    if (t < best) best = t;
  }
  printf("{\"mib_per_array\": %ld, \"threads\": %d, \"seconds\": %.6f, \"gbytes_per_s\": %.3f, \"check\": %g}\n",
         mib, omp_get_max_threads(), best, 3.0 * 8.0 * n / best * 1e-9, a[n / 2]);
  free(a); free(b); free(c);
  return 0;
}
