// Every command's output schemas, for the docs and their tests.
#pragma once

#include <vector>

#include "output/schema_doc.hpp"

namespace clprof::output::tables {

// summary, kernels, launches, layers, gemm, compare: each with its views.
const std::vector<CommandViews>& all_commands();
// The views of `command` (throws std::out_of_range for an unknown one).
const CommandViews& command_views(const std::string& command);

}  // namespace clprof::output::tables
