// A rectangular result (columns + rows of cells) rendered as an aligned text table, CSV
// or a markdown table. Every cell carries two texts: `display` for humans (adaptive units)
// and `raw` for machines (integer ns, full-precision numbers) used by CSV.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/format.hpp"

namespace clprof::output {

enum class Align { Left, Right };

// How a shrinkable column is shortened: Middle keeps both ends ("gemmlowp..rhs_t", kernel
// names), Head keeps the tail ("../conv2/relu", layer paths, whose innermost part matters).
enum class Shorten { Middle, Head };

struct Column {
  std::string header;  // shown in table and markdown
  std::string key;     // CSV header (the JSON field name)
  Align align = Align::Right;
  bool shrinkable = false;  // may be shortened to fit the terminal width
  Shorten shorten = Shorten::Middle;
  size_t min_width = 16;  // a shrinkable column is never shortened below this (or its header)
};

struct Cell {
  std::string display;
  std::string raw;
};

// Cell constructors. A nullopt value renders as "-" (empty in CSV).
Cell text_cell(std::string text);
Cell int_cell(std::optional<int64_t> value);
Cell ns_cell(std::optional<int64_t> ns);
Cell fixed_cell(std::optional<double> value, int decimals);  // raw keeps full precision
Cell bytes_cell(uint64_t bytes);

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // Appends a row; it must have exactly one cell per column.
  void add_row(std::vector<Cell> row);
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// Aligned columns separated by two spaces, a header line and a dashed rule; shrinkable
// columns are shortened so that lines fit in `width` characters when possible.
std::string render_text(const Table& table, size_t width = 80);
// RFC 4180 CSV with the column keys as header and raw cell values.
std::string render_csv(const Table& table);
// A GitHub-flavoured markdown table with display values ('|' escaped).
std::string render_markdown(const Table& table);
// render_text, render_csv or render_markdown by format (Json is not a table format).
std::string render(const Table& table, Format format, size_t width = 80);

// Rows produced on demand, for results too large to hold as a Table: fills `row` with the
// cells of row `index` (one per column; `row` is reused between calls).
using RowSource = std::function<void(size_t index, std::vector<Cell>& row)>;
// Receives the rendered text piece by piece.
using TextSink = std::function<void(std::string_view text)>;
// Renders `count` rows of `source` like render() but without keeping them: the text
// format asks each row twice (column widths, then the lines), CSV and markdown once.
void render_stream(const std::vector<Column>& columns, size_t count, const RowSource& source,
                   Format format, size_t width, const TextSink& sink);

// Characters (code points) in UTF-8 `text`: its width in a terminal, wide East Asian
// characters aside.
size_t display_width(std::string_view text);
// `text` with its control characters made visible: \n, \t, \r, and \xHH for the rest
// (and DEL), so that a name from the trace keeps to its row and sends the terminal nothing.
std::string visible_text(std::string_view text);
// Shortens `text` to `width` characters by replacing its middle with "..".
std::string shorten_middle(const std::string& text, size_t width);
// Shortens `text` to `width` characters by replacing its beginning with ".."; a '/'-separated
// path is cut at a separator when that keeps at least half of the width ("../conv2/relu").
std::string shorten_head(const std::string& text, size_t width);
// The distinct `texts` of one column as shown in `width` characters, in the same order: each
// shortened the column's way (`how`), except texts that would then read the same as another
// one (clpeak's "global_bandwidth_v1_global_offset" and "..._v2_..." both became
// "global_bandwi..lobal_offset"): those are shortened another way that tells them apart
// (keeping the end, the part where they differ, or the start), or shown whole if none does.
std::vector<std::string> shorten_column(const std::vector<std::string>& texts, size_t width,
                                        Shorten how);

}  // namespace clprof::output
