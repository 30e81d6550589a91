#include "readers/clpeak/peak.hpp"

#include <cstdlib>
#include <stdexcept>

namespace clprof::readers {

static std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<ClpeakDevice> parse_clpeak(std::string_view text) {
  // clpeak prints "Platform: X", "  Device: Y", then indented sections whose title ends
  // with a unit in parentheses and whose lines are "name : value". A section ends at the
  // first line that is not "name : number".
  std::vector<ClpeakDevice> out;
  std::string platform;
  ClpeakDevice* current = nullptr;
  bool in_sp = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.rfind("Platform:", 0) == 0) {
      platform = std::string(trim(line.substr(9)));
      current = nullptr;
      in_sp = false;
      continue;
    }
    if (line.rfind("Device:", 0) == 0) {
      out.push_back(ClpeakDevice{platform, std::string(trim(line.substr(7))), 0});
      current = &out.back();
      in_sp = false;
      continue;
    }
    if (line == "Single-precision compute (GFLOPS)") {
      in_sp = current != nullptr;
      continue;
    }
    if (!in_sp) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      in_sp = false;
      continue;
    }
    const std::string value(trim(line.substr(colon + 1)));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) {
      in_sp = false;
      continue;
    }
    // Only plausible figures count: finite, positive, at most 1e9 GFLOPS (an exaflop device).
    if (v > 0 && v <= 1e9 && v > current->best_sp_gflops) current->best_sp_gflops = v;
  }
  std::vector<ClpeakDevice> found;
  for (auto& d : out)
    if (d.best_sp_gflops > 0) found.push_back(d);
  if (found.empty())
    throw std::invalid_argument("no \"Single-precision compute (GFLOPS)\" section with values");
  return found;
}

double pick_peak(const std::vector<ClpeakDevice>& devices, const std::string& device_name) {
  if (devices.empty()) return 0;
  for (const auto& d : devices)
    if (!device_name.empty() && d.device == device_name) return d.best_sp_gflops;
  for (const auto& d : devices)
    if (!device_name.empty() && (d.device.find(device_name) != std::string::npos ||
                                 device_name.find(d.device) != std::string::npos))
      return d.best_sp_gflops;
  return devices.front().best_sp_gflops;
}

}  // namespace clprof::readers
