#include "recording/kernels.hpp"

#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "base/real_opencl.hpp"
#include "recording/contexts_queues.hpp"
#include "recording/record_sink.hpp"
#include "recording/registry_impl.hpp"

namespace clprof::shim {

template class Registry<ProgramInfo>;
template class Registry<KernelInfo>;

namespace {

struct Names {
  std::mutex mutex;
  std::unordered_set<std::string> set;
};
Names& names() {
  static auto* n = new Names;
  return *n;
}
// Made at load, on the loading thread, before any app thread can reach it: an app built
// with ThreadSanitizer does not see the shim's (uninstrumented) static guard, and two app
// threads whose first use came at once were reported as a race on the new object.
__attribute__((constructor)) void make_names() {
  names();
}

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
  const char* const quoted = record_sink_kernel_name(name);
  const auto fill = [&](KernelInfo& info) {
    info.name = quoted;
    info.program_id = p ? p->id : 0;
    info.context_id = context_id;
    info.num_args = num_args;
  };
  bool created = true;
  KernelInfo* k = lazily ? kernels().learn(kernel, fill, created) : kernels().create(kernel, fill);
  if (!created) return k;
  KernelFacts f;
  f.id = k->id;
  f.program_id = k->program_id;
  f.context_id = k->context_id;
  f.name = name;
  f.num_args = num_args;
  f.arg_types = arg_types_once(kernel, k->program_id, quoted, num_args);
  emit_object(f);
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

const char* intern(const std::string& name) {
  Names& n = names();
  std::lock_guard<std::mutex> lock(n.mutex);
  return n.set.insert(name).first->c_str();
}

// Lock order (with the other kinds': recording/objects.cpp): programs, kernels, names.
void kernels_fork_prepare() {
  programs().mutex().lock();
  kernels().mutex().lock();
  names().mutex.lock();
}
void kernels_fork_parent() {
  names().mutex.unlock();
  kernels().mutex().unlock();
  programs().mutex().unlock();
}
void kernels_fork_child() {
  kernels_fork_parent();
}

}  // namespace clprof::shim
