/* crdyn: the environment switches CRDYN_*, in one table (core/switches.c):
 * each with its kind and meaning, read through crd_switch, listed by
 * `crdyn switches`.  User switches change how a run is done, never its
 * results beyond round-off; diagnostic switches are for comparing code
 * paths; test hooks exist for the test suite alone (tests/cli) and plant
 * failures or signals. */
#ifndef CRDYN_SWITCHES_H
#define CRDYN_SWITCHES_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CRD_SWITCH_USER, CRD_SWITCH_DIAGNOSTIC, CRD_SWITCH_TEST } crd_switch_kind;

typedef struct crd_switch_info {
  const char *name;
  crd_switch_kind kind;
  const char *values; /* what it takes */
  const char *meaning;
} crd_switch_info;

/* The value of switch `name` (NULL: not set).  A name missing from the
 * table is a programming error: it returns NULL and says so on stderr, and
 * tests/cli/switches.sh fails on it. */
const char *crd_switch(const char *name);
/* The table, for `crdyn switches` and the tests; *n: its length. */
const crd_switch_info *crd_switch_table(int *n);
/* The table as text: user switches, then diagnostic ones, then test hooks. */
void crd_switches_print(FILE *f);

#ifdef __cplusplus
}
#endif

#endif
