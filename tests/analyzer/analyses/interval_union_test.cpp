// The busy union from sorted starts and ends (analyses/interval_union.hpp), against
// union_length (summary.hpp: sorts the pairs and merges them; its own case by hand in
// summary_test.cpp) and by hand.
#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "analyses/interval_union.hpp"
#include "analyses/summary.hpp"

using namespace clprof;
using analyses::IntervalUnion;

TEST_CASE("interval union: overlaps, touching, nesting, empty intervals, gaps, by hand") {
  IntervalUnion u;
  CHECK(u.length_ns() == 0);
  // [0,10] [5,12] overlap: 12; [20,30] [30,35] touch, [21,22] nested: 15; [40,41]: 1;
  // [50,50] is empty: 0. Total 12 + 15 + 1 = 28.
  for (auto [b, e] : std::vector<std::pair<int64_t, int64_t>>{
           {20, 30}, {0, 10}, {5, 12}, {30, 35}, {40, 41}, {21, 22}, {50, 50}})
    u.add(b, e);
  CHECK(u.size() == 7);
  CHECK(u.length_ns() == 28);
  // The same interval many times covers it once.
  IntervalUnion same;
  for (int i = 0; i < 5000; ++i) same.add(100, 250);
  CHECK(same.length_ns() == 150);
}

TEST_CASE("interval union: equals union_length on a pseudo-random mix, merged in parts") {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  uint64_t x = 42;
  for (int i = 0; i < 60'000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t start = static_cast<int64_t>((x >> 20) % 50'000'000);
    const int64_t length = static_cast<int64_t>((x >> 8) % 2'000);
    pairs.emplace_back(start, start + length);
  }
  IntervalUnion a, b, c;
  for (size_t i = 0; i < pairs.size(); ++i)
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(pairs[i].first, pairs[i].second);
  a.merge(std::move(b));
  a.merge(std::move(c));
  CHECK(b.empty());
  auto copy = pairs;
  const int64_t want = analyses::union_length(copy);
  CHECK(want > 0);
  CHECK(a.length_ns() == want);
}

TEST_CASE("interval union: an end before any start is refused") {
  IntervalUnion u;
  u.mutable_starts().add(10);
  u.mutable_ends().add(5);
  CHECK_THROWS_AS((void)u.length_ns(), std::invalid_argument);
  u.mutable_starts().add(1);
  CHECK_THROWS_AS((void)u.length_ns(), std::invalid_argument);  // 2 starts, 1 end
}
