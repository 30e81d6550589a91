// End-to-end tests of libclprof.so on the fake driver. New processes and program images: a fork
// child writes its own trace, fork waits for no lock the shim holds, every exec function finishes
// the trace first, vfork leaves it alone.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// ThreadSanitizer cannot follow threads started in a child forked from a threaded process
// (the shim's background thread): it kills the child. Not a shim defect: such cases are
// skipped in a ThreadSanitizer build (CLPROF_SKIP_PART: the caller returns).
bool fork_without_exec_unsupported() {
  if (std::string(CLPROF_TEST_PRELOAD_FIRST).find("tsan") == std::string::npos) return false;
  CLPROF_SKIP_PART("fork without exec is not supported by ThreadSanitizer");
  return true;
}

std::multiset<long long> launch_gws(const Trace& t) {
  std::multiset<long long> gws;
  for (const Value* l : t.of_type("launch")) gws.insert(nums(*l, "gws")[0]);
  return gws;
}

// fexecve of an O_CLOEXEC descriptor needs the execveat system call (glibc's fallback,
// exec of /proc/self/fd/N, loses the descriptor on the way). User-mode QEMU 7.2, which runs
// the aarch64 cross check (scripts/cross-aarch64.sh), does not implement it: ENOSYS. The
// probe's descriptor -1 makes it fail with EBADF wherever execveat exists, running nothing.
bool execveat_missing() {
  errno = 0;
  const long rc = syscall(SYS_execveat, -1, "", nullptr, nullptr, AT_EMPTY_PATH);
  return rc == -1 && errno == ENOSYS;
}

}  // namespace

TEST_CASE("exit: a fork child without exec writes its own trace, the parent's stays whole") {
  if (fork_without_exec_unsupported()) return;
  const TracedRun run("fork_no_exec");
  REQUIRE(run.app.values.at("child_exit") == 0);
  const long long child = run.app.values.at("child");
  CHECK(num(run.trace.header(), "pid") == run.app.pid);
  CHECK(launch_gws(run.trace) == std::multiset<long long>{20, 23});
  Trace kid;
  REQUIRE(load_trace(run.dir.file("x." + std::to_string(child) + ".json"), kid));
  CHECK(num(kid.header(), "pid") == child);
  CHECK(str(kid.header(), "session_id") == str(run.trace.header(), "session_id"));  // one run
  CHECK(launch_gws(kid) == std::multiset<long long>{21, 22});
}

TEST_CASE("exit: forks while the background thread is busy: every child and the parent whole") {
  if (fork_without_exec_unsupported()) return;
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"fork_busy", true, out, {}}, dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK(shim.values.at("forks_ok") == 20);
  Trace parent;
  REQUIRE(load_trace(out, parent));
  long long bursts = 0;
  for (const Value* l : parent.of_type("launch")) bursts += nums(*l, "gws")[0] == 30;
  CHECK(bursts == shim.values.at("burst_launches"));
  check_end_counts(parent);
  int children = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name == "x.json" || name.rfind("x.", 0) != 0 || name.size() < 7 ||
        name.substr(name.size() - 5) != ".json")
      continue;  // the parent's trace, the app's captured output
    CAPTURE(name);
    Trace kid;
    REQUIRE(load_trace(entry.path().string(), kid));
    ++children;
    const auto launches = kid.of_type("launch");
    REQUIRE(launches.size() == 1);
    CHECK(nums(*launches[0], "gws")[0] == 31);
    check_end_counts(kid);
  }
  CHECK(children == 20);
}

TEST_CASE("exit: fork while another thread keeps enqueuing finds the background thread parked") {
  if (fork_without_exec_unsupported()) return;
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"fork_while_enqueuing",
                                  true,
                                  out,
                                  {{"CLPROF_LOG_LEVEL", "debug"}, {"FAKE_CL_QUERY_DELAY_US", "2"}}},
                                 dir.path());
  REQUIRE(shim.exit_code == 0);
  CHECK(shim.values.at("forks_ok") == 10);
  // Logged when fork() gave up waiting for the background thread to park (docs/trace-format.md).
  CHECK_MESSAGE(shim.err.find("did not park") == std::string::npos, shim.err);
  Trace t;
  REQUIRE(load_trace(out, t));
  CHECK(static_cast<long long>(t.of_type("launch").size()) == shim.values.at("launches"));
  check_end_counts(t);
}

namespace {

// exec after OpenCL use, by `scenario` (exec_self_<exec function>), preloaded and as a layer.
void check_exec_after_opencl(const char* scenario) {
  // In layer mode too: the layer points the app's exec calls at the shim's
  // (entry/plt_redirect.hpp); without that the first image's trace had no end record.
  for (const bool layer : {false, true}) {
    CAPTURE(layer);
    CAPTURE(scenario);
    TempDir dir;
    const std::string out = dir.file("x.json");
    EnvChanges env;
    if (layer) {
      env["OPENCL_LAYERS"] = CLPROF_TEST_SHIM_LIB;
      const std::string first = CLPROF_TEST_PRELOAD_FIRST;  // a sanitizer build's runtime
      if (!first.empty()) env["LD_PRELOAD"] = first;
    }
    const RunResult r = run_app({scenario, !layer, out, env}, dir.path());
    REQUIRE(r.exit_code == 0);
    CHECK(r.values.count("exec_failed") == 0);
    CHECK(r.values.at("exec_target") == 1);
    Trace before;
    REQUIRE(load_trace(out, before));  // complete: it has its end record
    CHECK(num(before.header(), "pid") == r.pid);
    CHECK(launch_gws(before) == std::multiset<long long>{50, 50});
    check_end_counts(before);
    Trace after;
    REQUIRE(load_trace(dir.file("x.exec1.json"), after));
    CHECK(num(after.header(), "pid") == r.pid);
    CHECK(launch_gws(after) == std::multiset<long long>{51});
    check_end_counts(after);
  }
}

}  // namespace

TEST_CASE("exit: exec after OpenCL use finishes the trace; the new image writes NAME.exec1.EXT") {
  for (const char* scenario :
       {"exec_self_execl", "exec_self_execle", "exec_self_execlp", "exec_self_execv",
        "exec_self_execve", "exec_self_execvp", "exec_self_execvpe"})
    check_exec_after_opencl(scenario);
}

// A case of its own (ctest shim.exit.fexecve): skipped where execveat is missing.
TEST_CASE("exit: exec after OpenCL use with fexecve finishes the trace, as the other execs do") {
  if (execveat_missing())
    CLPROF_SKIP(
        "execveat is not implemented here (ENOSYS, e.g. user-mode QEMU), and fexecve needs it: "
        "exec_self_fexecve");
  check_exec_after_opencl("exec_self_fexecve");
}

TEST_CASE("exit: a vfork child's exec leaves the parent's trace recording") {
  const TracedRun run("vfork_exec");
  const RunResult& r = run.app;
  CHECK(r.values.at("child_exit") == 0);
  const Trace& t = run.trace;
  CHECK(launch_gws(t) == std::multiset<long long>{60, 61});
  check_end_counts(t);
}

TEST_CASE("exit: a child started with fork+exec writes its own NAME.<pid>.json") {
  const TracedRun run("spawn");
  REQUIRE(run.app.values.at("child_exit") == 0);
  const long long child = run.app.values.at("child");
  CHECK(num(run.trace.header(), "pid") == run.app.pid);
  CHECK(launch_gws(run.trace) == std::multiset<long long>{10});
  const std::string kid_file = "x." + std::to_string(child) + ".json";
  Trace kid;
  REQUIRE(load_trace(run.dir.file(kid_file), kid));
  CHECK(num(kid.header(), "pid") == child);
  CHECK(num(kid.header(), "ppid") == run.app.pid);
  CHECK(launch_gws(kid) == std::multiset<long long>{11, 12});
  std::vector<std::string> files = list_dir(run.dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt", kid_file, "x.json"});
}

TEST_CASE("exit: children that never use OpenCL leave no trace, whatever way they end") {
  if (fork_without_exec_unsupported()) return;
  TempDir dir;
  const RunResult shim =
      run_app({"children_without_opencl", true, dir.file("x.json"), {}}, dir.path());
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt", "x.json"});
  Trace t;
  REQUIRE(load_trace(dir.file("x.json"), t));
  CHECK(launch_gws(t) == std::multiset<long long>{70, 71});
  check_end_counts(t);
  TempDir bare_dir;
  const RunResult bare = run_app({"children_without_opencl", false, "", {}}, bare_dir.path());
  CHECK(shim.exit_code == bare.exit_code);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
  CHECK(app_value(shim, "child_abort") == 128 + SIGABRT);
  CHECK(app_value(shim, "child_spawn") == 0);
}

TEST_CASE("exit: forks in a tight loop while launches are harvested: no hang, every trace whole") {
  if (fork_without_exec_unsupported()) return;
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult r = run_app({"fork_storm", true, out, {}, "200"}, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(app_value(r, "forks_ok") == 200);
  Trace parent;
  REQUIRE(load_trace(out, parent));
  long long threads_launches = 0;
  for (const Value* l : parent.of_type("launch")) threads_launches += nums(*l, "gws")[0] == 40;
  CHECK(threads_launches == app_value(r, "launches"));
  check_seq_unique_and_complete(parent);
  check_end_counts(parent);
  // Under AddressSanitizer (gcc 12's runtime, LLVM 14) a fork child inherits the
  // allocator's size-class locks as the parent's other threads held them: the child's
  // harvester, a new thread with an empty cache, can block for ever in its first
  // allocation of such a class (seen with gdb: SizeClassAllocator64::GetFromAllocator,
  // from the last round's JsonLine). Such a child ends as bare, after the bounded wait and
  // the shim's warning, with its file cut after its last whole record. Only there is a
  // child's trace allowed to be cut, once per warning; the plain build allows none.
  const bool asan = std::string(CLPROF_TEST_PRELOAD_FIRST).find("asan") != std::string::npos;
  int kids = 0, cut = 0;
  for (const std::string& name : list_dir(dir.path())) {
    if (name == "x.json" || name.rfind("x.", 0) != 0) continue;
    CAPTURE(name);
    const bool whole = is_whole_trace(read_file(dir.file(name)));
    Trace kid;
    if (!whole && asan) {
      REQUIRE(load_partial_trace(dir.file(name), kid));
      ++cut;
    } else {
      REQUIRE(load_trace(dir.file(name), kid));
    }
    ++kids;
    const auto launches = kid.of_type("launch");
    if (!whole && launches.empty()) continue;  // the harvester was stuck before writing it
    REQUIRE(launches.size() == 1);
    const long long gws = nums(*launches[0], "gws")[0];
    CHECK((gws == 41 || gws == 42));
    CHECK(str(*launches[0], "status") == "complete");
    if (!whole) continue;
    bool abort_warning = false;
    for (const Value* w : kid.of_type("warning"))
      abort_warning |= str(*w, "message").find("(SIGABRT)") != std::string::npos;
    CHECK(abort_warning == (gws == 42));
    check_end_counts(kid);
  }
  CHECK(kids == app_value(r, "children_with_trace"));
  CHECK(kids == 100);
  CHECK(cut == static_cast<int>(count_of(r.err, "did not end the trace within")));
  if (cut > 0) MESSAGE(cut, " of 100 children's traces cut short (AddressSanitizer's fork)");
}

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The "spawn" scenario started by `wrapper` (a process that never calls OpenCL): the app,
// the wrapper's child, makes the run's first OpenCL call and writes x.json; its own child
// (fork + exec, OpenCL afterwards) writes x.<child>.json; the wrapper writes nothing.
void check_spawn_under_wrapper(const std::vector<std::string>& wrapper, const EnvChanges& env,
                               const std::string& existing = "") {
  TempDir dir;
  if (!existing.empty()) write_file(dir.file("x.json"), existing);
  RunOptions o{"spawn", true, dir.file("x.json"), env};
  o.wrapper = wrapper;
  const RunResult r = run_app(o, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const long long app = r.values.at("pid");
  const long long child = r.values.at("child");
  CHECK(app != r.pid);  // the wrapper's child, not the wrapper
  Trace t;
  REQUIRE(load_trace(dir.file("x.json"), t));
  CHECK(num(t.header(), "pid") == app);
  CHECK(num(t.header(), "ppid") == r.pid);
  CHECK(launch_gws(t) == std::multiset<long long>{10});
  const std::string kid_file = "x." + std::to_string(child) + ".json";
  Trace kid;
  REQUIRE(load_trace(dir.file(kid_file), kid));
  CHECK(num(kid.header(), "pid") == child);
  CHECK(launch_gws(kid) == std::multiset<long long>{11, 12});
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt", kid_file, "x.json"});
}

// `sh -c` that must fork (a command follows): the app is its child.
const std::vector<std::string> kShellWrapper = {"sh", "-c", "\"$@\"; exit $?", "sh"};

}  // namespace

TEST_CASE("exit: names: under timeout or sh -c, the first process to call OpenCL writes NAME.EXT") {
  SUBCASE("timeout") {
    check_spawn_under_wrapper({"timeout", "600"}, {});
  }
  SUBCASE("sh -c") {
    check_spawn_under_wrapper(kShellWrapper, {});
  }
  // An earlier run's trace there, or a file that is no trace: replaced.
  SUBCASE("an earlier run's x.json") {
    check_spawn_under_wrapper(
        {"timeout", "600"}, {},
        "{\"format\":\"clprof-trace\",\"version\":2,\"header\":{\"pid\":1,\"session_id\":"
        "\"earlier\"},\"records\":[\n]}\n");
  }
  SUBCASE("not a trace") {
    check_spawn_under_wrapper(kShellWrapper, {}, "hello\n");
  }
}

TEST_CASE("exit: names: a file this run already wrote under NAME.EXT is left to it") {
  // Set by hand, the run's session id matches the file's: the app takes its pid's name.
  TempDir dir;
  const std::string ours =
      "{\"format\":\"clprof-trace\",\"version\":2,\"header\":{\"pid\":1,\"session_id\":"
      "\"run-7\"},\"records\":[\n";
  write_file(dir.file("x.json"), ours);
  RunOptions o{"child", true, dir.file("x.json"), {{"CLPROF_SESSION_ID", std::string("run-7")}}};
  o.wrapper = {"timeout", "600"};
  const RunResult r = run_app(o, dir.path());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_file(dir.file("x.json")) == ours);
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 4);  // stderr, stdout, x.<app pid>.json, x.json
  const std::string kid_file = files[2];
  CHECK(kid_file.rfind("x.", 0) == 0);
  Trace kid;
  REQUIRE(load_trace(dir.file(kid_file), kid));
  CHECK(kid_file == "x." + std::to_string(num(kid.header(), "pid")) + ".json");
  CHECK(num(kid.header(), "ppid") == r.pid);
  CHECK(launch_gws(kid) == std::multiset<long long>{11, 12});
}

TEST_CASE("exit: names: under sh -c on PoCL, the program writes NAME.EXT") {
  TempDir probe;
  const RunResult bare = run_app({"child", false, "", system_opencl()}, probe.path());
  if (bare.exit_code != 0) CLPROF_SKIP("no OpenCL platform besides the fake driver");
  check_spawn_under_wrapper(kShellWrapper, system_opencl());
}
