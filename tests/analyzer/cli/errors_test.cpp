// The command line's failures that golden cases cannot hold (temporary files, FIFOs, files
// that must not be overwritten) and properties across commands. Messages and exit statuses
// of everything else: tests/golden/error-*.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_support.hpp"

using clitest::run;

TEST_CASE("usage: no command exits 2; --help and --version succeed") {
  CHECK(run({}).status == 2);
  auto h = run({"--help"});
  CHECK(h.status == 0);
  CHECK(h.out.find("layers") != std::string::npos);
  auto v = run({"--version"});
  CHECK(v.status == 0);
  CHECK(v.out.rfind("clprof ", 0) == 0);
}

TEST_CASE("a FIFO is rejected as input, without hanging") {
  const std::string fifo = clitest::temp_dir() + "/trace.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto f = run({"kernels", fifo});
  CHECK(f.status == 2);
  CHECK(f.err == "clprof: error: " + fifo +
                     ": cannot read: not a regular file (save the trace to a file)\n");
  auto p = run({"gemm", "--peak-from", fifo, "@basic.json"});
  CHECK(p.status == 2);
  CHECK(p.err.find("not a regular file") != std::string::npos);
  ::unlink(fifo.c_str());
}

TEST_CASE("-o writes the result to a file, never over one of the inputs") {
  const auto dir = clitest::temp_dir();
  auto r = run({"kernels", "--format", "csv", "-o", dir + "/k.csv", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == "");
  CHECK(clitest::read_file(dir + "/k.csv").rfind("name,count,total_ns,", 0) == 0);
  auto missing = run({"kernels", "-o", "/nonexistent/dir/k.csv", "@basic.json"});
  CHECK(missing.status == 1);
  CHECK(missing.err == "clprof: error: cannot open '/nonexistent/dir/k.csv' for writing\n");
  // The input, under its own name or another (a hard link): refused, and left as it was.
  const std::string input =
      clitest::write_temp("in.json", clitest::read_file(clitest::data("basic.json")));
  const std::string link = input + ".link";
  REQUIRE(::link(input.c_str(), link.c_str()) == 0);
  for (const std::string& out : {input, link}) {
    auto same = run({"kernels", "-o", out, input});
    CHECK(same.status == 2);
    CHECK(same.err == "clprof: error: -o " + out +
                          ": that is an input of this command; write the result elsewhere\n");
  }
  CHECK(clitest::read_file(input) == clitest::read_file(clitest::data("basic.json")));
  const std::string rules = clitest::write_temp("rules.json", "{\"gemm_rules\": []}");
  CHECK(run({"gemm", "--rules", rules, "-o", rules, "@basic.json"}).status == 2);
  CHECK(clitest::read_file(rules) == "{\"gemm_rules\": []}");
}

TEST_CASE("the table fits $COLUMNS; without it and a terminal, nothing is cut") {
  auto narrow = run({"gemm", "@long_layers.json"}, {{"COLUMNS", "70"}});
  auto piped = run({"gemm", "@long_layers.json"}, {{"COLUMNS", ""}});
  for (size_t b = 0, e; (e = narrow.out.find('\n', b)) != std::string::npos; b = e + 1)
    CHECK(e - b <= 70);
  CHECK(narrow.out.find("..") != std::string::npos);
  CHECK(piped.out.find("resnet50_v1_inference_iteration/conv1") != std::string::npos);
  CHECK(piped.out.find("gemmlowp_mm_reshaped_only_rhs_t") != std::string::npos);
}

TEST_CASE("streaming and in-memory paths give the same results") {
  // --filter '.' keeps everything but forces the in-memory path (load_run + feed).
  for (const char* cmd : {"kernels", "layers", "gemm", "summary"}) {
    for (const char* format : {"json", "csv", "table"}) {
      auto streamed = run({cmd, "--format", format, "--threads", "2", "@basic.json"});
      auto loaded = run({cmd, "--format", format, "--filter", ".", "@basic.json"});
      CHECK_MESSAGE(streamed.status == 0, cmd);
      CHECK_MESSAGE(streamed.out == loaded.out, cmd, " ", format);
    }
  }
}

TEST_CASE("--quiet keeps errors only; --verbose says how the input was read") {
  const std::string full = clitest::read_file(clitest::data("basic.json"));
  const auto cut = clitest::write_temp(
      "cut.json", full.substr(0, full.find("{\"type\":\"launch\",\"seq\":4") + 30));
  auto normal = run({"kernels", cut});
  CHECK(normal.err.find("clprof: warning: ") == 0);
  auto quiet = run({"kernels", "--quiet", cut});
  CHECK(quiet.status == 0);
  CHECK(quiet.err == "");
  CHECK(quiet.out == normal.out);
  auto verbose = run({"kernels", "-v", "@basic.json"});
  CHECK(verbose.err.find("clprof: debug: streamed 1 trace(s)") != std::string::npos);
  auto failing = run({"kernels", "--quiet", "/nonexistent.json"});
  CHECK(failing.err ==
        "clprof: error: cannot open '/nonexistent.json': No such file or directory\n");
}
