// The RAII scopes every hook opens: they decide whether this call is recorded (the
// trace is live and this is not a nested call from inside the driver), take the host
// begin time, and for enqueues supply the event pointer handed to the real call (and start
// loading the ring cell the record will take, while the driver works).
#pragma once

#include <CL/cl.h>

#include <cstdint>

#include "base/host_clock.hpp"
#include "base/real_opencl.hpp"
#include "recording/live_objects.hpp"
#include "recording/record_sink.hpp"
#include "recording/thread_state.hpp"

namespace clprof::shim {

// Threads: one scope per hook call, on the calling thread's stack.
class HookScope {
 public:
  // Timed: begin is CLOCK_MONOTONIC ns (builds, markers). Ticks: begin is
  // host_ticks_now(), for records that go through the ring (enqueues, waits) and are
  // converted by the harvester. Untimed (argument setters, object creation): no clock.
  enum class Timing { Timed, Ticks, Untimed };

  explicit HookScope(Timing timing = Timing::Untimed) {
    if (recording_active()) {
      state_ = &thread_state();
      if (state_->hook_depth++ == 0) {
        active_ = true;
        if (timing == Timing::Timed) begin_ns_ = monotonic_now_ns();
        if (timing == Timing::Ticks) begin_ns_ = static_cast<std::int64_t>(host_ticks_now());
      }
    }
  }
  ~HookScope() {
    if (state_) --state_->hook_depth;
  }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

  // True when this call is to be recorded.
  bool active() const { return active_; }
  // When the hook was entered: CLOCK_MONOTONIC ns (Timed), host ticks (Ticks), or 0.
  std::int64_t begin_ns() const { return begin_ns_; }
  ThreadState& thread() const { return *state_; }

 private:
  ThreadState* state_ = nullptr;
  bool active_ = false;
  std::int64_t begin_ns_ = 0;
};

// For clEnqueue* calls. When the app passes no event, the real call gets a private
// one; otherwise the app's event is retained after the call. Either way the record
// takes exactly one reference, released by the harvester.
class EnqueueScope : public HookScope {
 public:
  explicit EnqueueScope(cl_event* app_event) : HookScope(Timing::Ticks), app_event_(app_event) {
    if (active()) prefetch_claim();
  }
  ~EnqueueScope() {
    if (private_event_) real().clReleaseEvent(private_event_);
  }

  // The event argument for the real call.
  cl_event* event_out() { return active() && !app_event_ ? &private_event_ : app_event_; }

  // After a successful real call: the event the record holds one reference to (or
  // nullptr). `is_app_event` tells whether the app can see it.
  cl_event take_event(cl_int rc, bool& is_app_event) {
    is_app_event = false;
    if (rc != CL_SUCCESS) return nullptr;
    if (private_event_) {
      cl_event e = private_event_;
      private_event_ = nullptr;
      return e;
    }
    if (app_event_ && *app_event_) live_event_given(thread().tid);
    if (app_event_ && *app_event_ && real().clRetainEvent(*app_event_) == CL_SUCCESS) {
      is_app_event = true;
      return *app_event_;
    }
    return nullptr;
  }

 private:
  cl_event* app_event_;
  cl_event private_event_ = nullptr;
};

}  // namespace clprof::shim
