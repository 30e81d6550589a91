// A trace written by hand in the shim's exact layout, with every record kind and every
// argument kind, read into a model::Run with every field checked.
#include <doctest/doctest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

const std::string kFullTrace = test::trace_lines(
    {R"({"format":"clprof-trace","version":1,"header":{"pid":4242,"ppid":1,"command_line":["./app","-n","3"],"start_unix_ns":1700000000123456789,"host_start_ns":5000000,"host_clock":"CLOCK_MONOTONIC","host_name":"box","clprof_version":"0.1.0","settings":{"CLPROF_OUTPUT":"t.json"}},"records":[)",
     R"({"type":"device","id":7,"name":"pthread-cpu","vendor":"GenuineIntel","platform":"Portable Computing Language","platform_version":"OpenCL 3.0 PoCL 3.1","version":"OpenCL 3.0 PoCL","driver_version":"3.1","device_type":"CPU","compute_units":2,"max_clock_mhz":3000,"global_mem_bytes":8589934592,"local_mem_bytes":524288,"timer_resolution_ns":1},)",
     R"({"type":"clock_sync","device_id":7,"method":"clGetDeviceAndHostTimer","offset_ns":-123,"uncertainty_ns":0},)",
     R"({"type":"queue","id":8,"context_id":2,"device_id":7,"properties":0,"profiling_added":true},)",
     R"({"type":"program","id":3,"context_id":2,"origin":"source","source_hash":"fnv1a64:0123456789abcdef","source_bytes":1234,"source":"kernel void k(){}"},)",
     R"({"type":"build","api":"clBuildProgram","program_id":3,"options":"-DX=1","device_ids":[7],"host_ns":[10,20],"rc":-11,"build_status":[-2],"kernels":[],"source_hash":"fnv1a64:0123456789abcdef"},)",
     R"({"type":"build","api":"clBuildProgram","program_id":3,"options":"-DM=64 -DN=64","device_ids":[7],"host_ns":[30,40],"rc":0,"build_status":[0],"kernels":["XgemmDirectTN","vadd"],"source_hash":"fnv1a64:0123456789abcdef"},)",
     R"({"type":"kernel","id":9,"program_id":3,"context_id":2,"name":"XgemmDirectTN","num_args":9},)",
     R"({"type":"range_begin","id":1,"parent":0,"name":"net","tid":77,"host_ns":100},)",
     R"({"type":"range_begin","id":2,"parent":1,"name":"conv1","tid":77,"host_ns":150},)",
     R"({"type":"launch","seq":7,"tid":77,"rc":0,"kernel":"XgemmDirectTN","kernel_id":9,"program_id":3,"queue_id":8,"context_id":2,"device_id":7,"gwo":null,"gws":[24,760],"lws":[8,8],"args":[["scalar",4,"60000000",96],["scalar",8,"d10b000000000000",3025],["scalar",12,"0102030405060708090a0b0c"],["buffer",8,11,4096],["image",8,12,65536],["pipe",8,13,256],["local",1024],["svm",0,"0x7f00dead0000"],["sampler",8,14],["unset"],["buffer",8,0,0]],"host_ns":[200,260],"device_ns":[1000,1100,1200,1300],"status":"complete","ranges":[1,2]},)",
     R"({"type":"launch","seq":8,"tid":78,"rc":-5,"api":"clEnqueueTask","kernel":"vadd","kernel_id":10,"program_id":3,"queue_id":8,"context_id":2,"device_id":7,"gwo":[4],"gws":[1],"lws":null,"args":[],"host_ns":[300,310],"device_ns":null,"status":"not_enqueued","ranges":[]},)",
     R"({"type":"transfer","seq":9,"tid":77,"rc":0,"api":"clEnqueueReadBuffer","op":"read","queue_id":8,"device_id":7,"bytes":4096,"blocking":true,"host_ns":[400,900],"device_ns":[1400,1450,1500,1800],"status":"complete","ranges":[1]},)",
     R"({"type":"sync","seq":10,"tid":77,"rc":0,"api":"clFinish","queue_id":8,"host_ns":[1000,5000]},)",
     R"({"type":"range_end","id":2,"tid":77,"host_ns":950},)",
     R"({"type":"mark","name":"weights loaded","tid":77,"host_ns":99},)",
     R"({"type":"warning","message":"clprof_range_pop with no open range: tid 77","host_ns":5},)",
     R"({"type":"range_end","id":1,"tid":77,"host_ns":6000,"open":true},)",
     R"({"type":"end","host_ns":123456,"counts":{"launch":2,"transfer":1},"incomplete":3,"dropped":4}]})"});

void check_full_run(const model::Run& run, const readers::Diagnostics& diag,
                    const std::string& path) {
  CHECK(diag.warnings.empty());
  REQUIRE(run.processes.size() == 1);
  const model::Process& p = run.processes[0];
  CHECK(p.pid == 4242);
  CHECK(p.ppid == 1);
  CHECK(p.host_clock == "CLOCK_MONOTONIC");
  CHECK(p.clprof_version == "0.1.0");
  CHECK(p.settings ==
        std::vector<std::pair<std::string, std::string>>{{"CLPROF_OUTPUT", "t.json"}});
  CHECK(p.session_id.empty());  // version 1
  CHECK(p.end_host_ns == 123456);
  CHECK(p.record_counts ==
        std::vector<std::pair<std::string, uint64_t>>{{"launch", 2}, {"transfer", 1}});
  CHECK(p.command_line == std::vector<std::string>{"./app", "-n", "3"});
  CHECK(p.start_unix_ns == 1700000000123456789);
  CHECK(p.host_start_ns == 5000000);
  CHECK(p.host_name == "box");
  CHECK(p.source == path);
  CHECK(p.source_format == "clprof-trace");
  CHECK(p.trace_version == 1);
  CHECK_FALSE(p.truncated);
  CHECK(p.incomplete_events == 3);
  CHECK(p.dropped_records == 4);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].message == "clprof_range_pop with no open range: tid 77");
  CHECK(p.warnings[0].host_ns == 5);

  REQUIRE(run.devices.size() == 1);
  const model::Device& d = run.devices[0];
  CHECK(d.id == 1);  // Run-wide id, not the trace's 7
  CHECK(d.name == "pthread-cpu");
  CHECK(d.vendor == "GenuineIntel");
  CHECK(d.platform == "Portable Computing Language");
  CHECK(d.platform_version == "OpenCL 3.0 PoCL 3.1");
  CHECK(d.version == "OpenCL 3.0 PoCL");
  CHECK(d.driver_version == "3.1");
  CHECK(d.type == "CPU");
  CHECK(d.compute_units == 2);
  CHECK(d.max_clock_mhz == 3000);
  CHECK(d.global_mem_bytes == 8589934592ull);
  CHECK(d.local_mem_bytes == 524288);
  CHECK(d.has_clock_offset);
  CHECK(d.device_to_host_offset_ns == -123);
  CHECK(d.clock_method == "clGetDeviceAndHostTimer");
  CHECK(d.clock_uncertainty_ns == 0);
  CHECK(d.timer_resolution_ns == 1);

  REQUIRE(run.queues.size() == 1);
  CHECK(run.queues[0].id == 8);
  CHECK(run.queues[0].context_id == 2);
  CHECK(run.queues[0].device == 1);
  CHECK(run.queues[0].properties == 0);
  CHECK(run.queues[0].profiling_added);
  REQUIRE(run.kernels.size() == 1);
  CHECK(run.kernels[0].id == 9);
  CHECK(run.kernels[0].program_id == 3);
  CHECK(run.kernels[0].context_id == 2);
  CHECK(run.kernels[0].name == "XgemmDirectTN");
  CHECK(run.kernels[0].num_args == 9);

  REQUIRE(run.programs.size() == 1);
  const model::Program& prog = run.programs[0];
  CHECK(prog.id == 3);
  CHECK(prog.process == 0);
  CHECK(prog.origin == "source");
  CHECK(prog.source_hash == "fnv1a64:0123456789abcdef");
  CHECK(prog.source_bytes == 1234);
  CHECK(prog.source == "kernel void k(){}");
  CHECK(prog.options == "-DM=64 -DN=64");  // the successful build's, not the failed one's

  REQUIRE(run.builds.size() == 2);
  CHECK(run.builds[0].rc == -11);
  CHECK(run.builds[0].options == "-DX=1");
  const model::Build& b = run.builds[1];
  CHECK(b.process == 0);
  CHECK(b.program_id == 3);
  CHECK(b.api == "clBuildProgram");
  CHECK(b.options == "-DM=64 -DN=64");
  CHECK(b.devices == std::vector<uint32_t>{1});
  CHECK(b.host_begin_ns == 30);
  CHECK(b.host_end_ns == 40);
  CHECK(b.rc == 0);
  CHECK(b.kernels == std::vector<std::string>{"XgemmDirectTN", "vadd"});
  CHECK(b.build_status == std::vector<int32_t>{0});
  CHECK(b.source_hash == "fnv1a64:0123456789abcdef");
  CHECK(prog.context_id == 2);

  const uint64_t r1 = (uint64_t{1} << 40) | 1, r2 = (uint64_t{1} << 40) | 2;
  REQUIRE(run.ranges.size() == 2);
  CHECK(run.ranges[0].id == r1);
  CHECK(run.ranges[0].parent == 0);
  CHECK(run.ranges[0].name == "net");
  CHECK(run.ranges[0].tid == 77);
  CHECK(run.ranges[0].host_begin_ns == 100);
  CHECK(run.ranges[0].host_end_ns == 6000);
  CHECK(run.ranges[0].left_open);
  CHECK(run.ranges[1].id == r2);
  CHECK(run.ranges[1].parent == r1);
  CHECK(run.ranges[1].name == "conv1");
  CHECK(run.ranges[1].host_begin_ns == 150);
  CHECK(run.ranges[1].host_end_ns == 950);
  CHECK_FALSE(run.ranges[1].left_open);

  REQUIRE(run.launches.size() == 2);
  const model::Launch& l = run.launches[0];
  CHECK(l.seq == 7);
  CHECK(l.process == 0);
  CHECK(l.tid == 77);
  CHECK(l.name == "XgemmDirectTN");
  CHECK(l.api == "clEnqueueNDRangeKernel");
  CHECK(l.kernel_id == 9);
  CHECK(l.program_id == 3);
  CHECK(l.queue_id == 8);
  CHECK(l.context_id == 2);
  CHECK(l.device == 1);
  CHECK(l.gwo.empty());
  CHECK(l.gws == std::vector<uint64_t>{24, 760});
  REQUIRE(l.lws.has_value());
  CHECK(*l.lws == std::vector<uint64_t>{8, 8});
  CHECK(l.host_begin_ns == 200);
  CHECK(l.host_end_ns == 260);
  CHECK(l.queued_ns == 1000);
  CHECK(l.submit_ns == 1100);
  CHECK(l.start_ns == 1200);
  CHECK(l.end_ns == 1300);
  CHECK(l.duration_ns() == 100);
  CHECK(l.status == "complete");
  CHECK(l.rc == 0);
  CHECK(l.ranges == std::vector<uint64_t>{r1, r2});
  using K = model::KernelArg::Kind;
  REQUIRE(l.args.size() == 11);
  CHECK(l.args[0].kind == K::Scalar);
  CHECK(l.args[0].size == 4);
  CHECK(l.args[0].hex == "60000000");
  CHECK(l.args[0].has_value);
  CHECK(l.args[0].value == 96);
  CHECK(l.args[1].size == 8);
  CHECK(l.args[1].hex == "d10b000000000000");
  CHECK(l.args[1].value == 3025);
  CHECK(l.args[2].kind == K::Scalar);
  CHECK(l.args[2].size == 12);
  CHECK(l.args[2].hex == "0102030405060708090a0b0c");
  CHECK_FALSE(l.args[2].has_value);
  CHECK(l.args[3].kind == K::Buffer);
  CHECK(l.args[3].size == 8);
  CHECK(l.args[3].object_id == 11);
  CHECK(l.args[3].object_bytes == 4096);
  CHECK(l.args[4].kind == K::Image);
  CHECK(l.args[4].object_id == 12);
  CHECK(l.args[4].object_bytes == 65536);
  CHECK(l.args[5].kind == K::Pipe);
  CHECK(l.args[5].object_id == 13);
  CHECK(l.args[5].object_bytes == 256);
  CHECK(l.args[6].kind == K::Local);
  CHECK(l.args[6].size == 1024);
  CHECK(l.args[7].kind == K::Svm);
  CHECK(l.args[7].size == 0);
  CHECK(l.args[7].svm_pointer == "0x7f00dead0000");
  CHECK(l.args[8].kind == K::Sampler);
  CHECK(l.args[8].object_id == 14);
  CHECK(l.args[9].kind == K::Unset);
  CHECK(l.args[10].kind == K::Buffer);
  CHECK(l.args[10].object_id == 0);

  const model::Launch& t = run.launches[1];
  CHECK(t.seq == 8);
  CHECK(t.tid == 78);
  CHECK(t.api == "clEnqueueTask");
  CHECK(t.name == "vadd");
  CHECK(t.rc == -5);
  CHECK(t.gwo == std::vector<uint64_t>{4});
  CHECK(t.gws == std::vector<uint64_t>{1});
  CHECK_FALSE(t.lws.has_value());
  CHECK(t.args.empty());
  CHECK(t.queued_ns == model::kNoTime);
  CHECK(t.end_ns == model::kNoTime);
  CHECK_FALSE(t.duration_ns().has_value());
  CHECK(t.status == "not_enqueued");
  CHECK(t.ranges.empty());

  REQUIRE(run.transfers.size() == 1);
  const model::Transfer& x = run.transfers[0];
  CHECK(x.seq == 9);
  CHECK(x.process == 0);
  CHECK(x.tid == 77);
  CHECK(x.api == "clEnqueueReadBuffer");
  CHECK(x.op == "read");
  CHECK(x.queue_id == 8);
  CHECK(x.device == 1);
  CHECK(x.bytes == 4096);
  CHECK(x.blocking);
  CHECK(x.host_begin_ns == 400);
  CHECK(x.host_end_ns == 900);
  CHECK(x.queued_ns == 1400);
  CHECK(x.submit_ns == 1450);
  CHECK(x.start_ns == 1500);
  CHECK(x.end_ns == 1800);
  CHECK(x.status == "complete");
  CHECK(x.rc == 0);
  CHECK(x.ranges == std::vector<uint64_t>{r1});

  REQUIRE(run.syncs.size() == 1);
  CHECK(run.syncs[0].seq == 10);
  CHECK(run.syncs[0].tid == 77);
  CHECK(run.syncs[0].api == "clFinish");
  CHECK(run.syncs[0].queue_id == 8);
  CHECK(run.syncs[0].host_begin_ns == 1000);
  CHECK(run.syncs[0].host_end_ns == 5000);

  REQUIRE(run.marks.size() == 1);
  CHECK(run.marks[0].process == 0);
  CHECK(run.marks[0].tid == 77);
  CHECK(run.marks[0].name == "weights loaded");
  CHECK(run.marks[0].host_ns == 99);
}

// The same document re-formatted: keys reordered, pretty-printed over many lines.
const char kPrettyTrace[] = R"({
  "header": {"pid": 5, "host_name": "pretty"},
  "records": [
    {"id": 1, "type": "device", "name": "gpu"},
    {
      "kernel": "k",
      "seq": 1,
      "device_id": 1,
      "type": "launch",
      "device_ns": [0, 0, 10, 25],
      "gws": [1],
      "lws": null,
      "args": [["scalar", 4, "05000000", 5]]
    },
    {"type": "end", "incomplete": 0, "dropped": 0}
  ],
  "version": 1,
  "format": "clprof-trace"
}
)";

}  // namespace

TEST_CASE("every record kind of a shim-format trace lands in the Run") {
  test::TempDir dir;
  const auto [run, diag, path] = test::load_text(dir, "full.json", kFullTrace);
  check_full_run(run, diag, path);
}

TEST_CASE("the streaming path puts the same metadata in the Run and feeds the bulk records") {
  test::TempDir dir;
  std::string path = dir.write("full.json", kFullTrace);
  for (unsigned threads : {1u, 2u}) {
    auto [run, diag, a] = test::stream_totals(path, threads, 100);
    auto& totals = static_cast<test::KernelTotals&>(*a);
    CHECK(run.launches.empty());
    CHECK(run.transfers.empty());
    // Metadata equal to the in-memory read (launches/transfers aside).
    model::Run full;
    readers::Diagnostics full_diag;
    readers::load_run({path}, "", full, full_diag);
    CHECK(run.devices.size() == full.devices.size());
    CHECK(run.devices[0].device_to_host_offset_ns == -123);
    CHECK(run.programs[0].options == "-DM=64 -DN=64");
    CHECK(run.ranges.size() == 2);
    CHECK(run.ranges[0].host_end_ns == 6000);
    CHECK(run.syncs.size() == 1);
    CHECK(run.marks.size() == 1);
    CHECK(run.processes[0].warnings.size() == 1);
    CHECK_FALSE(run.processes[0].truncated);
    CHECK(diag.warnings.empty());
    REQUIRE(totals.rows.size() == 2);
    CHECK(totals.rows["XgemmDirectTN"].count == 1);
    CHECK(totals.rows["XgemmDirectTN"].total_ns == 100);
    CHECK(totals.rows["XgemmDirectTN"].arg_value_sum == 96 + 3025 + 0 + 0 + 0 + 0 + 0);
    CHECK(totals.rows["XgemmDirectTN"].device_sum == 1);
    CHECK(totals.rows["vadd"].count == 1);
    CHECK(totals.transfers == 1);
    CHECK(totals.transfer_bytes == 4096);
  }
}

TEST_CASE("a pretty-printed trace with reordered keys is read by the whole-document fallback") {
  test::TempDir dir;
  auto [run, diag, path] = test::load_text(dir, "pretty.json", kPrettyTrace);
  CHECK(diag.warnings.empty());
  REQUIRE(run.processes.size() == 1);
  CHECK(run.processes[0].pid == 5);
  CHECK(run.processes[0].host_name == "pretty");
  CHECK(run.processes[0].trace_version == 1);
  CHECK_FALSE(run.processes[0].truncated);
  REQUIRE(run.devices.size() == 1);
  CHECK(run.devices[0].name == "gpu");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name == "k");
  CHECK(run.launches[0].device == 1);
  CHECK(run.launches[0].duration_ns() == 15);
  CHECK_FALSE(run.launches[0].lws.has_value());
  REQUIRE(run.launches[0].args.size() == 1);
  CHECK(run.launches[0].args[0].value == 5);

  // The streaming entry point accepts it too (via the same fallback).
  model::Run srun;
  readers::Diagnostics sdiag;
  auto a = readers::stream_clprof_traces({path}, srun, test::kernel_totals_factory(), sdiag);
  CHECK(static_cast<test::KernelTotals&>(*a).rows["k"].total_ns == 15);
  CHECK(srun.launches.empty());
  CHECK(srun.devices.size() == 1);
}

TEST_CASE("several traces make one run of several processes with distinct ids") {
  test::TempDir dir;
  std::string a = dir.write("a.json", kFullTrace);
  std::string child = kFullTrace;
  child.replace(child.find(R"("pid":4242,"ppid":1)"), 19, R"("pid":4243,"ppid":4242)");
  std::string b = dir.write("b.json", child);
  model::Run run;
  readers::Diagnostics diag;
  readers::load_run({a, b}, "", run, diag);
  REQUIRE(run.processes.size() == 2);
  REQUIRE(run.devices.size() == 2);
  CHECK(run.devices[1].id == 2);
  REQUIRE(run.launches.size() == 4);
  CHECK(run.launches[2].process == 1);
  CHECK(run.launches[2].device == 2);
  CHECK(run.launches[2].ranges ==
        std::vector<uint64_t>{(uint64_t{2} << 40) | 1, (uint64_t{2} << 40) | 2});
  CHECK(run.ranges[3].parent == ((uint64_t{2} << 40) | 1));
  CHECK(run.transfers[1].device == 2);
}

TEST_CASE("a launch before its device record still gets the device's Run id") {
  const std::string trace = test::trace_lines(
      {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
       R"({"type":"device","id":1,"name":"first"},)",
       R"({"type":"launch","seq":1,"kernel":"k","device_id":2,"device_ns":[0,0,0,1]},)",
       R"({"type":"launch","seq":2,"kernel":"k","device_id":1,"device_ns":[0,0,0,1]},)",
       R"({"type":"device","id":2,"name":"late"},)", R"({"type":"end"}]})"});
  test::TempDir dir;
  auto [run, diag, path] = test::load_text(dir, "late.json", trace);
  REQUIRE(run.launches.size() == 2);
  CHECK(run.launches[0].device == 2);
  CHECK(run.launches[1].device == 1);
  for (unsigned threads : {1u, 2u}) {
    model::Run srun;
    const auto tuning = test::small_chunks(threads, 32);
    auto a = readers::detail::stream_clprof_trace_file(path, srun, test::kernel_totals_factory(),
                                                       diag, tuning);
    CHECK(static_cast<test::KernelTotals&>(*a).rows["k"].device_sum == 3);
    CHECK(static_cast<test::KernelTotals&>(*a).rows["k"].count == 2);
  }
}

namespace {

void check_same_launch(const model::Launch& a, const model::Launch& b) {
  CHECK(a.seq == b.seq);
  CHECK(a.process == b.process);
  CHECK(a.tid == b.tid);
  CHECK(a.name == b.name);
  CHECK(a.api == b.api);
  CHECK(a.kernel_id == b.kernel_id);
  CHECK(a.program_id == b.program_id);
  CHECK(a.queue_id == b.queue_id);
  CHECK(a.context_id == b.context_id);
  CHECK(a.device == b.device);
  CHECK(a.gwo == b.gwo);
  CHECK(a.gws == b.gws);
  CHECK(a.lws == b.lws);
  CHECK(a.host_begin_ns == b.host_begin_ns);
  CHECK(a.host_end_ns == b.host_end_ns);
  CHECK(a.queued_ns == b.queued_ns);
  CHECK(a.submit_ns == b.submit_ns);
  CHECK(a.start_ns == b.start_ns);
  CHECK(a.end_ns == b.end_ns);
  CHECK(a.status == b.status);
  CHECK(a.rc == b.rc);
  CHECK(a.ranges == b.ranges);
  REQUIRE(a.args.size() == b.args.size());
  for (size_t i = 0; i < a.args.size(); ++i) {
    CAPTURE(i);
    CHECK(a.args[i].kind == b.args[i].kind);
    CHECK(a.args[i].size == b.args[i].size);
    CHECK(a.args[i].hex == b.args[i].hex);
    CHECK(a.args[i].has_value == b.args[i].has_value);
    CHECK(a.args[i].value == b.args[i].value);
    CHECK(a.args[i].object_id == b.args[i].object_id);
    CHECK(a.args[i].object_bytes == b.args[i].object_bytes);
    CHECK(a.args[i].svm_pointer == b.args[i].svm_pointer);
  }
}

}  // namespace

TEST_CASE("the compact-launch fast path and the general path read launches identically") {
  // Launch lines in the shim's compact shape (fast path), varied so that consecutive
  // launches reuse argument slots, lws vectors and strings of different sizes.
  const std::vector<std::string> compact = {
      R"({"type":"launch","seq":1,"tid":2,"rc":0,"kernel":"a","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[8],"lws":[4],"args":[["scalar",8,"0807060504030201",72623859790382856],["buffer",8,3,64],["svm",0,"0xabc"],["unset"]],"host_ns":[-5,7],"device_ns":[1,2,3,40],"status":"complete","ranges":[1]})",
      R"({"type":"launch","seq":999999999999999999,"tid":2,"rc":-54,"kernel":"a_much_longer_kernel_name_than_sso","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":[1,2],"gws":[8,8],"lws":null,"args":[["local",256]],"host_ns":[12,12],"device_ns":null,"status":"not_enqueued","ranges":[],"api":"clEnqueueTask","exec_status":-5})",
      R"({"type":"launch","seq":3,"tid":2,"rc":0,"kernel":"a","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[8],"lws":[4,1,1],"args":[["image",8,4,4096],["pipe",8,5,16],["sampler",8,6],["scalar",64,"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"],["scalar",1,"ff",255]],"host_ns":[1,2],"device_ns":[5,6,7,8],"status":"error","ranges":[1,2]})",
      // Key order changed and a 20-digit number: the general path takes over.
      R"({"type":"launch","kernel":"b","seq":18446744073709551615,"device_ns":[0,0,0,9]})",
      R"({"type":"launch","seq":5,"kernel":"b","unknown":{"x":1},"device_ns":[0,0,0,9]})",
  };
  std::string head = test::trace_lines(
      {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
       R"({"type":"device","id":1,"name":"d"},)",
       R"({"type":"range_begin","id":1,"parent":0,"name":"r","tid":2,"host_ns":0},)",
       R"({"type":"range_begin","id":2,"parent":1,"name":"q","tid":2,"host_ns":0},)"});
  std::string fast = head, general = head;
  for (const auto& line : compact) {
    fast += line + ",\n";
    // A space after every ':' is still the same JSON, but not the compact shape.
    std::string spaced;
    for (char c : line) {
      spaced += c;
      if (c == ':') spaced += ' ';
    }
    general += spaced + ",\n";
  }
  const std::vector<std::string> range_lines = {
      R"({"type":"range_end","id":2,"tid":2,"host_ns":50})",
      R"({"type":"range_begin","id":3,"parent":1,"name":"layer 3","tid":7,"host_ns":-60})",
      R"({"type":"range_end","id":3,"tid":7,"host_ns":70})",
      R"({"type":"range_end","id":1,"tid":2,"host_ns":80})",
  };
  for (const auto& line : range_lines) {
    fast += line + ",\n";
    std::string spaced;
    for (char c : line) {
      spaced += c;
      if (c == ',') spaced += ' ';
    }
    general += spaced + ",\n";
  }
  fast += R"({"type":"end"}]})"
          "\n";
  general += R"({"type":"end"}]})"
             "\n";
  test::TempDir dir;
  model::Run a, b;
  readers::Diagnostics diag;
  readers::load_run({dir.write("fast.json", fast)}, "", a, diag);
  readers::load_run({dir.write("general.json", general)}, "", b, diag);
  CHECK(diag.warnings.empty());
  REQUIRE(a.launches.size() == compact.size());
  REQUIRE(b.launches.size() == compact.size());
  for (size_t i = 0; i < compact.size(); ++i) {
    CAPTURE(i);
    check_same_launch(a.launches[i], b.launches[i]);
  }
  REQUIRE(a.ranges.size() == 3);
  REQUIRE(b.ranges.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(a.ranges[i].id == b.ranges[i].id);
    CHECK(a.ranges[i].parent == b.ranges[i].parent);
    CHECK(a.ranges[i].name == b.ranges[i].name);
    CHECK(a.ranges[i].tid == b.ranges[i].tid);
    CHECK(a.ranges[i].host_begin_ns == b.ranges[i].host_begin_ns);
    CHECK(a.ranges[i].host_end_ns == b.ranges[i].host_end_ns);
  }
  CHECK(a.ranges[2].name == "layer 3");
  CHECK(a.ranges[2].parent == ((uint64_t{1} << 40) | 1));
  CHECK(a.ranges[2].host_begin_ns == -60);
  CHECK(a.ranges[2].host_end_ns == 70);
  CHECK(a.ranges[0].host_end_ns == 80);
  // Spot checks against the input text.
  CHECK(a.launches[0].args[0].value == 72623859790382856ull);
  CHECK(a.launches[0].host_begin_ns == -5);
  CHECK(a.launches[1].seq == 999999999999999999ull);
  CHECK(a.launches[1].host_begin_ns == 12);
  CHECK(a.launches[1].host_end_ns == 12);
  CHECK(a.launches[1].rc == -54);
  CHECK(a.launches[2].args[3].hex.size() == 128);
  CHECK_FALSE(a.launches[2].args[3].has_value);
  CHECK(a.launches[3].seq == 18446744073709551615ull);
  CHECK(a.launches[4].name == "b");

  // The streaming path reuses one Launch per thread: the same values must come out.
  for (const std::string& content : {fast, general}) {
    model::Run run;
    readers::detail::TraceStreamTuning tuning;
    tuning.threads = 1;
    std::string path = dir.write("s.json", content);
    auto an = readers::detail::stream_clprof_trace_file(path, run, test::kernel_totals_factory(),
                                                        diag, tuning);
    auto& t = static_cast<test::KernelTotals&>(*an);
    CHECK(t.rows["a"].count == 2);
    CHECK(t.rows["a_much_longer_kernel_name_than_sso"].count == 1);
    CHECK(t.rows["a"].arg_value_sum == 72623859790382856ull + 255);
    CHECK(t.rows["b"].count == 2);
  }
}

TEST_CASE("the header's rank and world_size land in the Process; null and absent read as none") {
  test::TempDir dir;
  const std::string head =
      R"({"format":"clprof-trace","version":3,"header":{"pid":9,"ppid":1,"command_line":[],)"
      R"("start_unix_ns":1,"host_start_ns":1,"host_clock":"CLOCK_MONOTONIC","host_name":"n1",)";
  const std::string tail = R"("clprof_version":"0.1.0","settings":{},"session_id":"s"},"records":[)"
                           "\n"
                           R"({"type":"end","host_ns":5,"counts":{},"incomplete":0,"dropped":0})"
                           "\n]}\n";
  struct Case {
    const char* fields;
    std::optional<uint64_t> rank, world_size;  // as written in `fields`
  };
  const Case cases[] = {
      {R"("rank":3,"world_size":8,)", 3, 8},
      {R"("rank":0,"world_size":null,)", 0, std::nullopt},
      {R"("rank":null,"world_size":null,)", std::nullopt, std::nullopt},
      {"", std::nullopt, std::nullopt},  // a trace written before the fields
  };
  for (const Case& c : cases) {
    CAPTURE(c.fields);
    const std::string path = dir.write("r.json", head + c.fields + tail);
    model::Run run;
    readers::Diagnostics diag;
    readers::load_run({path}, "", run, diag);
    CHECK(diag.warnings.empty());
    REQUIRE(run.processes.size() == 1);
    CHECK(run.processes[0].rank == c.rank);
    CHECK(run.processes[0].world_size == c.world_size);
  }
}

TEST_CASE("a rank that is not a uint is an error naming the field") {
  test::TempDir dir;
  const std::string path = dir.write(
      "bad.json",
      R"({"format":"clprof-trace","version":3,"header":{"pid":9,"rank":"3","session_id":"s"},)"
      R"("records":[)"
      "\n]}\n");
  model::Run run;
  readers::Diagnostics diag;
  std::string error;
  try {
    readers::load_run({path}, "", run, diag);
  } catch (const std::exception& e) {
    error = e.what();
  }
  CHECK_MESSAGE(error.find("rank") != std::string::npos, error);
}
