/* Gmsh reader: the fuzz harness's checks on every .msh seed and every input
 * the fuzzer once crashed on (tests/fuzz/gmsh/; see tests/fuzz_replay.h). */
#define LLVMFuzzerTestOneInput fuzz_one
#include "../fuzz/fuzz_gmsh.c"
#include "fuzz_replay.h"

int main(void)
{
  replay_dir("fuzz/msh");
  T_OK(replay_dir("tests/fuzz/gmsh") >= 1, "replay: gmsh regression inputs present");
  return T_DONE();
}
