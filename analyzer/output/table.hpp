// A rectangular result (columns + rows of cells) rendered as an aligned text table, CSV
// or a markdown table. Every cell carries two texts: `display` for humans (adaptive units)
// and `raw` for machines (integer ns, full-precision numbers) used by CSV.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "output/format.hpp"

namespace clprof::output {

enum class Align { Left, Right };

struct Column {
  std::string header;  // shown in table and markdown
  std::string key;     // CSV header (the JSON field name)
  Align align = Align::Right;
  bool shrinkable = false;  // may be shortened (middle ellipsis) to fit the terminal width
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

// Shortens `text` to `width` characters by replacing its middle with "..".
std::string shorten_middle(const std::string& text, size_t width);

}  // namespace clprof::output
