#include "output/views/report_table.hpp"

#include <cctype>
#include <set>
#include <vector>

#include "output/views/svg.hpp"

namespace clprof::output::report {

namespace {

using svg::escape;

bool numeric(Type t) {
  return t == Type::Int || t == Type::Duration || t == Type::Real || t == Type::Bytes;
}

// The columns of `schema` the page shows for `rows`: every column the table format can
// show, those shown "when known" only if a row knows them.
std::vector<size_t> page_columns(const Schema& schema, const std::vector<std::string>& options,
                                 const std::vector<const Row*>& rows) {
  std::vector<size_t> out;
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    const Column& col = schema.columns[c];
    if (col.type == Type::Rows || col.show == Show::Never || !column_enabled(col, options))
      continue;
    if (col.show == Show::WhenKnown) {
      bool known = false;
      for (const Row* r : rows) known |= !(*r)[c].is_null();
      if (!known) continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string table(const Schema& schema, const std::vector<std::string>& options,
                  const std::vector<const Row*>& all, size_t max_rows,
                  const RowAnchors& anchors = {}) {
  const size_t key = anchors.prefix.empty() ? Schema::npos : schema.find(anchors.key);
  std::set<std::string> ids;
  const std::vector<const Row*> rows(
      all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), max_rows)));
  const auto cols = page_columns(schema, options, rows);
  std::string h = "<div class=\"table-wrap\"><table class=\"sortable\" data-schema=\"" +
                  escape(schema.name) + "\"><thead><tr>";
  for (size_t c : cols) {
    const Column& col = schema.columns[c];
    const std::string tip = col.meaning + (col.unit.empty() ? "" : " [" + col.unit + "]");
    h += "<th data-type=\"" + std::string(numeric(col.type) ? "num" : "text") + "\"" +
         (col.align == Align::Right ? " class=\"num\"" : "") + " title=\"" + escape(tip) + "\">" +
         escape(col.header) + "</th>";
  }
  h += "</tr></thead><tbody>";
  for (const Row* r : rows) {
    std::string id;
    if (key != Schema::npos) {
      id = row_anchor(anchors.prefix, display_text(schema.columns[key], (*r)[key]));
      if (!ids.insert(id).second) id.clear();  // ids are unique: the first such row has it
    }
    h += id.empty() ? std::string("<tr>") : "<tr id=\"" + escape(id) + "\">";
    for (size_t c : cols) {
      const Column& col = schema.columns[c];
      const Value& v = (*r)[c];
      h += "<td";
      if (col.align == Align::Right) h += " class=\"num\"";
      if (numeric(col.type) && !v.is_null()) h += " data-v=\"" + escape(csv_text(col, v)) + "\"";
      h += ">" + escape(display_text(col, v)) + "</td>";
    }
    h += "</tr>";
  }
  h += "</tbody></table></div>";
  if (all.size() > rows.size())
    h += "<p class=\"note\">Showing the first " + std::to_string(rows.size()) + " of " +
         std::to_string(all.size()) +
         " rows (the CSV and JSON formats of the command give them all).</p>";
  return h;
}

std::string heading(const Schema& s, const Row& row) {
  std::string out;
  const std::string& t = s.heading;
  for (size_t i = 0; i < t.size();) {
    const size_t open = t.find('{', i),
                 close = open == std::string::npos ? open : t.find('}', open);
    if (close == std::string::npos) {
      out += t.substr(i);
      break;
    }
    out += t.substr(i, open - i);
    const size_t at = s.find(t.substr(open + 1, close - open - 1));
    out += at == Schema::npos ? t.substr(open, close - open + 1)
                              : display_text(s.columns[at], row[at]);
    i = close + 1;
  }
  return out;
}

std::string nested_tables(const Schema& s, const Row& row, const std::vector<std::string>& options,
                          size_t max_rows) {
  std::string h;
  for (size_t c = 0; c < s.columns.size(); ++c) {
    const Column& col = s.columns[c];
    if (col.type != Type::Rows || row[c].is_null() || !column_enabled(col, options) ||
        row[c].as_rows().empty())
      continue;
    std::vector<const Row*> kids;
    for (const Row& k : row[c].as_rows()) kids.push_back(&k);
    h += table(*col.nested, options, kids, max_rows);
  }
  return h;
}

}  // namespace

std::string row_anchor(const std::string& prefix, const std::string& name) {
  std::string id = prefix;
  for (const char ch : name)
    id += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-') ? ch : '_';
  return id;
}

std::string html_tables(const Result& r, size_t max_rows, const RowAnchors& anchors) {
  const Schema& s = *r.schema;
  std::vector<Row> held;
  Row scratch;
  for (size_t i = 0; i < r.size(); ++i) held.push_back(r.row(i, scratch));
  std::vector<const Row*> rows;
  for (const Row& row : held) rows.push_back(&row);
  std::string h;
  if (s.layout == Layout::Sections) {
    for (const Row* row : rows)
      h +=
          "<h4>" + escape(heading(s, *row)) + "</h4>" + nested_tables(s, *row, r.options, max_rows);
  } else if (s.layout == Layout::Record) {
    for (const Row* row : rows) {
      h += "<table class=\"kv\"><tbody>";
      for (size_t c = 0; c < s.columns.size(); ++c) {
        const Column& col = s.columns[c];
        if (col.type == Type::Rows || col.show == Show::Never || !column_enabled(col, r.options))
          continue;
        h += "<tr><th>" + escape(col.label.empty() ? col.header : col.label) + "</th><td>" +
             escape(display_text(col, (*row)[c])) +
             (col.type == Type::Real && !col.unit.empty() && !(*row)[c].is_null()
                  ? " " + escape(col.unit)
                  : "") +
             "</td></tr>";
      }
      h += "</tbody></table>" + nested_tables(s, *row, r.options, max_rows);
    }
  } else {
    h = table(s, r.options, rows, max_rows, anchors);
  }
  for (const auto& n : r.notes) h += "<p class=\"note\">" + escape(n) + "</p>";
  return h;
}

}  // namespace clprof::output::report
