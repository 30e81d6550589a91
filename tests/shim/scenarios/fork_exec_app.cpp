// Scenarios of the test app. New processes and program images: fork with and without exec, fork
// while the shim is busy, every exec function, vfork (fork_exec_test.cpp).
#include <CL/cl.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "app_support.hpp"

namespace shim_test {
namespace {

int scenario_child(const ScenarioArgs&) {
  Cl cl;
  check(cl.launch_vadd(11), "launch");
  check(cl.launch_vadd(12), "launch");
  check(clFinish(cl.queue), "finish");
  return 0;
}

int scenario_spawn(const ScenarioArgs& args) {
  const char* self = args.self;
  {
    Cl cl;
    check(cl.launch_vadd(10), "launch");
    check(clFinish(cl.queue), "finish");
  }
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    execl(self, self, "child", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  say("pid", getpid());
  say("child", child);
  say("child_exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// fork() without exec: the child keeps using OpenCL through the inherited shim.
int scenario_fork_no_exec(const ScenarioArgs&) {
  Cl cl;
  check(cl.launch_vadd(20), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    check(cl.launch_vadd(21), "launch");
    check(cl.launch_vadd(22), "launch");
    check(clFinish(cl.queue), "finish");
    std::exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  check(cl.launch_vadd(23), "launch");
  check(clFinish(cl.queue), "finish");
  say("pid", getpid());
  say("child", child);
  say("child_exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// Forks right after bursts of launches, while the shim's background thread is still busy
// with them: every child must run and write its own trace (clprof parks that thread around
// fork, so no child inherits a lock it held). The app itself holds none at the fork.
int scenario_fork_busy(const ScenarioArgs&) {
  Cl cl;
  constexpr int kForks = 20, kBurst = 2000;
  int ok = 0;
  for (int f = 0; f < kForks; ++f) {
    for (int i = 0; i < kBurst; ++i) check(cl.launch_vadd(30), "burst");
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      check(cl.launch_vadd(31), "child launch");
      check(clFinish(cl.queue), "child finish");
      std::exit(0);
    }
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
      ++ok;
  }
  check(clFinish(cl.queue), "finish");
  say("forks_ok", ok);
  say("burst_launches", kForks * kBurst);
  return 0;
}

// Launches, then replaces itself (same pid) with the "exec_target" scenario through the exec
// function `how` names. The shim must finish this image's trace first.
int scenario_exec_self(const ScenarioArgs& args) {
  const char* argv0 = args.self;
  const std::string how(args.name.substr(std::string_view("exec_self_").size()));
  Cl cl;
  check(cl.launch_vadd(50), "launch");
  check(cl.launch_vadd(50), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const char* self = "/proc/self/exe";  // with a '/': the p forms do not search PATH
  char target[] = "exec_target";
  char* const argv[] = {const_cast<char*>(argv0), target, nullptr};
  if (how == "execl") execl(self, argv0, target, static_cast<char*>(nullptr));
  if (how == "execle") execle(self, argv0, target, static_cast<char*>(nullptr), environ);
  if (how == "execlp") execlp(self, argv0, target, static_cast<char*>(nullptr));
  if (how == "execv") execv(self, argv);
  if (how == "execve") execve(self, argv, environ);
  if (how == "execvp") execvp(self, argv);
  if (how == "execvpe") execvpe(self, argv, environ);
  if (how == "fexecve") {
    const int fd = open(self, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) fexecve(fd, argv, environ);
  }
  say("exec_failed", 1);
  return 1;
}

int scenario_exec_target(const ScenarioArgs&) {
  Cl cl;
  check(cl.launch_vadd(51), "launch");
  check(clFinish(cl.queue), "finish");
  say("exec_target", 1);
  return 0;
}

// A vfork child runs in its parent's memory until it execs: the shim's exec hook must leave
// the parent's trace alone.
int scenario_vfork_exec(const ScenarioArgs&) {
  Cl cl;
  check(cl.launch_vadd(60), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const pid_t child = vfork();
  if (child == 0) {
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (child > 0) waitpid(child, &status, 0);
  check(cl.launch_vadd(61), "launch");
  check(clFinish(cl.queue), "finish");
  say("child_exit", child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// Forks while another thread keeps enqueuing into a ring the shim's background thread
// cannot drain (run with FAKE_CL_QUERY_DELAY_US: a slow driver), so the ring never runs
// dry: fork() must still find that thread parked (the shim logs at debug level when it
// gives up waiting). The children exit at once.
int scenario_fork_while_enqueuing(const ScenarioArgs&) {
  Cl cl;
  std::atomic<bool> stop{false};
  std::atomic<long long> launched{0};
  std::thread enqueuer([&] {
    cl_int rc = 0;
    cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);  // its own: args are per kernel
    if (rc != CL_SUCCESS) return;
    for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
    const size_t gws = 40;
    while (!stop.load()) {
      if (clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
          CL_SUCCESS)
        ++launched;
    }
    clReleaseKernel(k);
  });
  while (launched.load() < 5000) std::this_thread::yield();  // the ring is full by then
  int ok = 0;
  long long slowest_us = 0;
  std::fflush(stdout);
  for (int f = 0; f < 10; ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    const auto took = std::chrono::steady_clock::now() - t0;
    slowest_us = std::max<long long>(
        slowest_us, std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status)) ++ok;
  }
  stop = true;
  enqueuer.join();
  check(clFinish(cl.queue), "finish");
  say("forks_ok", ok);
  say("launches", launched.load());
  say("slowest_fork_us", slowest_us);  // informational only (tests assert no durations)
  return 0;
}

// Children that never use OpenCL, of a parent that does: each ends another way (exec of a
// program that uses none, _exit, exit, abort, posix_spawn's child). None may leave a trace.
int scenario_children_without_opencl(const ScenarioArgs&) {
  Cl cl;
  check(cl.launch_vadd(70), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const char* const ways[] = {"exec", "_exit", "exit", "abort"};
  for (const char* way : ways) {
    const pid_t child = fork();
    if (child == 0) {
      const std::string w = way;
      if (w == "exec") execl("/bin/true", "true", static_cast<char*>(nullptr));
      if (w == "_exit") _exit(0);
      if (w == "exit") std::exit(0);
      if (w == "abort") abort();
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child_%s %d\n", way,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  pid_t spawned = 0;
  char* const argv[] = {const_cast<char*>("true"), nullptr};
  int status = 0;
  if (posix_spawn(&spawned, "/bin/true", nullptr, nullptr, argv, environ) == 0)
    waitpid(spawned, &status, 0);
  say("child_spawn", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  check(cl.launch_vadd(71), "launch");
  check(clFinish(cl.queue), "finish");
  return 0;
}

// Forks in a tight loop (argv[2] times, default 200) while two threads launch and the
// shim's background thread harvests: no fork may hang on a lock the shim held. Children
// take turns: one launch, clFinish and _exit (its own trace, ended abruptly); _exit at
// once; exec of /bin/true; a launch and abort() (its trace ended by the signal).
int scenario_fork_storm(const ScenarioArgs& args) {
  const int forks = args.arg ? std::atoi(args.arg) : 200;
  Cl cl;
  std::atomic<bool> stop{false};
  std::atomic<long long> launched{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      cl_int rc = 0;
      cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);
      if (rc != CL_SUCCESS) return;
      for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
      const size_t gws = 40;
      // In bursts with a pause between them, at most 20,000 each: the trace stays small.
      for (long i = 0; !stop.load() && i < 20000; ++i) {
        if (clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
            CL_SUCCESS)
          ++launched;
        if (i % 500 == 499) {
          clFinish(cl.queue);
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      }
      clReleaseKernel(k);
    });
  }
  while (launched.load() < 1000) std::this_thread::yield();
  std::fflush(stdout);
  int ok = 0, with_trace = 0;
  for (int f = 0; f < forks; ++f) {
    const int kind = f % 4;
    const pid_t child = fork();
    if (child == 0) {
      if (kind == 0) {
        check(cl.launch_vadd(41), "child launch");
        check(clFinish(cl.queue), "child finish");
        _exit(0);
      }
      if (kind == 1) _exit(0);
      if (kind == 2) execl("/bin/true", "true", static_cast<char*>(nullptr));
      if (kind == 3) {
        check(cl.launch_vadd(42), "child launch");
        check(clFinish(cl.queue), "child finish");
        abort();
      }
      _exit(127);
    }
    int status = 0;
    if (child <= 0 || waitpid(child, &status, 0) != child) continue;
    const bool expected = kind == 3 ? WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT
                                    : WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ok += expected;
    with_trace += kind == 0 || kind == 3;
  }
  stop = true;
  for (auto& t : threads) t.join();
  check(clFinish(cl.queue), "finish");
  say("forks_ok", ok);
  say("children_with_trace", with_trace);
  say("launches", launched.load());
  return 0;
}

}  // namespace

const ScenarioList kForkExecScenarios = {
    {"child", scenario_child},
    {"spawn", scenario_spawn},
    {"fork_no_exec", scenario_fork_no_exec},
    {"fork_busy", scenario_fork_busy},
    {"exec_self_execl", scenario_exec_self},
    {"exec_self_execle", scenario_exec_self},
    {"exec_self_execlp", scenario_exec_self},
    {"exec_self_execv", scenario_exec_self},
    {"exec_self_execve", scenario_exec_self},
    {"exec_self_execvp", scenario_exec_self},
    {"exec_self_execvpe", scenario_exec_self},
    {"exec_self_fexecve", scenario_exec_self},
    {"exec_target", scenario_exec_target},
    {"vfork_exec", scenario_vfork_exec},
    {"fork_while_enqueuing", scenario_fork_while_enqueuing},
    {"children_without_opencl", scenario_children_without_opencl},
    {"fork_storm", scenario_fork_storm},
};

}  // namespace shim_test
