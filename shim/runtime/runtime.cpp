#include "runtime/runtime.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "recording/clock_sync.hpp"
#include "runtime/handbacks.hpp"
#include "recording/host_clock.hpp"
#include "runtime/log.hpp"
#include "runtime/monotonic_condition.hpp"
#include "recording/objects.hpp"
#include "output/output_names.hpp"
#include "runtime/process_facts.hpp"
#include "loader/real_opencl.hpp"
#include "output/record_format.hpp"
#include "output/trace_writer.hpp"

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;

constexpr std::size_t kRingCapacity = 2048;
constexpr std::size_t kSpaceBatch = 256;  // producers blocked on a full ring wake per batch
constexpr std::size_t kBusyRecords = kRingCapacity / 8;  // a drain this long: go again at once
// How much of the next ring cell the harvester prefetches: the cell's header, the record's
// fixed fields and its first four arguments (offsetof(OpRecord, args) + 4 ArgSnapshots).
constexpr std::size_t kPrefetchBytes = 640;
static_assert(2 * sizeof(std::size_t) + offsetof(OpRecord, args) + 4 * sizeof(ArgSnapshot) <=
              kPrefetchBytes);

enum State : int { kUninit = 0, kActive = 1, kPassThrough = 2, kFinalized = 3 };

std::mutex g_init_mutex;  // guards session start, finalisation and the thread list
std::int64_t g_host_start_ns = 0;
bool g_atexit_registered = false;

std::vector<ThreadState*>& thread_list() {
  static auto* v = new std::vector<ThreadState*>;
  return *v;
}

// Private events the harvester is done with (Handbacks) go back to the app's threads
// through the ring itself: each freed cell carries one to the producer that claims the
// cell next, which releases it after publishing its own record. The driver allocated the
// event on an enqueuing thread: freeing it on one too, one for one, keeps the allocator's
// per-thread cache balanced (releases on the harvester made the two threads fight over
// the allocator's lock on every launch), and riding in the cell costs the producer no
// cache line it does not already write. An event whose command was still running when
// its cell was freed rides in a cell freed earlier without one (Session::hand_back). The
// harvester releases events itself only when the app stopped enqueuing (Session::on_idle),
// at the end, and beyond Handbacks::kMaxWaiting waiting ones. Measured on PoCL, which lags
// behind the app: with only the next freed cell, ~2,000 events waited after 200,000
// launches and peak memory rose from ~90 to 97-102 MB between 200,000 and 3.2 M launches;
// a cap of 256 alone kept it flat but cost 3-6% per launch (the harvester released the
// rest itself); with earlier cells it stays at ~89 MB and runs as fast as before.
void release_private_event(void* event) {
  real().clReleaseEvent(static_cast<cl_event>(event));
}

// The trace of one process: a fork child starts a new one and leaks the parent's.
class Session {
 public:
  long pid = 0;  // the process that started it (a vfork child shares it, with another pid)
  MpscRing<OpRecord> ring{kRingCapacity};
  TraceWriter writer;
  Handbacks handbacks{release_private_event};  // harvester (then finaliser) only

  // 0, or pthread_create's error if the thread could not be started. A plain pthread
  // (no std::thread): it owns no heap state, so a fork child, where the thread does not
  // exist, leaks none.
  int start_harvester() {
    // The harvester must never run the app's signal handlers.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int error = pthread_create(&thread_, nullptr, &Session::harvester_main, this);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    harvester_started_ = error == 0;
    return error;
  }

  // A session a fork child inherited (its harvester does not exist there, its ring may
  // hold half-written slots): never freed, and kept reachable from g_left_behind so that
  // leak checkers (LeakSanitizer in an app built with it) see no leak.
  Session* next_left_behind = nullptr;

  // Never blocks; takes the mutex and signals only when the harvester is asleep (while it
  // works through a backlog it drains again without waiting, so a nudge is not needed).
  void wake() {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with the harvester's
    if (!sleeping_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> lock(wake_mutex_);
      wake_flag_ = true;
    }
    wake_cv_.notify_one();
  }

  // The ring was full (a producer): sleeps until the harvester has freed a batch of
  // slots (it notifies every kSpaceBatch records and when it has drained the ring), at
  // most `timeout`, then tries to claim. Blocking instead of spinning leaves the CPU to
  // the harvester, and the producer then fills a batch at once instead of following
  // the harvester slot by slot. The timeout bounds the rare wait that misses a notify
  // (registered just after the harvester's last one).
  MpscRing<OpRecord>::Slot wait_for_space(std::chrono::microseconds timeout) {
    std::unique_lock<std::mutex> lock(space_mutex_);
    space_waiters_.fetch_add(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with notify_space()
    wake();
    space_cv_.wait_for(lock, timeout);
    space_waiters_.fetch_sub(1, std::memory_order_relaxed);
    lock.unlock();
    return ring.try_claim();
  }

  // fork(), before: stops the harvester at the top of its loop, where it holds no lock
  // (ours, the driver's or the allocator's), so the child inherits none of them held. An
  // allocator that does not take its own locks around fork (the AddressSanitizer runtime
  // of GCC 12) otherwise hangs the child now and then. Waits at most `timeout`; false if
  // the harvester is still running then.
  bool park_for_fork(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(park_mutex_);
    if (!harvester_running_) return true;
    park_requested_.store(true, std::memory_order_relaxed);
    lock.unlock();
    wake();
    lock.lock();
    return park_cv_.wait_for(lock, timeout, [this] { return parked_ || !harvester_running_; });
  }
  // fork(), after, in the parent: lets the harvester go on.
  void unpark() {
    {
      std::lock_guard<std::mutex> lock(park_mutex_);
      park_requested_.store(false, std::memory_order_relaxed);
    }
    park_cv_.notify_all();
  }

  // Stops the harvester, then finishes the trace on the calling thread.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(wake_mutex_);
      stop_.store(true);
    }
    wake_cv_.notify_one();
    if (harvester_started_) {
      harvester_started_ = false;
      if (pthread_equal(thread_, pthread_self())) {
        pthread_detach(thread_);
      } else {
        pthread_join(thread_, nullptr);
      }
    }
    calibrate(false);
    while (drain_ring() == ring.capacity()) {
    }
    const std::int64_t deadline_ns =
        monotonic_now_ns() + static_cast<std::int64_t>(settings().exit_wait_ms) * 1000000;
    while (!pending_.empty() && monotonic_now_ns() < deadline_ns) {
      poll_pending();
      drain_ring();
      if (!pending_.empty()) std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    for (OpRecord* r : pending_) {
      // Still running at exit: written, never dropped. The reference is left to the
      // process's end (the driver may already be shutting down).
      r->status = OpStatus::Incomplete;
      r->has_device_ns = false;
      write_op(*r);
      ++incomplete_;
      pending_copies_.recycle(r);
    }
    pending_.clear();
    handbacks.release_all();
    release_cell_handbacks(0);  // (clamped to the last ring's worth)
    close_open_ranges();
    for (const std::string& line : final_clock_sync_lines(brackets_)) {
      writer.append(line);
      ++line_counts_[static_cast<int>(LineKind::ClockSync)];
    }
    std::vector<std::pair<std::string, std::uint64_t>> counts;
    counts.emplace_back(std::string(tf::kind::kLaunch), op_counts_[0]);
    counts.emplace_back(std::string(tf::kind::kTransfer), op_counts_[1]);
    counts.emplace_back(std::string(tf::kind::kSync), op_counts_[2]);
    for (int k = 0; k < static_cast<int>(LineKind::Count); ++k) {
      counts.emplace_back(std::string(line_kind_name(static_cast<LineKind>(k))), line_counts_[k]);
    }
    writer.finish(format_end_record(to_trace_ns(monotonic_now_ns()), counts, incomplete_, 0));
    warn_if_lost();
  }

 private:
  static void* harvester_main(void* self) {
    static_cast<Session*>(self)->harvest_loop();
    return nullptr;
  }

  void harvest_loop() {
    pthread_setname_np(pthread_self(), "clprof-harvest");
    harvest();
    {
      std::lock_guard<std::mutex> lock(park_mutex_);
      harvester_running_ = false;
    }
    park_cv_.notify_all();
  }

  // The harvester's side of park_for_fork().
  void park() {
    std::unique_lock<std::mutex> lock(park_mutex_);
    parked_ = true;
    park_cv_.notify_all();
    park_cv_.wait(lock, [this] { return !park_requested_.load(std::memory_order_relaxed); });
    parked_ = false;
  }

  void harvest() {
    std::int64_t last_flush_ns = monotonic_now_ns();
    std::uint64_t writes_seen = writer.writes();
    const auto poll =
        std::chrono::microseconds(std::max<std::uint64_t>(settings().poll_interval_us, 50));
    const std::int64_t flush_every_ns =
        static_cast<std::int64_t>(settings().flush_interval_ms) * 1000000;
    const std::int64_t poll_ns = static_cast<std::int64_t>(poll.count()) * 1000;
    std::int64_t last_calibration_ns = 0;
    bool busy = false;
    for (;;) {
      if (park_requested_.load(std::memory_order_relaxed)) park();
      if (busy) {
        // A backlog: go again at once (no lock, no sleep) while records keep coming.
        if (stop_.load(std::memory_order_relaxed)) return;
      } else {
        on_idle();
        sleeping_.store(true, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with wake()
        std::unique_lock<std::mutex> lock(wake_mutex_);
        if (!ring.front()) {
          wake_cv_.wait_for(lock, poll, [this] { return wake_flag_ || stop_.load(); });
        }
        wake_flag_ = false;
        sleeping_.store(false, std::memory_order_relaxed);
        if (stop_.load()) return;
      }
      std::int64_t now_ns = monotonic_now_ns();
      if (now_ns - last_calibration_ns >= poll_ns) {
        calibrate(false);
        last_calibration_ns = now_ns;
      }
      std::size_t n = drain_ring();
      poll_pending();
      n += drain_ring();
      // Only a real backlog keeps the harvester going without a pause. Otherwise it
      // sleeps a poll interval (producers nudge it every quarter ring, sync points at
      // once): draining in batches costs less per record and leaves the CPU to the
      // driver's own threads, which on a CPU device run the app's kernels.
      busy = n >= kBusyRecords;
      // The writer writes by itself as its buffer fills; the timer writes what waits
      // when records come slowly.
      now_ns = monotonic_now_ns();
      if (writer.writes() != writes_seen) {
        writes_seen = writer.writes();
        last_flush_ns = now_ns;
      } else if (writer.buffered_bytes() > 0 && now_ns - last_flush_ns >= flush_every_ns) {
        writer.flush();
        writes_seen = writer.writes();
        last_flush_ns = now_ns;
      }
      warn_if_lost();
    }
  }

  // The app closed the trace's descriptor (or put another file there): say so once. The
  // harvester goes on releasing events; the records are dropped.
  void warn_if_lost() {
    if (!writer.lost() || lost_warned_) return;
    lost_warned_ = true;
    log_message(LogLevel::Warn,
                "the program closed the trace file's descriptor (or opened another file in its "
                "place); the trace stops there, nothing is written to that descriptor");
  }

  // Calibrates host ticks against CLOCK_MONOTONIC (paired reads, best of a few).
  void calibrate(bool first) {
    std::int64_t best_gap = INT64_MAX, mid_ns = 0;
    std::uint64_t ticks = 0;
    for (int i = 0; i < 5; ++i) {
      const std::int64_t a = monotonic_now_ns();
      const std::uint64_t t = host_ticks_now();
      const std::int64_t b = monotonic_now_ns();
      if (b - a < best_gap) {
        best_gap = b - a;
        mid_ns = a + (b - a) / 2;
        ticks = t;
      }
    }
    if (first) {
      ticks_.reset(!g_ticks_are_tsc.load(), ticks, mid_ns);
    } else {
      ticks_.add_point(ticks, mid_ns);
    }
  }

 public:
  void start_clock() {
    calibrate(true);
    // A first slope from a 2 ms baseline; the harvester lengthens it as the run goes.
    const std::int64_t until_ns = monotonic_now_ns() + 2000000;
    while (monotonic_now_ns() < until_ns) {
    }
    calibrate(false);
  }

 private:
  // Formats the published records, at most a ring's worth; returns how many. (The writer
  // writes as its buffer fills, so a long backlog does not grow its memory.) The cap lets
  // the caller poll the pending commands at least once per ring's worth: an app that keeps
  // the ring from running dry would otherwise keep one call going while the commands it
  // drained complete unseen, their copies and events piling up (measured: 20,000 events
  // alive where the design holds 6,703).
  std::size_t drain_ring() {
    std::size_t n = 0;
    while (n < ring.capacity()) {
      OpRecord* r = ring.front();
      if (!r) break;
      // The producers wrote the next record on another core: its lines (the fixed
      // fields and the first four arguments) arrive while this one is formatted.
      // Measured side by side: ~7 ns per launch less on the fake driver, ~13 ns less CPU.
      ring.prefetch_next(kPrefetchBytes);
      take(*r);
      const std::size_t pos = ring.dequeue_pos();
      void* handback = handbacks.next();
      if (void* left = ring.pop(handback)) handbacks.add(left);
      if (!handback) freed_cells_.push(pos);
      ++n;
      if ((n & (kSpaceBatch - 1)) == 0) {
        notify_space();
        // Another thread may keep the ring from ever running dry: fork() must not wait.
        if (park_requested_.load(std::memory_order_relaxed)) break;
      }
    }
    if (n) notify_space();
    popped_since_idle_ += n;
    return n;
  }

  // The app went quiet (nothing drained for a whole poll interval): release the events
  // still waiting to be handed back, and those left in cells no producer has claimed
  // since, so none is kept while the app does not enqueue.
  void on_idle() {
    if (popped_since_idle_ == 0) {
      handbacks.release_all();
      release_cell_handbacks(handback_scan_from_);
      freed_cells_.clear();
    }
    popped_since_idle_ = 0;
  }

  // A private event whose command was still running when its record was drained (the
  // usual case on a driver that lags behind the app) goes back to an app thread in a cell
  // freed earlier without one, if a producer has not claimed that cell since, else it
  // waits for the next freed cell (Handbacks). Without the first way such a driver kept
  // the harvester's backlog of events growing for as long as the app kept enqueuing.
  // (An event that completed before its record was drained rides in that record's own
  // cell: offering it an earlier one would cost a read of the producers' line.)
  void hand_back(void* event) {
    std::size_t pos = 0;
    while (freed_cells_.pop(pos)) {
      if (ring.offer_handback(pos, event)) {
        handback_scan_from_ = std::min(handback_scan_from_, pos);  // on_idle looks there too
        return;
      }
    }
    handbacks.add(event);
  }

  // Releases the hand-backs left in cells freed at positions [from, dequeue) (at most one
  // ring's worth back); a producer claiming a cell meanwhile takes its event instead.
  void release_cell_handbacks(std::size_t from) {
    const std::size_t end = ring.dequeue_pos();
    if (end - from > ring.capacity()) from = end - ring.capacity();
    for (std::size_t pos = from; pos < end; ++pos) {
      if (void* e = ring.take_handback(pos)) real().clReleaseEvent(static_cast<cl_event>(e));
    }
    handback_scan_from_ = end;
  }

  // Wakes producers blocked on a full ring (a fence and a load when there are none).
  void notify_space() {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with wait_for_space()
    if (space_waiters_.load(std::memory_order_relaxed) == 0) return;
    { std::lock_guard<std::mutex> lock(space_mutex_); }
    space_cv_.notify_all();
  }

  // The harvester owns a drained slot until it pops it: a command that is done by now
  // (the usual case) is finished and written straight from its slot, and only one still
  // running is copied (the slot goes back to the producers right after). Measured side by
  // side against finishing from a private copy: ~8 ns per launch less on the fake driver
  // (the copy was the harvester's largest single item once the slot was prefetched).
  void take(OpRecord& slot) {
    if (slot.kind == RecordKind::Line) {
      if (slot.line) {
        writer.append(slot.line);
        std::free(slot.line);
        ++line_counts_[static_cast<int>(slot.line_kind)];
      }
      return;
    }
    Probe probe;
    const cl_int exec = slot.event ? execution_status(slot, probe) : CL_COMPLETE;
    OpRecord* const copy = exec > CL_COMPLETE ? pending_copies_.copy(slot) : nullptr;
    OpRecord& r = copy ? *copy : slot;
    r.seq = ++op_seq_;
    r.has_device_ns = false;
    r.host_begin_ns =
        to_trace_ns(ticks_.to_monotonic_ns(static_cast<std::uint64_t>(slot.host_begin_ns)));
    r.host_end_ns =
        to_trace_ns(ticks_.to_monotonic_ns(static_cast<std::uint64_t>(slot.host_end_ns)));
    if (!r.event) {
      write_op(r);
    } else if (copy) {
      pending_.push_back(copy);
    } else if (exec <= CL_COMPLETE) {
      complete(r, exec, probe);
    } else {
      // Out of memory for a pending copy: keep the record, lose the device times.
      drop_reference(r);
      write_op(r);
    }
  }

  // What execution_status() learnt on the way: the END time, when it had it.
  struct Probe {
    bool have_end = false;
    cl_ulong end_ns = 0;
  };
  // CL_COMPLETE, a running state or an error. Asks for the END time first: a driver
  // gives profiling times only for a complete command (CL_PROFILING_INFO_NOT_AVAILABLE
  // while it runs or after an error, per the spec), so one query both tells a finished
  // command and yields a time complete() needs anyway: one driver call less per command
  // (and some drivers' status query does more than read: Intel's flushes the queue).
  // A zero END is not trusted (a driver that answers early would give one): the
  // status is asked then, as it is for every command still running.
  static cl_int execution_status(const OpRecord& r, Probe& probe) {
    if (real().clGetEventProfilingInfo(static_cast<cl_event>(r.event), CL_PROFILING_COMMAND_END,
                                       sizeof probe.end_ns, &probe.end_ns, nullptr) == CL_SUCCESS &&
        probe.end_ns != 0) {
      probe.have_end = true;
      return CL_COMPLETE;
    }
    cl_int exec = CL_QUEUED;
    if (real().clGetEventInfo(static_cast<cl_event>(r.event), CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof exec, &exec, nullptr) != CL_SUCCESS) {
      exec = CL_INVALID_EVENT;
    }
    return exec;
  }

  // Polls pending commands in enqueue order. On an in-order queue nothing completes
  // before the command ahead of it, so one running command ends the queue's poll.
  void poll_pending() {
    blocked_queues_.clear();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      OpRecord* r = pending_[i];
      const bool blocked = r->in_order_queue &&
                           std::find(blocked_queues_.begin(), blocked_queues_.end(), r->queue_id) !=
                               blocked_queues_.end();
      Probe probe;
      const cl_int exec = blocked ? CL_QUEUED : execution_status(*r, probe);
      if (exec > CL_COMPLETE) {
        if (r->in_order_queue && !blocked) blocked_queues_.push_back(r->queue_id);
        pending_[kept++] = r;
        continue;
      }
      complete(*r, exec, probe, /*from_pending=*/true);
      pending_copies_.recycle(r);
    }
    pending_.resize(kept);
  }

  // Lets go of the record's event: the app's is released now, a private one goes back to
  // an app thread (hand_back). `from_pending`: the record was drained earlier, its cell
  // is long gone (else the cell being freed now takes the event).
  void drop_reference(OpRecord& r, bool from_pending = false) {
    auto ev = static_cast<cl_event>(r.event);
    if (r.app_event) {
      event_ref_release(ev);
    } else if (from_pending) {
      hand_back(ev);
    } else {
      handbacks.add(ev);
    }
    r.event = nullptr;
  }

  void complete(OpRecord& r, cl_int exec, const Probe& probe, bool from_pending = false) {
    const RealTable& cl = real();
    auto ev = static_cast<cl_event>(r.event);
    static constexpr cl_profiling_info kWhat[4] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};
    r.has_device_ns = true;
    for (int k = 0; k < 4; ++k) {
      if (k == 3 && probe.have_end) {  // asked already (execution_status)
        r.device_ns[3] = probe.end_ns;
        break;
      }
      cl_ulong t = 0;
      if (cl.clGetEventProfilingInfo(ev, kWhat[k], sizeof t, &t, nullptr) != CL_SUCCESS) {
        r.has_device_ns = false;
        break;
      }
      r.device_ns[k] = t;
    }
    r.status = exec < 0 ? OpStatus::Error : OpStatus::Complete;
    r.exec_status = exec;
    drop_reference(r, from_pending);
    if (r.has_device_ns && r.status == OpStatus::Complete && r.device_id != 0) {
      if (r.device_id != bracket_device_) {  // one device per run is the usual case
        bracket_ = &brackets_[r.device_id];  // nodes are stable across rehashes
        bracket_device_ = r.device_id;
      }
      bracket_->add(r.host_begin_ns, r.host_end_ns, r.device_ns[0]);
    }
    write_op(r);
  }

  void write_op(const OpRecord& r) {
    // Straight into the writer's buffer: no intermediate string, no allocation.
    writer.end_record(
        format_op(r, writer.begin_record(op_chars_bound(r, &text_cache_)), &text_cache_));
    ++op_counts_[r.kind == RecordKind::Launch ? 0 : r.kind == RecordKind::Transfer ? 1 : 2];
  }

  void close_open_ranges() {
    const std::int64_t now_ns = to_trace_ns(monotonic_now_ns());
    std::vector<ThreadState*> threads;
    {
      // Other threads may still be ending (and unlisting their state) meanwhile.
      std::lock_guard<std::mutex> lock(g_init_mutex);
      threads = thread_list();
    }
    for (ThreadState* t : threads) {
      while (t->ranges.depth() > 0) {
        bool was_open = false;
        const std::uint32_t id = t->ranges.pop(was_open);
        if (id == 0) continue;
        writer.append(JsonLine(tf::kind::kRangeEnd)
                          .unum(tf::field::kId, id)
                          .num(tf::field::kTid, t->tid)
                          .num(tf::field::kHostNs, now_ns)
                          .boolean(tf::field::kOpen, true)
                          .finish());
        ++line_counts_[static_cast<int>(LineKind::RangeEnd)];
      }
    }
  }

  pthread_t thread_{};
  bool harvester_started_ = false;
  std::mutex wake_mutex_;
  MonotonicCondition wake_cv_;
  bool wake_flag_ = false;             // guarded by wake_mutex_
  std::atomic<bool> stop_{false};      // written under wake_mutex_
  std::atomic<bool> sleeping_{false};  // the harvester waits (or is about to) on wake_cv_
  std::mutex park_mutex_;              // park_for_fork() and the harvester
  MonotonicCondition park_cv_;
  std::atomic<bool> park_requested_{false};  // written under park_mutex_
  bool parked_ = false;                      // guarded by park_mutex_
  bool harvester_running_ = true;            // guarded by park_mutex_; false once it returned
  std::mutex space_mutex_;                   // producers waiting for ring space
  MonotonicCondition space_cv_;
  std::atomic<unsigned> space_waiters_{0};
  std::vector<OpRecord*> pending_;  // in enqueue order
  std::uint64_t op_seq_ = 0;        // last seq given (launch, transfer, sync), ring order
  std::size_t popped_since_idle_ = 0;
  std::size_t handback_scan_from_ = 0;
  std::vector<std::uint64_t> blocked_queues_;
  PendingCopies pending_copies_;           // the records in pending_ live here
  FreedCells freed_cells_{kRingCapacity};  // cells freed without a hand-back
  std::unordered_map<std::uint64_t, BracketEstimator> brackets_;
  LaunchTextCache text_cache_;        // harvester (then finaliser) only
  std::uint64_t bracket_device_ = 0;  // device of bracket_ (0: none yet)
  BracketEstimator* bracket_ = nullptr;
  TickConverter ticks_;
  std::uint64_t op_counts_[3] = {};
  std::uint64_t line_counts_[static_cast<int>(LineKind::Count)] = {};
  std::uint64_t incomplete_ = 0;
  bool lost_warned_ = false;  // harvester, then finaliser
};

std::atomic<Session*> g_session{nullptr};
Session* g_left_behind = nullptr;  // sessions of ancestor processes (fork children)

void atexit_finalize() {
  finalize_trace();
}

// ThreadSanitizer (in an app built with it) kills a fork child that starts a thread when
// the parent had more than one at the fork ("starting new threads after multi-threaded
// fork is not supported"; with TSAN_OPTIONS=die_after_fork=0 it reported "dup thread" and
// exited 66 all the same). Such a child runs untouched rather than die: fork_prepare
// decides, the child's first OpenCL call warns.
bool g_fork_child_without_threads = false;  // the next fork child must not start threads
bool g_this_child_without_threads = false;  // this process is such a child

// Called with g_init_mutex held.
int start_session() {
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
  g_host_start_ns = monotonic_now_ns();
  HeaderFacts h;
  h.pid = getpid();
  h.ppid = getppid();
  h.command_line = command_line();
  h.start_unix_ns = unix_now_ns();
  h.host_start_ns = g_host_start_ns;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  h.host_name = host;
  h.clprof_version = CLPROF_VERSION;
  h.settings = settings_as_text(s);
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
  auto* session = new Session;
  session->pid = h.pid;
  std::string error;
  if (!session->writer.open(path, format_header_line(h), error)) {
    log_once_warn("%s; running untouched", error.c_str());
    delete session;
    return kPassThrough;
  }
  log_message(LogLevel::Info, "recording to %s", path.c_str());
  g_ticks_are_tsc.store(tsc_is_host_clock());
  session->start_clock();
  g_session.store(session, std::memory_order_release);
  if (const int error = session->start_harvester()) {
    g_session.store(nullptr, std::memory_order_relaxed);
    session->next_left_behind = g_left_behind;  // its writer holds the file: not freed
    g_left_behind = session;
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

// The harvester is parked first: it may need the locks taken next to reach its parking
// point.
void fork_prepare() {
  g_fork_child_without_threads = tsan_runtime_loaded() && thread_count() > 1;
  Session* s = g_session.load(std::memory_order_acquire);
  if (s && !s->park_for_fork(std::chrono::milliseconds(250))) {
    log_message(LogLevel::Debug, "fork: the background thread did not park within 250 ms");
  }
  g_init_mutex.lock();
  objects_fork_prepare();
}

void fork_parent() {
  objects_fork_parent();
  g_init_mutex.unlock();
  if (Session* s = g_session.load(std::memory_order_acquire)) s->unpark();
}

void fork_child() {
  g_this_child_without_threads = g_fork_child_without_threads;
  objects_fork_child();
  // The parent's harvester does not exist here and its ring may hold half-written
  // slots: the child leaves that session behind and starts its own on its next OpenCL call.
  if (Session* parent = g_session.load(std::memory_order_relaxed)) {
    parent->next_left_behind = g_left_behind;
    g_left_behind = parent;
  }
  g_session.store(nullptr, std::memory_order_relaxed);
  if (g_recording_state.load() == kActive) g_recording_state.store(kUninit);
  auto& threads = thread_list();
  threads.clear();
  if (t_thread_state) {
    t_thread_state->tid = static_cast<int>(syscall(SYS_gettid));
    t_thread_state->ranges.clear();
    threads.push_back(t_thread_state);
  }
  g_init_mutex.unlock();
}

__attribute__((constructor)) void shim_load() {
  // Children inherit the root pid, so only the first process writes CLPROF_OUTPUT as is.
  if (!std::getenv("CLPROF_ROOT_PID")) {
    const std::string pid = std::to_string(getpid());
    setenv("CLPROF_ROOT_PID", pid.c_str(), 0);
  }
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
static_assert(kActive == 1, "runtime.hpp tests the state against 1");

bool recording_active_slow() {
  const int state = g_recording_state.load(std::memory_order_acquire);
  if (state == kActive) return true;
  if (state != kUninit) return false;
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (g_recording_state.load() == kUninit)
    g_recording_state.store(start_session(), std::memory_order_release);
  return g_recording_state.load() == kActive;
}

std::int64_t to_trace_ns(std::int64_t monotonic_ns) {
  return monotonic_ns - g_host_start_ns;
}

thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::vector<ThreadState*>& spare_thread_states() {
  static auto* v = new std::vector<ThreadState*>;
  return *v;
}

// A thread is ending: its state goes back to the pool, so apps that start threads over
// and over do not grow the shim's memory. A state with open ranges stays listed, for
// the finaliser to close them.
void release_thread_state(void* p) {
  auto* t = static_cast<ThreadState*>(p);
  if (t_thread_state == t) t_thread_state = nullptr;
  std::lock_guard<std::mutex> lock(g_init_mutex);
  if (t->ranges.depth() > 0) return;
  auto& list = thread_list();
  const auto it = std::find(list.begin(), list.end(), t);
  if (it == list.end()) return;  // a fork child's stale state
  list.erase(it);
  spare_thread_states().push_back(t);
}

pthread_key_t thread_state_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, release_thread_state);
    return k;
  }();
  return key;
}

}  // namespace

ThreadState& thread_state_slow() {
  const pthread_key_t key = thread_state_key();
  ThreadState* t = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    auto& spare = spare_thread_states();
    if (!spare.empty()) {
      t = spare.back();
      spare.pop_back();
      *t = ThreadState{};  // fresh caches and an empty range stack
    }
  }
  if (!t) t = new ThreadState;
  t->tid = static_cast<int>(syscall(SYS_gettid));
  {
    std::lock_guard<std::mutex> lock(g_init_mutex);
    thread_list().push_back(t);
  }
  t_thread_state = t;
  pthread_setspecific(key, t);
  return *t;
}

MpscRing<OpRecord>::Slot claim_record() {
  Session* s = g_session.load(std::memory_order_acquire);
  auto slot = s->ring.try_claim();
  if (__builtin_expect(slot.value != nullptr, 1)) {
    // Keep the harvester ahead of bursts: a nudge every quarter ring (amortised ~free).
    if ((slot.pos & (kRingCapacity / 4 - 1)) == 0) s->wake();
    return slot;
  }
  // Full: the harvester is behind. Wait rather than drop (every launch once): block
  // until it has freed a batch of slots (it may be sharing this core).
  for (;;) {
    slot = s->wait_for_space(std::chrono::microseconds(200));
    if (slot.value) return slot;
  }
}

void publish_record(const MpscRing<OpRecord>::Slot& slot) {
  g_session.load(std::memory_order_relaxed)->ring.publish(slot);
  if (slot.handback) real().clReleaseEvent(static_cast<cl_event>(slot.handback));
}

void emit_line(LineKind kind, const std::string& json) {
  if (!g_session.load(std::memory_order_acquire)) return;
  char* copy = static_cast<char*>(std::malloc(json.size() + 1));
  if (!copy) return;
  std::memcpy(copy, json.c_str(), json.size() + 1);
  auto slot = claim_record();
  slot.value->kind = RecordKind::Line;
  slot.value->line_kind = kind;
  slot.value->line = copy;
  publish_record(slot);
}

void wake_harvester() {
  if (Session* s = g_session.load(std::memory_order_acquire)) s->wake();
}

namespace {
// `wait`: false gives up when the lock is taken (exec may be called from a signal handler
// that interrupted clprof's own code holding it).
void finalize(bool wait) {
  Session* session = nullptr;
  {
    std::unique_lock<std::mutex> lock(g_init_mutex, std::defer_lock);
    if (wait) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    const int state = g_recording_state.exchange(kFinalized);
    if (state != kActive) return;
    session = g_session.load();
  }
  if (session) session->finish();
}
}  // namespace

void finish_before_exec() {
  Session* s = g_session.load(std::memory_order_acquire);
  // A vfork child runs in its parent's memory until the exec: the trace is the parent's.
  if (!s || s->pid != static_cast<long>(getpid())) return;
  log_message(LogLevel::Debug, "exec: finishing the trace of the image being replaced");
  finalize(false);
}

void finalize_trace() {
  finalize(true);
}

}  // namespace clprof::shim
