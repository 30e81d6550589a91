// Giving back the events the harvester is done with.
//
// A record holds one reference to its command's event. The app's own events (it asked
// for one) are released by the harvester at once. Private events (the shim asked the
// driver for one because the app did not) go back to the app's threads through the ring
// itself: each freed cell carries one to the producer that claims the cell next, which
// releases it after publishing its own record (release_on_app_thread). The driver
// allocated the event on an enqueuing thread: freeing it on one too, one for one, keeps
// the allocator's per-thread cache balanced (releases on the harvester made the two
// threads fight over the allocator's lock on every launch), and riding in the cell costs
// the producer no cache line it does not already write. An event whose command was still
// running when its cell was freed rides in a cell freed earlier without one. The
// harvester releases private events itself only when the app stopped enqueuing
// (on_harvester_idle), at the end, and beyond Handbacks::kMaxWaiting waiting ones.
// Measured on PoCL, which lags behind the app: with only the next freed cell, ~2,000
// events waited after 200,000 launches and peak memory rose from ~90 to 97-102 MB between
// 200,000 and 3.2 M launches; a cap of 256 alone kept it flat but cost 3-6% per launch
// (the harvester released the rest itself); with earlier cells it stays at ~89 MB and
// runs as fast as before.
//
// This room is the one place that decides which thread releases which driver object.
//
// Threads: EventHandback is the harvester's (then the finaliser's); release_on_app_thread
// runs on the producer that claimed a cell. Ownership: an event in a queue or a cell is
// owned by it until taken; the claimer of a cell owns what it finds there.
#pragma once

#include <CL/cl.h>

#include <cstddef>

#include "base/real_opencl.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "runtime/handback_queues.hpp"

namespace clprof::shim {

// A producer found `event` in the cell it claimed: it releases it, after publishing.
inline void release_on_app_thread(void* event) {
  real().clReleaseEvent(static_cast<cl_event>(event));
}

class EventHandback {
 public:
  explicit EventHandback(MpscRing<OpRecord>& ring);

  // Frees the front cell of `ring` (this one's, after its record was taken), leaving in it
  // the oldest event waiting to go back, if any; a cell freed without one is remembered for
  // an event whose command completes later (hand_back). Per record: inline, and the ring
  // comes from its owner, not through ring_ (a load less per access, measured).
  void free_front_cell(MpscRing<OpRecord>& ring) {
    const std::size_t pos = ring.dequeue_pos();
    void* handback = waiting_.next();
    if (void* left = ring.pop(handback)) waiting_.add(left);
    if (!handback) freed_cells_.push(pos);
  }
  // `n` cells were freed in a drain (on_harvester_idle tells an idle app by none).
  void count_drained(std::size_t n) { drained_since_idle_ += n; }

  // Lets go of the record's event (and clears r.event): the app's is released now, a
  // private one goes back to an app thread. `from_pending`: the record was drained
  // earlier and its cell is long gone (else the cell being freed now takes the event).
  void let_go(OpRecord& r, bool from_pending) {
    if (r.app_event) {
      release_app_event(r.event);
    } else if (from_pending) {
      hand_back(r.event);
    } else {
      waiting_.add(r.event);
    }
    r.event = nullptr;
  }

  // The harvester is about to sleep. If nothing was drained for a whole poll interval
  // (the app went quiet), releases the events still waiting, and those left in cells no
  // producer has claimed since, so none is kept while the app does not enqueue.
  void on_harvester_idle();
  // The end of the trace: releases every event still held (waiting, or left in a cell of
  // the last ring's worth).
  void release_all();

 private:
  static void release_app_event(void* event);
  static void release_private_event(void* event);
  // A private event whose command was still running when its record was drained (the
  // usual case on a driver that lags behind the app) goes back to an app thread in a cell
  // freed earlier without one, if a producer has not claimed that cell since, else it
  // waits for the next freed cell. Without the first way such a driver kept the
  // harvester's backlog of events growing for as long as the app kept enqueuing.
  // (An event that completed before its record was drained rides in that record's own
  // cell: offering it an earlier one would cost a read of the producers' line.)
  void hand_back(void* event);
  // Releases the events left in cells freed at positions [from, dequeue) (at most one
  // ring's worth back); a producer claiming a cell meanwhile takes its event instead.
  void release_cell_handbacks(std::size_t from);

  MpscRing<OpRecord>& ring_;
  Handbacks waiting_{release_private_event};
  FreedCells freed_cells_;  // cells freed without a hand-back
  std::size_t drained_since_idle_ = 0;
  std::size_t handback_scan_from_ = 0;
};

}  // namespace clprof::shim
