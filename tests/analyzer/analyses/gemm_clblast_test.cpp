// clprof gemm (analyses/gemm) on traces of real CLBlast calls: the two traces tests/shim's
// shim.blas leaves (fixture "blas_traces"): blas_app's calls recorded by the BLAS hooks,
// and the same run with CLPROF_HOOK_BLAS=0, where the calls are rebuilt from the kernels.
// Each call must come out at the M, N, K and batch the app passed, timed as the sum of
// all its kernels, with GFLOPS = 2*M*N*K*batch / that time.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analyses/gemm/gemm.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/load.hpp"
#include "readers/reader.hpp"

namespace fs = std::filesystem;
using namespace clprof;

namespace {

const fs::path kDir = CLPROF_BLAS_WORK_DIR;

// What the app printed, from the trace's own process: blas_app's "call" lines are in
// the test's log, so the expectations are restated here (blas_app.cpp main()).
struct Expected {
  const char* label;
  const char* api;
  int64_t m, n, k, batch;
  bool direct;
};
const Expected kCalls[] = {
    {"direct", "clblast::Gemm<float>", 40, 50, 60, 1, true},
    {"direct_tt", "CLBlastSgemm", 40, 50, 60, 1, true},
    {"indirect", "CLBlastSgemm", 48, 300, 36, 1, false},
    {"indirect_beta", "clblast::Gemm<float>", 48, 300, 36, 1, false},
    {"indirect_tn", "clblast::Gemm<float>", 50, 70, 90, 1, false},
    {"batched_direct", "CLBlastSgemmBatched", 20, 30, 40, 3, true},
    {"batched_indirect", "CLBlastSgemmBatched", 48, 100, 72, 3, false},
    {"strided_direct", "clblast::GemmStridedBatched<float>", 20, 30, 40, 3, true},
    {"strided_indirect", "clblast::GemmStridedBatched<float>", 48, 100, 72, 3, false},
    {"error", "CLBlastSgemm", 0, 50, 60, 1, false},
};

model::Run read(const fs::path& trace) {
  REQUIRE_MESSAGE(fs::exists(trace), trace << " missing: shim.blas (tests/shim) writes it");
  model::Run run;
  readers::Diagnostics diag;
  readers::load_run({trace.string()}, readers::LoadOptions{}, run, diag);
  return run;
}

analyses::GemmResult find_calls(const model::Run& run, bool group = false) {
  auto rules = std::make_shared<std::vector<gemm::Rule>>(gemm::builtin_rules());
  analyses::GemmAnalysis a(rules, {}, group);
  for (const auto& l : run.launches) a.add_launch(l);
  return analyses::finish_gemm(std::move(a), run, 0);
}

double flops(const Expected& e) {
  return 2.0 * e.m * e.n * e.k * e.batch;
}

}  // namespace

TEST_CASE("gemm: recorded CLBlast calls at their logical sizes, timed as all their kernels") {
  const model::Run run = read(kDir / "hooked.json");
  REQUIRE(run.blas_calls.size() == std::size(kCalls));
  // Each call's kernels, summed independently of the analysis.
  std::map<uint64_t, int64_t> total;
  std::map<uint64_t, uint32_t> count;
  for (const auto& l : run.launches) {
    REQUIRE(l.duration_ns());
    total[l.call] += *l.duration_ns();
    ++count[l.call];
  }
  const auto r = find_calls(run);
  REQUIRE(r.row_count() == std::size(kCalls));
  CHECK(r.from_library == std::size(kCalls));
  for (size_t i = 0; i < std::size(kCalls); ++i) {
    const Expected& e = kCalls[i];
    const auto row = r.row(i);
    const uint64_t id = run.blas_calls[i].id;
    INFO("call " << e.label);
    CHECK(row.name == e.api);
    CHECK(row.source == analyses::GemmSource::Call);
    CHECK(row.m == e.m);
    CHECK(row.n == e.n);
    CHECK(row.k == e.k);
    CHECK(row.batch == e.batch);
    CHECK(row.precision == "s");
    CHECK_FALSE(row.padded);
    if (e.m == 0) {  // the failing call: its status, no kernel, no time
      REQUIRE(row.status);
      CHECK(*row.status != 0);
      CHECK(row.kernels == 0);
      CHECK_FALSE(row.time_ns);
      CHECK_FALSE(row.gflops);
      continue;
    }
    CHECK(row.status == 0);
    CHECK(row.kernels == count[id]);
    REQUIRE(row.time_ns);
    CHECK(*row.time_ns == total[id]);
    REQUIRE(row.gflops);
    CHECK(*row.gflops == doctest::Approx(flops(e) / static_cast<double>(total[id])));
    // The main kernel alone, at its executed sizes.
    REQUIRE(row.main_ns);
    REQUIRE(row.exec_m);
    REQUIRE(row.executed_gflop);
    if (e.direct) {
      CHECK(row.kernels == 1);
      CHECK(row.kernel.rfind("XgemmDirect", 0) == 0);
      CHECK(*row.main_ns == *row.time_ns);
      CHECK(row.exec_m == e.m);
      CHECK(row.exec_n == e.n);
      CHECK(row.exec_k == e.k);
    } else {
      CHECK(row.kernels >= 2);
      CHECK(row.kernel.rfind("Xgemm", 0) == 0);
      CHECK(*row.main_ns < *row.time_ns);
      CHECK(*row.exec_m >= e.m);
      CHECK(*row.exec_n >= e.n);
      CHECK(*row.exec_k >= e.k);
      CHECK(*row.executed_gflop * 1e9 >= flops(e));
    }
  }
  CHECK(r.calls == std::size(kCalls));
}

TEST_CASE("gemm: CLPROF_HOOK_BLAS=0, the same calls rebuilt from CLBlast's kernels") {
  const model::Run hooked = read(kDir / "hooked.json");
  const model::Run run = read(kDir / "unhooked.json");
  CHECK(run.blas_calls.empty());
  const auto with_calls = find_calls(hooked);
  const auto r = find_calls(run);
  // The failing call ran no kernel: nothing to rebuild.
  REQUIRE(r.row_count() == std::size(kCalls) - 1);
  CHECK(r.from_library == 0);
  int64_t all = 0;
  for (const auto& l : run.launches) all += l.duration_ns().value_or(0);
  int64_t sum = 0;
  for (size_t i = 0; i + 1 < std::size(kCalls); ++i) {
    const Expected& e = kCalls[i];
    const auto row = r.row(i);
    INFO("call " << e.label << ": " << row.name << " " << analyses::source_name(row.source));
    CHECK(row.source == (e.direct ? analyses::GemmSource::Kernel : analyses::GemmSource::Group));
    CHECK_FALSE(row.padded);
    CHECK(row.m == e.m);
    CHECK(row.n == e.n);
    CHECK(row.k == e.k);
    CHECK(row.batch == e.batch);
    CHECK(row.kernels == with_calls.row(i).kernels);  // the same kernels as the recorded call
    REQUIRE(row.time_ns);
    sum += *row.time_ns;
    REQUIRE(row.gflops);
    CHECK(*row.gflops == doctest::Approx(flops(e) / static_cast<double>(*row.time_ns)));
  }
  CHECK(sum == all);  // every kernel is in exactly one call
  // --group: one row per distinct (main kernel, M, N, K, batch), its calls counted.
  std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, uint64_t> shapes;
  for (size_t i = 0; i < r.row_count(); ++i) {
    const auto row = r.row(i);
    ++shapes[std::make_tuple(row.name, *row.m, *row.n, *row.k, *row.batch)];
  }
  const auto g = find_calls(run, true);
  REQUIRE(g.groups.size() == shapes.size());
  for (const auto& row : g.groups)
    CHECK(row.count == shapes[std::make_tuple(row.name, *row.m, *row.n, *row.k, *row.batch)]);
}
