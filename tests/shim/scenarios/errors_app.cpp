// Scenarios of the test app. Failures the app must see unchanged: injected enqueue failures, a
// failed build, an app that closes the trace's descriptor, the descriptors an app finds
// (errors_test.cpp).
#include <CL/cl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "app_support.hpp"
#include "kernel_source.hpp"

namespace shim_test {
namespace {

// Failed enqueues: the app gets the driver's code; the shim must not crash or hide it.
int scenario_inject(const ScenarioArgs&) {
  Cl cl;
  const size_t gws = 128;
  cl_event e = nullptr;
  say("rc1", cl.launch_vadd(gws));
  say("rc2", cl.launch_vadd(gws, &e));  // FAKE_CL_FAIL makes this one fail
  say("event2_null", e == nullptr ? 1 : 0);
  if (e) clReleaseEvent(e);  // only if the injection did not happen
  say("rc3", cl.launch_vadd(gws));
  const cl_uint bad_index = 3;
  say("rc_bad_arg", clSetKernelArg(cl.vadd, bad_index, sizeof cl.a, &cl.a));
  say("rc4", cl.launch_vadd(gws));
  check(clFinish(cl.queue), "clFinish");
  return 0;
}

// A build that fails (the fake's injected-failure option) and a clWaitForEvents sync.
int scenario_build_and_wait(const ScenarioArgs&) {
  Cl cl;
  cl_int rc = 0;
  const char* src = shim_test::kSource;
  cl_program bad = clCreateProgramWithSource(cl.context, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  // The options also carry a byte that is not UTF-8 (a Latin-1 e acute).
  say("build_rc",
      clBuildProgram(bad, 1, &cl.device, "-DFAKE_CL_BUILD_FAIL -DNAME=caf\xE9", nullptr, nullptr));
  clReleaseProgram(bad);
  cl_event e[2] = {nullptr, nullptr};
  check(cl.launch_vadd(32, &e[0]), "launch");
  check(cl.launch_vadd(33, &e[1]), "launch");
  say("wait_rc", clWaitForEvents(2, e));
  clReleaseEvent(e[0]);
  clReleaseEvent(e[1]);
  return 0;
}

// A source that does not compile (run on PoCL by errors_test.cpp), built twice: plainly, and
// with a callback (pfn_notify), whose call may return before the build ends.
std::atomic<int> g_notified{0};
void CL_CALLBACK on_built(cl_program, void*) {
  g_notified.store(1);
}

// Whether another process sees a write lock of this process's on `path` (F_GETLK).
bool locked_by_me(const char* path) {
  const pid_t me = getpid();
  const pid_t child = fork();
  if (child == 0) {
    const int fd = open(path, O_RDWR);
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    const bool held =
        fd >= 0 && fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK && probe.l_pid == me;
    _exit(held ? 0 : 1);
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

// The descriptors the app finds at main, and where the trace's went after the first
// launch (errors_test.cpp: the shim grows the table at load, and takes no number).
// "lock_stdin": first takes a POSIX lock on SHIM_TEST_APP_FILE, makes that file its
// standard input and execs itself ("locked_stdin"), which checks that the lock, which an
// exec keeps, outlived the shim's start.
int scenario_descriptors_at_main(const ScenarioArgs& args) {
  const std::string_view mode = args.arg ? args.arg : "";
  const char* const locked = std::getenv("SHIM_TEST_APP_FILE");
  if (mode == "lock_stdin" && locked) {
    const int fd = open(locked, O_RDWR | O_CREAT, 0644);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fd < 0 || dup2(fd, 0) != 0) return 3;
    close(fd);  // before the lock: closing it would drop the lock
    if (fcntl(0, F_SETLK, &lock) != 0 || !locked_by_me(locked)) return 4;
    char* const again[] = {const_cast<char*>(args.self), const_cast<char*>("descriptors_at_main"),
                           const_cast<char*>("locked_stdin"), nullptr};
    execv(args.self, again);
    return 5;
  }
  if (mode == "locked_stdin" && locked) say("stdin_lock_kept", locked_by_me(locked));
  struct stat task {};
  say("threads_at_main", stat("/proc/self/task", &task) == 0 ? task.st_nlink - 2 : -1);
  long long table = -1;
  if (FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, status))
      if (std::strncmp(line, "FDSize:", 7) == 0) table = std::atoll(line + 7);
    std::fclose(status);
  }
  say("fd_table_size", table);
  say("fd_512_open_at_main", fcntl(512, F_GETFD) != -1);
  const int first = open("/dev/null", O_RDONLY);
  say("first_open_fd", first);
  if (first >= 0) close(first);
  Cl cl;
  check(cl.launch_vadd(64), "launch");
  check(clFinish(cl.queue), "finish");
  say("fd_512_open_after_launch", fcntl(512, F_GETFD) != -1);
  return 0;
}

int scenario_bad_source(const ScenarioArgs&) {
  Cl cl;
  const char* src = "kernel void broken(global float* x) { x[0] = clprof_undeclared_name; }\n";
  cl_int rc = 0;
  cl_program bad = clCreateProgramWithSource(cl.context, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  say("build_rc", clBuildProgram(bad, 1, &cl.device, "", nullptr, nullptr));
  clReleaseProgram(bad);
  cl_program bad2 = clCreateProgramWithSource(cl.context, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  say("async_rc", clBuildProgram(bad2, 1, &cl.device, "-DASYNC", on_built, nullptr));
  for (int i = 0; i < 1000 && !g_notified.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  say("notified", g_notified.load());
  clReleaseProgram(bad2);
  return 0;
}

// Like a daemon: after some launches, close every descriptor but stdin/out/err, open a file
// of its own and put it at every other number (so it sits where the trace was), write to it,
// launch again. The file must hold only what the app wrote. SHIM_TEST_APP_FILE: its path.
// The argument says how the app closes every descriptor from 3 up: a close() per number
// (none), close_range or closefrom, or not at all (dup2: its file replaces them; first it
// tries dup2 from a closed descriptor over each, which fails and replaces nothing, and
// launches once more with gws 62). Each returns what it would return bare (printed).
int scenario_close_fds(const ScenarioArgs& args) {
  Cl cl;
  check(cl.launch_vadd(60), "launch 60");
  check(clFinish(cl.queue), "finish");
  const char* path = std::getenv("SHIM_TEST_APP_FILE");
  if (!path) return 2;
  const std::string_view how = args.arg ? args.arg : "";
  if (how == "close_range" || how == "closefrom") {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    if (how == "close_range") {
      say("close_range_rc", close_range(3, ~0U, 0));
    } else {
      closefrom(3);
    }
#else
    say("libc_lacks_close_range", 1);  // glibc before 2.34 (Debian 11)
    return 0;
#endif
  } else if (how == "dup2") {
    close(1000);
    int failed = 0;
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != 1000 && dup2(1000, fd) == -1 && errno == EBADF) ++failed;
    say("dup2_from_closed_failed", failed);
    check(cl.launch_vadd(62), "launch 62");
    check(clFinish(cl.queue), "finish");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // into the file
  } else {
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  }
  say("fd_512_open", fcntl(512, F_GETFD) != -1);
  const int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (f < 0) return 3;
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != f) dup2(f, fd);
  const char kText[] = "the app's own data\n";
  if (write(f, kText, sizeof kText - 1) != static_cast<ssize_t>(sizeof kText - 1)) return 4;
  for (int i = 0; i < 3000; ++i) check(cl.launch_vadd(61), "launch 61");
  check(clFinish(cl.queue), "finish");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // a flush interval or two
  say("after_close", 1);
  return 0;
}

}  // namespace

const ScenarioList kErrorsScenarios = {
    {"inject", scenario_inject},
    {"build_and_wait", scenario_build_and_wait},
    {"close_fds", scenario_close_fds},
    {"bad_source", scenario_bad_source},
    {"descriptors_at_main", scenario_descriptors_at_main},
};

}  // namespace shim_test
