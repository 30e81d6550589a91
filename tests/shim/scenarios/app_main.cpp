// The test app's entry: runs the scenario argv[1] names (app_support.hpp).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app_support.hpp"

namespace {

// Sanitizer runtimes (ASan, TSan) resolve their interceptors with dlsym(RTLD_NEXT, ...) from
// the executable's .preinit_array, before any library initializer has run (libclprof.so's
// included). SHIM_TEST_EARLY_DLSYM=1 makes this app do the same (exit_test.cpp).
// (getenv does not work yet at that point: the environment comes as the third argument.)
void* g_early_mmap = nullptr;
void early_dlsym(int, char**, char** envp) {
  for (char** e = envp; e && *e; ++e)
    if (std::strcmp(*e, "SHIM_TEST_EARLY_DLSYM=1") == 0) g_early_mmap = dlsym(RTLD_NEXT, "mmap");
}
__attribute__((section(".preinit_array"), used)) void (*const g_preinit)(int, char**,
                                                                         char**) = early_dlsym;

const shim_test::ScenarioList* const kGroups[] = {
    &shim_test::kRecordsScenarios, &shim_test::kArgumentsScenarios, &shim_test::kErrorsScenarios,
    &shim_test::kAppViewScenarios, &shim_test::kThreadsScenarios,   &shim_test::kPendingScenarios,
    &shim_test::kExitScenarios,    &shim_test::kForkExecScenarios,  &shim_test::kMarkersScenarios,
    &shim_test::kEndingsScenarios, &shim_test::kStressScenarios,    &shim_test::kFailuresScenarios};

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENARIO [ARG]\n", argv[0]);
    return 2;
  }
  if (std::getenv("SHIM_TEST_EARLY_DLSYM")) std::printf("early_dlsym %d\n", g_early_mmap ? 1 : 0);
  const shim_test::ScenarioArgs args{argv[0], argv[1], argc > 2 ? argv[2] : nullptr};
  for (const shim_test::ScenarioList* group : kGroups) {
    for (const shim_test::Scenario& s : *group) {
      if (args.name == s.name) return s.run(args);
    }
  }
  std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
