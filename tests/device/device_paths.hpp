// Force-included (-include) into tests/e2e's sources when they are built as
// clprof_device_e2e, the e2e suite that travels in the device bundle
// (scripts/device-bundle.sh, docs/devices.md). The e2e suite's paths are otherwise CMake's
// absolute build-tree paths; here they are found at run time, from where the program lies:
// <bundle>/bin/clprof_device_e2e, so <bundle>/bin holds the examples and clprof and
// <bundle>/lib the shim. CLPROF_DEVICE_ROOT overrides the bundle root, CLPROF_DEVICE_WORK
// the folder for the tests' traces and captured output (default <bundle>/e2e-work).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace clprof_device {

inline std::string bundle_root() {
  const char* root = std::getenv("CLPROF_DEVICE_ROOT");
  if (root && *root) return root;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string exe(buf, static_cast<size_t>(n));
  const size_t bin = exe.rfind('/');
  if (bin == std::string::npos) return ".";
  exe.resize(bin);  // <bundle>/bin
  const size_t top = exe.rfind('/');
  return top == std::string::npos ? std::string(".") : exe.substr(0, top);
}

inline std::string in_bundle(const char* rel) {
  return bundle_root() + "/" + rel;
}

inline std::string work_root() {
  const char* work = std::getenv("CLPROF_DEVICE_WORK");
  return work && *work ? std::string(work) : in_bundle("e2e-work");
}

}  // namespace clprof_device

#define CLPROF_E2E_BIN_DIR ::clprof_device::in_bundle("bin")
#define CLPROF_E2E_SHIM ::clprof_device::in_bundle("lib/libclprof.so")
#define CLPROF_E2E_CLI ::clprof_device::in_bundle("bin/clprof")
#define CLPROF_E2E_EXAMPLES_SRC ::clprof_device::in_bundle("examples")
#define CLPROF_E2E_PYTHON "/usr/bin/python3"
#define CLPROF_E2E_WORK_ROOT ::clprof_device::work_root()
#define CLPROF_TEST_PRELOAD_FIRST ""
