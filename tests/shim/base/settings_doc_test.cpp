#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "clprof/settings_table.hpp"

// docs/settings.md's table is `clprof record --list-options --format markdown`: each row
// must be the table's row, whole, so that the two never drift apart.
TEST_CASE("docs/settings.md has every setting's row: type, default, allowed values, help") {
  std::ifstream f(CLPROF_DOCS_DIR "/settings.md");
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string doc = ss.str();
  for (const auto& d : clprof::settings::kAll) {
    CAPTURE(d.env_name);
    const std::string def =
        d.default_value.empty() ? "(empty)" : "`" + std::string(d.default_value) + "`";
    const std::string row = "\n| `" + std::string(d.env_name) + "` | " +
                            std::string(clprof::settings::type_name(d.type)) + " | " + def + " | " +
                            clprof::settings::allowed_values(d) + " | " + std::string(d.help) +
                            " |\n";
    CHECK_MESSAGE(doc.find(row) != std::string::npos, "expected the row", row);
  }
}
