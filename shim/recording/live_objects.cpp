#include "recording/live_objects.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace clprof::shim {
namespace {

struct Entry {
  LiveKind kind;
  std::uint64_t refs;
  std::uint64_t bytes;
};

struct Objects {
  std::mutex mutex;
  std::unordered_map<const void*, Entry> map;
};
Objects& objects() {
  static auto* o = new Objects;  // leaked: hooks may run during static destruction
  return *o;
}
// Made at load, before any app thread can race on the static guard (kernels.cpp's names).
__attribute__((constructor)) void make_objects() {
  objects();
}

constexpr unsigned kShards = 16;
struct alignas(64) EventShard {
  std::atomic<std::uint64_t> given{0}, retained{0}, released{0};
};
EventShard g_events[kShards];

EventShard& shard(int tid) {
  return g_events[static_cast<unsigned>(tid) % kShards];
}

}  // namespace

void live_created(LiveKind kind, const void* handle, std::uint64_t bytes) {
  if (!handle) return;
  Objects& o = objects();
  std::lock_guard<std::mutex> lock(o.mutex);
  o.map[handle] = Entry{kind, 1, bytes};  // a reused handle: the old object is gone
}

void live_retained(const void* handle) {
  Objects& o = objects();
  std::lock_guard<std::mutex> lock(o.mutex);
  auto it = o.map.find(handle);
  if (it != o.map.end()) ++it->second.refs;
}

void live_released(const void* handle) {
  Objects& o = objects();
  std::lock_guard<std::mutex> lock(o.mutex);
  auto it = o.map.find(handle);
  if (it != o.map.end() && --it->second.refs == 0) o.map.erase(it);
}

void live_event_given(int tid) {
  shard(tid).given.fetch_add(1, std::memory_order_relaxed);
}
void live_event_retained(int tid) {
  shard(tid).retained.fetch_add(1, std::memory_order_relaxed);
}
void live_event_released(int tid) {
  shard(tid).released.fetch_add(1, std::memory_order_relaxed);
}

bool live_facts(LiveFacts& f, bool try_only) {
  // Per LiveKind: its count's index in the end record's order below, and its bytes' (-1:
  // none). Sub-buffers count as buffers but add no bytes (they alias their parent's).
  static const char* const kNames[] = {"buffers",  "buffer_bytes", "images",   "image_bytes",
                                       "pipes",    "pipe_bytes",   "samplers", "kernels",
                                       "programs", "queues",       "contexts"};
  static const int kCount[] = {0, 0, 2, 4, 6, 7, 8, 9, 10};
  static const int kBytes[] = {1, -1, 3, 5, -1, -1, -1, -1, -1};
  std::uint64_t values[sizeof kNames / sizeof kNames[0]] = {};
  {
    Objects& o = objects();
    std::unique_lock<std::mutex> lock(o.mutex, std::defer_lock);
    if (try_only) {
      if (!lock.try_lock()) return false;
    } else {
      lock.lock();
    }
    for (const auto& [handle, e] : o.map) {
      const auto k = static_cast<unsigned>(e.kind);
      ++values[kCount[k]];
      if (kBytes[k] >= 0) values[kBytes[k]] += e.bytes;
    }
  }
  f.counts.clear();
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i)
    f.counts.emplace_back(kNames[i], values[i]);
  std::uint64_t given = 0, retained = 0, released = 0;
  for (const EventShard& s : g_events) {
    given += s.given.load(std::memory_order_relaxed);
    retained += s.retained.load(std::memory_order_relaxed);
    released += s.released.load(std::memory_order_relaxed);
  }
  if (released <= given + retained) f.counts.emplace_back("events", given + retained - released);
  return true;
}

std::mutex& live_objects_mutex() {
  return objects().mutex;
}

}  // namespace clprof::shim
