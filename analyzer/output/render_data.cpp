#include <stdexcept>

#include "output/json_writer.hpp"
#include "output/render_parts.hpp"

namespace clprof::output {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

namespace {

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
        label_name = !col.csv_label.empty()               ? col.csv_label
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
  // Nested rows put every level's label first (layer, kernel, ...); a flat schema keeps its
  // column order, as the table and JSON do (kernels --by queue: queue, name, ...).
  const bool hoist_labels = depth > 1;
  for (size_t d = 0; d < depth && hoist_labels; ++d)
    if (!label_names[d].empty()) {
      L.label_field[d] = add(label_names[d]);
      L.fields[L.label_field[d]].at[d] = L.schemas[d]->label;
    }
  // One line per leaf carries every level's values: a key an inner level has too is
  // named after its own level's label there (a layer's count beside its kernel's count:
  // layer_count, count), instead of the inner value standing for both.
  auto inner_has = [&](size_t d, const std::string& key) {
    for (size_t e = d + 1; e < depth; ++e)
      for (const Column& col : L.schemas[e]->columns)
        if (col.key == key && col.type != Type::Rows && column_enabled(col, r.options)) return true;
    return false;
  };
  for (size_t d = 0; d < depth; ++d) {
    const Schema& sd = *L.schemas[d];
    for (size_t c = 0; c < sd.columns.size(); ++c) {
      const Column& col = sd.columns[c];
      if ((hoist_labels && c == sd.label) || col.type == Type::Rows ||
          !column_enabled(col, r.options))
        continue;
      const std::string name =
          r.schema->csv_leaves && !label_names[d].empty() && inner_has(d, col.key)
              ? label_names[d] + "_" + col.key
              : col.key;
      size_t f = 0;
      while (f < L.fields.size() && L.fields[f].name != name) ++f;
      if (f == L.fields.size()) f = add(name);
      L.fields[f].at[d] = c;
    }
  }
  return L;
}

// The lines of `row` (at `depth`, below `outer`) and of its nested rows.
void csv_lines(const CsvLevels& L, bool leaves, std::vector<const Row*>& outer, const Row& row,
               Buffered& out) {
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

void csv(const Result& r, const TextSink& sink) {
  const CsvLevels L = csv_levels(r);
  Buffered out(sink);
  for (size_t f = 0; f < L.fields.size(); ++f)
    out.text() += (f ? "," : "") + csv_field(L.fields[f].name);
  out.text() += '\n';
  Row scratch;
  std::vector<const Row*> outer;
  for (size_t i = 0; i < r.size(); ++i)
    csv_lines(L, r.schema->csv_leaves, outer, r.row(i, scratch), out);
  out.flush();
}

void json_value(JsonWriter& j, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null:
      j.null();
      break;
    case Value::Kind::Bool:
      j.value(v.as_bool());
      break;
    case Value::Kind::Int:
      j.value(v.as_int());
      break;
    case Value::Kind::Uint:
      j.value(v.as_uint());
      break;
    case Value::Kind::Real:
      j.value(v.as_real());
      break;
    case Value::Kind::Text:
      j.value(v.as_text());
      break;
    case Value::Kind::List:
      j.begin_array();
      for (const auto& x : v.as_list()) json_value(j, x);
      j.end_array();
      break;
    case Value::Kind::Rows:
      j.null();
      break;  // written by json_row
  }
}

void json_row(JsonWriter& j, const Schema& s, const Row& row,
              const std::vector<std::string>& options) {
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

void json(const Result& r, const TextSink& sink) {
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

namespace detail {

void render_csv(const Result& result, const TextSink& sink) {
  csv(result, sink);
}
void render_json(const Result& result, const TextSink& sink) {
  json(result, sink);
}

}  // namespace detail

}  // namespace clprof::output
