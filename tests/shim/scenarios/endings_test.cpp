// End-to-end tests of libclprof.so on the fake driver. Abrupt endings right after the app
// waited for its work: what completed before the ending is in the trace, and the process
// ends as it would without the shim.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <sched.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// Launch records of the 3,000 launches every ending scenario waits for (gws 64), each
// complete with the fake driver's device times.
long long completed_main_launches(const Trace& t) {
  long long n = 0;
  for (const Value* l : t.of_type("launch")) {
    if (nums(*l, "gws")[0] != 64) continue;
    CHECK(str(*l, "status") == "complete");
    CHECK(nums(*l, "device_ns").size() == 4);
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("endings: what the app waited for reaches the file at its sync point, before any flush") {
  // A flush interval of 10 minutes: only the harvest at clFinish or at the blocking read can
  // write the last launches (the writer writes by itself only each 1 MiB, ~2,800 launches).
  for (const char* wait : {"finish", "read"}) {
    CAPTURE(wait);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const RunResult r = run_app(
        {"sync_then_kill", true, out, {{"CLPROF_FLUSH_INTERVAL_MS", "600000"}}, wait}, dir.path());
    CHECK(r.exit_code == 128 + SIGKILL);
    CHECK(app_value(r, "seen_in_file") == 3000);
    Trace t;
    REQUIRE(load_partial_trace(out, t));
    CHECK(completed_main_launches(t) == 3000);
  }
}

TEST_CASE("endings: a killed app's .zst trace reads up to its last write") {
  if (std::system("zstd --version >/dev/null 2>&1") != 0)
    CLPROF_SKIP("no zstd command (Debian's zstd) to decompress the trace");
  TempDir dir;
  const std::string out = dir.file("x.json.zst");
  const RunResult r = run_app({"finish_sleep_kill", true, out, {}}, dir.path());
  CHECK(r.exit_code == 128 + SIGKILL);
  // Its last frame is unfinished (a frame ends every 8 MiB of trace or at the end), but
  // each write ended a block: zstd decodes every block written (and then says the frame
  // is cut, exit status 1).
  const std::string plain = dir.file("x.json");
  CHECK(std::system(("zstd -q -d -c " + out + " > " + plain + " 2>/dev/null").c_str()) != 0);
  Trace t;
  REQUIRE(load_partial_trace(plain, t));
  CHECK(t.of_type("end").empty());            // killed: no end record
  CHECK(completed_main_launches(t) == 3000);  // all of kLaunches, waited for by clFinish
}

// The zstd blocks of a .zst trace (RFC 8878): its skippable frames skipped, every block of
// every frame counted; -1 when the bytes are not frames.
std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

long long zstd_blocks(const std::string& z) {
  size_t at = 0;
  long long blocks = 0;
  auto le = [&](size_t pos, int n) {
    unsigned long long v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(z[pos + i]);
    return v;
  };
  while (at + 8 <= z.size()) {
    const unsigned long long magic = le(at, 4);
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // skippable: magic, 4-byte size, content
      at += 8 + le(at + 4, 4);
      continue;
    }
    if (magic != 0xFD2FB528u) return -1;
    const unsigned fhd = static_cast<unsigned char>(z[at + 4]);
    const bool single = fhd >> 5 & 1;
    const int dict[] = {0, 1, 2, 4}, fcs[] = {single ? 1 : 0, 2, 4, 8};
    at += 5 + (single ? 0 : 1) + dict[fhd & 3] + fcs[fhd >> 6];
    for (bool last = false; !last && at + 3 <= z.size();) {
      const unsigned long long head = le(at, 3);  // last bit, type (2 bits), size (21)
      last = head & 1;
      const unsigned type = head >> 1 & 3;
      at += 3 + (type == 1 ? 1 : head >> 3);  // an RLE block holds one byte
      ++blocks;
    }
    if (fhd >> 2 & 1) at += 4;  // content checksum
  }
  return blocks;
}

TEST_CASE("endings: a .zst trace is not written at every sync point") {
  if (std::system("zstd --version >/dev/null 2>&1") != 0)
    CLPROF_SKIP("no zstd command (Debian's zstd) to decompress the trace");
  // 2,000 launch + clFinish + 50 us sleep: a plain trace is written within 1 ms of a sync
  // point, about once per millisecond of the loop. Every write of a .zst trace ends a zstd
  // block (~40 bytes each), so its records wait for the flush timer (1 s here) or a full
  // 1 MiB buffer instead. The writes are then the header line's, a timer's per second of
  // the loop, a full buffer's per MiB and the ending's; a write of n bytes makes at most
  // n / 128 KiB + 1 blocks (zstd's largest block): blocks <= plain / 128 KiB + 1 + writes.
  TempDir dir;
  const std::string out = dir.file("x.json.zst");
  const RunResult r =
      run_app({"wait_loop", true, out, {{"CLPROF_FLUSH_INTERVAL_MS", "1000"}}, "2000"}, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string plain = dir.file("x.json");
  REQUIRE(std::system(("zstd -q -d -f " + out + " -o " + plain).c_str()) == 0);
  const long long plain_bytes = static_cast<long long>(slurp(plain).size());
  const long long loop_ms = app_value(r, "loop_us") / 1000;
  // The timer's writes: one per second of the run (the loop and up to a second around it).
  const long long writes = 1 + (loop_ms / 1000 + 2) + (plain_bytes >> 20) + 1;
  const long long bound = (plain_bytes >> 17) + 1 + writes;  // measured: 8 (main's shim: 241)
  const long long blocks = zstd_blocks(slurp(out));
  CAPTURE(plain_bytes);
  CAPTURE(loop_ms);
  CAPTURE(bound);
  CHECK(blocks >= 1);
  CHECK(blocks <= bound);  // a write per millisecond of the loop would be far more
  Trace t;
  REQUIRE(load_trace(plain, t));
  CHECK(t.of_type("launch").size() == 2001);  // the first launch and the loop's 2,000
}

TEST_CASE("endings: a launch + clFinish loop does not wake the harvester at every wait") {
  // A wake per clFinish made the harvester run a round per wait in this loop (clpeak's
  // --kernel-latency), on the core the driver needs next. A sync point wakes it only when
  // it began no round for 1 ms, and its own sleeps last 2 ms at the least: at most about one round
  // per millisecond of the loop (plus a nudge per half ring), whatever the number of
  // waits in it. Rounds are counted as the harvester's voluntary context switches.
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult r = run_app({"wait_loop", true, out, {}, "2000"}, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const long long loop_ms = app_value(r, "loop_us") / 1000;
  const long long rounds = app_value(r, "harvester_rounds");
  CAPTURE(loop_ms);
  CAPTURE(rounds);
  REQUIRE(rounds >= 0);
  const long long most = loop_ms + 50;
  if (most >= 2000 / 2) {
    CLPROF_SKIP_PART("the loop ran too slowly here (", loop_ms, " ms) to tell the rounds");
  } else {
    CHECK(rounds <= most);
  }
  // CLPROF_HARVESTER_BATCH's default: its wake-ups do not preempt the app's threads.
  CHECK(app_value(r, "harvester_policy") == SCHED_BATCH);
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(t.of_type("launch").size() == 2001);
  CHECK(t.of_type("sync").size() == 2001);
  check_end_counts(t);
}

TEST_CASE("endings: CLPROF_HARVESTER_BATCH=0 leaves the harvester the app's scheduling") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult r =
      run_app({"wait_loop", true, out, {{"CLPROF_HARVESTER_BATCH", "0"}}, "20"}, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(app_value(r, "harvester_policy") == SCHED_OTHER);
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(t.of_type("launch").size() == 21);
  check_end_counts(t);
}

namespace {

// ASan and TSan (sanitizer builds preload their runtime ahead of the shim) report SIGSEGV,
// SIGBUS and SIGFPE themselves and exit: nothing there to compare with a bare run.
bool sanitizer_takes(const std::string& ending) {
  if (std::string(CLPROF_TEST_PRELOAD_FIRST).empty()) return false;
  if (ending != "segv" && ending != "raise_segv" && ending != "bus" && ending != "fpe")
    return false;
  CLPROF_SKIP_PART("the sanitizer runtime handles this signal itself: ", ending);
  return true;
}

bool has_core_file(const std::string& dir) {
  for (const std::string& name : list_dir(dir))
    if (name.rfind("core", 0) == 0) return true;
  return false;
}

// One scenario run bare and under the shim, each in a directory of its own (where a core
// dump lands), and the shim's trace.
struct Ending {
  TempDir bare_dir, shim_dir;
  RunResult bare, shim;
  Trace trace;
  bool trace_ok = false;

  // `layer`: the shim as an OpenCL loader layer (OPENCL_LAYERS) instead of LD_PRELOAD.
  Ending(const std::string& scenario, const std::string& arg, EnvChanges env = {},
         bool layer = false) {
    env["SHIM_TEST_CORE_DIR"] = bare_dir.path();
    bare = run_app({scenario, false, "", env, arg}, bare_dir.path());
    env["SHIM_TEST_CORE_DIR"] = shim_dir.path();
    if (layer) {
      env["OPENCL_LAYERS"] = CLPROF_TEST_SHIM_LIB;
      // A sanitizer build's runtime still comes first in the process.
      const std::string first = CLPROF_TEST_PRELOAD_FIRST;
      if (!first.empty()) env["LD_PRELOAD"] = first;
    }
    const std::string out = shim_dir.file("x.json");
    shim = run_app({scenario, !layer, out, env, arg}, shim_dir.path());
    trace_ok = load_trace(out, trace);
  }
  // The app's view: exit status, signal and core dump, its output.
  void check_same_ending() const {
    CHECK(shim.exit_code == bare.exit_code);
    CHECK(shim.core_dumped == bare.core_dumped);
    CHECK(has_core_file(shim_dir.path()) == has_core_file(bare_dir.path()));
    CHECK(stable_output(shim.out) == stable_output(bare.out));
    CHECK_MESSAGE(shim.err == bare.err, shim.err);
  }
  // The warning record an ending by a signal leaves, if any ("" when none).
  std::string signal_warning() const {
    std::string found;
    for (const Value* w : trace.of_type("warning")) {
      const std::string m = str(*w, "message");
      if (m.find("ended by signal") != std::string::npos) found = m;
    }
    return found;
  }
};

}  // namespace

TEST_CASE("endings: _exit, _Exit and quick_exit right after clFinish keep every launch") {
  struct Case {
    const char* how;
    int code;
  };
  for (const Case c :
       {Case{"_exit", 5}, Case{"_Exit", 6}, Case{"quick_exit", 7}, Case{"exit", 8}}) {
    CAPTURE(c.how);
    const Ending e("end", c.how);
    e.check_same_ending();
    CHECK(e.shim.exit_code == c.code);
    REQUIRE(e.trace_ok);
    CHECK(completed_main_launches(e.trace) == 3000);
    CHECK(e.signal_warning().empty());
    check_seq_unique_and_complete(e.trace);
    check_end_counts(e.trace);
  }
}

TEST_CASE(
    "endings: a last round that outlasts the wait: one warning, the file cut after a record") {
  // Each profiling query spins 300 ms: the last round's 5 records take ~6 s, the ending
  // waits max(CLPROF_EXIT_WAIT_MS, 500 ms). The control, without the delay, ends whole.
  const char* const stuck = "did not end the trace within 500 ms";
  for (const bool slow : {true, false}) {
    CAPTURE(slow);
    TempDir dir;
    const std::string out = dir.file("x.json");
    EnvChanges env{{"CLPROF_EXIT_WAIT_MS", "0"}};
    if (slow) env["FAKE_CL_QUERY_DELAY_US"] = "300000";
    const RunResult r = run_app({"end_early", true, out, env, "_exit"}, dir.path());
    CHECK(r.exit_code == 5);
    CHECK((r.err.find(stuck) != std::string::npos) == slow);
    CHECK(is_whole_trace(slurp(out)) == !slow);
    Trace t;
    REQUIRE(load_partial_trace(out, t));
    CHECK(t.of_type("end").size() == (slow ? 0u : 1u));
    if (!slow) CHECK(t.of_type("launch").size() == 5);
  }
}

namespace {

struct FatalEnding {
  const char* how;
  int sig;
};

// 3,000 launches, clFinish, then the fatal signal of each of `endings`.
void check_fatal_signals(std::initializer_list<FatalEnding> endings) {
  for (const FatalEnding c : endings) {
    CAPTURE(c.how);
    if (sanitizer_takes(c.how)) continue;
    const Ending e("end", c.how);
    e.check_same_ending();
    CHECK(e.shim.exit_code == 128 + c.sig);
    REQUIRE(e.trace_ok);
    CHECK(completed_main_launches(e.trace) == 3000);
    CHECK(e.signal_warning().find("signal " + std::to_string(c.sig) + " ") != std::string::npos);
    check_seq_unique_and_complete(e.trace);
    check_end_counts(e.trace);
  }
}

}  // namespace

TEST_CASE("endings: a fatal signal right after clFinish keeps every launch; same signal and core") {
  check_fatal_signals({{"abort", SIGABRT}, {"ill", SIGILL}});
}

// The signals a sanitizer runtime takes (sanitizer_takes): a case of their own, skipped in
// sanitizer builds (ctest shim.endings.sanitizer_signals).
TEST_CASE(
    "endings: SIGSEGV, SIGBUS, SIGFPE right after clFinish keep every launch; same signal and "
    "core") {
  check_fatal_signals(
      {{"segv", SIGSEGV}, {"raise_segv", SIGSEGV}, {"bus", SIGBUS}, {"fpe", SIGFPE}});
}

TEST_CASE("endings: blocking reads are sync points too: abort() after them keeps every launch") {
  const Ending e("end_after_read", "abort");
  e.check_same_ending();
  REQUIRE(e.trace_ok);
  CHECK(completed_main_launches(e.trace) == 3000);
  CHECK(e.trace.of_type("transfer").size() == 30);
}

TEST_CASE("endings: SIGTERM, SIGINT, SIGHUP, SIGQUIT from outside keep every launch") {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) {
    CAPTURE(sig);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const pid_t pid = spawn_app({"end_by_signal", true, out, {}}, dir.path());
    // Bounded: until the app says it waited for its launches.
    for (int i = 0; i < 2000 && slurp(dir.file("stdout.txt")).find("launched") == std::string::npos;
         ++i)
      usleep(10000);
    kill(pid, sig);
    const RunResult r = wait_app(pid, dir.path());
    CHECK(r.exit_code == 128 + sig);
    CHECK(app_value(r, "launched") == 3000);
    Trace t;
    REQUIRE(load_trace(out, t));
    CHECK(completed_main_launches(t) == 3000);
    check_end_counts(t);
  }
}

namespace {

// The app's own handler of the signal `how` raises ("segv" or "abort"), each way it ends.
void check_app_handlers(const std::string& how) {
  if (sanitizer_takes(how)) return;
  // In layer mode too: the layer points the app's sigaction and signal calls at the shim's
  // (entry/plt_redirect.hpp); without that, a handler installed after the shim's replaced
  // it, and a re-raise kept 0 of 3,000 launches. (One installed before the layer is loaded
  // takes preload mode's path: not repeated, to keep the sanitizer stages in CI's budget.)
  for (const bool layer : {false, true}) {
    for (const char* when : {"before", "after"}) {
      if (layer && std::string(when) == "before") continue;
      for (const char* action : {"longjmp", "reraise", "exit", "abort", "oneshot"}) {
        CAPTURE(layer);
        CAPTURE(when);
        CAPTURE(action);
        CAPTURE(how);
        if (how == "abort" && std::string(action) == "abort") continue;
        const Ending e("app_handler", how,
                       {{"SHIM_TEST_HANDLER", action}, {"SHIM_TEST_HANDLER_WHEN", when}}, layer);
        e.check_same_ending();
        CHECK(app_value(e.shim, "handler_reported") == 1);
        CHECK(e.shim.out.find("app_handler") != std::string::npos);
        REQUIRE(e.trace_ok);
        CHECK(completed_main_launches(e.trace) == 3000);
        check_end_counts(e.trace);
        const std::string action_s = action;
        if (action_s == "longjmp") {
          // Recovered: the trace goes on to the normal end, no signal warning.
          CHECK(e.shim.exit_code == 0);
          long long after = 0;
          for (const Value* l : e.trace.of_type("launch")) after += nums(*l, "gws")[0] == 65;
          CHECK(after == 10);
          CHECK(e.signal_warning().empty());
        } else if (action_s == "exit") {
          CHECK(e.shim.exit_code == 42);
          CHECK(e.signal_warning().empty());
        } else {
          // Ended by the signal's default action (re-raised, the handler reset, or abort()).
          const int sig = action_s == "abort" ? SIGABRT : (how == "abort" ? SIGABRT : SIGSEGV);
          CHECK(e.shim.exit_code == 128 + sig);
          CHECK(e.signal_warning().find("signal " + std::to_string(sig) + " ") !=
                std::string::npos);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE(
    "endings: the app's own handler, installed before or after the shim's, runs as without it") {
  check_app_handlers("abort");
}

TEST_CASE(
    "endings: the app's own handler of a SIGSEGV, installed before or after the shim's, runs as "
    "without it") {
  check_app_handlers("segv");
}

namespace {

// A crash by `how` ("segv" or "abort") while other threads enqueue.
void check_crash_while_busy(const std::string& how) {
  CAPTURE(how);
  if (sanitizer_takes(how)) return;
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult r = run_app({"crash_while_busy", true, out, {}, how}, dir.path());
  CHECK(r.exit_code == 128 + (how == "segv" ? SIGSEGV : SIGABRT));
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(completed_main_launches(t) == 3000);
  check_seq_unique_and_complete(t);
  check_end_counts(t);
}

}  // namespace

TEST_CASE(
    "endings: a crash while other threads enqueue keeps every launch the crashing thread waited "
    "for") {
  check_crash_while_busy("abort");
}

TEST_CASE(
    "endings: a crash by a SIGSEGV while other threads enqueue keeps every launch the crashing "
    "thread waited for") {
  check_crash_while_busy("segv");
}

// The SigIgn mask of a "SigIgn:\t<hex>" line without signals 32 and 33, glibc's own
// (SIGCANCEL, SIGSETXID: no app can set them; a ThreadSanitizer runtime in the app changes
// 33's disposition on its own, with or without the shim).
static std::string without_glibc_signals(const std::string& out) {
  std::istringstream lines(out);
  std::string line, kept;
  while (std::getline(lines, line)) {
    if (line.rfind("SigIgn:", 0) == 0) {
      const unsigned long long mask =
          std::stoull(line.substr(line.find_first_not_of("SigIgn:\t ")), nullptr, 16);
      char text[32];
      std::snprintf(text, sizeof text, "SigIgn: %016llx", mask & ~(3ULL << 31));
      line = text;
    }
    kept += line + "\n";
  }
  return kept;
}

TEST_CASE("endings: an ignored SIGPIPE stays ignored, for the app and for what it starts") {
  for (const char* when : {"before", "after"}) {
    CAPTURE(when);
    TempDir dir;
    const RunResult shim =
        run_app({"sigpipe_ignored", true, dir.file("x.json"), {}, when}, dir.path());
    const RunResult bare = run_app({"sigpipe_ignored", false, "", {}, when}, dir.path());
    CHECK(shim.exit_code == 0);
    CHECK(app_value(shim, "epipe") == 1);
    CHECK(without_glibc_signals(stable_output(shim.out)) ==
          without_glibc_signals(stable_output(bare.out)));
  }
}

namespace {

// Loaded by the OpenCL loader (OPENCL_LAYERS) the shim interposes no symbol: its exit
// handlers (registered when the loader opens it) and its signal handlers (installed when
// the trace starts) still run, so these endings keep what completed, as in preload mode.
void check_layer_endings(std::initializer_list<const char*> endings) {
  for (const char* how : endings) {
    CAPTURE(how);
    if (sanitizer_takes(how)) continue;
    const Ending e("end", how, {}, /*layer=*/true);
    e.check_same_ending();
    REQUIRE(e.trace_ok);
    CHECK(completed_main_launches(e.trace) == 3000);
    check_seq_unique_and_complete(e.trace);
    check_end_counts(e.trace);
  }
}

}  // namespace

TEST_CASE("endings: in layer mode, exit, quick_exit, abort and SIGILL keep every launch") {
  check_layer_endings({"exit", "quick_exit", "abort", "ill"});
}

TEST_CASE("endings: in layer mode, a SIGSEGV keeps every launch") {
  check_layer_endings({"segv"});
}

TEST_CASE("endings: in layer mode, _exit and _Exit keep every launch") {
  // The layer interposes no symbol: it points the app's calls of _exit and _Exit at its
  // own (entry/plt_redirect.hpp) when the loader opens it, so these endings write the
  // trace first, as in preload mode.
  for (const char* how : {"_exit", "_Exit"}) {
    CAPTURE(how);
    const Ending e("end", how, {}, /*layer=*/true);
    e.check_same_ending();
    REQUIRE(e.trace_ok);
    CHECK(completed_main_launches(e.trace) == 3000);
    CHECK(e.signal_warning().empty());
    check_seq_unique_and_complete(e.trace);
    check_end_counts(e.trace);
  }
}
