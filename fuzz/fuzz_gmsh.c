/* libFuzzer harness on the Gmsh .msh 4.1 reader (crd_gmsh_read): the input
 * is written to a scratch file (the reader's interface takes a path) and
 * read back.  The reader must never crash, exit or leak, must leave nothing
 * half-read on failure, and a mesh it returns must index only its own nodes.
 * Inputs over FUZZ_MAX_INPUT bytes are skipped (a harness cap). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crdyn/error.h"
#include "crdyn/mesh_io.h"

#define FUZZ_MAX_INPUT (64 * 1024)

static char scratch[64];

static void cleanup(void) { if (scratch[0]) unlink(scratch); }

static void check_part(const crd_mesh_part *p)
{
  if (p->nn <= 0 || p->ne <= 0 || !p->x || !p->quads) abort();
  for (int64_t k = 0; k < 4 * (int64_t)p->ne; ++k)
    if (p->quads[k] < 0 || p->quads[k] >= p->nn) abort();
  for (int s = 0; s < p->nsets; ++s) {
    const crd_set *S = &p->sets[s];
    if (S->nn + S->ne <= 0) abort();
    for (int k = 0; k < S->nn; ++k)
      if (S->nodes[k] < 0 || S->nodes[k] >= p->nn) abort();
    for (int k = 0; k < S->ne; ++k)
      if (S->elems[k] < 0 || S->elems[k] >= p->ne) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > FUZZ_MAX_INPUT) return -1;
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "/tmp/crdyn-fuzz-%ld.msh", (long)getpid());
    atexit(cleanup);
  }
  FILE *f = fopen(scratch, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  crd_mesh_part p;
  memset(&p, 0x5a, sizeof p); /* the reader must initialise every field */
  int rc = crd_gmsh_read(scratch, &p);
  if (rc) {
    if (rc > 0 || !crd_err_message()[0] || p.x || p.quads || p.sets || p.nn || p.ne) abort();
  } else {
    check_part(&p);
  }
  crd_mesh_part_free(&p);
  crd_err_clear();
  return 0;
}
