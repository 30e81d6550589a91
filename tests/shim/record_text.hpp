// An op record's trace line as a string, for the tests of output/record_format.hpp and of the
// trace writer that check lines whole.
#pragma once

#include <string>

#include "output/record_format.hpp"

namespace shim_test {

inline std::string record_text(const clprof::shim::OpRecord& record) {
  std::string line;
  clprof::shim::format_op(record, line);
  return line;
}

}  // namespace shim_test
