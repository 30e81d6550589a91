// GemmAnalysis in grouped mode across reading threads (one analysis per thread, merged in
// file order): the per-shape counts and untimed positions, the group rows without one
// record per launch, gemm_rows = false (`clprof summary`), and a CLBlast call whose kernels
// straddle two threads' chunks. Expected values are derived by hand in the comments.
#include <doctest/doctest.h>

#include <memory>

#include "analyses/gemm/gemm.hpp"
#include "model_builders.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

using namespace clprof;
using unit::buffer;
using unit::scalar;

namespace {

model::KernelArg i32(int64_t v) {
  return scalar(4, static_cast<uint32_t>(v));
}
model::KernelArg f32() {
  return scalar(4, 0x3f800000);
}

std::shared_ptr<std::vector<gemm::Rule>> rules() {
  return std::make_shared<std::vector<gemm::Rule>>(gemm::builtin_rules());
}

// XgemmDirectNN M x 32 x 16 (args 0..2; batch 1), standalone; duration < 0: untimed.
model::Launch direct(uint64_t seq, int64_t m, int64_t duration) {
  auto l = unit::launch("XgemmDirectNN", static_cast<int64_t>(seq) * 1000,
                        duration < 0 ? 0 : duration, {}, seq);
  if (duration < 0) l.start_ns = l.end_ns = model::kNoTime;
  l.args = {i32(m), i32(32), i32(16), f32(), f32()};
  return l;
}

}  // namespace

TEST_CASE("GemmAnalysis grouped: counts and untimed positions carried across a merge") {
  model::Run run = unit::one_process_run({"dev"});
  // Thread 1's chunk: 64x32x16 timed 100, untimed, timed 300; thread 2's: timed 200, untimed.
  for (bool rows : {true, false}) {
    analyses::GemmAnalysis a(rules(), {}, true, rows), b(rules(), {}, true, rows);
    a.add_launch(direct(1, 64, 100));
    a.add_launch(direct(2, 64, -1));
    a.add_launch(direct(3, 64, 300));
    b.add_launch(direct(4, 64, 200));
    b.add_launch(direct(5, 64, -1));
    a.merge(std::move(b));
    REQUIRE(a.shapes().size() == 1);
    REQUIRE(a.standalone().size() == 1);
    // 5 launches in file order; untimed: a's 2nd (position 1) and b's 2nd (1 + a's 3 = 4).
    CHECK(a.standalone()[0].launches == 5);
    CHECK(a.standalone()[0].untimed_at == std::vector<uint64_t>{1, 4});
    // Durations only with the group rows: the three timed ones, a's then b's.
    if (rows) {
      REQUIRE(a.shape_durations().size() == 1);
      CHECK(a.shape_durations()[0] == std::vector<int64_t>{100, 300, 200});
    } else {
      CHECK(a.shape_durations().empty());
    }
    auto r = analyses::finish_gemm(std::move(a), run, 0, /*gflop_terms=*/true);
    CHECK(r.calls == 5);
    CHECK(r.kernel_launches == 5);
    // 3 timed calls of 2*64*32*16 = 65536 FLOPs: 3 * 65536 / 1e9 GFLOP, summed from 0.0.
    const double term = 65536 / 1e9;
    CHECK(r.gflop_total == 0.0 + term + term + term);
    REQUIRE(r.gflop_terms_per_device.count(1) == 1);
    CHECK(r.gflop_terms_per_device[1] == std::vector<double>{term, term, term});
    CHECK(r.gflop_per_device[1] == r.gflop_total);
    CHECK(r.unsized_calls_per_device.empty());
    CHECK(r.records.empty());  // grouped mode keeps no per-call records
    if (!rows) {
      CHECK(r.groups.empty());
      continue;
    }
    REQUIRE(r.groups.size() == 1);
    const auto& g = r.groups[0];
    CHECK(g.name == "XgemmDirectNN");
    CHECK(g.count == 5);
    CHECK(g.timed == 3);
    CHECK(g.total_ns == 600);   // 100 + 300 + 200
    CHECK(g.median_ns == 200);  // of {100, 200, 300}
    CHECK(g.min_ns == 100);
    CHECK(g.main_median_ns == 200);  // a standalone launch's main time is its time
    CHECK(g.gflops_best == doctest::Approx(65536.0 / 100));
  }
}

TEST_CASE("GemmAnalysis grouped: the GFLOP sums follow finish's order; summary's sums equal") {
  // 40 launches (more than std::sort's 16-element insertion sort) of two shapes whose terms
  // differ by 2^30: 1024x1024x1024 (2^31 FLOPs: 2.147483648 GFLOP) and 1x1x1 (2e-9 GFLOP),
  // spread over three threads. Whatever the order of the tied standalone calls, the sum with
  // the terms of gflop_terms_per_device added from 0.0 in order must be gflop_total bit for
  // bit, and gflop_terms = false must give the same gflop_per_device.
  model::Run run = unit::one_process_run({"dev"});
  auto feed = [](analyses::GemmAnalysis& x, uint64_t from, uint64_t to) {
    for (uint64_t s = from; s < to; ++s) {
      auto l = direct(s, s % 3 ? 1 : 1024, s % 7 ? 10 : -1);
      if (s % 3)
        l.args[1] = l.args[2] = i32(1);
      else
        l.args[1] = l.args[2] = i32(1024);
      x.add_launch(l);
    }
  };
  auto make = [&] {
    auto a = std::make_unique<analyses::GemmAnalysis>(rules(), analyses::LaunchPredicate{}, true);
    analyses::GemmAnalysis b(rules(), {}, true), c(rules(), {}, true);
    feed(*a, 1, 15);
    feed(b, 15, 28);
    feed(c, 28, 41);
    a->merge(std::move(b));
    a->merge(std::move(c));
    return a;
  };
  auto with_terms = analyses::finish_gemm(std::move(*make()), run, 0, true);
  auto without = analyses::finish_gemm(std::move(*make()), run, 0, false);
  // Launches 1..40; untimed: 7, 14, 21, 28, 35 (5); 1024^3 ones: seq % 3 == 0 (13 of them),
  // of which 21 is untimed: 12 big timed terms; the rest: 27 small ones, 4 of them untimed.
  CHECK(with_terms.calls == 40);
  REQUIRE(with_terms.gflop_terms_per_device[1].size() == 12 + 23);
  double sum = 0.0;
  for (double t : with_terms.gflop_terms_per_device[1]) sum += t;
  CHECK(sum == with_terms.gflop_total);
  CHECK(without.gflop_terms_per_device.empty());
  CHECK(without.gflop_per_device[1] == with_terms.gflop_per_device[1]);
  CHECK(without.gflop_total == with_terms.gflop_total);
  REQUIRE(with_terms.groups.size() == 2);
  // Sorted by total time: the 27 small calls (23 timed, 230 ns) before the 13 big ones (120).
  CHECK(with_terms.groups[0].m == 1);
  CHECK(with_terms.groups[0].count == 27);
  CHECK(with_terms.groups[0].total_ns == 230);
  CHECK(with_terms.groups[1].count == 13);
  CHECK(with_terms.groups[1].timed == 12);
}

TEST_CASE("GemmAnalysis grouped: a CLBlast call straddling two threads' chunks is one call") {
  // CLBlast's indirect GEMM: CopyPadMatrix pads A (60x64 -> 64x64) into buffer 10, Xgemm runs
  // on 64x64x64 with A=10, B=11, C=12, CopyMatrix copies C (64x64) back to 60x64 in buffer 20.
  // Thread 1's chunk ends after the pad kernel; thread 2's starts with Xgemm.
  model::Run run = unit::one_process_run({"dev"});
  auto helper = [](const char* name, uint64_t seq, int64_t duration, int64_t s1, int64_t s2,
                   uint64_t src, int64_t d1, int64_t d2, uint64_t dest) {
    auto l = unit::launch(name, static_cast<int64_t>(seq) * 1000, duration, {}, seq);
    // 0 src_one, 1 src_two, 2 src_ld, 3 src_offset, 4 src, 5 dest_one, 6 dest_two, 7 dest_ld,
    // 8 dest_offset, 9 dest, 10 alpha
    l.args = {i32(s1), i32(s2), i32(s1), i32(0),       buffer(src), i32(d1),
              i32(d2), i32(d1), i32(0),  buffer(dest), f32()};
    return l;
  };
  auto xgemm = unit::launch("Xgemm", 2000, 500, {}, 2);
  xgemm.args = {i32(64),    i32(64),    i32(64),    f32(),  f32(),
                buffer(10), buffer(11), buffer(12), i32(0), i32(0)};
  for (bool rows : {true, false}) {
    analyses::GemmAnalysis a(rules(), {}, true, rows), b(rules(), {}, true, rows);
    a.add_launch(helper("CopyPadMatrix", 1, 40, 60, 64, 1, 64, 64, 10));
    b.add_launch(xgemm);
    b.add_launch(helper("CopyMatrix", 3, 30, 64, 64, 12, 60, 64, 20));
    a.merge(std::move(b));
    auto r = analyses::finish_gemm(std::move(a), run, 0);
    // One call of 3 kernels, logical 60x64x64 (A's source 60x64, C's destination 60x64, B
    // unpadded 64x64): 2*60*64*64 = 491520 FLOPs; time 40 + 500 + 30 = 570 ns.
    CHECK(r.calls == 1);
    CHECK(r.kernel_launches == 3);
    CHECK(r.gflop_total == 491520 / 1e9);
    if (!rows) continue;
    REQUIRE(r.groups.size() == 1);
    const auto& g = r.groups[0];
    CHECK(g.name == "Xgemm");
    CHECK(g.m == 60);
    CHECK(g.n == 64);
    CHECK(g.k == 64);
    CHECK(!g.padded);
    CHECK(g.total_ns == 570);
    CHECK(g.main_median_ns == 500);
    CHECK(g.executed_gflop == doctest::Approx(2.0 * 64 * 64 * 64 / 1e9));
  }
}
