/* libFuzzer harness on the case loader: a JSON case text goes through
 * crd_case_load_string (JSON parsing, validation of every key, mesh parts:
 * inline, generated and Gmsh files beside the case, sets, supports, loads,
 * analysis), and a case that loads goes on to crd_problem_create (nodal
 * normals, DOFs, sparse pattern) and one element evaluation with the tangent.
 *
 * The loader must never crash, exit, leak or accept a model that breaks its
 * own invariants (checked below); a rejected case must carry a message.
 *
 * Harness-side caps (not loader limits; see docs/development.md "Sanitizers, valgrind,
 * fuzzing"): inputs over FUZZ_MAX_INPUT bytes, generated meshes over
 * FUZZ_MAX_GEN nodes and "file" names that leave the seed folder are skipped,
 * so the fuzzer spends its time on parsing rather than on building large
 * meshes or reading arbitrary files. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "crdyn/error.h"
#include "crdyn/model.h"
#include "crdyn/problem.h"
#include "crdyn/rigid.h"

#ifndef FUZZ_MSH_DIR
#define FUZZ_MSH_DIR "fuzz/msh" /* where "mesh": {"file": NAME} is looked up */
#endif
#define FUZZ_MAX_INPUT (64 * 1024)
#define FUZZ_MAX_GEN 2000.0

/* 1 if the tree holds a generator whose divisions make more than
 * FUZZ_MAX_GEN nodes, or a "file" that is not a plain name in FUZZ_MSH_DIR. */
static int too_costly(const cJSON *it)
{
  for (; it; it = it->next) {
    if (it->string && !strcmp(it->string, "generate") && cJSON_IsObject(it)) {
      static const char *const div[] = {"nx", "ny", "nc", "nl", "n", "n", NULL}; /* n: n*n */
      double nodes = 1;
      for (int k = 0; div[k]; ++k) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, div[k]);
        if (cJSON_IsNumber(v)) nodes *= v->valuedouble < 0 ? 1 : v->valuedouble + 1;
      }
      if (nodes > FUZZ_MAX_GEN) return 1;
    }
    if (it->string && !strcmp(it->string, "file") && cJSON_IsString(it) &&
        (strchr(it->valuestring, '/') || !strncmp(it->valuestring, "..", 2)))
      return 1;
    if (too_costly(it->child)) return 1;
  }
  return 0;
}

static void check_model(const crd_model *m)
{
  if (m->ne == 0 && m->nn == 0) { /* a model of rigid bodies only */
    if (m->nbodies <= 0) abort();
  } else if (m->nn <= 0 || m->ne <= 0 || !m->x || !m->quads) abort();
  for (int b = 0; b < m->nbodies; ++b)
    if (!(m->bodies[b].mass > 0) || m->bodies[b].tie < -1 || m->bodies[b].tie >= m->nsets) abort();
  for (int64_t k = 0; k < 4 * (int64_t)m->ne; ++k)
    if (m->quads[k] < 0 || m->quads[k] >= m->nn) abort();
  for (int e = 0; e < m->ne; ++e)
    if (m->elem_section[e] < 0 || m->elem_section[e] >= m->nsections) abort();
  for (int s = 0; s < m->nsets; ++s) {
    const crd_set *S = &m->sets[s];
    for (int k = 0; k < S->nn; ++k)
      if (S->nodes[k] < 0 || S->nodes[k] >= m->nn || (k && S->nodes[k] <= S->nodes[k - 1])) abort();
    for (int k = 0; k < S->ne; ++k)
      if (S->elems[k] < 0 || S->elems[k] >= m->ne || (k && S->elems[k] <= S->elems[k - 1])) abort();
  }
  for (int k = 0; k < m->nsupports; ++k)
    if (m->supports[k].set < 0 || m->supports[k].set >= m->nsets) abort();
  for (int k = 0; k < m->nloads; ++k)
    if (m->loads[k].set < -1 || m->loads[k].set >= m->nsets) abort();
  for (int k = 0; k < m->output.nprobes; ++k)
    if (m->output.probes[k].node < 0 || m->output.probes[k].node >= m->nn) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > FUZZ_MAX_INPUT) return -1;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  cJSON *pre = cJSON_Parse(text);
  int skip = pre && too_costly(pre);
  cJSON_Delete(pre);
  if (skip) {
    free(text);
    return -1; /* not added to the corpus */
  }
  crd_model *m = NULL;
  int rc = crd_case_load_string(text, FUZZ_MSH_DIR "/case.json", &m);
  free(text);
  if (rc) {
    if (m || rc > 0 || !crd_err_message()[0]) abort(); /* failure: no model, a message */
    return 0;
  }
  check_model(m);
  if (m->ne == 0) { /* rigid bodies only: their setup (mass, pose, fix) */
    crd_rigid *rg = NULL;
    if (crd_rigid_create(m, &rg) && (rg || !crd_err_message()[0])) abort();
    crd_rigid_destroy(&rg);
    crd_model_destroy(&m);
    crd_err_clear();
    return 0;
  }
  crd_problem *pb = NULL;
  if (!crd_problem_create(m, 1, &pb)) {
    double *F = calloc((size_t)pb->neq + 1, sizeof *F), U = 0;
    if (F) (void)crd_problem_eval(pb, 1, F, &U);
    free(F);
    crd_problem_destroy(&pb);
  } else if (pb || !crd_err_message()[0]) {
    abort();
  }
  crd_model_destroy(&m);
  crd_err_clear();
  return 0;
}
