// `clprof compare`: per OTHER run, one section each for kernels, layers and (--gemm) GEMM
// shapes, the compared items nested in each section.
#pragma once

#include <vector>

#include "analyses/compare.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& compare_schema();
// The schema of a section's items (what --sort orders).
const Schema& compare_items_schema();

// The result of `clprof compare`: one comparison per OTHER run, its totals and notes as notes.
Result compare_result(const std::vector<analyses::Comparison>& comparisons);
// Orders every section's items by the items column `column` (npos: as the analysis ordered
// them) and keeps the first `top` of each (0 = all).
void order_items(Result& result, size_t column, size_t top);

}  // namespace clprof::output::tables
