// Programs and builds: program records (origin, source hash, optional source), build
// records (options, devices, host duration, per-device status, kernel names).
// Each hook: scope, real call, best-effort record, the real result.
#include <cstring>
#include <string>
#include <vector>

#include "base/process_settings.hpp"
#include "output/output_names.hpp"
#include "output/record_format.hpp"
#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;

void register_program(cl_program program, cl_context context, const char* origin,
                      const std::string* source, const void* bytes, size_t n_bytes) {
  const std::uint64_t context_id = context_id_of(context);
  ProgramInfo* p = programs().create(program);
  p->context_id = context_id;
  live_created(LiveKind::Program, program);
  JsonLine line(tf::program::kTypeName);
  line.unum(tf::program::id, p->id)
      .unum(tf::program::context_id, context_id)
      .str(tf::program::origin, origin);
  if (bytes) {
    p->has_source = true;
    p->source_hash = fnv1a64(kFnvOffset, bytes, n_bytes);
    line.str(tf::program::source_hash, source_hash_text(p->source_hash))
        .unum(tf::program::source_bytes, n_bytes);
    if (source && settings().capture_source) line.str(tf::program::source, *source);
  }
  emit_line(LineKind::Program, line.finish());
}

std::vector<cl_device_id> program_devices(cl_program program, cl_uint n, const cl_device_id* list) {
  if (list && n) return std::vector<cl_device_id>(list, list + n);
  size_t bytes = 0;
  if (real().clGetProgramInfo(program, CL_PROGRAM_DEVICES, 0, nullptr, &bytes) != CL_SUCCESS ||
      !bytes)
    return {};
  std::vector<cl_device_id> out(bytes / sizeof(cl_device_id));
  if (real().clGetProgramInfo(program, CL_PROGRAM_DEVICES, bytes, out.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  return out;
}

std::vector<std::string> kernel_names(cl_program program) {
  size_t n = 0;
  if (real().clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n) != CL_SUCCESS || !n)
    return {};
  std::string all(n, '\0');
  if (real().clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, n, all.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  std::vector<std::string> out;
  std::string cur;
  for (char c : all) {
    if (c == ';' || c == '\0') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// CL_PROGRAM_BUILD_LOG of one device, cut to tf::kMaxBuildLogBytes (never inside a UTF-8
// character) with a note; "" when the driver gives none.
std::string build_log(cl_program program, cl_device_id device) {
  size_t n = 0;
  if (real().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) !=
          CL_SUCCESS ||
      !n)
    return {};
  std::string log(n, '\0');
  if (real().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  log.resize(std::strlen(log.c_str()));  // the driver's terminating NUL
  if (log.size() > tf::kMaxBuildLogBytes) {
    size_t cut = tf::kMaxBuildLogBytes;
    while (cut > 0 && (static_cast<unsigned char>(log[cut]) & 0xC0) == 0x80) --cut;
    log.resize(cut);
    log += tf::kBuildLogCutNote;
  }
  return log;
}

// A build-like call (build, compile, link). Asynchronous builds (pfn_notify) report
// the status seen when the call returned, typically CL_BUILD_IN_PROGRESS; their logs are
// recorded only when that status (or the call's rc) already says the build failed.
void record_build(HookScope& scope, const char* api, cl_program program, cl_uint num_devices,
                  const cl_device_id* device_list, const char* options, cl_int rc) {
  const std::int64_t end_ns = monotonic_now_ns();
  const ProgramInfo* p = program ? programs().find(program) : nullptr;
  std::vector<std::uint64_t> ids;
  std::vector<std::int64_t> status;
  std::vector<cl_device_id> devices;
  if (program) {
    devices = program_devices(program, num_devices, device_list);
    for (cl_device_id d : devices) {
      ids.push_back(device_id_of(d));
      cl_build_status s = CL_BUILD_NONE;
      real().clGetProgramBuildInfo(program, d, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, nullptr);
      status.push_back(s);
    }
  }
  JsonLine line(tf::build::kTypeName);
  line.str(tf::build::api, api)
      .unum(tf::build::program_id, p ? p->id : 0)
      .str(tf::build::options, options ? options : "")
      .unums(tf::build::device_ids, ids)
      .nums(tf::build::host_ns, {to_trace_ns(scope.begin_ns()), to_trace_ns(end_ns)})
      .num(tf::build::rc, rc)
      .nums(tf::build::build_status, status)
      .strs(tf::build::kernels,
            rc == CL_SUCCESS && program && std::strcmp(api, "clCompileProgram") != 0
                ? kernel_names(program)
                : std::vector<std::string>{});
  if (p && p->has_source) line.str(tf::build::source_hash, source_hash_text(p->source_hash));
  bool failed = rc != CL_SUCCESS;
  for (std::int64_t s : status) failed = failed || s == CL_BUILD_ERROR;
  if (failed && !devices.empty()) {
    std::vector<std::string> logs;
    for (cl_device_id d : devices) logs.push_back(build_log(program, d));
    line.strs(tf::build::logs, logs);
  }
  emit_line(LineKind::Build, line.finish());
}

}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                               const char** strings,
                                                               const size_t* lengths,
                                                               cl_int* errcode_ret) {
  HookScope scope;
  cl_program p = real().clCreateProgramWithSource(context, count, strings, lengths, errcode_ret);
  if (scope.active() && p) {
    std::string source;
    for (cl_uint i = 0; strings && i < count; ++i) {
      if (!strings[i]) continue;
      source.append(strings[i], lengths && lengths[i] ? lengths[i] : std::strlen(strings[i]));
    }
    register_program(p, context, "source", &source, source.data(), source.size());
  }
  return p;
}

CLPROF_EXPORT cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id* device_list, const size_t* lengths,
    const unsigned char** binaries, cl_int* binary_status, cl_int* errcode_ret) {
  HookScope scope;
  cl_program p = real().clCreateProgramWithBinary(context, num_devices, device_list, lengths,
                                                  binaries, binary_status, errcode_ret);
  if (scope.active() && p) register_program(p, context, "binary", nullptr, nullptr, 0);
  return p;
}

CLPROF_EXPORT cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void* il,
                                                           size_t length, cl_int* errcode_ret) {
  HookScope scope;
  cl_program p = real().clCreateProgramWithIL(context, il, length, errcode_ret);
  if (scope.active() && p) register_program(p, context, "il", nullptr, il, length);
  return p;
}

CLPROF_EXPORT cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
    cl_context context, cl_uint num_devices, const cl_device_id* device_list,
    const char* kernel_names_list, cl_int* errcode_ret) {
  HookScope scope;
  cl_program p = real().clCreateProgramWithBuiltInKernels(context, num_devices, device_list,
                                                          kernel_names_list, errcode_ret);
  if (scope.active() && p) register_program(p, context, "builtin", nullptr, nullptr, 0);
  return p;
}

CLPROF_EXPORT cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                                const cl_device_id* device_list,
                                                const char* options,
                                                void(CL_CALLBACK* pfn_notify)(cl_program, void*),
                                                void* user_data) {
  HookScope scope(HookScope::Timing::Timed);
  const cl_int rc =
      real().clBuildProgram(program, num_devices, device_list, options, pfn_notify, user_data);
  if (scope.active())
    record_build(scope, "clBuildProgram", program, num_devices, device_list, options, rc);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clCompileProgram(
    cl_program program, cl_uint num_devices, const cl_device_id* device_list, const char* options,
    cl_uint num_input_headers, const cl_program* input_headers, const char** header_include_names,
    void(CL_CALLBACK* pfn_notify)(cl_program, void*), void* user_data) {
  HookScope scope(HookScope::Timing::Timed);
  const cl_int rc =
      real().clCompileProgram(program, num_devices, device_list, options, num_input_headers,
                              input_headers, header_include_names, pfn_notify, user_data);
  if (scope.active())
    record_build(scope, "clCompileProgram", program, num_devices, device_list, options, rc);
  return rc;
}

CLPROF_EXPORT cl_program CL_API_CALL clLinkProgram(cl_context context, cl_uint num_devices,
                                                   const cl_device_id* device_list,
                                                   const char* options, cl_uint num_input_programs,
                                                   const cl_program* input_programs,
                                                   void(CL_CALLBACK* pfn_notify)(cl_program, void*),
                                                   void* user_data, cl_int* errcode_ret) {
  HookScope scope(HookScope::Timing::Timed);
  cl_int rc = CL_SUCCESS;
  cl_program p =
      real().clLinkProgram(context, num_devices, device_list, options, num_input_programs,
                           input_programs, pfn_notify, user_data, &rc);
  if (errcode_ret) *errcode_ret = rc;
  if (scope.active()) {
    if (p) register_program(p, context, "link", nullptr, nullptr, 0);
    record_build(scope, "clLinkProgram", p, num_devices, device_list, options, rc);
  }
  return p;
}
