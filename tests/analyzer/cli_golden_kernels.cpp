// Golden tests of `clprof kernels` on data/basic.json (7 launches, 2 iterations of
// inference{conv1, fc}; durations: vadd 100/200/300, XgemmDirectNN 400/600, gemmlowp 1000/1000).
// Expected values by hand: total 3600 ns; percent 2000/3600 = 55.5..., 1000/3600, 600/3600;
// XgemmDirectNN median of the even count (400+600)/2 = 500, sample stddev sqrt(2e4) = 141;
// vadd stddev sqrt((100^2+0+100^2)/2) = 100.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "cli_support.hpp"

using clitest::run;

TEST_CASE("kernels: table (80 columns, adaptive units)") {
  auto r = run({"kernels", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.err == "");
  CHECK(r.out == R"(Kernel                       Calls     Total     %    Median       Min       Max
---------------------------  -----  --------  ----  --------  --------  --------
gemmlowp_mm_r..d_only_rhs_t      2  2.000 us  55.6  1.000 us  1.000 us  1.000 us
XgemmDirectNN                    2  1.000 us  27.8    500 ns    400 ns    600 ns
vadd                             3    600 ns  16.7    200 ns    100 ns    300 ns

Total kernel time 3.600 us in 7 launches of 3 kernels.
)");
  size_t longest = 0, start = 0;
  for (size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1)
    longest = std::max(longest, nl - start);
  CHECK(longest <= 80);
}

TEST_CASE("kernels: csv, read back") {
  auto r = run({"kernels", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(name,count,total_ns,percent,mean_ns,median_ns,min_ns,max_ns,stddev_ns,queued_to_submit_ns,submit_to_start_ns,enqueue_ns,untimed
gemmlowp_mm_reshaped_only_rhs_t,2,2000,55.555555555555557,1000,1000,1000,1000,0,20,40,230,0
XgemmDirectNN,2,1000,27.777777777777779,500,500,400,600,141,20,40,200,0
vadd,3,600,16.666666666666668,200,200,100,300,100,30,60,190,0
)");
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[2][0] == "XgemmDirectNN");
  CHECK(std::stod(rows[2][3]) == doctest::Approx(100.0 * 1000 / 3600));
  CHECK(rows[3][5] == "200");
}

TEST_CASE("kernels: json, read back") {
  auto r = run({"kernels", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(!d.HasParseError());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 3);
  const auto& x = d[1];
  CHECK(std::string(x["name"].GetString()) == "XgemmDirectNN");
  CHECK(x["count"].GetInt() == 2);
  CHECK(x["total_ns"].GetInt64() == 1000);
  CHECK(x["mean_ns"].GetInt64() == 500);
  CHECK(x["median_ns"].GetInt64() == 500);
  CHECK(x["min_ns"].GetInt64() == 400);
  CHECK(x["max_ns"].GetInt64() == 600);
  CHECK(x["stddev_ns"].GetInt64() == 141);
  CHECK(x["percent"].GetDouble() == doctest::Approx(27.7777777778));
  CHECK(x["queued_to_submit_ns"].GetInt64() == 20);
  CHECK(x["submit_to_start_ns"].GetInt64() == 40);
  CHECK(x["enqueue_ns"].GetInt64() == 200);
  CHECK(d[2]["stddev_ns"].GetInt64() == 100);
  CHECK(!x.HasMember("est_total_ns"));
}

TEST_CASE("kernels: markdown") {
  auto r = run({"kernels", "--format", "markdown", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(| Kernel | Calls | Total | % | Median | Min | Max |
|---|---:|---:|---:|---:|---:|---:|
| gemmlowp_mm_reshaped_only_rhs_t | 2 | 2.000 us | 55.6 | 1.000 us | 1.000 us | 1.000 us |
| XgemmDirectNN | 2 | 1.000 us | 27.8 | 500 ns | 400 ns | 600 ns |
| vadd | 3 | 600 ns | 16.7 | 200 ns | 100 ns | 300 ns |

Total kernel time 3.600 us in 7 launches of 3 kernels.
)");
}

TEST_CASE("kernels: --sort, --top") {
  auto r = run({"kernels", "--sort", "min", "--top", "2", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][0] == "gemmlowp_mm_reshaped_only_rhs_t");
  CHECK(rows[2][0] == "XgemmDirectNN");
  auto n = run({"kernels", "--sort", "name", "--format", "csv", "@basic.json"});
  auto by_name = clitest::parse_csv(n.out);
  REQUIRE(by_name.size() == 4);
  CHECK(by_name[1][0] == "XgemmDirectNN");  // ASCII order: uppercase first
  CHECK(by_name[3][0] == "vadd");
}

TEST_CASE("kernels: --filter matches kernel names and layer paths; percent over the selection") {
  auto r = run({"kernels", "--filter", "conv1", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Kernel         Calls     Total     %  Median     Min     Max
-------------  -----  --------  ----  ------  ------  ------
XgemmDirectNN      2  1.000 us  66.7  500 ns  400 ns  600 ns
vadd               2    500 ns  33.3  250 ns  200 ns  300 ns

Total kernel time 1.500 us in 4 launches of 2 kernels.
)");
  auto k = run({"kernels", "--filter", "^vadd$", "--format", "csv", "@basic.json"});
  auto rows = clitest::parse_csv(k.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][1] == "3");
}

TEST_CASE("kernels: --speedup, first matching rule wins") {
  auto r = run({"kernels", "--speedup", "Xgemm=4", "--speedup", "Xgemm|vadd=2", "--format", "json",
                "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["est_total_ns"].GetInt64() == 2000);  // gemmlowp: no rule
  CHECK(d[1]["est_total_ns"].GetInt64() == 250);   // XgemmDirectNN: 1000 / 4
  CHECK(d[2]["est_total_ns"].GetInt64() == 300);   // vadd: 600 / 2
  auto t = run({"kernels", "--speedup", "Xgemm=4", "@basic.json"});
  CHECK(t.out.find("estimated with --speedup: 2.850 us") != std::string::npos);
}

TEST_CASE("kernels: several traces are one run") {
  auto r = run({"kernels", "--format", "json", "@basic.json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  CHECK(d[2]["count"].GetInt() == 6);
  CHECK(d[2]["median_ns"].GetInt64() == 200);
  CHECK(d[1]["median_ns"].GetInt64() == 500);
}

TEST_CASE("streaming and in-memory paths give the same results") {
  // --filter '.' keeps everything but forces the in-memory path (load_run + feed).
  for (const char* cmd : {"kernels", "layers", "gemm", "summary"}) {
    auto streamed = run({cmd, "--format", "json", "--threads", "2", "@basic.json"});
    auto loaded = run({cmd, "--format", "json", "--filter", ".", "@basic.json"});
    CHECK_MESSAGE(streamed.status == 0, cmd);
    CHECK_MESSAGE(streamed.out == loaded.out, cmd);
  }
}
