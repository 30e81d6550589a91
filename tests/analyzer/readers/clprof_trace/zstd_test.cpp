// Traces compressed with zstd (.zst, any name: the frame magic decides): read as the plain
// trace (analyzer/readers/reader.cpp), by the in-memory and the streaming paths; a cut last
// frame drops what it held; a damaged frame is an error naming its byte offset. The frames
// are made with the zstd command-line tool; the cases are skipped without it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "../../../support/skip.hpp"  // tests/support: CLPROF_SKIP_PART
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

const std::string kFirst = test::trace_lines(
    {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
     R"({"type":"device","id":1,"name":"d"},)",
     R"({"type":"launch","seq":1,"kernel":"k1","device_id":1,"device_ns":[0,0,10,20]},)"});
const std::string kSecond =
    R"({"type":"launch","seq":2,"kernel":"k2","device_id":1,"device_ns":[0,0,10,30]},)"
    "\n"
    R"({"type":"end","host_ns":5,"counts":{"launch":2},"incomplete":0,"dropped":0})"
    "\n]}\n";

bool have_zstd() {
  if (std::system("zstd --version >/dev/null 2>&1") == 0) return true;
  CLPROF_SKIP_PART("no zstd command (Debian's zstd) to make the frames");
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// `text` as one zstd frame (the CLI's default: with a content checksum).
std::string frame(test::TempDir& dir, const std::string& text) {
  const std::string in = dir.write("frame.txt", text);
  REQUIRE(std::system(("zstd -q -f " + in + " -o " + in + ".zst").c_str()) == 0);
  return slurp(in + ".zst");
}

struct Outcome {
  model::Run run;
  readers::Diagnostics diag;
  std::string error;
};

Outcome load(test::TempDir& dir, const std::string& content) {
  Outcome o;
  const std::string path = dir.write("t.json.zst", content);
  try {
    readers::load_run({path}, "", o.run, o.diag);
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

}  // namespace

TEST_CASE("zstd: a trace in two frames reads as the plain trace") {
  if (!have_zstd()) return;
  test::TempDir dir;
  const std::string z = frame(dir, kFirst) + frame(dir, kSecond);
  Outcome o = load(dir, z);
  REQUIRE(o.error.empty());
  CHECK(o.diag.warnings.empty());
  REQUIRE(o.run.launches.size() == 2);  // k1 and k2, as written
  CHECK(o.run.launches[0].name == "k1");
  CHECK(o.run.launches[1].name == "k2");
  CHECK_FALSE(o.run.processes[0].truncated);
}

TEST_CASE("zstd: a last frame cut short reads up to the last complete frame, as truncated") {
  if (!have_zstd()) return;
  test::TempDir dir;
  const std::string first = frame(dir, kFirst), second = frame(dir, kSecond);
  Outcome o = load(dir, first + second.substr(0, second.size() / 2));
  REQUIRE_MESSAGE(o.error.empty(), o.error);
  // kFirst alone: the header, the device and launch k1, no end record.
  REQUIRE(o.run.launches.size() == 1);
  CHECK(o.run.launches[0].name == "k1");
  CHECK(o.run.processes[0].truncated);
  REQUIRE(o.diag.warnings.size() == 1);
  CHECK(o.diag.warnings[0].find("truncated") != std::string::npos);
}

TEST_CASE("zstd: a damaged frame is an error naming the byte where that frame starts") {
  if (!have_zstd()) return;
  test::TempDir dir;
  const std::string first = frame(dir, kFirst);
  std::string second = frame(dir, kSecond);
  second[second.size() - 6] ^= 0x55;  // in its last block or checksum
  Outcome o = load(dir, first + second);
  // The second frame starts right after the first one's bytes.
  const std::string expected =
      "damaged zstd frame starting at byte " + std::to_string(first.size());
  CHECK_MESSAGE(o.error.find(expected) != std::string::npos, o.error);
}

TEST_CASE("zstd: the streaming reader reads the frames as the plain file, with any threads") {
  if (!have_zstd()) return;
  test::TempDir dir;
  const std::string path = dir.write("s.json.zst", frame(dir, kFirst) + frame(dir, kSecond));
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    model::Run run;
    readers::Diagnostics diag;
    auto a = readers::detail::stream_clprof_trace_file(path, run, test::kernel_totals_factory(),
                                                       diag, test::small_chunks(threads, 24));
    const auto& rows = static_cast<test::KernelTotals&>(*a).rows;
    REQUIRE(rows.size() == 2);  // k1 and k2, once each
    for (const auto& [name, row] : rows) CHECK(row.count == 1);
    CHECK(diag.warnings.empty());
  }
}

TEST_CASE("zstd: the shim's layout, a skippable frame then a damaged one, names its start") {
  if (!have_zstd()) return;
  test::TempDir dir;
  // The shim's .zst layout (shim/output/zstd_frames.hpp): a skippable frame (magic
  // 0x184D2A50, 4-byte little-endian size) holding the header line, then the trace's frame.
  const std::string line = kFirst.substr(0, kFirst.find('\n') + 1);
  std::string skippable = {'\x50', '\x2A', '\x4D', '\x18'};
  for (int i = 0; i < 4; ++i) skippable += static_cast<char>((line.size() >> (8 * i)) & 0xFF);
  skippable += line;
  std::string second = frame(dir, kFirst + kSecond);
  second[4] = static_cast<char>(second[4] | 0x08);  // the frame header's reserved bit (RFC 8878)
  Outcome o = load(dir, skippable + second);
  // The damaged frame starts after the skippable one: 8 header bytes + the line.
  const std::string expected =
      "damaged zstd frame starting at byte " + std::to_string(8 + line.size());
  CHECK_MESSAGE(o.error.find(expected) != std::string::npos, o.error);
  // And undamaged, the same bytes read as the plain trace: k1 and k2.
  second[4] = static_cast<char>(second[4] & ~0x08);
  Outcome good = load(dir, skippable + second);
  REQUIRE_MESSAGE(good.error.empty(), good.error);
  CHECK(good.run.launches.size() == 2);
}
