// --speedup 'REGEX=FACTOR': "what if these kernels ran FACTOR times faster" estimates.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "name_regex.hpp"

namespace clprof::analyses {

struct SpeedupRule {
  std::string pattern;  // regex (name_regex.hpp syntax), searched in the kernel name
  NameRegex regex;
  double factor = 1.0;  // in [kMinSpeedupFactor, kMaxSpeedupFactor]
};

// The factors --speedup accepts: "1000 times slower" to "a million times faster". Beyond
// them an estimate says nothing useful, and 1e-300 would overflow every time.
inline constexpr double kMinSpeedupFactor = 1e-3;
inline constexpr double kMaxSpeedupFactor = 1e6;

// Parses "REGEX=FACTOR" (split at the last '='). Throws std::invalid_argument with a
// message naming the spec when the regex or the factor is bad (not a number, or outside
// [kMinSpeedupFactor, kMaxSpeedupFactor]).
SpeedupRule parse_speedup(std::string_view spec);

// An ordered rule list; the first rule whose regex matches a kernel name applies.
class Speedup {
 public:
  Speedup() = default;
  explicit Speedup(std::vector<SpeedupRule> rules) : rules_(std::move(rules)) {}
  bool empty() const { return rules_.empty(); }
  // The factor for `kernel_name` (1.0 when no rule matches).
  double factor_for(const std::string& kernel_name) const;
  // `ns` divided by the factor for `kernel_name`, rounded to nearest; saturated at the
  // int64 limits (with the overflow note of stats.hpp) if the quotient does not fit.
  int64_t estimate_ns(const std::string& kernel_name, int64_t ns) const;

 private:
  std::vector<SpeedupRule> rules_;
};

}  // namespace clprof::analyses
