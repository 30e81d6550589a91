// The trace file's descriptor, between its writer and the app's calls that close or
// replace descriptors (close, dup2, dup3, close_range, closefrom: entry/descriptor_hooks.cpp).
//
// Why: daemons close every descriptor they did not open and open files of their own,
// which can get the trace's number. The writer's check that its descriptor still refers
// to the trace file (fstat) and its write are two system calls; an app closing and
// reopening in between would get trace lines in its own file. With the guard, the app's
// call waits until a use in progress has ended, and the writer starts no other use of
// that descriptor: the trace ends there (TraceWriter::lost), the app's file stays its own.
// The writer's fstat check stays for what the hooks cannot see (a raw system call, a
// library loaded after the layer's redirects).
//
// How: a Dekker handshake on sequentially consistent atomics. The writer announces its use
// and then reads `taken`; the app's call sets `taken` and then reads the announcement. At
// least one of them sees the other.
//
// Threads: one writer (TraceWriter's owner) at a time; the app's side from any thread, in a
// signal handler or a vfork child too: it allocates nothing, takes no lock and calls only
// getpid, pthread_self and nanosleep. Only the process that guarded the descriptor is
// affected: a vfork or fork child's calls close its own copy, never the parent's trace.
#pragma once

namespace clprof::shim {

// The writer's side: from now on `fd` is the trace's (one at a time; a new one replaces
// the old and clears a previous `taken`).
void guard_descriptor(int fd);
// Before the writer closes `fd` itself: the app's calls no longer wait for it.
void unguard_descriptor(int fd);

// One use of a descriptor by the writer (fstat, write, fallocate, fcntl, ftruncate): the
// app's calls that would close or replace it wait until the scope ends. allowed() is false
// once the app took a guarded descriptor: the writer must not touch it again.
class DescriptorUse {
 public:
  explicit DescriptorUse(int fd);
  ~DescriptorUse();
  bool allowed() const { return allowed_; }
  DescriptorUse(const DescriptorUse&) = delete;
  DescriptorUse& operator=(const DescriptorUse&) = delete;

 private:
  bool announced_ = false;
  bool allowed_ = true;
};

// The app's side, before a call that closes or replaces the descriptors in [first, last]:
// when the trace's is among them, no new use starts, and this returns once a use in
// progress on another thread has ended (at most kMaxWaitMs: a write stuck on a pipe whose
// reader stopped must not hang the app; the writer's fstat check remains behind it).
void before_app_closes(unsigned first, unsigned last);
// Whether the trace's descriptor is `fd` (one atomic load): lets a call do its own checks
// (dup2's of its source, a system call) only when it may replace the trace's.
bool is_trace_descriptor(int fd);
inline constexpr long kMaxWaitMs = 1000;

}  // namespace clprof::shim
