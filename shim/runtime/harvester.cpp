#include "runtime/harvester.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>

#include "base/host_clock.hpp"
#include "base/log.hpp"
#include "runtime/lifecycle.hpp"

namespace clprof::shim {
namespace {

// CLPROF_HARVESTER_BATCH. A wake-up of the harvester on a busy core preempted the thread
// running there, the app's or the driver's (on a CPU device PoCL's workers run the app's
// kernels), and that cost the process more than the harvester's own work. Under
// SCHED_BATCH the wake-up waits for a free core or that thread's tick instead: the same
// share of the CPU at the same nice level, taken when the app does not need it (SCHED_IDLE
// took less and let the ring fill). Measured side by side (docs/performance.md): in four
// interleaved runs of the PoCL enqueue loop the process's added CPU per launch fell by
// 287-562 ns; clblast_test_xim2col's CPU by 5.5-7.6 s per run (17-23 us per command);
// latency and the fake driver did not move. A thread started under another policy (a
// real-time app's) keeps it.
void use_batch_scheduling() {
  int policy = SCHED_OTHER;
  sched_param param{};
  if (pthread_getschedparam(pthread_self(), &policy, &param) != 0 || policy != SCHED_OTHER) return;
  param.sched_priority = 0;
  if (const int error = pthread_setschedparam(pthread_self(), SCHED_BATCH, &param)) {
    log_message(LogLevel::Debug, "the harvester stays under SCHED_OTHER (error %d)", error);
  }
}

}  // namespace

int Harvester::start(void (*final_round)()) {
  final_round_ = final_round;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const int error = pthread_create(&thread_, nullptr, &Harvester::thread_main, this);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  started_ = error == 0;
  return error;
}

void Harvester::stop() {
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    stop_.store(true);
  }
  wake_cv_.notify_one();
  if (!started_) return;
  started_ = false;
  if (pthread_equal(thread_, pthread_self())) {
    pthread_detach(thread_);
  } else {
    pthread_join(thread_, nullptr);
  }
}

void Harvester::wake() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with run()'s
  if (!sleeping_.load(std::memory_order_relaxed)) return;
  {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    wake_flag_ = true;
  }
  wake_cv_.notify_one();
}

void Harvester::request_final_round(bool may_wake) {
  final_requested_.store(true, std::memory_order_release);
  if (!may_wake || !wake_mutex_.try_lock()) return;  // the harvester looks within one sleep
  wake_flag_ = true;
  wake_mutex_.unlock();
  wake_cv_.notify_one();
}

MpscRing<OpRecord>::Slot Harvester::wait_for_space(std::chrono::microseconds timeout) {
  std::unique_lock<std::mutex> lock(space_mutex_);
  space_waiters_.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with cells_freed()
  wake();
  space_cv_.wait_for(lock, timeout);
  space_waiters_.fetch_sub(1, std::memory_order_relaxed);
  lock.unlock();
  return ring_.try_claim();
}

bool Harvester::cells_freed() {
  // A fence and a load when no producer waits.
  std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with wait_for_space()
  if (space_waiters_.load(std::memory_order_relaxed) != 0) {
    { std::lock_guard<std::mutex> lock(space_mutex_); }
    space_cv_.notify_all();
  }
  return !park_requested_.load(std::memory_order_relaxed);
}

bool Harvester::park_for_fork(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(park_mutex_);
  if (!running_) return true;
  park_requested_.store(true, std::memory_order_relaxed);
  lock.unlock();
  wake();
  lock.lock();
  return park_cv_.wait_for(lock, timeout, [this] { return parked_ || !running_; });
}

void Harvester::unpark() {
  {
    std::lock_guard<std::mutex> lock(park_mutex_);
    park_requested_.store(false, std::memory_order_relaxed);
  }
  park_cv_.notify_all();
}

void* Harvester::thread_main(void* self) {
  auto* h = static_cast<Harvester*>(self);
  pthread_setname_np(pthread_self(), "clprof-harvest");
  if (settings().harvester_batch) use_batch_scheduling();
  h->run();
  if (h->final_requested_.load(std::memory_order_acquire)) {
    if (h->final_round_) h->final_round_();
    h->final_done_.store(true, std::memory_order_release);
  }
  {
    std::lock_guard<std::mutex> lock(h->park_mutex_);
    h->running_ = false;
  }
  h->park_cv_.notify_all();
  return nullptr;
}

void Harvester::park() {
  std::unique_lock<std::mutex> lock(park_mutex_);
  parked_ = true;
  park_cv_.notify_all();
  park_cv_.wait(lock, [this] { return !park_requested_.load(std::memory_order_relaxed); });
  parked_ = false;
}

// The pacing. The harvester sleeps between rounds unless a round found a real backlog, even
// when a record is waiting: records are taken in batches, never one by one as the app makes
// them (a harvester that went again whenever the ring held a record ran a round per launch
// on PoCL, ~1.3 µs of CPU per launch). The sleep adapts to what the rounds find: a round that
// found little doubles the next sleep (up to kLongestSleep), one that found a batch halves it
// (down to the poll interval); producers nudge it every half ring, so a burst never waits
// for the timer. Each wake-up costs a context switch on a core the driver's threads may want
// (on a CPU device they run the app's kernels): fewer, larger rounds cost the app less.
void Harvester::run() {
  const Settings& s = settings();
  const std::int64_t poll_ns =
      static_cast<std::int64_t>(std::max<std::uint64_t>(s.poll_interval_us, 50)) * 1000;
  const std::int64_t longest_ns = std::max(poll_ns, kLongestSleepNs);
  const std::int64_t flush_every_ns = static_cast<std::int64_t>(s.flush_interval_ms) * 1000000;
  // A drain this long is a real backlog: go again at once.
  const std::size_t busy_records = ring_.capacity() / 8;
  // A round that finds fewer records than this lets the next sleep longer.
  const std::size_t batch_records = ring_.capacity() / 16;
  // The first cells the app will fill, faulted in here rather than in its enqueues; the rest
  // half a ring ahead of the producers (as far as they go between two nudges), round by round,
  // once they have used half of the first (an app that makes a few records does not pay
  // for half a ring: ~0.4 MB more at rest, measured by bench/peer's init-pocl).
  ring_.populate(kFirstPopulatedCells);
  // The first slope from a baseline long enough (TraceClocks::kFirstBaselineNs): asleep here,
  // where the app's first call used to spin for it.
  {
    std::unique_lock<std::mutex> lock(wake_mutex_);
    const std::int64_t until_ns = completion_.clocks().start_ns() + TraceClocks::kFirstBaselineNs;
    for (std::int64_t now_ns; !stop_.load() && (now_ns = monotonic_now_ns()) < until_ns;) {
      wake_cv_.wait_for(lock, std::chrono::nanoseconds(until_ns - now_ns),
                        [this] { return stop_.load(); });
    }
    wake_flag_ = false;
  }
  output_.restart_flush_timer(monotonic_now_ns());
  const std::uint64_t wake_gap_ticks = completion_.clocks().ticks_in(kSyncWakeGapNs);
  wake_gap_ticks_.store(wake_gap_ticks, std::memory_order_relaxed);
  std::int64_t last_calibration_ns = 0;
  std::int64_t sleep_ns = poll_ns;
  bool busy = false;
  for (;;) {
    if (park_requested_.load(std::memory_order_relaxed)) park();
    if (final_requested_.load(std::memory_order_acquire)) return;
    if (busy) {
      // A backlog: go again at once (no lock, no sleep) while records keep coming.
      if (stop_.load(std::memory_order_relaxed)) return;
    } else {
      completion_.handback().on_harvester_idle();
      sleeping_.store(true, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with wake()
      std::unique_lock<std::mutex> lock(wake_mutex_);
      wake_cv_.wait_for(lock, std::chrono::nanoseconds(sleep_ns), [this] {
        return wake_flag_ || stop_.load() || final_requested_.load(std::memory_order_relaxed);
      });
      wake_flag_ = false;
      sleeping_.store(false, std::memory_order_relaxed);
      if (stop_.load() || final_requested_.load(std::memory_order_acquire)) return;
    }
    // A round begins: sync points in the next kSyncWakeGapNs leave the harvester asleep.
    quiet_until_ticks_.store(host_ticks_now() + wake_gap_ticks, std::memory_order_relaxed);
    ring_.populate(ring_.capacity() / 2, kFirstPopulatedCells / 2);
    // Taken before the drain: every record published before the sync point is in it.
    if (sync_round_.load(std::memory_order_acquire) &&
        sync_round_.exchange(false, std::memory_order_acquire)) {
      sync_flush_due_ = true;
    }
    std::int64_t now_ns = monotonic_now_ns();
    if (now_ns - last_calibration_ns >= poll_ns) {
      completion_.clocks().recalibrate();
      last_calibration_ns = now_ns;
    }
    std::size_t n = completion_.drain_ring(*this);
    completion_.poll_pending();
    n += completion_.drain_ring(*this);
    busy = n >= busy_records;
    if (n < batch_records / 2) {
      sleep_ns = std::min(sleep_ns * 2, longest_ns);
    } else if (n > batch_records) {
      sleep_ns = std::max(sleep_ns / 2, poll_ns);
    }
    now_ns = monotonic_now_ns();
    if (sync_flush_due_) {
      // A compressed trace's sync round waits for the flush timer (harvester.hpp).
      const std::int64_t gap_ns =
          output_.compressed() ? flush_every_ns : std::min(kSyncFlushGapNs, flush_every_ns);
      sync_flush_due_ = !output_.flush_if_older(now_ns, gap_ns);
    } else {
      output_.flush_if_due(now_ns, flush_every_ns);
    }
    output_.warn_if_lost();
  }
}

}  // namespace clprof::shim
