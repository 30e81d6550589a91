// End-to-end tests of libclprof.so on the fake driver. The reference run ("basic"): the header,
// device, object, launch, transfer and sync records value by value; the transfer kinds; writes
// aligned to the file's 1 MiB boundaries.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "clprof/trace_schema.hpp"
#include "kernel_source.hpp"
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// ---- the reference run (scenario "basic"), shared by several cases ------------------------
struct BasicRun {
  TempDir dir;
  RunResult shim;
  RunResult bare;
  Trace trace;
  bool trace_ok = false;
};

const BasicRun& basic_run() {
  // Run once, shared by the "trace:" cases; destroyed (temp dir removed) at exit.
  static BasicRun run;
  static const bool started = [] {
    run.shim = run_app({"basic", true, run.dir.file("x.json"), {}}, run.dir.path());
    run.bare = run_app({"basic", false, "", {}}, run.dir.path());
    run.trace_ok = load_trace(run.dir.file("x.json"), run.trace);
    return true;
  }();
  (void)started;
  REQUIRE(run.shim.exit_code == 0);
  REQUIRE(run.trace_ok);
  return run;
}

// What a transfer record must say (the fields every transfer has).
struct ExpectedTransfer {
  const char* api;
  const char* op;
  long long bytes;
  bool blocking;
};
void check_transfer(const Value& x, const ExpectedTransfer& e) {
  CHECK(str(x, "api") == e.api);
  CHECK(str(x, "op") == e.op);
  CHECK(num(x, "bytes") == e.bytes);
  CHECK(member(x, "blocking").GetBool() == e.blocking);
  CHECK(num(x, "rc") == 0);
}

const Value* find_kernel(const Trace& t, const char* name) {
  for (const Value* k : t.of_type("kernel"))
    if (str(*k, "name") == name) return k;
  return nullptr;
}

}  // namespace

TEST_CASE("trace: header and device record") {
  const BasicRun& b = basic_run();
  const Trace& t = b.trace;
  CHECK(str(t.doc, "format") == "clprof-trace");
  CHECK(num(t.doc, "version") == clprof::trace::kVersion);
  CHECK(t.text.rfind("{\"format\":\"clprof-trace\"", 0) == 0);
  const Value& h = t.header();
  CHECK(num(h, "pid") == b.shim.pid);
  CHECK(num(h, "ppid") == getpid());
  CHECK(str(h, "session_id").size() == 16);  // made up by the run's first process
  const Value& argv = member(h, "command_line");
  REQUIRE(argv.IsArray());
  REQUIRE(argv.Size() == 2);
  CHECK(std::string(argv[0].GetString()) == CLPROF_TEST_APP);
  CHECK(std::string(argv[1].GetString()) == "basic");
  CHECK(num(h, "start_unix_ns") > 1600000000LL * 1000000000LL);
  CHECK(num(h, "host_start_ns") > 0);
  CHECK(str(h, "host_clock") == "CLOCK_MONOTONIC");
  CHECK(!str(h, "host_name").empty());
  CHECK(!str(h, "clprof_version").empty());
  const Value& settings = member(h, "settings");
  CHECK(str(settings, "CLPROF_OUTPUT") == b.dir.file("x.json"));
  CHECK(str(settings, "CLPROF_DISABLE") == "0");

  const auto devices = t.of_type("device");
  REQUIRE(devices.size() == 1);
  const Value& d = *devices[0];
  CHECK(num(d, "id") > 0);
  CHECK(str(d, "name") == "clprof fake device");
  CHECK(str(d, "vendor") == "clprof");
  CHECK(str(d, "platform") == "clprof fake platform");
  CHECK(str(d, "platform_version") == "OpenCL 3.0 clprof-fake");
  CHECK(str(d, "version") == "OpenCL 3.0 clprof-fake");
  CHECK(str(d, "driver_version") == "1.0");
  CHECK(str(d, "device_type") == "GPU");
  CHECK(num(d, "compute_units") == 4);
  CHECK(num(d, "max_clock_mhz") == 1000);
  CHECK(num(d, "global_mem_bytes") == (1LL << 30));
  CHECK(num(d, "local_mem_bytes") == 65536);
  CHECK(num(d, "timer_resolution_ns") == 1);
  check_end_counts(t);
  CHECK(num(*t.records.back(), "incomplete") == 0);
  check_objects_before_use(t);
  // Each kind counts from 1 on its own.
  CHECK(num(d, "id") == 1);
  CHECK(num(*t.of_type("queue")[0], "id") == 1);
  CHECK(num(*t.of_type("program")[0], "id") == 1);
  std::set<long long> kernel_ids;
  for (const Value* k : t.of_type("kernel")) kernel_ids.insert(num(*k, "id"));
  CHECK(kernel_ids == std::set<long long>{1, 2, 3});
}

TEST_CASE("trace: launches hold kernel names, work sizes and argument snapshots") {
  const BasicRun& b = basic_run();
  const Trace& t = b.trace;
  const auto launches = t.of_type("launch");
  REQUIRE(launches.size() == 6);
  const std::vector<const Value*> l = by_seq(t, "launch");
  REQUIRE(l.size() == 6);
  const Value* vadd = find_kernel(t, "vadd");
  const Value* scal = find_kernel(t, "scal");
  const Value* noargs = find_kernel(t, "noargs");
  REQUIRE(vadd);
  REQUIRE(scal);
  REQUIRE(noargs);
  CHECK(num(*vadd, "num_args") == 3);
  CHECK(num(*scal, "num_args") == 4);
  CHECK(num(*noargs, "num_args") == 0);
  const auto queues = t.of_type("queue");
  REQUIRE(queues.size() == 1);
  const long long device_id = num(*t.of_type("device")[0], "id");

  const char* names[] = {"vadd", "vadd", "scal", "scal", "vadd", "noargs"};
  const Value* kernels[] = {vadd, vadd, scal, scal, vadd, noargs};
  for (int i = 0; i < 6; ++i) {
    CAPTURE(i);
    const Value& r = *l[i];
    CHECK(str(r, "kernel") == names[i]);
    CHECK(num(r, "kernel_id") == num(*kernels[i], "id"));
    CHECK(num(r, "program_id") == num(*kernels[i], "program_id"));
    CHECK(num(r, "queue_id") == num(*queues[0], "id"));
    CHECK(num(r, "context_id") == num(*queues[0], "context_id"));
    CHECK(num(r, "device_id") == device_id);
    CHECK(num(r, "rc") == 0);
    CHECK(str(r, "status") == "complete");
    CHECK(num(r, "tid") == b.shim.values.at("tid"));
    check_host_ns(r);
    CHECK(member(r, "ranges").IsArray());
    CHECK(member(r, "ranges").Size() == 0);
  }
  // Work sizes: NULL offsets and local sizes are null.
  CHECK(nums(*l[0], "gws") == Ints{1024});
  CHECK(nums(*l[0], "lws") == Ints{64});
  CHECK(is_null(*l[0], "gwo"));
  CHECK(nums(*l[1], "gws") == Ints{2048});
  CHECK(nums(*l[1], "gwo") == Ints{16});
  CHECK(is_null(*l[1], "lws"));
  CHECK(nums(*l[4], "gws") == Ints{64, 8});
  CHECK(nums(*l[4], "lws") == Ints{8, 8});
  CHECK(str(*l[5], "api") == "clEnqueueTask");
  CHECK(nums(*l[5], "gws") == Ints{1});
  CHECK(nums(*l[5], "lws") == Ints{1});
  // "api" is required for tasks only; an NDRange launch omits it or names itself.
  auto api0 = l[0]->FindMember("api");
  if (api0 != l[0]->MemberEnd())
    CHECK(std::string(api0->value.GetString()) == "clEnqueueNDRangeKernel");

  // Arguments: buffers as [kind, size, mem_id, mem_bytes].
  const Value& a0 = member(*l[0], "args");
  REQUIRE(a0.IsArray());
  REQUIRE(a0.Size() == 3);
  for (unsigned i = 0; i < 3; ++i) {
    REQUIRE(a0[i].IsArray());
    REQUIRE(a0[i].Size() == 4);
    CHECK(std::string(a0[i][0].GetString()) == "buffer");
    CHECK(a0[i][1].GetInt64() == 8);
    CHECK(a0[i][2].GetInt64() > 0);
  }
  CHECK(a0[0][3].GetInt64() == 4096);
  CHECK(a0[1][3].GetInt64() == 4096);
  CHECK(a0[2][3].GetInt64() == 1024);
  const long long id_a = a0[0][2].GetInt64(), id_b = a0[1][2].GetInt64(),
                  id_c = a0[2][2].GetInt64();
  // Buffers a, b, c were the app's first mem objects: ids 1, 2, 3 in creation order.
  CHECK(id_a == 1);
  CHECK(id_b == 2);
  CHECK(id_c == 3);
  // scal(a, 2.5f, 7, local 256), then scal(b, 3.0f, 7, local 512): snapshots at launch time.
  const std::string first = to_json(member(*l[2], "args"));
  const std::string second = to_json(member(*l[3], "args"));
  CHECK(first == "[[\"buffer\",8," + std::to_string(id_a) +
                     ",4096],[\"scalar\",4,\"00002040\",1075838976],[\"scalar\",4,\"07000000\",7],"
                     "[\"local\",256]]");
  CHECK(second == "[[\"buffer\",8," + std::to_string(id_b) +
                      ",4096],[\"scalar\",4,\"00004040\",1077936128],[\"scalar\",4,\"07000000\",7],"
                      "[\"local\",512]]");
  CHECK(member(*l[5], "args").IsArray());
  CHECK(member(*l[5], "args").Size() == 0);
}

TEST_CASE("trace: device timestamps follow the fake driver's formula; seq is unique and complete") {
  const BasicRun& b = basic_run();
  const Trace& t = b.trace;
  check_seq_unique_and_complete(t);
  // The app's commands in enqueue order and their durations (tests/fake_icd/README.md).
  const long long durations[] = {1000 + 1024, 1000 + 2048, 1000 + 256, 1000 + 256, 1000 + 512,
                                 1001,        500 + 4096,  500 + 1024, 500 + 512,  500 + 2048};
  std::vector<const Value*> commands;
  for (const Value* r : by_seq(t))
    if (str(*r, "type") != "sync") commands.push_back(r);
  REQUIRE(commands.size() == 10);
  for (int i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(nums(*commands[i], "device_ns") == fake_times(i + 1, durations[i]));
  }
  // The app's own view of its event: unchanged by the shim.
  CHECK(b.shim.values.at("l5_queued") == 5000);
  CHECK(b.shim.values.at("l5_refs") == 1);
}

TEST_CASE("trace: transfers, program, build, kernel, queue and sync records") {
  const BasicRun& b = basic_run();
  const Trace& t = b.trace;
  const auto transfers = t.of_type("transfer");
  REQUIRE(transfers.size() == 4);
  const std::vector<const Value*> x = by_seq(t, "transfer");
  const ExpectedTransfer expected[] = {{"clEnqueueWriteBuffer", "write", 4096, true},
                                       {"clEnqueueReadBuffer", "read", 1024, false},
                                       {"clEnqueueCopyBuffer", "copy", 512, false},
                                       {"clEnqueueFillBuffer", "fill", 2048, false}};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    check_transfer(*x[i], expected[i]);
    CHECK(str(*x[i], "status") == "complete");
    check_host_ns(*x[i]);
  }

  const std::string source = kSource;
  const auto programs = t.of_type("program");
  REQUIRE(programs.size() == 1);
  CHECK(str(*programs[0], "origin") == "source");
  CHECK(str(*programs[0], "source_hash") == fnv1a64(source));
  CHECK(num(*programs[0], "source_bytes") == static_cast<long long>(source.size()));
  CHECK(programs[0]->FindMember("source") == programs[0]->MemberEnd());  // CAPTURE_SOURCE=0

  const auto builds = t.of_type("build");
  REQUIRE(builds.size() == 1);
  const Value& build = *builds[0];
  CHECK(str(build, "api") == "clBuildProgram");
  CHECK(num(build, "program_id") == num(*programs[0], "id"));
  CHECK(str(build, "options") == "-DM=64 -DN=32 -DK=16");
  CHECK(nums(build, "device_ids") == Ints{num(*t.of_type("device")[0], "id")});
  CHECK(num(build, "rc") == 0);
  CHECK(nums(build, "build_status") == Ints{0});
  CHECK(to_json(member(build, "kernels")) == "[\"vadd\",\"scal\",\"noargs\"]");
  CHECK(str(build, "source_hash") == fnv1a64(source));
  check_host_ns(build);

  for (const char* name : {"vadd", "scal", "noargs"}) {
    const Value* k = find_kernel(t, name);
    REQUIRE(k);
    CHECK(num(*k, "program_id") == num(*programs[0], "id"));
  }
  const auto queues = t.of_type("queue");
  REQUIRE(queues.size() == 1);
  CHECK(num(*queues[0], "properties") == 2);  // CL_QUEUE_PROFILING_ENABLE as the app asked
  CHECK(member(*queues[0], "profiling_added").GetBool() == false);

  const auto syncs = t.of_type("sync");
  REQUIRE(syncs.size() == 1);
  CHECK(str(*syncs[0], "api") == "clFinish");
  CHECK(num(*syncs[0], "queue_id") == num(*queues[0], "id"));
  CHECK(num(*syncs[0], "rc") == 0);
  check_host_ns(*syncs[0]);
  // clFinish came after every enqueue.
  CHECK(num(*syncs[0], "seq") == num(*by_seq(t).back(), "seq"));
}

TEST_CASE("trace: the app's results are the same with and without the shim") {
  const BasicRun& b = basic_run();
  CHECK(b.bare.exit_code == 0);
  CHECK(stable_output(b.shim.out) == stable_output(b.bare.out));
  CHECK(b.bare.values.at("l5_queued") == 5000);
}

TEST_CASE("trace: map, unmap, rect and image transfers") {
  const TracedRun run("transfers");
  const Trace& t = run.trace;
  const std::vector<const Value*> x = by_seq(t, "transfer");
  REQUIRE(x.size() == 4);
  const ExpectedTransfer expected[] = {{"clEnqueueMapBuffer", "map", 256, true},
                                       {"clEnqueueUnmapMemObject", "unmap", 256, false},
                                       {"clEnqueueReadBufferRect", "read", 64, true},
                                       {"clEnqueueWriteImage", "write", 8 * 4 * 4, false}};
  const long long durations[] = {500 + 256, 500, 500 + 64, 500 + 128};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    check_transfer(*x[i], expected[i]);
    CHECK(nums(*x[i], "device_ns") == fake_times(i + 1, durations[i]));
  }
  check_seq_unique_and_complete(t);
}

TEST_CASE("trace: writes end on 1 MiB boundaries of the file, the line before padded") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  // No timer writes (those are not aligned): only the writes made as the buffer fills.
  const RunResult shim =
      run_app({"threads", true, out, {{"CLPROF_FLUSH_INTERVAL_MS", "600000"}}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  const std::string text = read_file(out);
  constexpr std::size_t kMiB = 1 << 20;
  REQUIRE(text.size() > kMiB);  // 4000 launch records
  CHECK(text[kMiB - 1] == '\n');
  const std::size_t line_start = text.rfind('\n', kMiB - 2) + 1;
  const std::string line = text.substr(line_start, kMiB - 1 - line_start);
  const std::size_t end = line.find_last_not_of(' ');
  REQUIRE(end != std::string::npos);
  CHECK(line[end] == ',');
  CHECK(line.rfind("{\"type\":", 0) == 0);
  CHECK(line.size() - end - 1 < 4096);  // the padding
  // Padding is JSON whitespace: the document reads whole, every launch in it.
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(t.of_type("launch").size() == 4000);
  check_seq_unique_and_complete(t);
}

namespace {

// The launchers' variables, all unset: a run's own environment (ctest under Slurm, say)
// must not leak into a case's expected values.
EnvChanges without_launcher_variables() {
  EnvChanges env;
  for (const char* v :
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK",
        "MV2_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS"})
    env[v] = std::nullopt;
  return env;
}

EnvChanges with(EnvChanges env, const EnvChanges& more) {
  for (const auto& [k, v] : more) env[k] = v;
  return env;
}

}  // namespace

TEST_CASE("trace: a process that only queries platforms and devices has a trace") {
  const TracedRun run("query_only", without_launcher_variables());
  // The fake driver: one platform with one device (tests/fake_icd/fake_platform.cpp).
  CHECK(run.app.values.at("platforms") == 1);
  CHECK(run.app.values.at("devices") == 1);
  const auto devices = run.trace.of_type("device");
  REQUIRE(devices.size() == 1);
  CHECK(str(*devices[0], "name") == "clprof fake device");
  CHECK(num(*devices[0], "compute_units") == 4);
  for (const char* none : {"queue", "program", "kernel", "launch", "transfer", "sync"})
    CHECK_MESSAGE(run.trace.of_type(none).empty(), none);
  check_end_counts(run.trace);
  TempDir bare_dir;
  const RunResult bare = run_app({"query_only", false, "", {}}, bare_dir.path());
  CHECK(stable_output(bare.out) == stable_output(run.app.out));
}

TEST_CASE("trace: the header's rank and world_size come from the launcher's variables") {
  struct Case {
    const char* what;
    EnvChanges env;
    std::optional<long long> rank, world_size;  // by hand, from the variables below
  };
  const std::vector<Case> cases = {
      {"none", {}, std::nullopt, std::nullopt},
      {"Open MPI", {{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}}, 3, 8},
      {"MVAPICH2", {{"MV2_COMM_WORLD_RANK", "0"}, {"MV2_COMM_WORLD_SIZE", "2"}}, 0, 2},
      {"PMIx rank alone", {{"PMIX_RANK", "12"}}, 12, std::nullopt},
      // The MPI library's own before Slurm's (srun mpirun: Slurm's name the launcher step).
      {"PMI under Slurm",
       {{"PMI_RANK", "5"}, {"PMI_SIZE", "6"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}},
       5,
       6},
      {"Slurm", {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}, 1, 2},
      {"not numbers",
       {{"OMPI_COMM_WORLD_RANK", "3x"}, {"OMPI_COMM_WORLD_SIZE", "-1"}},
       std::nullopt,
       std::nullopt},
      {"too large",
       {{"PMI_RANK", "16777216"}, {"PMI_SIZE", "99999999999999999999"}},
       std::nullopt,
       std::nullopt},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const TracedRun run("query_only", with(without_launcher_variables(), c.env));
    const Value& h = run.trace.header();
    const Value& rank = member(h, "rank");
    const Value& size = member(h, "world_size");
    if (c.rank) {
      CHECK(num(h, "rank") == *c.rank);
    } else {
      CHECK(rank.IsNull());
    }
    if (c.world_size) {
      CHECK(num(h, "world_size") == *c.world_size);
    } else {
      CHECK(size.IsNull());
    }
  }
}

TEST_CASE("trace: %r and %h in CLPROF_OUTPUT become the rank and the host name") {
  char host[256] = {};
  REQUIRE(gethostname(host, sizeof host - 1) == 0);
  TempDir dir;
  const EnvChanges env = with(without_launcher_variables(), {{"PMI_RANK", "7"}});
  const RunResult r = run_app({"query_only", true, dir.file("run.%r.%h.json"), env}, dir.path());
  REQUIRE(r.exit_code == 0);
  Trace t;
  REQUIRE(load_trace(dir.file("run.7." + std::string(host) + ".json"), t));
  CHECK(num(t.header(), "rank") == 7);
  // No rank: %r is 0.
  TempDir plain;
  const RunResult p = run_app(
      {"query_only", true, plain.file("run.%r.json"), without_launcher_variables()}, plain.path());
  REQUIRE(p.exit_code == 0);
  Trace t0;
  REQUIRE(load_trace(plain.file("run.0.json"), t0));
  CHECK(member(t0.header(), "rank").IsNull());
}

namespace {

// What a record is, without what differs between two runs (times, pids, ids of events):
// its type and the names and sizes the app chose.
std::string record_shape(const Value& r) {
  std::string s = str(r, "type");
  for (const char* key : {"name", "kernel", "api", "op", "bytes"}) {
    auto it = r.FindMember(key);
    if (it == r.MemberEnd()) continue;
    s += std::string(" ") + key + "=";
    if (it->value.IsString()) s += it->value.GetString();
    if (it->value.IsUint64()) s += std::to_string(it->value.GetUint64());
  }
  auto gws = r.FindMember("gws");
  if (gws != r.MemberEnd() && gws->value.IsArray())
    for (const auto& g : gws->value.GetArray()) s += " " + std::to_string(g.GetUint64());
  return s;
}

}  // namespace

TEST_CASE("trace: CLPROF_OUTPUT ending in .zst holds the same trace in zstd frames") {
  if (std::system("zstd --version >/dev/null 2>&1") != 0)
    CLPROF_SKIP("no zstd command (Debian's zstd) to decompress the trace");
  const BasicRun& b = basic_run();
  TempDir dir;
  const std::string z = dir.file("x.json.zst");
  const RunResult r = run_app({"basic", true, z, {}}, dir.path());
  REQUIRE(r.exit_code == 0);
  CHECK(stable_output(r.out) == stable_output(b.shim.out));  // the app saw the same
  const std::string bytes = read_file(z);
  // A skippable frame (magic 0x184D2A50, little-endian) with the header line, as is.
  REQUIRE(bytes.size() > 8);
  CHECK(bytes.compare(0, 4, std::string("\x50\x2A\x4D\x18", 4)) == 0);
  CHECK(bytes.compare(8, 26, "{\"format\":\"clprof-trace\",\"") == 0);
  const std::string plain = dir.file("x.json");
  REQUIRE(std::system(("zstd -q -d -f " + z + " -o " + plain).c_str()) == 0);
  Trace t;
  REQUIRE(load_trace(plain, t));
  // Record for record the plain run's (shared by the "trace:" cases), times and pids aside.
  REQUIRE(t.records.size() == b.trace.records.size());
  for (size_t i = 0; i < t.records.size(); ++i) {
    CAPTURE(i);
    CHECK(record_shape(*t.records[i]) == record_shape(*b.trace.records[i]));
  }
  CHECK(bytes.size() < read_file(b.dir.file("x.json")).size());
}
