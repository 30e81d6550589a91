#include "output/object_format.hpp"

#include "clprof/trace_schema.hpp"
#include "output/record_format.hpp"

namespace clprof::shim {

namespace tf = clprof::trace;

std::string format_device_line(const DeviceFacts& f) {
  return JsonLine(tf::device::kTypeName)
      .unum(tf::device::id, f.id)
      .str(tf::device::name, f.name)
      .str(tf::device::vendor, f.vendor)
      .str(tf::device::platform, f.platform)
      .str(tf::device::platform_version, f.platform_version)
      .str(tf::device::version, f.version)
      .str(tf::device::driver_version, f.driver_version)
      .str(tf::device::device_type, f.device_type)
      .unum(tf::device::compute_units, f.compute_units)
      .unum(tf::device::max_clock_mhz, f.max_clock_mhz)
      .unum(tf::device::global_mem_bytes, f.global_mem_bytes)
      .unum(tf::device::local_mem_bytes, f.local_mem_bytes)
      .unum(tf::device::timer_resolution_ns, f.timer_resolution_ns)
      .finish();
}

std::string format_clock_sync_line(const ClockSyncFacts& f) {
  return JsonLine(tf::clock_sync::kTypeName)
      .unum(tf::clock_sync::device_id, f.device_id)
      .str(tf::clock_sync::method, f.method)
      .num(tf::clock_sync::offset_ns, f.offset_ns)
      .num(tf::clock_sync::uncertainty_ns, f.uncertainty_ns)
      .finish();
}

std::string format_queue_line(const QueueFacts& f) {
  return JsonLine(tf::queue::kTypeName)
      .unum(tf::queue::id, f.id)
      .unum(tf::queue::context_id, f.context_id)
      .unum(tf::queue::device_id, f.device_id)
      .unum(tf::queue::properties, f.properties)
      .boolean(tf::queue::profiling_added, f.profiling_added)
      .finish();
}

std::string format_kernel_line(const KernelFacts& f) {
  JsonLine line(tf::kernel::kTypeName);
  line.unum(tf::kernel::id, f.id)
      .unum(tf::kernel::program_id, f.program_id)
      .unum(tf::kernel::context_id, f.context_id)
      .str(tf::kernel::name, f.name)
      .unum(tf::kernel::num_args, f.num_args);
  if (!f.arg_types.empty()) line.strs(tf::kernel::arg_types, f.arg_types);
  return line.finish();
}

std::string format_kernel_device_line(const KernelDeviceFacts& f) {
  JsonLine line(tf::kernel_device::kTypeName);
  line.unum(tf::kernel_device::kernel_id, f.kernel_id)
      .unum(tf::kernel_device::program_id, f.program_id)
      .str(tf::kernel_device::kernel, f.name)
      .unum(tf::kernel_device::device_id, f.device_id);
  if (f.has_preferred_multiple) {
    line.unum(tf::kernel_device::preferred_multiple, f.preferred_multiple);
  } else {
    line.null(tf::kernel_device::preferred_multiple);
  }
  if (f.has_work_group_size) {
    line.unum(tf::kernel_device::work_group_size, f.work_group_size);
  } else {
    line.null(tf::kernel_device::work_group_size);
  }
  return line.finish();
}

}  // namespace clprof::shim
