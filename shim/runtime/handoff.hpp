// How records leave the app's threads: a ring slot claimed and filled in place, then
// published to the harvester; a line made on a cold path queued the same way; a sync
// point reported. The app's side of runtime/process_trace.hpp.
//
// Threads: any app thread, while recording_active(). Ownership: a claimed slot is the
// caller's until published; what it carried back (a hand-back event) is the caller's to
// release, which publish_record does. Never blocks the app unless the ring is full (then
// it waits for the harvester rather than drop a record: every launch is recorded once).
#pragma once

#include <string>

#include "recording/record.hpp"
#include "recording/record_ring.hpp"

namespace clprof::shim {

// A ring slot for one record; the caller fills *slot.value and calls publish_record.
// Waits (blocking until the harvester frees a batch of slots) while the ring is full.
// Only valid while recording_active().
MpscRing<OpRecord>::Slot claim_record();
// Hands the record to the harvester, then releases the private event the harvester left
// in the slot's cell, if any (a command it has finished with, released on an enqueuing
// thread, where the driver allocated it: runtime/handback.hpp). Call holding no shim
// lock: a release runs driver code.
void publish_record(const MpscRing<OpRecord>::Slot& slot);

// Before the driver's call of an enqueue: MpscRing::prefetch_claim on the live ring.
void prefetch_claim();

// Queues a finished record object line of kind `kind` (cold paths). Threads: any.
void emit_line(LineKind kind, const std::string& json);

// The app waited for its commands (clFinish, clWaitForEvents, a blocking transfer) and
// the wait returned at `now_ticks` (host_ticks_now): Harvester::app_sync_point. Never blocks.
void app_sync_point(std::uint64_t now_ticks);

}  // namespace clprof::shim
