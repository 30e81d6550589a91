// `clprof launches`: one row per kernel launch.
#pragma once

#include <memory>
#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/kernel_signatures.hpp"
#include "analyses/ranges.hpp"
#include "model.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& launches_schema();
// A kernel argument as a list (docs/cli.md): ["scalar", size, hex, value], ["buffer", size,
// id, bytes], ["local", size], ...
// `type`: the argument's scalar type where the program's source says (kernel_signatures.hpp):
// a float, double or half scalar is then a real.
Value kernel_arg(const model::KernelArg& arg,
                 analyses::ScalarType type = analyses::ScalarType::Unknown);
// Rows made on demand from `launches` (pointers into `run`, which must outlive the result).
// `by` and `labels`: each row's group (--by).
Result launches_result(const std::vector<const model::Launch*>& launches, const model::Run& run,
                       analyses::GroupBy by = analyses::GroupBy::None,
                       std::shared_ptr<const analyses::GroupLabels> labels = nullptr);

}  // namespace clprof::output::tables
