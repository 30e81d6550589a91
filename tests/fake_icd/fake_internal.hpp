// What the rooms of the fake OpenCL driver share. Internal: apps and tests reach the driver
// only through the ICD loader, the dispatch table and the exported symbols (README.md).
//
// Rooms, one .cpp each:
//   fake_state.cpp            the process-wide state (dispatch table, the one platform and
//                             device, command and event counters) and object lifetimes:
//                             destruction, event status changes, a queue's pending list
//   fake_source_scan.cpp      OpenCL C source scanning: the kernels and their parameters
//   fake_platform.cpp         platform and device queries, device and host timers
//   fake_contexts_queues.cpp  contexts, command queues, clFlush/clFinish
//   fake_events.cpp           event queries, callbacks, user events, clWaitForEvents
//   fake_memory.cpp           buffers, sub-buffers, images, samplers, SVM, clImportMemoryARM
//   fake_programs_kernels.cpp programs (build, compile, link) and kernels (arguments, info)
//   fake_enqueue.cpp          commands: launches, transfers, markers and barriers; their
//                             numbering, timestamps and events
//   fake_dispatch.cpp         the dispatch table, extension lookup, the exported symbols
//   fake_config.cpp           the FAKE_CL_* environment, failure injection (fake_config.hpp)
// fake_entry_points.inc lists the entry points each room implements; dispatch_members.inc
// lists every slot of the table.
//
// Threads: any entry point may run on any number of threads at once. Shared state is
// atomic (counters, reference counts, event status) or guarded by the owning object's
// `mutex` (fake_objects.hpp). Callbacks (event, destructor, build notify) are called with
// no lock of ours held: they may call back into the driver.
//
// Ownership: objects are plain new/delete. Each has a RefCount: the app's references plus
// the driver's internal holds (a queue, memory object, program, sampler or user event holds
// its context; a sub-buffer its buffer; a kernel its program; a command's event its queue;
// a queue's pending list each pending event). drop() deletes an object when both reach
// zero and then lets go of what it held. The platform and the device are static singletons.
//
// Units: times in ns. Device stamps are synthetic (kQueuedStep per command); host times
// are CLOCK_MONOTONIC.
#pragma once

#include <CL/cl_icd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fake_config.hpp"
#include "fake_objects.hpp"

// ---- failure injection (FAKE_CL_FAIL) ---------------------------------------------------
// The first statement of an entry point. One lookup per call site (a function-local
// static), so an entry point without an injection costs a predictable branch.
#define FAKE_INJECT(api)                                                                \
  do {                                                                                  \
    static ::clprof::fake::Injection* const inj_ = ::clprof::fake::find_injection(api); \
    if (inj_) {                                                                         \
      const cl_int rc_ = inj_->hit();                                                   \
      if (rc_ != CL_SUCCESS) return rc_;                                                \
    }                                                                                   \
  } while (0)

// The same for an object-creating entry point: returns NULL and sets *errcode_ret.
#define FAKE_INJECT_OBJ(api, errcode_ret)                                               \
  do {                                                                                  \
    static ::clprof::fake::Injection* const inj_ = ::clprof::fake::find_injection(api); \
    if (inj_) {                                                                         \
      const cl_int rc_ = inj_->hit();                                                   \
      if (rc_ != CL_SUCCESS) {                                                          \
        if (errcode_ret) *(errcode_ret) = rc_;                                          \
        return nullptr;                                                                 \
      }                                                                                 \
    }                                                                                   \
  } while (0)

namespace clprof::fake {

// ---- process-wide state (fake_state.cpp) --------------------------------------------------
extern cl_icd_dispatch g_dispatch;  // filled once by ensure_dispatch() before any object escapes
extern _cl_platform_id g_platform;
extern _cl_device_id g_device;
// Commands enqueued so far in this process; command n is stamped from n.
extern std::atomic<std::uint64_t> g_commands;
// Event objects created and not yet destroyed, whoever holds them (the app, a queue's
// pending list, or a layer such as libclprof.so): clprof_fake_live_events().
extern std::atomic<std::uint64_t> g_live_events;
// Of those, the ones with an app-visible reference left: clprof_fake_referenced_events().
extern std::atomic<std::uint64_t> g_referenced_events;

// The synthetic device clock (README.md, "Deterministic timestamps"), in ns.
constexpr std::uint64_t kQueuedStep = 1000;
constexpr std::uint64_t kSubmitDelay = 10;
constexpr std::uint64_t kStartDelay = 100;
constexpr std::uint64_t kKernelBase = 1000;
constexpr std::uint64_t kTransferBase = 500;

// CLOCK_MONOTONIC, in ns.
std::uint64_t host_now_ns();
// Spins (no sleep) for `ns`: a slow driver keeps the caller's thread busy.
void spin_for_ns(std::uint64_t ns);

// ---- answers -------------------------------------------------------------------------------
template <typename T>
T* fail(cl_int* errcode_ret, cl_int code) {
  if (errcode_ret) *errcode_ret = code;
  return nullptr;
}

template <typename T>
T* succeed(cl_int* errcode_ret, T* obj) {
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return obj;
}

// Where a clGet*Info call wants its answer (param_value_size, param_value,
// param_value_size_ret). Every query answers through one.
class InfoReply {
 public:
  InfoReply(std::size_t size, void* out, std::size_t* size_ret)
      : size_(size), out_(out), size_ret_(size_ret) {}
  // `n` bytes from `src`; CL_INVALID_VALUE when the caller's buffer is smaller.
  cl_int bytes(const void* src, std::size_t n) const {
    if (out_) {
      if (size_ < n) return CL_INVALID_VALUE;
      if (n) std::memcpy(out_, src, n);
    }
    if (size_ret_) *size_ret_ = n;
    return CL_SUCCESS;
  }
  template <typename T>
  cl_int value(const T& v) const {
    return bytes(&v, sizeof(T));
  }
  // A NUL-terminated string.
  cl_int string(std::string_view s) const {
    const std::string z(s);
    return bytes(z.c_str(), z.size() + 1);
  }
  template <typename T>
  cl_int vector(const std::vector<T>& v) const {
    return bytes(v.data(), v.size() * sizeof(T));
  }
  // Nothing: size 0 (an empty list).
  cl_int none() const { return bytes(nullptr, 0); }

 private:
  std::size_t size_;
  void* out_;
  std::size_t* size_ret_;
};

// ---- lifetimes (fake_state.cpp) ------------------------------------------------------------
// Each deletes its object when `remaining` (a RefCount's packed remainder) is 0, runs its
// destructor callbacks, and drops the holds the object had.
void drop(cl_context c, std::uint64_t remaining);
void drop(cl_command_queue q, std::uint64_t remaining);
void drop(cl_event e, std::uint64_t remaining);
void drop(cl_mem m, std::uint64_t remaining);
void drop(cl_program p, std::uint64_t remaining);
void drop(cl_kernel k, std::uint64_t remaining);
void drop(cl_sampler s, std::uint64_t remaining);

// Lets go of one internal hold on `o`.
template <typename T>
void release_hold(T* o) {
  drop(o, o->refs.release_internal());
}

// True while the app holds a reference to `o`: the check before clRetain*/clRelease*.
template <typename T>
bool alive(const T* o) {
  return o && o->refs.api() != 0;
}

// clRetain*: `invalid` (CL_INVALID_CONTEXT, ...) for a null or released object.
template <typename T>
cl_int retain(T* o, cl_int invalid) {
  if (!alive(o)) return invalid;
  o->refs.retain_api();
  return CL_SUCCESS;
}

// clRelease* of an object without extra work at its last release.
template <typename T>
cl_int release(T* o, cl_int invalid) {
  if (!alive(o)) return invalid;
  drop(o, o->refs.release_api());
  return CL_SUCCESS;
}

// A new object of `T` (a _cl_* struct) in context `c`, which it holds until it is destroyed.
template <typename T>
T* new_in_context(cl_context c) {
  auto* o = new T();
  o->dispatch = &g_dispatch;
  o->context = c;
  c->refs.retain_internal();
  return o;
}

// clSet*DestructorCallback: `invalid` for a null object.
template <typename T, typename Fn>
cl_int add_destructor(T* o, Fn fn, void* user_data, cl_int invalid) {
  if (!o) return invalid;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard<std::mutex> lock(o->mutex);
  o->destructors.emplace_back(fn, user_data);
  return CL_SUCCESS;
}

// A new event, counted in g_live_events and g_referenced_events (every event is made here).
cl_event new_event();
// Lowers the event's status to `status` (if it is higher) and fires the callbacks
// registered for it, on this thread.
void set_status(cl_event e, cl_int status);
// Completes the queue's pending events (in order: everything enqueued so far). Events in
// "never" mode stay pending unless `drop_all` (the queue's last release) lets go of them.
void flush_queue(cl_command_queue q, bool drop_all);

// ---- platform and device (fake_platform.cpp) -------------------------------------------------
// True when a device of type `t` is asked for that our one device (a GPU) is.
bool device_type_matches(cl_device_type t);

// ---- source scanning (fake_source_scan.cpp) --------------------------------------------------
// Every `__kernel void NAME(params)` / `kernel void NAME(params)` in OpenCL C `source`.
std::vector<KernelInfo> scan_kernels(const std::string& source);

// ---- the entry points
// ---------------------------------------------------------------------------- Every implemented
// entry point, declared with its dispatch slot's own type from the one list (fake_entry_points.inc,
// by room); fake_dispatch.cpp fills the slots from it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // slots of deprecated entry points
#define X(name) std::remove_pointer_t<decltype(cl_icd_dispatch::cl##name)> name;
#include "fake_entry_points.inc"
#undef X
#pragma GCC diagnostic pop

// cl_arm_import_memory (fake_memory.cpp): not in the dispatch table, reached through
// extension lookup and the exported clImportMemoryARM.
cl_mem CL_API_CALL ImportMemoryARM(cl_context c, cl_mem_flags flags, const intptr_t* properties,
                                   void* memory, size_t bytes, cl_int* errcode_ret);

}  // namespace clprof::fake
