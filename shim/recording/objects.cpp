#include "recording/objects.hpp"

namespace clprof::shim {

// Lock order: contexts and queues, devices, programs and kernels (then the interned
// names), memory objects and samplers (then the mappings), event references, live objects,
// work-group facts. Each kind takes its own locks in its own fixed order; nothing else nests them.
void objects_fork_prepare() {
  contexts_queues_fork_prepare();
  devices_fork_prepare();
  kernels_fork_prepare();
  memory_fork_prepare();
  event_refs_fork_prepare();
  live_objects_mutex().lock();
  work_groups_mutex().lock();
}

void objects_fork_parent() {
  work_groups_mutex().unlock();
  live_objects_mutex().unlock();
  event_refs_fork_parent();
  memory_fork_parent();
  kernels_fork_parent();
  devices_fork_parent();
  contexts_queues_fork_parent();
}

void objects_fork_child() {
  work_groups_mutex().unlock();
  live_objects_mutex().unlock();
  event_refs_fork_child();
  memory_fork_child();
  kernels_fork_child();
  devices_fork_child();
  contexts_queues_fork_child();
}

}  // namespace clprof::shim
