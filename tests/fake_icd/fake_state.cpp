// The fake driver's process-wide state and the lifetimes of its objects (fake_internal.hpp).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include "fake_internal.hpp"

namespace clprof::fake {

cl_icd_dispatch g_dispatch;
_cl_platform_id g_platform{&g_dispatch};
_cl_device_id g_device{&g_dispatch};
std::atomic<std::uint64_t> g_commands{0};
std::atomic<std::uint64_t> g_live_events{0};
// Unlike the live count, it leaves out the events only the driver still holds (a queue's
// pending list): a layer between app and driver that keeps a private reference shows here.
std::atomic<std::uint64_t> g_referenced_events{0};

std::uint64_t host_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void spin_for_ns(std::uint64_t ns) {
  if (ns == 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

namespace {

// Takes the list first, so that a callback that calls back into the driver finds no lock held.
template <typename T>
void run_destructors(T* o) {
  decltype(o->destructors) cbs;
  {
    std::lock_guard<std::mutex> lock(o->mutex);
    cbs.swap(o->destructors);
  }
  // Spec: destructor callbacks run in reverse order of registration.
  for (auto it = cbs.rbegin(); it != cbs.rend(); ++it) it->first(o, it->second);
}

// An object whose only hold is its context.
template <typename T>
void drop_in_context(T* o, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_context c = o->context;
  delete o;
  release_hold(c);
}

}  // namespace

void drop(cl_context c, std::uint64_t remaining) {
  if (remaining != 0) return;
  run_destructors(c);
  delete c;
}

void drop(cl_command_queue q, std::uint64_t remaining) {
  drop_in_context(q, remaining);
}
void drop(cl_program p, std::uint64_t remaining) {
  drop_in_context(p, remaining);
}
void drop(cl_sampler s, std::uint64_t remaining) {
  drop_in_context(s, remaining);
}

void drop(cl_event e, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_command_queue q = e->queue;
  cl_context c = q ? nullptr : e->context;
  delete e;
  g_live_events.fetch_sub(1, std::memory_order_relaxed);
  if (q) release_hold(q);
  if (c) release_hold(c);
}

void drop(cl_mem m, std::uint64_t remaining) {
  if (remaining != 0) return;
  run_destructors(m);
  cl_mem parent = m->parent;
  cl_context c = m->context;
  if (m->owns_data) std::free(m->data);
  delete m;
  if (parent) release_hold(parent);
  release_hold(c);
}

void drop(cl_kernel k, std::uint64_t remaining) {
  if (remaining != 0) return;
  cl_program p = k->program;
  delete k;
  release_hold(p);
}

cl_event new_event() {
  auto* e = new _cl_event();
  e->dispatch = &g_dispatch;
  g_live_events.fetch_add(1, std::memory_order_relaxed);
  g_referenced_events.fetch_add(1, std::memory_order_relaxed);
  return e;
}

void set_status(cl_event e, cl_int status) {
  cl_int cur = e->status.load(std::memory_order_acquire);
  while (cur > status) {
    if (e->status.compare_exchange_weak(cur, status, std::memory_order_acq_rel)) {
      std::vector<_cl_event::Callback> fire;
      {
        std::lock_guard<std::mutex> lock(e->mutex);
        auto keep = std::partition(e->callbacks.begin(), e->callbacks.end(),
                                   [&](const _cl_event::Callback& cb) { return cb.type < status; });
        fire.assign(keep, e->callbacks.end());
        e->callbacks.erase(keep, e->callbacks.end());
      }
      // Called without our locks: a callback may call back into the driver.
      for (const auto& cb : fire) cb.fn(e, status, cb.user_data);
      return;
    }
  }
}

void flush_queue(cl_command_queue q, bool drop_all) {
  std::vector<cl_event> list;
  {
    std::lock_guard<std::mutex> lock(q->mutex);
    if (q->pending.empty()) return;
    list.swap(q->pending);
  }
  std::vector<cl_event> still;
  for (cl_event e : list) {
    if (!e->never) set_status(e, CL_COMPLETE);
    if (e->never && !drop_all) {
      still.push_back(e);
    } else {
      release_hold(e);
    }
  }
  if (!still.empty()) {
    std::lock_guard<std::mutex> lock(q->mutex);
    q->pending.insert(q->pending.begin(), still.begin(), still.end());
  }
}

}  // namespace clprof::fake
