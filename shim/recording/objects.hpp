// What the shim remembers about the app's OpenCL objects: clprof ids (never reused,
// even when the driver reuses a handle) and facts cached at creation (names, sizes,
// queue -> device/context, kernel -> program, the kernel argument table).
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "recording/clock_sync.hpp"
#include "recording/record.hpp"
#include "recording/thread_state.hpp"

namespace clprof::shim {

// Common part of every cached object. `handle` and `gen` let a thread's lookup cache
// detect that an entry was released or recycled. Info objects are pooled, never freed,
// so a stale pointer is always safe to read.
struct ObjectInfo {
  std::atomic<const void*> handle{nullptr};
  std::atomic<std::uint32_t> gen{0};
  std::uint64_t id = 0;
};

struct ContextInfo : ObjectInfo {
  void reset() {}
};

struct DeviceInfo : ObjectInfo {
  cl_device_id device = nullptr;
  bool timer_ok = false;  // clGetDeviceAndHostTimer works on this device
  void reset() { timer_ok = false; }
};

struct QueueInfo : ObjectInfo {
  std::uint64_t context_id = 0;
  std::uint64_t device_id = 0;
  bool profiling_added = false;
  bool out_of_order = false;                   // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
  bool has_properties_array = false;           // created WithProperties
  std::vector<cl_queue_properties> app_array;  // the app's array (0-terminated), or empty
  void reset() {
    context_id = device_id = 0;
    profiling_added = out_of_order = has_properties_array = false;
    app_array.clear();
  }
};

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
  const char* name = "\"\"";  // JSON-quoted function name, interned
  std::uint64_t program_id = 0;
  std::uint64_t context_id = 0;
  std::uint32_t num_args = 0;
  // Zeroed (kind Unset) in a new entry: an argument the app never set must read as unset,
  // not as whatever the allocator's memory held (found by AddressSanitizer's malloc fill).
  ArgSnapshot args[kMaxRecordedArgs]{};
  void reset() {
    name = "\"\"";
    program_id = context_id = 0;
    num_args = 0;
    for (auto& a : args) a.kind = ArgKind::Unset;
  }
};

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

// handle -> Info with fresh ids. find() is a thread-local cache hit on the hot path
// (no lock); create/erase take the registry's mutex (never across an OpenCL call).
template <class Info>
class Registry {
 public:
  // cache_slot: which ThreadState cache row to use, or -1 for no thread cache.
  explicit Registry(int cache_slot) : cache_slot_(cache_slot) {}

  // A new entry with a fresh id for `handle`, replacing any stale one. `fill(info)` runs
  // before any other thread can find the entry, under the registry's lock: plain field
  // assignments only (no OpenCL call, no record). Threads: any. An object the app already
  // holds (one learnt lazily, which another thread may look up at the same moment) must
  // be filled this way; one about to be handed to the app may also be filled after.
  template <class Fill>
  Info* create(const void* handle, Fill&& fill) {
    std::lock_guard<std::mutex> lock(mutex_);
    Info* info = fresh_locked(handle);
    fill(*info);
    publish_locked(handle, info);
    return info;
  }
  Info* create(const void* handle) {
    return create(handle, [](Info&) {});
  }
  // For an object the app already holds, learnt on first use: the entry another thread
  // has made for `handle` meanwhile (`created` false; it is current, not stale: the app
  // still uses the object), else a new one filled as by create(). Never replaces an entry
  // another thread may be reading. Threads: any.
  template <class Fill>
  Info* learn(const void* handle, Fill&& fill, bool& created) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(handle);
    created = it == map_.end();
    if (!created) return it->second;
    Info* info = fresh_locked(handle);
    fill(*info);
    publish_locked(handle, info);
    return info;
  }
  // The entry for `handle`, or nullptr. Threads: any. Inline: the thread-cache hit is
  // the hot path of every hooked call that names an object. A miss is cached too
  // (clSetKernelArg asks about every 8-byte scalar) until the registry next creates.
  Info* find(const void* handle) {
    if (cache_slot_ >= 0 && handle) {
      const CacheEntry& e = cache_entry(handle);
      if (Info* info = cache_hit(e, handle)) return info;
      if (e.handle == handle && !e.info && e.gen == creates_.load(std::memory_order_acquire)) {
        return nullptr;
      }
    }
    return find_slow(handle);
  }
  // The thread cache's entry for `handle` if it is current, else nullptr (not cached,
  // stale, or cached as unknown: the caller then asks find()). Threads: any.
  Info* find_cached(const void* handle) {
    return cache_slot_ >= 0 && handle ? cache_hit(cache_entry(handle), handle) : nullptr;
  }
  // Forgets `handle` (its Info is recycled). Threads: any.
  void erase(const void* handle);
  // Every live entry (finaliser; copies pointers under the lock).
  std::vector<Info*> all();

  std::mutex& mutex() { return mutex_; }

 private:
  static unsigned cache_index(const void* handle) {
    static_assert(kCacheSize == 64, "the shift below picks 6 bits");
    // Fibonacci hashing: handles may be as close as a few bytes apart.
    return static_cast<unsigned>(
        (reinterpret_cast<std::uintptr_t>(handle) * 0x9E3779B97F4A7C15ULL) >> 58);
  }
  const CacheEntry& cache_entry(const void* handle) const {
    return thread_state().cache[cache_slot_][cache_index(handle)];
  }
  static Info* cache_hit(const CacheEntry& e, const void* handle) {
    if (e.handle == handle && e.info && e.info->handle.load(std::memory_order_relaxed) == handle &&
        e.info->gen.load(std::memory_order_acquire) == e.gen) {
      return static_cast<Info*>(e.info);
    }
    return nullptr;
  }
  // The registry lookup under the mutex; refreshes the thread cache.
  Info* find_slow(const void* handle);
  // create(), under the mutex: retires a stale entry of `handle` and returns a reset one
  // with a fresh id, not yet findable; then makes it findable.
  Info* fresh_locked(const void* handle);
  void publish_locked(const void* handle, Info* info);

  const int cache_slot_;
  std::atomic<std::uint32_t> creates_{0};  // bumped by every create (stales cached misses)
  std::mutex mutex_;
  std::unordered_map<const void*, Info*> map_;
  std::vector<Info*> free_;
  std::uint64_t next_id_ = 0;
};

// The registries: leaked singletons (hooks may run during static destruction), inline
// so the hot path pays a guard check, not a call. The number is the thread-cache row.
inline Registry<ContextInfo>& contexts() {
  static auto* r = new Registry<ContextInfo>(-1);
  return *r;
}
inline Registry<DeviceInfo>& devices() {
  static auto* r = new Registry<DeviceInfo>(-1);
  return *r;
}
inline Registry<QueueInfo>& queues() {
  static auto* r = new Registry<QueueInfo>(0);
  return *r;
}
inline Registry<ProgramInfo>& programs() {
  static auto* r = new Registry<ProgramInfo>(-1);
  return *r;
}
inline Registry<KernelInfo>& kernels() {
  static auto* r = new Registry<KernelInfo>(1);
  return *r;
}
inline Registry<MemInfo>& mems() {
  static auto* r = new Registry<MemInfo>(2);
  return *r;
}
inline Registry<SamplerInfo>& samplers() {
  static auto* r = new Registry<SamplerInfo>(3);
  return *r;
}

// The id of `device`, registering it (device + clock_sync records) on first sight.
std::uint64_t device_id_of(cl_device_id device);
// Registers a new context and the devices it holds; returns its id.
std::uint64_t register_context(cl_context context);
// The id of `context`, registering an unknown one on first sight (0 for NULL).
std::uint64_t context_id_of(cl_context context);
// queue_info and kernel_info past the thread cache (a miss, a NULL or unknown handle).
QueueInfo* queue_info_slow(cl_command_queue queue);
KernelInfo* kernel_info_slow(cl_kernel kernel);
// The queue's info, registering an unknown queue on first sight (nullptr on failure).
// Inline: the thread-cache hit is on every launch and argument set.
inline QueueInfo* queue_info(cl_command_queue queue) {
  QueueInfo* q = queues().find_cached(queue);
  return __builtin_expect(q != nullptr, 1) ? q : queue_info_slow(queue);
}
// The kernel's info, registering an unknown kernel on first sight (nullptr on failure).
inline KernelInfo* kernel_info(cl_kernel kernel) {
  KernelInfo* k = kernels().find_cached(kernel);
  return __builtin_expect(k != nullptr, 1) ? k : kernel_info_slow(kernel);
}
// Registers a kernel the app just got (name, program, argument count) and writes its
// kernel record.
KernelInfo* register_kernel(cl_kernel kernel);
// Registers a mem object the app just got.
void register_mem(cl_mem mem, ArgKind kind, std::uint64_t bytes, std::uint32_t element_bytes);
// Records `pointer` as argument `arg_index` of `kernel` (an SVM or USM pointer), after the
// driver accepted it. Threads: any (the app's own rule: one thread sets a kernel's args).
void snapshot_pointer_arg(cl_kernel kernel, cl_uint arg_index, const void* pointer);
// Bytes per pixel of an image format (0 if unknown).
std::uint32_t image_element_bytes(const cl_image_format* format);

// Process-lifetime copy of `name` (kernel names), deduplicated. Threads: any.
const char* intern(const std::string& name);

// References the shim holds on app-visible events, masked from CL_EVENT_REFERENCE_COUNT.
// Counts a reference the record just took (clRetainEvent, on the enqueuing thread).
// Threads: any.
void event_ref_add(cl_event e);
// Drops a record's reference: uncounts it and calls clReleaseEvent, both inside one
// bracket of a generation count that app_event_reference_count() checks. Threads: one
// at a time (the harvester, then the finaliser: overlapping brackets would pair up
// wrongly); never holds a lock across the release.
void event_ref_release(cl_event e);
// clGetEventInfo(CL_EVENT_REFERENCE_COUNT) as the app would see it without clprof: the
// driver's count minus the references records hold, both read between two releases (a
// release in between, which would make the pair disagree, means reading again).
// Arguments and result as clGetEventInfo's. Threads: any.
cl_int app_event_reference_count(cl_event e, size_t size, void* value, size_t* size_ret);

// Sizes of live mappings (so unmap records carry bytes).
void mapping_add(const void* ptr, std::uint64_t bytes);
std::uint64_t mapping_take(const void* ptr);

// Clock_sync record lines for the end of the trace: a fresh clGetDeviceAndHostTimer
// sample for devices that support it, else `brackets` (device id -> estimator).
std::vector<std::string> final_clock_sync_lines(
    const std::unordered_map<std::uint64_t, BracketEstimator>& brackets);

// Locks every registry (pthread_atfork prepare) / unlocks them (parent and child).
void objects_fork_prepare();
void objects_fork_parent();
void objects_fork_child();

}  // namespace clprof::shim
