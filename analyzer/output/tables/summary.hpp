// `clprof summary`: one object for the run, its devices nested.
#pragma once

#include "analyses/summary.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& summary_schema();
Result summary_result(const analyses::Summary& summary);

}  // namespace clprof::output::tables
