#include "output/columns.hpp"

#include <algorithm>
#include <stdexcept>

namespace clprof::output {

Column column(std::string key, std::string header, Type type, std::string unit,
              std::string meaning) {
  Column c;
  c.key = std::move(key);
  c.header = std::move(header);
  c.type = type;
  c.unit = std::move(unit);
  c.meaning = std::move(meaning);
  if (type == Type::Text) {
    c.align = Align::Left;
    c.sort = SortOrder::Ascending;
  }
  if (type == Type::Dims || type == Type::Args || type == Type::Bool) {
    c.align = Align::Left;
    c.sort = SortOrder::None;
  }
  return c;
}

Column nested(std::string key, std::string header, const Schema& schema, std::string meaning) {
  Column c = column(std::move(key), std::move(header), Type::Rows, "", std::move(meaning));
  c.nested = &schema;
  c.sort = SortOrder::None;
  c.show = Show::Never;
  return c;
}

Schema schema(std::string name, std::string title, std::vector<Column> columns) {
  Schema s;
  s.name = std::move(name);
  s.title = std::move(title);
  s.columns = std::move(columns);
  return s;
}

size_t Schema::find(const std::string& key) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].key == key) return i;
  return npos;
}

bool column_enabled(const Column& c, const std::vector<std::string>& options) {
  const auto given = [&options](const std::string& o) {
    return std::find(options.begin(), options.end(), o) != options.end();
  };
  if (!c.absent_with.empty() && given(c.absent_with)) return false;
  return c.option.empty() || given(c.option);
}

namespace {

bool sortable(const Column& c, const std::vector<std::string>& options) {
  return c.sort != SortOrder::None && column_enabled(c, options);
}

}  // namespace

std::vector<std::string> sort_fields(const Schema& schema,
                                     const std::vector<std::string>& options) {
  std::vector<std::string> out;
  for (const auto& [name, meaning] : schema.extra_sorts) out.push_back(name);
  for (const auto& c : schema.columns)
    if (sortable(c, options)) out.push_back(c.key);
  return out;
}

size_t resolve_sort_field(const Schema& schema, const std::vector<std::string>& options,
                          const std::string& name, std::string& extra) {
  extra.clear();
  for (const auto& [n, meaning] : schema.extra_sorts)
    if (n == name) {
      extra = n;
      return Schema::npos;
    }
  for (size_t i = 0; i < schema.columns.size(); ++i) {
    const Column& c = schema.columns[i];
    if (!sortable(c, options)) continue;
    const bool ns = c.key.size() > 3 && c.key.compare(c.key.size() - 3, 3, "_ns") == 0;
    if (c.key == name || (ns && c.key.substr(0, c.key.size() - 3) == name) ||
        std::find(c.aliases.begin(), c.aliases.end(), name) != c.aliases.end())
      return i;
  }
  std::string list;
  for (const auto& f : sort_fields(schema, options)) list += (list.empty() ? "" : ", ") + f;
  throw std::invalid_argument("--sort: " + schema.name + " has no field '" + name +
                              "' (fields: " + list + ")");
}

}  // namespace clprof::output
