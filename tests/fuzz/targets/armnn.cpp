// Fuzz target: the Arm NN reader, then every analysis over what it read.
#include "readers/armnn/armnn.hpp"
#include "fuzz_support.hpp"

extern "C" int clprof_fuzz_armnn(const uint8_t* data, size_t size) {
  clprof::model::Run run;
  if (clprof::fuzz::read_with(clprof::readers::armnn_reader(), clprof::fuzz::text(data, size), run))
    clprof::fuzz::analyse_run(run);
  return 0;
}
