// `clprof kernels`: one row per kernel name. Also the nested rows of `clprof layers`.
#pragma once

#include <vector>

#include "analyses/kernels.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& kernels_schema();
// One row of kernels_schema().
Row kernel_row(const analyses::KernelRow& r);
// The result of `clprof kernels`: `rows` as ordered by the analysis; the totals as a note.
// `speedup`: the rows carry est_total_ns (--speedup was given).
Result kernels_result(const std::vector<analyses::KernelRow>& rows, bool speedup, int64_t total_ns,
                      uint64_t kernels, std::optional<int64_t> estimated_ns);

}  // namespace clprof::output::tables
