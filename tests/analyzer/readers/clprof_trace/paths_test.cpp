// Every path of the clprof trace reader gives the same result on every trace of the test
// corpora (this directory's data/, tests/analyzer/data/, and the fuzzing corpora under
// tests/fuzz/ when present), on every prefix of the shim's own v1 trace (a trace cut at
// any line), and on the same traces with bytes appended: the same Run, warnings and error.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "every_way.hpp"
#include "readers/load.hpp"
#include "run_child.hpp"
#include "run_dump.hpp"
#include "test_util.hpp"

using namespace clprof;
namespace fs = std::filesystem;

namespace {

// The clprof traces under `dir` (recursively), by content.
std::vector<fs::path> traces_under(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.file_size() > (size_t{4} << 20)) continue;
    if (readers::is_clprof_trace(test::slurp(e.path().string()).substr(0, 65536)))
      out.push_back(e.path());
  }
  return out;
}

void check_agree(const std::string& path) {
  const std::vector<test::Reading> all = test::read_every_way(path, 97);
  for (const auto& r : all) {
    CAPTURE(r.way);
    CHECK(r.error == all[0].error);
    CHECK(r.warnings == all[0].warnings);
    if (r.error.empty() && all[0].error.empty())
      CHECK(test::dump_run(r.run) == test::dump_run(all[0].run));
  }
}

}  // namespace

TEST_CASE("every corpus trace reads the same by every path") {
  const fs::path here = CLPROF_READER_TEST_DATA;
  const fs::path tests = here.parent_path().parent_path().parent_path().parent_path();
  std::vector<fs::path> corpus;
  for (const fs::path& dir : {here, tests / "analyzer" / "data", tests / "fuzz"})
    for (const fs::path& p : traces_under(dir)) corpus.push_back(p);
  CHECK(corpus.size() >= 2);
  for (const fs::path& p : corpus) {
    CAPTURE(p.string());
    check_agree(p.string());
  }
}

TEST_CASE("every line prefix of a real trace, and the trace with bytes after it") {
  const std::string full =
      test::slurp(std::string(CLPROF_READER_TEST_DATA) + "/vector_add_v1.json");
  REQUIRE_FALSE(full.empty());
  test::TempDir dir;
  size_t lines = 0;
  for (size_t nl = full.find('\n'); nl != std::string::npos; nl = full.find('\n', nl + 1)) {
    CAPTURE(nl);
    // Cut after a line, and in the middle of the next one.
    check_agree(dir.write("cut.json", full.substr(0, nl + 1)));
    check_agree(dir.write("cut_mid.json", full.substr(0, std::min(full.size(), nl + 40))));
    ++lines;
  }
  CHECK(lines > 30);
  for (const std::string tail : {"x", "]}", "\n]}\n", "{}", ",", "\n\n  \n", "\0"}) {
    CAPTURE(tail);
    check_agree(dir.write("tail.json", full + tail));
  }
}
