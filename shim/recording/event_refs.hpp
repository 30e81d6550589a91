// References the shim holds on app-visible events, masked from CL_EVENT_REFERENCE_COUNT:
// a record takes one on an event the app can see, and the app must read the count it would
// read without clprof.
//
// Threads: each function says. Ownership: a counted reference is the record's until
// event_ref_release drops it.
#pragma once

#include <CL/cl.h>

#include <cstddef>

namespace clprof::shim {

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

// pthread_atfork: prepare takes the count's lock, parent and child release it; the child
// forgets the parent's references (its events are not the child's to release).
void event_refs_fork_prepare();
void event_refs_fork_parent();
void event_refs_fork_child();

}  // namespace clprof::shim
