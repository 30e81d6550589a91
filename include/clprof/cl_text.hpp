// Two small OpenCL helpers the shim's capture (shim/recording/capture.cpp) and the
// analyzer's replay (analyzer/replay/run.cpp) share: a string query's answer, and a
// device type's word. Header-only; the caller includes CL/cl.h first. Threads: any.
#pragma once

#include <cstddef>
#include <string>

namespace clprof::cl_text {

// The text a clGet*Info string query answers (without its terminating NULs), or "" when it
// fails. `get(size, value, size_ret)` makes the query (a lambda over the real function).
template <class Get>
std::string info_text(Get get) {
  size_t n = 0;
  if (get(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (get(n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// "GPU", "CPU", "ACCELERATOR", "CUSTOM" or "DEFAULT" (the trace's device_type words).
inline const char* device_type_word(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  if (t & CL_DEVICE_TYPE_CUSTOM) return "CUSTOM";
  return "DEFAULT";
}

}  // namespace clprof::cl_text
