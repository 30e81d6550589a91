// End-to-end tests of libclprof.so on the fake driver. The CLPROF_* settings as a user sets them:
// disabled, unwritable output, no background thread, captured sources and %p, bad values.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_source.hpp"
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("settings: CLPROF_DISABLE=1 writes nothing and changes nothing") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"basic", true, out, {{"CLPROF_DISABLE", "1"}}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK(shim.err == bare.err);
  CHECK(!file_exists(out));
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt"});
}

TEST_CASE("settings: an unwritable output path gives one warning and changes nothing") {
  TempDir dir;
  {
    std::ofstream blocker(dir.file("afile"));
    blocker << "not a directory\n";
  }
  const std::string out = dir.file("afile") + "/x.json";
  const RunResult shim = run_app({"basic", true, out, {}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  std::istringstream err(shim.err);
  std::string line;
  int mentions = 0;
  while (std::getline(err, line)) mentions += line.find(out) != std::string::npos;
  CHECK_MESSAGE(mentions == 1, "stderr: ", shim.err);
}

TEST_CASE("settings: a background thread that cannot start: one warning, no trace, app untouched") {
  if (!std::string(CLPROF_TEST_PRELOAD_FIRST).empty()) {
    // The sanitizer runtime preloaded first intercepts pthread_create itself: the call
    // would not come from libclprof.so as no_thread_start.cpp sees it.
    MESSAGE("skipped in a sanitizer build of the shim");
    return;
  }
  TempDir dir;
  const std::string out = dir.file("x.json");
  const std::string preload =
      std::string(CLPROF_TEST_NO_THREAD_START_LIB) + ":" + CLPROF_TEST_SHIM_LIB;
  const RunResult shim = run_app({"basic", true, out, {{"LD_PRELOAD", preload}}}, dir.path());
  const RunResult bare = run_app({"basic", false, "", {}}, dir.path());
  // The same library without the shim changes nothing (the failure is only for the shim).
  const RunResult interposer_only =
      run_app({"basic", false, "", {{"LD_PRELOAD", std::string(CLPROF_TEST_NO_THREAD_START_LIB)}}},
              dir.path());
  CHECK(interposer_only.exit_code == bare.exit_code);
  CHECK(stable_output(interposer_only.out) == stable_output(bare.out));
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK_FALSE(file_exists(out));  // a header alone would read as a trace cut short
  std::istringstream err(shim.err);
  std::string line;
  int warnings = 0;
  while (std::getline(err, line)) warnings += line.find("clprof") != std::string::npos;
  CHECK_MESSAGE(warnings == 1, "stderr: ", shim.err);
  CHECK_MESSAGE(shim.err.find("cannot start the background thread (Resource temporarily "
                              "unavailable); running untouched") != std::string::npos,
                "stderr: ", shim.err);
}

TEST_CASE("settings: CLPROF_CAPTURE_SOURCE=1 and %p in CLPROF_OUTPUT") {
  TempDir dir;
  const RunResult shim = run_app(
      {"exit_return", true, dir.file("run-%p.json"), {{"CLPROF_CAPTURE_SOURCE", "1"}}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  Trace t;
  REQUIRE(load_trace(dir.file("run-" + std::to_string(shim.pid) + ".json"), t));
  const auto programs = t.of_type("program");
  REQUIRE(programs.size() == 1);
  CHECK(str(*programs[0], "source") == kSource);
  CHECK(str(*programs[0], "source_hash") == fnv1a64(kSource));
  CHECK(str(member(t.header(), "settings"), "CLPROF_CAPTURE_SOURCE") == "1");
}

TEST_CASE("settings: a bad value gives a warning and the default") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim =
      run_app({"exit_return", true, out, {{"CLPROF_POLL_INTERVAL_US", "fast"}}}, dir.path());
  CHECK(shim.exit_code == 0);
  std::istringstream err(shim.err);
  std::string line;
  int mentions = 0;
  while (std::getline(err, line))
    mentions += line.find("CLPROF_POLL_INTERVAL_US") != std::string::npos;
  CHECK_MESSAGE(mentions == 1, "stderr: ", shim.err);
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(str(member(t.header(), "settings"), "CLPROF_POLL_INTERVAL_US") == "1000");
}
