// The column model and its renderers (output/columns.hpp, output/render.hpp): one
// declaration, four formats that agree; unknown values; nested rows; sorting.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "output/render.hpp"

using namespace clprof;
using namespace clprof::output;

namespace {

const Schema& kernel_schema() {
  static const Schema s =
      schema("kernels", "kernels",
             {column("name", "Kernel", Type::Text, "", "name").shrink(),
              column("count", "Calls", Type::Int, "", "launches"),
              column("total_ns", "Total", Type::Duration, "ns", "time").alias("time"),
              column("percent", "%", Type::Real, "%", "share").allow_null(),
              column("bytes", "Bytes", Type::Bytes, "bytes", "moved").wide(),
              column("est_ns", "Est.", Type::Duration, "ns", "estimate").only_with("--speedup")});
  return s;
}

const Schema& layer_schema() {
  static const Schema s = schema("layers", "layers",
                                 {column("layer", "Layer / kernel", Type::Text, "", "path"),
                                  column("count", "Calls", Type::Int, "", "launches"),
                                  column("total_ns", "Total", Type::Duration, "ns", "time"),
                                  column("instances", "Iter", Type::Int, "", "instances"),
                                  nested("kernels", "Kernels", kernel_schema(), "kernels")
                                      .csv_label_as("kernel")
                                      .unless("--flat")})
                              .laid_out(Layout::Tree);
  return s;
}

Row kernel(const std::string& name, uint64_t count, int64_t ns, std::optional<double> pct) {
  return {Value::text(name), Value::uint(count), Value::integer(ns),
          Value::real(pct),  Value::uint(4096),  Value::integer(ns / 2)};
}

std::string as(const Result& r, Format f, size_t width = 80, bool wide = false) {
  return render_to_string(r, RenderOptions{f, width, wide});
}

}  // namespace

TEST_CASE("one declaration, four formats: units, raw values, unknown values") {
  Result r(kernel_schema());
  r.rows = {kernel("gemm", 2, 1500, 75.0), kernel("vadd", 0, 0, std::nullopt)};
  r.notes = {"Total kernel time 1.500 us."};
  CHECK(as(r, Format::Table) ==
        "Kernel  Calls     Total     %\n"
        "------  -----  --------  ----\n"
        "gemm        2  1.500 us  75.0\n"
        "vadd        0      0 ns     -\n"
        "\nTotal kernel time 1.500 us.\n");
  CHECK(as(r, Format::Table, 80, true).find("Bytes") != std::string::npos);  // --wide
  CHECK(as(r, Format::Table, 80, true).find("4.0 KiB") != std::string::npos);
  // CSV and JSON: every column (but the optional one not switched on), raw values, no notes.
  CHECK(as(r, Format::Csv) ==
        "name,count,total_ns,percent,bytes\ngemm,2,1500,75,4096\nvadd,0,0,,4096\n");
  CHECK(as(r, Format::Markdown) ==
        "| Kernel | Calls | Total | % |\n|---|---:|---:|---:|\n| gemm | 2 | 1.500 us | 75.0 |\n"
        "| vadd | 0 | 0 ns | - |\n\nTotal kernel time 1.500 us.\n");
  rapidjson::Document d;
  d.Parse(as(r, Format::Json).c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["total_ns"].GetInt64() == 1500);
  CHECK(d[0]["percent"].GetDouble() == 75.0);
  CHECK(d[1]["percent"].IsNull());
  CHECK(!d[0].HasMember("est_ns"));
  r.options = {"--speedup"};
  CHECK(as(r, Format::Csv).rfind("name,count,total_ns,percent,bytes,est_ns\n", 0) == 0);
  d.Parse(as(r, Format::Json).c_str());
  CHECK(d[0]["est_ns"].GetInt64() == 750);
}

TEST_CASE("reals: fixed decimals in the table, full precision in CSV and JSON") {
  Schema s;
  s.name = "t";
  s.columns = {column("x", "X", Type::Real, "", "x").digits(2),
               column("g", "G", Type::Real, "", "g").digits(-1)};
  Result r(s);
  r.rows = {{Value::real(65.536000000000001), Value::real(0.000262144)}};
  CHECK(as(r, Format::Table) == "    X          G\n-----  ---------\n65.54  0.0002621\n");
  CHECK(as(r, Format::Csv) == "x,g\n65.536000000000001,0.00026214400000000002\n");
}

TEST_CASE("kernel arguments: a float value prints as a float in every format") {
  Schema s;
  s.name = "launches";
  s.columns = {column("args", "Args", Type::Args, "", "arguments"),
               column("gws", "GWS", Type::Dims, "", "sizes"),
               column("lws", "LWS", Type::Dims, "", "sizes").allow_null()};
  Result r(s);
  auto scalar = [](Value v) {
    return Value::list(
        {Value::text("scalar"), Value::uint(4), Value::text("0000c03f"), std::move(v)});
  };
  r.rows = {{Value::list({scalar(Value::real(1.5)), scalar(Value::uint(64)),
                          Value::list({Value::text("scalar"), Value::uint(2), Value::text("0a0b")}),
                          Value::list({Value::text("buffer"), Value::uint(8), Value::uint(3),
                                       Value::uint(4096)}),
                          Value::list({Value::text("local"), Value::uint(256)})}),
             Value::list({Value::uint(16), Value::uint(8)}), Value::null()}};
  CHECK(as(r, Format::Table).find("1.5 64 0x0a0b buf#3 local:256  16x8  -") != std::string::npos);
  CHECK(as(r, Format::Csv) == "args,gws,lws\n1.5 64 0x0a0b buf#3 local:256,16x8,\n");
  rapidjson::Document d;
  d.Parse(as(r, Format::Json).c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["args"][0][3].IsDouble());
  CHECK(d[0]["args"][0][3].GetDouble() == 1.5);
  CHECK(d[0]["args"][1][3].GetUint64() == 64);
  CHECK(d[0]["args"][2].Size() == 3);
  CHECK(d[0]["gws"][1].GetUint64() == 8);
  CHECK(d[0]["lws"].IsNull());
}

TEST_CASE("nested rows: a tree in the table, parent then nested lines in CSV, arrays in JSON") {
  Result r(layer_schema());
  r.rows = {
      {Value::text("net/conv1"), Value::uint(3), Value::integer(900), Value::uint(2),
       Value::rows({kernel("gemm", 2, 600, 66.7), kernel("vadd", 1, 300, 33.3)})},
      {Value::text("net/fc"), Value::uint(0), Value::integer(0), Value::uint(1), Value::rows({})}};
  // Nested values go under the parent's column of the same key; the nested label is indented.
  CHECK(as(r, Format::Table) ==
        "Layer / kernel  Calls   Total  Iter     %\n"
        "--------------  -----  ------  ----  ----\n"
        "net/conv1           3  900 ns     2\n"
        "  gemm              2  600 ns        66.7\n"
        "  vadd              1  300 ns        33.3\n"
        "net/fc              0    0 ns     1\n");
  CHECK(as(r, Format::Csv) ==
        "layer,kernel,count,total_ns,instances,percent,bytes\n"
        "net/conv1,,3,900,2,,\n"
        "net/conv1,gemm,2,600,,66.700000000000003,4096\n"
        "net/conv1,vadd,1,300,,33.299999999999997,4096\n"
        "net/fc,,0,0,1,,\n");
  rapidjson::Document d;
  d.Parse(as(r, Format::Json).c_str());
  REQUIRE(d.IsArray());
  CHECK(d[0]["kernels"].Size() == 2);
  CHECK(std::string(d[0]["kernels"][1]["name"].GetString()) == "vadd");
  CHECK(d[1]["kernels"].Size() == 0);
  // An option can leave the nested rows out of every format.
  r.options = {"--flat"};
  CHECK(as(r, Format::Table).find("gemm") == std::string::npos);
  CHECK(as(r, Format::Csv) == "layer,count,total_ns,instances\nnet/conv1,3,900,2\nnet/fc,0,0,1\n");
  d.Parse(as(r, Format::Json).c_str());
  CHECK(!d[0].HasMember("kernels"));
}

TEST_CASE("CSV of leaves: one denormalised line per innermost row") {
  Schema inner;
  inner.name = "inner";
  inner.columns = {column("name", "Kernel", Type::Text, "", "k"),
                   column("count", "Calls", Type::Int, "", "n")};
  Schema outer;
  outer.name = "outer";
  outer.csv_leaves = true;
  outer.columns = {column("iteration", "It", Type::Int, "", "i"),
                   column("wall_ns", "Wall", Type::Duration, "ns", "w").allow_null(),
                   nested("kernels", "Kernels", inner, "k").csv_label_as("kernel")};
  Result r(outer);
  r.rows = {{Value::uint(1), Value::integer(50),
             Value::rows({{Value::text("a"), Value::uint(1)}, {Value::text("b"), Value::uint(2)}})},
            {Value::uint(2), Value::null(), Value::rows({})}};
  CHECK(as(r, Format::Csv) == "iteration,kernel,wall_ns,count\n1,a,50,1\n1,b,50,2\n2,,,\n");
}

TEST_CASE("CSV of leaves: an outer column whose key an inner level has too keeps its value") {
  // A layer's count (3 launches) beside each of its kernels' counts (1 and 2): by hand, the
  // layer's is named layer_count, the kernel's count; before, the kernel's value stood for
  // both and the layer's was lost (issue 34, per-iteration layers).
  Schema kernel;
  kernel.name = "kernel";
  kernel.columns = {column("name", "Kernel", Type::Text, "", "k"),
                    column("count", "Calls", Type::Int, "", "n")};
  Schema layer;
  layer.name = "layer";
  layer.columns = {column("layer", "Layer", Type::Text, "", "l"),
                   column("count", "Calls", Type::Int, "", "n"),
                   nested("kernels", "Kernels", kernel, "k").csv_label_as("kernel")};
  Schema iteration;
  iteration.name = "iteration";
  iteration.csv_leaves = true;
  iteration.columns = {column("iteration", "It", Type::Int, "", "i"),
                       nested("layers", "Layers", layer, "l")};
  Result r(iteration);
  r.rows = {{Value::uint(1), Value::rows({{Value::text("conv1"), Value::uint(3),
                                           Value::rows({{Value::text("a"), Value::uint(1)},
                                                        {Value::text("b"), Value::uint(2)}})}})}};
  CHECK(as(r, Format::Csv) ==
        "iteration,layer,kernel,layer_count,count\n1,conv1,a,3,1\n1,conv1,b,3,2\n");
}

TEST_CASE("sections and records: headings and key/value lines, then the nested tables") {
  Schema inner;
  inner.name = "inner";
  inner.columns = {column("name", "Kernel", Type::Text, "", "k"),
                   column("total_ns", "Total", Type::Duration, "ns", "t")};
  Schema sections;
  sections.name = "iterations";
  sections.layout = Layout::Sections;
  sections.heading = "Iteration {iteration}: wall time {wall_ns}";
  sections.columns = {column("iteration", "It", Type::Int, "", "i"),
                      column("wall_ns", "Wall", Type::Duration, "ns", "w").allow_null(),
                      nested("kernels", "Kernels", inner, "k")};
  Result r(sections);
  r.rows = {
      {Value::uint(1), Value::null(), Value::rows({{Value::text("a"), Value::integer(1500)}})}};
  CHECK(as(r, Format::Table) ==
        "Iteration 1: wall time -\n\nKernel     Total\n------  --------\na       1.500 us\n\n");
  CHECK(as(r, Format::Markdown).rfind("### Iteration 1: wall time -\n\n| Kernel | Total |", 0) ==
        0);
  // {key?}: a null is left out with the space after it; a value shows as with {key}.
  Schema optional = sections;
  optional.heading = "Iteration {iteration}, {wall_ns?} wall";
  Result o(optional);
  o.rows = {
      r.rows[0],
      {Value::uint(2), Value::integer(2000), Value::rows({{Value::text("a"), Value::integer(1)}})}};
  const std::string table = as(o, Format::Table);
  CHECK(table.find("Iteration 1, wall\n") != std::string::npos);
  CHECK(table.find("Iteration 2, 2.000 us wall\n") != std::string::npos);

  Schema record = sections;
  record.layout = Layout::Record;
  record.single = true;
  record.columns[1].label = "Wall time";
  Result one(record);
  one.rows = {{Value::uint(7), Value::integer(2000),
               Value::rows({{Value::text("a"), Value::integer(1500)}})}};
  CHECK(as(one, Format::Table) ==
        "It         7\nWall time  2.000 us\n\nKernel     Total\n------  --------\na       1.500 "
        "us\n");
  rapidjson::Document d;
  d.Parse(as(one, Format::Json).c_str());
  REQUIRE(d.IsObject());  // a single schema is one object
  CHECK(d["kernels"][0]["total_ns"].GetInt64() == 1500);
}

TEST_CASE("order_rows: numbers largest first, names A-Z, unknown last, ties keep their order") {
  Result r(kernel_schema());
  r.rows = {kernel("b", 1, 300, 10.0), kernel("a", 2, 100, std::nullopt), kernel("c", 3, 300, 30.0),
            kernel("d", 4, 200, 20.0)};
  auto names = [](const Result& x) {
    std::string s;
    Row scratch;
    for (size_t i = 0; i < x.size(); ++i) s += x.row(i, scratch)[0].as_text();
    return s;
  };
  std::string extra;
  Result by_time = r;
  order_rows(by_time, resolve_sort_field(kernel_schema(), {}, "time", extra), 0);
  CHECK(names(by_time) == "bcda");
  Result by_pct = r;
  order_rows(by_pct, resolve_sort_field(kernel_schema(), {}, "percent", extra), 2);
  CHECK(names(by_pct) == "cd");
  Result by_name = r;
  order_rows(by_name, resolve_sort_field(kernel_schema(), {}, "name", extra), 0);
  CHECK(names(by_name) == "abcd");
  Result top = r;
  keep_top(top, 3);
  CHECK(names(top) == "bac");
  CHECK(resolve_sort_field(kernel_schema(), {}, "total", extra) == 2);  // "_ns" may be left out
  // Unknown fields, and optional columns not switched on, are refused with the list.
  CHECK_THROWS_WITH_AS(
      resolve_sort_field(kernel_schema(), {}, "colour", extra),
      "--sort: kernels has no field 'colour' (fields: name, count, total_ns, percent, bytes)",
      std::invalid_argument);
  CHECK_THROWS_AS(resolve_sort_field(kernel_schema(), {}, "est_ns", extra), std::invalid_argument);
  CHECK(resolve_sort_field(kernel_schema(), {"--speedup"}, "est_ns", extra) == 5);
}

TEST_CASE("rows on demand render like rows held, JSON in pieces") {
  Result held(kernel_schema()), streamed(kernel_schema());
  for (int i = 0; i < 6000; ++i) held.rows.push_back(kernel("k" + std::to_string(i), 1, i, 1.0));
  streamed.source.count = 6000;
  streamed.source.fill = [](size_t i, Row& row) {
    row = kernel("k" + std::to_string(i), 1, static_cast<int64_t>(i), 1.0);
  };
  for (auto f : {Format::Table, Format::Csv, Format::Json, Format::Markdown}) {
    size_t pieces = 0;
    std::string text;
    render(streamed, RenderOptions{f, 80, false}, [&](std::string_view s) {
      text.append(s);
      ++pieces;
    });
    CHECK(text == as(held, f));
    CHECK(pieces > 1);
  }
  Result bad(kernel_schema());
  bad.source.count = 1;
  bad.source.fill = [](size_t, Row& row) { row.resize(2); };
  CHECK_THROWS_AS(as(bad, Format::Csv), std::logic_error);
}

TEST_CASE("a Bool column marks another's text in the table; columns shown only when known") {
  Schema s;
  s.name = "gemm";
  s.columns = {column("name", "Kernel", Type::Text, "", "k").marked_by("padded"),
               column("direction", "Direction", Type::Text, "", "d").allow_null().when_known(),
               column("padded", "Padded", Type::Bool, "", "p").machine_only()};
  Result r(s);
  r.rows = {{Value::text("Xgemm"), Value::null(), Value::boolean(true)},
            {Value::text("XgemmDirect"), Value::null(), Value::boolean(false)}};
  CHECK(as(r, Format::Table) == "Kernel\n-----------\nXgemm*\nXgemmDirect\n");
  CHECK(as(r, Format::Csv) == "name,direction,padded\nXgemm,,true\nXgemmDirect,,false\n");
  r.rows[1][1] = Value::text("forward");
  CHECK(as(r, Format::Table).rfind("Kernel       Direction\n", 0) == 0);
}

TEST_CASE("render: a row that disagrees with its schema is refused, never shown empty") {
  // The per-iteration layers bug of issue 34: nested rows of 3 values under a schema of 1
  // column rendered as empty objects. Every renderer now refuses such a row.
  Result wrong_width(kernel_schema());
  wrong_width.rows.push_back({Value::text("k"), Value::uint(1)});  // 2 values, 6 columns
  CHECK_THROWS_WITH_AS(render_to_string(wrong_width, {}),
                       "internal error: a row of 'kernels' has 2 values, its schema declares 6 "
                       "columns",
                       std::logic_error);
  Result null_count(kernel_schema());
  null_count.rows.push_back(
      {Value::text("k"), Value(), Value::integer(5), Value(), Value::uint(0), Value()});
  RenderOptions csv;
  csv.format = Format::Csv;
  CHECK_THROWS_WITH_AS(render_to_string(null_count, csv),
                       "internal error: 'kernels.count' is null but not declared nullable",
                       std::logic_error);
  // The same row with a count renders (est_ns, shown only with --speedup, is checked like
  // every column: not nullable, so it holds a value).
  Result right(kernel_schema());
  right.rows.push_back({Value::text("k"), Value::uint(1), Value::integer(5), Value(),
                        Value::uint(0), Value::integer(5)});
  CHECK_NOTHROW(render_to_string(right, csv));
}
