#include "recording/objects.hpp"

#include <sched.h>

#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "base/host_clock.hpp"
#include "base/real_opencl.hpp"
#include "output/record_format.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {

namespace tf = clprof::trace;

template <class Info>
Info* Registry<Info>::fresh_locked(const void* handle) {
  auto it = map_.find(handle);
  if (it != map_.end()) {
    // The driver reused a handle whose release we did not see: retire the old entry.
    Info* old = it->second;
    old->handle.store(nullptr, std::memory_order_relaxed);
    old->gen.fetch_add(1, std::memory_order_release);
    free_.push_back(old);
    map_.erase(it);
  }
  Info* info;
  if (!free_.empty()) {
    info = free_.back();
    free_.pop_back();
    info->reset();
  } else {
    info = new Info;
  }
  info->gen.fetch_add(1, std::memory_order_release);
  info->id = ++next_id_;
  return info;
}

template <class Info>
void Registry<Info>::publish_locked(const void* handle, Info* info) {
  creates_.fetch_add(1, std::memory_order_release);
  info->handle.store(handle, std::memory_order_release);
  map_.emplace(handle, info);
}

template <class Info>
Info* Registry<Info>::find_slow(const void* handle) {
  if (!handle) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(handle);
  if (it == map_.end()) {
    if (cache_slot_ >= 0) {
      thread_state().cache[cache_slot_][cache_index(handle)] =
          CacheEntry{handle, nullptr, creates_.load(std::memory_order_relaxed)};
    }
    return nullptr;
  }
  if (cache_slot_ >= 0) {
    thread_state().cache[cache_slot_][cache_index(handle)] =
        CacheEntry{handle, it->second, it->second->gen.load(std::memory_order_relaxed)};
  }
  return it->second;
}

template <class Info>
void Registry<Info>::erase(const void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(handle);
  if (it == map_.end()) return;
  Info* info = it->second;
  info->handle.store(nullptr, std::memory_order_relaxed);
  info->gen.fetch_add(1, std::memory_order_release);
  free_.push_back(info);
  map_.erase(it);
}

template <class Info>
std::vector<Info*> Registry<Info>::all() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Info*> out;
  for (auto& kv : map_) out.push_back(kv.second);
  return out;
}

namespace {

struct Misc {
  std::mutex mutex;
  std::unordered_set<std::string> names;
  std::unordered_map<const void*, cl_uint> event_refs;
  std::unordered_map<const void*, std::uint64_t> mappings;
};
Misc& misc() {
  static auto* m = new Misc;
  return *m;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (real().clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (real().clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (real().clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (real().clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  if (real().clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}

std::string device_type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  if (t & CL_DEVICE_TYPE_CUSTOM) return "CUSTOM";
  return "DEFAULT";
}

// A device timer reading bracketed by host readings; false when the device (or the
// library, before OpenCL 2.1) cannot do it.
bool sample_device_timer(cl_device_id d, TimerSample& out) {
  cl_ulong device_ns = 0, host_ns = 0;
  const std::int64_t before_ns = to_trace_ns(monotonic_now_ns());
  const cl_int rc = real().clGetDeviceAndHostTimer(d, &device_ns, &host_ns);
  const std::int64_t after_ns = to_trace_ns(monotonic_now_ns());
  if (rc != CL_SUCCESS || device_ns == 0) return false;
  out = offset_from_bracket(before_ns, after_ns, device_ns);
  return true;
}

// "OpenCL <major>.<minor> ..." (CL_DEVICE_VERSION) at least major.minor.
bool version_at_least(const std::string& version, int major, int minor) {
  int ma = 0, mi = 0;
  if (std::sscanf(version.c_str(), "OpenCL %d.%d", &ma, &mi) != 2) return false;
  return ma > major || (ma == major && mi >= minor);
}

std::string clock_sync_line(std::uint64_t device_id, std::string_view method,
                            std::int64_t offset_ns, std::int64_t uncertainty_ns) {
  return JsonLine(tf::clock_sync::kTypeName)
      .unum(tf::clock_sync::device_id, device_id)
      .str(tf::clock_sync::method, method)
      .num(tf::clock_sync::offset_ns, offset_ns)
      .num(tf::clock_sync::uncertainty_ns, uncertainty_ns)
      .finish();
}

}  // namespace

std::uint64_t device_id_of(cl_device_id device) {
  if (!device) return 0;
  if (DeviceInfo* known = devices().find(device)) return known->id;
  // Queries before taking any lock; of two threads racing here, the first to register
  // writes the device's records, the other uses its entry.
  cl_platform_id platform = device_value<cl_platform_id>(device, CL_DEVICE_PLATFORM);
  // The device timer is tried before the entry exists (another thread may find the entry
  // as soon as it does, and reads timer_ok). Older ICDs have no entry for the 2.1 timer
  // API: asking through the loader could call a null dispatch slot, so only 2.1+ devices
  // are asked.
  TimerSample sample{};
  const bool timer_ok = version_at_least(device_string(device, CL_DEVICE_VERSION), 2, 1) &&
                        sample_device_timer(device, sample);
  bool created = false;
  DeviceInfo* info = devices().learn(
      device,
      [&](DeviceInfo& d) {
        d.device = device;
        d.timer_ok = timer_ok;
      },
      created);
  if (!created) return info->id;  // another thread registered it meanwhile
  JsonLine line(tf::device::kTypeName);
  line.unum(tf::device::id, info->id)
      .str(tf::device::name, device_string(device, CL_DEVICE_NAME))
      .str(tf::device::vendor, device_string(device, CL_DEVICE_VENDOR))
      .str(tf::device::platform, platform ? platform_string(platform, CL_PLATFORM_NAME) : "")
      .str(tf::device::platform_version,
           platform ? platform_string(platform, CL_PLATFORM_VERSION) : "")
      .str(tf::device::version, device_string(device, CL_DEVICE_VERSION))
      .str(tf::device::driver_version, device_string(device, CL_DRIVER_VERSION))
      .str(tf::device::device_type,
           device_type_name(device_value<cl_device_type>(device, CL_DEVICE_TYPE)))
      .unum(tf::device::compute_units, device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS))
      .unum(tf::device::max_clock_mhz, device_value<cl_uint>(device, CL_DEVICE_MAX_CLOCK_FREQUENCY))
      .unum(tf::device::global_mem_bytes, device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE))
      .unum(tf::device::local_mem_bytes, device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE))
      .unum(tf::device::timer_resolution_ns,
            device_value<size_t>(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION));
  emit_line(LineKind::Device, line.finish());
  if (timer_ok) {
    emit_line(LineKind::ClockSync, clock_sync_line(info->id, "clGetDeviceAndHostTimer",
                                                   sample.offset_ns, sample.uncertainty_ns));
  }
  return info->id;
}

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
  emit_line(LineKind::Queue, JsonLine(tf::queue::kTypeName)
                                 .unum(tf::queue::id, q->id)
                                 .unum(tf::queue::context_id, context_id)
                                 .unum(tf::queue::device_id, device_id)
                                 .unum(tf::queue::properties, props)
                                 .boolean(tf::queue::profiling_added, false)
                                 .finish());
  return q;
}

namespace {
// CL_KERNEL_ARG_TYPE_NAME of every argument ("float", "float*", ...), once per kernel name
// and program (libraries such as CLBlast make a new kernel object per call): empty when
// already given, or when the driver does not answer (a program built without
// -cl-kernel-arg-info, where drivers may refuse). Cold path: at kernel creation.
std::vector<std::string> arg_types_once(cl_kernel kernel, std::uint64_t program_id,
                                        const char* quoted_name, cl_uint num_args) {
  static std::mutex mutex;
  static auto* seen = new std::unordered_set<std::string>();
  const std::string key = std::to_string(program_id) + '/' + quoted_name;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (seen->count(key)) return {};
  }
  std::vector<std::string> types;
  for (cl_uint i = 0; i < num_args && i < kMaxRecordedArgs; ++i) {
    char text[256];
    size_t n = 0;
    if (real().clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_NAME, sizeof text, text, &n) !=
            CL_SUCCESS ||
        n == 0 || n > sizeof text)
      return {};
    types.emplace_back(text, strnlen(text, n));
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (!seen->insert(key).second) return {};
  return types;
}

// `lazily`: a kernel the app has had for a while (made where the shim does not hook),
// which other threads may be launching.
KernelInfo* add_kernel(cl_kernel kernel, bool lazily) {
  std::string name;
  size_t n = 0;
  if (real().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n) == CL_SUCCESS &&
      n > 0) {
    name.resize(n);
    if (real().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, n, name.data(), nullptr) !=
        CL_SUCCESS)
      name.clear();
    while (!name.empty() && name.back() == '\0') name.pop_back();
  }
  cl_program program = nullptr;
  cl_context context = nullptr;
  cl_uint num_args = 0;
  real().clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr);
  real().clGetKernelInfo(kernel, CL_KERNEL_CONTEXT, sizeof context, &context, nullptr);
  real().clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof num_args, &num_args, nullptr);
  ProgramInfo* p = program ? programs().find(program) : nullptr;
  const std::uint64_t context_id = context_id_of(context);
  const char* const quoted = intern(json_quote(name));
  const auto fill = [&](KernelInfo& info) {
    info.name = quoted;
    info.program_id = p ? p->id : 0;
    info.context_id = context_id;
    info.num_args = num_args;
  };
  bool created = true;
  KernelInfo* k = lazily ? kernels().learn(kernel, fill, created) : kernels().create(kernel, fill);
  if (!created) return k;
  JsonLine line(tf::kernel::kTypeName);
  line.unum(tf::kernel::id, k->id)
      .unum(tf::kernel::program_id, k->program_id)
      .unum(tf::kernel::context_id, k->context_id)
      .str(tf::kernel::name, name)
      .unum(tf::kernel::num_args, num_args);
  const auto types = arg_types_once(kernel, k->program_id, quoted, num_args);
  if (!types.empty()) line.strs(tf::kernel::arg_types, types);
  emit_line(LineKind::Kernel, line.finish());
  return k;
}
}  // namespace

KernelInfo* register_kernel(cl_kernel kernel) {
  return add_kernel(kernel, false);
}

KernelInfo* kernel_info_slow(cl_kernel kernel) {
  if (!kernel) return nullptr;
  if (KernelInfo* k = kernels().find(kernel)) return k;
  return add_kernel(kernel, true);
}

void snapshot_pointer_arg(cl_kernel kernel, cl_uint arg_index, const void* pointer) {
  if (arg_index >= kMaxRecordedArgs) return;
  if (KernelInfo* k = kernel_info(kernel)) {
    ArgSnapshot& a = k->args[arg_index];
    a.kind = ArgKind::Svm;
    a.size = 0;
    a.svm_pointer = reinterpret_cast<std::uintptr_t>(pointer);
  }
}

void register_mem(cl_mem mem, ArgKind kind, std::uint64_t bytes, std::uint32_t element_bytes) {
  MemInfo* m = mems().create(mem);
  m->kind = kind;
  m->bytes = bytes;
  m->element_bytes = element_bytes;
}

std::uint32_t image_element_bytes(const cl_image_format* f) {
  if (!f) return 0;
  std::uint32_t channels = 0;
  switch (f->image_channel_order) {
    case CL_R:
    case CL_A:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH:
    case CL_Rx:
      channels = 1;
      break;
    case CL_RG:
    case CL_RA:
    case CL_RGx:
      channels = 2;
      break;
    case CL_RGB:
    case CL_RGBx:
      channels = 3;
      break;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
    case CL_sRGBA:
    case CL_sBGRA:
    case CL_ABGR:
      channels = 4;
      break;
    default:
      return 0;
  }
  switch (f->image_channel_data_type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
      return channels;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      return 2 * channels;
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT32:
    case CL_FLOAT:
      return 4 * channels;
    case CL_UNORM_SHORT_565:
    case CL_UNORM_SHORT_555:
      return 2;
    case CL_UNORM_INT_101010:
      return 4;
    default:
      return 0;
  }
}

const char* intern(const std::string& name) {
  Misc& m = misc();
  std::lock_guard<std::mutex> lock(m.mutex);
  return m.names.insert(name).first->c_str();
}

void event_ref_add(cl_event e) {
  Misc& m = misc();
  std::lock_guard<std::mutex> lock(m.mutex);
  ++m.event_refs[e];
}

namespace {
// Odd while event_ref_release() is between its uncount and its release.
std::atomic<std::uint64_t> g_event_release_gen{0};

cl_uint event_refs_held(cl_event e) {
  Misc& m = misc();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.event_refs.find(e);
  return it == m.event_refs.end() ? 0 : it->second;
}
}  // namespace

void event_ref_release(cl_event e) {
  g_event_release_gen.fetch_add(1, std::memory_order_seq_cst);
  {
    Misc& m = misc();
    std::lock_guard<std::mutex> lock(m.mutex);
    auto it = m.event_refs.find(e);
    if (it != m.event_refs.end() && --it->second == 0) m.event_refs.erase(it);
  }
  real().clReleaseEvent(e);
  g_event_release_gen.fetch_add(1, std::memory_order_seq_cst);
}

cl_int app_event_reference_count(cl_event e, size_t size, void* value, size_t* size_ret) {
  // A lock around both reads and the harvester's release would make an app thread wait
  // for a driver's clReleaseEvent; instead the reads are repeated in the rare case that
  // a release overlapped them (bounded: a release takes microseconds).
  cl_int rc = CL_SUCCESS;
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t before = g_event_release_gen.load(std::memory_order_seq_cst);
    rc = real().clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, size, value, size_ret);
    if (rc != CL_SUCCESS || !value || size < sizeof(cl_uint)) return rc;
    const cl_uint ours = event_refs_held(e);
    const std::uint64_t after = g_event_release_gen.load(std::memory_order_seq_cst);
    if ((before == after && (before & 1) == 0) || attempt == 1000) {
      cl_uint count;
      std::memcpy(&count, value, sizeof count);
      count = count > ours ? count - ours : 1;
      std::memcpy(value, &count, sizeof count);
      return rc;
    }
    if (attempt >= 8) sched_yield();
  }
}

void mapping_add(const void* ptr, std::uint64_t bytes) {
  if (!ptr) return;
  Misc& m = misc();
  std::lock_guard<std::mutex> lock(m.mutex);
  m.mappings[ptr] = bytes;
}

std::uint64_t mapping_take(const void* ptr) {
  Misc& m = misc();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.mappings.find(ptr);
  if (it == m.mappings.end()) return 0;
  const std::uint64_t bytes = it->second;
  m.mappings.erase(it);
  return bytes;
}

std::vector<std::string> final_clock_sync_lines(
    const std::unordered_map<std::uint64_t, BracketEstimator>& brackets) {
  std::vector<std::string> out;
  for (DeviceInfo* d : devices().all()) {
    TimerSample sample{};
    if (d->timer_ok && sample_device_timer(d->device, sample)) {
      out.push_back(clock_sync_line(d->id, "clGetDeviceAndHostTimer", sample.offset_ns,
                                    sample.uncertainty_ns));
      continue;
    }
    auto it = brackets.find(d->id);
    if (it != brackets.end() && it->second.valid()) {
      out.push_back(clock_sync_line(d->id, "enqueue_bracket", it->second.offset_ns(),
                                    it->second.uncertainty_ns()));
    }
  }
  return out;
}

// Lock order: registries in a fixed order, then misc. Nothing else nests them.
void objects_fork_prepare() {
  contexts().mutex().lock();
  devices().mutex().lock();
  queues().mutex().lock();
  programs().mutex().lock();
  kernels().mutex().lock();
  mems().mutex().lock();
  samplers().mutex().lock();
  misc().mutex.lock();
}

void objects_fork_parent() {
  misc().mutex.unlock();
  samplers().mutex().unlock();
  mems().mutex().unlock();
  kernels().mutex().unlock();
  programs().mutex().unlock();
  queues().mutex().unlock();
  devices().mutex().unlock();
  contexts().mutex().unlock();
}

void objects_fork_child() {
  objects_fork_parent();
  // The parent's events are not ours to release in the child.
  misc().event_refs.clear();
}

template class Registry<ContextInfo>;
template class Registry<DeviceInfo>;
template class Registry<QueueInfo>;
template class Registry<ProgramInfo>;
template class Registry<KernelInfo>;
template class Registry<MemInfo>;
template class Registry<SamplerInfo>;

}  // namespace clprof::shim
