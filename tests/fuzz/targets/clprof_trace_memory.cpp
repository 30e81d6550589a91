// Fuzz target: the in-memory reader of clprof traces (the path --filter, --iteration and
// several commands take): the shim's line layout with the compact-launch fast path and the
// general simdjson record parser, and re-formatted documents parsed whole; then every
// analysis over what it read.
#include "fuzz_support.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"

extern "C" int clprof_fuzz_clprof_trace_memory(const uint8_t* data, size_t size) {
  return clprof::fuzz::read_and_analyse(clprof::readers::clprof_trace_reader(), data, size);
}
