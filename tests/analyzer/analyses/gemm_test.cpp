// GEMM rules: one test per built-in rule, with the kernel argument layout of the library's
// own source (the file named in each rule's "verified"), plus the rules-file parser and the
// streaming GEMM analysis.
#include <doctest/doctest.h>

#include <memory>

#include "analyses/gemm/gemm.hpp"
#include "analyses/gemm/gemm_rules.hpp"
#include "model_builders.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/reader.hpp"

using namespace clprof;
using unit::buffer;
using unit::scalar;

namespace {

struct Decoded {
  std::string rule;
  int64_t m = -1, n = -1, k = -1, batch = -1;
  bool padded = false;
};

// "rule MxNxK": the rule a launch decoded by and its sizes, checked in one comparison.
std::string rule_and_sizes(const Decoded& d) {
  return d.rule + " " + std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k);
}

// The first built-in rule matching the launch, evaluated like `clprof gemm` does.
Decoded decode(const model::Launch& l, const std::string& options = "") {
  for (const auto& r : gemm::builtin_rules()) {
    if (!r.regex.search(l.name)) continue;
    Decoded d;
    d.rule = r.id;
    d.padded = r.padded;
    auto v = [&](const gemm::DimSource& s) {
      return gemm::evaluate(s, l, &options).value.value_or(-1);
    };
    d.m = v(r.m);
    d.n = v(r.n);
    d.k = v(r.k);
    d.batch = v(r.batch);
    return d;
  }
  return {};
}

model::Launch kernel(const std::string& name, std::vector<model::KernelArg> args,
                     std::vector<uint64_t> gws = {64, 64}) {
  model::Launch l;
  l.name = name;
  l.args = std::move(args);
  l.gws = std::move(gws);
  return l;
}

// A float scalar (its bits do not matter to the rules).
model::KernelArg f32() {
  return scalar(4, 0x3f800000);
}
model::KernelArg i32(int64_t v) {
  return scalar(4, static_cast<uint32_t>(v));
}

}  // namespace

TEST_CASE("rule clblast-xgemm-direct: XgemmDirectNN/NT/TN/TT (xgemm_direct_part3.opencl)") {
  // kSizeM, kSizeN, kSizeK, alpha, beta, agm, a_offset, a_ld, bgm, b_offset, b_ld, cgm,
  // c_offset, c_ld, c_transpose, a_conjugate, b_conjugate
  for (const char* name : {"XgemmDirectNN", "XgemmDirectNT", "XgemmDirectTN", "XgemmDirectTT"}) {
    auto l = kernel(
        name, {i32(96), i32(3025), i32(363), f32(), f32(), buffer(1), i32(0), i32(96), buffer(2),
               i32(0), i32(363), buffer(3), i32(0), i32(96), i32(0), i32(0), i32(0)});
    auto d = decode(l);
    CHECK(rule_and_sizes(d) == "clblast-xgemm-direct 96x3025x363");
    CHECK(d.batch == 1);
    CHECK(!d.padded);
  }
}

TEST_CASE("rule clblast-xgemm-direct-batched: batch from gws[2] (xgemm_direct_batched.opencl)") {
  // XgemmDirectStridedBatchedNN: kSizeM, kSizeN, kSizeK, alpha, beta, agm, a_offset, a_ld,
  // a_stride, bgm, b_offset, b_ld, b_stride, cgm, c_offset, c_ld, c_stride, c_transpose, ...
  auto s = kernel("XgemmDirectStridedBatchedTN",
                  {i32(32), i32(48),   i32(64),   f32(),  f32(),   buffer(1), i32(0),
                   i32(64), i32(2048), buffer(2), i32(0), i32(64), i32(3072), buffer(3),
                   i32(0),  i32(32),   i32(1536), i32(0), i32(0),  i32(0)},
                  {8, 8, 10});
  auto d = decode(s);
  CHECK(rule_and_sizes(d) == "clblast-xgemm-direct-batched 32x48x64");
  CHECK(d.batch == 10);
  // XgemmDirectBatchedNN: alphas/betas and the offsets are __constant buffers.
  auto b =
      kernel("XgemmDirectBatchedNN",
             {i32(16), i32(16), i32(16), buffer(4), buffer(5), buffer(1), buffer(6), i32(16),
              buffer(2), buffer(7), i32(16), buffer(3), buffer(8), i32(16), i32(0), i32(0), i32(0)},
             {4, 4, 3});
  CHECK(decode(b).batch == 3);
}

TEST_CASE("rule clblast-xgemm-batched: padded sizes (xgemmbatched.cpp sets m_ceiled...)") {
  // XgemmBatched: kSizeM, kSizeN, kSizeK, alphas, betas, agm, a_one, a_two, bgm, b_one,
  // b_two, cgm, c_one, c_two; global = {.., .., batch_count}
  auto l = kernel("XgemmBatched",
                  {i32(128), i32(64), i32(32), buffer(1), buffer(2), buffer(3), i32(32), i32(128),
                   buffer(4), i32(32), i32(64), buffer(5), i32(128), i32(64)},
                  {16, 8, 4});
  auto d = decode(l);
  CHECK(d.rule == "clblast-xgemm-batched");
  CHECK(d.m == 128);
  CHECK(d.batch == 4);
  CHECK(d.padded);
  auto s = kernel("XgemmStridedBatched", l.args, {16, 8, 2});
  CHECK(decode(s).rule == "clblast-xgemm-batched");
  CHECK(decode(s).batch == 2);
}

TEST_CASE("rule clblast-xgemm: indirect Xgemm, padded (xgemm_part4.opencl, xgemm.cpp)") {
  // Xgemm: kSizeM, kSizeN, kSizeK, alpha, beta, agm, bgm, cgm, b_offset, c_offset
  auto l = kernel("Xgemm", {i32(1024), i32(1024), i32(64), f32(), f32(), buffer(1), buffer(2),
                            buffer(3), i32(0), i32(0)});
  auto d = decode(l);
  CHECK(d.rule == "clblast-xgemm");
  CHECK(d.m == 1024);
  CHECK(d.k == 64);
  CHECK(d.padded);
  CHECK(decode(kernel("XgemmUpper", l.args)).rule == "");  // not a plain GEMM
}

TEST_CASE("rule clblas-autogemm: M, N, K after A, B, C, alpha, beta") {
  // dgemm_Col_NT_B0_MX048_NX048_KX08(A, B, C, double alpha, double beta, uint M, N, K, lda, ...)
  auto l = kernel("dgemm_Col_NT_B0_MX048_NX048_KX08",
                  {buffer(1), buffer(2), buffer(3), scalar(8, 0), scalar(8, 0), scalar(4, 480),
                   scalar(4, 96), scalar(4, 64), scalar(4, 480), scalar(4, 96), scalar(4, 480),
                   scalar(4, 0), scalar(4, 0), scalar(4, 0)});
  auto d = decode(l);
  CHECK(rule_and_sizes(d) == "clblas-autogemm 480x96x64");
  CHECK(decode(kernel("sgemm_Col_NN_B1_MX064_NX032_KX16_COLUMN", l.args)).rule ==
        "clblas-autogemm");
}

TEST_CASE("rule clblas-cltemplates: M, N, K right after A, B, C") {
  // sgemm_NT_96_96_16_16x16_6x6__ALPHABETA(A, B, C, uint M, N, K, float alpha, beta, ...)
  auto l = kernel("sgemm_NT_96_96_16_16x16_6x6__ALPHABETA",
                  {buffer(1), buffer(2), buffer(3), scalar(4, 960), scalar(4, 192), scalar(4, 32),
                   f32(), f32()});
  auto d = decode(l);
  CHECK(rule_and_sizes(d) == "clblas-cltemplates 960x192x32");
}

TEST_CASE("rule viennacl-prod-generated: unsigned M, N, K first (matrix_product_template.hpp)") {
  auto l = kernel("prod_TN", {scalar(4, 100), scalar(4, 200), scalar(4, 300), f32(), buffer(1)});
  auto d = decode(l);
  CHECK(rule_and_sizes(d) == "viennacl-prod-generated 100x200x300");
}

TEST_CASE("rules viennacl-prod-legacy: C sizes at 25, 26; K from A's sizes (matrix_prod.hpp)") {
  // alpha, A, A_row_start, A_col_start, A_row_inc, A_col_inc, A_row_size, A_col_size,
  // A_internal_rows, A_internal_cols, B, 8 x B_*, beta, C, C_row_start, C_col_start,
  // C_row_inc, C_col_inc, C_row_size, C_col_size, C_internal_rows, C_internal_cols
  auto args = [](uint64_t a_rows, uint64_t a_cols, uint64_t b_rows, uint64_t b_cols, uint64_t m,
                 uint64_t n) {
    std::vector<model::KernelArg> v = {f32(),
                                       buffer(1),
                                       scalar(4, 0),
                                       scalar(4, 0),
                                       scalar(4, 1),
                                       scalar(4, 1),
                                       scalar(4, a_rows),
                                       scalar(4, a_cols),
                                       scalar(4, a_rows),
                                       scalar(4, a_cols),
                                       buffer(2),
                                       scalar(4, 0),
                                       scalar(4, 0),
                                       scalar(4, 1),
                                       scalar(4, 1),
                                       scalar(4, b_rows),
                                       scalar(4, b_cols),
                                       scalar(4, b_rows),
                                       scalar(4, b_cols),
                                       f32(),
                                       buffer(3),
                                       scalar(4, 0),
                                       scalar(4, 0),
                                       scalar(4, 1),
                                       scalar(4, 1),
                                       scalar(4, m),
                                       scalar(4, n),
                                       scalar(4, m),
                                       scalar(4, n)};
    return v;
  };
  // C(10x20) = A(10x30) * B(30x20)
  auto aa = decode(kernel("prod_AA", args(10, 30, 30, 20, 10, 20)));
  CHECK(rule_and_sizes(aa) == "viennacl-prod-legacy-a 10x20x30");
  // C(10x20) = A^T * B with A stored 30x10
  auto ta = decode(kernel("prod_TA", args(30, 10, 30, 20, 10, 20)));
  CHECK(ta.rule == "viennacl-prod-legacy-t");
  CHECK(ta.k == 30);
  CHECK(decode(kernel("prod16_AT", args(10, 30, 20, 30, 10, 20))).k == 30);
}

TEST_CASE("rule acl-gemmlowp and acl-gemm-float: -DM= -DN= -DK= build options") {
  auto l = kernel("gemmlowp_mm_reshaped_only_rhs_t_fused_output_stage_fixedpoint",
                  {buffer(1), buffer(2)});
  auto d = decode(l, "-DM=12544 -DN=32 -DK=27 -DM0=4 -DN0=4 -DK0=4 -DH0=4 -DDATA_TYPE=uchar");
  CHECK(rule_and_sizes(d) == "acl-gemmlowp 12544x32x27");
  CHECK(decode(l, "-DM0=4").m == -1);  // -DM0= is not -DM=
  auto f = decode(kernel("gemm_mm_native", {}), "-DM=8 -DN=16 -DK=24");
  CHECK(f.rule == "acl-gemm-float");
  CHECK(f.k == 24);
}

TEST_CASE("option_value") {
  CHECK(gemm::option_value("-DM=64 -DN=32", "M") == 64);
  CHECK(gemm::option_value("-DM=64 -DN=32", "N") == 32);
  CHECK(gemm::option_value("-D M=7", "M") == 7);
  CHECK(gemm::option_value("-DM=1 -DM=2", "M") == 2);  // the last definition wins
  CHECK(!gemm::option_value("-DMM=3 -DM0=4", "M"));
  CHECK(!gemm::option_value("-DM=abc", "M"));
  CHECK(!gemm::option_value("", "M"));
}

TEST_CASE("evaluate: argument types, sizes and problems") {
  gemm::DimSource s;
  s.kind = gemm::DimSource::Kind::Arg;
  s.index = 0;
  s.type = gemm::DimSource::ArgType::Int32;
  auto l = kernel("k", {scalar(4, 0xffffffff)});
  CHECK(!gemm::evaluate(s, l, nullptr).value);  // -1 as int32
  CHECK(gemm::evaluate(s, l, nullptr).problem.find("negative") != std::string::npos);
  s.type = gemm::DimSource::ArgType::Uint32;
  CHECK(gemm::evaluate(s, l, nullptr).value == 0xffffffffLL);
  s.type = gemm::DimSource::ArgType::Uint64;
  CHECK(gemm::evaluate(s, l, nullptr).problem.find("4 bytes") != std::string::npos);
  CHECK(gemm::evaluate(s, kernel("k", {scalar(8, 1ull << 40)}), nullptr).value == (1ll << 40));
  CHECK(
      gemm::evaluate(s, kernel("k", {buffer(1)}), nullptr).problem.find("not an integer scalar") !=
      std::string::npos);
  CHECK(!gemm::evaluate(s, kernel("k", {}), nullptr).value);
  s.kind = gemm::DimSource::Kind::Gws;
  s.index = 2;
  CHECK(!gemm::evaluate(s, kernel("k", {}, {1, 2}), nullptr).value);
  s.kind = gemm::DimSource::Kind::Option;
  s.option = "K";
  CHECK(gemm::evaluate(s, l, nullptr).problem.find("unknown") != std::string::npos);
}

TEST_CASE("parse_rules: line and column of errors") {
  auto where = [](const std::string& text) -> std::pair<size_t, size_t> {
    try {
      gemm::parse_rules(text, "r.json");
    } catch (const readers::InputError& e) {
      CHECK(e.file() == "r.json");
      return {e.line(), e.column()};
    }
    return {0, 0};
  };
  CHECK(where("{\"gemm_rules\": [\n{\"id\": \"a\", \"kernel\": \"x\", \"m\": {\"gws\": 5},\n "
              "\"n\": {\"const\": 1}, \"k\": {\"const\": 1}}]}")
            .first == 2);
  CHECK(where("[1, 2]") == std::pair<size_t, size_t>{1, 1});
  CHECK(where("{\n\"gemm_rules\": [\n{\"id\": \"a\", \"kernel\": \"x\", \"m\": {\"arg\": 0}, "
              "\"n\": {\"const\": 1}, \"k\": {\"const\": 1}}]}")
            .first == 3);
  CHECK(where("{\"gemm_rules\": [{\"id\": \"a\", \"kernel\": \"x\", \"m\": {\"const\": 1, \"gws\": "
              "0}, \"n\": {\"const\": 1}, \"k\": {\"const\": 1}}]}")
            .first == 1);
  CHECK(where("{\"gemm_rules\": [{\"id\": \"a\", \"kernel\": \"x\", \"m\": {\"const\": 1}, \"n\": "
              "{\"const\": 1}, \"k\": {\"const\": 1}},\n{\"id\": \"a\", \"kernel\": \"y\", \"m\": "
              "{\"const\": 1}, \"n\": {\"const\": 1}, \"k\": {\"const\": 1}}]}")
            .first == 2);
  auto ok = gemm::parse_rules(
      "// comments are allowed\n{\"comment\": \"mine\", \"gemm_rules\": [{\"id\": \"a\", "
      "\"kernel\": \"^k$\", "
      "\"m\": {\"arg\": 1, \"type\": \"uint64\"}, \"n\": {\"option\": \"NN\"}, \"k\": {\"gws\": "
      "1}, "
      "\"batch\": {\"const\": 3}, \"padded\": true}]}",
      "r.json");
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].m.type == gemm::DimSource::ArgType::Uint64);
  CHECK(ok[0].n.option == "NN");
  CHECK(ok[0].batch.value == 3);
  CHECK(ok[0].padded);
}

TEST_CASE("GemmAnalysis: build-option dimensions resolved after streaming; grouping") {
  auto rules = std::make_shared<std::vector<gemm::Rule>>(gemm::builtin_rules());
  model::Run run;
  run.processes.resize(1);
  model::Program p;
  p.id = 7;
  p.options = "-DM=10 -DN=20 -DK=30";
  run.programs.push_back(p);
  auto mk = [](uint64_t program, int64_t start, int64_t duration, uint64_t seq) {
    auto l = unit::launch("gemmlowp_mm_native", start, duration, {}, seq);
    l.program_id = program;
    return l;
  };
  for (bool group : {false, true}) {
    analyses::GemmAnalysis a(rules, {}, group), b(rules, {}, group);
    a.add_launch(mk(7, 0, 100, 1));
    b.add_launch(mk(7, 1000, 300, 2));
    b.add_launch(mk(8, 2000, 50, 3));  // program 8 unknown: not decodable
    a.add_launch(unit::launch("vadd", 3000, 10, {}, 4));
    a.merge(std::move(b));
    auto r = analyses::finish_gemm(a, run, 12.0);
    CHECK(r.calls == 3);
    CHECK(r.gflop_total == doctest::Approx(2 * 2.0 * 10 * 20 * 30 / 1e9));
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems.begin()->second == 1);
    if (!group) {
      REQUIRE(r.row_count() == 3);
      CHECK(r.row(0).m == 10);
      CHECK(r.row(0).gflops == doctest::Approx(12000.0 / 100));
      CHECK(r.row(0).percent_of_peak == doctest::Approx(1000.0));
      CHECK(!r.row(2).m);
      CHECK(!r.row(2).gflops);
    } else {
      REQUIRE(r.groups.size() == 2);
      const auto& g = r.groups[0];
      CHECK(g.count == 2);
      CHECK(g.median_ns == 200);
      CHECK(g.min_ns == 100);
      CHECK(g.gflops_median == doctest::Approx(12000.0 / 200));
      CHECK(g.gflops_best == doctest::Approx(120.0));
    }
  }
}

TEST_CASE("GemmAnalysis: launches of one shape share it; rows resolve names and layers") {
  auto rules = std::make_shared<std::vector<gemm::Rule>>(gemm::builtin_rules());
  model::Run run;
  run.processes.resize(1);
  model::Range outer, inner, other;
  outer.id = 1;
  outer.name = "inference";
  inner.id = 2;
  inner.parent = 1;
  inner.name = "conv1";
  other.id = 3;
  other.parent = 1;
  other.name = "fc";
  run.ranges = {outer, inner, other};
  // XgemmDirectNN: M, N, K are args 0..2, batch 1.
  auto mk = [](uint64_t seq, int64_t m, uint64_t range, int64_t duration) {
    auto l =
        unit::launch("XgemmDirectNN", static_cast<int64_t>(seq) * 1000, duration, {1, range}, seq);
    l.args = {i32(m), i32(32), i32(16), f32(), f32()};
    return l;
  };
  analyses::GemmAnalysis a(rules, {}, false), b(rules, {}, false);
  for (uint64_t seq = 1; seq <= 1000; ++seq)
    (seq % 2 ? a : b).add_launch(mk(seq, seq % 3 ? 64 : 128, seq % 4 ? 2 : 3, 100));
  a.merge(std::move(b));
  // Two distinct sizes: two shapes, however many launches (the per-launch cost is a Record).
  CHECK(a.shapes().size() == 2);
  CHECK(a.records().size() == 1000);
  const auto copy = analyses::finish_gemm(a, run, 0);  // const overload: `a` is kept
  CHECK(a.records().size() == 1000);
  auto r = analyses::finish_gemm(std::move(a), run, 0);
  REQUIRE(r.row_count() == 1000);
  REQUIRE(copy.row_count() == 1000);
  for (size_t i = 0; i < r.row_count(); ++i) {
    const auto row = r.row(i);
    CHECK(row.seq == i + 1);  // sorted by (process, seq) whatever the merge order
    CHECK(row.name == "XgemmDirectNN");
    CHECK(row.layer == (*row.seq % 4 ? "inference/conv1" : "inference/fc"));
    CHECK(row.m == (*row.seq % 3 ? 64 : 128));
    CHECK(copy.row(i).layer == row.layer);
  }
  CHECK(r.gflop_total == doctest::Approx(copy.gflop_total));
}
