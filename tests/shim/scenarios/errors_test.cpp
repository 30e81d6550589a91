// End-to-end tests of libclprof.so on the fake driver. Failures reach the app unchanged and the
// trace as they were: injected enqueue failures, commands failing on the device, a failed build,
// a trace descriptor the app took.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("errors: an injected enqueue failure reaches the app and the record") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const EnvChanges env = {{"FAKE_CL_FAIL", "clEnqueueNDRangeKernel:2:-54"}};
  const RunResult shim = run_app({"inject", true, out, env}, dir.path());
  const RunResult bare = run_app({"inject", false, "", env}, dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK(shim.values.at("rc1") == 0);
  CHECK(shim.values.at("rc2") == -54);
  CHECK(shim.values.at("rc3") == 0);
  CHECK(shim.values.at("rc_bad_arg") == -49);  // CL_INVALID_ARG_INDEX passed through
  CHECK(shim.values.at("rc4") == 0);
  Trace t;
  REQUIRE(load_trace(out, t));
  const std::vector<const Value*> l = by_seq(t, "launch");
  REQUIRE(l.size() == 4);
  CHECK(num(*l[1], "rc") == -54);
  CHECK(str(*l[1], "status") == "not_enqueued");
  CHECK(is_null(*l[1], "device_ns"));
  for (int i : {0, 2, 3}) {
    CAPTURE(i);
    CHECK(num(*l[i], "rc") == 0);
    CHECK(str(*l[i], "status") == "complete");
  }
  // Failed enqueues take no command number in the driver.
  CHECK(nums(*l[0], "device_ns") == fake_times(1, 1000 + 128));
  CHECK(nums(*l[2], "device_ns") == fake_times(2, 1000 + 128));
  CHECK(nums(*l[3], "device_ns") == fake_times(3, 1000 + 128));
  check_seq_unique_and_complete(t);
}

TEST_CASE("errors: a command that fails on the device is recorded with its execution status") {
  // scal (launches 3 and 4 of "basic") fails with CL_OUT_OF_RESOURCES after a successful
  // enqueue; the driver then has no profiling times for it.
  TempDir dir;
  const std::string out = dir.file("x.json");
  const EnvChanges env = {{"FAKE_CL_EXEC_ERROR", "scal:-5"}};
  const RunResult shim = run_app({"basic", true, out, env}, dir.path());
  const RunResult bare = run_app({"basic", false, "", env}, dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  Trace t;
  REQUIRE(load_trace(out, t));
  const std::vector<const Value*> l = by_seq(t, "launch");
  REQUIRE(l.size() == 6);
  for (int i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(num(*l[i], "rc") == 0);
    if (str(*l[i], "kernel") == "scal") {
      CHECK(str(*l[i], "status") == "error");
      CHECK(num(*l[i], "exec_status") == -5);
      CHECK(is_null(*l[i], "device_ns"));
    } else {
      CHECK(str(*l[i], "status") == "complete");
      CHECK(!l[i]->HasMember("exec_status"));
      CHECK(nums(*l[i], "device_ns").size() == 4);
    }
  }
  CHECK(str(*l[2], "kernel") == "scal");
  CHECK(str(*l[3], "kernel") == "scal");
  CHECK(num(*t.records.back(), "incomplete") == 0);
  check_seq_unique_and_complete(t);
}

namespace {

// The close_fds scenario: the app closes every descriptor (`how`: a close per number,
// close_range or closefrom), opens a file of its own over all of them, and launches on.
void check_app_closing_the_trace(const std::string& how) {
  CAPTURE(how);
  TempDir dir;
  const std::string out = dir.file("x.json");
  const std::string app_file = dir.file("app.txt");
  EnvChanges env{{"SHIM_TEST_APP_FILE", app_file}};
  // ThreadSanitizer's close() records the close before it calls the next definition, the
  // shim's hook, which is what orders it after the trace's last write: with its runtime
  // first, it reports the two as a race. The app's close reaches the shim first here.
  const std::string first = CLPROF_TEST_PRELOAD_FIRST;
  if (first.find("tsan") != std::string::npos)
    env["LD_PRELOAD"] = std::string(CLPROF_TEST_SHIM_LIB) + ":" + first;
  const RunResult shim = run_app({"close_fds", true, out, env, how}, dir.path());
  INFO("the app's stderr: ", shim.err);
  REQUIRE(shim.exit_code == 0);
  if (shim.values.count("libc_lacks_close_range")) {
    CLPROF_SKIP("this libc has no ", how, " (glibc before 2.34)");
  }
  CHECK(shim.values.at("after_close") == 1);
  // The trace's descriptor closed, as asked; dup2 replaces it later.
  CHECK(shim.values.at("fd_512_open") == (how == "dup2" ? 1 : 0));
  if (how == "close_range") CHECK(shim.values.at("close_range_rc") == 0);
  const std::string app_text = read_file(app_file);
  if (app_text != "the app's own data\n")  // no trace line in it
    FAIL_CHECK("the app's file holds ", app_text.size(), " bytes: ", printable(app_text, 0, 400));
  // One warning; the trace keeps what was written before (a cut-short trace).
  CHECK(count_of(shim.err, "closed the trace file") == 1);
  const std::string text = read_file(out);
  CHECK(text.find("{\"format\":\"clprof-trace\"") == 0);
  CHECK(text.find("\"type\":\"end\"") == std::string::npos);
  if (how == "dup2") {
    // A dup2 that failed (a closed source) replaced nothing: the trace went on.
    CHECK(shim.values.at("dup2_from_closed_failed") == 1020);
    Trace t;
    REQUIRE(load_partial_trace(out, t));
    std::size_t after_failed_dup2 = 0;
    for (const rapidjson::Value* l : t.of_type("launch"))
      after_failed_dup2 += nums(*l, "gws")[0] == 62;
    CHECK(after_failed_dup2 == 1);
  }
}

}  // namespace

TEST_CASE("errors: an app that closes the trace's descriptor and opens its own file there") {
  check_app_closing_the_trace("");
}

TEST_CASE("errors: an app that dup2s its own file over the trace's descriptor") {
  check_app_closing_the_trace("dup2");
}

TEST_CASE("errors: an app that closes every descriptor with close_range or closefrom") {
  check_app_closing_the_trace("close_range");
  check_app_closing_the_trace("closefrom");
}

TEST_CASE("errors: the app finds its descriptors as without clprof, in a table grown at load") {
  // The trace's descriptor goes to 512 at the first OpenCL call. The table is grown to
  // hold it at load, while the process has one thread: growing it later, beside the
  // driver's threads, makes the kernel wait for an RCU grace period in that call.
  TempDir dir;
  const RunResult bare = run_app({"descriptors_at_main", false, "", {}}, dir.path());
  const RunResult shim = run_app({"descriptors_at_main", true, dir.file("x.json"), {}}, dir.path());
  INFO("the app's stderr: ", shim.err);
  REQUIRE(bare.exit_code == 0);
  REQUIRE(shim.exit_code == 0);
  CHECK(shim.values.at("first_open_fd") == bare.values.at("first_open_fd"));
  CHECK(shim.values.at("fd_512_open_at_main") == 0);
  CHECK(shim.values.at("fd_512_open_after_launch") == 1);
  CHECK(bare.values.at("fd_512_open_after_launch") == 0);
  INFO("table size without clprof: ", bare.values.at("fd_table_size"));
  if (shim.values.at("threads_at_main") == 1) {
    CHECK(shim.values.at("fd_table_size") > 512);
  } else {  // a sanitizer's runtime started a thread before the shim's constructor
    MESSAGE("the app had ", shim.values.at("threads_at_main"), " threads at main: table not grown");
  }
}

TEST_CASE("errors: a POSIX lock on stdin, kept across exec, outlives the shim's start") {
  // Closing any descriptor of a file drops the process's POSIX locks on it: growing the
  // table must not go through a copy of 0, 1 or 2.
  TempDir dir;
  const EnvChanges env{{"SHIM_TEST_APP_FILE", dir.file("locked.txt")}};
  long long first_fd_bare = -1;
  for (const bool preload : {false, true}) {
    CAPTURE(preload);
    const RunResult r = run_app(
        {"descriptors_at_main", preload, dir.file("x.json"), env, "lock_stdin"}, dir.path());
    INFO("the app's stderr: ", r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.values.at("stdin_lock_kept") == 1);
    if (!preload) first_fd_bare = r.values.at("first_open_fd");
    CHECK(r.values.at("first_open_fd") == first_fd_bare);
  }
}

TEST_CASE("errors: a failed build and a clWaitForEvents are recorded") {
  const TracedRun run("build_and_wait");
  const RunResult& shim = run.app;
  CHECK(shim.values.at("build_rc") == -11);  // CL_BUILD_PROGRAM_FAILURE passed through
  CHECK(shim.values.at("wait_rc") == 0);
  const Trace& t = run.trace;
  const auto builds = t.of_type("build");
  REQUIRE(builds.size() == 2);
  const Value* failed = nullptr;
  for (const Value* b : builds)
    if (num(*b, "rc") != 0) failed = b;
  REQUIRE(failed);
  CHECK(num(*failed, "rc") == -11);
  CHECK(str(*failed, "options") == "-DFAKE_CL_BUILD_FAIL -DNAME=caf\xEF\xBF\xBD");  // U+FFFD
  CHECK(nums(*failed, "build_status") == Ints{-2});  // CL_BUILD_ERROR
  CHECK(to_json(member(*failed, "kernels")) == "[]");
  // The driver's log, per device; none for the successful build.
  CHECK(to_json(member(*failed, "logs")) ==
        "[\"clprof fake ICD: build failure injected by option -DFAKE_CL_BUILD_FAIL\\n\"]");
  for (const Value* b : builds)
    if (b != failed) CHECK_FALSE(b->HasMember("logs"));
  const auto syncs = t.of_type("sync");
  REQUIRE(syncs.size() == 1);
  CHECK(str(*syncs[0], "api") == "clWaitForEvents");
  CHECK(num(*syncs[0], "queue_id") == 0);
  CHECK(num(*syncs[0], "rc") == 0);
  check_host_ns(*syncs[0]);
  check_seq_unique_and_complete(t);
}

TEST_CASE("errors: a source that does not compile on PoCL: the build log is recorded") {
  TempDir probe;
  const RunResult bare = run_app({"bad_source", false, "", system_opencl()}, probe.path());
  if (bare.exit_code != 0 && bare.err.find("clGetPlatformIDs failed") != std::string::npos) {
    CLPROF_SKIP("no OpenCL platform besides the fake driver");
  }
  const TracedRun run("bad_source", system_opencl());
  CHECK(run.app.values.at("build_rc") == bare.values.at("build_rc"));
  CHECK(run.app.values.at("build_rc") == -11);  // CL_BUILD_PROGRAM_FAILURE
  const auto builds = run.trace.of_type("build");
  REQUIRE(builds.size() == 3);  // the app's own (vadd ...), then the two bad ones
  const Value& plain = *builds[1];
  CHECK(num(plain, "rc") == -11);
  const Value& logs = member(plain, "logs");
  REQUIRE(logs.IsArray());
  REQUIRE(logs.Size() == 1);
  const std::string log = logs[0].GetString();
  CHECK_MESSAGE(log.find("clprof_undeclared_name") != std::string::npos, log);
  CHECK(log.size() <= 64 * 1024 + 64);
  // The callback build: its log only when the call failed or the status already says so.
  const Value& async = *builds[2];
  CHECK(str(async, "options") == "-DASYNC");
  const bool failed_at_return = num(async, "rc") != 0 || nums(async, "build_status") == Ints{-2};
  CHECK(async.HasMember("logs") == failed_at_return);
  CHECK(run.app.values.at("async_rc") == num(async, "rc"));
}
