// What each app thread owns while the shim records: its tid, its hook nesting depth, its
// stack of open ranges and its lookup cache of OpenCL objects.
//
// Threads: a ThreadState is written by its own thread only; the finaliser reads the
// ranges of every listed state once the app's threads are done with the trace.
// Ownership: allocated on a thread's first hook or marker and never freed (a thread that
// ends gives it back to a pool for the next new thread; one with open ranges stays
// listed for the finaliser to close them).
// Static TLS: one pointer (initial-exec, so the hot path is one %fs-relative load); the
// state itself is on the heap, which keeps libclprof.so's static TLS block a few bytes
// long and the library loadable with dlopen.
#pragma once

#include <cstdint>
#include <vector>

#include "recording/range_stack.hpp"

namespace clprof::shim {

struct ObjectInfo;
// One entry of a thread's object lookup cache (recording/registry.hpp).
struct CacheEntry {
  const void* handle;
  ObjectInfo* info;
  std::uint32_t gen;
};
inline constexpr unsigned kCacheSize = 64;
inline constexpr unsigned kCachedRegistries = 4;

struct ThreadState {
  int tid = 0;
  int hook_depth = 0;
  // BLAS calls (entry/blas_hooks): nesting depth (a C entry point calls its C++ twin), and
  // the range id of the outermost call in progress (0 = none), stamped on its commands.
  int blas_depth = 0;
  std::uint32_t blas_call = 0;
  RangeStack ranges;
  CacheEntry cache[kCachedRegistries][kCacheSize] = {};
};

// The calling thread's state, created on first use. Threads: any (the caller's own).
ThreadState& thread_state_slow();
extern thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));
inline ThreadState& thread_state() {
  ThreadState* t = t_thread_state;
  return __builtin_expect(t != nullptr, 1) ? *t : thread_state_slow();
}

// The listed states (threads alive, and ended ones with open ranges), copied under the
// list's lock. Threads: any (the finaliser).
std::vector<ThreadState*> listed_thread_states();

// pthread_atfork handlers: the list's lock is held across fork(); in the child only the
// forking thread exists, so only its state (with a fresh tid and no open range) is listed.
void thread_states_fork_prepare();
void thread_states_fork_parent();
void thread_states_fork_child();

}  // namespace clprof::shim
