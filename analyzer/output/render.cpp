#include "output/render.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "output/json_writer.hpp"

namespace clprof::output {

size_t Result::size() const {
  if (ordered) return order.size();
  return source.fill ? source.count : rows.size();
}

const Row& Result::row(size_t i, Row& scratch) const {
  const size_t k = ordered ? order[i] : i;
  if (!source.fill) return rows[k];
  scratch.clear();
  source.fill(k, scratch);
  if (scratch.size() != schema->columns.size()) throw std::logic_error("result row has the wrong width");
  return scratch;
}

namespace {

std::string integer_text(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Int: return std::to_string(v.as_int());
    case Value::Kind::Uint: return std::to_string(v.as_uint());
    case Value::Kind::Bool: return v.as_bool() ? "1" : "0";
    case Value::Kind::Real: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", v.as_real());
      return buf;
    }
    case Value::Kind::Text: return v.as_text();
    default: return "";
  }
}

int64_t as_int64(const Value& v) {
  if (v.kind() == Value::Kind::Uint) return static_cast<int64_t>(v.as_uint());
  if (v.kind() == Value::Kind::Int) return v.as_int();
  return static_cast<int64_t>(v.number().value_or(0));
}

// The shortest text that reads back as the same double ("1.5", "0.1", "1e+30").
std::string shortest_real(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

// A value of a list as text: numbers as numbers (reals shortest), texts as they are.
std::string plain_text(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return "-";
    case Value::Kind::Real: return std::isfinite(v.as_real()) ? shortest_real(v.as_real()) : "-";
    default: return integer_text(v);
  }
}

std::string dims_text(const Value& v) {
  std::string s;
  for (const auto& d : v.as_list()) s += (s.empty() ? "" : "x") + plain_text(d);
  return s;
}

// One kernel argument (a list whose first item names its kind, docs/cli.md) as "64",
// "1.5", "0x0a0b", "buf#3", "local:256", ...
std::string arg_text(const Value& a) {
  if (a.kind() != Value::Kind::List || a.as_list().empty()) return plain_text(a);
  const auto& l = a.as_list();
  const std::string kind = l[0].kind() == Value::Kind::Text ? l[0].as_text() : "";
  auto item = [&](size_t i) { return i < l.size() ? plain_text(l[i]) : std::string("?"); };
  if (kind == "scalar") return l.size() > 3 && !l[3].is_null() ? item(3) : "0x" + item(2);
  if (kind == "buffer") return "buf#" + item(2);
  if (kind == "image") return "img#" + item(2);
  if (kind == "pipe") return "pipe#" + item(2);
  if (kind == "local") return "local:" + item(1);
  if (kind == "svm") return "svm:" + item(2);
  if (kind == "sampler") return "smp#" + item(2);
  return kind;
}

std::string args_text(const Value& v) {
  std::string s;
  for (const auto& a : v.as_list()) s += (s.empty() ? "" : " ") + arg_text(a);
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

}  // namespace

std::string display_text(const Column& c, const Value& v) {
  if (v.is_null()) return "-";
  switch (c.type) {
    case Type::Text: return v.kind() == Value::Kind::Text ? v.as_text() : plain_text(v);
    case Type::Int: return integer_text(v);
    case Type::Duration: return format_ns(as_int64(v));
    case Type::Real: {
      const auto d = v.number();
      if (!d || !std::isfinite(*d)) return "-";
      return c.decimals >= 0 ? format_fixed(*d, c.decimals) : format_general(*d);
    }
    case Type::Bytes: return format_bytes(static_cast<uint64_t>(as_int64(v)));
    case Type::Bool: return v.kind() == Value::Kind::Bool ? (v.as_bool() ? "yes" : "no") : plain_text(v);
    case Type::Dims: return v.kind() == Value::Kind::List ? dims_text(v) : plain_text(v);
    case Type::Args: return v.kind() == Value::Kind::List ? args_text(v) : plain_text(v);
    case Type::Rows: return "";
  }
  return "";
}

std::string csv_text(const Column& c, const Value& v) {
  if (v.is_null()) return "";
  switch (c.type) {
    case Type::Real: {
      const auto d = v.number();
      if (!d || !std::isfinite(*d)) return "";
      char buf[64];
      // %.17g round-trips a double: CSV consumers get the exact value computed.
      std::snprintf(buf, sizeof buf, "%.17g", *d);
      return buf;
    }
    case Type::Bool: return v.kind() == Value::Kind::Bool ? (v.as_bool() ? "true" : "false") : integer_text(v);
    case Type::Dims:
    case Type::Args: return display_text(c, v);
    case Type::Rows: return "";
    default: return v.kind() == Value::Kind::Real ? plain_text(v) : integer_text(v);
  }
}

// ---- sorting ----

namespace {

// -1, 0, 1 comparing two values of one column in the column's sort direction; unknown last.
int compare(const Column& c, const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : a.is_null() ? 1 : -1;
  int r = 0;
  if (a.kind() == Value::Kind::Text && b.kind() == Value::Kind::Text) {
    r = a.as_text().compare(b.as_text());
    r = r < 0 ? -1 : r > 0 ? 1 : 0;
  } else if (a.kind() == Value::Kind::Int && b.kind() == Value::Kind::Int) {
    r = a.as_int() < b.as_int() ? -1 : a.as_int() > b.as_int() ? 1 : 0;
  } else if (a.kind() == Value::Kind::Uint && b.kind() == Value::Kind::Uint) {
    r = a.as_uint() < b.as_uint() ? -1 : a.as_uint() > b.as_uint() ? 1 : 0;
  } else {
    const double x = a.number().value_or(0), y = b.number().value_or(0);
    r = x < y ? -1 : x > y ? 1 : 0;
  }
  return c.sort == SortOrder::Descending ? -r : r;
}

}  // namespace

void order_rows(Result& result, size_t column, size_t top) {
  const Column& c = result.schema->columns.at(column);
  const size_t n = result.size();
  std::vector<std::pair<Value, size_t>> keys;
  keys.reserve(n);
  Row scratch;
  for (size_t i = 0; i < n; ++i) {
    const Row& r = result.row(i, scratch);
    keys.emplace_back(r[column], result.ordered ? result.order[i] : i);
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [&c](const auto& x, const auto& y) { return compare(c, x.first, y.first) < 0; });
  result.order.clear();
  result.order.reserve(n);
  for (const auto& k : keys) result.order.push_back(k.second);
  result.ordered = true;
  keep_top(result, top);
}

void keep_top(Result& result, size_t top) {
  if (top == 0 || top >= result.size()) return;
  if (!result.ordered) {
    result.order.resize(top);
    for (size_t i = 0; i < top; ++i) result.order[i] = i;
    result.ordered = true;
  } else {
    result.order.resize(top);
  }
}

// ---- table and markdown ----

namespace {

bool shown(const Column& c, const Result& r, const RenderOptions& o) {
  if (c.type == Type::Rows || !column_enabled(c, r.options)) return false;
  return c.show == Show::Always || c.show == Show::WhenKnown || (c.show == Show::Wide && o.wide);
}

// Show::WhenKnown columns of `r` without a value in any row (rows on demand: never hidden).
std::vector<bool> unknown_columns(const Result& r) {
  const Schema& s = *r.schema;
  std::vector<bool> hide(s.columns.size(), false);
  bool any = false;
  for (size_t c = 0; c < s.columns.size(); ++c) any |= hide[c] = s.columns[c].show == Show::WhenKnown;
  if (!any || r.source.fill) return std::vector<bool>(s.columns.size(), false);
  Row scratch;
  for (size_t i = 0; i < r.size(); ++i) {
    const Row& row = r.row(i, scratch);
    for (size_t c = 0; c < s.columns.size(); ++c)
      if (hide[c] && !row[c].is_null()) hide[c] = false;
  }
  return hide;
}

GridColumn grid_column(const Column& c) {
  return GridColumn{c.header, c.align, c.shrinkable, c.shorten, c.min_width};
}

// A table column: where its value comes from in a row (parent) and in a nested row.
struct TableColumn {
  const Column* column;
  size_t at = Schema::npos;         // in the parent row
  size_t nested_at = Schema::npos;  // in the nested row (Tree)
  size_t mark = Schema::npos, nested_mark = Schema::npos;
};

// The rows of a Tree, as (parent index, nested index or npos).
struct TreeLine {
  size_t parent;
  size_t child;
};

std::string marked(const Column& c, std::string text, const Row& row, size_t mark) {
  if (mark != Schema::npos && mark < row.size() && row[mark].kind() == Value::Kind::Bool &&
      row[mark].as_bool())
    text += "*";
  (void)c;
  return text;
}

void render_grid(const Result& r, const RenderOptions& o, const TextSink& sink);

void render_rows_table(const Schema& schema, const std::vector<Row>& rows, const Result& parent,
                       const RenderOptions& o, const TextSink& sink) {
  Result sub(schema);
  sub.rows = rows;
  sub.options = parent.options;
  render_grid(sub, o, sink);
}

std::string heading_text(const Schema& s, const Row& row) {
  std::string out;
  const std::string& h = s.heading;
  for (size_t i = 0; i < h.size();) {
    if (h[i] == '{') {
      const size_t end = h.find('}', i);
      if (end != std::string::npos) {
        const size_t at = s.find(h.substr(i + 1, end - i - 1));
        if (at != Schema::npos) {
          out += display_text(s.columns[at], row[at]);
          i = end + 1;
          continue;
        }
      }
    }
    out += h[i++];
  }
  return out;
}

void render_grid(const Result& r, const RenderOptions& o, const TextSink& sink) {
  const Schema& s = *r.schema;
  const bool md = o.format == Format::Markdown;
  Row scratch;
  if (s.layout == Layout::Sections || s.layout == Layout::Record) {
    Buffered out(sink);
    for (size_t i = 0; i < r.size(); ++i) {
      const Row& row = r.row(i, scratch);
      if (s.layout == Layout::Sections) {
        out.text() += (md ? "### " : "") + heading_text(s, row) + "\n\n";
      } else {
        // "Label  value" lines: the row's plain columns.
        std::vector<GridColumn> kv = {{"", Align::Left}, {"", Align::Left}};
        std::vector<std::vector<std::string>> lines;
        for (const auto& c : s.columns) {
          if (c.type == Type::Rows || c.show == Show::Never || !column_enabled(c, r.options)) continue;
          const size_t at = &c - s.columns.data();
          std::string v = display_text(c, row[at]);
          if (!row[at].is_null() && (c.type == Type::Real || c.type == Type::Int) && !c.unit.empty() &&
              c.unit != "ns" && c.unit != "bytes")
            v += " " + c.unit;
          lines.push_back({c.label.empty() ? c.header : c.label, v});
        }
        std::string text;
        auto grid_rows = [&lines](size_t k) -> const std::vector<std::string>& { return lines[k]; };
        auto collect = [&text](std::string_view t) { text.append(t); };
        if (md) render_grid_markdown(kv, lines.size(), grid_rows, collect);
        else render_grid_text(kv, lines.size(), grid_rows, o.width, collect);
        // The key/value table reads better without its empty header.
        if (!md) text = text.substr(text.find('\n', text.find('\n') + 1) + 1);
        out.text() += text;
      }
      for (size_t c = 0; c < s.columns.size(); ++c) {
        const Column& col = s.columns[c];
        if (col.type != Type::Rows || row[c].is_null() || !column_enabled(col, r.options)) continue;
        if (s.layout == Layout::Record && row[c].as_rows().empty()) continue;
        if (s.layout == Layout::Record) out.text() += "\n";
        out.flush();
        render_rows_table(*col.nested, row[c].as_rows(), r, o, sink);
        if (s.layout == Layout::Sections) out.text() += "\n";
      }
      out.line_done();
    }
    out.flush();
    return;
  }
  // Flat or Tree: the parent's shown columns, then (Tree) the nested rows' shown columns
  // that the parent lacks; nested values go under the parent's column of the same key, the
  // nested label under the parent's label.
  std::vector<TableColumn> cols;
  const std::vector<bool> hidden = unknown_columns(r);
  const Schema* child = nullptr;
  size_t child_at = Schema::npos;
  if (s.layout == Layout::Tree)
    for (size_t c = 0; c < s.columns.size() && !child; ++c)
      if (s.columns[c].type == Type::Rows && column_enabled(s.columns[c], r.options)) {
        child = s.columns[c].nested;
        child_at = c;
      }
  for (size_t c = 0; c < s.columns.size(); ++c) {
    if (!shown(s.columns[c], r, o) || hidden[c]) continue;
    TableColumn t{&s.columns[c], c};
    if (!s.columns[c].mark_if.empty()) t.mark = s.find(s.columns[c].mark_if);
    if (child) {
      t.nested_at = c == s.label ? child->label : child->find(s.columns[c].key);
      if (t.nested_at != Schema::npos && !shown(child->columns[t.nested_at], r, o) && c != s.label)
        t.nested_at = Schema::npos;
      if (t.nested_at != Schema::npos && !child->columns[t.nested_at].mark_if.empty())
        t.nested_mark = child->find(child->columns[t.nested_at].mark_if);
    }
    cols.push_back(t);
  }
  if (child)
    for (size_t c = 0; c < child->columns.size(); ++c) {
      const Column& cc = child->columns[c];
      if (c == child->label || !shown(cc, r, o) || s.find(cc.key) != Schema::npos) continue;
      // Before the first column that follows it in the nested rows' own order.
      auto at = cols.end();
      for (auto it = cols.begin(); it != cols.end() && at == cols.end(); ++it)
        if (it->nested_at != Schema::npos && it->nested_at > c && it->at != s.label) at = it;
      cols.insert(at, TableColumn{&cc, Schema::npos, c});
    }
  std::vector<GridColumn> grid;
  for (const auto& t : cols) grid.push_back(grid_column(*t.column));
  // Lines: (row, nested row or npos).
  std::vector<TreeLine> lines;
  std::vector<Row> parents;  // Tree: rows kept for their nested rows
  if (child) {
    for (size_t i = 0; i < r.size(); ++i) {
      parents.push_back(r.row(i, scratch));
      lines.push_back({i, Schema::npos});
      const Value& kids = parents.back()[child_at];
      if (!kids.is_null())
        for (size_t k = 0; k < kids.as_rows().size(); ++k) lines.push_back({i, k});
    }
  }
  std::vector<std::string> texts(cols.size());
  auto line_texts = [&](size_t index) -> const std::vector<std::string>& {
    if (!child) {
      const Row& row = r.row(index, scratch);
      for (size_t c = 0; c < cols.size(); ++c)
        texts[c] = marked(*cols[c].column, display_text(*cols[c].column, row[cols[c].at]), row, cols[c].mark);
      return texts;
    }
    const TreeLine& l = lines[index];
    const Row& parent = parents[l.parent];
    if (l.child == Schema::npos) {
      for (size_t c = 0; c < cols.size(); ++c)
        texts[c] = cols[c].at == Schema::npos
                       ? std::string()
                       : marked(*cols[c].column, display_text(*cols[c].column, parent[cols[c].at]), parent,
                                cols[c].mark);
      return texts;
    }
    const Row& row = parent[child_at].as_rows()[l.child];
    for (size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].nested_at == Schema::npos) {
        texts[c].clear();
        continue;
      }
      const Column& cc = child->columns[cols[c].nested_at];
      texts[c] = marked(cc, display_text(cc, row[cols[c].nested_at]), row, cols[c].nested_mark);
      if (cols[c].at == s.label) texts[c] = "  " + texts[c];
    }
    return texts;
  };
  const size_t count = child ? lines.size() : r.size();
  if (md) render_grid_markdown(grid, count, line_texts, sink);
  else render_grid_text(grid, count, line_texts, o.width, sink);
}

// ---- CSV ----

// A CSV field: its name and, per nesting level, the column it comes from (npos: none).
struct CsvField {
  std::string name;
  std::vector<size_t> at;
};

struct CsvLevels {
  std::vector<const Schema*> schemas;  // level 0 = the result's schema
  std::vector<size_t> rows_at;         // per level but the last: its flattened Rows column
  std::vector<CsvField> fields;
  std::vector<size_t> label_field;  // per level: the field of its label (npos: none)
};

CsvLevels csv_levels(const Result& r) {
  CsvLevels L;
  const Schema* s = r.schema;
  std::string label_name = s->label < s->columns.size() ? s->columns[s->label].key : "";
  std::vector<std::string> label_names;
  while (s) {
    L.schemas.push_back(s);
    label_names.push_back(s->label < s->columns.size() ? label_name : "");
    const Schema* next = nullptr;
    for (size_t c = 0; c < s->columns.size(); ++c) {
      const Column& col = s->columns[c];
      if (col.type == Type::Rows && col.flatten && column_enabled(col, r.options)) {
        next = col.nested;
        L.rows_at.push_back(c);
        label_name = !col.csv_label.empty()           ? col.csv_label
                     : next->label < next->columns.size() ? next->columns[next->label].key
                                                         : "";
        break;
      }
    }
    s = next;
  }
  const size_t depth = L.schemas.size();
  auto add = [&](const std::string& name) {
    L.fields.push_back(CsvField{name, std::vector<size_t>(depth, Schema::npos)});
    return L.fields.size() - 1;
  };
  L.label_field.assign(depth, Schema::npos);
  for (size_t d = 0; d < depth; ++d)
    if (!label_names[d].empty()) {
      L.label_field[d] = add(label_names[d]);
      L.fields[L.label_field[d]].at[d] = L.schemas[d]->label;
    }
  for (size_t d = 0; d < depth; ++d) {
    const Schema& sd = *L.schemas[d];
    for (size_t c = 0; c < sd.columns.size(); ++c) {
      const Column& col = sd.columns[c];
      if (c == sd.label || col.type == Type::Rows || !column_enabled(col, r.options)) continue;
      size_t f = 0;
      while (f < L.fields.size() && L.fields[f].name != col.key) ++f;
      if (f == L.fields.size()) f = add(col.key);
      L.fields[f].at[d] = c;
    }
  }
  return L;
}

// The lines of `row` (at `depth`, below `outer`) and of its nested rows.
void csv_lines(const CsvLevels& L, bool leaves, std::vector<const Row*>& outer, const Row& row, Buffered& out) {
  const size_t depth = outer.size();
  const Value* kids = depth + 1 < L.schemas.size() ? &row[L.rows_at[depth]] : nullptr;
  const bool has_kids = kids && !kids->is_null() && !kids->as_rows().empty();
  if (!leaves || !has_kids) {
    for (size_t f = 0; f < L.fields.size(); ++f) {
      if (f) out.text() += ',';
      const CsvField& field = L.fields[f];
      // From this row, else (labels, or every field for leaf lines) from the innermost
      // outer row that has it.
      std::string text;
      if (field.at[depth] != Schema::npos) {
        text = csv_text(L.schemas[depth]->columns[field.at[depth]], row[field.at[depth]]);
      } else {
        for (size_t d = depth; d-- > 0;) {
          if (field.at[d] == Schema::npos || (!leaves && L.label_field[d] != f)) continue;
          text = csv_text(L.schemas[d]->columns[field.at[d]], (*outer[d])[field.at[d]]);
          break;
        }
      }
      out.text() += csv_field(text);
    }
    out.text() += '\n';
    out.line_done();
  }
  if (!has_kids) return;
  outer.push_back(&row);
  for (const Row& k : kids->as_rows()) csv_lines(L, leaves, outer, k, out);
  outer.pop_back();
}

void render_csv(const Result& r, const TextSink& sink) {
  const CsvLevels L = csv_levels(r);
  Buffered out(sink);
  for (size_t f = 0; f < L.fields.size(); ++f) out.text() += (f ? "," : "") + csv_field(L.fields[f].name);
  out.text() += '\n';
  Row scratch;
  std::vector<const Row*> outer;
  for (size_t i = 0; i < r.size(); ++i) csv_lines(L, r.schema->csv_leaves, outer, r.row(i, scratch), out);
  out.flush();
}

// ---- JSON ----

void json_value(JsonWriter& j, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: j.null(); break;
    case Value::Kind::Bool: j.value(v.as_bool()); break;
    case Value::Kind::Int: j.value(v.as_int()); break;
    case Value::Kind::Uint: j.value(v.as_uint()); break;
    case Value::Kind::Real: j.value(v.as_real()); break;
    case Value::Kind::Text: j.value(v.as_text()); break;
    case Value::Kind::List:
      j.begin_array();
      for (const auto& x : v.as_list()) json_value(j, x);
      j.end_array();
      break;
    case Value::Kind::Rows: j.null(); break;  // written by json_row
  }
}

void json_row(JsonWriter& j, const Schema& s, const Row& row, const std::vector<std::string>& options) {
  j.begin_object();
  for (size_t c = 0; c < s.columns.size(); ++c) {
    const Column& col = s.columns[c];
    if (!column_enabled(col, options)) continue;
    j.key(col.key);
    if (col.type == Type::Rows && !row[c].is_null()) {
      j.begin_array();
      for (const Row& k : row[c].as_rows()) json_row(j, *col.nested, k, options);
      j.end_array();
    } else if (col.type == Type::Real && !row[c].is_null()) {
      j.value(row[c].number().value_or(0));
    } else {
      json_value(j, row[c]);
    }
  }
  j.end_object();
}

void render_json(const Result& r, const TextSink& sink) {
  JsonWriter j;
  Row scratch;
  if (r.schema->single) {
    if (r.size() != 1) throw std::logic_error("a single-object result needs exactly one row");
    json_row(j, *r.schema, r.row(0, scratch), r.options);
    sink(j.str());
    return;
  }
  j.begin_array();
  for (size_t i = 0; i < r.size(); ++i) {
    json_row(j, *r.schema, r.row(i, scratch), r.options);
    if (i % 1024 == 1023) sink(j.drain());
  }
  j.end_array();
  sink(j.drain() + "\n");
}

}  // namespace

void render(const Result& result, const RenderOptions& options, const TextSink& sink) {
  switch (options.format) {
    case Format::Json: render_json(result, sink); return;
    case Format::Csv: render_csv(result, sink); return;
    case Format::Table:
    case Format::Markdown: {
      RenderOptions o = options;
      if (o.wide) o.width = SIZE_MAX;
      render_grid(result, o, sink);
      if (!result.notes.empty()) {
        std::string text = "\n";
        for (const auto& n : result.notes) text += n + "\n";
        sink(text);
      }
      return;
    }
  }
}

std::string render_to_string(const Result& result, const RenderOptions& options) {
  std::string out;
  render(result, options, [&out](std::string_view s) { out.append(s); });
  return out;
}

}  // namespace clprof::output
