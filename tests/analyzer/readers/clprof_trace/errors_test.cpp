// Input that is not a clprof trace, or not JSON, is rejected with InputError
// "file:line:column: what was expected", never a crash, a hang or an unbounded
// allocation; records that are JSON but do not match the schema are skipped with one
// warning (validation_test.cpp has the rest of those).
#include <doctest/doctest.h>

#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

const std::string kHeader = R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)"
                            "\n";

struct Failure {
  size_t line = 0, column = 0;
  std::string message;  // InputError::message()
  std::string what;     // with "FILE" for the path
};

// Loads `content` (forced to the clprof reader unless `format` says otherwise) and returns
// the InputError; fails the test if none is thrown.
Failure load_error(const std::string& content, std::string format = "clprof") {
  test::TempDir dir;
  std::string path = dir.write("bad.json", content);
  model::Run run;
  readers::Diagnostics diag;
  try {
    readers::load_run({path}, format, run, diag);
  } catch (const readers::InputError& e) {
    std::string what = e.what();
    CHECK(what.rfind(path + ":", 0) == 0);
    what.replace(0, path.size(), "FILE");
    return {e.line(), e.column(), e.message(), what};
  }
  FAIL("no InputError");
  return {};
}

// The same through the streaming path with 2 threads and small chunks.
Failure stream_error(const std::string& content) {
  test::TempDir dir;
  std::string path = dir.write("bad.json", content);
  model::Run run;
  readers::Diagnostics diag;
  const auto tuning = test::small_chunks(2, 32);
  try {
    readers::detail::stream_clprof_trace_file(path, run, test::kernel_totals_factory(), diag,
                                              tuning);
  } catch (const readers::InputError& e) {
    std::string what = e.what();
    what.replace(0, path.size(), "FILE");
    return {e.line(), e.column(), e.message(), what};
  }
  FAIL("no InputError");
  return {};
}

std::string good_launch(int seq) {
  return R"({"type":"launch","seq":)" + std::to_string(seq) +
         R"(,"kernel":"k","device_ns":[0,0,1,2]},)"
         "\n";
}
const std::string kGoodLaunch = good_launch(1);

// The warnings of loading `content` (which must load; the end record is added), with the
// path replaced by "FILE".
std::vector<std::string> load_warnings(std::string content) {
  content += R"({"type":"end"}]})"
             "\n";
  test::TempDir dir;
  test::Loaded o = test::load_text(dir, "bad.json", content, "clprof");
  test::name_file_in_warnings(o.diag, o.path);
  return o.diag.warnings;
}

const std::string kSkipped =
    ": skipped 1 record that does not match the trace schema (docs/trace-format.md); the "
    "first: ";

}  // namespace

TEST_CASE("garbage line inside a trace") {
  const std::string input = kHeader + kGoodLaunch + "this is not json,\n" + good_launch(2);
  Failure f = load_error(input);
  CHECK(f.line == 3);
  CHECK(f.column == 1);
  CHECK(f.what.rfind("FILE:3:1: ", 0) == 0);
  CHECK(f.message == "expected a record object {\"type\":...}");
  Failure s = stream_error(input);
  CHECK(s.what == f.what);
}

TEST_CASE("garbage file, forced to the clprof reader and auto-detected") {
  Failure f = load_error("hello world\n");
  CHECK(f.what.rfind("FILE:1:1: ", 0) == 0);
  CHECK(f.message.find("expected a clprof trace") != std::string::npos);
  Failure a = load_error("hello world\n", "");
  CHECK(a.what.rfind("FILE:1:1: unrecognized input format", 0) == 0);
}

TEST_CASE("empty file") {
  Failure f = load_error("");
  CHECK(f.what == "FILE:1:1: empty file: expected a clprof trace");
  Failure a = load_error("", "");
  CHECK(a.what == "FILE:1:1: empty file: expected a profile or trace");
  Failure s = stream_error("");
  CHECK(s.what == "FILE:1:1: empty file: expected a clprof trace");
}

TEST_CASE("wrong types: a string where a number is expected, a number for a string") {
  // In a record: the record is skipped, the warning says where and what was expected.
  const std::string line2 = R"({"type":"launch","seq":"7","kernel":"k"},)";
  CHECK(load_warnings(kHeader + line2 + "\n") ==
        std::vector<std::string>{
            "FILE:2:" + std::to_string(line2.find("\"7\"") + 1) + kSkipped +
            R"("seq": expected a sequence number (an integer from 1), got "7")"});

  const std::string kernel_number = R"({"type":"launch","seq":1,"kernel":12})";
  CHECK(load_warnings(kHeader + kernel_number + ",\n") ==
        std::vector<std::string>{"FILE:2:" + std::to_string(kernel_number.find("12") + 1) +
                                 kSkipped + R"("kernel": expected a string, got 12)"});

  // In the header: the trace cannot be read.
  const std::string header_type =
      R"({"format":"clprof-trace","version":1,"header":{"pid":"x"},"records":[)";
  Failure h = load_error(header_type + "\n");
  CHECK(h.line == 1);
  CHECK(h.column == header_type.find("\"x\"") + 1);
  CHECK(h.message == R"("pid": expected a 64-bit integer, got "x")");
  CHECK(stream_error(header_type + "\n").what == h.what);
}

TEST_CASE("huge numbers") {
  const std::string big_int = R"({"type":"launch","seq":99999999999999999999999,"kernel":"k"})";
  CHECK(
      load_warnings(kHeader + big_int + ",\n") ==
      std::vector<std::string>{
          "FILE:2:" + std::to_string(big_int.find("999") + 1) + kSkipped +
          R"("seq": expected a sequence number (an integer from 1), got 99999999999999999999999)"});

  const std::string big_float = R"({"type":"transfer","seq":2,"op":"read","host_ns":[1e400,2]})";
  CHECK(load_warnings(kHeader + kGoodLaunch + big_float + ",\n") ==
        std::vector<std::string>{"FILE:3:" + std::to_string(big_float.find("1e400") + 1) +
                                 kSkipped + R"("host_ns": expected a 64-bit integer, got 1e400)"});

  const std::string big_u32 =
      R"({"type":"launch","seq":1,"kernel":"k","args":[["scalar",4294967296,"00",0]]})";
  CHECK(load_warnings(kHeader + big_u32 + ",\n") ==
        std::vector<std::string>{"FILE:2:" + std::to_string(big_u32.find("4294967296") + 1) +
                                 kSkipped +
                                 R"("args": expected an unsigned 32-bit integer, got 4294967296)"});
}

TEST_CASE("deep nesting") {
  const std::string deep(100000, '[');
  Failure whole = load_error(deep);
  CHECK(whole.what.rfind("FILE:1:1: expected a clprof trace", 0) == 0);

  Failure in_record = load_error(kHeader + R"({"type":"launch","args":)" + deep + "\n");
  CHECK(in_record.line == 2);
  CHECK(in_record.column >= 1);

  Failure in_header =
      load_error(R"({"format":"clprof-trace","version":1,"header":{"command_line":)" + deep + "\n");
  CHECK(in_header.line == 1);

  Failure pretty =
      load_error("{\n\"format\":\"clprof-trace\",\"version\":1,\"records\":" + deep + "\n");
  CHECK(pretty.line >= 1);

  // Well-formed but deep JSON in a field the reader ignores is skipped without recursion:
  // no crash and no depth-proportional memory, and the record itself is read.
  const std::string balanced = std::string(100000, '[') + std::string(100000, ']');
  test::TempDir dir;
  std::string path = dir.write(
      "deep.json", kHeader + R"({"type":"launch","seq":1,"kernel":"k","x":)" + balanced + "},\n");
  model::Run run;
  readers::Diagnostics diag;
  readers::load_run({path}, "", run, diag);
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name == "k");
}

TEST_CASE("a JSON document that is not a clprof trace") {
  Failure f = load_error(R"({"traceEvents":[{"name":"k","ph":"X"}]})"
                         "\n");
  CHECK(f.what == R"(FILE:1:1: not a clprof trace: expected a "format":"clprof-trace" field)");
  const std::string other = R"({"format":"chrome-trace","version":1,"records":[)";
  Failure g = load_error(other + "\n");
  CHECK(g.line == 1);
  CHECK(g.column == other.find("\"chrome-trace\"") + 1);
  CHECK(g.message == R"(not a clprof trace: expected "format":"clprof-trace", got "chrome-trace")");
  Failure r = load_error(kHeader + R"([1,2,3],)"
                                   "\n");
  CHECK(r.what == "FILE:2:1: expected a record object {\"type\":...}");
  // A JSON object that is no record: skipped.
  CHECK(
      load_warnings(kHeader + R"({"seq":1},)"
                              "\n") ==
      std::vector<std::string>{"FILE:2:1" + kSkipped + "expected a \"type\" field in the record"});
}

TEST_CASE("a missing file") {
  model::Run run;
  readers::Diagnostics diag;
  const std::string path = "/nonexistent/clprof/trace.json";
  for (std::string format : {"", "clprof"}) {
    try {
      readers::load_run({path}, format, run, diag);
      FAIL("no InputError");
    } catch (const readers::InputError& e) {
      CHECK(e.line() == 0);
      CHECK(std::string(e.what()) == path + ":0:0: cannot open: No such file or directory");
    }
  }
  try {
    readers::stream_clprof_traces({path}, run, test::kernel_totals_factory(), diag);
    FAIL("no InputError");
  } catch (const readers::InputError& e) {
    CHECK(std::string(e.what()) == path + ":0:0: cannot open: No such file or directory");
  }
}

TEST_CASE("version 99 is rejected, older versions and unknown fields are read") {
  const std::string v99 = R"({"format":"clprof-trace","version":99,"header":{},"records":[)";
  Failure f = load_error(v99 + "\n" +
                         R"({"type":"end"}]})"
                         "\n");
  CHECK(f.line == 1);
  CHECK(f.column == v99.find("99") + 1);
  CHECK(f.message ==
        "unsupported trace version 99 (this clprof reads versions <= 4); use a newer clprof");
  CHECK(stream_error(v99 + "\n").what == f.what);

  test::TempDir dir;
  std::string path = dir.write(
      "v1.json",
      test::trace_lines(
          {R"({"format":"clprof-trace","version":1,"new_top":{"a":[1]},"header":{"pid":1,"new":1},"records":[)",
           R"({"type":"launch","seq":1,"kernel":"k","new_field":{"x":[1,2]},"device_ns":[0,0,1,4]},)",
           R"({"type":"end"}]})"}));
  model::Run run;
  readers::Diagnostics diag;
  readers::load_run({path}, "", run, diag);
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].duration_ns() == 3);
}

TEST_CASE("records after the end of the trace") {
  Failure f = load_error(kHeader +
                         R"({"type":"end"}]})"
                         "\n" +
                         kGoodLaunch);
  CHECK(f.what == "FILE:3:1: unexpected content after the end of the trace");
  Failure g = load_error(kHeader + R"({"type":"end"}]} x)"
                                   "\n");
  CHECK(g.what == "FILE:2:18: unexpected content after the end of the trace");
}

TEST_CASE("sniffing and forced formats") {
  CHECK(readers::is_clprof_trace(R"({"format":"clprof-trace","version":1,"header":{)"));
  CHECK(readers::is_clprof_trace("\xEF\xBB\xBF  {\n  \"format\": \"clprof-trace\",\n"));
  CHECK_FALSE(readers::is_clprof_trace(R"({"traceEvents":[{"name":"clprof"}]})"));
  CHECK_FALSE(readers::is_clprof_trace(R"(["clprof-trace"])"));
  CHECK_FALSE(readers::is_clprof_trace(""));

  test::TempDir dir;
  std::string path = dir.write("t.json", kHeader + R"({"type":"end"}]})"
                                                   "\n");
  CHECK(readers::detect_reader(path, "").name() == "clprof");
  CHECK(readers::detect_reader(path, "clprof").name() == "clprof");
  try {
    readers::detect_reader(path, "no-such-format");
    FAIL("no InputError");
  } catch (const readers::InputError& e) {
    CHECK(e.line() == 0);
    CHECK(e.message().rfind("unknown input format 'no-such-format' (known: clprof", 0) == 0);
  }
}
