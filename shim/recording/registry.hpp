// The object registries' common part: handle -> Info with a fresh clprof id per object
// (never reused, even when the driver reuses a handle), a lock-free thread-cache hit on
// the hot path. Each kind of object has its own file (devices, contexts_queues, kernels,
// memory) with its Info, its registries and their fork hooks.
//
// Threads: any (each method says). Ownership: Info objects are pooled, never freed, so a
// stale pointer is always safe to read; a registry is a leaked singleton.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

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

}  // namespace clprof::shim
