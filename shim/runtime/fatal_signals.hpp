// The signals that end a process by default, caught so that the trace is written first,
// and the app's own dispositions for them, which stay what the app set.
//
// Once the trace starts (catch_fatal_signals), the kernel holds the shim's handler for
// each signal of kCaughtSignals that the app does not ignore, and the app's disposition
// (what it installed before, and whatever it installs after through the interposed
// sigaction/signal, entry/ending_hooks.cpp) is kept here and is what the app reads back.
// The shim's handler runs the app's disposition:
//   the app's handler   called as the kernel would (its flags, its mask, SA_RESETHAND,
//                       SA_SIGINFO), first and alone: whether the signal ends the
//                       process is the app's call (a JVM uses SIGSEGV in normal
//                       operation). If the handler ends the process through _exit,
//                       _Exit, exit, quick_exit or abort, or by restoring SIG_DFL and
//                       raising again, that ending writes the trace; one that ends it
//                       with a raw system call (sanitizer reports) leaves it as SIGKILL
//                       would. After a handler of SIGABRT returns from an abort(), abort
//                       ends the process: the trace is written then.
//   SIG_DFL             the trace is written (end_abruptly), the kernel's disposition
//                       set to SIG_DFL and the signal takes effect: a fault re-executes
//                       its instruction, any other signal is raised again, so the process
//                       ends with the same signal, core dump and exit status as without
//                       the shim.
//   SIG_IGN             the kernel ignores it itself (not caught): exec keeps it ignored.
// Interposing sigaction rather than installing last: an app that installs its handler
// after the trace started would otherwise replace the shim's, and the trace would be lost
// on the crash that handler passes on. Calls that bypass the interposer (sigset(), a raw
// rt_sigaction system call, an app that dlopens the shim) are noticed at the next
// sigaction call: the kernel no longer holds the shim's handler, and the shim lets go of
// that signal (the app's handler runs alone, as without the shim).
//
// Threads: any. The dispositions are read by the handler without a lock (a sequence
// count) and changed under a spin lock with every signal blocked, held across fork.
// Async-signal-safe: the handler and everything it calls.
#pragma once

#include <signal.h>

namespace clprof::shim {

// The signals caught: those whose default action ends the process (with a core dump
// for the first five) and that a profiled run commonly ends with.
struct CaughtSignal {
  int number;
  const char* name;
};
inline constexpr CaughtSignal kCaughtSignals[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},
    {SIGILL, "SIGILL"},   {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
    {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"}};
// The name of a caught signal ("SIGSEGV"), or "a signal".
const char* caught_signal_name(int sig);

// Installs the shim's handler for each caught signal (at the trace's start). Idempotent.
// Runs `end_trace(sig)` when a signal is about to end the process by its default action.
void catch_fatal_signals(void (*end_trace)(int sig));
// Gives the kernel back the app's dispositions (the library is being unloaded).
void release_fatal_signals();

// The interposers: sigaction for a caught signal. True when `sig` is caught (then *rc is
// sigaction's result and errno set as it would set it); false: the caller forwards the
// call to libc.
bool app_sigaction(int sig, const struct sigaction* act, struct sigaction* old, int* rc);

// libc's sigaction (the next definition after the shim's), for the interposers.
int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old);

// pthread_atfork handlers (from the lifecycle's): the lock is held across fork.
void fatal_signals_fork_prepare();
void fatal_signals_fork_parent();
void fatal_signals_fork_child();

}  // namespace clprof::shim
