// A command's Result (output/render.hpp) as HTML tables for the report: the same columns,
// in the same order, as the table format shows them (--wide ones included: the page has
// room), display texts in the cells and raw values in data-v attributes for the page's
// sorting script. Flat and Tree results give one table of their top rows, Sections one
// table per section under its heading, Record a key/value table then its nested tables.
// At most `max_rows` rows per table; a note under it says how many were left out.
#pragma once

#include <cstddef>
#include <string>

#include "output/render.hpp"

namespace clprof::output::report {

inline constexpr size_t kMaxTableRows = 500;

std::string html_tables(const Result& result, size_t max_rows = kMaxTableRows);

}  // namespace clprof::output::report
