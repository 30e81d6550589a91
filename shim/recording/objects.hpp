// What the shim remembers about the app's OpenCL objects, one file per kind: clprof ids
// (never reused, even when the driver reuses a handle) and facts cached at creation.
//   registry.hpp          the registry every kind uses (handle -> Info, thread cache)
//   devices.hpp           devices, their timers, the clock_sync facts at the end
//   contexts_queues.hpp   contexts and command queues
//   kernels.hpp           programs, kernels, their argument tables and type names
//   memory.hpp            memory objects, samplers, live mappings
//   event_refs.hpp        the references records hold on the app's events
//   live_objects.hpp      the app's own references, for the end record's live counts
//   work_groups.hpp       kernels' work-group facts per device, at their first launch
// A registry returns facts (recording/object_facts.hpp) and hands them to the record
// sink; output formats them. This header includes them all, and orders their fork hooks.
//
// Threads, ownership: see each kind's header.
#pragma once

#include "recording/contexts_queues.hpp"
#include "recording/devices.hpp"
#include "recording/event_refs.hpp"
#include "recording/kernels.hpp"
#include "recording/live_objects.hpp"
#include "recording/memory.hpp"
#include "recording/work_groups.hpp"

namespace clprof::shim {

// Every kind's fork hooks, in one lock order (pthread_atfork prepare; then parent or
// child, in reverse).
void objects_fork_prepare();
void objects_fork_parent();
void objects_fork_child();

}  // namespace clprof::shim
