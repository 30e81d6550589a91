// Order statistics over integer nanosecond durations, exact and deterministic.
#pragma once

#include <cstdint>
#include <vector>

namespace clprof::analyses {

struct DurationStats {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t mean_ns = 0;    // total / count, rounded to nearest
  int64_t median_ns = 0;  // even count: mean of the two middle values, rounded to nearest
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t stddev_ns = 0;  // sample standard deviation (n - 1), rounded; 0 when count < 2
};

// Statistics of `values` (reordered in place). All zero for an empty vector.
DurationStats compute_stats(std::vector<int64_t>& values);

// Median of `values` (reordered in place), as compute_stats defines it; 0 when empty.
int64_t median_of(std::vector<int64_t>& values);

}  // namespace clprof::analyses
