// Completing the records the app's threads publish into the ring: each drained record
// gets its seq and its host times; a command that is done gets its device times and
// status and is written at once, straight from its ring slot; one still running is
// copied out of the ring and polled until it is done (or written incomplete at the end).
// Lines made on the app's threads (objects, builds, markers) are written as they come.
//
// Threads: the harvester's, then the finaliser's once the harvester has stopped; never
// two at once (the producers use only ring()). Ownership: the ring and the output (the
// consumer's side owns them); a drained slot until its cell is freed; the copies of
// running commands (PendingCopies) until written; one reference to each record's event
// until EventHandback lets it go. Clocks: host ticks in, trace ns out (TraceClocks); device ns
// as the driver reports them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "output/trace_output.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "recording/trace_clocks.hpp"
#include "runtime/handback.hpp"

namespace clprof::shim {

// Told by drain_ring() about the cells it frees: every kSpaceBatch cells, and once at the
// end of a drain that freed any. The harvester wakes producers waiting for ring space.
class DrainListener {
 public:
  // Returns false to end the drain early (a fork is waiting for the harvester to park).
  virtual bool cells_freed() = 0;

 protected:
  ~DrainListener() = default;
};

class RecordCompletion {
 public:
  // Producers blocked on a full ring are woken every this many freed cells.
  static constexpr std::size_t kSpaceBatch = 256;

  // A ring of `ring_capacity` records (a power of two).
  explicit RecordCompletion(std::size_t ring_capacity) : ring_(ring_capacity), handback_(ring_) {}

  // The ring the app's threads publish into (they reach it through ProcessTrace).
  MpscRing<OpRecord>& ring() { return ring_; }
  // The file: opened by the start-up, written here, ended by the finaliser.
  TraceOutput& output() { return output_; }

  // Takes the published records, at most a ring's worth; returns how many. (The writer
  // writes as its buffer fills, so a long backlog does not grow its memory.) The cap lets
  // the caller poll the pending commands at least once per ring's worth: an app that
  // keeps the ring from running dry would otherwise keep one call going while the
  // commands it drained complete unseen, their copies and events piling up (measured:
  // 20,000 events alive where the design holds 6,703).
  std::size_t drain_ring(DrainListener& listener);
  // Polls the commands still running, in enqueue order; writes those done.
  void poll_pending();
  // The end of the trace: drains the ring, then polls what is still running at least once
  // and for at most `wait_ns` (CLOCK_MONOTONIC), writes what is still running then as
  // incomplete and, with `release_events`, lets go of every event held (an abrupt ending
  // leaves them to the process's end: the driver may be where the process crashed).
  // Returns the number written incomplete.
  std::uint64_t finish(DrainListener& listener, std::int64_t wait_ns, bool release_events = true);

  TraceClocks& clocks() { return clocks_; }
  EventHandback& handback() { return handback_; }

 private:
  // What execution_status() learnt on the way: the END time, when it had it.
  struct Probe {
    bool have_end = false;
    std::uint64_t end_ns = 0;
  };
  static int execution_status(const OpRecord& r, Probe& probe);
  void take(OpRecord& slot);
  void complete(OpRecord& r, int exec, const Probe& probe, bool from_pending = false);

  // Owned, not referred to: the drain reaches them without a load of their address after
  // each store into a record (which the compiler must assume may change it).
  MpscRing<OpRecord> ring_;
  TraceOutput output_;
  EventHandback handback_;
  TraceClocks clocks_;
  std::vector<OpRecord*> pending_;  // commands still running, in enqueue order
  PendingCopies pending_copies_;    // the records in pending_ live here
  std::vector<std::uint64_t> blocked_queues_;
  std::uint64_t op_seq_ = 0;  // last seq given (launch, transfer, sync), ring order
};

}  // namespace clprof::shim
