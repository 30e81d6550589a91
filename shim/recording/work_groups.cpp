#include "recording/work_groups.hpp"

#include <mutex>
#include <set>
#include <tuple>

#include "base/real_opencl.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {
namespace {

struct Seen {
  std::mutex mutex;
  // (program id, interned quoted kernel name, device id) already asked about.
  std::set<std::tuple<std::uint64_t, const char*, std::uint64_t>> keys;
};
Seen& seen() {
  static auto* s = new Seen;
  return *s;
}
__attribute__((constructor)) void make_seen() {
  seen();
}

// The kernel function name without the trace's quotes and escapes: the facts carry the
// driver's own name (the formatter quotes it again).
std::string function_name(cl_kernel kernel) {
  std::string name;
  size_t n = 0;
  if (real().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n) != CL_SUCCESS ||
      n == 0)
    return name;
  name.resize(n);
  if (real().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, n, name.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  while (!name.empty() && name.back() == '\0') name.pop_back();
  return name;
}

}  // namespace

void note_work_group_slow(KernelInfo& k, cl_kernel kernel, cl_command_queue queue,
                          std::uint64_t device_id) {
  // This kernel object is done with this device from now on (a third device: slot 1 is
  // overwritten, and its launches come back here, to the set, which answers).
  std::uint64_t empty = 0;
  if (!k.wg_devices[0].compare_exchange_strong(empty, device_id, std::memory_order_relaxed))
    k.wg_devices[1].store(device_id, std::memory_order_relaxed);
  {
    Seen& s = seen();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.keys.emplace(k.program_id, k.name, device_id).second) return;
  }
  cl_device_id device = nullptr;
  if (real().clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr) !=
          CL_SUCCESS ||
      !device)
    return;
  KernelDeviceFacts f;
  f.kernel_id = k.id;
  f.program_id = k.program_id;
  f.device_id = device_id;
  f.name = function_name(kernel);
  size_t v = 0;
  if (real().clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                      sizeof v, &v, nullptr) == CL_SUCCESS) {
    f.has_preferred_multiple = true;
    f.preferred_multiple = v;
  }
  v = 0;
  if (real().clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof v, &v,
                                      nullptr) == CL_SUCCESS) {
    f.has_work_group_size = true;
    f.work_group_size = v;
  }
  if (f.has_preferred_multiple || f.has_work_group_size) emit_object(f);
}

std::mutex& work_groups_mutex() {
  return seen().mutex;
}

}  // namespace clprof::shim
