// Every record is checked against the trace schema: a record that does not match it (or
// repeats a seq, or comes after the end record, or closes no open range) is skipped, and
// one warning per file counts them and names the first as FILE:LINE:COLUMN; commands that
// end before they start are kept untimed and counted the same way. Every path of the
// reader (in memory, streamed by 1 to 3 threads, fast path on and off) gives the same
// records, warnings and errors.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "every_way.hpp"
#include "run_dump.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

const std::string kHead = test::trace_lines(
    {R"({"format":"clprof-trace","version":2,"header":{"pid":1,"session_id":"s"},"records":[)",
     R"({"type":"device","id":1,"name":"d"},)",
     R"({"type":"range_begin","id":1,"parent":0,"name":"r","tid":1,"host_ns":0},)"});
const std::string kEnd = R"({"type":"end","host_ns":9}]})"
                         "\n";

std::string launch(uint64_t seq, const std::string& more = "") {
  return R"({"type":"launch","seq":)" + std::to_string(seq) +
         R"(,"kernel":"k","device_id":1,"device_ns":[0,0,10,20])" + more + "},\n";
}

// Reads `content` by every path, checks that they all agree, and returns the in-memory
// reading.
test::Reading read_agreeing(const std::string& content) {
  test::TempDir dir;
  const std::string path = dir.write("t.json", content);
  std::vector<test::Reading> all = test::read_every_way(path);
  for (const auto& r : all) {
    CAPTURE(r.way);
    CHECK(r.error == all[0].error);
    CHECK(r.warnings == all[0].warnings);
    if (r.error.empty()) CHECK(test::dump_run(r.run) == test::dump_run(all[0].run));
    for (const std::string& text : r.warnings)
      for (char c : text) CHECK_MESSAGE(static_cast<unsigned char>(c) >= 0x20, text);
    for (char c : r.error) CHECK_MESSAGE(static_cast<unsigned char>(c) >= 0x20, r.error);
  }
  return std::move(all[0]);
}

const std::string kSkipped = " match the trace schema (docs/trace-format.md); the first: ";

}  // namespace

TEST_CASE("records that do not match the schema are skipped, counted and the first named") {
  const std::string content = kHead + launch(1) +
                              R"({"type":"launch"},)"
                              "\n"  // line 5: no seq
                              R"({"type":"launch","seq":3},)"
                              "\n"  // no kernel
                              R"({"seq":4,"kernel":"k"},)"
                              "\n"  // no type
                              R"({"type":"lunch","seq":5},)"
                              "\n"                                         // unknown type
                              + launch(6, R"(,"status":"done")")           // unknown status
                              + launch(7, R"(,"seq":8)")                   // a key twice
                              + launch(9, R"(,"tid":"x")")                 // wrong type
                              + launch(10, R"(,"gws":[1,2,3,4])")          // 4 work sizes
                              + launch(11, R"(,"args":[["buffer",8,1]])")  // short arg
                              + launch(12, R"(,"args":[["float",4]])")     // unknown kind
                              + launch(13, R"(,"ranges":[0])")             // range id 0
                              + launch(14, R"(,"host_ns":12)")             // not a span
                              + launch(15) + kEnd;
  test::Reading r = read_agreeing(content);
  REQUIRE(r.error.empty());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0] == "FILE:5:1: skipped 12 records that do not" + kSkipped +
                             "launch record: expected a \"seq\" field");
  REQUIRE(r.run.launches.size() == 2);
  CHECK(r.run.launches[0].seq == 1);
  CHECK(r.run.launches[1].seq == 15);

  // Each on its own: what the warning says about it.
  const std::pair<std::string, std::string> one[] = {
      {R"({"type":"launch","seq":3},)", "5:1: skipped 1 record that does not" + kSkipped +
                                            "launch record: expected a \"kernel\" field"},
      {R"({"seq":4,"kernel":"k"},)", "5:1: skipped 1 record that does not" + kSkipped +
                                         "expected a \"type\" field in the record"},
      {R"({"type":"lunch","seq":5},)",
       "5:9: skipped 1 record that does not" + kSkipped +
           "unknown record type \"lunch\" (expected one of device, clock_sync, queue, program, "
           "build, kernel, kernel_device, launch, transfer, sync, range_begin, range_end, mark, "
           "warning, capture, end)"},
      {launch(6, R"(,"status":"done")").substr(0, launch(6, R"(,"status":"done")").size() - 1),
       "5:86: skipped 1 record that does not" + kSkipped +
           "\"status\": expected a status (complete, incomplete, error or not_enqueued), got "
           "\"done\""},
      {launch(7, R"(,"seq":8)").substr(0, launch(7, R"(,"seq":8)").size() - 1),
       "5:78: skipped 1 record that does not" + kSkipped + "launch record: \"seq\" given twice"},
      {R"({"type":"transfer","seq":3,"op":"send"},)",
       "5:33: skipped 1 record that does not" + kSkipped +
           "\"op\": expected a transfer op (read, write, copy, fill, map or unmap), got \"send\""},
      {R"({"type":"launch","seq":3,"kernel":"k","device_ns":[0,0,0,18446744073709551615]},)",
       "5:58: skipped 1 record that does not" + kSkipped +
           "\"device_ns\": expected a device time (an integer from 0 to 2^63 - 1), got "
           "18446744073709551615"},
      {R"({"type":"device","id":0},)",
       "5:23: skipped 1 record that does not" + kSkipped +
           "\"id\": expected an object id (an integer from 1), got 0"},
  };
  for (const auto& [line, warning] : one) {
    CAPTURE(line);
    test::Reading o = read_agreeing(kHead + launch(1) + line + "\n" + launch(2) + kEnd);
    REQUIRE(o.error.empty());
    CHECK(o.warnings == std::vector<std::string>{"FILE:" + warning});
    CHECK(o.run.launches.size() == 2);
  }
}

TEST_CASE("a seq used twice: the later record is skipped, whichever thread reads it") {
  // Far apart, so that the streaming threads read the two in different ranges.
  std::string content = kHead;
  for (uint64_t s = 1; s <= 200; ++s) content += launch(s);
  content += launch(7);
  content += R"({"type":"sync","seq":200,"api":"clFinish"},)"
             "\n";
  content += kEnd;
  test::Reading r = read_agreeing(content);
  REQUIRE(r.error.empty());
  CHECK(r.warnings ==
        std::vector<std::string>{"FILE:204:1: skipped 2 records that do not" + kSkipped +
                                 "launch record: seq 7 is used by an earlier record (expected each "
                                 "seq once)"});
  CHECK(r.run.launches.size() == 200);
  CHECK(r.run.syncs.empty());
}

TEST_CASE("records after the end record are skipped, whichever thread reads them") {
  std::string content = kHead;
  for (uint64_t s = 1; s <= 100; ++s) content += launch(s);
  content += R"({"type":"end","host_ns":1},)"
             "\n";  // line 104
  for (uint64_t s = 101; s <= 200; ++s) content += launch(s);
  content += kEnd;
  test::Reading r = read_agreeing(content);
  REQUIRE(r.error.empty());
  CHECK(r.warnings ==
        std::vector<std::string>{"FILE:105:1: skipped 101 records that do not" + kSkipped +
                                 "launch record after the end record: expected none"});
  CHECK(r.run.launches.size() == 100);
  CHECK_FALSE(r.run.processes[0].truncated);
  CHECK(r.run.processes[0].end_host_ns == 1);
}

TEST_CASE("a range_end of no open range is skipped") {
  const std::string content =
      kHead + launch(1) +
      R"({"type":"range_end","id":7,"tid":1,"host_ns":5},)"
      "\n"
      R"({"type":"range_end","id":1,"tid":1,"host_ns":6},)"
      "\n"
      R"({"type":"range_end","id":1,"tid":1,"host_ns":7},)"
      "\n"
      R"({"type":"range_begin","id":2,"parent":0,"name":"a","tid":1,"host_ns":8},)"
      "\n"
      R"({"type":"range_begin","id":2,"parent":0,"name":"b","tid":1,"host_ns":9},)"
      "\n" +
      kEnd;
  test::Reading r = read_agreeing(content);
  REQUIRE(r.error.empty());
  CHECK(r.warnings ==
        std::vector<std::string>{"FILE:5:1: skipped 3 records that do not" + kSkipped +
                                 "range_end record: range 7 is not open (expected the id of a "
                                 "range_begin before it)"});
  REQUIRE(r.run.ranges.size() == 2);
  CHECK(r.run.ranges[0].host_end_ns == 6);  // the first range_end of range 1
  CHECK(r.run.ranges[1].name == "a");
}

TEST_CASE("a command that ends before it starts is kept, untimed, and counted") {
  const std::string content =
      kHead + launch(1) +
      R"({"type":"launch","seq":2,"kernel":"\u001b[31mred","device_ns":[0,0,20,10]},)"
      "\n" +
      R"({"type":"transfer","seq":3,"op":"read","bytes":4,"device_ns":[0,0,9,8]},)"
      "\n" +
      kEnd;
  test::Reading r = read_agreeing(content);
  REQUIRE(r.error.empty());
  CHECK(r.warnings ==
        std::vector<std::string>{"FILE:5:1: 2 commands end before it starts on the device "
                                 "(device_ns end < start), counted as untimed; the first: "
                                 "launch seq 2 (kernel \"\\x1b[31mred\"): start 20, end 10"});
  REQUIRE(r.run.launches.size() == 2);
  CHECK_FALSE(r.run.launches[1].duration_ns().has_value());
  CHECK(r.run.transfers.size() == 1);
}

TEST_CASE("control characters from the trace are escaped in messages") {
  // Decoded from JSON escapes: a record type, a kernel name (the untimed test has one).
  test::Reading r =
      read_agreeing(kHead + R"({"type":"\u001b[2J\u0007","seq":2},)" + "\n" + launch(3) + kEnd);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("unknown record type \"\\x1b[2J\\x07\"") != std::string::npos);
  // Raw in the text: not JSON, an error that does not repeat it.
  test::Reading raw = read_agreeing(kHead + launch(1, ",\"tid\":\"a\x1b[2Jb\"") + kEnd);
  CHECK(raw.error.find("FILE:4:1: invalid JSON") == 0);
  CHECK(readers::printable("a\x1b\n\t\\\x7f\xC2\x9b\xC3\xA9\xFF") ==
        "a\\x1b\\n\\t\\\\\\x7f\\xc2\\x9b\xC3\xA9\\xff");
  CHECK(readers::printable(std::string(300, 'x')).size() == 203);
}

TEST_CASE("bytes after the end of the trace: the same error by every path") {
  const std::string rec = launch(1).substr(0, launch(1).size() - 2);
  const std::string col = std::to_string(rec.size() + 1);  // just after the record
  const std::string doc =
      R"({"format":"clprof-trace","version":2,"header":{"pid":1},"records":[)" + rec;
  const std::string doc_end = R"(,{"type":"end"}]})";
  const std::string after_doc = std::to_string(doc.size() + doc_end.size() + 1);
  const std::pair<std::string, std::string> cases[] = {
      {kHead + rec + ",\n" + kEnd + "xyz\n",
       "FILE:6:1: unexpected content after the end of the trace"},
      {kHead + rec + ",\n{\"type\":\"end\"}]} xyz\n",
       "FILE:5:18: unexpected content after the end of the trace"},
      {kHead + rec + ",\n" + kEnd + "]}\n",
       "FILE:6:1: unexpected content after the end of the trace"},
      {kHead + rec + "]}\nxyz\n", "FILE:5:1: unexpected content after the end of the trace"},
      {kHead + rec + "]} \n{\"type\":\"end\"}\n",
       "FILE:5:1: unexpected content after the end of the trace"},
      {kHead + rec + "]},\n", "FILE:4:" + std::to_string(rec.size() + 3) +
                                  ": expected a newline after the end of the records"},
      {kHead + rec + "} x\n", "FILE:4:" + col + ": expected \",\" or \"]}\" after the record"},
      {doc + doc_end + "xyz\n",
       "FILE:1:" + after_doc + ": unexpected content after the end of the trace"},
      {doc + doc_end + "]}\n",
       "FILE:1:" + after_doc + ": unexpected content after the end of the trace"},
  };
  for (const auto& [content, error] : cases) {
    CAPTURE(content);
    test::Reading r = read_agreeing(content);
    CHECK(r.error == error);
  }
  // Whitespace after the end is fine.
  test::Reading ok = read_agreeing(kHead + rec + "]}\n \n\t\n");
  CHECK(ok.error.empty());
}

TEST_CASE("device times fit 63 bits, so a duration never overflows") {
  model::Launch l;
  l.start_ns = 0;
  l.end_ns = std::numeric_limits<int64_t>::max();
  CHECK(l.duration_ns() == std::numeric_limits<int64_t>::max());
  // Values no reader accepts (an importer's bug): no overflow, no duration.
  l.start_ns = std::numeric_limits<int64_t>::min() + 1;
  CHECK_FALSE(l.duration_ns().has_value());
  test::Reading r = read_agreeing(
      kHead + R"({"type":"launch","seq":1,"kernel":"k","device_ns":[0,0,0,9223372036854775807]},)" +
      "\n" + kEnd);
  REQUIRE(r.error.empty());
  CHECK(r.warnings.empty());
  REQUIRE(r.run.launches.size() == 1);
  CHECK(r.run.launches[0].duration_ns() == std::numeric_limits<int64_t>::max());
}
