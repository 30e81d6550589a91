// `clprof layers`: one row per layer (range path) with its kernels nested; with
// --per-iteration, one row per iteration with its layers and kernels nested.
#pragma once

#include <string>
#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/layers.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& layers_schema();
const Schema& iterations_schema();

// `rows`: kernel layers then imported layer timings (timing_only), as the analysis orders them.
// `kernels` false (--no-kernels): without each layer's kernels.
// `by`: the rows are per group (LayerRow::group).
Result layers_result(const std::vector<analyses::LayerRow>& rows, bool speedup, bool kernels,
                     analyses::GroupBy by = analyses::GroupBy::None);
Result iterations_result(const std::vector<analyses::IterationDetail>& details,
                         const std::string& range_name);

}  // namespace clprof::output::tables
