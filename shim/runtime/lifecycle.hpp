// The shim's life in a process: the settings, the trace's start (on the first OpenCL
// call or marker, not at load), fork, and every way the process can end.
//
// How each ending reaches the trace (each one ends it at most once, end_trace in
// lifecycle.cpp; hooks pass through afterwards):
//   return from main, exit()   an atexit handler: the harvester stops, the ring is drained,
//                              running commands are polled for up to CLPROF_EXIT_WAIT_MS
//                              and written incomplete after, open ranges are closed, the
//                              clock_sync and end records written
//   libclprof.so unloaded      its destructor, the same (a no-op once atexit has run)
//   exec*()                    the exec hooks (hooks/exec_hooks.cpp): the same, unless the
//                              lock is held (a signal handler interrupted the shim) or this
//                              is a vfork child, whose trace is its parent's
//   fork()                     the child leaves the parent's trace behind and starts its
//                              own on its first OpenCL call; the harvester is parked across
//                              fork so the child inherits no lock it held
// Not yet handled (issue 18), and where each goes: _exit/_Exit/quick_exit, interposed
// beside the exec hooks, end the trace as exit does; fatal signals (SIGSEGV, SIGBUS,
// SIGABRT, SIGFPE, SIGILL) get a handler here that writes what the trace holds with
// async-signal-safe code only (TraceOutput's buffered lines, write(2)) and re-raises;
// SIGKILL alone may cost the last flush interval.
//
// Threads: any; the start and the endings serialise on one lock. Clocks: the trace's
// origin (host_clock.hpp) is set at its start.
#pragma once

#include <atomic>

#include "runtime/settings.hpp"

namespace clprof::shim {

// Settings parsed from the environment on first use (warnings printed once).
// Threads: any.
const Settings& settings();

// True unless CLPROF_DISABLE=1. Never starts a trace. Threads: any.
bool hooks_may_be_handed_out();

// Starts the trace on first call (creates the file, starts the harvester). True while
// recording; false for pass-through (disabled, no OpenCL, unwritable output, ended).
// Threads: any; after the first call a single atomic load.
bool recording_active_slow();
extern std::atomic<int> g_recording_state;  // 1 = recording (see lifecycle.cpp)
inline bool recording_active() {
  return __builtin_expect(g_recording_state.load(std::memory_order_acquire) == 1, 1) ||
         recording_active_slow();
}

// Ends the trace (idempotent): the return-from-main and exit() ending above.
void finalize_trace();

// Called by the exec*() hooks before the program image is replaced: ends the trace as
// finalize_trace() does, when this process started it (not in a vfork child, which shares
// its parent's memory). If the exec then fails, the process runs on unrecorded.
void finish_before_exec();

}  // namespace clprof::shim
