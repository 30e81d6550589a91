// `clprof api`: one row per OpenCL function (per thread or process too with --by).
#pragma once

#include <vector>

#include "analyses/api.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& api_schema();
// `rows` in the analysis's order; `labels` names their groups (with --by).
Result api_result(const std::vector<analyses::ApiRow>& rows, analyses::GroupBy by,
                  const analyses::GroupLabels* labels);

}  // namespace clprof::output::tables
