// End-to-end tests: the example programs run on the real OpenCL stack (PoCL) under the real
// libclprof.so, and their traces are checked against docs/trace-format.md and against what
// each example is known to enqueue. Each example also runs without the shim: exit code and
// stdout must not change. No assertion depends on how long anything takes.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "e2e_support.hpp"
#include "output_lines.hpp"  // tests/support

#include <clprof/trace_schema.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace clprof::e2e;
namespace tf = clprof::trace;

// Readable failure messages for the containers compared below.
namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& v) {
    std::string s = "[";
    for (const std::string& e : v) s += (s.size() > 1 ? ", \"" : "\"") + e + "\"";
    return (s + "]").c_str();
  }
};
template <>
struct StringMaker<std::vector<uint64_t>> {
  static String convert(const std::vector<uint64_t>& v) {
    std::string s = "[";
    for (uint64_t e : v) s += (s.size() > 1 ? ", " : "") + std::to_string(e);
    return (s + "]").c_str();
  }
};
template <>
struct StringMaker<std::pair<uint64_t, uint64_t>> {
  static String convert(const std::pair<uint64_t, uint64_t>& p) {
    return ("(mem_id " + std::to_string(p.first) + ", " + std::to_string(p.second) + " bytes)")
        .c_str();
  }
};
}  // namespace doctest

namespace {

using Names = std::vector<std::string>;

// ---- vector_add ------------------------------------------------------------------------

// What examples/vector_add.cpp enqueues, written down independently of its printout.
struct SaxpyPlan {
  float a;
  uint32_t n;
  uint64_t gws;
  uint64_t gwo;  // 0: NULL offset
};
const SaxpyPlan kSaxpy[] = {{2.0f, 4096, 4096, 0},
                            {0.5f, 1000, 1024, 0},
                            {-1.0f, 4096, 4096, 0},
                            {3.0f, 2048, 2048, 0},
                            {1.5f, 4096, 1024, 1024}};
constexpr uint64_t kVectorBytes = 4096 * sizeof(float);

void check_vector_add_trace(const Trace& t, const std::string& out) {
  check_trace_invariants(t);
  const std::vector<PrintedLaunch> printed = printed_launches(out);
  REQUIRE(printed.size() == 7);
  check_launches_match_printed(t, printed);

  const std::vector<Launch> saxpy = t.launches_of("saxpy");
  const std::vector<Launch> vadd = t.launches_of("vadd");
  const std::vector<Launch> task = t.launches_of("sum_first");
  REQUIRE(saxpy.size() == 5);
  REQUIRE(vadd.size() == 1);
  REQUIRE(task.size() == 1);
  CHECK(t.launches().size() == 7);

  const auto x = buffer_arg(saxpy[0], 1);
  const auto y = buffer_arg(saxpy[0], 2);
  CHECK(x.second == kVectorBytes);
  CHECK(y.second == kVectorBytes);
  CHECK(x.first != y.first);
  for (size_t i = 0; i < saxpy.size(); ++i) {
    INFO("saxpy launch " << i);
    const Launch& l = saxpy[i];
    CHECK(scalar_arg(l, 0, 4) == float_bits(kSaxpy[i].a));
    CHECK(buffer_arg(l, 1) == x);
    CHECK(buffer_arg(l, 2) == y);
    CHECK(scalar_arg(l, 3, 4) == kSaxpy[i].n);
    CHECK(l.gws == std::vector<uint64_t>{kSaxpy[i].gws});
    if (kSaxpy[i].gwo == 0) {
      CHECK_FALSE(l.gwo.has_value());
    } else {
      REQUIRE(l.gwo.has_value());
      CHECK(*l.gwo == std::vector<uint64_t>{kSaxpy[i].gwo});
    }
    CHECK_FALSE(has_member(*l.record, tf::launch::api));  // clEnqueueNDRangeKernel: default
    CHECK(t.range_names(l.ranges) == Names{"vector_add", "saxpy"});
    CHECK(l.queue_id == saxpy[0].queue_id);
  }
  CHECK_FALSE(saxpy[2].lws.has_value());  // the NULL local size launch
  const Launch& v = vadd[0];
  CHECK(buffer_arg(v, 0) == x);
  CHECK(buffer_arg(v, 1) == y);
  const auto z = buffer_arg(v, 2);
  CHECK(z.second == kVectorBytes);
  CHECK(z.first != x.first);
  CHECK(z.first != y.first);
  CHECK(t.range_names(v.ranges) == Names{"vector_add", "vadd"});

  // The clEnqueueTask launch: one work-item, marked with its API.
  const Launch& s = task[0];
  CHECK(get_string(*s.record, tf::launch::api) == "clEnqueueTask");
  CHECK(s.gws == std::vector<uint64_t>{1});
  CHECK(buffer_arg(s, 0) == z);
  const auto sum = buffer_arg(s, 1);
  CHECK(sum.second == sizeof(float));
  CHECK(scalar_arg(s, 2, 4) == 16);
  CHECK(t.range_names(s.ranges) == Names{"vector_add", "reduce"});

  // Two blocking uploads and three blocking downloads, each in its range.
  const auto transfers = t.records(tf::transfer::kTypeName);
  REQUIRE(transfers.size() == 5);
  int writes = 0, reads = 0;
  for (const Json* r : transfers) {
    const std::string op = get_string(*r, tf::transfer::op);
    const Names ranges = t.range_names(record_range_ids(*r));
    const uint64_t bytes = get_uint(*r, tf::transfer::bytes);
    CHECK((bytes == kVectorBytes ||
           (op == tf::name(tf::TransferOp::Read) && bytes == sizeof(float))));
    CHECK(member(*r, tf::transfer::blocking).IsTrue());
    if (op == tf::name(tf::TransferOp::Write)) {
      ++writes;
      CHECK(get_string(*r, tf::transfer::api) == "clEnqueueWriteBuffer");
      CHECK(ranges == Names{"vector_add", "upload"});
    } else {
      ++reads;
      CHECK(op == tf::name(tf::TransferOp::Read));
      CHECK(get_string(*r, tf::transfer::api) == "clEnqueueReadBuffer");
      CHECK(ranges == Names{"vector_add", "download"});
    }
  }
  CHECK(writes == 2);
  CHECK(reads == 3);

  // The program, its build, its kernels, the queue and the clFinish.
  const auto builds = t.records(tf::build::kTypeName);
  REQUIRE(builds.size() == 1);
  CHECK(get_string(*builds[0], tf::build::api) == "clBuildProgram");
  CHECK(get_int(*builds[0], tf::build::rc) == 0);
  std::set<std::string> built;
  for (const Json& k : member(*builds[0], tf::build::kernels).GetArray())
    built.insert(k.GetString());
  CHECK(built == std::set<std::string>{"saxpy", "vadd", "sum_first"});
  std::map<std::string, uint64_t> num_args;
  for (const Json* k : t.records(tf::kernel::kTypeName)) {
    num_args[get_string(*k, tf::kernel::name)] = get_uint(*k, tf::kernel::num_args);
  }
  CHECK(num_args == std::map<std::string, uint64_t>{{"saxpy", 4}, {"vadd", 3}, {"sum_first", 3}});
  const auto queues = t.records(tf::queue::kTypeName);
  REQUIRE(queues.size() == 1);
  CHECK(get_uint(*queues[0], tf::queue::id) == v.queue_id);
  CHECK(get_uint(*queues[0], tf::queue::properties) == 0);
  CHECK(member(*queues[0], tf::queue::profiling_added).IsTrue());
  bool finish_seen = false;
  for (const Json* s : t.records(tf::sync::kTypeName)) {
    if (get_string(*s, tf::sync::api) == "clFinish") {
      finish_seen = true;
      CHECK(get_uint(*s, tf::sync::queue_id) == v.queue_id);
      // clFinish comes after every launch in program order.
      CHECK(get_uint(*s, tf::sync::seq) > t.launches().back().seq);
    }
  }
  CHECK(finish_seen);

  const auto marks = t.records(tf::mark::kTypeName);
  REQUIRE(marks.size() == 1);
  CHECK(get_string(*marks[0], tf::mark::name) == "buffers");
  std::multiset<std::string> range_names;
  for (const auto& [id, g] : t.ranges()) range_names.insert(g.name);
  CHECK(range_names == std::multiset<std::string>{"build", "vector_add", "upload", "saxpy", "vadd",
                                                  "reduce", "download"});
}

}  // namespace

TEST_CASE("vector_add") {
  const fs::path dir = fresh_work_dir("vector_add");
  const fs::path trace = dir / "trace.json";
  const RunResult r =
      run_with_and_without_shim({(paths().bin_dir / "vector_add").string()}, dir, trace, 60);
  const Trace t(trace);
  check_vector_add_trace(t, r.out);
}

// Loaded by the ICD loader as a layer (OPENCL_LAYERS), and both ways at once: the same
// trace, every launch once, the ranges too (docs/recording.md).
TEST_CASE("vector_add_layer") {
  for (const ShimMode mode : {ShimMode::Layer, ShimMode::Both}) {
    const bool both = mode == ShimMode::Both;
    CAPTURE(both);
    const fs::path dir = fresh_work_dir(both ? "vector_add_both" : "vector_add_layer");
    const fs::path trace = dir / "trace.json";
    const RunResult r = run_with_and_without_shim({(paths().bin_dir / "vector_add").string()}, dir,
                                                  trace, 60, {}, mode);
    CHECK_MESSAGE(r.err.find("clprof") == std::string::npos, r.err);
    const Trace t(trace);
    check_vector_add_trace(t, r.out);
  }
}

// The same program recorded through the CLI, then read back by the analysis commands.
TEST_CASE("vector_add_record") {
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const fs::path dir = fresh_work_dir("vector_add_record");
  const fs::path trace = dir / "run.json";
  const std::string app = (paths().bin_dir / "vector_add").string();
  const RunResult plain = run_program({app}, {}, dir, "plain", 60);
  REQUIRE(plain.exit_code == 0);
  const RunResult rec =
      run_program({paths().clprof_cli.string(), "record", "-o", trace.string(), "--", app}, {}, dir,
                  "record", 60);
  INFO("clprof record stderr:\n" << rec.err);
  CHECK(rec.exit_code == plain.exit_code);
  // clprof may add its own lines, but the app's output must pass through unchanged.
  CHECK(rec.out.find(plain.out) != std::string::npos);
  REQUIRE(fs::exists(trace));
  {
    const Trace t(trace);
    check_vector_add_trace(t, plain.out);
    // The header's command line is the app's, not clprof's.
    const Json& cmd = member(t.header(), tf::header::command_line);
    REQUIRE(cmd.Size() >= 1);
    CHECK(std::string(cmd[0].GetString()) == app);
  }

  // A failing app's exit code passes through clprof record unchanged (THREADS=0 is
  // rejected before any OpenCL call).
  const std::string bad_app = (paths().bin_dir / "multi_thread").string();
  const RunResult bad_plain = run_program({bad_app, "0"}, {}, dir, "bad_plain", 60);
  CHECK(bad_plain.exit_code == 2);
  const RunResult bad_rec = run_program({paths().clprof_cli.string(), "record", "-o",
                                         (dir / "bad.json").string(), "--", bad_app, "0"},
                                        {}, dir, "bad_record", 60);
  CHECK(bad_rec.exit_code == bad_plain.exit_code);

  // clprof record --mode layer: the same trace through the loader.
  {
    const fs::path layer_trace = dir / "layer.json";
    const RunResult layer = run_program({paths().clprof_cli.string(), "record", "--mode", "layer",
                                         "-o", layer_trace.string(), "--", app},
                                        {}, dir, "record_layer", 60);
    INFO("clprof record --mode layer stderr:\n" << layer.err);
    CHECK(layer.exit_code == plain.exit_code);
    CHECK(layer.out.find(plain.out) != std::string::npos);
    REQUIRE(fs::exists(layer_trace));
    const Trace t(layer_trace);
    check_vector_add_trace(t, plain.out);
  }

  // vector_add builds with -cl-kernel-arg-info: PoCL then answers clGetKernelArgInfo, the
  // trace holds saxpy's argument types, and `clprof launches` prints its float `a` as the
  // value, without CLPROF_CAPTURE_SOURCE.
  {
    const Trace t(trace);
    bool typed = false;
    for (const Json* k : t.records(tf::kernel::kTypeName))
      if (get_string(*k, tf::kernel::name) == "saxpy" && has_member(*k, tf::kernel::arg_types)) {
        const Json& types = member(*k, tf::kernel::arg_types);
        REQUIRE(types.Size() == 4);
        CHECK(std::string(types[0].GetString()) == "float");
        typed = true;
      }
    CHECK(typed);
    for (const Json* p : t.records(tf::program::kTypeName))
      CHECK_FALSE(has_member(*p, tf::program::source));  // the source was not captured
    const RunResult l = run_program({paths().clprof_cli.string(), "launches", "--format", "json",
                                     "--filter", "^saxpy$", trace.string()},
                                    {}, dir, "launches_json", 30);
    INFO("clprof launches output:\n" << l.out << l.err);
    REQUIRE(l.exit_code == 0);
    rapidjson::Document doc;
    doc.Parse(l.out.c_str());
    REQUIRE(doc.IsArray());
    REQUIRE(doc.Size() == std::size(kSaxpy));
    for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
      const Json& a = doc[i]["args"][0];  // ["scalar", 4, hex, value]
      REQUIRE(a.Size() == 4);
      REQUIRE(a[3].IsNumber());
      CHECK(a[3].GetDouble() == kSaxpy[i].a);
    }
  }

  for (const char* command : {"summary", "kernels"}) {
    const RunResult a =
        run_program({paths().clprof_cli.string(), command, trace.string()}, {}, dir, command, 30);
    INFO("clprof " << command << " output:\n" << a.out << a.err);
    CHECK(a.exit_code == 0);
    if (std::string(command) == "kernels") {
      CHECK(a.out.find("saxpy") != std::string::npos);
      CHECK(a.out.find("vadd") != std::string::npos);
    }
  }
}

TEST_CASE("multi_thread") {
  constexpr int kThreads = 4;
  constexpr int kLaunches = 6;
  const fs::path dir = fresh_work_dir("multi_thread");
  const fs::path trace = dir / "trace.json";
  run_with_and_without_shim({(paths().bin_dir / "multi_thread").string(), std::to_string(kThreads),
                             std::to_string(kLaunches)},
                            dir, trace, 60);
  const Trace t(trace);
  check_trace_invariants(t);
  REQUIRE(t.launches().size() == 2 * kThreads * kLaunches);

  // Decode (phase, thread, index) from the "add" argument, see examples/multi_thread.cpp.
  using Key = std::tuple<bool, int, int>;  // shared queue?, thread, launch index
  std::map<Key, Launch> by_key;
  for (const Launch& l : t.launches()) {
    INFO("launch seq " << l.seq);
    REQUIRE(l.kernel == "accumulate");
    const auto add = static_cast<int32_t>(scalar_arg(l, 1, 4));
    CHECK(scalar_arg(l, 2, 4) == 256);
    CHECK(buffer_arg(l, 0).second == 256 * sizeof(int32_t));
    CHECK(l.gws == std::vector<uint64_t>{256});
    const bool shared = add >= 1000000;
    const int rest = shared ? add - 1000000 : add;
    const Key key{shared, rest / 1000 - 1, rest % 1000};
    REQUIRE(std::get<1>(key) >= 0);
    REQUIRE(std::get<1>(key) < kThreads);
    REQUIRE(std::get<2>(key) < kLaunches);
    CHECK_MESSAGE(by_key.emplace(key, l).second, "launch recorded twice: add=" << add);
  }
  REQUIRE(by_key.size() == 2 * kThreads * kLaunches);

  std::set<int64_t> tids;
  std::set<uint64_t> own_queues, buffers;
  const uint64_t shared_queue = by_key.at(Key{true, 0, 0}).queue_id;
  for (int th = 0; th < kThreads; ++th) {
    INFO("thread " << th);
    const Launch& first = by_key.at(Key{false, th, 0});
    tids.insert(first.tid);
    own_queues.insert(first.queue_id);
    buffers.insert(buffer_arg(first, 0).first);
    uint64_t last_seq = 0;
    for (bool shared : {false, true}) {
      for (int j = 0; j < kLaunches; ++j) {
        INFO((shared ? "shared" : "own") << " launch " << j);
        const Launch& l = by_key.at(Key{shared, th, j});
        CHECK(l.tid == first.tid);
        CHECK(buffer_arg(l, 0).first == buffer_arg(first, 0).first);
        CHECK(l.queue_id == (shared ? shared_queue : first.queue_id));
        CHECK(l.seq > last_seq);  // one thread enqueues in program order
        last_seq = l.seq;
        if (shared) {
          CHECK_FALSE(l.lws.has_value());
          CHECK(t.range_names(l.ranges) == Names{"shared" + std::to_string(th)});
        } else {
          REQUIRE(l.lws.has_value());
          CHECK(*l.lws == std::vector<uint64_t>{64});
          CHECK(t.range_names(l.ranges) == Names{"worker" + std::to_string(th)});
        }
      }
    }
  }
  CHECK(tids.size() == kThreads);
  CHECK(own_queues.size() == kThreads);
  CHECK(own_queues.count(shared_queue) == 0);
  CHECK(buffers.size() == kThreads);
  CHECK(t.records(tf::queue::kTypeName).size() == kThreads + 1);

  // The main thread's range holds no launch and belongs to none of the workers.
  int threads_ranges = 0;
  for (const auto& [id, g] : t.ranges()) {
    if (g.name != "threads") continue;
    ++threads_ranges;
    CHECK(tids.count(g.tid) == 0);
  }
  CHECK(threads_ranges == 1);
  CHECK(t.ranges().size() == 1 + 2 * kThreads);
}

// Every hooked call misused (NULL objects, missing pointers, bad sizes): the app's output,
// which prints each call's result, is the same with the shim (run_with_and_without_shim),
// and the trace holds each failed launch and transfer once, with the app's rc.
TEST_CASE("api_misuse") {
  const fs::path dir = fresh_work_dir("api_misuse");
  const fs::path trace = dir / "trace.json";
  const RunResult r =
      run_with_and_without_shim({(paths().bin_dir / "api_misuse").string()}, dir, trace, 60);
  std::vector<int64_t> launch_rcs;
  std::size_t transfer_calls = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const int64_t rc = std::stoll(line.substr(line.rfind(' ') + 1));
    if (line.rfind("clEnqueueNDRangeKernel(", 0) == 0 || line.rfind("clEnqueueTask(", 0) == 0) {
      launch_rcs.push_back(rc);
    } else if (line.rfind("clEnqueue", 0) == 0) {
      ++transfer_calls;
      CHECK(rc < 0);
    }
  }
  REQUIRE(launch_rcs.size() == 6);
  CHECK(transfer_calls == 21);
  const Trace t(trace);
  REQUIRE(t.launches().size() == launch_rcs.size());
  for (std::size_t i = 0; i < launch_rcs.size(); ++i) {
    CAPTURE(i);
    const Launch& l = t.launches()[i];
    CHECK(launch_rcs[i] < 0);
    CHECK(l.rc == launch_rcs[i]);
    CHECK(l.status == "not_enqueued");
    CHECK_FALSE(l.device_ns.has_value());
  }
  const auto transfers = t.records(tf::transfer::kTypeName);
  CHECK(transfers.size() == transfer_calls);
  for (const Json* x : transfers) {
    CHECK(get_int(*x, tf::transfer::rc) < 0);
    CHECK(get_string(*x, tf::transfer::status) == "not_enqueued");
  }
}

TEST_CASE("dlopen_app") {
  const fs::path dir = fresh_work_dir("dlopen_app");
  const fs::path trace = dir / "trace.json";
  const RunResult r =
      run_with_and_without_shim({(paths().bin_dir / "dlopen_app").string()}, dir, trace, 60);
  const Trace t(trace);
  check_trace_invariants(t);
  // Every one of these calls went through dlsym(handle, ...): seeing them proves that the
  // shim answers dlsym lookups on the real library's handle.
  check_launches_match_printed(t, printed_launches(r.out));
  const std::vector<Launch> launches = t.launches_of("square_bias");
  REQUIRE(launches.size() == 2);
  const float biases[] = {1.0f, 0.25f};
  for (size_t i = 0; i < 2; ++i) {
    INFO("launch " << i);
    CHECK(buffer_arg(launches[i], 0).second == 1024 * sizeof(float));
    CHECK(buffer_arg(launches[i], 1).second == 1024 * sizeof(float));
    CHECK(scalar_arg(launches[i], 2, 4) == float_bits(biases[i]));
    CHECK(t.range_names(launches[i].ranges) == Names{"dlopen_compute"});
  }
  CHECK(t.records(tf::build::kTypeName).size() == 1);
  const auto transfers = t.records(tf::transfer::kTypeName);
  REQUIRE(transfers.size() == 1);
  CHECK(get_string(*transfers[0], tf::transfer::op) == tf::name(tf::TransferOp::Read));
  CHECK(get_uint(*transfers[0], tf::transfer::bytes) == 1024 * sizeof(float));
}

#ifdef CLPROF_E2E_HAVE_CLBLAST
namespace {

struct PrintedLayer {
  std::string name;
  uint64_t m = 0, n = 0, k = 0;
  bool direct = false;
};

// "layer conv1 M=48 N=3025 K=363 path=indirect"
std::vector<PrintedLayer> printed_layers(const std::string& out) {
  std::vector<PrintedLayer> layers;
  for (const std::string& line : clprof::test::lines_starting_with(out, "layer ")) {
    PrintedLayer l;
    char name[64] = {}, path[16] = {};
    unsigned long long m = 0, n = 0, k = 0;
    REQUIRE_MESSAGE(std::sscanf(line.c_str(), "layer %63s M=%llu N=%llu K=%llu path=%15s", name, &m,
                                &n, &k, path) == 5,
                    "bad layer line: " << line);
    l.name = name;
    l.m = m;
    l.n = n;
    l.k = k;
    l.direct = std::string(path) == "direct";
    layers.push_back(l);
  }
  return layers;
}

// CLBlast's helper kernels of the indirect GEMM (pad, copy and transpose of A, B, C).
const std::set<std::string> kGemmHelpers = {"CopyMatrixFast",      "CopyPadMatrix",
                                            "TransposeMatrixFast", "TransposePadMatrix",
                                            "TransposeMatrix",     "CopyMatrix"};

}  // namespace

TEST_CASE("clblast_network") {
  constexpr int kIterations = 2;
  const fs::path dir = fresh_work_dir("clblast_network");
  const fs::path trace = dir / "trace.json";
  const RunResult r = run_with_and_without_shim(
      {(paths().bin_dir / "clblast_network").string(), "--iterations", std::to_string(kIterations)},
      dir, trace, 240);
  const Trace t(trace);
  check_trace_invariants(t);

  const std::vector<PrintedLayer> layers = printed_layers(r.out);
  REQUIRE(layers.size() == 8);
  const bool any_direct =
      std::any_of(layers.begin(), layers.end(), [](const PrintedLayer& l) { return l.direct; });
  const bool any_indirect =
      std::any_of(layers.begin(), layers.end(), [](const PrintedLayer& l) { return !l.direct; });
  CHECK(any_direct);
  CHECK(any_indirect);
  std::map<std::string, PrintedLayer> layer_by_name;
  for (const PrintedLayer& l : layers) layer_by_name[l.name] = l;

  // Ranges: kIterations "inference" ranges, each the parent of one range per layer.
  std::set<uint64_t> inference_ids;
  for (const auto& [id, g] : t.ranges()) {
    if (g.name == "inference") {
      inference_ids.insert(id);
      CHECK(g.parent == 0);
    }
  }
  REQUIRE(inference_ids.size() == kIterations);
  std::map<uint64_t, std::vector<Launch>> by_layer_range;
  std::map<std::string, int> layer_range_count;
  for (const auto& [id, g] : t.ranges()) {
    if (layer_by_name.count(g.name) == 0) continue;
    CHECK(inference_ids.count(g.parent) == 1);
    ++layer_range_count[g.name];
    by_layer_range[id];  // a layer without launches must still be looked at below
  }
  for (const PrintedLayer& l : layers) CHECK(layer_range_count[l.name] == kIterations);

  for (const Launch& l : t.launches()) {
    INFO("launch seq " << l.seq << " " << l.kernel);
    REQUIRE(l.ranges.size() == 2);  // every GEMM kernel runs inside inference/<layer>
    CHECK(inference_ids.count(l.ranges[0]) == 1);
    REQUIRE(by_layer_range.count(l.ranges[1]) == 1);
    by_layer_range[l.ranges[1]].push_back(l);
  }

  std::map<uint64_t, std::vector<std::string>> names_per_iteration;
  for (const auto& [range_id, launches] : by_layer_range) {
    const Range& g = t.range(range_id);
    const PrintedLayer& layer = layer_by_name.at(g.name);
    INFO("layer " << layer.name << " M=" << layer.m << " N=" << layer.n << " K=" << layer.k
                  << (layer.direct ? " direct" : " indirect"));
    std::vector<Launch> gemms;
    for (const Launch& l : launches) {
      names_per_iteration[g.parent].push_back(l.kernel);
      if (l.kernel == "Xgemm" || l.kernel.rfind("XgemmDirect", 0) == 0) {
        gemms.push_back(l);
      } else {
        CHECK_MESSAGE(kGemmHelpers.count(l.kernel) == 1, "unexpected kernel " << l.kernel);
      }
    }
    REQUIRE(gemms.size() == 1);
    const Launch& gemm = gemms[0];
    // Both kernels take (kSizeM, kSizeN, kSizeK, alpha, beta, ...) as their first five
    // arguments (CLBlast src/routines/level3/xgemm.cpp).
    const uint64_t m = scalar_arg(gemm, 0, 4);
    const uint64_t n = scalar_arg(gemm, 1, 4);
    const uint64_t k = scalar_arg(gemm, 2, 4);
    CHECK(scalar_arg(gemm, 3, 4) == float_bits(1.0f));
    CHECK(scalar_arg(gemm, 4, 4) == float_bits(0.0f));
    CHECK(gemm.gws.size() == 2);
    if (layer.direct) {
      CHECK(gemm.kernel.rfind("XgemmDirect", 0) == 0);
      CHECK(launches.size() == 1);  // the direct path is one kernel, no helpers
      CHECK(m == layer.m);
      CHECK(n == layer.n);
      CHECK(k == layer.k);
    } else {
      CHECK(gemm.kernel == "Xgemm");
      CHECK(launches.size() > 1);  // padding/transposition around the main kernel
      // The indirect kernel sees the sizes rounded up to its tile sizes (64 or less with
      // the default PoCL parameters; 256 leaves room for any tuned configuration).
      CHECK(m >= layer.m);
      CHECK(m < layer.m + 256);
      CHECK(n >= layer.n);
      CHECK(n < layer.n + 256);
      CHECK(k >= layer.k);
      CHECK(k < layer.k + 256);
    }
  }
  // Every iteration runs the same kernels in the same order.
  REQUIRE(names_per_iteration.size() == kIterations);
  CHECK(names_per_iteration.begin()->second == names_per_iteration.rbegin()->second);

  const auto marks = t.records(tf::mark::kTypeName);
  REQUIRE(marks.size() == 1);
  CHECK(get_string(*marks[0], tf::mark::name) == "weights loaded");

  // clprof gemm reads the same trace: each layer is one recorded library call at the sizes
  // the app asked for (the indirect path's padded sizes only in the wide columns), as
  // consecutive "M N K" columns on a line naming CLBlast's C++ entry point.
  REQUIRE_MESSAGE(fs::exists(paths().clprof_cli), "clprof is not built: " << paths().clprof_cli);
  const RunResult g =
      run_program({paths().clprof_cli.string(), "gemm", trace.string()}, {}, dir, "gemm", 60);
  INFO("clprof gemm output:\n" << g.out << g.err);
  CHECK(g.exit_code == 0);
  for (const PrintedLayer& l : layers) {
    const std::string shape =
        " " + std::to_string(l.m) + " " + std::to_string(l.n) + " " + std::to_string(l.k) + " 1 ";
    int lines = 0;
    std::istringstream in(g.out);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string word, squeezed = " ";
      while (words >> word) squeezed += word + " ";
      if (squeezed.find(" clblast::Gemm<float>") != std::string::npos &&
          squeezed.find(shape) != std::string::npos) {
        ++lines;
      }
    }
    INFO("layer " << l.name << " shape" << shape);
    CHECK(lines == kIterations);
  }
}
#endif
