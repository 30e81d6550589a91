// The registries' out-of-line members (registry.hpp), included only by the file of each
// kind of object, which instantiates its own registries (`template class Registry<...>`;
// the kind's header declares them `extern template`).
#pragma once

#include "recording/registry.hpp"

namespace clprof::shim {

template <class Info>
Info* Registry<Info>::fresh_locked(const void* handle) {
  auto it = map_.find(handle);
  if (it != map_.end()) {
    // The driver reused a handle whose release we did not see: retire the old entry.
    Info* old = it->second;
    old->handle.store(nullptr, std::memory_order_relaxed);
    old->gen.fetch_add(1, std::memory_order_release);
    free_.push_back(old);
    map_.erase(it);
  }
  Info* info;
  if (!free_.empty()) {
    info = free_.back();
    free_.pop_back();
    info->reset();
  } else {
    info = new Info;
  }
  info->gen.fetch_add(1, std::memory_order_release);
  info->id = ++next_id_;
  return info;
}

template <class Info>
void Registry<Info>::publish_locked(const void* handle, Info* info) {
  creates_.fetch_add(1, std::memory_order_release);
  info->handle.store(handle, std::memory_order_release);
  map_.emplace(handle, info);
}

template <class Info>
Info* Registry<Info>::find_slow(const void* handle) {
  if (!handle) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(handle);
  if (it == map_.end()) {
    if (cache_slot_ >= 0) {
      thread_state().cache[cache_slot_][cache_index(handle)] =
          CacheEntry{handle, nullptr, creates_.load(std::memory_order_relaxed)};
    }
    return nullptr;
  }
  if (cache_slot_ >= 0) {
    thread_state().cache[cache_slot_][cache_index(handle)] =
        CacheEntry{handle, it->second, it->second->gen.load(std::memory_order_relaxed)};
  }
  return it->second;
}

template <class Info>
void Registry<Info>::erase(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(handle);
  if (it == map_.end()) return;
  Info* info = it->second;
  info->handle.store(nullptr, std::memory_order_relaxed);
  info->gen.fetch_add(1, std::memory_order_release);
  free_.push_back(info);
  map_.erase(it);
}

template <class Info>
std::vector<Info*> Registry<Info>::all() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Info*> out;
  for (auto& kv : map_) out.push_back(kv.second);
  return out;
}

}  // namespace clprof::shim
