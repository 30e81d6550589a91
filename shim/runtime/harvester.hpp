// The harvester: the shim's one background thread. It sleeps between rounds (from the poll
// interval up to kLongestSleepNs, longer while rounds find little), or until woken (a
// quarter of the ring filled, a producer waits for space), then drains the ring and polls
// the commands still running (RecordCompletion), recalibrates the host ticks, and flushes
// the trace on a timer (TraceOutput). Its pacing lives here (run()): a real backlog keeps it
// going without a pause, anything less lets it sleep, so records are drained in batches
// and the CPU is left to the driver's threads, which on a CPU device run the app's kernels.
//
// Threads: start() and stop() on the lifecycle's thread (start-up, ending); wake(),
// app_sync_point() and wait_for_space() on the app's enqueuing threads;
// request_final_round() and the final-round queries on any thread, signal handlers
// included; park_for_fork() and unpark() in the pthread_atfork handlers; everything else
// on the harvester's own thread. Ownership: the
// thread is a plain pthread owning no heap state (a fork child, where it does not exist,
// leaks none); the completion (with the ring and the output) is the ProcessTrace's. Clocks:
// waits are measured on CLOCK_MONOTONIC (MonotonicCondition).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <mutex>

#include "output/trace_output.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "runtime/completion.hpp"
#include "runtime/monotonic_condition.hpp"

namespace clprof::shim {

class Harvester final : private DrainListener {
 public:
  // The longest sleep between two rounds (CLOCK_MONOTONIC ns), reached while rounds find
  // few records; a record waits at most this long plus a round before it is written to the
  // writer's buffer (unless a producer or a sync point wakes the harvester first).
  static constexpr std::int64_t kLongestSleepNs = 16000000;
  // Ring cells faulted in when the thread starts (~2.6 KB each).
  static constexpr std::size_t kFirstPopulatedCells = 64;

  explicit Harvester(RecordCompletion& completion)
      : ring_(completion.ring()), completion_(completion), output_(completion.output()) {}

  // Starts the thread, with every signal blocked (it must never run the app's signal
  // handlers). `final_round` is what the thread runs when an abrupt ending asks for it
  // (request_final_round). 0, or pthread_create's error.
  int start(void (*final_round)());
  // Stops the thread and waits for it (detaches it when called on it); after this the
  // caller owns the completion and the output. Idempotent.
  void stop();
  // The end of the trace, after stop() (or on the harvester's own thread, once it left
  // its loop for an abrupt ending): completes what the ring and the pending commands
  // hold, waiting at most `wait_ns` for running ones (RecordCompletion::finish). Returns
  // the number of records written incomplete.
  std::uint64_t finish(std::int64_t wait_ns, bool release_events = true) {
    return completion_.finish(*this, wait_ns, release_events);
  }

  // The app reached a sync point (clFinish, clWaitForEvents, a blocking transfer or map):
  // what it waited for is done. Marks the harvester's next round a sync round and wakes
  // it: that round drains and polls at once, and then writes what it completed to the
  // file instead of leaving it to the flush timer (at most once per kSyncFlushGapNs), so
  // the work survives any ending, SIGKILL included, within about a millisecond. On the
  // app's thread this adds one store to wake() (callgrind counts in the commit that made
  // it): the app never formats or writes a record.
  void app_sync_point() {
    sync_round_.store(true, std::memory_order_release);  // after the sync record's publish
    wake();
  }
  // A sync round's records wait at most this long after the file's last write (a write
  // per clFinish would cost an app that waits after every launch a system call each).
  static constexpr std::int64_t kSyncFlushGapNs = 1000000;

  // An abrupt ending (runtime/lifecycle.hpp): asks the harvester for the trace's last
  // round. It leaves its loop at the top of its next round (woken now when `may_wake`,
  // else within one sleep: it never sleeps longer than the poll interval), runs
  // `final_round` (given to start()) on its own thread and then reports it done.
  // Async-signal-safe: atomic stores, and with `may_wake` a try-lock of the wake mutex
  // and a condition signal (the caller passes false when this thread may be inside
  // wake() itself).
  void request_final_round(bool may_wake);
  bool final_round_requested() const { return final_requested_.load(std::memory_order_acquire); }
  bool final_round_done() const { return final_done_.load(std::memory_order_acquire); }
  // True on the harvester's own thread. Async-signal-safe.
  bool is_current_thread() const { return started_ && pthread_equal(thread_, pthread_self()); }

  // Never blocks; takes the mutex and signals only when the harvester is asleep (while it
  // works through a backlog it drains again without waiting, so a nudge is not needed).
  void wake();
  // The ring was full (a producer): sleeps until the harvester has freed a batch of
  // slots (it notifies every RecordCompletion::kSpaceBatch records and when it has
  // drained the ring), at most `timeout`, then tries to claim. Blocking instead of
  // spinning leaves the CPU to the harvester, and the producer then fills a batch at once
  // instead of following the harvester slot by slot. The timeout bounds the rare wait
  // that misses a notify (registered just after the harvester's last one).
  MpscRing<OpRecord>::Slot wait_for_space(std::chrono::microseconds timeout);

  // fork(), before: stops the harvester at the top of its loop, where it holds no lock
  // (ours, the driver's or the allocator's), so the child inherits none of them held. An
  // allocator that does not take its own locks around fork (the AddressSanitizer runtime
  // of GCC 12) otherwise hangs the child now and then. Waits at most `timeout`; false if
  // the harvester is still running then.
  bool park_for_fork(std::chrono::milliseconds timeout);
  // fork(), after, in the parent: lets the harvester go on.
  void unpark();

 private:
  static void* thread_main(void* self);
  void run();
  void park();  // the harvester's side of park_for_fork()
  // DrainListener: wakes producers waiting for space; false when a fork waits.
  bool cells_freed() override;

  MpscRing<OpRecord>& ring_;
  RecordCompletion& completion_;
  TraceOutput& output_;
  pthread_t thread_{};
  bool started_ = false;
  std::mutex wake_mutex_;
  MonotonicCondition wake_cv_;
  bool wake_flag_ = false;             // guarded by wake_mutex_
  std::atomic<bool> stop_{false};      // written under wake_mutex_
  std::atomic<bool> sleeping_{false};  // the harvester waits (or is about to) on wake_cv_
  std::mutex park_mutex_;              // park_for_fork() and the harvester
  MonotonicCondition park_cv_;
  std::atomic<bool> park_requested_{false};  // written under park_mutex_
  bool parked_ = false;                      // guarded by park_mutex_
  bool running_ = true;                      // guarded by park_mutex_; false once it returned
  std::mutex space_mutex_;                   // producers waiting for ring space
  MonotonicCondition space_cv_;
  std::atomic<unsigned> space_waiters_{0};
  std::atomic<bool> sync_round_{false};  // an app sync point since the last round began
  bool sync_flush_due_ = false;          // the harvester's: a sync round's records wait
  void (*final_round_)() = nullptr;
  std::atomic<bool> final_requested_{false};
  std::atomic<bool> final_done_{false};
};

}  // namespace clprof::shim
