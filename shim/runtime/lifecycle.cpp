#include "runtime/lifecycle.hpp"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "base/host_clock.hpp"
#include "base/log.hpp"
#include "base/process_facts.hpp"
#include "base/real_opencl.hpp"
#include "clprof/trace_schema.hpp"
#include "output/capture_files.hpp"
#include "output/object_format.hpp"
#include "output/output_file.hpp"
#include "output/output_names.hpp"
#include "output/record_format.hpp"
#include "recording/objects.hpp"
#include "recording/thread_state.hpp"
#include "runtime/fatal_signals.hpp"
#include "runtime/process_trace.hpp"

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;

enum State : int { kUninit = 0, kActive = 1, kPassThrough = 2, kFinalized = 3 };

std::mutex g_lifecycle_mutex;         // the trace's start and its endings, and fork
std::atomic<bool> g_forking{false};   // between fork's prepare handler and its parent's
std::atomic<int> g_ending_signal{0};  // the signal of an abrupt ending (0: an exit call)

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

// Registered at load, so it runs after every handler the app registers (its own
// at_quick_exit handlers included): quick_exit may be called from a signal handler.
void at_quick_exit_finalize() {
  end_abruptly(0);
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
  const RankFacts rank = rank_from_env();
  h.rank = rank.rank;
  h.world_size = rank.world_size;
  h.clprof_version = CLPROF_VERSION;
  h.settings = settings_as_text(s);
  h.session_id = session_id_from_env();
  return h;
}

void final_round_on_harvester();

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
  // Without "%p" the first process of the run to get here takes the name as it is, and
  // holds it locked until its header is written (output_file.hpp).
  NameFields fields;
  fields.host = h.host_name;
  if (h.rank) fields.rank = std::to_string(*h.rank);
  OutputNameClaim claim;
  std::string path;
  bool claimed = false;
  if (!shared_target && s.output.find("%p") == std::string::npos) {
    const std::string plain = expand_output_path(s.output, h.pid, h.pid, true, fields);
    switch (claim.claim(plain, h.session_id, h.pid)) {
      case NameClaim::Claimed:
        claimed = true;
        path = plain;
        break;
      case NameClaim::TakenByThisImage:  // NAME.exec<k>.EXT, next
        path = plain;
        break;
      case NameClaim::TakenByRun:
        path = insert_before_extension(plain, "." + std::to_string(h.pid));
        break;
      case NameClaim::Unclaimable:
        path = expand_output_path(s.output, h.pid, root_pid_from_env(), true, fields);
        break;
    }
  } else {
    path = expand_output_path(s.output, h.pid, root_pid_from_env(), !shared_target, fields);
  }
  const std::string first_choice = path;
  for (int k = 1; !shared_target && !claimed && k < 1000 && holds_trace_of(path, h.pid); ++k) {
    path = insert_before_extension(first_choice, ".exec" + std::to_string(k));
  }
  auto* trace = new ProcessTrace(h.pid);
  std::string error;
  if (!trace->output().open(path, format_header_line(h), error)) {
    claim.release();
    log_once_warn("%s; running untouched", error.c_str());
    delete trace;
    return kPassThrough;
  }
  claim.release();  // the header is there: the run's next process reads it
  set_capture_trace_path(path);
  log_message(LogLevel::Info, "recording to %s", path.c_str());
  g_ticks_are_tsc.store(tsc_is_host_clock());
  trace->completion.clocks().start();
  g_process_trace.store(trace, std::memory_order_release);
  if (const int error = trace->harvester.start(final_round_on_harvester)) {
    g_process_trace.store(nullptr, std::memory_order_relaxed);
    leave_behind(trace);  // its output holds the file: not freed
    // Nothing more will be written: a file with a header alone would read as a trace
    // cut short. A shared target (a device) is not ours to remove.
    if (!shared_target) unlink(path.c_str());
    log_once_warn("cannot start the background thread (%s); running untouched, no trace",
                  std::strerror(error));
    return kPassThrough;
  }
  catch_fatal_signals(end_abruptly);
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

// Every ending's last steps, on the calling thread (the harvester's own for an abrupt
// ending, `abrupt_signal` its signal or 0). An abrupt ending waits for no running command
// and releases no event (the process ends next, and may have crashed inside the driver),
// and writes what it holds before each step that could block on a lock the ending
// thread holds (the driver's, the thread list's).
void end_trace(ProcessTrace& trace, bool abrupt, int abrupt_signal) {
  // (An abrupt ending runs on the harvester, which has left its loop for good: the
  // process ends next, nothing joins or detaches it.)
  if (!abrupt) trace.harvester.stop();
  TraceOutput& output = trace.output();
  if (abrupt) output.flush();
  const std::int64_t wait_ns =
      abrupt ? 0 : static_cast<std::int64_t>(settings().exit_wait_ms) * 1000000;
  const std::uint64_t incomplete = trace.harvester.finish(wait_ns, /*release_events=*/!abrupt);
  if (abrupt) output.flush();
  if (abrupt_signal != 0) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "the process was ended by signal %d (%s); the trace holds what completed "
                  "before it",
                  abrupt_signal, caught_signal_name(abrupt_signal));
    output.write_line(LineKind::Warning,
                      JsonLine(tf::warning::kTypeName)
                          .str(tf::warning::message, message)
                          .num(tf::warning::host_ns, to_trace_ns(monotonic_now_ns()))
                          .finish());
  }
  write_open_range_ends(output);
  for (const ClockSyncFacts& c : final_clock_syncs(trace.completion.clocks().brackets())) {
    output.write_line(LineKind::ClockSync, format_clock_sync_line(c));
  }
  output.finish(to_trace_ns(monotonic_now_ns()), incomplete);
}

// An abrupt ending's last round, on the harvester's thread (Harvester::request_final_round).
void final_round_on_harvester() {
  if (ProcessTrace* t = g_process_trace.load(std::memory_order_acquire)) {
    end_trace(*t, /*abrupt=*/true, g_ending_signal.load(std::memory_order_relaxed));
  }
}

// The longest an abrupt ending waits for the harvester's last round.
std::int64_t abrupt_wait_ns() {
  constexpr std::uint64_t kFloorMs = 500;
  const std::uint64_t ms = std::max<std::uint64_t>(settings().exit_wait_ms, kFloorMs);
  return static_cast<std::int64_t>(std::min<std::uint64_t>(ms, 60000)) * 1000000;
}

// Waits (async-signal-safe) until the harvester reports the last round done, at most
// abrupt_wait_ns().
void wait_for_final_round(const Harvester& harvester) {
  const std::int64_t deadline_ns = monotonic_now_ns() + abrupt_wait_ns();
  while (!harvester.final_round_done() && monotonic_now_ns() < deadline_ns) {
    const timespec pause{0, 100000};
    nanosleep(&pause, nullptr);
  }
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
    trace = g_process_trace.load();
    if (state != kActive) {
      // An abrupt ending on another thread got there first: its last round is under way.
      if (trace && trace->pid == static_cast<long>(getpid()) &&
          trace->harvester.final_round_requested() && !trace->harvester.is_current_thread()) {
        lock.unlock();
        wait_for_final_round(trace->harvester);
      }
      return;
    }
  }
  if (trace) end_trace(*trace, /*abrupt=*/false, 0);
}

// The harvester is parked first: it may need the locks taken next to reach its parking
// point.
void fork_prepare() {
  g_forking.store(true);
  g_fork_child_without_threads = tsan_runtime_loaded() && thread_count() > 1;
  ProcessTrace* t = g_process_trace.load(std::memory_order_acquire);
  if (t && !t->harvester.park_for_fork(std::chrono::milliseconds(250))) {
    log_message(LogLevel::Debug, "fork: the background thread did not park within 250 ms");
  }
  g_lifecycle_mutex.lock();
  objects_fork_prepare();
  thread_states_fork_prepare();  // after the registries: a lookup may list its thread
  fatal_signals_fork_prepare();
}

void fork_parent() {
  fatal_signals_fork_parent();
  thread_states_fork_parent();
  objects_fork_parent();
  g_lifecycle_mutex.unlock();
  if (ProcessTrace* t = g_process_trace.load(std::memory_order_acquire)) t->harvester.unpark();
  g_forking.store(false);
}

void fork_child() {
  g_this_child_without_threads = g_fork_child_without_threads;
  fatal_signals_fork_child();
  thread_states_fork_child();
  objects_fork_child();
  // The parent's harvester does not exist here and its ring may hold half-written
  // slots: the child leaves that trace behind and starts its own on its next OpenCL call.
  if (ProcessTrace* parent = g_process_trace.load(std::memory_order_relaxed)) leave_behind(parent);
  g_process_trace.store(nullptr, std::memory_order_relaxed);
  if (g_recording_state.load() == kActive) g_recording_state.store(kUninit);
  g_lifecycle_mutex.unlock();
  g_forking.store(false);
}

__attribute__((constructor)) void shim_load() {
  // Children inherit the root pid, so only the first process writes CLPROF_OUTPUT as is.
  // (Empty counts as unset, as for every setting.)
  const char* root = secure_getenv("CLPROF_ROOT_PID");
  if (!root || !*root) {
    const std::string pid = std::to_string(getpid());
    setenv("CLPROF_ROOT_PID", pid.c_str(), 1);
  }
  ensure_session_id();
  pthread_atfork(fork_prepare, fork_parent, fork_child);
  // Later, with the driver's threads sharing the table, growing it stalls (trace_writer.hpp).
  if (thread_count() == 1) TraceWriter::grow_descriptor_table();
  // Now, before main: exit() runs handlers in reverse order, so the trace ends after the
  // app's own exit handlers and static destructors, and records the OpenCL they use.
  std::atexit(atexit_finalize);
  at_quick_exit(at_quick_exit_finalize);
}

// Fallback when atexit never ran (e.g. the library is unloaded); a no-op otherwise. The
// kernel gets the app's signal dispositions back: the shim's handler is about to go.
__attribute__((destructor)) void shim_unload() {
  finalize_trace();
  release_fatal_signals();
}

}  // namespace

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

void end_abruptly(int sig) {
  ProcessTrace* t = g_process_trace.load(std::memory_order_acquire);
  // Nothing recorded here: no trace, a fork child's inherited one, or a vfork child's
  // parent's (which must see no write from the child).
  if (!t || t->pid != static_cast<long>(getpid())) return;
  if (t->harvester.is_current_thread()) return;  // it cannot wait for itself
  int expected = kActive;
  if (g_recording_state.compare_exchange_strong(expected, kFinalized)) {
    g_ending_signal.store(sig, std::memory_order_relaxed);
    // Waking takes the harvester's wake mutex and signals its condition: not from a thread
    // that may be inside that code (in a hook, or forking).
    const ThreadState* ts = t_thread_state;
    const bool may_wake = (!ts || ts->hook_depth == 0) && !g_forking.load();
    t->harvester.request_final_round(may_wake);
  } else if (!t->harvester.final_round_requested()) {
    return;  // not recording, or an ordinary ending is under way
  }
  wait_for_final_round(t->harvester);
  // The harvester is stuck (a lock that a crashed thread holds, or one a fork child
  // inherited held, as gcc 12's AddressSanitizer allocator), or starved: the file
  // ends with the last line written, without its end record. Said once, as the shim's
  // own failures are (vsnprintf of an integer and write(2)).
  if (!t->harvester.final_round_done()) {
    log_once_warn(
        "the background thread did not end the trace within %lld ms; it ends at the "
        "last record written (a trace cut short)",
        static_cast<long long>(abrupt_wait_ns() / 1000000));
  }
}

}  // namespace clprof::shim
