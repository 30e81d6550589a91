#include <doctest/doctest.h>

#include <string>

#include "output/output_names.hpp"
#include "output/record_format.hpp"

using namespace clprof::shim;

TEST_CASE("%p becomes the pid, wherever and however often it appears") {
  CHECK(expand_output_path("clprof-%p.json", 123, 123) == "clprof-123.json");
  CHECK(expand_output_path("clprof-%p.json", 456, 123) == "clprof-456.json");
  CHECK(expand_output_path("/tmp/%p/run-%p.json", 7, 1) == "/tmp/7/run-7.json");
  // A shared device target keeps its name in children.
  CHECK(expand_output_path("/dev/null", 456, 123, false) == "/dev/null");
  CHECK(expand_output_path("/dev/null", 456, 123) == "/dev/null.456");
  CHECK(expand_output_path("100%", 7, 7) == "100%");
}

TEST_CASE("without %p the root process keeps the name, others insert their pid") {
  CHECK(expand_output_path("run.json", 100, 100) == "run.json");
  CHECK(expand_output_path("run.json", 100, 0) == "run.json");
  CHECK(expand_output_path("run.json", 12345, 100) == "run.12345.json");
  CHECK(expand_output_path("out/run.trace.json", 5, 1) == "out/run.trace.5.json");
  CHECK(expand_output_path("run", 5, 1) == "run.5");
  CHECK(expand_output_path("dir.d/run", 5, 1) == "dir.d/run.5");
  CHECK(expand_output_path(".hidden", 5, 1) == ".hidden.5");
}

TEST_CASE("a program started by exec names its trace NAME.exec<k>.EXT") {
  CHECK(insert_before_extension("run.json", ".exec1") == "run.exec1.json");
  CHECK(insert_before_extension("out/run.12345.json", ".exec2") == "out/run.12345.exec2.json");
  CHECK(insert_before_extension("run", ".exec1") == "run.exec1");
  CHECK(insert_before_extension("dir.d/run", ".exec1") == "dir.d/run.exec1");
  CHECK(insert_before_extension(".hidden", ".exec1") == ".hidden.exec1");
  // A compressed trace keeps ".json.zst" together.
  CHECK(insert_before_extension("run.json.zst", ".7") == "run.7.json.zst");
  CHECK(insert_before_extension("run.zst", ".7") == "run.7.zst");
  CHECK(insert_before_extension("d.x/run.zst", ".7") == "d.x/run.7.zst");
}

TEST_CASE("fnv1a64 matches the reference vectors and is incremental") {
  CHECK(fnv1a64(kFnvOffset, "", 0) == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64(kFnvOffset, "a", 1) == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64(kFnvOffset, "foobar", 6) == 0x85944171f73967e8ULL);
  CHECK(fnv1a64(fnv1a64(kFnvOffset, "foo", 3), "bar", 3) == fnv1a64(kFnvOffset, "foobar", 6));
  CHECK(source_hash_text(0x85944171f73967e8ULL) == "fnv1a64:85944171f73967e8");
  CHECK(source_hash_text(1) == "fnv1a64:0000000000000001");
}

TEST_CASE("%r becomes the rank and %h the host name; without %p the pid rule still holds") {
  NameFields f;
  f.rank = "3";
  f.host = "node07";
  CHECK(expand_output_path("run.%h.%r.json", 100, 100, true, f) == "run.node07.3.json");
  CHECK(expand_output_path("run.%r.json", 200, 100, true, f) == "run.3.200.json");
  CHECK(expand_output_path("run.%r.%p.json", 200, 100, true, f) == "run.3.200.json");
  CHECK(expand_output_path("run.%r.json", 100, 100) == "run.0.json");  // no rank: 0
  f.host = "a/b";
  CHECK(expand_output_path("%h.json", 1, 1, true, f) == "a_b.json");
  CHECK(expand_output_path("100%x", 1, 1, true, f) == "100%x");
}
