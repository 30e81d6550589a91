#include "recording/memory.hpp"

#include <mutex>
#include <unordered_map>

#include "recording/registry_impl.hpp"

namespace clprof::shim {

template class Registry<MemInfo>;
template class Registry<SamplerInfo>;

namespace {
struct Mappings {
  std::mutex mutex;
  std::unordered_map<const void*, std::uint64_t> map;
};
Mappings& mappings() {
  static auto* m = new Mappings;
  return *m;
}
// Made at load, on the loading thread, before any app thread can reach it: an app built
// with ThreadSanitizer does not see the shim's (uninstrumented) static guard, and two app
// threads whose first use came at once were reported as a race on the new object.
__attribute__((constructor)) void make_mappings() {
  mappings();
}
}  // namespace

void register_mem(cl_mem mem, ArgKind kind, std::uint64_t bytes, std::uint32_t element_bytes) {
  MemInfo* m = mems().create(mem);
  m->kind = kind;
  m->bytes = bytes;
  m->element_bytes = element_bytes;
}

std::uint32_t image_element_bytes(const cl_image_format* f) {
  if (!f) return 0;
  std::uint32_t channels = 0;
  switch (f->image_channel_order) {
    case CL_R:
    case CL_A:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH:
    case CL_Rx:
      channels = 1;
      break;
    case CL_RG:
    case CL_RA:
    case CL_RGx:
      channels = 2;
      break;
    case CL_RGB:
    case CL_RGBx:
      channels = 3;
      break;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
    case CL_sRGBA:
    case CL_sBGRA:
    case CL_ABGR:
      channels = 4;
      break;
    default:
      return 0;
  }
  switch (f->image_channel_data_type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
      return channels;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      return 2 * channels;
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT32:
    case CL_FLOAT:
      return 4 * channels;
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
      return 2;
    case CL_UNORM_INT_101010:
      return 4;
    default:
      return 0;
  }
}

void mapping_add(const void* ptr, std::uint64_t bytes) {
  if (!ptr) return;
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.map[ptr] = bytes;
}

std::uint64_t mapping_take(const void* ptr) {
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.map.find(ptr);
  if (it == m.map.end()) return 0;
  const std::uint64_t bytes = it->second;
  m.map.erase(it);
  return bytes;
}

// Lock order (with the other kinds': recording/objects.cpp): mems, samplers, mappings.
void memory_fork_prepare() {
  mems().mutex().lock();
  samplers().mutex().lock();
  mappings().mutex.lock();
}
void memory_fork_parent() {
  mappings().mutex.unlock();
  samplers().mutex().unlock();
  mems().mutex().unlock();
}
void memory_fork_child() {
  memory_fork_parent();
}

}  // namespace clprof::shim
