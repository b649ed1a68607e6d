/* Case loader: the fuzz harness's checks (load, model invariants, problem
 * build, one evaluation) on the cases, the JSON seeds and every input the
 * fuzzer once crashed on (tests/fuzz/case/; see tests/fuzz_replay.h). */
#define LLVMFuzzerTestOneInput fuzz_one
#include "../fuzz/fuzz_case.c"
#include "fuzz_replay.h"

int main(void)
{
  replay_dir("cases");
  replay_dir("fuzz/seeds/json");
  replay_dir("tests/fuzz/case");
  return T_DONE();
}
