// The app's own references to the OpenCL objects it made through hooked calls, for the
// end record's "live" counts (docs/trace-format.md "Live objects"): each object starts
// with the app's one reference, the app's clRetain* adds one and its clRelease* takes one;
// at zero the app has let it go, whatever references the driver keeps internally (a
// kernel on its program, a queue's events on the queue), so those never read as leaks.
// Objects the shim did not see made (before the trace, through unhooked calls) are not
// counted. Events are counters, not a map (the enqueue path takes no lock): the events
// hooked enqueues and clCreateUserEvent handed the app, plus its retains, minus its
// releases; unknown (absent) when the releases exceed that (events of unhooked calls).
//
// Threads: any. Objects: a map under a mutex, taken on the cold paths only (creation,
// retain, release; never across an OpenCL call). Events: sharded relaxed counters.
#pragma once

#include <cstdint>
#include <mutex>

#include "recording/object_facts.hpp"

namespace clprof::shim {

enum class LiveKind : std::uint8_t {
  Buffer,
  SubBuffer,
  Image,
  Pipe,
  Sampler,
  Kernel,
  Program,
  Queue,
  Context
};

// The app got `handle` from a hooked create call (one reference); `bytes` its size for
// memory objects.
void live_created(LiveKind kind, const void* handle, std::uint64_t bytes = 0);
// The app's clRetain* / clRelease* of `handle` returned CL_SUCCESS (a handle the shim did
// not see made is ignored).
void live_retained(const void* handle);
void live_released(const void* handle);

// One event handed to the app (a hooked enqueue's or clCreateUserEvent's), retained or
// released by the app. `tid`: the caller's (picks a counter shard).
void live_event_given(int tid);
void live_event_retained(int tid);
void live_event_released(int tid);

// What is alive now; with `try_only` (an abrupt ending, whose crashed thread may hold the
// map's lock) nothing when the lock is taken (false).
bool live_facts(LiveFacts& out, bool try_only);

// The map's lock, for the fork hooks (recording/objects.cpp).
std::mutex& live_objects_mutex();

}  // namespace clprof::shim
