// The documents derived from the column declarations are current: docs/schema/*.schema.json
// and the column tables of docs/cli.md (between <!-- columns:CMD --> and <!-- /columns -->).
// CLPROF_UPDATE_DOCS=1 rewrites them instead (review the diff before committing).
#include <doctest/doctest.h>

#include <rapidjson/document.h>
#include <rapidjson/schema.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "output/schema_doc.hpp"
#include "output/tables/registry.hpp"
#include "run_child.hpp"  // tests/support: slurp

using namespace clprof;

namespace {

bool updating() {
  const char* u = std::getenv("CLPROF_UPDATE_DOCS");
  return u && std::string(u) == "1";
}

}  // namespace

TEST_CASE("docs/schema/<command>.schema.json is what the columns declare") {
  for (const auto& cmd : output::tables::all_commands()) {
    CAPTURE(cmd.command);
    const std::string path =
        std::string(CLPROF_DOCS_DIR) + "/schema/" + cmd.command + ".schema.json";
    const std::string schema = output::json_schema(cmd);
    rapidjson::Document d;
    d.Parse(schema.c_str());
    REQUIRE(!d.HasParseError());
    rapidjson::SchemaDocument usable(d);  // RapidJSON reads it as a schema
    if (updating()) std::ofstream(path, std::ios::binary) << schema;
    const bool current = test::slurp(path) == schema;
    CHECK_MESSAGE(current, path << " is stale: run analyzer_unit_tests with CLPROF_UPDATE_DOCS=1");
  }
}

TEST_CASE("docs/cli.md's column tables are what the columns declare") {
  const std::string path = std::string(CLPROF_DOCS_DIR) + "/cli.md";
  std::string doc = test::slurp(path);
  for (const auto& cmd : output::tables::all_commands()) {
    CAPTURE(cmd.command);
    const std::string begin = "<!-- columns:" + cmd.command + " -->\n", end = "<!-- /columns -->";
    const size_t a = doc.find(begin);
    REQUIRE_MESSAGE(a != std::string::npos, "docs/cli.md lacks " << begin);
    const size_t b = doc.find(end, a);
    REQUIRE(b != std::string::npos);
    const std::string now = output::markdown_columns(cmd) + "\n";
    if (updating()) doc.replace(a + begin.size(), b - a - begin.size(), now);
    const bool current = doc.substr(a + begin.size(), b - a - begin.size()) == now;
    if (!updating())
      CHECK_MESSAGE(current,
                    "docs/cli.md is stale: run analyzer_unit_tests with CLPROF_UPDATE_DOCS=1");
  }
  if (updating()) std::ofstream(path, std::ios::binary) << doc;
}
