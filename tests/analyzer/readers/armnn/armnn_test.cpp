// Arm NN importer: the model it builds from the shared samples and from hand-made odd cases,
// checked against what vison (seed 000) prints for the same MobileNet v2 profile.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"
#include "readers/armnn/armnn.hpp"

using namespace clprof;
using clprof::test::fixture;
using clprof::test::range_by_id;
using clprof::test::read_with;

namespace {

// The same listing built from the model: the inference's child ranges that vison lists
// (the children of Execute) and the launches attached to each, in order.
std::vector<test::VisonWorkload> model_listing(const model::Run& run, uint64_t inference_id) {
  std::vector<test::VisonWorkload> out;
  std::map<uint64_t, size_t> index;
  for (const auto& r : run.ranges) {
    if (r.parent != inference_id) continue;
    if (r.name.rfind("Prepare", 0) == 0) continue;  // PrepareInputs/Outputs precede Execute
    index[r.id] = out.size();
    out.push_back({r.name, {}});
  }
  for (const auto& l : run.launches) {
    if (l.ranges.size() < 2 || l.ranges[0] != inference_id) continue;
    auto it = index.find(l.ranges[1]);
    REQUIRE(it != index.end());
    out[it->second].kernels.emplace_back(*l.duration_override_ns, l.name);
  }
  return out;
}

}  // namespace

TEST_CASE("armnn: mobilenet stdout reproduces vison's per-workload listing and totals") {
  readers::Diagnostics diag;
  model::Run run = test::read_one_process(
      readers::armnn_reader(), "armnn_executenetwork_stdout_mobilenet_v2.txt", diag, "armnn");
  const auto& proc = run.processes[0];
  // vison: "Inference time:  557918.542 us"
  REQUIRE(proc.iteration_wall_ns.size() == 1);
  CHECK(proc.iteration_wall_ns[0] == 557918542);

  uint64_t inference_id = 0;
  int inferences = 0;
  for (const auto& r : run.ranges)
    if (r.name == "inference") {
      inference_id = r.id;
      ++inferences;
      CHECK(r.parent == 0);
    }
  REQUIRE(inferences == 1);

  std::vector<test::VisonWorkload> expected =
      test::parse_vison_listing(fixture("vison_mobilenet_v2_expected.txt"));
  std::vector<test::VisonWorkload> actual = model_listing(run, inference_id);
  REQUIRE(expected.size() == 68);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(expected[i].name);
    CHECK(actual[i].name == expected[i].name);
    CHECK(actual[i].kernels == expected[i].kernels);
  }

  // "Total kernel time  546727.7189999997 us" and the per-kernel table with shares.
  int64_t total = 0;
  std::map<std::string, int64_t> per_kernel;
  for (const auto& l : run.launches) {
    total += *l.duration_ns();
    per_kernel[l.name] += *l.duration_ns();
    CHECK_FALSE(l.has_device_times());
  }
  CHECK(total == 546727719);
  CHECK(per_kernel.size() == 7);
  CHECK(per_kernel["reshape_layer"] == 14828);
  CHECK(per_kernel["pooling_layer_MxN_quantized_nhwc"] == 28107);
  CHECK(per_kernel["elementwise_operation_ADD_quantized"] == 475854);
  CHECK(per_kernel["im2col3x3_nhwc"] == 600648);
  CHECK(per_kernel["gemmlowp_matrix_a_reduction"] == 1535948);
  CHECK(per_kernel["dwc_MxN_native_quantized8_nhwc"] == 19214578);
  CHECK(per_kernel["gemmlowp_mm_reshaped_only_rhs_t_fused_output_stage_fixedpoint"] == 524857756);
  // vison prints the share as a fraction labelled "%": 0.95999844 is 95.999844 %.
  double share = 100.0 *
                 per_kernel["gemmlowp_mm_reshaped_only_rhs_t_fused_output_stage_fixedpoint"] /
                 static_cast<double>(total);
  CHECK(share == doctest::Approx(95.999844).epsilon(1e-8));

  // Work sizes of the first kernels; no LWS printed -> NULL local size.
  const auto& im2col = run.launches[0];
  CHECK(im2col.name == "im2col3x3_nhwc");
  CHECK(im2col.gws == std::vector<uint64_t>{2, 12544, 1});
  CHECK_FALSE(im2col.lws.has_value());
  CHECK(im2col.extra.at("armnn.backend") == "GpuAcc");
  REQUIRE(im2col.device != 0);
  CHECK(run.devices[im2col.device - 1].type == "GPU");
  CHECK(diag.warnings.empty());

  // Wall clock (Start)/(Stop) become host times relative to the earliest start.
  CHECK(proc.host_start_ns == 376550160100594);
  const model::Range* inference = range_by_id(run, inference_id);
  CHECK(inference->host_begin_ns == 0);
  CHECK(inference->host_end_ns == 376550718019136 - 376550160100594);
}

TEST_CASE("armnn: the JSON alone gives the same model as the whole stdout") {
  model::Run a = read_with(readers::armnn_reader(), fixture("armnn_profile_mobilenet_v2.json"));
  model::Run b =
      read_with(readers::armnn_reader(), fixture("armnn_executenetwork_stdout_mobilenet_v2.txt"));
  REQUIRE(a.launches.size() == b.launches.size());
  REQUIRE(a.ranges.size() == b.ranges.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    CHECK(a.launches[i].name == b.launches[i].name);
    CHECK(a.launches[i].duration_override_ns == b.launches[i].duration_override_ns);
    CHECK(a.launches[i].ranges == b.launches[i].ranges);
  }
}

TEST_CASE("armnn: constructed sample, two inferences, LWS, nested ranges per inference") {
  model::Run run =
      read_with(readers::armnn_reader(), fixture("armnn_profile_small_constructed.json"));
  const auto& proc = run.processes.at(0);
  CHECK(proc.iteration_wall_ns == std::vector<int64_t>{11612500, 11530000});
  std::vector<const model::Range*> inferences;
  for (const auto& r : run.ranges)
    if (r.name == "inference") inferences.push_back(&r);
  REQUIRE(inferences.size() == 2);
  // 7 kernels per inference, each attached to [inference, workload].
  REQUIRE(run.launches.size() == 14);
  for (size_t i = 0; i < run.launches.size(); ++i) {
    const auto& l = run.launches[i];
    REQUIRE(l.ranges.size() == 2);
    CHECK(l.ranges[0] == inferences[i / 7]->id);
    CHECK(range_by_id(run, l.ranges[1])->parent == inferences[i / 7]->id);
    CHECK(l.extra.at("armnn.inference") == std::to_string(i / 7));
  }
  CHECK(run.launches[7].name == "im2col3x3_nhwc");
  CHECK(run.launches[7].duration_override_ns == 598100);
  const auto& gemm = run.launches[2];
  CHECK(gemm.name == "gemmlowp_mm_reshaped_only_rhs_t_fused_output_stage_fixedpoint");
  CHECK(gemm.gws == std::vector<uint64_t>{8, 4096, 1});
  REQUIRE(gemm.lws.has_value());
  CHECK(*gemm.lws == std::vector<uint64_t>{4, 4, 1});
  CHECK(range_by_id(run, gemm.ranges[1])->name == "ClConvolution2dWorkload_Execute_#4");
  // Start 950 us is host time 0; the conv workload of inference 2 starts at 21000 us.
  CHECK(proc.host_start_ns == 950000);
  CHECK(range_by_id(run, run.launches[7].ranges[1])->host_begin_ns == 21000000 - 950000);
}

TEST_CASE("armnn: pyarmnn mock, 6 inferences, blank lines inside, no kernels") {
  model::Run run = read_with(readers::armnn_reader(),
                             fixture("armnn_profile_pyarmnn_mock_multi_inference.json"));
  CHECK(run.processes.at(0).iteration_wall_ns ==
        std::vector<int64_t>{1100, 2200, 3300, 4400, 5500, 6600});
  CHECK(run.launches.empty());
  int inferences = 0, workloads = 0;
  for (const auto& r : run.ranges) {
    if (r.name == "inference") ++inferences;
    if (r.name.find("Workload_Execute_#") != std::string::npos) ++workloads;
  }
  CHECK(inferences == 6);
  CHECK(workloads == 24);
}

TEST_CASE("armnn: ms/ns units, Neon timers, log lines around, missing kernels skipped") {
  readers::Diagnostics diag;
  model::Run run =
      read_with(readers::armnn_reader(), fixture("armnn_ms_missing_kernels_stdout.txt"), &diag);
  CHECK(run.processes.at(0).iteration_wall_ns == std::vector<int64_t>{2500000, 2250000, 2000000});
  // 3 inferences x (im2col + activation) + 1 gemm (only one value: inference 0).
  REQUIRE(run.launches.size() == 7);
  std::map<std::string, std::vector<int64_t>> by_kernel;
  for (const auto& l : run.launches) by_kernel[l.name].push_back(*l.duration_override_ns);
  CHECK(by_kernel["CpuIm2ColKernel"] == std::vector<int64_t>{500000, 400000, 300000});
  CHECK(by_kernel["CpuGemmAssemblyWrapperKernel"] == std::vector<int64_t>{1250000});
  CHECK(by_kernel["activation_layer"] == std::vector<int64_t>{125000, 250000, 375000});
  const auto& neon = run.launches[0];
  CHECK(neon.api == "NeonKernel");
  CHECK(neon.gws.empty());
  CHECK(run.devices.at(neon.device - 1).type == "CPU");
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("1 Arm NN kernel measurements have fewer values") !=
        std::string::npos);
  // No Start/Stop stamps: no host times.
  CHECK(run.processes[0].host_start_ns == model::kNoTime);
}

TEST_CASE("armnn: sniff") {
  test::check_sniff(readers::armnn_reader(), "armnn", {"Info: ArmNN v25\n{\n\t\"ArmNN\": {"},
                    {"{\"traceEvents\": []}"});
}

TEST_CASE("armnn: malformed input points at file:line:column") {
  test::check_errors(
      readers::armnn_reader(),
      {
          {"Info: no profile here\n",
           "bad.json:2:1: expected an Arm NN profile: a line starting with {\"ArmNN\": {...}}"},
          {"log\n{\n \"ArmNN\": {\n  \"a_#1\": {\"type\": \"Event\",\n   \"Wall clock time_#1\": "
           "{\"type\": \"Measurement\", \"raw\": [1], \"unit\": \"parsec\"}}}}\n",
           "bad.json:5:70: expected unit \"ns\", \"us\", \"ms\" or \"s\", found \"parsec\""},
          {"{\"ArmNN\": {\"a_#1\": {\"x_#1\": {\"type\": \"Measurement\", \"raw\": [\"1\"]}}}}",
           "bad.json:1:61: expected a time (a number), found a string"},
          {"{\"ArmNN\": {\"a_#1\": {\"x_#1\": {\"type\": \"Measurement\", \"raw\": [1e300]}}}}",
           "bad.json:1:61: expected a time in range, found 1e300"},
          {"{\"ArmNN\": {\n  \"a\": [1, 2,,]}}", "bad.json:2:14: invalid JSON: Invalid value"},
          {"{\"ArmNN\": 3}",
           "bad.json:1:11: expected the \"ArmNN\" profile (an object), found a number"},
      });
}

TEST_CASE("armnn: log lines starting with '{' that are not the profile are skipped") {
  std::string text =
      "{not json at all\n" + fixture("armnn_profile_small_constructed.json") + "{\"other\": 1}\n";
  model::Run run = read_with(readers::armnn_reader(), text);
  CHECK(run.launches.size() == 14);
}
