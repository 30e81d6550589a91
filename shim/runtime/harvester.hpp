// The harvester: the shim's one background thread. It sleeps between rounds (from the poll
// interval up to kLongestSleepNs, longer while rounds find little), or until woken (a
// half the ring filled, a producer waits for space), then drains the ring and polls
// the commands still running (RecordCompletion), recalibrates the host ticks, and flushes
// the trace on a timer (TraceOutput). Its pacing lives here (run()): a real backlog keeps it
// going without a pause, anything less lets it sleep, so records are drained in batches
// and the CPU is left to the driver's threads, which on a CPU device run the app's kernels.
// It runs under SCHED_BATCH (CLPROF_HARVESTER_BATCH; harvester.cpp says why), so that its
// wake-ups do not preempt them.
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

  // The app reached a sync point (clFinish, clWaitForEvents, a blocking transfer or map)
  // at `now_ticks` (host_ticks_now, read for its record): what it waited for is done.
  // Marks the harvester's next round a sync round: that round writes what it completed to
  // the file instead of leaving it to the flush timer (at most once per kSyncFlushGapNs).
  // The harvester is woken for it only when it has not begun a round for
  // kSyncWakeGapNs (one thread wins that right per gap): a wake per clFinish made it run
  // once per launch in a launch + wait loop, just as the driver should start the next
  // kernel (clpeak --kernel-latency ~37 µs against ~22 without, main's b484be9); at most
  // one per millisecond costs that loop one round per ~45 launches. Otherwise the round
  // that is due (its sleep is at most kLongestSleepNs) takes the mark. So what the app
  // waited for is in the file within ~17 ms whatever ending follows, SIGKILL included;
  // the abrupt endings (lifecycle.hpp) do not depend on it: their last round harvests
  // what completed. On the app's thread: a load (a store when unmarked), a compare, and
  // per gap a compare-exchange and wake(); never a lock it waits for, never a write(2).
  void app_sync_point(std::uint64_t now_ticks) {
    if (!sync_round_.load(std::memory_order_relaxed)) {
      sync_round_.store(true, std::memory_order_release);  // after the sync record's publish
    }
    std::uint64_t quiet_until = quiet_until_ticks_.load(std::memory_order_relaxed);
    if (now_ticks < quiet_until) return;
    if (!quiet_until_ticks_.compare_exchange_strong(
            quiet_until, now_ticks + wake_gap_ticks_.load(std::memory_order_relaxed),
            std::memory_order_relaxed)) {
      return;  // another thread's sync point wakes it
    }
    wake();
  }
  // A sync point wakes the harvester only when it began no round for this long.
  static constexpr std::int64_t kSyncWakeGapNs = 1000000;
  // A sync round's records wait at most this long after the file's last write (a write
  // per clFinish would cost an app that waits after every launch a system call each).
  static constexpr std::int64_t kSyncFlushGapNs = 1000000;
  // A compressed trace (.zst) has no such gap: its sync round's records wait for the flush
  // timer (CLPROF_FLUSH_INTERVAL_MS) or a full buffer, since each write ends a zstd block,
  // about 40 bytes, so small writes cost the ratio. Measured (docs/performance.md): the
  // CLBlast network example in 1,457 writes of ~3 launches 86 bytes per launch, the same text
  // in 49 writes 73; the kernel-latency loop (a sync point per launch) 50 -> 48.

  // An abrupt ending (runtime/lifecycle.hpp): asks the harvester for the trace's last
  // round. It leaves its loop at the top of its next round (woken now when `may_wake`,
  // else within one sleep, at most kLongestSleepNs), runs `final_round` (given to
  // start()) on its own thread and then reports it done: that round drains the ring and
  // polls the running commands, so it harvests everything that completed whether or not a
  // sync point woke the harvester before.
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
  // Written by the app's sync points, read by every round: a line of their own.
  alignas(64) std::atomic<bool> sync_round_{false};  // a sync point since the last round
  std::atomic<std::uint64_t> quiet_until_ticks_{0};  // no sync point wakes it before (ticks)
  std::atomic<std::uint64_t> wake_gap_ticks_{0};     // kSyncWakeGapNs in host ticks
  alignas(64) bool sync_flush_due_ = false;          // the harvester's: a sync round's records wait
  void (*final_round_)() = nullptr;
  std::atomic<bool> final_requested_{false};
  std::atomic<bool> final_done_{false};
};

}  // namespace clprof::shim
