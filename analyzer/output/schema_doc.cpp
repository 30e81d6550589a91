#include "output/schema_doc.hpp"

#include <algorithm>
#include <utility>

#include "clprof/trace_schema.hpp"
#include "output/json_writer.hpp"

namespace clprof::output {

namespace {

const char* type_name(Type t) {
  switch (t) {
    case Type::Text:
      return "text";
    case Type::Int:
      return "integer";
    case Type::Duration:
      return "integer";
    case Type::Real:
      return "number";
    case Type::Bytes:
      return "integer";
    case Type::Bool:
      return "boolean";
    case Type::Dims:
      return "integer array";
    case Type::Args:
      return "argument list";
    case Type::Rows:
      return "rows";
  }
  return "";
}

// Where the table shows a column.
std::string table_place(const Column& c) {
  std::string s;
  switch (c.show) {
    case Show::Always:
      s = c.header;
      break;
    case Show::WhenKnown:
      s = c.header + " (when known)";
      break;
    case Show::Wide:
      s = c.header + " (--wide)";
      break;
    case Show::Never:
      s = c.type == Type::Rows ? "nested rows" : "-";
      break;
  }
  if (!c.option.empty()) s += " (with " + c.option + ")";
  if (!c.absent_with.empty()) s += " (not with " + c.absent_with + ")";
  return s;
}

std::string view_title(const std::string& command, const Schema& s) {
  return "clprof " + command + (s.view.empty() ? "" : " " + s.view);
}

// The schemas reachable from `views` through nested rows, each once, in order, with the
// path of JSON keys that leads to it ("" for a view, "layers[].kernels[]").
std::vector<std::pair<const Schema*, std::string>> with_paths(
    const std::vector<const Schema*>& views) {
  std::vector<std::pair<const Schema*, std::string>> out;
  std::vector<std::pair<const Schema*, std::string>> todo;
  for (auto it = views.rbegin(); it != views.rend(); ++it) todo.emplace_back(*it, "");
  while (!todo.empty()) {
    auto [s, path] = todo.back();
    todo.pop_back();
    bool seen = false;
    for (const auto& o : out) seen |= o.first == s;
    if (seen) continue;
    out.emplace_back(s, path);
    std::vector<std::pair<const Schema*, std::string>> kids;
    for (const auto& c : s->columns)
      if (c.nested) kids.emplace_back(c.nested, (path.empty() ? "" : path + ".") + c.key + "[]");
    todo.insert(todo.end(), kids.rbegin(), kids.rend());
  }
  return out;
}

std::vector<const Schema*> with_nested(const std::vector<const Schema*>& views) {
  std::vector<const Schema*> out;
  for (const auto& [s, path] : with_paths(views)) out.push_back(s);
  return out;
}

std::string pad(std::string s, size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

}  // namespace

std::string help_fields(const CommandViews& cmd) {
  std::string out;
  for (const Schema* view : cmd.views) {
    out += "\n" + view_title(cmd.command, *view) + " --format json|csv: " + view->title + "\n";
    for (const auto& [s, path] : with_paths({view})) {
      if (s != view) out += "  " + path + ": each\n";
      for (const auto& c : s->columns) {
        std::string where = table_place(c);
        out += "  " + pad(c.key, 20) + " " + pad(c.unit, 6) + " " + pad(where, 28) + " " +
               c.meaning + "\n";
      }
    }
    std::string sorts;
    for (const auto& f : sort_fields(*view, {"--speedup", "--peak"}))
      sorts += (sorts.empty() ? "" : ", ") + f;
    if (view->layout != Layout::Record && view->layout != Layout::Sections) {
      out += "  --sort FIELD: " + sorts +
             " (numbers largest first, names A-Z; default: " + view->default_order + ")\n";
      // The other names --sort takes (resolve_sort): a key without "_ns", and aliases.
      std::string other;
      for (const auto& c : view->columns) {
        if (c.sort == SortOrder::None || c.type == Type::Rows) continue;
        std::vector<std::string> names = c.aliases;
        if (c.key.size() > 3 && c.key.compare(c.key.size() - 3, 3, "_ns") == 0)
          names.insert(names.begin(), c.key.substr(0, c.key.size() - 3));
        for (const auto& n : names) other += (other.empty() ? "" : ", ") + n + " = " + c.key;
      }
      if (!other.empty()) out += "  --sort also takes: " + other + "\n";
    }
  }
  return out;
}

std::string markdown_columns(const CommandViews& cmd) {
  std::string out;
  for (const Schema* view : cmd.views) {
    for (const auto& [s, path] : with_paths({view})) {
      out += "\n**`" + view_title(cmd.command, *view) + "`**" +
             (s == view ? ": " + s->title + (s->single ? " (JSON: one object)" : "")
                        : ", `" + path + "`: " + s->title) +
             "\n\n| field | table | type | unit | meaning |\n|---|---|---|---|---|\n";
      for (const auto& c : s->columns) {
        std::string meaning = c.meaning;
        if (c.nested) meaning += " (below)";
        if (c.nullable) meaning += "; null when unknown";
        std::string where = table_place(c);
        for (size_t p = 0; (p = where.find('|', p)) != std::string::npos; p += 2)
          where.insert(p, "\\");
        out += "| `" + c.key + "` | " + where + " | " + type_name(c.type) + " | " + c.unit + " | " +
               meaning + " |\n";
      }
    }
    if (view->layout != Layout::Record && view->layout != Layout::Sections) {
      std::string sorts;
      for (const auto& f : sort_fields(*view, {"--speedup", "--peak"}))
        sorts += (sorts.empty() ? "" : ", ") + ("`" + f + "`");
      out += "\n`--sort`: " + sorts + "; default order: " + view->default_order + ".\n";
    }
  }
  return out;
}

namespace {

void type_of(JsonWriter& j, const char* t, bool nullable) {
  j.key("type");
  if (!nullable) {
    j.value(t);
    return;
  }
  j.begin_array();
  j.value(t);
  j.value("null");
  j.end_array();
}

void property(JsonWriter& j, const Column& c) {
  j.key(c.key);
  j.begin_object();
  j.field("description", c.meaning + (c.unit.empty() ? "" : " [" + c.unit + "]"));
  switch (c.type) {
    case Type::Text:
      type_of(j, "string", c.nullable);
      break;
    case Type::Int:
    case Type::Duration:
      type_of(j, "integer", c.nullable);
      break;
    case Type::Bytes:
      type_of(j, "integer", c.nullable);
      j.field("minimum", 0);
      break;
    case Type::Real:
      type_of(j, "number", c.nullable);
      break;
    case Type::Bool:
      type_of(j, "boolean", c.nullable);
      break;
    case Type::Dims:
      type_of(j, "array", c.nullable);
      j.key("items");
      j.begin_object();
      j.field("type", "integer");
      j.field("minimum", 0);
      j.end_object();
      break;
    case Type::Args:
      // Each argument: its kind, then numbers and texts (docs/cli.md).
      type_of(j, "array", c.nullable);
      j.key("items");
      j.begin_object();
      j.field("type", "array");
      j.field("minItems", 1);
      j.key("items");
      j.begin_array();
      j.begin_object();
      j.key("enum");
      j.begin_array();
      for (std::string_view k : clprof::trace::kArgKindNames) j.value(k);
      j.end_array();
      j.end_object();
      j.end_array();
      j.key("additionalItems");
      j.begin_object();
      j.key("type");
      j.begin_array();
      for (const char* k : {"integer", "number", "string"}) j.value(k);
      j.end_array();
      j.end_object();
      j.end_object();
      break;
    case Type::Rows:
      type_of(j, "array", c.nullable);
      j.key("items");
      j.begin_object();
      j.field("$ref", "#/definitions/" + c.nested->name);
      j.end_object();
      break;
  }
  j.end_object();
}

std::string definition_name(const Schema& s) {
  return s.name + (s.view.empty() ? "" : "_" + s.view.substr(s.view.find_first_not_of('-')));
}

void definition(JsonWriter& j, const Schema& s) {
  j.key(definition_name(s));
  j.begin_object();
  j.field("description", s.title);
  j.field("type", "object");
  j.key("properties");
  j.begin_object();
  for (const auto& c : s.columns) property(j, c);
  j.end_object();
  j.key("required");
  j.begin_array();
  for (const auto& c : s.columns)
    if (c.option.empty() && c.absent_with.empty()) j.value(c.key);
  j.end_array();
  j.field("additionalProperties", false);
  j.end_object();
}

}  // namespace

std::string json_schema(const CommandViews& cmd) {
  JsonWriter j;
  j.begin_object();
  j.field("$schema", "http://json-schema.org/draft-04/schema#");
  j.field("title", "clprof " + cmd.command + " --format json");
  j.field("description",
          "Generated from the command's column declarations (analyzer/output/tables/); see "
          "docs/cli.md. "
          "Do not edit: the tests regenerate and compare it.");
  j.key("anyOf");
  j.begin_array();
  for (const Schema* v : cmd.views) {
    j.begin_object();
    if (v->single) {
      j.field("$ref", "#/definitions/" + definition_name(*v));
    } else {
      j.field("description", view_title(cmd.command, *v));
      j.field("type", "array");
      j.key("items");
      j.begin_object();
      j.field("$ref", "#/definitions/" + definition_name(*v));
      j.end_object();
    }
    j.end_object();
  }
  j.end_array();
  j.key("definitions");
  j.begin_object();
  for (const Schema* s : with_nested(cmd.views)) definition(j, *s);
  j.end_object();
  j.end_object();
  return j.str();
}

}  // namespace clprof::output
