// `clprof builds`: one row per program build (clBuildProgram, clCompileProgram,
// clLinkProgram).
#pragma once

#include <vector>

#include "analyses/builds.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& builds_schema();
// `rows` in the analysis's order; the totals (and what failed builds lack) as notes.
Result builds_result(const std::vector<analyses::BuildRow>& rows);

}  // namespace clprof::output::tables
