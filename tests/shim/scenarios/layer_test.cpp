// End-to-end tests of libclprof.so as an OpenCL loader layer (OPENCL_LAYERS, Debian's
// ocl-icd), on the fake driver: the same trace as in preload mode, record for record; both
// ways at once record each call once; markers; the shim off passes every call through.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sstream>
#include <string>
#include <vector>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

enum class Mode { Preload, Layer, Both };

// The app run under the shim loaded as `mode` says, tracing to dir/x.json.
RunResult run_in_mode(const std::string& scenario, Mode mode, const TempDir& dir,
                      EnvChanges env = {}) {
  const std::string first = CLPROF_TEST_PRELOAD_FIRST;  // a sanitizer build's runtime
  if (mode != Mode::Preload) env["OPENCL_LAYERS"] = CLPROF_TEST_SHIM_LIB;
  if (mode == Mode::Layer) {
    if (first.empty()) {
      env["LD_PRELOAD"] = std::nullopt;
    } else {
      env["LD_PRELOAD"] = first;
    }
  }
  return run_app({scenario, mode != Mode::Layer, dir.file("x.json"), env}, dir.path());
}

// The records as text without what differs from run to run (host times, thread ids,
// measured clock offsets): equal for two runs of a scenario on the fake driver.
std::vector<std::string> comparable_records(const Trace& t) {
  std::vector<std::string> out;
  for (const Value* r : t.records) {
    rapidjson::Document copy;
    copy.CopyFrom(*r, copy.GetAllocator());
    for (const char* key : {"host_ns", "tid", "offset_ns", "uncertainty_ns"})
      copy.RemoveMember(key);
    rapidjson::StringBuffer text;
    rapidjson::Writer<rapidjson::StringBuffer> writer(text);
    copy.Accept(writer);
    out.emplace_back(text.GetString());
  }
  return out;
}

// Runs `scenario` in `mode` and in preload mode: both exit 0 with the same output and
// leave the same records.
void check_same_as_preload(const std::string& scenario, Mode mode) {
  TempDir preload_dir, mode_dir;
  const RunResult preload = run_in_mode(scenario, Mode::Preload, preload_dir);
  const RunResult other = run_in_mode(scenario, mode, mode_dir);
  REQUIRE_MESSAGE(preload.exit_code == 0, preload.err);
  REQUIRE_MESSAGE(other.exit_code == 0, other.err);
  CHECK(stable_output(other.out) == stable_output(preload.out));
  CHECK_MESSAGE(other.err.empty(), "stderr: ", other.err);
  Trace a, b;
  REQUIRE(load_trace(preload_dir.file("x.json"), a));
  REQUIRE(load_trace(mode_dir.file("x.json"), b));
  const std::vector<std::string> want = comparable_records(a), got = comparable_records(b);
  CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
  check_seq_unique_and_complete(b);
  check_end_counts(b);
}

}  // namespace

TEST_CASE("layer: the loader layer's trace is preload mode's, record for record") {
  for (const char* scenario : {"basic", "transfers", "markers", "ids"}) {
    CAPTURE(scenario);
    check_same_as_preload(scenario, Mode::Layer);
  }
}

TEST_CASE("layer: loaded both ways at once, each call is recorded once") {
  for (const char* scenario : {"basic", "markers"}) {
    CAPTURE(scenario);
    check_same_as_preload(scenario, Mode::Both);
  }
  // Many threads: 4000 launches, each once.
  for (Mode mode : {Mode::Layer, Mode::Both}) {
    TempDir dir;
    const RunResult r = run_in_mode("threads", mode, dir);
    REQUIRE(r.exit_code == 0);
    CHECK(r.values.at("failures") == 0);
    Trace t;
    REQUIRE(load_trace(dir.file("x.json"), t));
    CHECK(t.of_type("launch").size() == 4000);
    check_seq_unique_and_complete(t);
  }
}

TEST_CASE("layer: the shim off (CLPROF_DISABLE, a bad setting) passes every call through") {
  TempDir bare_dir;
  const RunResult bare = run_app({"basic", false, "", {}}, bare_dir.path());
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"CLPROF_DISABLE", "1"},
        std::pair<std::string, std::string>{"CLPROF_FLUSH_INTERVAL_MS", "0"}}) {
    CAPTURE(name);
    TempDir dir;
    const RunResult r = run_in_mode("basic", Mode::Layer, dir, {{name, value}});
    CHECK(r.exit_code == bare.exit_code);
    CHECK(stable_output(r.out) == stable_output(bare.out));
    CHECK_FALSE(file_exists(dir.file("x.json")));
    const bool warned = r.err.find("clprof: CLPROF_FLUSH_INTERVAL_MS=\"0\" is not 1 to") == 0;
    CHECK_MESSAGE(warned == (name != "CLPROF_DISABLE"), "stderr: ", r.err);
  }
}

// The loader layer points the app's close and dup2 at the shim's (entry/plt_redirect.hpp):
// the app's file gets no trace line, the trace ends where the app closed it, as preloaded
// (errors_test.cpp).
TEST_CASE("layer: an app that closes the trace's descriptor keeps its own file to itself") {
  TempDir dir;
  const std::string app_file = dir.file("app.txt");
  const RunResult r =
      run_in_mode("close_fds", Mode::Layer, dir, {{"SHIM_TEST_APP_FILE", app_file}});
  INFO("the app's stderr: ", r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.values.at("after_close") == 1);
  CHECK(r.values.at("fd_512_open") == 0);
  CHECK(read_file(app_file) == "the app's own data\n");
  CHECK(count_of(r.err, "closed the trace file") == 1);
  const std::string text = read_file(dir.file("x.json"));
  CHECK(text.find("{\"format\":\"clprof-trace\"") == 0);
  CHECK(text.find("\"type\":\"end\"") == std::string::npos);
}
