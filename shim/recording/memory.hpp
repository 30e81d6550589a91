// The app's memory objects (buffers, images, pipes), samplers and live mappings: their
// clprof ids, kind and size (what a launch's argument snapshot names), and the size of
// each mapping (so that the unmap record carries its bytes).
//
// Threads: any; mems().find() is on every argument set (a thread-cache hit, no lock).
// Ownership: Info entries are the registries' (pooled, never freed). Units: bytes.
#pragma once

#include <CL/cl.h>

#include <cstdint>

#include "recording/record.hpp"
#include "recording/registry.hpp"

namespace clprof::shim {

struct MemInfo : ObjectInfo {
  ArgKind kind = ArgKind::Buffer;  // Buffer, Image or Pipe
  std::uint64_t bytes = 0;
  std::uint32_t element_bytes = 0;  // images: bytes per pixel (0 unknown)
  void reset() {
    kind = ArgKind::Buffer;
    bytes = 0;
    element_bytes = 0;
  }
};

struct SamplerInfo : ObjectInfo {
  void reset() {}
};

extern template class Registry<MemInfo>;
extern template class Registry<SamplerInfo>;

// The registries: leaked singletons (hooks may run during static destruction), inline so
// the hot path pays a guard check, not a call. The number is the thread-cache row.
inline Registry<MemInfo>& mems() {
  static auto* r = new Registry<MemInfo>(2);
  return *r;
}
inline Registry<SamplerInfo>& samplers() {
  static auto* r = new Registry<SamplerInfo>(3);
  return *r;
}

// Registers a mem object the app just got.
void register_mem(cl_mem mem, ArgKind kind, std::uint64_t bytes, std::uint32_t element_bytes);
// Bytes per pixel of an image format (0 if unknown).
std::uint32_t image_element_bytes(const cl_image_format* format);

// Sizes of live mappings (so unmap records carry bytes).
void mapping_add(const void* ptr, std::uint64_t bytes);
std::uint64_t mapping_take(const void* ptr);

// pthread_atfork: prepare takes the registries' and the mappings' locks, parent and child
// release them.
void memory_fork_prepare();
void memory_fork_parent();
void memory_fork_child();

}  // namespace clprof::shim
