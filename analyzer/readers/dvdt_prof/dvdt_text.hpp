// What the dvdt-prof reader's parts share about its stdout: the line prefix, and the line
// ending a Windows-edited file may carry. Internal to readers/dvdt_prof.
#pragma once

#include <string_view>

namespace clprof::readers::dvdt {

inline constexpr std::string_view kPrefix = "[dv/dt]";

// `line` without one trailing '\r'.
inline std::string_view trim_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace clprof::readers::dvdt
