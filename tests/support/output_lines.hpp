// The lines of a program's output that start with a tag ("call ", "layer "): how the test
// apps print what they did for the test to compare with the trace.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace clprof::test {

// Each line of `output` that starts with `tag`, whole, in order.
inline std::vector<std::string> lines_starting_with(const std::string& output,
                                                    const std::string& tag) {
  std::vector<std::string> found;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(tag, 0) == 0) found.push_back(line);
  return found;
}

}  // namespace clprof::test
