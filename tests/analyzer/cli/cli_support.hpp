// Running the real clprof binary from tests, and reading its output back.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace clitest {

struct Result {
  int status = -1;  // exit status, or 128+signal
  std::string out;
  std::string err;
};

// Runs clprof with `args`; an argument starting with '@' is replaced by the path of that
// file in tests/analyzer/data. `env` entries are set in the child (value "" unsets).
Result run(const std::vector<std::string>& args,
           const std::vector<std::pair<std::string, std::string>>& env = {},
           const std::string& cwd = "");

// A fresh empty directory under $TMPDIR (removed at exit).
std::string temp_dir();
// Writes `content` to a new file in temp_dir() and returns its path.
std::string write_temp(const std::string& name, const std::string& content);
// The content of a file ("" if it cannot be read).
std::string read_file(const std::string& path);
// The path of tests/analyzer/data/<name>.
std::string data(const std::string& name);

}  // namespace clitest
