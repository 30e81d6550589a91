// Programs (from source or "binary", build, compile, link; a build fails on request) and
// kernels (found by fake_source_scan.cpp; arguments checked against their parameters).
#include "fake_internal.hpp"

namespace clprof::fake {

// ---- programs ---------------------------------------------------------------------------------
namespace {

cl_program make_program(cl_context c, std::string source, cl_int* errcode_ret) {
  auto* p = new_in_context<_cl_program>(c);
  p->kernels = scan_kernels(source);
  p->source = std::move(source);
  return succeed(errcode_ret, p);
}

}  // namespace

cl_program CL_API_CALL CreateProgramWithSource(cl_context c, cl_uint count, const char** strings,
                                               const size_t* lengths, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateProgramWithSource", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (count == 0 || !strings) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  std::string src;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
    if (lengths && lengths[i]) {
      src.append(strings[i], lengths[i]);
    } else {
      src.append(strings[i]);
    }
  }
  return make_program(c, std::move(src), errcode_ret);
}

// A "binary" of the fake is the program's source text (what clGetProgramInfo returns).
cl_program CL_API_CALL CreateProgramWithBinary(cl_context c, cl_uint num_devices,
                                               const cl_device_id* devices, const size_t* lengths,
                                               const unsigned char** binaries,
                                               cl_int* binary_status, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateProgramWithBinary", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (num_devices != 1 || !devices || !lengths || !binaries || !binaries[0] || !lengths[0])
    return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  if (devices[0] != &g_device) return fail<_cl_program>(errcode_ret, CL_INVALID_DEVICE);
  if (binary_status) binary_status[0] = CL_SUCCESS;
  cl_program p = make_program(
      c, std::string(reinterpret_cast<const char*>(binaries[0]), lengths[0]), errcode_ret);
  p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  return p;
}

cl_int CL_API_CALL RetainProgram(cl_program p) {
  return retain(p, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL ReleaseProgram(cl_program p) {
  FAKE_INJECT("clReleaseProgram");
  return release(p, CL_INVALID_PROGRAM);
}

namespace {

cl_int build_like(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                  const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                  void* user_data, cl_program_binary_type success_type) {
  if (!p) return CL_INVALID_PROGRAM;
  if ((num_devices == 0) != (devices == nullptr)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num_devices; ++i)
    if (devices[i] != &g_device) return CL_INVALID_DEVICE;
  const std::string opts = options ? options : "";
  const std::string& token = config().build_fail_token;
  const bool fails = opts.find(token) != std::string::npos;
  {
    std::lock_guard<std::mutex> lock(p->mutex);
    p->options = opts;
    if (fails) {
      p->build_status = CL_BUILD_ERROR;
      p->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
      p->log = "clprof fake ICD: build failure injected by option " + token + "\n";
    } else {
      p->build_status = CL_BUILD_SUCCESS;
      p->binary_type = success_type;
      p->log = "";
    }
  }
  if (notify) notify(p, user_data);
  if (!fails) return CL_SUCCESS;
  return success_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE ? CL_BUILD_PROGRAM_FAILURE
                                                           : CL_COMPILE_PROGRAM_FAILURE;
}

}  // namespace

cl_int CL_API_CALL BuildProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                                const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                                void* user_data) {
  FAKE_INJECT("clBuildProgram");
  return build_like(p, num_devices, devices, options, notify, user_data,
                    CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
}

cl_int CL_API_CALL CompileProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                                  const char* options, cl_uint, const cl_program*, const char**,
                                  void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  FAKE_INJECT("clCompileProgram");
  return build_like(p, num_devices, devices, options, notify, user_data,
                    CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
}

cl_program CL_API_CALL LinkProgram(cl_context c, cl_uint num_devices, const cl_device_id* devices,
                                   const char* options, cl_uint num_programs,
                                   const cl_program* programs,
                                   void(CL_CALLBACK* notify)(cl_program, void*), void* user_data,
                                   cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clLinkProgram", errcode_ret);
  if (!c) return fail<_cl_program>(errcode_ret, CL_INVALID_CONTEXT);
  if (num_programs == 0 || !programs) return fail<_cl_program>(errcode_ret, CL_INVALID_VALUE);
  std::string src;
  for (cl_uint i = 0; i < num_programs; ++i) {
    if (!programs[i]) return fail<_cl_program>(errcode_ret, CL_INVALID_PROGRAM);
    src += programs[i]->source;
    src += '\n';
  }
  cl_program p = make_program(c, std::move(src), errcode_ret);
  const cl_int rc = build_like(p, num_devices, devices, options, notify, user_data,
                               CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  if (rc != CL_SUCCESS) {
    if (errcode_ret) *errcode_ret = rc == CL_BUILD_PROGRAM_FAILURE ? CL_LINK_PROGRAM_FAILURE : rc;
    if (rc != CL_BUILD_PROGRAM_FAILURE) {
      ReleaseProgram(p);
      return nullptr;
    }
  }
  return p;
}

cl_int CL_API_CALL UnloadCompiler() {
  return CL_SUCCESS;
}

cl_int CL_API_CALL UnloadPlatformCompiler(cl_platform_id) {
  return CL_SUCCESS;
}

namespace {

std::string kernel_names(cl_program p) {
  std::string names;
  for (const KernelInfo& k : p->kernels) {
    if (!names.empty()) names += ';';
    names += k.name;
  }
  return names;
}

bool is_built(cl_program p) {
  std::lock_guard<std::mutex> lock(p->mutex);
  return p->build_status == CL_BUILD_SUCCESS && p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
}

}  // namespace

cl_int CL_API_CALL GetProgramInfo(cl_program p, cl_program_info param, size_t size, void* out,
                                  size_t* size_ret) {
  FAKE_INJECT("clGetProgramInfo");
  if (!p) return CL_INVALID_PROGRAM;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT:
      return r.value<cl_uint>(p->refs.api());
    case CL_PROGRAM_CONTEXT:
      return r.value(p->context);
    case CL_PROGRAM_NUM_DEVICES:
      return r.value<cl_uint>(1);
    case CL_PROGRAM_DEVICES:
      return r.value<cl_device_id>(&g_device);
    case CL_PROGRAM_SOURCE:
      return r.string(p->source);
    case CL_PROGRAM_IL:
      return r.none();
    case CL_PROGRAM_BINARY_SIZES:
      return r.value<size_t>(p->source.size());
    case CL_PROGRAM_BINARIES: {
      // `out` is the caller's array of one buffer pointer: the binary goes where it points.
      if (out && size < sizeof(unsigned char*)) return CL_INVALID_VALUE;
      unsigned char* dst = out ? static_cast<unsigned char**>(out)[0] : nullptr;
      if (dst) std::memcpy(dst, p->source.data(), p->source.size());
      if (size_ret) *size_ret = sizeof(unsigned char*);
      return CL_SUCCESS;
    }
    case CL_PROGRAM_NUM_KERNELS:
      if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      return r.value<size_t>(p->kernels.size());
    case CL_PROGRAM_KERNEL_NAMES:
      if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
      return r.string(kernel_names(p));
    case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
    case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
      return r.value<cl_bool>(CL_FALSE);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info param,
                                       size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetProgramBuildInfo");
  if (!p) return CL_INVALID_PROGRAM;
  if (d != &g_device) return CL_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(p->mutex);
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_PROGRAM_BUILD_STATUS:
      return r.value(p->build_status);
    case CL_PROGRAM_BUILD_OPTIONS:
      return r.string(p->options);
    case CL_PROGRAM_BUILD_LOG:
      return r.string(p->log);
    case CL_PROGRAM_BINARY_TYPE:
      return r.value(p->binary_type);
    case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
      return r.value<size_t>(0);
    default:
      return CL_INVALID_VALUE;
  }
}

// ---- kernels ----------------------------------------------------------------------------------
namespace {

cl_kernel make_kernel(cl_program p, const KernelInfo* info) {
  auto* k = new _cl_kernel();
  k->dispatch = &g_dispatch;
  k->program = p;
  k->info = info;
  p->refs.retain_internal();
  return k;
}

}  // namespace

cl_kernel CL_API_CALL CreateKernel(cl_program p, const char* name, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateKernel", errcode_ret);
  if (!p) return fail<_cl_kernel>(errcode_ret, CL_INVALID_PROGRAM);
  if (!name) return fail<_cl_kernel>(errcode_ret, CL_INVALID_VALUE);
  if (!is_built(p)) return fail<_cl_kernel>(errcode_ret, CL_INVALID_PROGRAM_EXECUTABLE);
  for (const KernelInfo& k : p->kernels)
    if (k.name == name) return succeed(errcode_ret, make_kernel(p, &k));
  return fail<_cl_kernel>(errcode_ret, CL_INVALID_KERNEL_NAME);
}

cl_int CL_API_CALL CreateKernelsInProgram(cl_program p, cl_uint num, cl_kernel* kernels,
                                          cl_uint* num_ret) {
  FAKE_INJECT("clCreateKernelsInProgram");
  if (!p) return CL_INVALID_PROGRAM;
  if (!is_built(p)) return CL_INVALID_PROGRAM_EXECUTABLE;
  const cl_uint n = static_cast<cl_uint>(p->kernels.size());
  if (kernels && num < n) return CL_INVALID_VALUE;
  if (kernels)
    for (cl_uint i = 0; i < n; ++i) kernels[i] = make_kernel(p, &p->kernels[i]);
  if (num_ret) *num_ret = n;
  return CL_SUCCESS;
}

cl_kernel CL_API_CALL CloneKernel(cl_kernel k, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCloneKernel", errcode_ret);
  if (!k) return fail<_cl_kernel>(errcode_ret, CL_INVALID_KERNEL);
  cl_kernel c = make_kernel(k->program, k->info);
  c->args_set.store(k->args_set.load());
  return succeed(errcode_ret, c);
}

cl_int CL_API_CALL RetainKernel(cl_kernel k) {
  return retain(k, CL_INVALID_KERNEL);
}

cl_int CL_API_CALL ReleaseKernel(cl_kernel k) {
  FAKE_INJECT("clReleaseKernel");
  return release(k, CL_INVALID_KERNEL);
}

namespace {

// The check before an argument is set or queried.
cl_int check_arg_index(cl_kernel k, cl_uint index) {
  if (!k) return CL_INVALID_KERNEL;
  return index < k->info->args.size() ? CL_SUCCESS : CL_INVALID_ARG_INDEX;
}

void mark_arg_set(cl_kernel k, cl_uint index) {
  if (index < 64) k->args_set.fetch_or(std::uint64_t{1} << index, std::memory_order_relaxed);
}

}  // namespace

cl_int CL_API_CALL SetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  FAKE_INJECT("clSetKernelArg");
  if (cl_int rc = check_arg_index(k, index)) return rc;
  const ArgInfo& a = k->info->args[index];
  if (a.address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
    if (value) return CL_INVALID_ARG_VALUE;
    if (size == 0) return CL_INVALID_ARG_SIZE;
  } else if (a.is_pointer) {
    if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  } else {
    if (size == 0) return CL_INVALID_ARG_SIZE;
    if (!value) return CL_INVALID_ARG_VALUE;
  }
  mark_arg_set(k, index);
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetKernelArgSVMPointer(cl_kernel k, cl_uint index, const void*) {
  FAKE_INJECT("clSetKernelArgSVMPointer");
  if (cl_int rc = check_arg_index(k, index)) return rc;
  if (!k->info->args[index].is_pointer) return CL_INVALID_ARG_VALUE;
  mark_arg_set(k, index);
  return CL_SUCCESS;
}

cl_int CL_API_CALL SetKernelExecInfo(cl_kernel k, cl_kernel_exec_info, size_t, const void*) {
  return k ? CL_SUCCESS : CL_INVALID_KERNEL;
}

cl_int CL_API_CALL GetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void* out,
                                 size_t* size_ret) {
  FAKE_INJECT("clGetKernelInfo");
  if (!k) return CL_INVALID_KERNEL;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME:
      return r.string(k->info->name);
    case CL_KERNEL_NUM_ARGS:
      return r.value<cl_uint>(static_cast<cl_uint>(k->info->args.size()));
    case CL_KERNEL_REFERENCE_COUNT:
      return r.value<cl_uint>(k->refs.api());
    case CL_KERNEL_CONTEXT:
      return r.value(k->program->context);
    case CL_KERNEL_PROGRAM:
      return r.value(k->program);
    case CL_KERNEL_ATTRIBUTES:
      return r.string("");
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param,
                                    size_t size, void* out, size_t* size_ret) {
  FAKE_INJECT("clGetKernelArgInfo");
  if (cl_int rc = check_arg_index(k, index)) return rc;
  const ArgInfo& a = k->info->args[index];
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
      return r.value(a.address);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER:
      return r.value<cl_kernel_arg_access_qualifier>(CL_KERNEL_ARG_ACCESS_NONE);
    case CL_KERNEL_ARG_TYPE_NAME:
      return r.string(a.type_name);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
      return r.value<cl_kernel_arg_type_qualifier>(CL_KERNEL_ARG_TYPE_NONE);
    case CL_KERNEL_ARG_NAME:
      return r.string(a.name);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetKernelWorkGroupInfo(cl_kernel k, cl_device_id d,
                                          cl_kernel_work_group_info param, size_t size, void* out,
                                          size_t* size_ret) {
  FAKE_INJECT("clGetKernelWorkGroupInfo");
  if (!k) return CL_INVALID_KERNEL;
  if (d && d != &g_device) return CL_INVALID_DEVICE;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE:
      return r.value<size_t>(1024);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      const size_t v[3] = {0, 0, 0};
      return r.bytes(v, sizeof v);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE:
    case CL_KERNEL_PRIVATE_MEM_SIZE:
      return r.value<cl_ulong>(0);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return r.value<size_t>(32);
    default:
      return CL_INVALID_VALUE;
  }
}

}  // namespace clprof::fake
