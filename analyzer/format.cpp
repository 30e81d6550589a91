#include "format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace clprof::output {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "csv") return Format::Csv;
  if (name == "json") return Format::Json;
  if (name == "markdown" || name == "md") return Format::Markdown;
  return std::nullopt;
}

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_ns(int64_t ns) {
  // Units are chosen per value so that a column mixing 80 ns and 3 s stays readable; the
  // number of decimals keeps about 4 significant digits.
  const double a = std::fabs(static_cast<double>(ns));
  if (a < 1e3) return std::to_string(ns) + " ns";
  const char* unit = "us";
  double scaled = static_cast<double>(ns) / 1e3;
  if (a >= 1e9) {
    unit = "s";
    scaled = static_cast<double>(ns) / 1e9;
  } else if (a >= 1e6) {
    unit = "ms";
    scaled = static_cast<double>(ns) / 1e6;
  }
  const double s = std::fabs(scaled);
  const int decimals = s >= 100 ? 1 : s >= 10 ? 2 : 3;
  if (std::string(unit) == "s" && s >= 1000) return format_fixed(scaled, 0) + " s";
  return format_fixed(scaled, decimals) + " " + unit;
}

std::string format_general(double value) {
  char buf[400];
  // 4 significant digits in fixed notation: from 10^4 on the whole number (4148731, not
  // 4.149e+06), below 10^-4 as many decimals as 4 digits need (0.00006554, not 6.554e-05):
  // a reader compares magnitudes by length, never by an exponent. Below 10^-16 and for
  // non-finite values %g stays.
  const double magnitude = std::fabs(value);
  if (std::isfinite(value) && magnitude >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else if (std::isfinite(value) && magnitude > 0 && magnitude < 1e-4 && magnitude >= 1e-16) {
    const int decimals = 3 - static_cast<int>(std::floor(std::log10(magnitude)));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", value);
  }
  return buf;
}

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    ++u;
  }
  return format_fixed(v, 1) + " " + units[u];
}

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string format_sizes(const std::optional<std::vector<uint64_t>>& sizes) {
  if (!sizes) return "NULL";
  std::string s;
  for (uint64_t d : *sizes) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "-" : s;
}

}  // namespace clprof::output
