// End-to-end tests of libclprof.so on the fake driver. Injected failures: enqueues and
// profiling or status queries that fail, events that never complete, an output that fills
// up. The app sees exactly what it sees without the shim; every launch is recorded once.
#include <doctest/doctest.h>
#include <fcntl.h>

#include <rapidjson/document.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>

#include <map>
#include <string>
#include <thread>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// Runs launch_and_count under the shim and bare with `env`; the app's output must match.
struct CountedRun {
  TempDir dir;
  RunResult shim, bare;
  Trace trace;
  // `same_output`: false where the injection counts the shim's own calls with the app's
  // (every K-th call of an entry point both use), so the app's calls fail at other places.
  explicit CountedRun(const EnvChanges& env, bool same_output = true) {
    shim = run_app({"launch_and_count", true, dir.file("x.json"), env}, dir.path());
    TempDir bare_dir;
    bare = run_app({"launch_and_count", false, "", env}, bare_dir.path());
    REQUIRE_MESSAGE(shim.exit_code == 0, shim.err);
    CHECK(bare.exit_code == 0);
    if (same_output) CHECK(stable_output(shim.out) == stable_output(bare.out));
    CHECK_MESSAGE(shim.err == bare.err, shim.err);
    REQUIRE(load_trace(dir.file("x.json"), trace));
    check_seq_unique_and_complete(trace);
    check_end_counts(trace);
  }
  // Launch records by status.
  std::map<std::string, long long> statuses() const {
    std::map<std::string, long long> n;
    for (const Value* l : trace.of_type("launch")) ++n[str(*l, "status")];
    return n;
  }
};

}  // namespace

TEST_CASE("failures: every third enqueue fails: each launch recorded once, with the app's code") {
  const CountedRun r({{"FAKE_CL_FAIL", std::string("clEnqueueNDRangeKernel:%3:-5")}});
  CHECK(app_value(r.shim, "launch_ok") == 2000);
  CHECK(app_value(r.shim, "launch_failed") == 1000);
  CHECK(r.statuses() ==
        std::map<std::string, long long>{{"complete", 2000}, {"not_enqueued", 1000}});
  long long rc5 = 0;
  for (const Value* l : r.trace.of_type("launch")) rc5 += num(*l, "rc") == -5;
  CHECK(rc5 == 1000);
}

TEST_CASE(
    "failures: every profiling query fails: each launch recorded once, without device times") {
  const CountedRun r({{"FAKE_CL_FAIL", std::string("clGetEventProfilingInfo:*:-7")}});
  CHECK(app_value(r.shim, "profiling_ok") == 0);
  CHECK(r.statuses() == std::map<std::string, long long>{{"complete", 3000}});
  for (const Value* l : r.trace.of_type("launch")) {
    REQUIRE(is_null(*l, "device_ns"));
  }
}

TEST_CASE("failures: every other profiling and status query fails: each launch recorded once") {
  const CountedRun r(
      {{"FAKE_CL_FAIL", std::string("clGetEventProfilingInfo:%2:-5,clGetEventInfo:%2:-5")}},
      /*same_output=*/false);
  CHECK(app_value(r.shim, "launch_ok") == 3000);
  CHECK(app_value(r.shim, "reads_ok") == 30);
  long long total = 0;
  for (const auto& [status, n] : r.statuses()) total += n;
  CHECK(total == 3000);
}

TEST_CASE("failures: events that never complete, then _exit: written incomplete without waiting") {
  // CLPROF_EXIT_WAIT_MS would make an ordinary exit wait 100 s for them; an abrupt ending
  // waits for none (a hang here fails the case by the ctest timeout).
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult r = run_app({"end",
                               true,
                               out,
                               {{"FAKE_CL_EVENT_MODE", std::string("never")},
                                {"CLPROF_EXIT_WAIT_MS", std::string("100000")}},
                               "_exit"},
                              dir.path());
  CHECK(r.exit_code == 5);
  Trace t;
  REQUIRE(load_trace(out, t));
  long long incomplete = 0;
  for (const Value* l : t.of_type("launch")) incomplete += str(*l, "status") == "incomplete";
  CHECK(incomplete == 3000);
  CHECK(num(*t.records.back(), "incomplete") == 3000);
  check_end_counts(t);
}

TEST_CASE("failures: the file size limit is reached mid-run: one warning, the app runs on") {
  // RLIMIT_FSIZE, as a disk filling up: past it the kernel would end the writer with SIGXFSZ.
  for (const char* ending : {"return", "abort"}) {
    CAPTURE(ending);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const EnvChanges env{{"SHIM_TEST_FSIZE_LIMIT", std::string("65536")}};
    const RunResult shim = run_app({"end", true, out, env, ending}, dir.path());
    TempDir bare_dir;
    const RunResult bare = run_app({"end", false, "", env, ending}, bare_dir.path());
    CHECK(shim.exit_code == bare.exit_code);
    CHECK(stable_output(shim.out) == stable_output(bare.out));
    // One warning, and nothing else from the shim.
    const std::string warning = "clprof: cannot write the trace file (File too large)";
    CHECK_MESSAGE(shim.err.rfind(warning, 0) == 0, shim.err);
    CHECK_MESSAGE(shim.err.find('\n') == shim.err.size() - 1, shim.err);
    // The file: whole records up to the limit, then nothing.
    const std::string text = read_file(out);
    CHECK(text.size() <= 65536);
    CHECK(text.back() == '\n');
    Trace t;
    REQUIRE(load_partial_trace(out, t));
    CHECK(t.of_type("launch").size() > 100);
    CHECK(t.of_type("end").empty());
  }
}

TEST_CASE("failures: an output that is always full: one warning, the app runs untouched") {
  TempDir dir;
  const RunResult shim = run_app({"end", true, "/dev/full", {}, "return"}, dir.path());
  CHECK(shim.exit_code == 0);
  CHECK(app_value(shim, "launched") == 3000);
  CHECK(shim.err == "clprof: cannot write /dev/full: No space left on device; running untouched\n");
}

TEST_CASE("failures: the reader of a FIFO output goes away mid-run: one warning, the app runs on") {
  TempDir dir;
  const std::string fifo = dir.file("trace.fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Reads the header and a few records, then closes: later writes get EPIPE (and SIGPIPE,
  // which must not reach the app).
  // The read end is open before the app starts: the shim opens the FIFO with O_NONBLOCK
  // (a FIFO nobody reads fails instead of blocking the app), and since the trace starts at
  // the app's first OpenCL call (clGetPlatformIDs) a reader thread that opened later lost
  // the race now and then: the shim wrote no trace and the reader waited for a writer
  // forever (the case's timeout under load).
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // not the app's
  REQUIRE(fd >= 0);
  REQUIRE(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0);
  std::thread reader([fd] {
    char buf[4096];
    // Until the shim opens its end, a read finds no writer and returns 0 at once: wait for
    // the first bytes (60 s at most), then read until 20000 bytes or the end.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (std::size_t got = 0; got < 20000;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n == 0 && got == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    close(fd);
  });
  const RunResult shim = run_app({"launch_and_count", true, fifo, {}}, dir.path());
  reader.join();
  CHECK(shim.exit_code == 0);
  CHECK(app_value(shim, "launch_ok") == 3000);
  CHECK(shim.err ==
        "clprof: cannot write the trace file (Broken pipe); the trace stops at its last whole "
        "record, the program runs on\n");
}
