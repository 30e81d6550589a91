#include "fake_opencl.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <cstring>

#include "base/real_opencl.hpp"
#include "test_files.hpp"

namespace runtime_test {
namespace {

cl_int CL_API_CALL fake_profiling_info(cl_event e, cl_profiling_info what, size_t size, void* value,
                                       size_t* size_ret) {
  if (e->status.load() != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
  if (what < CL_PROFILING_COMMAND_QUEUED || what > CL_PROFILING_COMMAND_END ||
      size < sizeof(cl_ulong)) {
    return CL_INVALID_VALUE;
  }
  std::memcpy(value, &e->times[what - CL_PROFILING_COMMAND_QUEUED], sizeof(cl_ulong));
  if (size_ret) *size_ret = sizeof(cl_ulong);
  return CL_SUCCESS;
}

cl_int CL_API_CALL fake_event_info(cl_event e, cl_event_info what, size_t size, void* value,
                                   size_t* size_ret) {
  cl_int v = 0;
  if (what == CL_EVENT_COMMAND_EXECUTION_STATUS) {
    ++e->status_queries;
    v = e->status.load();
  } else if (what == CL_EVENT_REFERENCE_COUNT) {
    v = e->refs.load();
  } else {
    return CL_INVALID_VALUE;
  }
  if (size < sizeof v) return CL_INVALID_VALUE;
  std::memcpy(value, &v, sizeof v);
  if (size_ret) *size_ret = sizeof v;
  return CL_SUCCESS;
}

cl_int CL_API_CALL fake_retain(cl_event e) {
  ++e->refs;
  return CL_SUCCESS;
}

cl_int CL_API_CALL fake_release(cl_event e) {
  --e->refs;
  return CL_SUCCESS;
}

cl_int CL_API_CALL fake_platform_ids(cl_uint, cl_platform_id*, cl_uint* n) {
  if (n) *n = 0;
  return CL_SUCCESS;
}

}  // namespace

void install_fake_opencl() {
  static const bool installed = [] {
    clprof::shim::RealTable t;
    t.clGetEventProfilingInfo = &fake_profiling_info;
    t.clGetEventInfo = &fake_event_info;
    t.clRetainEvent = &fake_retain;
    t.clReleaseEvent = &fake_release;
    t.clGetPlatformIDs = &fake_platform_ids;
    clprof::shim::install_real_table(t);
    return true;
  }();
  (void)installed;
}

void fill_launch(clprof::shim::OpRecord& r, std::uint64_t queue_id, cl_event event) {
  using namespace clprof::shim;
  std::memset(static_cast<void*>(&r), 0, sizeof r);
  r.kind = RecordKind::Launch;
  r.status = OpStatus::Incomplete;
  r.queue_id = queue_id;
  r.in_order_queue = true;
  r.work_dim = 1;
  r.gws[0] = 64;
  r.event = event;
}

std::vector<Launch> launches_in(const std::string& path, std::int64_t* incomplete) {
  std::vector<Launch> out;
  const std::string text = shim_test::read_file(path);
  rapidjson::Document d;
  d.Parse(text.c_str());
  REQUIRE_MESSAGE(!d.HasParseError(), "not a whole trace: " << text.substr(0, 400));
  for (const auto& r : d["records"].GetArray()) {
    const std::string type = r["type"].GetString();
    if (type == "end" && incomplete) *incomplete = r["incomplete"].GetInt64();
    if (type != "launch") continue;
    Launch l;
    l.seq = r["seq"].GetUint64();
    l.status = r["status"].GetString();
    if (r["device_ns"].IsArray()) {
      for (const auto& t : r["device_ns"].GetArray()) l.device_ns.push_back(t.GetUint64());
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace runtime_test
