// End-to-end tests of libclprof.so on the fake driver. The ways a process ends leave a complete
// trace: return from main, exit(), std::exit, OpenCL from atexit handlers, a sanitizer runtime's
// early dlsym, kill -9 mid-run.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// Bytes of disk blocks allocated to `path` beyond its size rounded up to 4 KiB (the shim
// reserves blocks past the end of its trace while it writes).
long long blocks_past_end(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  const long long used = (static_cast<long long>(st.st_size) + 4095) / 4096 * 4096;
  return std::max(0LL, static_cast<long long>(st.st_blocks) * 512 - used);
}

}  // namespace

TEST_CASE("exit: return from main, exit() and std::exit all leave a complete trace") {
  struct Case {
    const char* scenario;
    int code;
  };
  for (const Case c : {Case{"exit_return", 0}, Case{"exit_exit", 3}, Case{"exit_std_exit", 4}}) {
    CAPTURE(c.scenario);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const RunResult shim = run_app({c.scenario, true, out, {}}, dir.path());
    CHECK(shim.exit_code == c.code);
    Trace t;
    REQUIRE(load_trace(out, t));
    CHECK(t.of_type("launch").size() == 1);
    CHECK(t.of_type("sync").size() == 1);
    check_end_counts(t);
    // The blocks reserved ahead of the writes (1 MiB at first) are given back.
    CHECK(blocks_past_end(out) == 0);
  }
}

TEST_CASE("exit: OpenCL called from an atexit handler is recorded, the trace whole") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"atexit", true, out, {}}, dir.path());
  CHECK(shim.exit_code == 0);
  CHECK(shim.values.at("atexit_done") == 1);
  Trace t;
  REQUIRE(load_trace(out, t));
  // The handler runs before clprof's own exit handler (registered at load, before the app
  // registered its own, so run after it): its launch is recorded (docs/trace-format.md,
  // "How the shim works").
  std::multiset<long long> gws;
  for (const Value* l : t.of_type("launch")) gws.insert(nums(*l, "gws")[0]);
  CHECK(gws == std::multiset<long long>{76, 77});
  check_end_counts(t);
}

TEST_CASE("exit: dlsym(RTLD_NEXT) from .preinit_array, as sanitizer runtimes do, works") {
  const TracedRun run("exit_return", {{"SHIM_TEST_EARLY_DLSYM", "1"}});
  const RunResult& shim = run.app;
  CHECK(shim.values.at("early_dlsym") == 1);
  const Trace& t = run.trace;
  CHECK(t.of_type("launch").size() == 1);
}

TEST_CASE("exit: kill -9 mid-run leaves complete record lines, cut only at a page boundary") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const pid_t pid =
      spawn_app({"forever", true, out, {{"CLPROF_FLUSH_INTERVAL_MS", "5"}}}, dir.path());
  // Wait (bounded) until a good number of records reached the file, then kill.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::size_t lines = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::string text = read_file(out);
    lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    if (lines >= 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const long long reserved = blocks_past_end(out);
  kill(pid, SIGKILL);
  const RunResult r = wait_app(pid, dir.path());
  // Blocks reserved ahead of the writes stay past the end after a kill: at most 16 MiB.
  CHECK(reserved >= 0);
  CHECK(reserved <= 16 << 20);
  if (reserved == 0) MESSAGE("no blocks reserved ahead (file system without fallocate?)");
  CHECK(r.exit_code == 128 + SIGKILL);
  REQUIRE_MESSAGE(lines >= 200, "the trace did not grow while the app ran");
  std::string text = read_file(out);
  REQUIRE(!text.empty());
  if (text.back() != '\n') {
    // Killed while the background thread was inside write(2): the kernel checks for a fatal
    // signal before each page (or large folio) it copies, so the write stops at a page
    // boundary of the file, and only there; the last line is then cut (readers drop it).
    CHECK_MESSAGE(text.size() % 4096 == 0, "a partial last line, not at a page boundary");
    const std::size_t last = text.rfind('\n');
    REQUIRE(last != std::string::npos);
    CHECK(text[last + 1] == '{');
    text.resize(last + 1);
    MESSAGE("killed inside a write: the last line was cut at a page boundary");
  }
  std::istringstream in(text);
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK(line.rfind("{\"format\":\"clprof-trace\"", 0) == 0);
  const std::string opener = "\"records\":[";
  REQUIRE(line.size() >= opener.size());
  CHECK(line.substr(line.size() - opener.size()) == opener);
  std::size_t n = 0, launches = 0;
  while (std::getline(in, line)) {
    ++n;
    rapidjson::Document d;
    rapidjson::StringStream ss(line.c_str());
    d.ParseStream<rapidjson::kParseStopWhenDoneFlag>(ss);
    REQUIRE_MESSAGE(!d.HasParseError(), "line ", n, " does not parse: ", line);
    REQUIRE(d.IsObject());
    // (Trailing spaces: the padding before an aligned write, docs/trace-format.md.)
    const std::string after = line.substr(ss.Tell());
    const bool comma_then_spaces =
        !after.empty() && after[0] == ',' && after.find_first_not_of(' ', 1) == std::string::npos;
    CHECK_MESSAGE(comma_then_spaces, "line ", n, " is not `{...},`: ", line);
    CHECK(std::string(d["type"].GetString()) != "end");
    launches += std::string(d["type"].GetString()) == "launch";
  }
  CHECK(n + 1 >= lines);
  CHECK(launches > 0);
}
