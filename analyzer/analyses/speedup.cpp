#include "analyses/speedup.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "analyses/stats.hpp"

namespace clprof::analyses {

SpeedupRule parse_speedup(std::string_view spec) {
  const std::string s(spec);
  const auto eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw std::invalid_argument("bad --speedup '" + s + "': expected REGEX=FACTOR");
  SpeedupRule rule;
  rule.pattern = s.substr(0, eq);
  const std::string factor = s.substr(eq + 1);
  char* end = nullptr;
  rule.factor = std::strtod(factor.c_str(), &end);
  if (factor.empty() || end != factor.c_str() + factor.size() || !std::isfinite(rule.factor) ||
      rule.factor <= 0)
    throw std::invalid_argument("bad --speedup '" + s + "': FACTOR '" + factor +
                                "' is not a positive number");
  if (rule.factor < kMinSpeedupFactor || rule.factor > kMaxSpeedupFactor)
    throw std::invalid_argument("bad --speedup '" + s + "': FACTOR '" + factor +
                                "' is outside [0.001, 1000000]");
  try {
    rule.regex = NameRegex(rule.pattern);
  } catch (const RegexError& e) {
    throw std::invalid_argument("bad --speedup '" + s + "': invalid regex '" + rule.pattern +
                                "': " + e.what());
  }
  return rule;
}

double Speedup::factor_for(const std::string& kernel_name) const {
  for (const auto& r : rules_)
    if (r.regex.search(kernel_name)) return r.factor;
  return 1.0;
}

int64_t Speedup::estimate_ns(const std::string& kernel_name, int64_t ns) const {
  const double f = factor_for(kernel_name);
  if (f == 1.0) return ns;
  const double q = std::round(static_cast<double>(ns) / f);
  // 2^63 is exactly representable; anything at or past it does not fit.
  if (q >= 9223372036854775808.0) return saturated_ns(INT64_MAX);
  if (q < -9223372036854775808.0) return saturated_ns(INT64_MIN + 1);
  return static_cast<int64_t>(q);
}

}  // namespace clprof::analyses
