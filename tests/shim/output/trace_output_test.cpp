// The trace file as the harvester fills it (output/trace_output.hpp): record lines in the
// order written, each exactly the formatter's text; the end record's counts; the timer
// that writes what waits when records come slowly.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "output/record_format.hpp"
#include "output/trace_output.hpp"
#include "record_text.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using shim_test::read_file;
using shim_test::record_text;
using shim_test::TempFile;

namespace {

const char* const kHeader = R"({"format":"clprof-trace","version":1,"header":{},"records":[)";

std::unique_ptr<OpRecord> record(RecordKind kind, std::uint64_t seq) {
  auto r = std::make_unique<OpRecord>();
  std::memset(static_cast<void*>(r.get()), 0, sizeof(OpRecord));
  r->kind = kind;
  r->seq = seq;
  r->tid = 7;
  r->queue_id = 1;
  r->host_begin_ns = static_cast<std::int64_t>(seq * 100);
  r->host_end_ns = static_cast<std::int64_t>(seq * 100 + 50);
  r->status = OpStatus::Complete;
  if (kind == RecordKind::Launch) {
    r->kernel_name = "\"k\"";
    r->work_dim = 1;
    r->gws[0] = 64;
  }
  if (kind == RecordKind::Transfer) {
    r->api = "clEnqueueReadBuffer";
    r->op = TransferOp::Read;
    r->bytes = 4096;
  }
  if (kind == RecordKind::Sync) r->api = "clFinish";
  return r;
}

}  // namespace

TEST_CASE(
    "trace output: lines in the order written, the formatter's text, counts in the end record") {
  TempFile file;
  TraceOutput out;
  std::string error;
  REQUIRE(out.open(file.path, kHeader, error));
  const auto launch1 = record(RecordKind::Launch, 1);
  const auto launch2 = record(RecordKind::Launch, 2);
  const auto transfer = record(RecordKind::Transfer, 3);
  const auto sync = record(RecordKind::Sync, 4);
  const std::string mark = R"({"type":"mark","name":"m","tid":7,"host_ns":5})";
  const std::string range_end = R"({"type":"range_end","id":1,"tid":7,"host_ns":6})";
  out.write_op(*launch1);
  out.write_line(LineKind::Mark, mark);
  out.write_op(*launch2);  // the same kernel again: the formatter's cache at work
  out.write_op(*transfer);
  out.write_op(*sync);
  out.write_line(LineKind::RangeEnd, range_end);
  out.finish(/*end_ns=*/900, /*incomplete=*/3);

  const std::string text = read_file(file.path);
  const std::string expected_records = std::string(kHeader) + "\n" + record_text(*launch1) + ",\n" +
                                       mark + ",\n" + record_text(*launch2) + ",\n" +
                                       record_text(*transfer) + ",\n" + record_text(*sync) + ",\n" +
                                       range_end + ",\n";
  REQUIRE(text.compare(0, expected_records.size(), expected_records) == 0);
  rapidjson::Document d;
  d.Parse(text.c_str());
  REQUIRE_FALSE(d.HasParseError());
  const auto& records = d["records"];
  REQUIRE(records.Size() == 7);
  const auto& end = records[6];
  CHECK(std::string(end["type"].GetString()) == "end");
  CHECK(end["host_ns"].GetInt64() == 900);
  CHECK(end["incomplete"].GetInt64() == 3);
  const auto& counts = end["counts"];
  CHECK(counts["launch"].GetInt64() == 2);
  CHECK(counts["transfer"].GetInt64() == 1);
  CHECK(counts["sync"].GetInt64() == 1);
  CHECK(counts["mark"].GetInt64() == 1);
  CHECK(counts["range_end"].GetInt64() == 1);
  CHECK(counts["device"].GetInt64() == 0);
  CHECK(counts["warning"].GetInt64() == 0);
}

TEST_CASE("trace output: the flush timer writes what waits once the interval has passed") {
  TempFile file;
  TraceOutput out;
  std::string error;
  REQUIRE(out.open(file.path, kHeader, error));
  const std::string header_line = std::string(kHeader) + "\n";
  REQUIRE(read_file(file.path) == header_line);
  constexpr std::int64_t kEvery = 100'000'000;  // ns; the times below are made up
  const std::int64_t t0 = 5'000'000'000;
  out.restart_flush_timer(t0);
  const std::string mark = R"({"type":"mark","name":"m","tid":7,"host_ns":5})";
  out.write_line(LineKind::Mark, mark);
  out.flush_if_due(t0 + kEvery - 1, kEvery);
  CHECK(read_file(file.path) == header_line);  // not yet
  out.flush_if_due(t0 + kEvery, kEvery);
  CHECK(read_file(file.path) == header_line + mark + ",\n");
  // The interval runs from that write: the next line waits for another whole one.
  out.write_line(LineKind::Mark, mark);
  out.flush_if_due(t0 + 2 * kEvery - 1, kEvery);
  CHECK(read_file(file.path) == header_line + mark + ",\n");
  out.flush_if_due(t0 + 2 * kEvery, kEvery);
  CHECK(read_file(file.path) == header_line + mark + ",\n" + mark + ",\n");
  // Nothing waiting: nothing to write, however long it has been.
  out.flush_if_due(t0 + 10 * kEvery, kEvery);
  CHECK(read_file(file.path) == header_line + mark + ",\n" + mark + ",\n");
  out.finish(0, 0);
}

TEST_CASE(
    "trace output: a sync round writes what waits unless the file was written within the gap") {
  TempFile file;
  TraceOutput out;
  std::string error;
  REQUIRE(out.open(file.path, kHeader, error));
  const std::string header_line = std::string(kHeader) + "\n";
  constexpr std::int64_t kGap = 1'000'000;  // ns; the times below are made up
  const std::int64_t t0 = 5'000'000'000;
  out.restart_flush_timer(t0);
  const std::string mark = R"({"type":"mark","name":"m","tid":7,"host_ns":5})";
  // Nothing waiting: done at once.
  CHECK(out.flush_if_older(t0, kGap));
  out.write_line(LineKind::Mark, mark);
  CHECK(!out.flush_if_older(t0 + kGap - 1, kGap));  // the header went out at t0
  CHECK(read_file(file.path) == header_line);
  CHECK(out.flush_if_older(t0 + kGap, kGap));
  CHECK(read_file(file.path) == header_line + mark + ",\n");
  // The gap runs from that write; the flush timer's interval plays no part.
  out.write_line(LineKind::Mark, mark);
  CHECK(!out.flush_if_older(t0 + 2 * kGap - 1, kGap));
  CHECK(out.flush_if_older(t0 + 2 * kGap, kGap));
  CHECK(read_file(file.path) == header_line + mark + ",\n" + mark + ",\n");
  out.finish(0, 0);
}
