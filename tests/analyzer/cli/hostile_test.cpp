// Hostile inputs and options through the real binary: each case crashed, hung or printed a
// wrong figure before (issue 18). Inputs are generated here, never committed.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli_support.hpp"

using clitest::run;

namespace {

// A Chrome trace with one complete event per name (1 us each).
std::string chrome_trace(const std::vector<std::string>& names) {
  std::string t = "{\"traceEvents\": [";
  for (size_t i = 0; i < names.size(); ++i)
    t += (i ? "," : "") + std::string("{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":") +
         std::to_string(10 * i) + ",\"dur\":1,\"name\":\"" + names[i] + "\"}";
  return t + "]}";
}

}  // namespace

TEST_CASE("a 30,000-character kernel name through the GEMM rules and --filter") {
  const std::string long_name = "sgemm_Col_NN_B0_MX" + std::string(30000, '1');
  const auto path = clitest::write_temp("long.json", chrome_trace({long_name, "vadd"}));
  for (const char* cmd : {"summary", "gemm", "kernels"}) {
    auto r = run({cmd, "--format", "csv", path});
    CHECK_MESSAGE(r.status == 0, cmd, r.err);
  }
  auto f = run({"kernels", "--format", "csv", "--filter", "M[XL]\\d+$", path});
  CHECK(f.status == 0);
  // Read names are cut at 4096 bytes, with a warning.
  CHECK(f.out.find(long_name.substr(0, 4096) + ",") != std::string::npos);
  CHECK(f.err.find("1 names longer than 4096 bytes were cut") != std::string::npos);
  CHECK(f.out.find("vadd") == std::string::npos);
}

TEST_CASE("--filter '(a+)+$' on a long name ends (no backtracking)") {
  const auto path =
      clitest::write_temp("aaa.json", chrome_trace({std::string(50000, 'a') + "!", "aaa"}));
  auto r = run({"kernels", "--format", "csv", "--filter", "(a+)+$", path});
  CHECK(r.status == 0);
  CHECK(r.out.find("aaa\"") == std::string::npos);
  CHECK(r.out.find("\naaa,") != std::string::npos);
  CHECK(r.out.find("!") == std::string::npos);
}

TEST_CASE("invalid regexes exit 2 with the option and RE2's reason") {
  auto f = run({"kernels", "--filter", "(a)\\1", "@basic.json"});
  CHECK(f.status == 2);
  CHECK(f.err ==
        "clprof: error: --filter: invalid regex '(a)\\1': invalid escape sequence: \\1 "
        "(backreferences and lookaround are not supported)\n");
  auto s = run({"kernels", "--speedup", "x(=2", "@basic.json"});
  CHECK(s.status == 2);
  CHECK(s.err.find("invalid regex 'x(': missing ): x(") != std::string::npos);
}

TEST_CASE("--rules nested 30,000 deep is an error at the offending bracket") {
  const auto path = clitest::write_temp(
      "deep.json", "{\"gemm_rules\":" + std::string(30000, '[') + std::string(30000, ']') + "}");
  auto r = run({"gemm", "--rules", path, "@basic.json"});
  CHECK(r.status == 2);
  CHECK(r.err == "clprof: error: " + path + ":1:270: JSON nested deeper than 256 levels\n");
}

TEST_CASE("--speedup 'x=1e-300' is rejected, not printed as INT64_MIN") {
  auto r = run({"kernels", "--speedup", "x=1e-300", "@basic.json"});
  CHECK(r.status == 2);
  CHECK(r.err.find("outside [0.001, 1000000]") != std::string::npos);
}

TEST_CASE("duration sums past 2^63 ns are capped with one warning, not wrapped") {
  // Five kernels of 2^61 ns (73 years, the importers' ceiling) on five threads: the total is
  // 5 * 2^61 > 2^63 - 1.
  std::string t = "[";
  for (int tid = 1; tid <= 5; ++tid)
    t += std::string(tid > 1 ? "," : "") +
         "{\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(tid) +
         ",\"ts\":0,\"dur\":2305843009213693,\"name\":\"k\"}";
  const auto path = clitest::write_temp("huge.json", t + "]");
  for (const char* cmd : {"kernels", "summary", "layers"}) {
    auto r = run({cmd, "--format", "csv", path});
    CHECK_MESSAGE(r.status == 0, cmd);
    CHECK_MESSAGE(r.err.find("exceeded the 64-bit nanosecond range") != std::string::npos, cmd,
                  r.err);
    CHECK_MESSAGE(r.out.find("-9223372036854775") == std::string::npos, cmd, r.out);
  }
  auto k = run({"kernels", "--format", "csv", path});
  CHECK(k.out.find(",9223372036854775807,") != std::string::npos);
  // Below the limit: exact and no warning.
  const auto ok = clitest::write_temp(
      "ok.json",
      "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2305843009213693,\"name\":\"k\"}]");
  auto r = run({"kernels", "--format", "csv", ok});
  CHECK(r.err.find("warning") == std::string::npos);
  CHECK(r.out.find(",2305843009213693000,") != std::string::npos);
}

// Every other sum of the analyses (transfers' device and host times and bytes, waits, builds,
// a GEMM call's kernels) on a hand-made clprof trace: two of each, 6e18 ns (190 years) apiece,
// so each total is 1.2e19 > 2^63 - 1 (it would wrap to -6446744073709551616); two transfers of
// 2^63 bytes, 2^64 in all (it would wrap to 0).
TEST_CASE("time and byte sums past 64 bits are capped with a warning in every view") {
  const std::string big = "6000000000000000000";
  std::string t =
      R"({"format":"clprof-trace","version":3,"header":{"pid":5,"command_line":["x"],"host_start_ns":0},"records":[)"
      "\n"
      R"({"type":"device","id":1,"name":"A"},)"
      "\n"
      R"({"type":"clock_sync","device_id":1,"method":"clGetDeviceAndHostTimer","offset_ns":0,"uncertainty_ns":0},)"
      "\n"
      R"({"type":"range_begin","id":1,"parent":0,"name":"clblast::Gemm<float>","tid":1,"host_ns":0,"blas":{"library":"clblast","api":"clblast::Gemm<float>","routine":"gemm","precision":"s","layout":"row","trans_a":"n","trans_b":"n","m":8,"n":8,"k":8,"batch":1,"a_mem":0,"a_ld":8,"b_mem":0,"b_ld":8,"c_mem":0,"c_ld":8,"queue_ids":[1]}},)"
      "\n";
  for (int i = 1; i <= 2; ++i) {
    const std::string seq = std::to_string(i);
    t +=
        R"({"type":"launch","seq":)" + seq +
        R"(,"tid":1,"rc":0,"kernel":"k","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[1],"lws":null,"args":[],"host_ns":[0,1],"device_ns":[0,0,0,)" +
        big + R"(],"status":"complete","ranges":[],"call":1},)" + "\n";
  }
  t += R"({"type":"range_end","id":1,"tid":1,"host_ns":2,"status":0},)"
       "\n";
  for (int i = 3; i <= 4; ++i) {
    const std::string seq = std::to_string(i);
    t +=
        R"({"type":"transfer","seq":)" + seq +
        R"(,"tid":1,"rc":0,"api":"clEnqueueReadBuffer","op":"read","queue_id":1,"device_id":1,"bytes":9223372036854775808,"blocking":true,"host_ns":[0,)" +
        big + R"(],"device_ns":[0,0,0,)" + big + R"(],"status":"complete","ranges":[]},)" + "\n";
  }
  for (int i = 5; i <= 6; ++i)
    t += R"({"type":"sync","seq":)" + std::to_string(i) +
         R"(,"tid":1,"rc":0,"api":"clFinish","queue_id":1,"host_ns":[0,)" + big + "]},\n";
  for (int i = 1; i <= 2; ++i)
    t += R"({"type":"build","api":"clBuildProgram","program_id":)" + std::to_string(i) +
         R"(,"options":"","device_ids":[1],"host_ns":[0,)" + big +
         R"(],"rc":0,"build_status":[0],"kernels":["k"],"source_hash":""},)" + "\n";
  t += R"({"type":"end","host_ns":)" + big +
       R"(,"counts":{},"incomplete":0,"dropped":0})"
       "\n]}\n";
  const auto path = clitest::write_temp("huge_sums.json", t);
  const std::string wrapped = "6446744073709551616";  // 1.2e19 - 2^64, a wrapped time total
  for (const char* cmd : {"transfers", "summary", "api", "builds", "gemm", "kernels", "advise"}) {
    CAPTURE(cmd);
    for (const char* format : {"csv", "json"}) {
      auto r = run({cmd, "--format", format, path});
      INFO(r.err);
      CHECK(r.status == 0);
      CHECK(r.err.find("exceeded the 64-bit nanosecond range") != std::string::npos);
      CHECK(r.out.find(wrapped) == std::string::npos);
    }
  }
  // The bytes: 2^63 + 2^63 is capped at 2^64 - 1, said, and never printed as 0.
  for (const char* cmd : {"transfers", "summary"}) {
    CAPTURE(cmd);
    auto r = run({cmd, "--format", "json", path});
    CHECK(r.err.find("a byte total exceeded the 64-bit range") != std::string::npos);
    CHECK(r.out.find("18446744073709551615") != std::string::npos);
  }
}

TEST_CASE("--peak-from and --rules take regular files of at most 16 MiB: /dev/zero, a FIFO") {
  const auto dir = clitest::temp_dir();
  const std::string fifo = dir + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const char* option : {"--peak-from", "--rules"}) {
    for (const std::string& path : {std::string("/dev/zero"), fifo}) {
      auto r = run({"gemm", option, path, "@basic.json"});
      CHECK_MESSAGE(r.status == 2, option, path);
      CHECK(r.err.rfind(
                "clprof: error: cannot read '" + path + "': cannot read: not a regular file", 0) ==
            0);
    }
    const std::string big = dir + "/big";
    FILE* f = std::fopen(big.c_str(), "w");
    REQUIRE(f);
    std::fclose(f);
    REQUIRE(truncate(big.c_str(), (16 << 20) + 1) == 0);
    auto r = run({"gemm", option, big, "@basic.json"});
    CHECK(r.status == 2);
    CHECK(r.err == "clprof: error: '" + big + "' is larger than 16 MiB\n");
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLPROF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CLPROF_TEST_SANITIZED 1
#endif
#endif

TEST_CASE("--max-memory: past the ceiling a clear error (exit 1), not swapping") {
  // An Arm NN profile of 100,000 inferences (3 MB) whose 200,000 launches need ~200 MB.
  std::string raw, stamps;
  for (int i = 0; i < 100000; ++i) {
    raw += (i ? ",1.5" : "1.5");
    stamps += (i ? "," : "") + std::to_string(1000 + 10 * i);
  }
  auto m = [&](const std::string& key, const std::string& values) {
    return "\"" + key + "\": {\"type\": \"Measurement\", \"raw\": [" + values +
           "], \"unit\": \"us\"}";
  };
  const auto path = clitest::write_temp(
      "big.json", "{\"ArmNN\": {\"inference_measurements_#1\": {\"type\": \"Event\", " +
                      m("Wall clock time_#1", raw) + ", " +
                      m("Wall clock time (Start)_#1", stamps) +
                      ", \"W_#2\": {\"type\": \"Event\", " + m("OpenClKernelTimer/0: a_#3", raw) +
                      ", " + m("OpenClKernelTimer/1: b_#4", raw) + "}}}}\n");
  auto bad = run({"kernels", "--max-memory", "12Q", path});
  CHECK(bad.status == 2);
  CHECK(
      bad.err ==
      "clprof: error: --max-memory: expected a size such as 512M, 4G or 0 (no limit), not '12Q'\n");
  auto full = run({"kernels", "--format", "csv", "--max-memory", "0", path});
  CHECK(full.status == 0);
  CHECK(full.out.find("\na,100000,") != std::string::npos);
#ifndef CLPROF_TEST_SANITIZED
  auto r = run({"kernels", "--max-memory", "64M", path});
  CHECK(r.status == 1);
  CHECK(r.out == "");
  CHECK(
      r.err ==
      "clprof: error: out of memory: reading and analysing the input needs more than the 64 MiB of "
      "--max-memory (default: half of the RAM); raise it, e.g. --max-memory 16G, or --max-memory 0 "
      "for no limit\n");
  // The default ceiling leaves room for this input.
  CHECK(run({"kernels", path}).status == 0);
#else
  MESSAGE("--max-memory is not applied in sanitizer builds; only the option parsing is checked");
#endif
}
