// The one column model every command's output is declared in. A Schema lists a row's
// columns once — key, type, unit, one-line meaning, plus how the table shows it — and every
// format is derived from it: the table, CSV, JSON and markdown renderers (output/render.hpp),
// --sort's field list, `CMD --help`'s field list, docs/cli.md's column tables and the JSON
// Schemas under docs/schema/ (output/schema_doc.hpp).
//
// Schemas are built once (static) by each command's table (output/tables/) and never change;
// not thread-safe to build, safe to read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clprof::output {

enum class Type : uint8_t {
  Text,      // a string
  Int,       // an integer shown as is (counts, ids, sequence numbers, raw device timestamps)
  Duration,  // integer nanoseconds; the table shows an adaptive unit (950 ns, 1.234 us)
  Real,      // a real number; the table shows `decimals` fixed decimals (4 significant
             // digits when decimals < 0), CSV the full precision (%.17g)
  Bytes,     // an integer byte count; the table shows a binary unit (4.0 KiB)
  Bool,      // true / false
  Dims,      // a list of integers (work sizes): JSON array, table and CSV "16x8"
  Args,      // a list of kernel arguments, each a list ["scalar", size, hex, value],
             // ["buffer", size, id, bytes], ... (docs/cli.md); the table shows "64 buf#3"
  Rows,      // nested rows of another schema (a layer's kernels)
};

// Where a column appears in the table and markdown formats (CSV and JSON have every column).
enum class Show : uint8_t {
  Always,     // in the default table
  Wide,       // only with --wide
  Never,      // never in the table (machine formats only)
  WhenKnown,  // in the default table when a row has a value for it
};

enum class Align : uint8_t { Left, Right };

// How a shrinkable column is shortened: Middle keeps both ends ("gemmlowp..rhs_t", kernel
// names), Head keeps the tail ("../conv2/relu", layer paths, whose innermost part matters).
// Tail keeps the head ("queue 1 (pthread-s..", group labels whose id comes first).
enum class Shorten : uint8_t { Middle, Head, Tail };

// How --sort orders a column: numbers descending (biggest first), names ascending.
enum class SortOrder : uint8_t { Descending, Ascending, None };

struct Schema;

struct Column {
  std::string key;     // JSON field and CSV header
  std::string header;  // table and markdown header
  Type type = Type::Text;
  std::string unit;         // "ns", "%", "GFLOPS", "bytes", ... ("" = none)
  std::string meaning;      // one line, for --help and docs/cli.md
  bool nullable = false;    // may be null (unknown): JSON null, CSV empty, table "-"
  std::string option;       // present only when this option is given ("--speedup"); "" = always
  std::string absent_with;  // left out when this option is given ("--no-kernels")
  Show show = Show::Always;
  Align align = Align::Right;
  bool shrinkable = false;  // the table may shorten it to fit the terminal width
  Shorten shorten = Shorten::Middle;
  size_t min_width = 16;  // a shrinkable column is never shortened below this (or its header)
  int decimals = 1;       // Real in the table
  SortOrder sort = SortOrder::Descending;
  std::vector<std::string> aliases;  // other --sort names for it
  std::string mark_if;               // table: append '*' to the text when this Bool column is true
  std::string label;                 // a longer name for key/value listings ("" = header)
  const Schema* nested = nullptr;    // Rows: the schema of the nested rows
  bool flatten = true;               // Rows: CSV has a line per nested row (false: left out of CSV,
                                     // for nested rows that only regroup the others)
  std::string csv_label;             // Rows: the CSV name of the nested rows' label column
  bool signed_text = false;          // table: a positive number shows its '+' (deltas)

  // Builders, so declarations read as one line per column.
  Column& allow_null() {
    nullable = true;
    return *this;
  }
  Column& only_with(std::string o) {
    option = std::move(o);
    return *this;
  }
  Column& unless(std::string o) {
    absent_with = std::move(o);
    return *this;
  }
  Column& wide() {
    show = Show::Wide;
    return *this;
  }
  Column& machine_only() {
    show = Show::Never;
    return *this;
  }
  Column& when_known() {
    show = Show::WhenKnown;
    return *this;
  }
  Column& left() {
    align = Align::Left;
    return *this;
  }
  Column& shrink(Shorten how = Shorten::Middle, size_t min = 16) {
    shrinkable = true;
    shorten = how;
    min_width = min;
    return *this;
  }
  Column& digits(int d) {
    decimals = d;
    return *this;
  }
  Column& with_sign() {
    signed_text = true;
    return *this;
  }
  Column& ascending() {
    sort = SortOrder::Ascending;
    return *this;
  }
  Column& unsortable() {
    sort = SortOrder::None;
    return *this;
  }
  Column& alias(std::string a) {
    aliases.push_back(std::move(a));
    return *this;
  }
  Column& marked_by(std::string bool_key) {
    mark_if = std::move(bool_key);
    return *this;
  }
  Column& labelled(std::string l) {
    label = std::move(l);
    return *this;
  }
  Column& not_in_csv() {
    flatten = false;
    return *this;
  }
  Column& csv_label_as(std::string k) {
    csv_label = std::move(k);
    return *this;
  }
};

// A column (the builders above refine it): text columns align left and sort ascending.
Column column(std::string key, std::string header, Type type, std::string unit,
              std::string meaning);
// A Rows column holding rows of `nested`.
Column nested(std::string key, std::string header, const Schema& nested, std::string meaning);

// How the table and markdown formats lay out rows with nested rows.
enum class Layout : uint8_t {
  Flat,      // one line per row (nested rows, if any, are not shown)
  Tree,      // each row, then its nested rows (the first Rows column) indented under it,
             // their values under the parent's columns of the same key
  Sections,  // per row: a heading (Schema::heading), then one table per Rows column
  Record,    // one row as "Label  value" lines, then one table per Rows column
};

struct Schema {
  std::string name;   // the command (docs/schema/<name>.schema.json)
  std::string view;   // the option that selects this view ("--group"; "" = default)
  std::string title;  // one line: what a row is
  std::vector<Column> columns;
  Layout layout = Layout::Flat;
  bool single = false;  // JSON: one object instead of an array of them
  size_t label = 0;     // index of the column that names a row (indented in a Tree)
  // CSV: a line per row at every level (false), or one per innermost row only, each
  // carrying its outer rows' values (true: one denormalised line per leaf).
  bool csv_leaves = false;
  // Sections: the heading of a row, with {key} replaced by that column's table text ("-" when
  // null); {key?} leaves a null out, with the space after it.
  std::string heading;
  // --sort names besides the columns (the command orders by them), with their meaning.
  std::vector<std::pair<std::string, std::string>> extra_sorts;
  std::string default_order;  // what the rows are ordered by without --sort

  // The index of the column named `key`, or npos.
  size_t find(const std::string& key) const;
  static constexpr size_t npos = static_cast<size_t>(-1);

  // Builders, as Column's, so a schema is declared in one expression (schema() below).
  Schema& ordered_by(std::string order) {
    default_order = std::move(order);
    return *this;
  }
  Schema& sorts_also(std::vector<std::pair<std::string, std::string>> sorts) {
    extra_sorts = std::move(sorts);
    return *this;
  }
  Schema& laid_out(Layout l) {
    layout = l;
    return *this;
  }
  Schema& labelled_at(size_t column) {
    label = column;
    return *this;
  }
  Schema& viewed_with(std::string option) {
    view = std::move(option);
    return *this;
  }
  Schema& one_object() {
    single = true;
    return *this;
  }
  Schema& csv_per_leaf() {
    csv_leaves = true;
    return *this;
  }
  Schema& headed(std::string h) {
    heading = std::move(h);
    return *this;
  }
};

// A schema named `name` (the command, or the export table), its rows `title`, its columns
// `columns`; the builders above set the rest.
Schema schema(std::string name, std::string title, std::vector<Column> columns);

// The columns of `schema` present when `options` are given (Column::option).
bool column_enabled(const Column& c, const std::vector<std::string>& options);

// The --sort field `name` resolves to in `schema`: a column key, a key without its "_ns"
// suffix, an alias, or an extra sort name. Returns the column index, Schema::npos for an
// extra sort (`extra` set to its name), or throws std::invalid_argument listing the fields.
size_t resolve_sort_field(const Schema& schema, const std::vector<std::string>& options,
                          const std::string& name, std::string& extra);
// Every --sort name of `schema` (for messages and --help).
std::vector<std::string> sort_fields(const Schema& schema, const std::vector<std::string>& options);

}  // namespace clprof::output
