// Host waits, event queries (masking the shim's own references and profiling), and
// extension function lookup. Each hook: scope, real call, best-effort record, result.
#include <cstring>

#include "base/process_settings.hpp"
#include "entry/hook_addresses.hpp"
#include "entry/hooks_extensions.hpp"
#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/recording.hpp"

using namespace clprof::shim;

CLPROF_EXPORT cl_int CL_API_CALL clFinish(cl_command_queue q) {
  HookScope scope(HookScope::Timing::Ticks);
  const cl_int rc = real().clFinish(q);
  if (scope.active()) record_sync(scope, "clFinish", rc, q);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event* event_list) {
  HookScope scope(HookScope::Timing::Ticks);
  const cl_int rc = real().clWaitForEvents(num_events, event_list);
  if (scope.active()) record_sync(scope, "clWaitForEvents", rc, nullptr);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param, size_t size,
                                                void* value, size_t* size_ret) {
  HookScope scope;
  // The app must see its own reference count, without the one the harvester holds.
  if (param == CL_EVENT_REFERENCE_COUNT)
    return app_event_reference_count(event, size, value, size_ret);
  return real().clGetEventInfo(event, param, size, value, size_ret);
}

CLPROF_EXPORT cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param,
                                                         size_t size, void* value,
                                                         size_t* size_ret) {
  HookScope scope;
  // On a queue the app created without profiling, the app must keep getting
  // CL_PROFILING_INFO_NOT_AVAILABLE although the shim turned profiling on.
  cl_command_queue q = nullptr;
  if (real().clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, nullptr) == CL_SUCCESS &&
      q) {
    const QueueInfo* info = queues().find(q);
    if (info && info->profiling_added) return CL_PROFILING_INFO_NOT_AVAILABLE;
  }
  return real().clGetEventProfilingInfo(event, param, size, value, size_ret);
}

// Core entry points asked for by name get the hook (so the call is still recorded); of
// the extensions, those that make objects the trace must know come wrapped
// (hooks_extensions.hpp); the rest are the driver's business.
CLPROF_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  HookScope scope;
  void* f = real().clGetExtensionFunctionAddress(name);
  if (f && hooks_may_be_handed_out()) {
    if (void* hook = hook_address(name)) return hook;
    if (void* wrapper = extension_hook(nullptr, name, f)) return wrapper;
  }
  return f;
}

CLPROF_EXPORT void* CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                         const char* name) {
  HookScope scope;
  void* f = real().clGetExtensionFunctionAddressForPlatform(platform, name);
  if (f && hooks_may_be_handed_out()) {
    if (void* hook = hook_address(name)) return hook;
    if (void* wrapper = extension_hook(platform, name, f)) return wrapper;
  }
  return f;
}
