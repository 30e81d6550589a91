// A command's result — rows of one Schema, typed values — and its four renderings: the
// table (terminal), CSV, JSON and markdown, all derived from the schema's columns.
//
//   table     the columns the schema shows (Column::show; --wide: all of them), display
//             units (1.234 us, 4.0 KiB), "-" for unknown, shrinkable columns shortened to
//             the width, then the result's notes
//   markdown  the same as a GitHub table
//   csv       every column, raw values (integer ns, %.17g reals), empty for unknown; nested
//             rows flattened: a row's line, then one line per nested row (docs/cli.md)
//   json      every column, typed, null for unknown; nested rows as arrays of objects; an
//             array of objects, or one object for a `single` schema
// Single-threaded; rows are rendered as they are written out, never held as text.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "format.hpp"
#include "output/columns.hpp"
#include "output/text_grid.hpp"
#include "output/value.hpp"

namespace clprof::output {

// Rows produced on demand, for results too large to hold as values: `fill` sets `row` to
// the values of row `index` (one per column; the vector is reused between calls).
struct RowSource {
  size_t count = 0;
  std::function<void(size_t index, Row& row)> fill;
};

struct Result {
  explicit Result(const Schema& s) : schema(&s) {}
  const Schema* schema;
  std::vector<Row> rows;  // the rows, unless `source` is set
  RowSource source;       // rows on demand (schemas without nested rows)
  // The options given that switch optional columns on (Column::option), e.g. "--speedup".
  std::vector<std::string> options;
  // Lines printed after the table in the table and markdown formats (totals, footnotes).
  std::vector<std::string> notes;
  // Which rows, in which order (set by order_rows); empty with `ordered` false: all, as given.
  std::vector<size_t> order;
  bool ordered = false;

  size_t size() const;                           // rows shown
  const Row& row(size_t i, Row& scratch) const;  // the i-th row shown
};

// Throws std::logic_error unless `row` has one value per column of `schema`, nulls only in
// nullable columns (or columns `options` leave out) and nested rows (checked the same way)
// exactly in Rows columns: a row
// builder that disagrees with its schema is a bug, never an empty or shifted row.
// Result::row checks every row it hands a renderer.
void check_row_shape(const Schema& schema, const Row& row,
                     const std::vector<std::string>& options = {});

// -1, 0, 1 comparing two values of column `c` in its sort direction (order_rows' order);
// unknown (null) last.
int compare_values(const Column& c, const Value& a, const Value& b);

// Sorts the rows by the column `column` (Column::sort: numbers descending, texts ascending;
// unknown values last; ties keep the given order) and keeps the first `top` (0 = all).
void order_rows(Result& result, size_t column, size_t top);
// Keeps the first `top` rows (0 = all), in the given order.
void keep_top(Result& result, size_t top);

struct RenderOptions {
  Format format = Format::Table;
  size_t width = SIZE_MAX;  // table: the line width to fit (SIZE_MAX: no shortening)
  bool wide = false;        // table: every column
};

// Renders `result` piece by piece into `sink`.
void render(const Result& result, const RenderOptions& options, const TextSink& sink);
// The whole rendering as one string.
std::string render_to_string(const Result& result, const RenderOptions& options);

// A value as the table shows it in `column` ("-" for unknown).
std::string display_text(const Column& column, const Value& value);
// A value as CSV holds it ("" for unknown).
std::string csv_text(const Column& column, const Value& value);
// `text` as a CSV field: quoted (quotes doubled) when it holds a comma, quote or line break.
std::string csv_field(const std::string& text);

}  // namespace clprof::output
