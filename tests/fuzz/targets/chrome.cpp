// Fuzz target: the Chrome trace reader, then every analysis over what it read.
#include "fuzz_support.hpp"
#include "readers/chrome/chrome_trace.hpp"

extern "C" int clprof_fuzz_chrome(const uint8_t* data, size_t size) {
  clprof::model::Run run;
  if (clprof::fuzz::read_with(clprof::readers::chrome_trace_reader(),
                              clprof::fuzz::text(data, size), run))
    clprof::fuzz::analyse_run(run);
  return 0;
}
