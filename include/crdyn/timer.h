/* crdyn: wall clock. */
#ifndef CRDYN_TIMER_H
#define CRDYN_TIMER_H
#include <time.h>
static inline double crd_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
