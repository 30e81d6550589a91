// Fuzz target: the Arm NN reader, then every analysis over what it read.
#include "readers/armnn/armnn.hpp"
#include "fuzz_support.hpp"

extern "C" int clprof_fuzz_armnn(const uint8_t* data, size_t size) {
  return clprof::fuzz::read_and_analyse(clprof::readers::armnn_reader(), data, size);
}
