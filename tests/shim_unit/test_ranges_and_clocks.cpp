#include <doctest/doctest.h>

#include "recording/clock_sync.hpp"
#include "recording/host_clock.hpp"
#include "recording/range_stack.hpp"

using namespace clprof::shim;

TEST_CASE("range stack: push, pop, outermost first") {
  RangeStack s;
  bool open = true;
  CHECK(s.pop(open) == 0);
  CHECK_FALSE(open);  // unbalanced pop is reported, not fatal
  s.push(1);
  s.push(2);
  s.push(3);
  CHECK(s.top() == 3);
  std::uint32_t ids[2];
  CHECK(s.copy_outermost(ids, 2) == 2);
  CHECK(ids[0] == 1);
  CHECK(ids[1] == 2);
  CHECK(s.pop(open) == 3);
  CHECK(open);
  CHECK(s.top() == 2);
  CHECK(s.depth() == 2);
}

TEST_CASE("range stack: nesting deeper than the capacity is counted, not stored") {
  RangeStack s;
  for (std::uint32_t i = 1; i <= RangeStack::kCapacity + 2; ++i) s.push(i);
  CHECK(s.depth() == RangeStack::kCapacity + 2);
  CHECK(s.stored() == RangeStack::kCapacity);
  CHECK(s.top() == 0);
  bool open = false;
  CHECK(s.pop(open) == 0);
  CHECK(open);
  CHECK(s.pop(open) == 0);
  CHECK(s.pop(open) == RangeStack::kCapacity);
  CHECK(s.top() == RangeStack::kCapacity - 1);
}

TEST_CASE("enqueue bracket: intersection of offset intervals") {
  BracketEstimator e;
  CHECK_FALSE(e.valid());
  e.add(100, 200, 160);  // offset in [100-160, 200-160] = [-60, 40]
  e.add(500, 520, 510);  // offset in [-10, 10]
  CHECK(e.valid());
  CHECK(e.offset_ns() == 0);
  CHECK(e.uncertainty_ns() == 10);
  CHECK(e.samples() == 2);
}

TEST_CASE("enqueue bracket: a disjoint interval restarts the estimate") {
  BracketEstimator e;
  e.add(0, 10, 0);     // [0, 10]
  e.add(100, 105, 0);  // [100, 105]: disjoint -> restart
  CHECK(e.restarts() == 1);
  CHECK(e.offset_ns() == 102);
  CHECK(e.uncertainty_ns() == 3);
}

TEST_CASE("device timer bracket") {
  const TimerSample s = offset_from_bracket(1000, 1100, 50);
  CHECK(s.offset_ns == 1000);
  CHECK(s.uncertainty_ns == 50);
}

TEST_CASE("tick conversion: identity, and a slope anchored at the latest point") {
  TickConverter id;
  id.reset(true, 5, 5);
  CHECK(id.to_monotonic_ns(12345) == 12345);

  TickConverter c;
  c.reset(false, 1000, 50);  // 2 ticks per ns
  c.add_point(3000, 1050);
  CHECK(c.ns_per_tick() == doctest::Approx(0.5));
  CHECK(c.to_monotonic_ns(3000) == 1050);
  CHECK(c.to_monotonic_ns(3200) == 1150);
  CHECK(c.to_monotonic_ns(2000) == 550);  // before the anchor
  c.add_point(5000, 2052);                // slope refined from the first point: 2002 / 4000
  CHECK(c.to_monotonic_ns(5000) == 2052);
  CHECK(c.ns_per_tick() == doctest::Approx(0.5005));
}

TEST_CASE("host clocks move forward") {
  const auto a = monotonic_now_ns();
  const auto b = monotonic_now_ns();
  CHECK(b >= a);
  CHECK(unix_now_ns() > 1600000000000000000LL);
}
