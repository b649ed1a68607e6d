/* crdyn tests: TAP lines, no framework.  Each check prints "ok N - what" or
 * "not ok N - what: got .. want .."; tests/run.sh counts them. */
#ifndef CRD_TAP_H
#define CRD_TAP_H
#include <math.h>
#include <stdio.h>

static int t_run, t_fail;
#define T_OK(c, ...)                                                          \
  do {                                                                        \
    int ok_ = !!(c);                                                          \
    ++t_run;                                                                  \
    t_fail += !ok_;                                                           \
    printf("%sok %d - ", ok_ ? "" : "not ", t_run);                           \
    printf(__VA_ARGS__);                                                      \
    putchar('\n');                                                            \
    fflush(stdout);                                                           \
  } while (0)
#define T_NEAR(a, b, rtol, atol, what)                                        \
  T_OK(fabs((a) - (b)) <= (atol) + (rtol) * fabs(b), "%s: got %.12g want %.12g", (what), \
       (double)(a), (double)(b))
#define T_DONE() (printf("1..%d\n", t_run), t_fail ? 1 : 0)
#endif
