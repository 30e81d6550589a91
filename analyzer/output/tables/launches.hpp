// `clprof launches`: one row per kernel launch.
#pragma once

#include <vector>

#include "analyses/ranges.hpp"
#include "model.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& launches_schema();
// A kernel argument as a list (docs/cli.md): ["scalar", size, hex, value], ["buffer", size,
// id, bytes], ["local", size], ...
Value kernel_arg(const model::KernelArg& arg);
// Rows made on demand from `launches` (pointers into `run`, which must outlive the result).
Result launches_result(const std::vector<const model::Launch*>& launches, const model::Run& run);

}  // namespace clprof::output::tables
