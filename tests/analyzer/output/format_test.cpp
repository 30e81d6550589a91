// Number formatting and the JSON writer (output/format.hpp, output/json_writer.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "format.hpp"
#include "output/json_writer.hpp"
#include "output/log.hpp"

using namespace clprof;

TEST_CASE("format_ns: adaptive units") {
  CHECK(output::format_ns(0) == "0 ns");
  CHECK(output::format_ns(950) == "950 ns");
  CHECK(output::format_ns(1234) == "1.234 us");
  CHECK(output::format_ns(12345) == "12.35 us");
  CHECK(output::format_ns(123456) == "123.5 us");
  CHECK(output::format_ns(12345678) == "12.35 ms");
  CHECK(output::format_ns(2'500'000'000) == "2.500 s");
  CHECK(output::format_ns(-1500) == "-1.500 us");
  CHECK(output::format_bytes(512) == "512 B");
  CHECK(output::format_bytes(4096) == "4.0 KiB");
  CHECK(output::format_general(0.000262144) == "0.0002621");
  // Fixed notation from 10^4 on (issue 34, item 6: "4.149e+06 GFLOP" read as 4.149): the
  // whole number, rounded.
  CHECK(output::format_general(1234.5) == "1234");
  CHECK(output::format_general(9999.4) == "9999");
  CHECK(output::format_general(4148731.2) == "4148731");
  CHECK(output::format_general(-25000.6) == "-25001");
  // Below 10^-4: 2*64*32*16 / 1e9 GFLOP = 6.5536e-05, four significant digits, no exponent.
  CHECK(output::format_general(6.5536e-05) == "0.00006554");
  CHECK(output::format_general(0.0) == "0");
}

TEST_CASE("log: control bytes of names reach stderr escaped") {
  // A kernel name with ESC [2J (clear screen), a newline faking a second line, a tab, DEL.
  CHECK(log::printable("k\x1b[2J\nclprof: error: fake\t\x7f") ==
        "k\\x1b[2J\\nclprof: error: fake\\t\\x7f");
  CHECK(log::printable("plain name_#1 \xc3\xa9") == "plain name_#1 \xc3\xa9");  // UTF-8 kept
}

TEST_CASE("json writer: optional as null, non-finite as null") {
  output::JsonWriter j;
  j.begin_object();
  j.field("a", std::optional<int64_t>{});
  j.field("b", 1.0 / 0.0);
  j.field("c", int64_t{-3});
  j.end_object();
  CHECK(j.str() == "{\n  \"a\": null,\n  \"b\": null,\n  \"c\": -3\n}\n");
}

TEST_CASE("json writer: drain() streams a document in pieces") {
  output::JsonWriter whole, parts;
  std::string streamed;
  for (auto* j : {&whole, &parts}) j->begin_array();
  for (int i = 0; i < 10; ++i) {
    for (auto* j : {&whole, &parts}) {
      j->begin_object();
      j->field("i", i);
      j->end_object();
    }
    if (i % 3 == 0) streamed += parts.drain();
  }
  for (auto* j : {&whole, &parts}) j->end_array();
  streamed += parts.drain();
  CHECK(streamed + "\n" == whole.str());
  CHECK(parts.drain().empty());
}

TEST_CASE("joined: separator between items only, every item kept") {
  using clprof::output::joined;
  CHECK(joined({}, ", ") == "");
  CHECK(joined({"a"}, ", ") == "a");
  CHECK(joined({"a", "b", "c"}, ",") == "a,b,c");
  CHECK(joined({"", "b"}, ",") == ",b");  // an empty first item still counts
}

TEST_CASE("format_sizes: work sizes as OpenCL users write them") {
  CHECK(output::format_sizes(std::vector<uint64_t>{16, 8}) == "16x8");
  CHECK(output::format_sizes(std::vector<uint64_t>{1021}) == "1021");
  CHECK(output::format_sizes(std::nullopt) == "NULL");  // a NULL local size
  CHECK(output::format_sizes(std::vector<uint64_t>{}) == "-");
}
