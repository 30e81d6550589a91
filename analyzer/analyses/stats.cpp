#include "analyses/stats.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace clprof::analyses {

namespace {

std::atomic<bool> g_overflow{false};
std::atomic<bool> g_bytes_overflow{false};

// The int64 value of a 128-bit sum, saturated (and noted) when it does not fit.
int64_t fit(__int128 v) {
  if (v > INT64_MAX) return saturated_ns(INT64_MAX);
  if (v <= INT64_MIN) return saturated_ns(INT64_MIN + 1);
  return static_cast<int64_t>(v);
}

}  // namespace

int64_t saturated_ns(int64_t limit) {
  g_overflow.store(true, std::memory_order_relaxed);
  return limit;
}

bool overflow_noted() {
  return g_overflow.load(std::memory_order_relaxed);
}

uint64_t add_bytes(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  g_bytes_overflow.store(true, std::memory_order_relaxed);
  return UINT64_MAX;
}

bool bytes_overflow_noted() {
  return g_bytes_overflow.load(std::memory_order_relaxed);
}

int64_t add_ns(int64_t a, int64_t b) {
  return fit(static_cast<__int128>(a) + b);
}

int64_t sub_ns(int64_t a, int64_t b) {
  return fit(static_cast<__int128>(a) - b);
}

int64_t median_of(std::vector<int64_t>& values) {
  if (values.empty()) return 0;
  const size_t n = values.size();
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  const int64_t upper = *mid;
  if (n % 2) return upper;
  const int64_t lower = *std::max_element(values.begin(), mid);
  // The mean of two int64 always fits; half-away-from-zero rounding, stated in the docs.
  const __int128 sum = static_cast<__int128>(lower) + upper;
  const __int128 half = sum / 2;
  return static_cast<int64_t>(sum % 2 == 0 ? half : half + (sum > 0 ? 1 : -1));
}

DurationStats compute_stats(std::vector<int64_t>& values) {
  DurationStats s;
  if (values.empty()) return s;
  s.count = values.size();
  s.min_ns = *std::min_element(values.begin(), values.end());
  s.max_ns = *std::max_element(values.begin(), values.end());
  __int128 sum = 0;  // exact: 2^64 values of 2^63 cannot overflow 2^127
  for (int64_t v : values) sum += v;
  s.total_ns = fit(sum);
  // The mean of int64 values is within their range: exact division, rounded to nearest.
  const __int128 n = static_cast<__int128>(s.count);
  __int128 q = sum / n, r = sum % n;
  if (2 * (r < 0 ? -r : r) >= n) q += sum < 0 ? -1 : 1;
  s.mean_ns = static_cast<int64_t>(q);
  if (s.count > 1) {
    // Two-pass variance: exact enough for ns durations, unlike the running sum of squares.
    const long double mean = static_cast<long double>(sum) / static_cast<long double>(s.count);
    long double sq = 0;
    for (int64_t v : values) sq += (v - mean) * (v - mean);
    const long double sd = std::sqrt(sq / static_cast<long double>(s.count - 1));
    // Values spread over the whole int64 range give more than 2^63: saturate then.
    s.stddev_ns = sd < 9.2e18L ? static_cast<int64_t>(std::llround(sd)) : saturated_ns(INT64_MAX);
  }
  s.median_ns = median_of(values);
  return s;
}

}  // namespace clprof::analyses
