// --speedup 'REGEX=FACTOR': "what if these kernels ran FACTOR times faster" estimates.
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace clprof::analyses {

struct SpeedupRule {
  std::string pattern;  // ECMAScript regex, searched in the kernel name
  std::regex regex;
  double factor = 1.0;  // > 0
};

// Parses "REGEX=FACTOR" (split at the last '='). Throws std::invalid_argument with a
// message naming the spec when the regex or the factor is bad.
SpeedupRule parse_speedup(std::string_view spec);

// An ordered rule list; the first rule whose regex matches a kernel name applies.
class Speedup {
 public:
  Speedup() = default;
  explicit Speedup(std::vector<SpeedupRule> rules) : rules_(std::move(rules)) {}
  bool empty() const { return rules_.empty(); }
  // The factor for `kernel_name` (1.0 when no rule matches).
  double factor_for(const std::string& kernel_name) const;
  // `ns` divided by the factor for `kernel_name`, rounded to nearest.
  int64_t estimate_ns(const std::string& kernel_name, int64_t ns) const;

 private:
  std::vector<SpeedupRule> rules_;
};

}  // namespace clprof::analyses
