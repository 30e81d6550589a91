// Golden tests of `clprof layers`: layers are range paths; the repeated "inference" range
// makes each layer aggregate 2 instances (iterations): conv1 = 600 ns then 900 ns.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include "cli_support.hpp"

using clitest::run;

TEST_CASE("layers: table with each layer's kernels") {
  auto r = run({"layers", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.err == "");
  CHECK(r.out == R"(Layer / kernel        Calls     Total     %  Iter  Median/it    Min/it    Max/it
--------------------  -----  --------  ----  ----  ---------  --------  --------
(no layer)                1    100 ns   2.8     1     100 ns    100 ns    100 ns
  vadd                    1    100 ns   2.8           100 ns    100 ns    100 ns
inference/conv1           4  1.500 us  41.7     2     750 ns    600 ns    900 ns
  XgemmDirectNN           2  1.000 us  27.8           500 ns    400 ns    600 ns
  vadd                    2    500 ns  13.9           250 ns    200 ns    300 ns
inference/fc              2  2.000 us  55.6     2   1.000 us  1.000 us  1.000 us
  gemmlow..nly_rhs_t      2  2.000 us  55.6         1.000 us  1.000 us  1.000 us

Total kernel time 3.600 us.
)");
}

TEST_CASE("layers: json, read back") {
  auto r = run({"layers", "--format", "json", "@basic.json"});
  CHECK(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 3);
  const auto& conv = d[1];
  CHECK(std::string(conv["layer"].GetString()) == "inference/conv1");
  CHECK(conv["count"].GetInt() == 4);
  CHECK(conv["total_ns"].GetInt64() == 1500);
  CHECK(conv["percent"].GetDouble() == doctest::Approx(100.0 * 1500 / 3600));
  CHECK(conv["instances"].GetInt() == 2);
  CHECK(conv["median_ns"].GetInt64() == 750);  // (600 + 900) / 2
  CHECK(conv["min_ns"].GetInt64() == 600);
  CHECK(conv["max_ns"].GetInt64() == 900);
  REQUIRE(conv["kernels"].Size() == 2);
  CHECK(std::string(conv["kernels"][0]["name"].GetString()) == "XgemmDirectNN");
  CHECK(conv["kernels"][1]["median_ns"].GetInt64() == 250);
  CHECK(std::string(d[0]["layer"].GetString()) == "(no layer)");
}

TEST_CASE("layers: csv is flat (layer rows have an empty kernel)") {
  auto r = run({"layers", "--format", "csv", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(layer,kernel,count,total_ns,percent,instances,median_ns,min_ns,max_ns,mean_ns,stddev_ns
(no layer),,1,100,2.7777777777777777,1,100,100,100,,
(no layer),vadd,1,100,2.7777777777777777,,100,100,100,100,0
inference/conv1,,4,1500,41.666666666666664,2,750,600,900,,
inference/conv1,XgemmDirectNN,2,1000,27.777777777777779,,500,400,600,500,141
inference/conv1,vadd,2,500,13.888888888888889,,250,200,300,250,71
inference/fc,,2,2000,55.555555555555557,2,1000,1000,1000,,
inference/fc,gemmlowp_mm_reshaped_only_rhs_t,2,2000,55.555555555555557,,1000,1000,1000,1000,0
)");
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() == 8);
  for (const auto& row : rows) CHECK(row.size() == 11);
}

TEST_CASE("layers: markdown") {
  auto r = run({"layers", "--format", "markdown", "--no-kernels", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(| Layer / kernel | Calls | Total | % | Iter | Median/it | Min/it | Max/it |
|---|---:|---:|---:|---:|---:|---:|---:|
| (no layer) | 1 | 100 ns | 2.8 | 1 | 100 ns | 100 ns | 100 ns |
| inference/conv1 | 4 | 1.500 us | 41.7 | 2 | 750 ns | 600 ns | 900 ns |
| inference/fc | 2 | 2.000 us | 55.6 | 2 | 1.000 us | 1.000 us | 1.000 us |

Total kernel time 3.600 us.
)");
}

TEST_CASE("layers: --iteration and --skip-first select iterations of the repeated range") {
  auto it2 = run({"layers", "--iteration", "2", "--no-kernels", "@basic.json"});
  auto skip = run({"layers", "--skip-first", "1", "--no-kernels", "@basic.json"});
  CHECK(it2.status == 0);
  const char* expected = R"(Layer / kernel   Calls     Total     %  Iter  Median/it    Min/it    Max/it
---------------  -----  --------  ----  ----  ---------  --------  --------
inference/conv1      2    900 ns  47.4     1     900 ns    900 ns    900 ns
inference/fc         1  1.000 us  52.6     1   1.000 us  1.000 us  1.000 us

Total kernel time 1.900 us.
)";
  CHECK(it2.out == expected);
  CHECK(skip.out == expected);
  auto both = run({"kernels", "--iteration", "1:2", "--format", "csv", "@basic.json"});
  auto rows = clitest::parse_csv(both.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[3][1] == "2");  // vadd outside the iterations is dropped
}

TEST_CASE("layers: --speedup estimates per layer") {
  auto r = run({"layers", "--speedup", "Xgemm=4", "--no-kernels", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Layer / kernel   Calls     Total     %  Iter  Median/it    Min/it    Max/it  Est. total
---------------  -----  --------  ----  ----  ---------  --------  --------  ----------
(no layer)           1    100 ns   2.8     1     100 ns    100 ns    100 ns      100 ns
inference/conv1      4  1.500 us  41.7     2     750 ns    600 ns    900 ns      750 ns
inference/fc         2  2.000 us  55.6     2   1.000 us  1.000 us  1.000 us    2.000 us

Total kernel time 3.600 us; estimated with --speedup: 2.850 us.
)");
}

TEST_CASE("layers: --per-iteration detail") {
  auto r = run({"layers", "--per-iteration", "--iteration", "2", "@basic.json"});
  CHECK(r.status == 0);
  CHECK(r.out == R"(Iteration 2 (inference): wall time 10.00 us, kernel time 1.900 us

Layer / kernel                     Calls      Time
---------------------------------  -----  --------
conv1                                       900 ns
  XgemmDirectNN                        1    600 ns
  vadd                                 1    300 ns
fc                                        1.000 us
  gemmlowp_mm_reshaped_only_rhs_t      1  1.000 us

Kernel                           Calls     Total      %
-------------------------------  -----  --------  -----
gemmlowp_mm_reshaped_only_rhs_t      1  1.000 us  52.63
XgemmDirectNN                        1    600 ns  31.58
vadd                                 1    300 ns  15.79

)");
  auto j = run({"layers", "--per-iteration", "--format", "json", "@basic.json"});
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  REQUIRE(d.IsArray());
  REQUIRE(d.Size() == 2);
  CHECK(d[0]["wall_ns"].GetInt64() == 8500);  // range 1500..10000
  CHECK(d[0]["kernel_ns"].GetInt64() == 1600);
  CHECK(std::string(d[0]["layers"][1]["layer"].GetString()) == "fc");
  CHECK(d[1]["kernels"][0]["percent"].GetDouble() == doctest::Approx(100.0 * 1000 / 1900));
}

TEST_CASE("layers: an Arm NN profile prints vison's per-inference listing") {
  const std::string armnn =
      std::string(CLPROF_TEST_DATA) + "/../../importers/data/armnn_profile_mobilenet_v2.json";
  auto r = run({"layers", armnn});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  // The numbers of seed 000 (vison): first workload and its kernels, wall and kernel time.
  CHECK(r.out.find("Iteration 1 (inference): wall time 557.9 ms, kernel time 546.7 ms") == 0);
  CHECK(r.out.find("ClConvolution2dWorkload_Execute_#8                                      6.962 ms\n"
                   "  im2col3x3_nhwc                                                     1  600.6 us\n") !=
        std::string::npos);
  // Workloads without kernels are listed too, in execution order, as vison does.
  const auto alloc = r.out.find("Working Memory Allocation_#5");
  CHECK(alloc != std::string::npos);
  CHECK(alloc < r.out.find("ClConvolution2dWorkload_Execute_#8"));
  auto j = run({"layers", "--format", "json", armnn});
  rapidjson::Document d;
  d.Parse(j.out.c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["kernels"][0]["name"] == "gemmlowp_mm_reshaped_only_rhs_t_fused_output_stage_fixedpoint");
  CHECK(d[0]["kernels"][0]["total_ns"].GetInt64() == 524857756);
  CHECK(d[0]["kernels"][0]["percent"].GetDouble() == doctest::Approx(95.999844).epsilon(1e-6));
}

TEST_CASE("layers: --layers-from attributes launches to another profile's ranges") {
  const std::string chrome =
      std::string(CLPROF_TEST_DATA) + "/../../importers/data/chrome_begin_end_nesting.json";
  auto r = run({"layers", "--layers-from", chrome, "--no-kernels", "--format", "csv", "@basic.json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  auto rows = clitest::parse_csv(r.out);
  REQUIRE(rows.size() >= 2);
  CHECK(rows[1][0] == "network");  // the clprof markers were replaced by the profile's ranges
  int64_t total = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i][1].empty()) total += std::stoll(rows[i][3]);  // layer rows only
  CHECK(total == 3600);  // every launch is still counted once
}
