// The app's programs and kernels: their clprof ids, kernel -> program/context, the
// kernel's name as the trace spells it, its argument count and the argument table that
// clSetKernelArg fills and each launch copies, and the kernel record (with the argument
// type names, once per kernel name and program).
//
// Threads: any; kernel_info() is on every launch and argument set (a thread-cache hit, no
// lock). Ownership: Info entries are the registries' (pooled, never freed); interned names
// live as long as the process.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "recording/record.hpp"
#include "recording/registry.hpp"

namespace clprof::shim {

struct ProgramInfo : ObjectInfo {
  std::uint64_t context_id = 0;
  std::uint64_t source_hash = 0;
  bool has_source = false;
  void reset() {
    context_id = source_hash = 0;
    has_source = false;
  }
};

// The argument table is written by clSetKernelArg and copied by launches on the app's
// threads without a lock: OpenCL already forbids setting a kernel's arguments while
// another thread uses the same kernel, so the shim adds no race the app lacks.
struct KernelInfo : ObjectInfo {
  // The function name as the trace spells it (record_sink_kernel_name), interned; nullptr
  // until known (a launch record then has the empty name: OpRecord::kernel_name).
  const char* name = nullptr;
  std::uint64_t program_id = 0;
  std::uint64_t context_id = 0;
  std::uint32_t num_args = 0;
  // Zeroed (kind Unset) in a new entry: an argument the app never set must read as unset,
  // not as whatever the allocator's memory held (found by AddressSanitizer's malloc fill).
  ArgSnapshot args[kMaxRecordedArgs]{};
  // The handle of each mem object / sampler argument as set (CLPROF_CAPTURE reads the
  // buffers; never retained: the app keeps them alive while it launches the kernel).
  const void* handles[kMaxRecordedArgs]{};
  // CLPROF_CAPTURE's verdict on the name: 0 not asked yet, 1 no, 2 yes (recording/capture).
  std::uint8_t capture_match = 0;
  void reset() {
    name = nullptr;
    program_id = context_id = 0;
    num_args = 0;
    capture_match = 0;
    for (auto& a : args) a.kind = ArgKind::Unset;
    for (auto& h : handles) h = nullptr;
  }
};

extern template class Registry<ProgramInfo>;
extern template class Registry<KernelInfo>;

// The registries: leaked singletons (hooks may run during static destruction), inline so
// the hot path pays a guard check, not a call. The number is the thread-cache row.
inline Registry<ProgramInfo>& programs() {
  static auto* r = new Registry<ProgramInfo>(-1);
  return *r;
}
inline Registry<KernelInfo>& kernels() {
  static auto* r = new Registry<KernelInfo>(1);
  return *r;
}

// kernel_info past the thread cache (a miss, a NULL or unknown handle).
KernelInfo* kernel_info_slow(cl_kernel kernel);
// The kernel's info, registering an unknown kernel on first sight (nullptr on failure).
// Inline: the thread-cache hit is on every launch and argument set.
inline KernelInfo* kernel_info(cl_kernel kernel) {
  KernelInfo* k = kernels().find_cached(kernel);
  return __builtin_expect(k != nullptr, 1) ? k : kernel_info_slow(kernel);
}
// Registers a kernel the app just got (name, program, argument count); its facts go to
// the record sink (a kernel record).
KernelInfo* register_kernel(cl_kernel kernel);
// Records `pointer` as argument `arg_index` of `kernel` (an SVM or USM pointer), after the
// driver accepted it. Threads: any (the app's own rule: one thread sets a kernel's args).
void snapshot_pointer_arg(cl_kernel kernel, cl_uint arg_index, const void* pointer);

// Process-lifetime copy of `name` (kernel names), deduplicated. Threads: any.
const char* intern(const std::string& name);

// pthread_atfork: prepare takes the registries' and the interned names' locks, parent and
// child release them.
void kernels_fork_prepare();
void kernels_fork_parent();
void kernels_fork_child();

}  // namespace clprof::shim
