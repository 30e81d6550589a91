#include "lifecycle_env.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace runtime_test {
namespace {

// Made before main (a static), so with mkdtemp itself: doctest's checks need a test case.
// Removed at exit, with the file.
struct Env {
  Env() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/clprof-runtime-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("clprof_shim_runtime_tests: mkdtemp");
      std::abort();
    }
    dir = pattern;
    path = dir + "/trace.json";
    unsetenv("CLPROF_DISABLE");
    setenv("CLPROF_OUTPUT", path.c_str(), 1);
    // 10 minutes: within the harvester tests' 10 s deadlines only a sync round writes.
    setenv("CLPROF_FLUSH_INTERVAL_MS", "600000", 1);
  }
  ~Env() {
    std::remove(path.c_str());
    rmdir(dir.c_str());
  }
  std::string dir;
  std::string path;
};
const Env g_env;

}  // namespace

const std::string& lifecycle_output() {
  return g_env.path;
}

}  // namespace runtime_test
