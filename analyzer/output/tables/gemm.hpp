// `clprof gemm`: one row per GEMM call, or (--group) one per distinct (call, precision, layout, M,
// N, K, batch); `--list-rules`: the rule table.
#pragma once

#include <string>
#include <vector>

#include "analyses/gemm/gemm.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& gemm_schema();
const Schema& gemm_group_schema();

// Per call: rows made on demand from `result`'s compact records (it must outlive the
// returned Result). `peak`: the percent_of_peak column is on.
Result gemm_result(const analyses::GemmResult& result, bool peak);
Result gemm_group_result(const analyses::GemmResult& result, bool peak);
// The notes under the table: calls, kernel launches, GFLOP, peak, and the padded-sizes footnote
// when a shown row is padded (read from the result's rows as ordered).
void add_gemm_notes(Result& out, const analyses::GemmResult& result);

// The rule table as --list-rules prints it (JSON, the format of --rules files).
std::string rules_json(const std::vector<gemm::Rule>& rules);

}  // namespace clprof::output::tables
