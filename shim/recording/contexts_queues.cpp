#include "recording/contexts_queues.hpp"

#include "base/real_opencl.hpp"
#include "recording/devices.hpp"
#include "recording/object_facts.hpp"
#include "recording/record_sink.hpp"
#include "recording/registry_impl.hpp"

namespace clprof::shim {

template class Registry<ContextInfo>;
template class Registry<QueueInfo>;

namespace {
// `lazily`: a context the app has had for a while (made where the shim does not hook),
// which another thread may be registering too.
std::uint64_t add_context(cl_context context, bool lazily) {
  ContextInfo* info;
  if (lazily) {
    bool created = false;
    info = contexts().learn(
        context, [](ContextInfo&) {}, created);
    if (!created) return info->id;
  } else {
    info = contexts().create(context);
  }
  size_t n = 0;
  if (real().clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &n) == CL_SUCCESS && n > 0) {
    std::vector<cl_device_id> ds(n / sizeof(cl_device_id));
    if (real().clGetContextInfo(context, CL_CONTEXT_DEVICES, n, ds.data(), nullptr) == CL_SUCCESS) {
      for (cl_device_id d : ds) device_id_of(d);
    }
  }
  return info->id;
}
}  // namespace

std::uint64_t register_context(cl_context context) {
  return add_context(context, false);
}

std::uint64_t context_id_of(cl_context context) {
  if (!context) return 0;
  ContextInfo* info = contexts().find(context);
  return info ? info->id : add_context(context, true);
}

QueueInfo* queue_info_slow(cl_command_queue queue) {
  if (!queue) return nullptr;
  if (QueueInfo* q = queues().find(queue)) return q;
  // A queue made through a path we do not hook (e.g. an extension): learn it once.
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  if (real().clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr) !=
          CL_SUCCESS ||
      real().clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr) !=
          CL_SUCCESS) {
    return nullptr;
  }
  const std::uint64_t context_id = context_id_of(ctx);
  const std::uint64_t device_id = device_id_of(dev);
  cl_command_queue_properties props = 0;
  real().clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr);
  // The app already holds this queue: other threads may be using it right now.
  bool created = false;
  QueueInfo* q = queues().learn(
      queue,
      [&](QueueInfo& info) {
        info.context_id = context_id;
        info.device_id = device_id;
        info.out_of_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
      },
      created);
  if (!created) return q;
  emit_queue_facts(*q, props);  // profiling_added: false (the shim did not make it)
  return q;
}

void emit_queue_facts(const QueueInfo& q, std::uint64_t properties) {
  QueueFacts f;
  f.id = q.id;
  f.context_id = q.context_id;
  f.device_id = q.device_id;
  f.properties = properties;
  f.profiling_added = q.profiling_added;
  emit_object(f);
}

// Lock order (with the other kinds': recording/objects.cpp): contexts, then queues.
void contexts_queues_fork_prepare() {
  contexts().mutex().lock();
  queues().mutex().lock();
}
void contexts_queues_fork_parent() {
  queues().mutex().unlock();
  contexts().mutex().unlock();
}
void contexts_queues_fork_child() {
  contexts_queues_fork_parent();
}

}  // namespace clprof::shim
