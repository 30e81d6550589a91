// The app's contexts and command queues: their clprof ids, queue -> context/device, how
// the shim made the queue (profiling added, the app's own properties), and the queue
// record of a queue learnt on first use.
//
// Threads: any; queue_info() is on every launch (a thread-cache hit, no lock).
// Ownership: Info entries are the registries' (pooled, never freed).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <vector>

#include "recording/registry.hpp"

namespace clprof::shim {

struct ContextInfo : ObjectInfo {
  void reset() {}
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

extern template class Registry<ContextInfo>;
extern template class Registry<QueueInfo>;

// The registries: leaked singletons (hooks may run during static destruction), inline so
// the hot path pays a guard check, not a call. The number is the thread-cache row.
inline Registry<ContextInfo>& contexts() {
  static auto* r = new Registry<ContextInfo>(-1);
  return *r;
}
inline Registry<QueueInfo>& queues() {
  static auto* r = new Registry<QueueInfo>(0);
  return *r;
}

// Registers a new context and the devices it holds; returns its id.
std::uint64_t register_context(cl_context context);
// The id of `context`, registering an unknown one on first sight (0 for NULL).
std::uint64_t context_id_of(cl_context context);
// queue_info past the thread cache (a miss, a NULL or unknown handle).
QueueInfo* queue_info_slow(cl_command_queue queue);
// The queue's info, registering an unknown queue on first sight (nullptr on failure): its
// facts go to the record sink. Inline: the thread-cache hit is on every launch.
inline QueueInfo* queue_info(cl_command_queue queue) {
  QueueInfo* q = queues().find_cached(queue);
  return __builtin_expect(q != nullptr, 1) ? q : queue_info_slow(queue);
}

// Hands the queue's facts to the record sink (its queue record): `q`'s ids and whether
// the shim added profiling, and the app's CL_QUEUE_PROPERTIES bits `properties`.
void emit_queue_facts(const QueueInfo& q, std::uint64_t properties);

// pthread_atfork: prepare takes both registries' locks, parent and child release them.
void contexts_queues_fork_prepare();
void contexts_queues_fork_parent();
void contexts_queues_fork_child();

}  // namespace clprof::shim
