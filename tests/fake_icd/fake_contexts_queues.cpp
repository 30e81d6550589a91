// Contexts and command queues. A queue is in order; its pending list (fake_objects.hpp)
// holds the events that are not complete yet in the slow event modes (README.md).
#include "fake_internal.hpp"

namespace clprof::fake {

// ---- contexts ---------------------------------------------------------------------------------
namespace {

cl_context make_context(const cl_context_properties* props, cl_int* errcode_ret) {
  auto* c = new _cl_context();
  c->dispatch = &g_dispatch;
  if (props) {
    std::size_t n = 0;
    while (props[n]) n += 2;
    c->properties.assign(props, props + n + 1);
  }
  return succeed(errcode_ret, c);
}

cl_int check_context_properties(const cl_context_properties* props) {
  for (std::size_t i = 0; props && props[i]; i += 2) {
    if (props[i] == CL_CONTEXT_PLATFORM &&
        reinterpret_cast<cl_platform_id>(props[i + 1]) != &g_platform)
      return CL_INVALID_PLATFORM;
  }
  return CL_SUCCESS;
}

}  // namespace

cl_context CL_API_CALL CreateContext(const cl_context_properties* props, cl_uint num_devices,
                                     const cl_device_id* devices,
                                     void(CL_CALLBACK*)(const char*, const void*, size_t, void*),
                                     void*, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateContext", errcode_ret);
  if (num_devices == 0 || !devices) return fail<_cl_context>(errcode_ret, CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_devices; ++i)
    if (devices[i] != &g_device) return fail<_cl_context>(errcode_ret, CL_INVALID_DEVICE);
  if (cl_int rc = check_context_properties(props)) return fail<_cl_context>(errcode_ret, rc);
  return make_context(props, errcode_ret);
}

cl_context CL_API_CALL CreateContextFromType(
    const cl_context_properties* props, cl_device_type type,
    void(CL_CALLBACK*)(const char*, const void*, size_t, void*), void*, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateContextFromType", errcode_ret);
  if (cl_int rc = check_context_properties(props)) return fail<_cl_context>(errcode_ret, rc);
  if (!device_type_matches(type)) return fail<_cl_context>(errcode_ret, CL_DEVICE_NOT_FOUND);
  return make_context(props, errcode_ret);
}

cl_int CL_API_CALL RetainContext(cl_context c) {
  return retain(c, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL ReleaseContext(cl_context c) {
  FAKE_INJECT("clReleaseContext");
  return release(c, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL GetContextInfo(cl_context c, cl_context_info param, size_t size, void* out,
                                  size_t* size_ret) {
  FAKE_INJECT("clGetContextInfo");
  if (!c) return CL_INVALID_CONTEXT;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT:
      return r.value<cl_uint>(c->refs.api());
    case CL_CONTEXT_NUM_DEVICES:
      return r.value<cl_uint>(1);
    case CL_CONTEXT_DEVICES:
      return r.value<cl_device_id>(&g_device);
    case CL_CONTEXT_PROPERTIES:
      return r.vector(c->properties);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetContextDestructorCallback(cl_context c,
                                                void(CL_CALLBACK* fn)(cl_context, void*),
                                                void* user_data) {
  return add_destructor(c, fn, user_data, CL_INVALID_CONTEXT);
}

// ---- command queues ---------------------------------------------------------------------------
namespace {

cl_command_queue make_queue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                            cl_int* errcode_ret) {
  if (!alive(c)) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_CONTEXT);
  if (d != &g_device) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_DEVICE);
  const cl_command_queue_properties known =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (props & ~known) return fail<_cl_command_queue>(errcode_ret, CL_INVALID_QUEUE_PROPERTIES);
  auto* q = new_in_context<_cl_command_queue>(c);
  q->device = d;
  q->properties = props;
  return succeed(errcode_ret, q);
}

}  // namespace

cl_command_queue CL_API_CALL CreateCommandQueue(cl_context c, cl_device_id d,
                                                cl_command_queue_properties props,
                                                cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateCommandQueue", errcode_ret);
  return make_queue(c, d, props, errcode_ret);
}

cl_command_queue CL_API_CALL CreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                              const cl_queue_properties* props,
                                                              cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateCommandQueueWithProperties", errcode_ret);
  cl_command_queue_properties bits = 0;
  std::size_t n = 0;
  for (; props && props[n]; n += 2) {
    if (props[n] == CL_QUEUE_PROPERTIES) {
      bits = static_cast<cl_command_queue_properties>(props[n + 1]);
    } else if (props[n] != CL_QUEUE_SIZE) {
      return fail<_cl_command_queue>(errcode_ret, CL_INVALID_VALUE);
    }
  }
  cl_command_queue q = make_queue(c, d, bits, errcode_ret);
  if (q && props) q->properties_array.assign(props, props + n + 1);
  return q;
}

cl_int CL_API_CALL RetainCommandQueue(cl_command_queue q) {
  return retain(q, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL ReleaseCommandQueue(cl_command_queue q) {
  FAKE_INJECT("clReleaseCommandQueue");
  if (!alive(q)) return CL_INVALID_COMMAND_QUEUE;
  if (q->refs.api() == 1) {
    // Last app reference: implicit flush; commands still run to completion (spec).
    flush_queue(q, true);
  }
  drop(q, q->refs.release_api());
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param, size_t size,
                                       void* out, size_t* size_ret) {
  FAKE_INJECT("clGetCommandQueueInfo");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_QUEUE_CONTEXT:
      return r.value(q->context);
    case CL_QUEUE_DEVICE:
      return r.value(q->device);
    case CL_QUEUE_REFERENCE_COUNT:
      return r.value<cl_uint>(q->refs.api());
    case CL_QUEUE_PROPERTIES:
      return r.value(q->properties);
    case CL_QUEUE_PROPERTIES_ARRAY:
      return r.vector(q->properties_array);
    case CL_QUEUE_DEVICE_DEFAULT:
      return r.value<cl_command_queue>(nullptr);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL Flush(cl_command_queue q) {
  FAKE_INJECT("clFlush");
  return q ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL Finish(cl_command_queue q) {
  FAKE_INJECT("clFinish");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  flush_queue(q, false);
  return CL_SUCCESS;
}

}  // namespace clprof::fake
