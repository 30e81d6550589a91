// Order statistics over integer nanosecond durations (analyses/stats.hpp).
#include <doctest/doctest.h>

#include <vector>

#include "analyses/stats.hpp"
#include "model.hpp"

using namespace clprof;

TEST_CASE("median: odd, even (mean of the middle two, rounded), empty") {
  std::vector<int64_t> odd = {5, 1, 3};
  CHECK(analyses::median_of(odd) == 3);
  std::vector<int64_t> even = {400, 600};
  CHECK(analyses::median_of(even) == 500);
  std::vector<int64_t> half = {1, 2};
  CHECK(analyses::median_of(half) == 2);  // 1.5 rounds away from zero
  std::vector<int64_t> four = {10, 1, 7, 3};
  CHECK(analyses::median_of(four) == 5);
  std::vector<int64_t> none;
  CHECK(analyses::median_of(none) == 0);
}

TEST_CASE("compute_stats: exact values") {
  std::vector<int64_t> v = {100, 200, 300};
  auto s = analyses::compute_stats(v);
  CHECK(s.count == 3);
  CHECK(s.total_ns == 600);
  CHECK(s.mean_ns == 200);
  CHECK(s.median_ns == 200);
  CHECK(s.min_ns == 100);
  CHECK(s.max_ns == 300);
  CHECK(s.stddev_ns == 100);  // sample stddev: sqrt((100^2 + 0 + 100^2) / 2)
  std::vector<int64_t> one = {42};
  auto o = analyses::compute_stats(one);
  CHECK(o.stddev_ns == 0);
  CHECK(o.median_ns == 42);
  std::vector<int64_t> big = {4'000'000'000'000'000'000, 4'000'000'000'000'000'002};
  auto b = analyses::compute_stats(big);
  CHECK(b.median_ns == 4'000'000'000'000'000'001);  // no overflow averaging the middle two
}

TEST_CASE("stats: 128-bit sums; totals past int64 saturate and set the overflow note") {
  std::vector<int64_t> v = {INT64_MAX - 1, INT64_MAX - 3};
  auto s = analyses::compute_stats(v);
  CHECK(s.mean_ns == INT64_MAX - 2);  // exact, although the sum does not fit
  CHECK(s.median_ns == INT64_MAX - 2);
  CHECK(s.total_ns == INT64_MAX);
  CHECK(analyses::overflow_noted());
  std::vector<int64_t> spread = {INT64_MIN + 1, INT64_MAX};
  auto w = analyses::compute_stats(spread);
  CHECK(w.median_ns == 0);
  CHECK(w.stddev_ns == INT64_MAX);
  CHECK(analyses::add_ns(INT64_MAX, 1) == INT64_MAX);
  CHECK(analyses::add_ns(INT64_MIN + 1, -5) == INT64_MIN + 1);
  CHECK(analyses::sub_ns(INT64_MAX, -1) == INT64_MAX);
  CHECK(analyses::add_ns(40, 2) == 42);
  model::Launch l;
  l.start_ns = INT64_MIN + 1;
  l.end_ns = INT64_MAX;
  CHECK(!l.duration_ns());  // end - start does not fit: not a duration
}
