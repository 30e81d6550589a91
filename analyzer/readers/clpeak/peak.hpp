// Peak single-precision GFLOPS from clpeak's text output (--peak-from).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clprof::readers {

struct ClpeakDevice {
  std::string platform;
  std::string device;
  double best_sp_gflops = 0;  // largest value of "Single-precision compute (GFLOPS)"
};

// Every device of a clpeak report that has a "Single-precision compute (GFLOPS)" section.
// Throws std::invalid_argument when there is none.
std::vector<ClpeakDevice> parse_clpeak(std::string_view text);

// The peak for a device named `device_name` (exact, then substring match), else the
// first device of the report.
double pick_peak(const std::vector<ClpeakDevice>& devices, const std::string& device_name);

}  // namespace clprof::readers
