// `clprof ranks`: one row per rank (process) of a parallel job; `--kernel NAME`: that
// kernel's spread across the ranks (one object).
#pragma once

#include "analyses/ranks.hpp"
#include "output/render.hpp"

namespace clprof::output::tables {

const Schema& ranks_schema();
const Schema& rank_kernel_schema();
Result ranks_result(const analyses::RankTable& table);
Result rank_kernel_result(const analyses::KernelSpread& spread);

}  // namespace clprof::output::tables
