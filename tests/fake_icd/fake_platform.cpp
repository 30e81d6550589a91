// Platform and device: the one platform, the one device and their queries (README.md,
// "Identity"), and the device and host timers.
#include "fake_internal.hpp"

namespace clprof::fake {

bool device_type_matches(cl_device_type t) {
  return t == CL_DEVICE_TYPE_ALL || (t & (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_GPU)) != 0;
}

namespace {

constexpr const char* kPlatformName = "clprof fake platform";
constexpr const char* kVendor = "clprof";
constexpr const char* kVersion = "OpenCL 3.0 clprof-fake";
constexpr const char* kDeviceName = "clprof fake device";

cl_name_version name_version(cl_version v, const char* name) {
  cl_name_version nv{};
  nv.version = v;
  std::strncpy(nv.name, name, CL_NAME_VERSION_MAX_NAME_SIZE - 1);
  return nv;
}

// The argument check of clGetPlatformIDs and clGetDeviceIDs.
bool bad_list(cl_uint num_entries, const void* list, const cl_uint* num) {
  return (num_entries == 0 && list) || (!list && !num);
}

}  // namespace

cl_int CL_API_CALL GetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                  cl_uint* num_platforms) {
  FAKE_INJECT("clGetPlatformIDs");
  if (bad_list(num_entries, platforms, num_platforms)) return CL_INVALID_VALUE;
  if (platforms) platforms[0] = &g_platform;
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size,
                                   void* out, size_t* size_ret) {
  FAKE_INJECT("clGetPlatformInfo");
  if (platform && platform != &g_platform) return CL_INVALID_PLATFORM;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_PLATFORM_PROFILE:
      return r.string("FULL_PROFILE");
    case CL_PLATFORM_VERSION:
      return r.string(kVersion);
    case CL_PLATFORM_NAME:
      return r.string(kPlatformName);
    case CL_PLATFORM_VENDOR:
      return r.string(kVendor);
    case CL_PLATFORM_EXTENSIONS:
      return r.string("cl_khr_icd");
    case CL_PLATFORM_ICD_SUFFIX_KHR:
      return r.string("FAKE");
    case CL_PLATFORM_NUMERIC_VERSION:
      return r.value<cl_version>(CL_MAKE_VERSION(3, 0, 0));
    case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
      return r.value(name_version(CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"));
    case CL_PLATFORM_HOST_TIMER_RESOLUTION:
      return r.value<cl_ulong>(config().host_timer ? 1 : 0);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                                cl_device_id* devices, cl_uint* num_devices) {
  FAKE_INJECT("clGetDeviceIDs");
  if (platform && platform != &g_platform) return CL_INVALID_PLATFORM;
  if (bad_list(num_entries, devices, num_devices)) return CL_INVALID_VALUE;
  if (!device_type_matches(type)) {
    if (num_devices) *num_devices = 0;
    return CL_DEVICE_NOT_FOUND;
  }
  if (devices) devices[0] = &g_device;
  if (num_devices) *num_devices = 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void* out,
                                 size_t* size_ret) {
  FAKE_INJECT("clGetDeviceInfo");
  if (device != &g_device) return CL_INVALID_DEVICE;
  const InfoReply r(size, out, size_ret);
  auto u = [&](cl_uint v) { return r.value(v); };
  auto ul = [&](cl_ulong v) { return r.value(v); };
  auto sz = [&](size_t v) { return r.value(v); };
  auto b = [&](cl_bool v) { return r.value(v); };
  auto str = [&](const char* v) { return r.string(v); };
  switch (param) {
    case CL_DEVICE_TYPE:
      return r.value<cl_device_type>(CL_DEVICE_TYPE_GPU);
    case CL_DEVICE_VENDOR_ID:
      return u(0xC1F0);
    case CL_DEVICE_MAX_COMPUTE_UNITS:
      return u(4);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
      return u(3);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      const size_t v[3] = {1024, 1024, 64};
      return r.bytes(v, sizeof v);
    }
    case CL_DEVICE_MAX_WORK_GROUP_SIZE:
      return sz(1024);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
      return u(1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
      return u(0);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY:
      return u(1000);
    case CL_DEVICE_ADDRESS_BITS:
      return u(64);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS:
      return u(128);
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
      return u(64);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
      return ul(256ull << 20);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
      return sz(16384);
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
      return sz(2048);
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
      return sz(65536);
    case CL_DEVICE_IMAGE_SUPPORT:
      return b(CL_TRUE);
    case CL_DEVICE_MAX_PARAMETER_SIZE:
      return sz(1024);
    case CL_DEVICE_MAX_SAMPLERS:
      return u(16);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
      return u(1024);
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
      return u(128);
    case CL_DEVICE_SINGLE_FP_CONFIG:
    case CL_DEVICE_DOUBLE_FP_CONFIG:
      return r.value<cl_device_fp_config>(CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                                          CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA);
    case CL_DEVICE_HALF_FP_CONFIG:
      return r.value<cl_device_fp_config>(0);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
      return r.value<cl_device_mem_cache_type>(CL_READ_WRITE_CACHE);
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
      return u(64);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
      return ul(1ull << 20);
    case CL_DEVICE_GLOBAL_MEM_SIZE:
      return ul(1ull << 30);
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
      return ul(64ull << 10);
    case CL_DEVICE_MAX_CONSTANT_ARGS:
      return u(8);
    case CL_DEVICE_LOCAL_MEM_TYPE:
      return r.value<cl_device_local_mem_type>(CL_LOCAL);
    case CL_DEVICE_LOCAL_MEM_SIZE:
      return ul(64ull << 10);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
      return b(CL_FALSE);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
      return sz(1);
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE:
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
    case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
      return b(CL_TRUE);
    case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
    case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
    case CL_DEVICE_PIPE_SUPPORT:
    case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
      return b(CL_FALSE);
    case CL_DEVICE_EXECUTION_CAPABILITIES:
      return r.value<cl_device_exec_capabilities>(CL_EXEC_KERNEL);
    case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
      return r.value<cl_command_queue_properties>(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                                  CL_QUEUE_PROFILING_ENABLE);
    case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
      return r.value<cl_command_queue_properties>(0);
    case CL_DEVICE_PLATFORM:
      return r.value<cl_platform_id>(&g_platform);
    case CL_DEVICE_NAME:
      return str(kDeviceName);
    case CL_DEVICE_VENDOR:
      return str(kVendor);
    case CL_DRIVER_VERSION:
      return str("1.0");
    case CL_DEVICE_PROFILE:
      return str("FULL_PROFILE");
    case CL_DEVICE_VERSION:
      return str(kVersion);
    case CL_DEVICE_OPENCL_C_VERSION:
      return str("OpenCL C 1.2 clprof-fake");
    case CL_DEVICE_EXTENSIONS:
    case CL_DEVICE_BUILT_IN_KERNELS:
    case CL_DEVICE_IL_VERSION:
      return str("");
    case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
      return str("v0000-01-01-00");
    case CL_DEVICE_PRINTF_BUFFER_SIZE:
      return sz(1 << 20);
    case CL_DEVICE_PARENT_DEVICE:
      return r.value<cl_device_id>(nullptr);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
      return u(0);
    case CL_DEVICE_PARTITION_PROPERTIES:
      return r.value<cl_device_partition_property>(0);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
      return r.value<cl_device_affinity_domain>(0);
    case CL_DEVICE_PARTITION_TYPE:
      return r.none();
    case CL_DEVICE_REFERENCE_COUNT:
      return u(1);
    case CL_DEVICE_NUMERIC_VERSION:
      return r.value<cl_version>(CL_MAKE_VERSION(3, 0, 0));
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    case CL_DEVICE_ILS_WITH_VERSION:
    case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    case CL_DEVICE_OPENCL_C_FEATURES:
      return r.none();
    case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
      const cl_name_version v[3] = {name_version(CL_MAKE_VERSION(1, 0, 0), "OpenCL C"),
                                    name_version(CL_MAKE_VERSION(1, 1, 0), "OpenCL C"),
                                    name_version(CL_MAKE_VERSION(1, 2, 0), "OpenCL C")};
      return r.bytes(v, sizeof v);
    }
    case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
    case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
      return r.value<cl_device_atomic_capabilities>(CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                                    CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP);
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
      return r.value<cl_device_device_enqueue_capabilities>(0);
    case CL_DEVICE_SVM_CAPABILITIES:
      return r.value<cl_device_svm_capabilities>(CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return sz(32);
    case CL_DEVICE_MAX_NUM_SUB_GROUPS:
    case CL_DEVICE_MAX_PIPE_ARGS:
    case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
      return u(0);
    case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
    case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
      return sz(0);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL RetainDevice(cl_device_id d) {
  return d == &g_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL ReleaseDevice(cl_device_id d) {
  return d == &g_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL GetDeviceAndHostTimer(cl_device_id d, cl_ulong* device_ns, cl_ulong* host_ns) {
  FAKE_INJECT("clGetDeviceAndHostTimer");
  if (d != &g_device) return CL_INVALID_DEVICE;
  if (!config().host_timer) return CL_INVALID_OPERATION;
  if (!device_ns || !host_ns) return CL_INVALID_VALUE;
  // Half-way between the last command's queued time and the next one's: never 0, and
  // ordered consistently with the synthetic command stamps.
  *device_ns = kQueuedStep * g_commands.load(std::memory_order_relaxed) + kQueuedStep / 2;
  *host_ns = host_now_ns();
  return CL_SUCCESS;
}

cl_int CL_API_CALL GetHostTimer(cl_device_id d, cl_ulong* host_ns) {
  FAKE_INJECT("clGetHostTimer");
  if (d != &g_device) return CL_INVALID_DEVICE;
  if (!config().host_timer) return CL_INVALID_OPERATION;
  if (!host_ns) return CL_INVALID_VALUE;
  *host_ns = host_now_ns();
  return CL_SUCCESS;
}

}  // namespace clprof::fake
