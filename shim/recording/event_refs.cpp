#include "recording/event_refs.hpp"

#include <sched.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "base/real_opencl.hpp"

namespace clprof::shim {

namespace {
struct EventRefs {
  std::mutex mutex;
  std::unordered_map<const void*, cl_uint> map;
};
EventRefs& event_refs() {
  static auto* m = new EventRefs;
  return *m;
}
// Made at load, on the loading thread, before any app thread can reach it: an app built
// with ThreadSanitizer does not see the shim's (uninstrumented) static guard, and two app
// threads whose first use came at once were reported as a race on the new object.
__attribute__((constructor)) void make_event_refs() {
  event_refs();
}
}  // namespace

void event_ref_add(cl_event e) {
  EventRefs& m = event_refs();
  std::lock_guard<std::mutex> lock(m.mutex);
  ++m.map[e];
}

namespace {
// Odd while event_ref_release() is between its uncount and its release.
std::atomic<std::uint64_t> g_event_release_gen{0};

cl_uint event_refs_held(cl_event e) {
  EventRefs& m = event_refs();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.map.find(e);
  return it == m.map.end() ? 0 : it->second;
}
}  // namespace

void event_ref_release(cl_event e) {
  g_event_release_gen.fetch_add(1, std::memory_order_seq_cst);
  {
    EventRefs& m = event_refs();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.map.find(e);
    if (it != m.map.end() && --it->second == 0) m.map.erase(it);
  }
  real().clReleaseEvent(e);
  g_event_release_gen.fetch_add(1, std::memory_order_seq_cst);
}

cl_int app_event_reference_count(cl_event e, size_t size, void* value, size_t* size_ret) {
  // A lock around both reads and the harvester's release would make an app thread wait
  // for a driver's clReleaseEvent; instead the reads are repeated in the rare case that
  // a release overlapped them (bounded: a release takes microseconds).
  cl_int rc = CL_SUCCESS;
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t before = g_event_release_gen.load(std::memory_order_seq_cst);
    rc = real().clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, size, value, size_ret);
    if (rc != CL_SUCCESS || !value || size < sizeof(cl_uint)) return rc;
    const cl_uint ours = event_refs_held(e);
    const std::uint64_t after = g_event_release_gen.load(std::memory_order_seq_cst);
    if ((before == after && (before & 1) == 0) || attempt == 1000) {
      cl_uint count;
      std::memcpy(&count, value, sizeof count);
      count = count > ours ? count - ours : 1;
      std::memcpy(value, &count, sizeof count);
      return rc;
    }
    if (attempt >= 8) sched_yield();
  }
}

void event_refs_fork_prepare() {
  event_refs().mutex.lock();
}
void event_refs_fork_parent() {
  event_refs().mutex.unlock();
}
void event_refs_fork_child() {
  event_refs().mutex.unlock();
  // The parent's events are not ours to release in the child.
  event_refs().map.clear();
}

}  // namespace clprof::shim
