// docs/trace-format.md's field tables are made from the trace schema
// (include/clprof/trace_schema.hpp) and must not drift from it: every table the schema
// has is in the doc, as the schema makes it. CLPROF_UPDATE_DOCS=1 rewrites the doc's
// tables instead (then review the diff).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "readers/clprof_trace/schema_doc.hpp"
#include "run_child.hpp"

namespace {

const std::string kDoc = CLPROF_DOCS_DIR "/trace-format.md";

}  // namespace

TEST_CASE("docs/trace-format.md holds every schema table as the schema makes it") {
  std::string doc = clprof::test::slurp(kDoc);
  REQUIRE_FALSE(doc.empty());
  const std::string want = clprof::readers::with_schema_tables(doc);
  const char* update = std::getenv("CLPROF_UPDATE_DOCS");
  if (update && std::string(update) == "1" && want != doc) {
    std::ofstream(kDoc, std::ios::binary) << want;
    doc = want;
    MESSAGE("rewrote the schema tables of " << kDoc);
  }
  CHECK_MESSAGE(doc == want,
                "docs/trace-format.md's tables differ from the schema: run the "
                "test with CLPROF_UPDATE_DOCS=1 to rewrite them");
  for (const std::string& name : clprof::readers::schema_table_names()) {
    CAPTURE(name);
    CHECK(doc.find("<!-- schema:" + name + " -->\n" + clprof::readers::schema_table(name) +
                   "<!-- /schema -->") != std::string::npos);
  }
}

TEST_CASE("schema tables: one row per field, in writing order") {
  const std::string launch = clprof::readers::schema_table("launch");
  CHECK(launch.find("| `seq` | seq |  |  | required |") != std::string::npos);
  CHECK(launch.find(
            "| `device_ns` | [queued, submit, start, end] or null | ns | device | always |") !=
        std::string::npos);
  CHECK(launch.find("`seq`") < launch.find("`ranges`"));
  CHECK(clprof::readers::schema_table("no such table").empty());
  CHECK(
      clprof::readers::with_schema_tables("a <!-- schema:statuses -->\nold\n<!-- /schema --> b") ==
      "a <!-- schema:statuses -->\n" + clprof::readers::schema_table("statuses") +
          "<!-- /schema --> b");
}
