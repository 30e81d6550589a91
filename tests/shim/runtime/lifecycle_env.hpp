// The environment the runtime tests run the shim's lifecycle in: CLPROF_OUTPUT names a file
// in a fresh directory, CLPROF_FLUSH_INTERVAL_MS is 10 minutes (only a sync round writes
// within a test's deadline), set before main (the settings are parsed once per process, on
// first use, and the harvester's tests may use them first). Threads: set before main.
#pragma once

#include <string>

namespace runtime_test {

// The trace file CLPROF_OUTPUT names.
const std::string& lifecycle_output();

}  // namespace runtime_test
