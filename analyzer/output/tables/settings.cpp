#include "output/tables/settings.hpp"

#include "clprof/settings_table.hpp"

namespace clprof::output::tables {

const Schema& settings_schema() {
  static const Schema s =
      schema("settings", "one row per CLPROF_* setting of the shim",
             {
                 column("name", "Name", Type::Text, "", "environment variable"),
                 column("type", "Type", Type::Text, "", "bool, uint, string, ..."),
                 column("default", "Default", Type::Text, "", "value when unset (or empty)"),
                 column("allowed", "Allowed", Type::Text, "", "values the shim accepts"),
                 column("help", "Description", Type::Text, "", "what it controls"),
             });
  return s;
}

Result settings_result(bool markdown) {
  Result out(settings_schema());
  for (const auto& d : settings::kAll) {
    const std::string name(d.env_name), def(d.default_value);
    out.rows.push_back({Value::text(markdown ? "`" + name + "`" : name),
                        Value::text(std::string(settings::type_name(d.type))),
                        Value::text(!markdown     ? def
                                    : def.empty() ? "(empty)"
                                                  : "`" + def + "`"),
                        Value::text(settings::allowed_values(d)),
                        Value::text(std::string(d.help))});
  }
  return out;
}

}  // namespace clprof::output::tables
