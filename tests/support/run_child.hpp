// Running a program as a child for tests: its stdout and stderr captured through files
// (no pipe to drain, so any amount of output is fine), its exit status returned.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clprof::test {

struct ChildResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// Runs argv[0] (a path; no PATH search) with `argv`, `env` entries set (value "" unsets),
// in `cwd` ("" = here); `scratch` is a directory for the two capture files.
ChildResult run_child(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env,
                      const std::string& cwd, const std::string& scratch);

// The content of a file ("" if it cannot be read).
std::string slurp(const std::string& path);

}  // namespace clprof::test
