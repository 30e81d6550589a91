// Scenarios of the test app. Abrupt endings right after the app waited for its work:
// _exit, _Exit, quick_exit, abort(), faults and raised signals, with and without a signal
// handler of the app's own (endings_test.cpp).
#include <CL/cl.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "app_support.hpp"

namespace shim_test {
namespace {

// The launches every ending scenario completes (and waits for) before it ends.
constexpr int kLaunches = 3000;

// A null pointer the compiler cannot see through (a plain null store may be compiled to a
// trap instruction, SIGILL instead of SIGSEGV).
volatile int* opaque_null() {
  static volatile std::uintptr_t zero = 0;
  return reinterpret_cast<volatile int*>(zero);
}

// Cores go to the directory SHIM_TEST_CORE_DIR names (the kernel's core_pattern is usually
// a relative "core"), with the soft limit raised to the hard one, so a test can tell whether
// the process dumped core; without it the inherited limits stay. SHIM_TEST_FSIZE_LIMIT
// (bytes) sets the limit on the size of the files the process writes (a disk filling up).
void prepare_core_dump() {
  if (const char* bytes = std::getenv("SHIM_TEST_FSIZE_LIMIT")) {
    rlimit r{};
    if (getrlimit(RLIMIT_FSIZE, &r) == 0) {
      r.rlim_cur = std::strtoull(bytes, nullptr, 10);
      setrlimit(RLIMIT_FSIZE, &r);
    }
  }
  const char* dir = std::getenv("SHIM_TEST_CORE_DIR");
  if (!dir) return;
  if (chdir(dir) != 0) return;
  rlimit r{};
  if (getrlimit(RLIMIT_CORE, &r) == 0) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_CORE, &r);
  }
}

// Ends the process the way `how` names. Returns only for "return".
int end_now(const std::string& how) {
  std::fflush(stdout);
  if (how == "_exit") _exit(5);
  if (how == "_Exit") _Exit(6);
  if (how == "quick_exit") quick_exit(7);
  if (how == "exit") exit(8);
  if (how == "abort") abort();
  if (how == "segv") *opaque_null() = 1;
  if (how == "raise_segv") raise(SIGSEGV);
  if (how == "bus") raise(SIGBUS);
#if defined(__x86_64__)
  if (how == "fpe") {
    static volatile int zero = 0, dividend = 12345;
    const int quotient = dividend / zero;  // x86 traps on integer division by zero
    std::printf("quotient %d\n", quotient);
  }
  if (how == "ill") __builtin_trap();  // ud2
#else
  if (how == "fpe") raise(SIGFPE);
  if (how == "ill") raise(SIGILL);
#endif
  if (how == "kill") raise(SIGKILL);
  if (how == "return") return 0;
  std::fprintf(stderr, "shim_test_app: unknown ending %s\n", how.c_str());
  return 2;
}

// kLaunches launches, clFinish, then the ending argv[2] names ("return" by default).
int scenario_end(const ScenarioArgs& args) {
  const std::string how = args.arg ? args.arg : "return";
  prepare_core_dump();
  Cl cl;
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  check(clFinish(cl.queue), "finish");
  say("launched", kLaunches);
  return end_now(how);
}

// A few launches, no wait, then the ending argv[2] names: with a driver whose queries
// crawl (FAKE_CL_QUERY_DELAY_US), the harvester's last round outlasts the ending's wait.
int scenario_end_early(const ScenarioArgs& args) {
  Cl cl;
  for (int i = 0; i < 5; ++i) check(cl.launch_vadd(64), "launch");
  say("launched", 5);
  return end_now(args.arg ? args.arg : "return");
}

// kLaunches launches, clFinish, then waits to be ended by a signal from outside.
int scenario_end_by_signal(const ScenarioArgs&) {
  prepare_core_dump();
  Cl cl;
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  check(clFinish(cl.queue), "finish");
  say("launched", kLaunches);
  std::fflush(stdout);
  for (;;) pause();
}

// SIGPIPE ignored (before or after the first OpenCL call, argv[2]): a write to a pipe
// nobody reads fails with EPIPE and the app goes on, and a program it starts inherits the
// ignored SIGPIPE (the SigIgn line of grep's own /proc status).
int scenario_sigpipe_ignored(const ScenarioArgs& args) {
  const bool before = !args.arg || std::strcmp(args.arg, "before") == 0;
  if (before) signal(SIGPIPE, SIG_IGN);
  Cl cl;
  check(cl.launch_vadd(64), "launch");
  if (!before) signal(SIGPIPE, SIG_IGN);
  check(clFinish(cl.queue), "finish");
  int fds[2];
  if (pipe(fds) != 0) return 3;
  close(fds[0]);
  const ssize_t w = write(fds[1], "x", 1);
  say("epipe", w < 0 && errno == EPIPE ? 1 : 0);
  close(fds[1]);
  std::fflush(stdout);
  say("child_status", std::system("grep SigIgn /proc/self/status"));
  return 0;
}

// The same with blocking reads instead of clFinish: each read waits for the launches ahead
// of it on the in-order queue.
int scenario_end_after_read(const ScenarioArgs& args) {
  const std::string how = args.arg ? args.arg : "return";
  prepare_core_dump();
  Cl cl;
  char host[64];
  for (int i = 0; i < kLaunches; ++i) {
    check(cl.launch_vadd(64), "launch");
    if (i % 100 == 99)
      check(clEnqueueReadBuffer(cl.queue, cl.c, CL_TRUE, 0, sizeof host, host, 0, nullptr, nullptr),
            "read");
  }
  say("launched", kLaunches);
  return end_now(how);
}

// Launch lines in the app's own trace file (CLPROF_OUTPUT), counted as the file is now.
long long launch_lines_in_trace() {
  const char* path = std::getenv("CLPROF_OUTPUT");
  if (!path) return -1;
  std::FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  long long n = 0;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) n += std::strstr(line, "\"type\":\"launch\"") != nullptr;
  std::fclose(f);
  return n;
}

// kLaunches launches and a wait (clFinish, or blocking reads with argv[2] "read"), then
// up to 20 s for the launches to reach the trace file, then SIGKILL: run with a flush
// interval far longer, so only the harvest at the sync point can have written them.
int scenario_sync_then_kill(const ScenarioArgs& args) {
  const bool reads = args.arg && std::strcmp(args.arg, "read") == 0;
  Cl cl;
  char host[64];
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  if (reads) {
    check(clEnqueueReadBuffer(cl.queue, cl.c, CL_TRUE, 0, sizeof host, host, 0, nullptr, nullptr),
          "read");
  } else {
    check(clFinish(cl.queue), "finish");
  }
  long long seen = 0;
  for (int tries = 0; tries < 2000 && seen < kLaunches; ++tries) {
    seen = launch_lines_in_trace();
    if (seen < kLaunches) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  say("seen_in_file", seen);
  std::fflush(stdout);
  raise(SIGKILL);
  return 1;
}

// kLaunches launches, clFinish, then time for the harvest after the sync point and a flush
// interval (CLPROF_FLUSH_INTERVAL_MS, 100 ms by default), then SIGKILL: whatever the file
// is (a .zst one the app cannot read back), what completed is in it.
int scenario_finish_sleep_kill(const ScenarioArgs&) {
  Cl cl;
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  check(clFinish(cl.queue), "finish");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::fflush(stdout);
  raise(SIGKILL);
  return 1;
}

// The shim's harvester thread as /proc shows it: how many times it went to sleep so far
// (its voluntary context switches: one per round, when it waits for the next; preemptions
// are not counted) and its scheduling policy; -1 for both when there is none (a bare run).
struct HarvesterFacts {
  long long sleeps = -1;
  int policy = -1;
};

HarvesterFacts harvester_facts() {
  HarvesterFacts facts;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return facts;
  while (dirent* e = readdir(tasks)) {
    if (e->d_name[0] == '.') continue;
    const std::string base = std::string("/proc/self/task/") + e->d_name;
    char line[128] = {};
    if (FILE* f = std::fopen((base + "/comm").c_str(), "r")) {
      if (!std::fgets(line, sizeof line, f)) line[0] = 0;
      std::fclose(f);
    }
    if (std::strncmp(line, "clprof-harvest", 14) != 0) continue;
    if (FILE* f = std::fopen((base + "/status").c_str(), "r")) {
      while (std::fgets(line, sizeof line, f)) {
        long long n = 0;
        if (std::sscanf(line, "voluntary_ctxt_switches: %lld", &n) == 1) facts.sleeps = n;
      }
      std::fclose(f);
    }
    facts.policy = sched_getscheduler(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(tasks);
  return facts;
}

// argv[2] (default 2,000) rounds of one launch, clFinish and 50 µs of the app's own work
// (a sleep), clpeak's latency loop at about its pace: says how long the loop took and how
// many rounds the harvester ran meanwhile, and the harvester's scheduling policy.
int scenario_wait_loop(const ScenarioArgs& args) {
  const int rounds = args.arg ? std::atoi(args.arg) : 2000;
  Cl cl;
  check(cl.launch_vadd(64), "launch");  // the trace starts, its harvester with it
  check(clFinish(cl.queue), "finish");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past its start-up
  const long long sleeps_before = harvester_facts().sleeps;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i) {
    check(cl.launch_vadd(64), "launch");
    check(clFinish(cl.queue), "finish");
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  const auto t1 = std::chrono::steady_clock::now();
  const HarvesterFacts after = harvester_facts();
  say("rounds", rounds);
  say("loop_us", std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
  say("harvester_rounds", sleeps_before < 0 ? -1 : after.sleeps - sleeps_before);
  say("harvester_policy", after.policy);
  return 0;
}

// ---- the app's own signal handler ---------------------------------------------------------
// SHIM_TEST_HANDLER names what it does: "longjmp" (recovers and goes on), "reraise" (sets
// SIG_DFL with signal() and raises again, as crash reporters do), "exit" (_exit(42)),
// "abort" (abort()). SHIM_TEST_HANDLER_WHEN: "before" the first OpenCL call or "after" it
// (the shim is active by then).
sigjmp_buf g_recover;
std::string g_handler_action;
std::atomic<int> g_handled{0};

void app_handler(int sig, siginfo_t* info, void*) {
  ++g_handled;
  // write(2) only: the handler runs on a fault.
  char line[64];
  const int n =
      std::snprintf(line, sizeof line, "app_handler %d %d\n", sig, info ? info->si_signo : -1);
  if (n > 0) {
    ssize_t w = write(1, line, static_cast<size_t>(n));
    (void)w;
  }
  if (g_handler_action == "longjmp") siglongjmp(g_recover, 1);
  if (g_handler_action == "reraise") {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  if (g_handler_action == "exit") _exit(42);
  if (g_handler_action == "abort") abort();
  // "oneshot": returns (installed with SA_RESETHAND: the next one takes the default action)
}

void install_app_handler(int sig) {
  struct sigaction sa {};
  sa.sa_sigaction = app_handler;
  sa.sa_flags = SA_SIGINFO | (g_handler_action == "oneshot" ? SA_RESETHAND : 0);
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, nullptr) != 0) std::perror("sigaction");
}

// argv[2]: the ending ("segv", "abort", ...). The app's handler is installed for that
// signal before or after its first OpenCL call; the app checks that sigaction reports it.
// A "oneshot" handler returns: the ending is then tried a second time.
int scenario_app_handler(const ScenarioArgs& args) {
  const std::string how = args.arg ? args.arg : "segv";
  const int sig = how == "abort" ? SIGABRT : how == "bus" ? SIGBUS : SIGSEGV;
  const char* action = std::getenv("SHIM_TEST_HANDLER");
  const char* when = std::getenv("SHIM_TEST_HANDLER_WHEN");
  g_handler_action = action ? action : "reraise";
  const bool before = !when || std::strcmp(when, "before") == 0;
  prepare_core_dump();
  if (before) install_app_handler(sig);
  Cl cl;
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  if (!before) install_app_handler(sig);
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  say("handler_reported", (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == app_handler ? 1 : 0);
  check(clFinish(cl.queue), "finish");
  say("launched", kLaunches);
  if (sigsetjmp(g_recover, 1) == 0) {
    end_now(how);
    if (g_handler_action == "oneshot") end_now(how);
    say("not_ended", 1);
    return 1;
  }
  // Recovered (longjmp): the app goes on using OpenCL, then returns from main.
  say("recovered", g_handled.load());
  for (int i = 0; i < 10; ++i) check(cl.launch_vadd(65), "launch after recovery");
  check(clFinish(cl.queue), "finish");
  return 0;
}

// Threads keep enqueuing (without waiting) while the main thread, after its own launches
// and clFinish, crashes: its launches are all in the trace, the others' as far as they got.
int scenario_crash_while_busy(const ScenarioArgs& args) {
  const std::string how = args.arg ? args.arg : "segv";
  prepare_core_dump();
  Cl cl;
  std::atomic<bool> started{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&cl, &started] {
      cl_int rc = 0;
      cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);
      if (rc != CL_SUCCESS) return;
      for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
      const size_t gws = 32;
      for (;;) {
        clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr);
        started = true;
      }
    });
  }
  while (!started) std::this_thread::yield();
  for (int i = 0; i < kLaunches; ++i) check(cl.launch_vadd(64), "launch");
  check(clFinish(cl.queue), "finish");
  say("launched", kLaunches);
  const int rc = end_now(how);
  for (auto& t : threads) t.detach();
  return rc;
}

}  // namespace

const ScenarioList kEndingsScenarios = {
    {"end", scenario_end},
    {"end_after_read", scenario_end_after_read},
    {"end_early", scenario_end_early},
    {"end_by_signal", scenario_end_by_signal},
    {"sigpipe_ignored", scenario_sigpipe_ignored},
    {"app_handler", scenario_app_handler},
    {"crash_while_busy", scenario_crash_while_busy},
    {"sync_then_kill", scenario_sync_then_kill},
    {"finish_sleep_kill", scenario_finish_sleep_kill},
    {"wait_loop", scenario_wait_loop},
};

}  // namespace shim_test
