// `clprof kernels`: one row per kernel name (per group and name with --by). Also the nested
// rows of `clprof layers`.
#pragma once

#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/kernels.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& kernels_schema();
// The rows of a layer's kernels (kernels_schema without the --by columns).
const Schema& layer_kernels_schema();
// One row of layer_kernels_schema() (kernels_schema() adds the --by values first).
Row kernel_row(const analyses::KernelRow& r);
// The result of `clprof kernels`: `rows` as ordered by the analysis; the totals as a note,
// and a note when a kernel's first launch dominates. `speedup`: the rows carry est_total_ns
// (--speedup was given); `by`: the rows are per group (KernelRow::group).
Result kernels_result(const std::vector<analyses::KernelRow>& rows, bool speedup, int64_t total_ns,
                      uint64_t kernels, std::optional<int64_t> estimated_ns,
                      analyses::GroupBy by = analyses::GroupBy::None);
// The note naming the kernels whose first launch dominates (kernels.hpp), if any.
void add_first_launch_notes(Result& out, const std::vector<analyses::KernelRow>& rows,
                            int64_t total_ns);

}  // namespace clprof::output::tables
