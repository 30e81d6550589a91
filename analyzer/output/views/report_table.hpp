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

// Row anchors: with `anchors.prefix` set, each top row of a Flat or Tree result gets the id
// row_anchor(prefix, its `anchors.key` column's display text), for links to it (the
// report's "What to fix first" links a finding's subjects to the rows that name them).
struct RowAnchors {
  std::string prefix;  // "" = no ids
  std::string key;     // a column key of the result's schema
};
std::string html_tables(const Result& result, size_t max_rows = kMaxTableRows,
                        const RowAnchors& anchors = {});

// The id of the row whose key is `name`: prefix + name with every character outside
// [A-Za-z0-9_-] replaced by '_' (two names can meet: the first row wins a link).
std::string row_anchor(const std::string& prefix, const std::string& name);

}  // namespace clprof::output::report
