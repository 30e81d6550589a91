#include "recording/devices.hpp"

#include <cstdio>
#include <string>

#include "base/host_clock.hpp"
#include "base/real_opencl.hpp"
#include "recording/record_sink.hpp"
#include "recording/registry_impl.hpp"

namespace clprof::shim {

template class Registry<DeviceInfo>;

namespace {

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

const char* device_type_name(cl_device_type t) {
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

ClockSyncFacts clock_sync(std::uint64_t device_id, const char* method, std::int64_t offset_ns,
                          std::int64_t uncertainty_ns) {
  ClockSyncFacts c;
  c.device_id = device_id;
  c.method = method;
  c.offset_ns = offset_ns;
  c.uncertainty_ns = uncertainty_ns;
  return c;
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
  DeviceFacts f;
  f.id = info->id;
  f.name = device_string(device, CL_DEVICE_NAME);
  f.vendor = device_string(device, CL_DEVICE_VENDOR);
  f.platform = platform ? platform_string(platform, CL_PLATFORM_NAME) : "";
  f.platform_version = platform ? platform_string(platform, CL_PLATFORM_VERSION) : "";
  f.version = device_string(device, CL_DEVICE_VERSION);
  f.driver_version = device_string(device, CL_DRIVER_VERSION);
  f.device_type = device_type_name(device_value<cl_device_type>(device, CL_DEVICE_TYPE));
  f.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  f.max_clock_mhz = device_value<cl_uint>(device, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  f.global_mem_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  f.local_mem_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  f.timer_resolution_ns = device_value<size_t>(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION);
  emit_object(f);
  if (timer_ok) {
    emit_object(
        clock_sync(info->id, "clGetDeviceAndHostTimer", sample.offset_ns, sample.uncertainty_ns));
  }
  return info->id;
}

std::vector<ClockSyncFacts> final_clock_syncs(
    const std::unordered_map<std::uint64_t, BracketEstimator>& brackets) {
  std::vector<ClockSyncFacts> out;
  for (DeviceInfo* d : devices().all()) {
    TimerSample sample{};
    if (d->timer_ok && sample_device_timer(d->device, sample)) {
      out.push_back(
          clock_sync(d->id, "clGetDeviceAndHostTimer", sample.offset_ns, sample.uncertainty_ns));
      continue;
    }
    auto it = brackets.find(d->id);
    if (it != brackets.end() && it->second.valid()) {
      out.push_back(clock_sync(d->id, "enqueue_bracket", it->second.offset_ns(),
                               it->second.uncertainty_ns()));
    }
  }
  return out;
}

void devices_fork_prepare() {
  devices().mutex().lock();
}
void devices_fork_parent() {
  devices().mutex().unlock();
}
void devices_fork_child() {
  devices().mutex().unlock();
}

}  // namespace clprof::shim
