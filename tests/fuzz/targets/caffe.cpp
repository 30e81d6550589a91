// Fuzz target: the Caffe reader, then every analysis over what it read.
#include "readers/caffe/caffe.hpp"
#include "fuzz_support.hpp"

extern "C" int clprof_fuzz_caffe(const uint8_t* data, size_t size) {
  return clprof::fuzz::read_and_analyse(clprof::readers::caffe_reader(), data, size);
}
