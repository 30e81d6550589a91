// `clprof advise`: one row per finding (analyses/advice/advice.hpp).
#pragma once

#include "analyses/advice/advice.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& advise_schema();
// The findings in the report's order; the not-evaluated rules become notes.
// A finding's subjects, ", "-joined (advise's and compare's subjects column).
std::string subjects_text(const analyses::advice::Finding& f);

Result advise_result(const analyses::advice::Report& report);

}  // namespace clprof::output::tables
