// Fuzz target: the Caffe reader, then every analysis over what it read.
#include "readers/caffe/caffe.hpp"
#include "fuzz_support.hpp"

extern "C" int clprof_fuzz_caffe(const uint8_t* data, size_t size) {
  clprof::model::Run run;
  if (clprof::fuzz::read_with(clprof::readers::caffe_reader(), clprof::fuzz::text(data, size), run))
    clprof::fuzz::analyse_run(run);
  return 0;
}
