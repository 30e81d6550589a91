// dvdt-prof importer: JSON call lists, cJSON and line-mode stdout, argument snapshots.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "helpers.hpp"
#include "readers/dvdt_prof/dvdt_prof.hpp"

using namespace clprof;
using clprof::test::fixture;
using clprof::test::read_with;
using Kind = model::KernelArg::Kind;

namespace {

const model::Program* program_by_id(const model::Run& run, uint64_t id) {
  for (const auto& p : run.programs)
    if (p.id == id) return &p;
  return nullptr;
}

// Every field the importer sets, so two inputs with the same calls compare equal.
void check_same_model(const model::Run& a, const model::Run& b) {
  REQUIRE(a.launches.size() == b.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    const auto& x = a.launches[i];
    const auto& y = b.launches[i];
    CHECK(x.name == y.name);
    CHECK(x.kernel_id == y.kernel_id);
    CHECK(x.program_id == y.program_id);
    CHECK(x.queue_id == y.queue_id);
    CHECK(x.device == y.device);
    CHECK(x.gws == y.gws);
    CHECK(x.lws == y.lws);
    CHECK(x.gwo == y.gwo);
    CHECK(x.host_begin_ns == y.host_begin_ns);
    CHECK(x.host_end_ns == y.host_end_ns);
    CHECK(x.queued_ns == y.queued_ns);
    CHECK(x.submit_ns == y.submit_ns);
    CHECK(x.start_ns == y.start_ns);
    CHECK(x.end_ns == y.end_ns);
    REQUIRE(x.args.size() == y.args.size());
    for (size_t k = 0; k < x.args.size(); ++k) {
      CHECK(x.args[k].kind == y.args[k].kind);
      CHECK(x.args[k].hex == y.args[k].hex);
      CHECK(x.args[k].value == y.args[k].value);
      CHECK(x.args[k].object_id == y.args[k].object_id);
    }
  }
  REQUIRE(a.transfers.size() == b.transfers.size());
  for (size_t i = 0; i < a.transfers.size(); ++i) {
    CHECK(a.transfers[i].op == b.transfers[i].op);
    CHECK(a.transfers[i].bytes == b.transfers[i].bytes);
    CHECK(a.transfers[i].start_ns == b.transfers[i].start_ns);
    CHECK(a.transfers[i].host_begin_ns == b.transfers[i].host_begin_ns);
  }
  REQUIRE(a.programs.size() == b.programs.size());
  for (size_t i = 0; i < a.programs.size(); ++i) {
    CHECK(a.programs[i].options == b.programs[i].options);
    CHECK(a.programs[i].origin == b.programs[i].origin);
  }
  REQUIRE(a.builds.size() == b.builds.size());
  CHECK(a.processes.at(0).host_start_ns == b.processes.at(0).host_start_ns);
}

}  // namespace

TEST_CASE("dvdt: real JSON call list (ACL MobileNet on Mali)") {
  model::Run run = read_with(readers::dvdt_prof_reader(), fixture("dvdt_prof_sample_small.json"));
  REQUIRE(run.processes.size() == 1);
  CHECK(run.processes[0].source_format == "dvdt-prof");
  REQUIRE(run.launches.size() == 4);
  const auto& fill = run.launches[0];
  CHECK(fill.name == "fill_image_borders_constant");
  CHECK(fill.gws == std::vector<uint64_t>{449, 1, 3});
  CHECK_FALSE(fill.lws.has_value());  // [0,0,0] = NULL
  CHECK(fill.gwo.empty());
  CHECK(fill.queued_ns == 315018680289971);
  CHECK(fill.start_ns == 315018683983278);
  CHECK(*fill.duration_ns() == 315018683988486 - 315018683983278);
  // Arguments as set before the launch: a buffer (by handle) and little-endian scalars.
  REQUIRE(fill.args.size() == 12);
  CHECK(fill.args[0].kind == Kind::Buffer);
  CHECK(fill.args[0].object_bytes == 656772);
  CHECK(fill.args[3].kind == Kind::Scalar);
  CHECK(fill.args[3].hex == "bc030000");
  CHECK(fill.args[3].value == 956);
  CHECK(fill.args[10].kind == Kind::Scalar);  // an 8-byte 0 is not taken for a NULL buffer
  // Build options reach the kernel's program (ACL's -D flags feed the GEMM rules).
  const model::Program* prog = program_by_id(run, run.launches[1].program_id);
  REQUIRE(prog != nullptr);
  CHECK(run.launches[1].name == "direct_convolution3x3");
  CHECK(prog->options.find("-DSTRIDE_X=2 -DWEIGHTS_DEPTH=3") != std::string::npos);
  CHECK(prog->origin == "source");
  // Host times: UTC wall clock relative to the first call.
  CHECK(run.processes[0].host_start_ns == run.processes[0].start_unix_ns);
  CHECK(fill.host_begin_ns > 0);
  CHECK(fill.host_end_ns - fill.host_begin_ns == 4094000);  // 49.683617 .. 49.687711
}

TEST_CASE("dvdt: the larger real excerpt imports every launch") {
  model::Run run = read_with(readers::dvdt_prof_reader(), fixture("dvdt_prof_sample.json"));
  CHECK(run.launches.size() == 6);
  CHECK(run.programs.size() == 18);
  CHECK(run.builds.size() == 18);
  for (const auto& l : run.launches) {
    CHECK(l.has_device_times());
    CHECK(l.kernel_id != 0);
    CHECK(l.status == "complete");
  }
}

TEST_CASE("dvdt: cJSON stdout, line-mode stdout and the parsed JSON of the same calls agree") {
  std::string cjson = fixture("dvdt_prof_cjson_stdout_sample.txt");
  model::Run from_cjson = read_with(readers::dvdt_prof_reader(), cjson);
  model::Run from_lines =
      read_with(readers::dvdt_prof_reader(), fixture("dvdt_prof_ostream_stdout_sample.txt"));
  size_t open = cjson.find("[dv/dt] <<\n") + 11;
  size_t close = cjson.find("[dv/dt] >>");
  model::Run from_json = read_with(readers::dvdt_prof_reader(), cjson.substr(open, close - open));
  REQUIRE(from_cjson.launches.size() == 1);
  REQUIRE(from_cjson.transfers.size() == 2);
  CHECK(from_cjson.launches[0].args.size() == 8);
  // Its buffer was created before the excerpt starts: not identifiable, kept as the pointer.
  CHECK(from_cjson.launches[0].args[0].kind == Kind::Scalar);
  CHECK(from_cjson.launches[0].args[0].value == 0x55a2b2d400);
  check_same_model(from_cjson, from_lines);
  check_same_model(from_cjson, from_json);
  CHECK(from_lines.transfers[0].op == "write");
  CHECK(from_lines.transfers[0].blocking);
  CHECK(from_lines.transfers[0].bytes == 602112);
}

TEST_CASE("dvdt: reused handles, args changed between launches, lws NULL, work_dim trimmed") {
  model::Run run = read_with(readers::dvdt_prof_reader(), fixture("dvdt_reused_handles.json"));
  REQUIRE(run.launches.size() == 3);
  const auto& a = run.launches[0];
  const auto& b = run.launches[1];
  const auto& c = run.launches[2];
  // Launch 1: 2-D, NULL lws, args 0 (buffer), 1 (=64), 2 unset, 3 local.
  CHECK(a.gws == std::vector<uint64_t>{64, 32});
  CHECK_FALSE(a.lws.has_value());
  REQUIRE(a.args.size() == 4);
  CHECK(a.args[0].kind == Kind::Buffer);
  CHECK(a.args[0].object_bytes == 4096);
  CHECK(a.args[1].value == 64);
  CHECK(a.args[2].kind == Kind::Unset);
  CHECK(a.args[3].kind == Kind::Local);
  CHECK(a.args[3].size == 256);
  // Launch 2: arg 1 changed to 128 after launch 1; 1-D with lws.
  CHECK(b.args[1].value == 128);
  CHECK(b.args[0].kind == Kind::Buffer);
  CHECK(b.gws == std::vector<uint64_t>{128});
  CHECK(b.lws == std::optional<std::vector<uint64_t>>(std::vector<uint64_t>{16}));
  // Launch 3: the handle was returned by a new clCreateKernel: new kernel, old args gone.
  CHECK(c.name == "gemm_reused_handle");  // no "name" in the enqueue: from clCreateKernel
  CHECK(c.kernel_id != a.kernel_id);
  REQUIRE(c.args.size() == 1);
  CHECK(c.args[0].hex == "fffe");
  CHECK(c.args[0].value == 0xfeff);
  CHECK(c.gwo == std::vector<uint64_t>{8});
  CHECK(c.lws == std::optional<std::vector<uint64_t>>(std::vector<uint64_t>{1}));
  // The failed build does not replace the options of the last successful one.
  REQUIRE(run.programs.size() == 1);
  CHECK(run.programs[0].options == "-DM=64 -DN=32 -DK=16");
  CHECK(run.builds.size() == 2);
  CHECK(run.builds[1].rc == -11);
  CHECK(a.host_begin_ns == 0);
  CHECK(c.host_begin_ns == 40000);
}

TEST_CASE("dvdt: sniff") {
  test::check_sniff(
      readers::dvdt_prof_reader(), "dvdt",
      {"[\n  {\n    \"call\": \"clCreateCommandQueue\"", "hello\n[dv/dt] clCreateKernel\n"},
      {"[{\"name\":\"x\",\"ph\":\"X\"}]"});
}

TEST_CASE("dvdt: malformed input points at file:line:column") {
  test::check_errors(
      readers::dvdt_prof_reader(),
      {
          {"[{\"call\": \"clEnqueueNDRangeKernel\", \"gws\": [1, \"x\"]}]",
           "bad.json:1:48: expected gws (an unsigned integer), found \"x\""},
          {"[\n {\"kernel\": \"0x1\"}]", "bad.json:2:2: expected member \"call\" in this object"},
          {"[{\"call\": \"clSetKernelArg\", \"kernel\": \"0x5\", \"arg_index\": 0, "
           "\"arg_size\": 4,\n"
           " \"arg_value_ptr\": \"0x1\", \"arg_value\": \"12345\"}]",
           "bad.json:2:39: expected the argument bytes as hex digit pairs, found \"12345\""},
          {"[{\"call\": \"clCreateKernel\", \"kernel\": \"0xZZ\"}]",
           "bad.json:1:39: expected a kernel handle (a handle such as 0x55a2b3dc00), found "
           "\"0xZZ\""},
          {"out\n[dv/dt] <<\n[{\"call\": \"clFinish\"}]\nno close\n",
           "bad.json:4:1: expected \"[dv/dt] >>\" closing the cJSON call list"},
          {"[dv/dt] clEnqueueNDRangeKernel\n[dv/dt] clEnqueueNDRangeKernel profiling 1 2 3\n",
           "bad.json:2:42: expected 4 profiling times (queued submit start end)"},
          {"[dv/dt] clFoo\n[dv/dt] clBar kernel 0x1\n",
           "bad.json:2:1: expected \"[dv/dt] clBar\" opening this call before its fields"},
          {"[{\"call\": \"clEnqueueNDRangeKernel\", \"timestamp\": {\"start\": \"yesterday\"}}]",
           "bad.json:1:60: expected an ISO time like 2018-02-09T10:36:48.553314, found "
           "\"yesterday\""},
          {"just text\n",
           "bad.json:1:1: expected dvdt-prof output: a JSON call list, \"[dv/dt] <<\" or \"[dv/dt] "
           "cl...\" lines"},
      });
}
