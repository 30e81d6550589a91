#include "analyses/stats.hpp"

#include <algorithm>
#include <cmath>

namespace clprof::analyses {

int64_t median_of(std::vector<int64_t>& values) {
  if (values.empty()) return 0;
  const size_t n = values.size();
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  const int64_t upper = *mid;
  if (n % 2) return upper;
  const int64_t lower = *std::max_element(values.begin(), mid);
  // Average without overflow; llround gives half-away-from-zero, stated in the docs.
  return static_cast<int64_t>(std::llround((static_cast<long double>(lower) + upper) / 2.0L));
}

DurationStats compute_stats(std::vector<int64_t>& values) {
  DurationStats s;
  if (values.empty()) return s;
  s.count = values.size();
  s.min_ns = *std::min_element(values.begin(), values.end());
  s.max_ns = *std::max_element(values.begin(), values.end());
  long double sum = 0;
  for (int64_t v : values) sum += v;
  s.total_ns = static_cast<int64_t>(sum);
  const long double mean = sum / static_cast<long double>(s.count);
  s.mean_ns = static_cast<int64_t>(std::llround(mean));
  if (s.count > 1) {
    // Two-pass variance: exact enough for ns durations, unlike the running sum of squares.
    long double sq = 0;
    for (int64_t v : values) sq += (v - mean) * (v - mean);
    s.stddev_ns = static_cast<int64_t>(std::llround(std::sqrt(sq / (s.count - 1))));
  }
  s.median_ns = median_of(values);
  return s;
}

}  // namespace clprof::analyses
