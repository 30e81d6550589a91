// The record sink: what recording hands its records, object facts, lines and sync points
// to, and asks whether the trace is live. Recording declares it; runtime implements it
// (handoff.cpp: a ring slot claimed and filled in place, then published to the harvester;
// object facts formatted by output and queued as a line the same way; a sync point
// reported; lifecycle.cpp: whether the trace is live, starting it on first use). The
// app's side of runtime/process_trace.hpp. Recording never spells the trace's text: what
// it learns goes out as facts (object_facts.hpp) or fixed-size records (record.hpp).
//
// How it is resolved: at link time. These are plain functions (and one variable) declared
// here and defined once in runtime's sources; the rooms are static libraries linked into
// the one libclprof.so, built with hidden visibility, so each call below is a direct
// call (a `call` to a fixed address in the same library, no PLT, no GOT load, no vtable,
// no function pointer), the same instruction it was when recording called runtime's
// handoff directly. recording_active() is inline here: the hot path is one atomic load.
// No indirection is added per launch: the sink has exactly one implementation per build,
// so nothing would be gained by choosing it at run time. A unit test of recording that
// needs a sink links a definition of its own in place of runtime's.
//
// Threads: any app thread, while recording_active(). Ownership: a claimed slot is the
// caller's until published; what it carried back (a hand-back event) is the caller's to
// release, which publish_record does. Never blocks the app unless the ring is full (then
// it waits for the harvester rather than drop a record: every launch is recorded once).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "recording/object_facts.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"

namespace clprof::shim {

// Starts the trace on first call (creates the file, starts the harvester). True while
// recording; false for pass-through (disabled, no OpenCL, unwritable output, ended).
// Threads: any; after the first call a single atomic load. Defined in runtime/lifecycle.cpp.
bool recording_active_slow();
extern std::atomic<int> g_recording_state;  // 1 = recording (see runtime/lifecycle.cpp)
inline bool recording_active() {
  return __builtin_expect(g_recording_state.load(std::memory_order_acquire) == 1, 1) ||
         recording_active_slow();
}

// The rest is defined in runtime/handoff.cpp.

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

// Queues a finished record object line of kind `kind` (cold paths; made by a room that
// may spell the trace: output, or the hooks through it). Threads: any.
void emit_line(LineKind kind, const std::string& json);

// An object's facts, as the line of its kind (device, clock_sync, queue, kernel, kernel_device),
// queued as emit_line does (cold paths: the first time the shim sees each object). Threads: any.
void emit_object(const DeviceFacts& facts);
void emit_object(const ClockSyncFacts& facts);
void emit_object(const QueueFacts& facts);
void emit_object(const KernelFacts& facts);
void emit_object(const KernelDeviceFacts& facts);

// The kernel name `name` as the trace spells it (a JSON string, quotes included, escaped,
// made well-formed UTF-8), interned for the process's life: launch records carry this
// pointer and the formatter copies its text verbatim (OpRecord::kernel_name). Cold path
// (a kernel's creation). Threads: any.
const char* record_sink_kernel_name(const std::string& name);

// The app waited for its commands (clFinish, clWaitForEvents, a blocking transfer) and
// the wait returned at `now_ticks` (host_ticks_now): Harvester::app_sync_point. Never blocks.
void app_sync_point(std::uint64_t now_ticks);

}  // namespace clprof::shim
