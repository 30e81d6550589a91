// Events: waits, queries (status, profiling), callbacks and user events. Commands make
// their events in fake_enqueue.cpp; lifetimes and status changes are in fake_state.cpp.
#include "fake_internal.hpp"

namespace clprof::fake {

cl_int CL_API_CALL WaitForEvents(cl_uint n, const cl_event* list) {
  FAKE_INJECT("clWaitForEvents");
  if (n == 0 || !list) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i)
    if (!list[i]) return CL_INVALID_EVENT;
  bool failed = false;
  for (cl_uint i = 0; i < n; ++i) {
    if (!list[i]->never && list[i]->queue) set_status(list[i], CL_COMPLETE);
    if (list[i]->status.load() < 0) failed = true;
  }
  return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
}

cl_int CL_API_CALL GetEventInfo(cl_event e, cl_event_info param, size_t size, void* out,
                                size_t* size_ret) {
  FAKE_INJECT("clGetEventInfo");
  if (!e) return CL_INVALID_EVENT;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE:
      return r.value(e->queue);
    case CL_EVENT_CONTEXT:
      return r.value(e->context);
    case CL_EVENT_COMMAND_TYPE:
      return r.value(e->command_type);
    case CL_EVENT_REFERENCE_COUNT: {
      const cl_uint count = e->refs.api();
      // A slow answer: the count may be stale by the time the caller gets it.
      spin_for_ns(config().refcount_delay_ns);
      return r.value<cl_uint>(count);
    }
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      cl_int st = e->status.load(std::memory_order_acquire);
      if (st > CL_COMPLETE && !e->never && e->queue && config().event_mode == EventMode::kPolls) {
        // The K+1-th status query is the first to see the command done.
        if (e->polls_left.fetch_sub(1, std::memory_order_acq_rel) <= 0) {
          set_status(e, CL_COMPLETE);
          st = e->status.load(std::memory_order_acquire);
        }
      }
      return r.value(st);
    }
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainEvent(cl_event e) {
  return retain(e, CL_INVALID_EVENT);
}

cl_int CL_API_CALL ReleaseEvent(cl_event e) {
  FAKE_INJECT("clReleaseEvent");
  if (!alive(e)) return CL_INVALID_EVENT;
  const std::uint64_t left = e->refs.release_api();
  if (RefCount::no_api(left)) g_referenced_events.fetch_sub(1, std::memory_order_relaxed);
  drop(e, left);
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetEventProfilingInfo(cl_event e, cl_profiling_info param, size_t size,
                                         void* out, size_t* size_ret) {
  FAKE_INJECT("clGetEventProfilingInfo");
  static const std::uint64_t delay_ns = config().query_delay_ns;  // read once: a hot call
  spin_for_ns(delay_ns);
  if (!e) return CL_INVALID_EVENT;
  if (!e->queue || !(e->queue->properties & CL_QUEUE_PROFILING_ENABLE) ||
      e->status.load(std::memory_order_acquire) != CL_COMPLETE)
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_PROFILING_COMMAND_QUEUED:
      return r.value(e->times_ns[0]);
    case CL_PROFILING_COMMAND_SUBMIT:
      return r.value(e->times_ns[1]);
    case CL_PROFILING_COMMAND_START:
      return r.value(e->times_ns[2]);
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE:
      return r.value(e->times_ns[3]);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetEventCallback(cl_event e, cl_int type,
                                    void(CL_CALLBACK* fn)(cl_event, cl_int, void*),
                                    void* user_data) {
  FAKE_INJECT("clSetEventCallback");
  if (!e) return CL_INVALID_EVENT;
  if (!fn || (type != CL_COMPLETE && type != CL_SUBMITTED && type != CL_RUNNING))
    return CL_INVALID_VALUE;
  cl_int now = 0;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    now = e->status.load(std::memory_order_acquire);
    if (now > type) {
      e->callbacks.push_back({type, fn, user_data});
      return CL_SUCCESS;
    }
  }
  fn(e, now, user_data);
  return CL_SUCCESS;
}

cl_event CL_API_CALL CreateUserEvent(cl_context c, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateUserEvent", errcode_ret);
  if (!c) return fail<_cl_event>(errcode_ret, CL_INVALID_CONTEXT);
  cl_event e = new_event();
  e->context = c;  // held: a user event has no queue to hold it
  e->command_type = CL_COMMAND_USER;
  e->status.store(CL_SUBMITTED);
  c->refs.retain_internal();
  return succeed(errcode_ret, e);
}

cl_int CL_API_CALL SetUserEventStatus(cl_event e, cl_int status) {
  if (!e || e->command_type != CL_COMMAND_USER) return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  if (e->status.load() <= CL_COMPLETE) return CL_INVALID_OPERATION;
  set_status(e, status);
  return CL_SUCCESS;
}

}  // namespace clprof::fake
