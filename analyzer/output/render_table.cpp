#include <algorithm>

#include "output/render_parts.hpp"

namespace clprof::output {

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
  for (size_t c = 0; c < s.columns.size(); ++c)
    any |= hide[c] = s.columns[c].show == Show::WhenKnown;
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
        // {key?}: a field that may not apply to a row; null, it is left out with the space
        // after it (compare's findings have no statistic: "findings, new in ..."). A
        // plain {key} shows null as "-".
        std::string key = h.substr(i + 1, end - i - 1);
        const bool omit_null = !key.empty() && key.back() == '?';
        if (omit_null) key.pop_back();
        const size_t at = s.find(key);
        if (at != Schema::npos) {
          i = end + 1;
          if (!omit_null || !row[at].is_null())
            out += display_text(s.columns[at], row[at]);
          else if (i < h.size() && h[i] == ' ')
            ++i;
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
      if (s.layout == Layout::Record && i > 0) out.text() += "\n";  // several records
      if (s.layout == Layout::Sections) {
        out.text() += (md ? "### " : "") + heading_text(s, row) + "\n\n";
      } else {
        // "Label  value" lines: the row's plain columns.
        std::vector<GridColumn> kv = {{"", Align::Left}, {"", Align::Left}};
        std::vector<std::vector<std::string>> lines;
        for (const auto& c : s.columns) {
          if (c.type == Type::Rows || c.show == Show::Never || !column_enabled(c, r.options))
            continue;
          const size_t at = &c - s.columns.data();
          std::string v = display_text(c, row[at]);
          if (!row[at].is_null() && (c.type == Type::Real || c.type == Type::Int) &&
              !c.unit.empty() && c.unit != "ns" && c.unit != "bytes")
            v += " " + c.unit;
          lines.push_back({c.label.empty() ? c.header : c.label, v});
        }
        std::string text;
        auto grid_rows = [&lines](size_t k) -> const std::vector<std::string>& { return lines[k]; };
        auto collect = [&text](std::string_view t) { text.append(t); };
        if (md)
          render_grid_markdown(kv, lines.size(), grid_rows, collect);
        else
          render_grid_text(kv, lines.size(), grid_rows, o.width, collect);
        // The key/value table reads better without its empty header.
        if (!md) text = text.substr(text.find('\n', text.find('\n') + 1) + 1);
        out.text() += text;
      }
      for (size_t c = 0; c < s.columns.size(); ++c) {
        const Column& col = s.columns[c];
        if (col.type != Type::Rows || row[c].is_null() || !column_enabled(col, r.options)) continue;
        if (s.layout == Layout::Record && row[c].as_rows().empty()) continue;
        if (s.layout == Layout::Sections && row[c].as_rows().empty()) {
          out.text() += "(none)\n\n";  // not a header over no rows (compare's findings)
          continue;
        }
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
        texts[c] = marked(*cols[c].column, display_text(*cols[c].column, row[cols[c].at]), row,
                          cols[c].mark);
      return texts;
    }
    const TreeLine& l = lines[index];
    const Row& parent = parents[l.parent];
    if (l.child == Schema::npos) {
      for (size_t c = 0; c < cols.size(); ++c)
        texts[c] = cols[c].at == Schema::npos
                       ? std::string()
                       : marked(*cols[c].column, display_text(*cols[c].column, parent[cols[c].at]),
                                parent, cols[c].mark);
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
  if (md)
    render_grid_markdown(grid, count, line_texts, sink);
  else
    render_grid_text(grid, count, line_texts, o.width, sink);
}

}  // namespace

namespace detail {

void render_table(const Result& result, const RenderOptions& options, const TextSink& sink) {
  render_grid(result, options, sink);
}

}  // namespace detail

}  // namespace clprof::output
