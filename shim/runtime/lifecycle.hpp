// The shim's life in a process: the settings, the trace's start (on the first OpenCL
// call or marker, not at load), fork, and every way the process can end.
//
// How each ending reaches the trace (each one ends it at most once, end_trace in
// lifecycle.cpp; hooks pass through afterwards):
//   return from main, exit()   an atexit handler registered at load (so it runs after the
//                              app's own exit handlers and static destructors, whose
//                              OpenCL calls are recorded): the harvester stops, the ring is
//                              drained, running commands are polled for up to
//                              CLPROF_EXIT_WAIT_MS and written incomplete after, open
//                              ranges are closed, the clock_sync and end records written
//   libclprof.so unloaded      its destructor, the same (a no-op once atexit has run); the
//                              app's signal dispositions go back to the kernel
//   exec*()                    the exec hooks (entry/exec_hooks.cpp): the same, unless the
//                              lock is held (a signal handler interrupted the shim) or this
//                              is a vfork child, whose trace is its parent's
//   _exit(), _Exit()           abrupt (end_abruptly): the interposers (entry/ending_hooks.cpp;
//                              in layer mode the app's calls are pointed at them,
//                              entry/plt_redirect.hpp)
//   quick_exit()               abrupt: an at_quick_exit handler registered at load (after
//                              the app's own handlers)
//   a caught signal            abrupt: when its default action is about to end the process,
//                              directly or through the app's handler (fatal_signals.hpp):
//                              SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM, SIGINT,
//                              SIGHUP, SIGQUIT, SIGPIPE; a warning record names the signal
//   SIGKILL, a raw exit        nothing runs: the file holds what was written, whole lines;
//                              the harvester writes at the latest CLPROF_FLUSH_INTERVAL_MS
//                              after a record completes, and within ~17 ms of the
//                              app's sync points (Harvester::app_sync_point)
//   fork()                     the child leaves the parent's trace behind and starts its
//                              own on its first OpenCL call; the harvester is parked across
//                              fork so the child inherits no lock it held
// An abrupt ending may run in a signal handler, on a thread interrupted anywhere: it only
// asks the harvester (its own thread, where locks, allocation and the driver are
// allowed) for one last round and waits for it with async-signal-safe calls. That round
// writes what is formatted, completes what the ring holds with one poll of the running
// commands (those still running are written incomplete: the process ends now), writes
// it, then the warning, range ends, clock_sync and end records, and releases no event.
//
// Threads: any; the start and the endings serialise on one lock. Clocks: the trace's
// origin (host_clock.hpp) is set at its start.
#pragma once

#include "base/process_settings.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {

// settings() and hooks_may_be_handed_out() are base's (base/process_settings.hpp).
// recording_active() and recording_active_slow(), which starts the trace on first use, are
// declared by recording/record_sink.hpp and defined in lifecycle.cpp.

// Ends the trace (idempotent): the return-from-main and exit() ending above.
void finalize_trace();

// Called by the exec*() hooks before the program image is replaced: ends the trace as
// finalize_trace() does, when this process started it (not in a vfork child, which shares
// its parent's memory). If the exec then fails, the process runs on unrecorded.
void finish_before_exec();

// An abrupt ending (the table above), `sig` its signal or 0: has the harvester end the
// trace in one last round on its own thread and waits for it, at most
// max(CLPROF_EXIT_WAIT_MS, 500 ms) and never more than 60 s; past that, one warning on
// stderr, and the file ends at its last whole record. A no-op unless this process is
// recording (and on the harvester's own thread). Async-signal-safe: atomics, a try-lock,
// nanosleep, write(2).
void end_abruptly(int sig);

}  // namespace clprof::shim
