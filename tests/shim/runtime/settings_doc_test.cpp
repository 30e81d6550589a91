#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "clprof/settings_table.hpp"

// docs/settings.md repeats the table's text; this keeps the two from drifting apart.
TEST_CASE("docs/settings.md lists every setting with the table's default and help") {
  std::ifstream f(CLPROF_DOCS_DIR "/settings.md");
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const auto& d : clprof::settings::kAll) {
    CAPTURE(d.env_name);
    const std::string row_start = "| `" + std::string(d.env_name) + "` | " +
                                  std::string(clprof::settings::type_name(d.type)) + " | ";
    CHECK(doc.find(row_start) != std::string::npos);
    CHECK(doc.find(std::string(d.help)) != std::string::npos);
    if (!d.default_value.empty()) {
      CHECK(doc.find(row_start + "`" + std::string(d.default_value) + "`") != std::string::npos);
    }
  }
}
