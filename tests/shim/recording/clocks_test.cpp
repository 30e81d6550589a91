// The trace's clocks: enqueue brackets and device timer samples (recording/clock_sync.hpp),
// host ticks and their conversion (base/host_clock.hpp), and TraceClocks, which the
// harvester completes records with (recording/trace_clocks.hpp).
#include <doctest/doctest.h>

#include "base/host_clock.hpp"
#include "recording/clock_sync.hpp"
#include "recording/trace_clocks.hpp"

using namespace clprof::shim;

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

TEST_CASE("trace clocks: a record's ticks on the trace's clock; brackets kept per device") {
  // Ticks are CLOCK_MONOTONIC ns unless the TSC stands in (a start-up decision).
  g_ticks_are_tsc.store(false);
  const std::int64_t saved_origin = g_trace_origin_ns;
  g_trace_origin_ns = 1'000'000;
  TraceClocks clocks;
  clocks.start();
  CHECK(clocks.trace_ns_of_ticks(1'000'000) == 0);
  CHECK(clocks.trace_ns_of_ticks(1'250'000) == 250'000);
  clocks.recalibrate();
  CHECK(clocks.trace_ns_of_ticks(3'000'000) == 2'000'000);
  g_trace_origin_ns = saved_origin;

  // Device 1 twice with device 2 in between: each estimate gets only its own commands.
  clocks.add_bracket(1, 100, 200, 50);   // offset in [50, 150]
  clocks.add_bracket(2, 1000, 1010, 0);  // offset in [1000, 1010]
  clocks.add_bracket(1, 120, 180, 50);   // offset in [70, 130]
  const auto& b = clocks.brackets();
  REQUIRE(b.size() == 2);
  CHECK(b.at(1).samples() == 2);
  CHECK(b.at(1).offset_ns() == 100);
  CHECK(b.at(1).uncertainty_ns() == 30);
  CHECK(b.at(2).samples() == 1);
  CHECK(b.at(2).offset_ns() == 1005);
}
