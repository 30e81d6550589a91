// Fuzz target: the Chrome trace reader, then every analysis over what it read.
#include "fuzz_support.hpp"
#include "readers/chrome/chrome_trace.hpp"

extern "C" int clprof_fuzz_chrome(const uint8_t* data, size_t size) {
  return clprof::fuzz::read_and_analyse(clprof::readers::chrome_trace_reader(), data, size);
}
