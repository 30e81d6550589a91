// Golden tests of `clprof summary`, `clprof gemm` and `clprof launches` on data/basic.json.
// Hand-computed: device intervals [10000,10100] [11000,11400] [11300,11500] [12000,13000]
// [20000,20600] [20600,20900] [21000,22000] -> union 100+500+1000+900+1000 = 3500 ns;
// host span 500 (first build) .. 30000 (clFinish end) = 29500 ns; utilization 3500/29500.
// GEMM: M=64 N=32 K=16 -> 65536 FLOP; 65536 / 400 ns = 163.84 GFLOPS.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "cli_support.hpp"

using clitest::run;

TEST_CASE("summary: table") {
  auto r = run({"summary", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Processes         1
Wall time         29.50 us
Device busy       3.500 us
Utilization       11.9 %
Kernel time       3.600 us
Launches          7
Distinct kernels  3
Transfers         1 (4.0 KiB, 500 ns)
Build time        500 ns
GEMM work         0.0002621 GFLOP

Device       Wall      Busy  Util %  Launches  Kernels  Transfers  Xfer time      GFLOP
-------  --------  --------  ------  --------  -------  ---------  ---------  ---------
TestDev  29.50 us  3.500 us    11.9         7        3    4.0 KiB     500 ns  0.0002621
)");
}

TEST_CASE("summary: json, read back") {
  auto r = run({"summary", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsObject());
  CHECK(d["wall_ns"].GetInt64() == 29500);
  CHECK(d["device_busy_ns"].GetInt64() == 3500);
  CHECK(d["utilization"].GetDouble() == doctest::Approx(100.0 * 3500 / 29500));
  CHECK(d["launches"].GetInt() == 7);
  CHECK(d["kernels_distinct"].GetInt() == 3);
  CHECK(d["transfer_bytes"].GetInt() == 4096);
  CHECK(d["transfer_ns"].GetInt() == 500);
  CHECK(d["build_ns"].GetInt() == 500);
  CHECK(d["gflop_total"].GetDouble() == doctest::Approx(4 * 65536 / 1e9));
  REQUIRE(d["devices"].Size() == 1);
  CHECK(std::string(d["devices"][0]["name"].GetString()) == "TestDev");
  CHECK(d["devices"][0]["device_busy_ns"].GetInt64() == 3500);
  CHECK(d["devices"][0]["kernels_distinct"].GetInt() == 3);
}

TEST_CASE("summary: csv has the run row then one row per device") {
  auto r = run({"summary", "--format", "csv", "@basic.json"});
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0][0] == "device");
  CHECK(rows[1][0] == "all");
  CHECK(rows[1][2] == "3500");
  CHECK(rows[2][0] == "TestDev");
  CHECK(rows[0][5] == "kernels_distinct");
  CHECK(rows[1][5] == "3");
  CHECK(rows[2][5] == "3");  // per device too (it was empty)
}

TEST_CASE("gemm: per launch, table") {
  auto r = run({"gemm", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.err == "");
  // 31 + 15 characters of names: the kernel column gives way to fit 80 columns.
  CHECK(r.out == R"(Kernel                      Layer             M   N   K  Batch      Time  GFLOPS
--------------------------  ---------------  --  --  --  -----  --------  ------
XgemmDirectNN               inference/conv1  64  32  16      1    400 ns  163.84
gemmlowp_mm_..d_only_rhs_t  inference/fc     64  32  16      1  1.000 us   65.54
XgemmDirectNN               inference/conv1  64  32  16      1    600 ns  109.23
gemmlowp_mm_..d_only_rhs_t  inference/fc     64  32  16      1  1.000 us   65.54

4 GEMM launches, 0.0002621 GFLOP.
)");
}

TEST_CASE("gemm: long layer paths keep their tail in the table, whole in --wide and json") {
  std::string trace = clitest::read_file(clitest::data("basic.json"));
  const std::string from = "\"name\":\"inference\"", to = "\"name\":\"resnet50_v1_inference_iteration\"";
  for (size_t at = trace.find(from); at != std::string::npos; at = trace.find(from, at + to.size()))
    trace.replace(at, from.size(), to);
  const auto path = clitest::write_temp("long_layers.json", trace);
  auto r = run({"gemm", path});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Kernel            Layer                       M   N   K  Batch      Time  GFLOPS
----------------  -------------------------  --  --  --  -----  --------  ------
XgemmDirectNN     ..ference_iteration/conv1  64  32  16      1    400 ns  163.84
gemmlow..y_rhs_t  .._inference_iteration/fc  64  32  16      1  1.000 us   65.54
XgemmDirectNN     ..ference_iteration/conv1  64  32  16      1    600 ns  109.23
gemmlow..y_rhs_t  .._inference_iteration/fc  64  32  16      1  1.000 us   65.54

4 GEMM launches, 0.0002621 GFLOP.
)");
  for (size_t b = 0, e; (e = r.out.find('\n', b)) != std::string::npos; b = e + 1) CHECK(e - b <= 80);
  auto w = run({"gemm", "--wide", path});
  CHECK(w.out.find("resnet50_v1_inference_iteration/conv1") != std::string::npos);
  auto j = run({"gemm", "--format", "json", path});
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 4);
  CHECK(std::string(d[1]["layer"].GetString()) == "resnet50_v1_inference_iteration/fc");
}

TEST_CASE("gemm: --sort time --top 3, ties in (process, seq) order; json read back") {
  auto r = run({"gemm", "--sort", "time", "--top", "3", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 3);
  // 1.000 us (seq 4), 1.000 us (seq 7), then 600 ns (seq 6).
  CHECK(d[0]["time_ns"].GetInt() == 1000);
  CHECK(d[1]["time_ns"].GetInt() == 1000);
  CHECK(d[0]["seq"].GetInt() < d[1]["seq"].GetInt());
  CHECK(d[2]["time_ns"].GetInt() == 600);
  CHECK(std::string(d[2]["layer"].GetString()) == "inference/conv1");
  CHECK(std::string(d[0]["layer"].GetString()) == "inference/fc");
  auto n = run({"gemm", "--sort", "name", "--format", "csv", "@basic.json"});
  auto rows = clitest::parse_csv(n.out);
  REQUIRE(rows.size() == 5);
  CHECK(rows[1][1] == "XgemmDirectNN");
  CHECK(rows[2][1] == "XgemmDirectNN");
  CHECK(std::stoi(rows[1][0]) < std::stoi(rows[2][0]));
  CHECK(rows[3][1] == "gemmlowp_mm_reshaped_only_rhs_t");
}

TEST_CASE("gemm: --peak adds % of peak; csv read back") {
  auto r = run({"gemm", "--peak", "200", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0] == std::vector<std::string>{"seq", "name", "layer", "m", "n", "k", "batch", "time_ns",
                                            "gflops", "percent_of_peak", "rule"});
  CHECK(rows[1][2] == "inference/conv1");
  CHECK(std::stod(rows[1][8]) == doctest::Approx(163.84));
  CHECK(std::stod(rows[1][9]) == doctest::Approx(81.92));
  CHECK(rows[2][10] == "acl-gemmlowp");  // M, N, K from the program's -DM= -DN= -DK=
}

TEST_CASE("gemm: --peak-from takes clpeak's best single-precision value") {
  auto r = run({"gemm", "--peak-from", "@clpeak_pocl_epyc.txt", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["percent_of_peak"].GetDouble() == doctest::Approx(100.0 * 163.84 / 43.61));
  auto t = run({"gemm", "--peak-from", "@clpeak_pocl_epyc.txt", "@basic.json"});
  CHECK(t.out.find("peak 43.61 GFLOPS") != std::string::npos);
}

TEST_CASE("gemm: --group, json read back") {
  auto r = run({"gemm", "--group", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 2);
  const auto& x = d[1];
  CHECK(std::string(x["name"].GetString()) == "XgemmDirectNN");
  CHECK(x["m"].GetInt() == 64);
  CHECK(x["n"].GetInt() == 32);
  CHECK(x["k"].GetInt() == 16);
  CHECK(x["batch"].GetInt() == 1);
  CHECK(x["count"].GetInt() == 2);
  CHECK(x["median_ns"].GetInt() == 500);
  CHECK(x["min_ns"].GetInt() == 400);
  CHECK(x["gflops_median"].GetDouble() == doctest::Approx(65536.0 / 500));
  CHECK(x["gflops_best"].GetDouble() == doctest::Approx(163.84));
}

TEST_CASE("gemm: --rules adds user rules before the built-in ones") {
  const auto rules = clitest::write_temp("rules.json", R"({"gemm_rules": [
  {"id": "my-vadd", "kernel": "^vadd$", "m": {"arg": 2, "type": "uint32"}, "n": {"const": 1},
   "k": {"const": 1}, "batch": {"gws": 0}}
]})");
  auto r = run({"gemm", "--rules", rules, "--no-builtin-rules", "--group", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][0] == "vadd");
  CHECK(rows[1][1] == "1024");  // arg 2
  CHECK(rows[1][4] == "1024");  // batch = gws[0]
  CHECK(rows[1][5] == "3");
}

TEST_CASE("gemm: --list-rules prints the built-in table as JSON") {
  auto r = run({"gemm", "--list-rules"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsObject());
  REQUIRE(d["gemm_rules"].IsArray());
  CHECK(d["gemm_rules"].Size() >= 8);
  CHECK(std::string(d["gemm_rules"][0]["id"].GetString()) == "clblast-xgemm-direct");
}

TEST_CASE("launches: csv, read back") {
  auto r = run({"launches", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 8);
  CHECK(rows[0] == std::vector<std::string>{"seq", "name", "pid", "layer", "gws", "lws", "gwo", "args",
                                            "queued_ns", "submit_ns", "start_ns", "end_ns", "duration_ns",
                                            "queued_to_submit_ns", "submit_to_start_ns", "host_enqueue_ns"});
  CHECK(rows[2] == std::vector<std::string>{"2", "XgemmDirectNN", "100", "inference/conv1", "16x8", "8x8",
                                            "", "64 32 16 1065353216 buf#3", "10970", "10980", "11000",
                                            "11400", "400", "10", "20", "100"});
  CHECK(rows[4][5] == "");  // NULL local size
}

TEST_CASE("launches: table and json") {
  auto r = run({"launches", "--top", "2", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Seq  Kernel         GWS   LWS  Duration  Q>Sub  Sub>Start  Enqueue
---  -------------  ----  ---  --------  -----  ---------  -------
  1  vadd           1024  64     100 ns  10 ns      20 ns   100 ns
  2  XgemmDirectNN  16x8  8x8    400 ns  10 ns      20 ns   100 ns
)");
  auto j = run({"launches", "--format", "json", "@basic.json"});
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 7);
  const auto& l = d[3];
  CHECK(l["seq"].GetInt() == 4);
  CHECK(l["lws"].IsNull());
  CHECK(l["gwo"].IsNull());
  CHECK(l["gws"].Size() == 3);
  CHECK(std::string(l["args"][0][0].GetString()) == "buffer");
  CHECK(l["duration_ns"].GetInt() == 1000);
  CHECK(l["host_enqueue_ns"].GetInt() == 100);
  CHECK(d[1]["args"][0][3].GetInt() == 64);
}
