// clprof ranks: the robust outlier rule, rows per process, the kernel spread.
#include <doctest/doctest.h>

#include "analyses/ranks.hpp"
#include "model_builders.hpp"

using namespace clprof;

TEST_CASE("ranks: robust center and the outlier rule (3 MADs and 10 %)") {
  // 2000, 2100, 2200, 6100: median (2100 + 2200) / 2 = 2150; |x - 2150| = 150, 50, 50, 3950,
  // MAD = (50 + 150) / 2 = 100: 3 MADs = 300 and 10 % = 215, so only 6100 is out.
  const auto c = analyses::robust_center({2000, 2100, 2200, 6100, std::nullopt});
  REQUIRE(c.median);
  CHECK(*c.median == 2150);
  CHECK(c.mad == 100);
  CHECK(analyses::is_outlier(6100, c));
  CHECK_FALSE(analyses::is_outlier(2000, c));
  // 2450 is 300 from the median: not more than 3 MADs; 2451 is, and more than 215.
  CHECK_FALSE(analyses::is_outlier(2450, c));
  CHECK(analyses::is_outlier(2451, c));
  // MAD 0 (three equal ranks): the 10 % alone decides; 1090 is 9 % off, 1110 is 11 %.
  const auto flat = analyses::robust_center({1000, 1000, 1000, 1110});
  CHECK(flat.mad == 0);
  CHECK(analyses::is_outlier(1110, flat));
  CHECK_FALSE(analyses::is_outlier(1090, flat));
  // Wide spread (MAD large): 10 % off is not enough. 100, 200, 300, 400: median 250, MAD 100.
  const auto wide = analyses::robust_center({100, 200, 300, 400});
  CHECK_FALSE(analyses::is_outlier(400, wide));
  CHECK(analyses::is_outlier(551, wide));
  // No known value: no median, nothing is an outlier.
  const auto none = analyses::robust_center({std::nullopt});
  CHECK_FALSE(none.median);
  CHECK_FALSE(analyses::is_outlier(5, none));
}

TEST_CASE("ranks: one row per process, busy per process's devices, rows without rank last") {
  model::Run run = unit::one_process_run({"A"});
  run.processes.resize(3);
  run.devices.resize(3);
  for (uint32_t p = 0; p < 3; ++p) {
    run.devices[p].id = p + 1;
    run.devices[p].process = p;
    run.processes[p].pid = 10 + p;
    run.processes[p].host_start_ns = 0;
  }
  run.processes[0].rank = 1;
  run.processes[1].rank = 0;  // process 2 has none
  analyses::RanksAnalysis a({});
  auto add = [&](uint32_t p, const std::string& name, int64_t start, int64_t d) {
    auto l = unit::launch(name, start, d);
    l.process = p;
    l.device = p + 1;
    a.add_launch(l);
  };
  add(0, "x", 1000, 500);  // process 0: x 500 + 500 overlapping by 200 -> busy 800
  add(0, "x", 1300, 500);
  add(0, "y", 5000, 300);
  add(1, "y", 1000, 900);  // process 1: y 900
  const auto t = analyses::rank_table(a.summary, a.kernels, run, analyses::RankMetric::Kernel);
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].rank == 0u);
  CHECK(t.rows[0].kernel_ns == 900);
  CHECK(t.rows[1].rank == 1u);
  CHECK(t.rows[1].kernel_ns == 1300);
  CHECK(t.rows[1].busy_ns == 1100);  // union [1000,1800] + [5000,5300]
  CHECK(t.rows[1].top_kernel == "x");
  CHECK(t.rows[1].launches == 3);
  CHECK_FALSE(t.rows[2].rank);
  CHECK(t.rows[2].launches == 0);
  CHECK(t.rows[2].top_kernel.empty());
  CHECK_FALSE(t.rows[2].wall_ns);  // no host event: unknown, not 0
  // Median of 900, 1300, 0 = 900.
  REQUIRE(t.median_ns);
  CHECK(*t.median_ns == 900);
  CHECK(t.rows[1].deviation_ns == 400);
  const auto s = analyses::kernel_spread(a.kernels, t, "y");
  REQUIRE(s);
  CHECK(s->ranks == 2);
  CHECK(s->min_ns == 300);
  CHECK(s->max_ns == 900);
  CHECK(s->median_ns == 600);
  CHECK(s->slowest->rank == 0u);
  CHECK_FALSE(analyses::kernel_spread(a.kernels, t, "z"));
}
