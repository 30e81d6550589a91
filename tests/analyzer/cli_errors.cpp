// Error paths through the real binary: exit status 2 for bad usage and bad input, with
// file:line:column messages; warnings printed once.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_support.hpp"

using clitest::run;

TEST_CASE("usage: unknown option and missing subcommand exit 2 with a usage hint") {
  auto r = run({"kernels", "--bogus", "@basic.json"});
  CHECK(r.status == 2);
  CHECK(r.out == "");
  CHECK(r.err.find("--bogus") != std::string::npos);
  CHECK(r.err.find("--help") != std::string::npos);
  CHECK(run({}).status == 2);
  auto unknown = run({"frobnicate"});
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(run({"kernels"}).status == 2);  // TRACE is required
}

TEST_CASE("usage: --help and --version succeed") {
  auto h = run({"--help"});
  CHECK(h.status == 0);
  CHECK(h.out.find("layers") != std::string::npos);
  auto k = run({"kernels", "--help"});
  CHECK(k.status == 0);
  CHECK(k.out.find("--speedup") != std::string::npos);
  auto v = run({"--version"});
  CHECK(v.status == 0);
  CHECK(v.out.rfind("clprof ", 0) == 0);
}

TEST_CASE("usage: bad option values exit 2") {
  CHECK(run({"kernels", "--format", "xml", "@basic.json"}).status == 2);
  CHECK(run({"kernels", "--sort", "colour", "@basic.json"}).status == 2);
  CHECK(run({"layers", "--sort", "colour", "@basic.json"}).status == 2);
  CHECK(run({"kernels", "--filter", "(", "@basic.json"}).status == 2);
  CHECK(run({"kernels", "--iteration", "0", "@basic.json"}).status == 2);
  CHECK(run({"kernels", "--iteration", "3:1", "@basic.json"}).status == 2);
  CHECK(run({"kernels", "--iteration-range", "nope", "--iteration", "1", "@basic.json"}).status == 2);
}

TEST_CASE("bad --speedup exits 2 and names the spec") {
  for (const char* spec : {"vadd", "vadd=0", "vadd=-1", "vadd=fast", "(=2", "=2"}) {
    auto r = run({"kernels", "--speedup", spec, "@basic.json"});
    CHECK_MESSAGE(r.status == 2, spec);
    CHECK(r.err.find("--speedup") != std::string::npos);
  }
  CHECK(run({"layers", "--speedup", "a=b=2", "@basic.json"}).status == 0);  // regex "a=b"
}

TEST_CASE("missing and garbage inputs exit 2 with file:line:column") {
  auto m = run({"kernels", "/nonexistent/trace.json"});
  CHECK(m.status == 2);
  CHECK(m.err.find("clprof: error: /nonexistent/trace.json:") == 0);
  const auto garbage = clitest::write_temp("garbage.json", "this is not a trace\n");
  auto g = run({"kernels", garbage});
  CHECK(g.status == 2);
  CHECK(g.err.find(garbage + ":") != std::string::npos);
  auto forced = run({"summary", "--input-format", "clprof", garbage});
  CHECK(forced.status == 2);
  CHECK(forced.err.find(garbage + ":1:") != std::string::npos);
}

TEST_CASE("a device or a FIFO is rejected as input, without hanging") {
  auto dev = run({"kernels", "/dev/null"});
  CHECK(dev.status == 2);
  CHECK(dev.err.find("/dev/null:0:0: cannot read: not a regular file") != std::string::npos);
  // A FIFO with no writer: opening it must not block.
  const std::string fifo = clitest::temp_dir() + "/trace.fifo";
  ::unlink(fifo.c_str());
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto f = run({"kernels", fifo});
  CHECK(f.status == 2);
  CHECK(f.err.find("not a regular file") != std::string::npos);
  ::unlink(fifo.c_str());
}

TEST_CASE("a truncated trace is analysed up to the last complete record, with one warning") {
  const std::string full = clitest::read_file(clitest::data("basic.json"));
  // Cut in the middle of the 4th launch (seq 4): launches 1-3 remain.
  const auto cut = full.find("{\"type\":\"launch\",\"seq\":4");
  REQUIRE(cut != std::string::npos);
  const auto path = clitest::write_temp("cut.json", full.substr(0, cut + 30));
  auto r = run({"kernels", "--format", "csv", path});
  CHECK(r.status == 0);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][0] == "XgemmDirectNN");  // 400 ns
  CHECK(rows[1][1] == "1");
  CHECK(rows[2][0] == "vadd");  // 100 + 200 ns
  CHECK(rows[2][1] == "2");
  size_t warnings = 0;
  for (size_t p = 0; (p = r.err.find("clprof: warning:", p)) != std::string::npos; ++p) ++warnings;
  CHECK(warnings == 1);
  CHECK(r.err.find(path) != std::string::npos);
}

TEST_CASE("bad --rules files exit 2 with file:line:column") {
  struct Case {
    const char* text;
    const char* where;  // expected ":line:column:" prefix
    const char* what;
  };
  const Case cases[] = {
      {"{\"gemm_rules\": [\n  {\"id\": \"x\",\n   \"kernel\": \"k\", }\n]}", ":3:", "invalid JSON"},
      {"{\"gemm_rules\": [\n  {\"id\": \"x\", \"kernel\": \"(\",\n   \"m\": {\"const\": 1}, \"n\": {\"const\": 1}, \"k\": {\"const\": 1}}\n]}",
       ":2:", "invalid regex"},
      {"{\"gemm_rules\": [\n  {\"id\": \"x\", \"kernel\": \"k\",\n   \"m\": {\"arg\": 0, \"type\": \"float\"}, \"n\": {\"const\": 1}, \"k\": {\"const\": 1}}\n]}",
       ":3:", "int32, uint32"},
      {"{\"gemm_rules\": [\n  {\"id\": \"x\", \"kernel\": \"k\", \"m\": {\"const\": 1},\n   \"n\": {\"const\": 1}, \"k\": {\"const\": 1}, \"bogus\": 1}\n]}",
       ":3:", "unknown key \"bogus\""},
      {"{\"gemm_rules\": [{\"id\": \"x\", \"kernel\": \"k\"}]}", ":1:", "needs \"m\""},
  };
  for (const auto& c : cases) {
    const auto path = clitest::write_temp("rules.json", c.text);
    auto r = run({"gemm", "--rules", path, "@basic.json"});
    CHECK_MESSAGE(r.status == 2, c.text);
    CHECK_MESSAGE(r.err.find(path + c.where) != std::string::npos, r.err);
    CHECK_MESSAGE(r.err.find(c.what) != std::string::npos, r.err);
  }
  CHECK(run({"gemm", "--rules", "/nonexistent/rules.json", "@basic.json"}).status == 2);
}

TEST_CASE("bad clpeak file exits 2") {
  const auto path = clitest::write_temp("clpeak.txt", "Platform: x\n  Device: y\n");
  auto r = run({"gemm", "--peak-from", path, "@basic.json"});
  CHECK(r.status == 2);
  CHECK(r.err.find("Single-precision") != std::string::npos);
}

TEST_CASE("-o writes the output to a file") {
  const auto dir = clitest::temp_dir();
  auto r = run({"kernels", "--format", "csv", "-o", dir + "/k.csv", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == "");
  CHECK(clitest::parse_csv(clitest::read_file(dir + "/k.csv")).size() == 4);
  CHECK(run({"kernels", "-o", "/nonexistent/dir/k.csv", "@basic.json"}).status == 1);
}
