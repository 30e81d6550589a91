// Fuzz target: the dvdt-prof reader, then every analysis over what it read.
#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "fuzz_support.hpp"

extern "C" int clprof_fuzz_dvdt_prof(const uint8_t* data, size_t size) {
  return clprof::fuzz::read_and_analyse(clprof::readers::dvdt_prof_reader(), data, size);
}
