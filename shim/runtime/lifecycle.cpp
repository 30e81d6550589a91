#include "runtime/lifecycle.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "clprof/trace_schema.hpp"
#include "loader/real_opencl.hpp"
#include "output/output_names.hpp"
#include "output/record_format.hpp"
#include "recording/host_clock.hpp"
#include "recording/objects.hpp"
#include "recording/thread_state.hpp"
#include "runtime/log.hpp"
#include "runtime/process_facts.hpp"
#include "runtime/process_trace.hpp"

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;

enum State : int { kUninit = 0, kActive = 1, kPassThrough = 2, kFinalized = 3 };

std::mutex g_lifecycle_mutex;  // the trace's start and its endings, and fork
bool g_atexit_registered = false;

// ThreadSanitizer (in an app built with it) kills a fork child that starts a thread when
// the parent had more than one at the fork ("starting new threads after multi-threaded
// fork is not supported"; with TSAN_OPTIONS=die_after_fork=0 it reported "dup thread" and
// exited 66 all the same). Such a child runs untouched rather than die: fork_prepare
// decides, the child's first OpenCL call warns.
bool g_fork_child_without_threads = false;  // the next fork child must not start threads
bool g_this_child_without_threads = false;  // this process is such a child

void atexit_finalize() {
  finalize_trace();
}

HeaderFacts header_facts(const Settings& s) {
  HeaderFacts h;
  h.pid = getpid();
  h.ppid = getppid();
  h.command_line = command_line();
  h.start_unix_ns = unix_now_ns();
  h.host_start_ns = g_trace_origin_ns;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  h.host_name = host;
  h.clprof_version = CLPROF_VERSION;
  h.settings = settings_as_text(s);
  h.session_id = session_id_from_env();
  return h;
}

// Under g_lifecycle_mutex. The new state: kActive, or kPassThrough with one warning.
int start_trace() {
  const Settings& s = settings();
  if (s.disable) return kPassThrough;
  if (g_this_child_without_threads) {
    log_once_warn(
        "this fork child runs untouched: the app's ThreadSanitizer runtime allows no "
        "new thread in a child of a multi-threaded process");
    return kPassThrough;
  }
  if (!real_opencl_found()) {
    log_once_warn("no OpenCL library found (set CLPROF_OPENCL_LIBRARY); running untouched");
    return kPassThrough;
  }
  g_trace_origin_ns = monotonic_now_ns();
  const HeaderFacts h = header_facts(s);
  // /dev/null, /dev/stdout or a FIFO is shared on purpose: children must not create
  // "/dev/null.<pid>" files beside it.
  struct stat target;
  const bool shared_target =
      stat(s.output.c_str(), &target) == 0 && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode);
  std::string path = expand_output_path(s.output, h.pid, root_pid_from_env(), !shared_target);
  const std::string first_choice = path;
  for (int k = 1; !shared_target && k < 1000 && holds_trace_of(path, h.pid); ++k) {
    path = insert_before_extension(first_choice, ".exec" + std::to_string(k));
  }
  auto* trace = new ProcessTrace(h.pid);
  std::string error;
  if (!trace->output().open(path, format_header_line(h), error)) {
    log_once_warn("%s; running untouched", error.c_str());
    delete trace;
    return kPassThrough;
  }
  log_message(LogLevel::Info, "recording to %s", path.c_str());
  g_ticks_are_tsc.store(tsc_is_host_clock());
  trace->completion.clocks().start();
  g_process_trace.store(trace, std::memory_order_release);
  if (const int error = trace->harvester.start()) {
    g_process_trace.store(nullptr, std::memory_order_relaxed);
    leave_behind(trace);  // its output holds the file: not freed
    // Nothing more will be written: a file with a header alone would read as a trace
    // cut short. A shared target (a device) is not ours to remove.
    if (!shared_target) unlink(path.c_str());
    log_once_warn("cannot start the background thread (%s); running untouched, no trace",
                  std::strerror(error));
    return kPassThrough;
  }
  if (!g_atexit_registered) {
    g_atexit_registered = true;
    std::atexit(atexit_finalize);
  }
  return kActive;
}

// Ranges the app left open are closed at the end, each with "open": true.
void write_open_range_ends(TraceOutput& output) {
  const std::int64_t now_ns = to_trace_ns(monotonic_now_ns());
  // Other threads may still be ending (and unlisting their state) meanwhile.
  for (ThreadState* t : listed_thread_states()) {
    while (t->ranges.depth() > 0) {
      bool was_open = false;
      const std::uint32_t id = t->ranges.pop(was_open);
      if (id == 0) continue;
      output.write_line(LineKind::RangeEnd, JsonLine(tf::range_end::kTypeName)
                                                .unum(tf::range_end::id, id)
                                                .num(tf::range_end::tid, t->tid)
                                                .num(tf::range_end::host_ns, now_ns)
                                                .boolean(tf::range_end::open, true)
                                                .finish());
    }
  }
}

// Every ending's last steps, on the calling thread.
void end_trace(ProcessTrace& trace) {
  trace.harvester.stop();
  const std::uint64_t incomplete =
      trace.harvester.finish(static_cast<std::int64_t>(settings().exit_wait_ms) * 1000000);
  write_open_range_ends(trace.output());
  for (const std::string& line : final_clock_sync_lines(trace.completion.clocks().brackets())) {
    trace.output().write_line(LineKind::ClockSync, line);
  }
  trace.output().finish(to_trace_ns(monotonic_now_ns()), incomplete);
}

// `wait`: false gives up when the lock is taken (exec may be called from a signal handler
// that interrupted clprof's own code holding it).
void finalize(bool wait) {
  ProcessTrace* trace = nullptr;
  {
    std::unique_lock<std::mutex> lock(g_lifecycle_mutex, std::defer_lock);
    if (wait) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    const int state = g_recording_state.exchange(kFinalized);
    if (state != kActive) return;
    trace = g_process_trace.load();
  }
  if (trace) end_trace(*trace);
}

// The harvester is parked first: it may need the locks taken next to reach its parking
// point.
void fork_prepare() {
  g_fork_child_without_threads = tsan_runtime_loaded() && thread_count() > 1;
  ProcessTrace* t = g_process_trace.load(std::memory_order_acquire);
  if (t && !t->harvester.park_for_fork(std::chrono::milliseconds(250))) {
    log_message(LogLevel::Debug, "fork: the background thread did not park within 250 ms");
  }
  g_lifecycle_mutex.lock();
  objects_fork_prepare();
  thread_states_fork_prepare();  // after the registries: a lookup may list its thread
}

void fork_parent() {
  thread_states_fork_parent();
  objects_fork_parent();
  g_lifecycle_mutex.unlock();
  if (ProcessTrace* t = g_process_trace.load(std::memory_order_acquire)) t->harvester.unpark();
}

void fork_child() {
  g_this_child_without_threads = g_fork_child_without_threads;
  thread_states_fork_child();
  objects_fork_child();
  // The parent's harvester does not exist here and its ring may hold half-written
  // slots: the child leaves that trace behind and starts its own on its next OpenCL call.
  if (ProcessTrace* parent = g_process_trace.load(std::memory_order_relaxed)) leave_behind(parent);
  g_process_trace.store(nullptr, std::memory_order_relaxed);
  if (g_recording_state.load() == kActive) g_recording_state.store(kUninit);
  g_lifecycle_mutex.unlock();
}

__attribute__((constructor)) void shim_load() {
  // Children inherit the root pid, so only the first process writes CLPROF_OUTPUT as is.
  if (!std::getenv("CLPROF_ROOT_PID")) {
    const std::string pid = std::to_string(getpid());
    setenv("CLPROF_ROOT_PID", pid.c_str(), 0);
  }
  ensure_session_id();
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

// Fallback when atexit never ran (e.g. the library is unloaded); a no-op otherwise.
__attribute__((destructor)) void shim_unload() {
  finalize_trace();
}

}  // namespace

const Settings& settings() {
  static const Settings* s = [] {
    std::vector<std::string> warnings;
    auto* parsed =
        new Settings(load_settings([](const char* n) { return std::getenv(n); }, warnings));
    set_log_level(parsed->log_level);
    for (const auto& w : warnings) log_message(LogLevel::Warn, "%s", w.c_str());
    return parsed;
  }();
  return *s;
}

bool hooks_may_be_handed_out() {
  return !settings().disable;
}

std::atomic<int> g_recording_state{kUninit};
static_assert(kActive == 1, "lifecycle.hpp tests the state against 1");

bool recording_active_slow() {
  const int state = g_recording_state.load(std::memory_order_acquire);
  if (state == kActive) return true;
  if (state != kUninit) return false;
  std::lock_guard<std::mutex> lock(g_lifecycle_mutex);
  if (g_recording_state.load() == kUninit)
    g_recording_state.store(start_trace(), std::memory_order_release);
  return g_recording_state.load() == kActive;
}

void finish_before_exec() {
  ProcessTrace* t = g_process_trace.load(std::memory_order_acquire);
  // A vfork child runs in its parent's memory until the exec: the trace is the parent's.
  if (!t || t->pid != static_cast<long>(getpid())) return;
  log_message(LogLevel::Debug, "exec: finishing the trace of the image being replaced");
  finalize(false);
}

void finalize_trace() {
  finalize(true);
}

}  // namespace clprof::shim
