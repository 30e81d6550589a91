// The trace of one process: the ring the app's threads fill, the harvester that drains
// it, the completion of its records, and the file (the ring and the file are the
// completion's, ring() and output() reach them). A fork child starts a trace of its own
// and leaves its parent's behind.
//
// Threads: created by the start-up under the lifecycle's lock, published through
// g_process_trace (release) before any producer can use it; its parts state their own
// threads. Ownership: never freed. A finished trace stays current (hooks pass through
// by then); a trace left behind (a fork child's inherited one, whose harvester does not
// exist there and whose ring may hold half-written slots, or one whose harvester could
// not start) stays reachable from g_left_behind, so leak checkers (LeakSanitizer in an
// app built with it) see no leak. Clocks: see the parts.
#pragma once

#include <atomic>
#include <cstddef>

#include "output/trace_output.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "runtime/completion.hpp"
#include "runtime/harvester.hpp"

namespace clprof::shim {

struct ProcessTrace {
  // Records in flight between the app's threads and the harvester. Also how long a
  // private event lives after its command completed: it goes back to the app thread that
  // claims its cell next, a ring's worth of records later (runtime/handback.hpp), and
  // until then the driver keeps it. Measured side by side against 2048 on PoCL (bench/peer,
  // pocl-loop, three shuffled runs, 2026-11-28, docs/performance.md): the loop's added CPU
  // per launch fell by 17-55% and its peak memory by ~5 MB; on the fake driver (clprof's
  // own code alone) it costs 100-140 ns of CPU per launch more (more harvester wake-ups).
  // At 128 or 256 the harvester wakes too often (a nudge per quarter ring) and the fake
  // driver's loop got slower still.
  static constexpr std::size_t kRingCapacity = 512;
  // A producer nudges the harvester every this many records (claim_record), when it
  // sleeps. Half the ring, with CLPROF_POLL_INTERVAL_US 2000 (the harvester's shortest
  // sleep), rather than a quarter and 1000: fewer, larger rounds beside PoCL's workers.
  // Measured side by side (bench/peer, two runs of 9 rounds, 2026-11-29,
  // docs/performance.md): the PoCL loop's added CPU per launch fell from +2,330 / +2,797
  // to +1,869 / +1,968 ns, its wall time from +1,574 / +1,728 to +1,227 / +1,214, the
  // harvester's CPU from ~730-785 to ~640 ns; the fake driver's from +842 / +849 to +788 /
  // +800 ns, the app thread's unchanged there (the ring did not fill more often). A third
  // run (7 rounds, 14% steal, the whole peer table) reproduced the harvester's fall (658
  // against 813 ns; 638 against 781 in the 4x loop) but not the process's (+2,340 against
  // +2,394; +3,136 against +3,128): what PoCL's threads spend beside it did not follow.
  static constexpr std::size_t kNudgeEvery = kRingCapacity / 2;

  explicit ProcessTrace(long pid) : pid(pid) {}
  ProcessTrace(const ProcessTrace&) = delete;
  ProcessTrace& operator=(const ProcessTrace&) = delete;

  const long pid;  // the process that started it (a vfork child shares it, with another pid)
  RecordCompletion completion{kRingCapacity};  // owns the ring and the output
  Harvester harvester{completion};
  ProcessTrace* next_left_behind = nullptr;

  MpscRing<OpRecord>& ring() { return completion.ring(); }
  TraceOutput& output() { return completion.output(); }
};

// The trace being recorded into (or finished), or nullptr. Written by the lifecycle.
inline std::atomic<ProcessTrace*> g_process_trace{nullptr};

// Traces this process will never write again (see above). Under the lifecycle's lock.
inline ProcessTrace* g_left_behind = nullptr;
inline void leave_behind(ProcessTrace* trace) {
  trace->next_left_behind = g_left_behind;
  g_left_behind = trace;
}

}  // namespace clprof::shim
