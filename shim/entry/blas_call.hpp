// One BLAS call as clprof records it: a range whose range_begin carries the call's
// arguments (the "blas" object of docs/trace-format.md) and whose range_end carries the
// status the library returned; the OpenCL commands the library enqueues inside the call
// carry its id ("call"). Used by the hooks of blas_hooks.cpp only.
//
// Threads: a BlasCallScope lives on the calling thread's stack; the per-thread state it
// uses (ThreadState::blas_depth, blas_call) is the caller's own. The real functions are
// resolved once per function, from any thread (atomic pointers).
#pragma once

#include <CL/cl.h>

#include <cstdint>

#include "entry/blas_functions.hpp"

namespace clprof::shim {

struct ThreadState;

// What the library returns when its function cannot be found: CLBlast's kNotImplemented
// and clBLAS's clblasNotImplemented.
inline constexpr int kBlasNotImplemented = -1024;

// The arguments of one call, decoded by its hook (library enums as passed).
struct BlasCallFacts {
  int layout = 0, trans_a = 0, trans_b = 0;
  std::uint64_t m = 0, n = 0, k = 0, batch = 1;
  bool has_alpha_beta = false;  // false for batched calls (arrays of them)
  bool complex = false;
  double alpha = 0, alpha_im = 0, beta = 0, beta_im = 0;
  cl_mem a = nullptr, b = nullptr, c = nullptr, temp = nullptr;
  bool has_offsets = false;  // false for batched calls (arrays of them)
  std::uint64_t a_offset = 0, b_offset = 0, c_offset = 0;
  std::uint64_t a_ld = 0, b_ld = 0, c_ld = 0;
  bool strided = false;
  std::uint64_t a_stride = 0, b_stride = 0, c_stride = 0;
  const cl_command_queue* queues = nullptr;  // the app's array (read during the call only)
  unsigned n_queues = 0;
};

// The library's function for `id`, or nullptr when no loaded object defines it (logged
// once). Looked up with dlsym(RTLD_NEXT), else in every loaded object (a library opened
// with RTLD_LOCAL is not in the scope RTLD_NEXT searches). Threads: any.
void* real_blas(BlasId id);

// dlsym on a BLAS entry point clprof hooks: `found` (what libc's dlsym answered) becomes
// the hook when it is the library's function (remembered as the real one), or nullptr
// when it is the hook itself and no library defines the function (so that an app probing
// for the library sees what it would see without clprof). false: `name` is not a hooked
// BLAS function (found unchanged). Threads: any.
bool blas_dlsym(const char* name, void*& found);

// Scope of one hook call. Records only the outermost BLAS call of a thread (a C function
// calling its C++ twin is one call), and only while the trace records and
// CLPROF_HOOK_BLAS is on. Unlike HookScope it is not held across the real call, so the
// library's OpenCL calls are recorded as usual.
class BlasCallScope {
 public:
  explicit BlasCallScope(BlasId id);
  ~BlasCallScope();
  BlasCallScope(const BlasCallScope&) = delete;
  BlasCallScope& operator=(const BlasCallScope&) = delete;

  // True when this call is to be recorded (then call begin() before the real call).
  bool recording() const { return state_ != nullptr && outermost_; }
  // Writes the range_begin record and marks the thread's commands as this call's.
  void begin(const BlasCallFacts& facts);
  // After the real call: the range_end record with the returned status.
  void end(int status);

 private:
  ThreadState* state_ = nullptr;  // set when the trace records (the depth is counted)
  BlasId id_;
  bool outermost_ = false;
  std::uint32_t call_ = 0;  // range id, 0 until begin()
};

}  // namespace clprof::shim
