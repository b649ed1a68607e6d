/* crdyn: the environment switches CRDYN_* (switches.h), in one table. */
#include <stdlib.h>
#include <string.h>

#include "crdyn/switches.h"

static const crd_switch_info table[] = {
  {"CRDYN_TRACE", CRD_SWITCH_USER, "1", "an error also prints where in the source it was raised"},
  {"CRDYN_PLOT", CRD_SWITCH_USER, "PATH", "crdyn plot runs this crdyn_plot.py instead of the one beside the binary"},
  {"CRDYN_ELEM_ISA", CRD_SWITCH_USER, "generic|x86-64-v3|x86-64-v4",
   "the CPU element code variant (default: the widest the CPU runs)"},
  {"CRDYN_ELEM_BATCH", CRD_SWITCH_DIAGNOSTIC, "0", "CPU elements one by one instead of in vector lanes"},
  {"CRDYN_EXPLICIT_HOST", CRD_SWITCH_DIAGNOSTIC, "1",
   "explicit steps on the host even where a device backend could keep the loop resident"},
  {"CRDYN_OPENCL_SPLIT", CRD_SWITCH_DIAGNOSTIC, "N", "OpenCL work-items per element (0: one per element)"},
  {"CRDYN_OPENCL_CLBLAST", CRD_SWITCH_DIAGNOSTIC, "1", "the OpenCL explicit loop's vector work through CLBlast"},
  {"CRDYN_CUDA_LAYOUT", CRD_SWITCH_DIAGNOSTIC, "split|thread|thread0", "the CUDA element kernels' layout (docs/cuda.md)"},
  {"CRDYN_CUDA_EX_SUMS", CRD_SWITCH_DIAGNOSTIC, "serial|tree", "how the CUDA explicit loop sums its measures"},
  {"CRDYN_CUDA_EX_FORCE", CRD_SWITCH_DIAGNOSTIC, "lean|elem",
   "the CUDA explicit loop's internal force: the lean kernel (default) or the element kernel of CRDYN_CUDA_LAYOUT"},
  {"CRDYN_XCHECK", CRD_SWITCH_DIAGNOSTIC, "1", "a device backend's every element compared with the CPU backend's"},
  {"CRDYN_XCHECK_TOL", CRD_SWITCH_DIAGNOSTIC, "TOL", "CRDYN_XCHECK's relative tolerance (default 1e-10; 0: bit for bit)"},
  {"CRDYN_TEST_XCHECK_ELEM", CRD_SWITCH_TEST, "E[:ke|:E]",
   "plants a difference in element E (its force, tangent or skew part) for CRDYN_XCHECK to find"},
  {"CRDYN_TEST_CUDA_GEO", CRD_SWITCH_TEST, "shift|stale",
   "the CUDA explicit loop's geometry cache with its MITC4 tying rows one field off (shift) or built from the "
   "stage's start state instead of the initial one (stale): tests/cli/cuda_emu.sh must see it"},
  {"CRDYN_TEST_SIGINT_STEP", CRD_SWITCH_TEST, "N", "raises SIGINT after step N"},
  {"CRDYN_TEST_SIGKILL_STEP", CRD_SWITCH_TEST, "N", "dies (SIGKILL) after step N, a crash"},
  {"CRDYN_TEST_ENERGY_STEP", CRD_SWITCH_TEST, "N", "implicit steps gain energy from step N on"},
  {"CRDYN_TEST_NAN_STEP", CRD_SWITCH_TEST, "N", "a NaN external force from step N on"},
  {"CRDYN_TEST_NAN_K_STEP", CRD_SWITCH_TEST, "N", "a NaN in the tangent K at implicit step N (the increment watchdog)"},
  {"CRDYN_TEST_SLIVER_STEP", CRD_SWITCH_TEST, "1",
   "adaptive implicit steps leave the rest before a stage's end or a load's break as a last step however short "
   "(tests/dyn/sliver.py)"},
  {"CRDYN_TEST_MONO_CUT", CRD_SWITCH_TEST, "1",
   "a step whose energy rise monotone energy cannot bring down is cut, its start acceleration kept "
   "(tests/dyn/sliver.py)"},
  {"CRDYN_TEST_UNSTABLE_DT", CRD_SWITCH_TEST, "1", "an explicit dt above the stable estimate runs (watchdog tests)"},
  {"CRDYN_TEST_MPI_SKEW", CRD_SWITCH_TEST, "1",
   "over MPI ranks, rank 1 scales its elements' forces by 1 + 1e-12 (the parity test's planted difference)"},
  {"CRDYN_TEST_TRIAD_C", CRD_SWITCH_TEST, "tilt",
   "corners at an intersection node outside its first patch see their normal turned by 0.2 degrees "
   "(tests/cli/fold_frame.sh)"},
  {"CRDYN_TEST_TRIAD_MOMENT", CRD_SWITCH_TEST, "chart",
   "the explicit step takes an intersection node's chart force as its moment, without the map M^T "
   "(tests/cli/fold_dynamics.sh)"},
  {"CRDYN_TEST_TRIAD_MEASURE", CRD_SWITCH_TEST, "no_spin",
   "the angular momentum of the explicit step leaves out the triads' spin J om (tests/cli/fold_dynamics.sh)"},
  {"CRDYN_TEST_TRIAD_BASIS", CRD_SWITCH_TEST, "A1",
   "the implicit step tests an intersection node's equations with statics' A1 at the step's end instead of "
   "the midpoint basis B (tests/cli/fold_implicit.sh)"},
  {"CRDYN_TEST_TRIAD_CKPT", CRD_SWITCH_TEST, "no_rates",
   "a restart takes the triads' E and charts from the checkpoint but not their rates (tests/cli/fold_restart.sh)"},
  {"CRDYN_TEST_TRIAD_MASS", CRD_SWITCH_TEST, "none",
   "the assembled mass leaves out the fold elements' (tests/cli/fold_modal.sh)"},
};
#define NSWITCH ((int)(sizeof table / sizeof table[0]))

const char *crd_switch(const char *name)
{
  for (int k = 0; k < NSWITCH; ++k)
    if (!strcmp(table[k].name, name)) return getenv(name);
  fprintf(stderr, "crdyn: internal: switch %s is not in the table of core/switches.c\n", name);
  return NULL;
}

const crd_switch_info *crd_switch_table(int *n)
{
  *n = NSWITCH;
  return table;
}

void crd_switches_print(FILE *f)
{
  static const char *const kinds[] = {"user switches", "diagnostic switches (code paths compared)",
                                      "test hooks (the test suite only)"};
  for (int kind = CRD_SWITCH_USER; kind <= CRD_SWITCH_TEST; ++kind) {
    fprintf(f, "%s:\n", kinds[kind]);
    for (int k = 0; k < NSWITCH; ++k)
      if ((int)table[k].kind == kind)
        fprintf(f, "  %-24s %-28s %s%s\n", table[k].name, table[k].values, table[k].meaning,
                getenv(table[k].name) ? "  [set]" : "");
  }
}
