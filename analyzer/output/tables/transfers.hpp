// `clprof transfers`: one row per device kind and op (per group too with --by), its size
// classes nested.
#pragma once

#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/transfers.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& transfers_schema();
// `rows` in the analysis's order (per group when `by` is given); the totals as notes.
Result transfers_result(const std::vector<analyses::TransferRow>& rows, analyses::GroupBy by);

}  // namespace clprof::output::tables
