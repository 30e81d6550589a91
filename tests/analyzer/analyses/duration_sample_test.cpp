// The exact compressed multiset of durations (analyses/duration_sample.hpp). The expected
// figures are compute_stats() over the same values in a plain vector (stats.hpp, itself
// checked by hand in stats_test.cpp), or derived by hand where stated.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/duration_sample.hpp"
#include "analyses/stats.hpp"

using namespace clprof;
using analyses::DurationSample;

namespace {

// A deterministic spread of durations: around 10 us with many repeats, a few outliers.
std::vector<int64_t> durations(size_t n, uint64_t seed) {
  std::vector<int64_t> v;
  v.reserve(n);
  uint64_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t d = 10'000 + static_cast<int64_t>((x >> 33) % 4'000);
    if ((x >> 20) % 1000 == 0) d *= 50;  // an outlier
    v.push_back(d);
  }
  return v;
}

DurationSample sample_of(const std::vector<int64_t>& values) {
  DurationSample s;
  for (int64_t v : values) s.add(v);
  return s;
}

void check_same_stats(const DurationSample& s, std::vector<int64_t> values) {
  const analyses::DurationStats want = analyses::compute_stats(values);
  const analyses::DurationStats got = s.stats();
  CHECK(got.count == want.count);
  CHECK(got.total_ns == want.total_ns);
  CHECK(got.mean_ns == want.mean_ns);
  CHECK(got.median_ns == want.median_ns);
  CHECK(got.min_ns == want.min_ns);
  CHECK(got.max_ns == want.max_ns);
  CHECK(got.stddev_ns == want.stddev_ns);
  CHECK(s.median_ns() == want.median_ns);
  CHECK(s.total_ns() == want.total_ns);
  std::sort(values.begin(), values.end());
  CHECK(s.sorted_values() == values);
}

// Restores the budget a test changed.
struct BudgetGuard {
  uint64_t saved = analyses::duration_memory_budget();
  ~BudgetGuard() { analyses::set_duration_memory_budget(saved); }
};

}  // namespace

TEST_CASE("duration sample: small samples by hand") {
  DurationSample empty;
  CHECK(empty.empty());
  CHECK(empty.stats().count == 0);
  CHECK(empty.median_ns() == 0);
  CHECK(empty.sorted_values().empty());

  DurationSample s = sample_of({5, 1, 3});
  CHECK(s.size() == 3);
  CHECK(s.median_ns() == 3);
  CHECK(s.total_ns() == 9);
  CHECK(s.stats().stddev_ns == 2);  // sqrt(((5-3)^2 + (1-3)^2 + 0) / 2) = 2
  CHECK(s.sorted_values() == std::vector<int64_t>{1, 3, 5});

  DurationSample even = sample_of({10, 1, 7, 3});
  CHECK(even.median_ns() == 5);  // (3 + 7) / 2
  DurationSample half = sample_of({1, 2});
  CHECK(half.median_ns() == 2);  // 1.5 rounds away from zero, as median_of
}

TEST_CASE("duration sample: distinct values with counts, ascending") {
  DurationSample s = sample_of({7, 3, 7, 7, 3, 9});
  std::vector<std::pair<int64_t, uint64_t>> seen;
  s.for_each_sorted([&seen](int64_t v, uint64_t n) { seen.emplace_back(v, n); });
  CHECK(seen == std::vector<std::pair<int64_t, uint64_t>>{{3, 2}, {7, 3}, {9, 1}});
}

TEST_CASE("duration sample: many runs and levels equal compute_stats") {
  // 300,000 values: 292 sealed runs of 1024, merged into levels 1 and 2 (16 and 256 runs).
  for (size_t n :
       {size_t{1}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{16 * 1024}, size_t{300'000}}) {
    CAPTURE(n);
    const std::vector<int64_t> v = durations(n, 7);
    check_same_stats(sample_of(v), v);
  }
}

TEST_CASE("duration sample: extreme values round-trip through the encoding") {
  const std::vector<int64_t> v = {INT64_MAX, INT64_MIN + 1, 0, -1, 1, INT64_MAX - 1, -5'000};
  std::vector<int64_t> many;
  for (int i = 0; i < 700; ++i) many.insert(many.end(), v.begin(), v.end());  // 4,900 values
  DurationSample s = sample_of(many);
  std::vector<int64_t> sorted = many;
  std::sort(sorted.begin(), sorted.end());
  CHECK(s.sorted_values() == sorted);
  CHECK(s.min_ns() == INT64_MIN + 1);
  CHECK(s.max_ns() == INT64_MAX);
  CHECK(s.median_ns() == 0);  // 4,900 values: the 2,450th and 2,451st are both 0
}

TEST_CASE("duration sample: merging split samples gives the whole's figures") {
  const std::vector<int64_t> v = durations(100'000, 11);
  // Split points that cut runs and levels in different places, as reading threads do.
  for (size_t cut : {size_t{0}, size_t{1}, size_t{999}, size_t{17'000}, size_t{99'999}}) {
    CAPTURE(cut);
    DurationSample a, b, c;
    for (size_t i = 0; i < v.size(); ++i) (i < cut ? a : (i % 3 ? b : c)).add(v[i]);
    a.merge(std::move(b));
    a.merge(std::move(c));
    CHECK(b.empty());
    check_same_stats(a, v);
  }
}

TEST_CASE("duration sample: close durations take about a byte each") {
  const uint64_t before = analyses::duration_resident_bytes();
  std::vector<int64_t> v = durations(256 * 1024, 3);
  DurationSample s = sample_of(v);
  const uint64_t used = analyses::duration_resident_bytes() - before;
  // Values of one run spread over 4,000 ns: 1,024 sorted gaps average ~4 ns (one byte); the
  // runs merged to levels 1 and 2 have smaller gaps still. Less than 2 bytes a value.
  CHECK(used < 2 * v.size());
  CHECK(used > 0);
  check_same_stats(s, v);
}

TEST_CASE("duration sample: past the budget, runs spill to disk and read back exactly") {
  BudgetGuard guard;
  analyses::set_duration_memory_budget(0);  // every merged run goes to the spill file
  const uint64_t spilled_before = analyses::duration_spilled_bytes();
  const std::vector<int64_t> v = durations(200'000, 5);
  DurationSample s = sample_of(v);
  CHECK(analyses::duration_spilled_bytes() > spilled_before);
  check_same_stats(s, v);
  // A copy of a spilled sample is its own (the original can go).
  DurationSample copy(s);
  s = DurationSample();
  check_same_stats(copy, v);
  // Merging spilled samples with resident ones.
  analyses::set_duration_memory_budget(analyses::kDefaultDurationBudget);
  DurationSample resident = sample_of(durations(50'000, 9));
  std::vector<int64_t> both = v;
  const std::vector<int64_t> more = durations(50'000, 9);
  both.insert(both.end(), more.begin(), more.end());
  copy.merge(std::move(resident));
  check_same_stats(copy, both);
}

TEST_CASE("duration sample: a histogram bucket of 2^40 equal values is cheap and exact") {
  DurationSample s;
  s.add(500, uint64_t{1} << 40);
  s.add(100, 3);
  s.add(900);
  CHECK(s.size() == (uint64_t{1} << 40) + 4);
  CHECK(s.min_ns() == 100);
  CHECK(s.max_ns() == 900);
  CHECK(s.median_ns() == 500);
  CHECK(s.total_ns() == 500 * (int64_t{1} << 40) + 3 * 100 + 900);
  std::vector<std::pair<int64_t, uint64_t>> seen;
  s.for_each_sorted([&seen](int64_t v, uint64_t n) { seen.emplace_back(v, n); });
  CHECK(seen ==
        std::vector<std::pair<int64_t, uint64_t>>{{100, 3}, {500, uint64_t{1} << 40}, {900, 1}});
  // Merged with 20 more buckets (past kFanIn runs: they merge into one, the counts add up).
  for (int i = 0; i < 20; ++i) {
    DurationSample b;
    b.add(500, 1000);
    s.merge(std::move(b));
  }
  CHECK(s.size() == (uint64_t{1} << 40) + 4 + 20'000);
  CHECK(s.median_ns() == 500);
}

TEST_CASE("duration sample: values over the whole int64 range, spilled, read back exactly") {
  BudgetGuard guard;
  analyses::set_duration_memory_budget(0);
  std::vector<int64_t> v;
  uint64_t x = 1;
  for (int i = 0; i < 70'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t d = static_cast<int64_t>(x);
    if (d == INT64_MIN) d = 0;
    v.push_back(i % 7 ? d : d % 1000);  // every 7th near zero: gaps of both signs' sides
  }
  DurationSample a, b;
  for (size_t i = 0; i < v.size(); ++i) (i % 2 ? a : b).add(v[i]);
  a.merge(std::move(b));
  std::sort(v.begin(), v.end());
  CHECK(a.sorted_values() == v);
  CHECK(a.min_ns() == v.front());
  CHECK(a.max_ns() == v.back());
  std::vector<int64_t> copy = v;
  CHECK(a.median_ns() == analyses::median_of(copy));
}

TEST_CASE("duration sample: runs that do not overlap are joined as they are, exactly") {
  // Timestamps in file order: ascending with repeats (every 5th repeats the previous one),
  // then the same descending: each sealed run of 1,024 lies wholly above (or below) the
  // previous one, so the merges join them without decoding; a run that starts at the
  // previous one's last value (equal) joins too.
  for (bool descending : {false, true}) {
    CAPTURE(descending);
    std::vector<int64_t> v;
    int64_t t = 1'000'000'000;
    for (int i = 0; i < 100'000; ++i) {
      if (i % 5) t += 20'000 + i % 7;
      v.push_back(t);
    }
    if (descending) std::reverse(v.begin(), v.end());
    check_same_stats(sample_of(v), v);
  }
  // Runs alternating between two ranges overlap: merged value by value.
  std::vector<int64_t> mixed;
  for (int i = 0; i < 40'000; ++i) mixed.push_back((i / 1024) % 2 ? 5'000 + i : 90'000 - i);
  check_same_stats(sample_of(mixed), mixed);
}
