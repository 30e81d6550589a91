// Process-wide shim state: settings, the per-thread state, the trace session (record
// ring, harvester thread, writer), finalisation at exit and fork handling.
// All state is leaked on purpose: hooks may run from static destructors and atexit
// handlers before or after finalisation.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "recording/range_stack.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "runtime/settings.hpp"

namespace clprof::shim {

// Settings parsed from the environment on first use (warnings printed once).
// Threads: any.
const Settings& settings();

// True unless CLPROF_DISABLE=1. Never starts a trace. Threads: any.
bool hooks_may_be_handed_out();

// Starts the trace session on first call (creates the file, starts the harvester).
// True while recording; false for pass-through (disabled, no OpenCL, unwritable output,
// finalised). Threads: any; after the first call a single atomic load.
bool recording_active_slow();
extern std::atomic<int> g_recording_state;  // 1 = recording (see runtime.cpp)
inline bool recording_active() {
  return __builtin_expect(g_recording_state.load(std::memory_order_acquire) == 1, 1) ||
         recording_active_slow();
}

// Host clock relative to header.host_start_ns.
std::int64_t to_trace_ns(std::int64_t monotonic_ns);

struct ObjectInfo;
// One thread-local lookup cache entry (see objects.hpp).
struct CacheEntry {
  const void* handle;
  ObjectInfo* info;
  std::uint32_t gen;
};
inline constexpr unsigned kCacheSize = 64;
inline constexpr unsigned kCachedRegistries = 4;

// Everything one thread owns. Allocated on the thread's first hook or marker and never
// freed (read by the finaliser to close open ranges).
struct ThreadState {
  int tid = 0;
  int hook_depth = 0;
  RangeStack ranges;
  CacheEntry cache[kCachedRegistries][kCacheSize] = {};
};

// The calling thread's state, created on first use. Threads: any (the caller's own).
ThreadState& thread_state_slow();
// Initial-exec TLS: the shim is preloaded, so this is a plain %fs-relative load.
extern thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));
inline ThreadState& thread_state() {
  ThreadState* t = t_thread_state;
  return __builtin_expect(t != nullptr, 1) ? *t : thread_state_slow();
}

// A ring slot for one record; the caller fills *slot.value and calls publish_record.
// Waits (blocking until the harvester frees a batch of slots) while the ring is full.
// Only valid while recording_active().
MpscRing<OpRecord>::Slot claim_record();
// Hands the record to the harvester, then releases the private event the harvester left
// in the slot's cell, if any (a command it has finished with, released on an enqueuing
// thread, where the driver allocated it). Call holding no shim lock: a release runs
// driver code.
void publish_record(const MpscRing<OpRecord>::Slot& slot);

// Queues a finished record object line of kind `kind` (cold paths). Threads: any.
void emit_line(LineKind kind, const std::string& json);

// Asks the harvester to poll now (the app reached a sync point). Never blocks.
void wake_harvester();

// Ends the trace (idempotent): waits up to CLPROF_EXIT_WAIT_MS for pending events,
// closes open ranges, writes clock_sync and end records. Hooks pass through afterwards.
void finalize_trace();

// Called by the exec*() hooks before the program image is replaced: ends the trace as
// finalize_trace() does, when this process started it (not in a vfork child, which shares
// its parent's memory). If the exec then fails, the process runs on unrecorded.
void finish_before_exec();

}  // namespace clprof::shim
