#include "output/render.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "output/render_parts.hpp"

namespace clprof::output {
size_t Result::size() const {
  if (ordered) return order.size();
  return source.fill ? source.count : rows.size();
}

void check_row_shape(const Schema& schema, const Row& row,
                     const std::vector<std::string>& options) {
  if (row.size() != schema.columns.size())
    throw std::logic_error("internal error: a row of '" + schema.name + "' has " +
                           std::to_string(row.size()) + " values, its schema declares " +
                           std::to_string(schema.columns.size()) + " columns");
  for (size_t c = 0; c < row.size(); ++c) {
    const Column& column = schema.columns[c];
    const Value& v = row[c];
    if (v.is_null()) {
      if (!column.nullable && column_enabled(column, options))
        throw std::logic_error("internal error: '" + schema.name + "." + column.key +
                               "' is null but not declared nullable");
      continue;
    }
    const bool rows_value = v.kind() == Value::Kind::Rows;
    if (rows_value != (column.type == Type::Rows))
      throw std::logic_error("internal error: '" + schema.name + "." + column.key +
                             (rows_value ? "' holds nested rows" : "' holds no nested rows"));
    if (rows_value && column.nested)
      for (const Row& nested : v.as_rows()) check_row_shape(*column.nested, nested, options);
  }
}

const Row& Result::row(size_t i, Row& scratch) const {
  const size_t k = ordered ? order[i] : i;
  if (!source.fill) {
    check_row_shape(*schema, rows[k], options);
    return rows[k];
  }
  scratch.clear();
  source.fill(k, scratch);
  check_row_shape(*schema, scratch, options);
  return scratch;
}

namespace {

std::string integer_text(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Int:
      return std::to_string(v.as_int());
    case Value::Kind::Uint:
      return std::to_string(v.as_uint());
    case Value::Kind::Bool:
      return v.as_bool() ? "1" : "0";
    case Value::Kind::Real: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", v.as_real());
      return buf;
    }
    case Value::Kind::Text:
      return v.as_text();
    default:
      return "";
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
    case Value::Kind::Null:
      return "-";
    case Value::Kind::Real:
      return std::isfinite(v.as_real()) ? shortest_real(v.as_real()) : "-";
    default:
      return integer_text(v);
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

}  // namespace

std::string display_text(const Column& c, const Value& v) {
  if (v.is_null()) return "-";
  if (c.signed_text) {
    const auto d = v.number();
    Column plain = c;
    plain.signed_text = false;
    const std::string text = display_text(plain, v);
    return d && *d > 0 && !text.empty() && text[0] != '+' ? "+" + text : text;
  }
  switch (c.type) {
    case Type::Text:
      return v.kind() == Value::Kind::Text ? v.as_text() : plain_text(v);
    case Type::Int:
      return integer_text(v);
    case Type::Duration:
      return format_ns(as_int64(v));
    case Type::Real: {
      const auto d = v.number();
      if (!d || !std::isfinite(*d)) return "-";
      return c.decimals >= 0 ? format_fixed(*d, c.decimals) : format_general(*d);
    }
    case Type::Bytes:
      return format_bytes(static_cast<uint64_t>(as_int64(v)));
    case Type::Bool:
      return v.kind() == Value::Kind::Bool ? (v.as_bool() ? "yes" : "no") : plain_text(v);
    case Type::Dims:
      return v.kind() == Value::Kind::List ? dims_text(v) : plain_text(v);
    case Type::Args:
      return v.kind() == Value::Kind::List ? args_text(v) : plain_text(v);
    case Type::Rows:
      return "";
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
    case Type::Bool:
      return v.kind() == Value::Kind::Bool ? (v.as_bool() ? "true" : "false") : integer_text(v);
    case Type::Dims:
    case Type::Args:
      return display_text(c, v);
    case Type::Rows:
      return "";
    default:
      return v.kind() == Value::Kind::Real ? plain_text(v) : integer_text(v);
  }
}

// ---- sorting ----

int compare_values(const Column& c, const Value& a, const Value& b) {
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
  std::stable_sort(keys.begin(), keys.end(), [&c](const auto& x, const auto& y) {
    return compare_values(c, x.first, y.first) < 0;
  });
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

void render(const Result& result, const RenderOptions& options, const TextSink& sink) {
  switch (options.format) {
    case Format::Json:
      detail::render_json(result, sink);
      return;
    case Format::Csv:
      detail::render_csv(result, sink);
      return;
    case Format::Table:
    case Format::Markdown: {
      RenderOptions o = options;
      if (o.wide) o.width = SIZE_MAX;
      detail::render_table(result, o, sink);
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
