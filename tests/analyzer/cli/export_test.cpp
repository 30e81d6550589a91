// `clprof export` in its three formats on every kind of input: the exported sums per kernel
// equal `clprof kernels`' (the SQLite file queried through the sqlite3 API, the CSV and JSON
// Lines read back), the tables' columns are the documented ones, a second delivery of a
// file's records leaves no duplicate, and docs/export.md's SQL queries run.
#include <doctest/doctest.h>

#include <rapidjson/document.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_support.hpp"
#include "run_child.hpp"
#include "skip.hpp"

using clitest::run;

namespace {

// kernel -> (launches, total_ns); `clprof kernels` counts timed launches in `count` and the
// others in `untimed`.
using Sums = std::map<std::string, std::pair<uint64_t, int64_t>>;

const std::vector<std::string> kInputs = {
    "@basic.json",
    "@aligned.json",
    "@long_layers.json",
    "../readers/armnn/data/armnn_profile_small_constructed.json",
    "../readers/dvdt_prof/data/dvdt_prof_sample_small.json",
    "../readers/chrome/data/chrome_begin_end_nesting.json",
    "../readers/chrome/data/itrex_engine_profiling_trace_sample.json",
    "../readers/caffe/data/caffe_per_layer_info_squeezenet_sample.json"};

std::string input(const std::string& name) {
  return name[0] == '@' ? name : clitest::data(name);
}

Sums kernels_sums(const std::string& in) {
  const auto r = run({"kernels", "--format", "json", in});
  REQUIRE(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  Sums s;
  for (const auto& k : d.GetArray())
    s[k["name"].GetString()] = {k["count"].GetUint64() + k["untimed"].GetUint64(),
                                k["total_ns"].GetInt64()};
  return s;
}

struct Db {
  sqlite3* db = nullptr;
  explicit Db(const std::string& path) {
    REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  }
  ~Db() { sqlite3_close(db); }
  // Rows of `sql`, each column as text ("NULL" for null). REQUIREs that it runs.
  std::vector<std::vector<std::string>> query(const std::string& sql) const {
    std::vector<std::vector<std::string>> out;
    const char* rest = sql.c_str();
    while (*rest) {
      sqlite3_stmt* s = nullptr;
      INFO("SQL: " << rest);
      REQUIRE_MESSAGE(sqlite3_prepare_v2(db, rest, -1, &s, &rest) == SQLITE_OK, sqlite3_errmsg(db));
      if (!s) break;  // trailing white space
      int rc;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int i = 0; i < sqlite3_column_count(s); ++i) {
          const unsigned char* t = sqlite3_column_text(s, i);
          row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
        }
        out.push_back(row);
      }
      CHECK_MESSAGE(rc == SQLITE_DONE, sqlite3_errmsg(db));
      sqlite3_finalize(s);
    }
    return out;
  }
};

Sums sqlite_sums(const std::string& db_path) {
  Sums s;
  for (const auto& r : Db(db_path).query(
           "SELECT kernel, COUNT(*), COALESCE(SUM(duration_ns), 0) FROM launches GROUP BY kernel"))
    s[r[0]] = {std::stoull(r[1]), std::stoll(r[2])};
  return s;
}

// Splits one CSV line written by clprof (fields quoted only when they hold , " or a newline).
std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        f.back() += line[++i];
      else if (c == '"')
        quoted = false;
      else
        f.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

Sums csv_sums(const std::string& dir) {
  std::istringstream in(clitest::read_file(dir + "/launches.csv"));
  std::string line;
  std::getline(in, line);
  const auto header = csv_split(line);
  const size_t k = std::find(header.begin(), header.end(), "kernel") - header.begin();
  const size_t d = std::find(header.begin(), header.end(), "duration_ns") - header.begin();
  REQUIRE(d < header.size());
  Sums s;
  while (std::getline(in, line)) {
    const auto f = csv_split(line);
    REQUIRE(f.size() == header.size());
    auto& e = s[f[k]];
    ++e.first;
    if (!f[d].empty()) e.second += std::stoll(f[d]);
  }
  return s;
}

Sums jsonl_sums(const std::string& text, std::map<std::string, size_t>* per_table = nullptr) {
  std::istringstream in(text);
  std::string line;
  Sums s;
  while (std::getline(in, line)) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    REQUIRE(d.IsObject());
    const std::string table = d["table"].GetString();
    if (per_table) ++(*per_table)[table];
    if (table != "launches") continue;
    auto& e = s[d["kernel"].GetString()];
    ++e.first;
    if (!d["duration_ns"].IsNull()) e.second += d["duration_ns"].GetInt64();
  }
  return s;
}

std::string late_device_trace() {
  const std::string launch =
      R"("rc":0,"kernel":"k","kernel_id":1,"program_id":1,"context_id":1,"gwo":null,"gws":[1],"lws":null,"args":[["scalar",4,"07000000",7]],"status":"complete","ranges":[]},)";
  return std::string(
             R"({"format":"clprof-trace","version":1,"header":{"pid":9,"command_line":["x"],"host_start_ns":1000},"records":[)") +
         "\n" + R"({"type":"device","id":1,"name":"A"},)" + "\n" +
         R"({"type":"launch","seq":1,"tid":9,"queue_id":1,"device_id":1,"host_ns":[10,20],"device_ns":[100,110,120,130],)" +
         launch + "\n" + R"({"type":"device","id":2,"name":"B"},)" + "\n" +
         R"({"type":"launch","seq":2,"tid":9,"queue_id":2,"device_id":2,"host_ns":[30,40],"device_ns":[200,210,220,230],)" +
         launch + "\n" + R"({"type":"end","host_ns":100,"counts":{},"incomplete":0,"dropped":0})" +
         "\n]}\n";
}

}  // namespace

TEST_CASE("export: the sums per kernel are clprof kernels', in every format") {
  for (const auto& name : kInputs) {
    const std::string in = input(name);
    CAPTURE(in);
    const Sums want = kernels_sums(in);
    const std::string dir = clitest::temp_dir();
    REQUIRE(run({"export", "--format", "sqlite", "-o", dir + "/run.db", in}).status == 0);
    CHECK(sqlite_sums(dir + "/run.db") == want);
    REQUIRE(run({"export", "--format", "csv", "-o", dir + "/csv", in}).status == 0);
    CHECK(csv_sums(dir + "/csv") == want);
    const auto j = run({"export", "--format", "jsonl", in});
    REQUIRE(j.status == 0);
    CHECK(jsonl_sums(j.out) == want);
  }
}

TEST_CASE("export: aligned.json's rows, exactly") {
  const std::string dir = clitest::temp_dir();
  const auto r = run({"export", "-o", dir + "/a.db", "@aligned.json"});
  REQUIRE(r.status == 0);
  CHECK(r.err.find("warning: device 2 (DSP1): no clock_sync") != std::string::npos);
  const Db db(dir + "/a.db");
  // GPU0's last clock_sync wins: host = device - 5000000; DSP1 has none.
  CHECK(db.query("SELECT device, clock_method, clock_offset_ns, clock_uncertainty_ns FROM devices "
                 "ORDER BY device") ==
        std::vector<std::vector<std::string>>{{"1", "clGetDeviceAndHostTimer", "-5000000", "40"},
                                              {"2", "NULL", "NULL", "NULL"}});
  CHECK(db.query("SELECT seq, start_ns, host_start_ns, host_end_ns, layer FROM launches WHERE seq "
                 "IN (1, 8) ORDER BY seq") ==
        std::vector<std::vector<std::string>>{{"1", "5000507", "507", "1507", "net/conv1"},
                                              {"8", "200", "NULL", "NULL", "worker"}});
  CHECK(db.query(
            "SELECT kernel_m, kernel_n, kernel_k, kernel_flops FROM launches WHERE kernel LIKE "
            "'gemmlowp%'") == std::vector<std::vector<std::string>>{{"64", "32", "16", "65536.0"}});
  CHECK(db.query("SELECT arg_index, kind, value, hex FROM args WHERE seq = 1 AND arg_index < 2") ==
        std::vector<std::vector<std::string>>{{"0", "scalar", "64", "40000000"},
                                              {"1", "scalar", "32", "20000000"}});
  CHECK(db.query("SELECT api, queue_id, duration_ns FROM api_calls ORDER BY seq") ==
        std::vector<std::vector<std::string>>{{"clFinish", "1", "100"},
                                              {"clWaitForEvents", "NULL", "100"}});
  CHECK(db.query("SELECT op, bytes, blocking, host_start_ns FROM transfers ORDER BY seq") ==
        std::vector<std::vector<std::string>>{{"read", "4096", "1", "3207"},
                                              {"write", "256", "0", "NULL"}});
  CHECK(db.query("SELECT path, left_open FROM ranges ORDER BY range_id") ==
        std::vector<std::vector<std::string>>{
            {"net", "0"}, {"worker", "1"}, {"net/conv1", "0"}, {"net/fc", "0"}});
  CHECK(db.query("SELECT COUNT(*) FROM builds").at(0).at(0) == "2");
  CHECK(db.query("SELECT name FROM marks").at(0).at(0) == "weights loaded");
  CHECK(db.query("SELECT queue_id, device, properties FROM queues ORDER BY queue_id") ==
        std::vector<std::vector<std::string>>{{"1", "1", "0"}, {"2", "1", "1"}, {"3", "2", "0"}});
  CHECK(db.query("SELECT name, value FROM settings") ==
        std::vector<std::vector<std::string>>{{"CLPROF_OUTPUT", "aligned.json"}});
  CHECK(
      db.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'launches_process_seq'")
          .size() == 1);
}

TEST_CASE("export: every table with its documented columns, in every format") {
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/a.db", "@aligned.json"}).status == 0);
  REQUIRE(run({"export", "--format", "csv", "-o", dir + "/csv", "@aligned.json"}).status == 0);
  const Db db(dir + "/a.db");
  const std::string doc = clitest::read_file(std::string(CLPROF_DOCS_DIR) + "/export.md");
  for (const char* table : {"processes", "settings", "devices", "queues", "programs", "kernels",
                            "builds", "ranges", "api_calls", "marks", "warnings", "layer_timings",
                            "launches", "args", "transfers", "gemm_calls"}) {
    CAPTURE(table);
    const auto cols = db.query(std::string("SELECT name FROM pragma_table_info('") + table + "')");
    REQUIRE(!cols.empty());
    std::string header;
    for (const auto& c : cols) {
      header += (header.empty() ? "" : ",") + c[0];
      CHECK(doc.find("| `" + c[0] + "` |") != std::string::npos);
    }
    const std::string csv = clitest::read_file(dir + "/csv/" + table + ".csv");
    CHECK(csv.substr(0, csv.find('\n')) == header);
    CHECK(doc.find(std::string("### `") + table + "`") != std::string::npos);
  }
  std::map<std::string, size_t> per_table;
  jsonl_sums(run({"export", "--format", "jsonl", "@aligned.json"}).out, &per_table);
  CHECK(per_table == std::map<std::string, size_t>{{"api_calls", 2},
                                                   {"args", 19},
                                                   {"builds", 2},
                                                   {"devices", 2},
                                                   // XgemmDirectNN and gemmlowp: a call each
                                                   {"gemm_calls", 2},
                                                   {"kernels", 5},
                                                   {"launches", 7},
                                                   {"marks", 1},
                                                   {"processes", 1},
                                                   {"programs", 2},
                                                   {"queues", 3},
                                                   {"ranges", 4},
                                                   {"settings", 1},
                                                   {"transfers", 2}});
}

TEST_CASE("export: a file whose records are read twice leaves no duplicate") {
  const std::string trace = clitest::write_temp("late_device.json", late_device_trace());
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/l.db", trace}).status == 0);
  CHECK(Db(dir + "/l.db").query("SELECT seq, device FROM launches ORDER BY seq") ==
        std::vector<std::vector<std::string>>{{"1", "1"}, {"2", "2"}});
  CHECK(Db(dir + "/l.db").query("SELECT COUNT(*) FROM args").at(0).at(0) == "2");
  REQUIRE(run({"export", "--format", "csv", "-o", dir + "/csv", trace}).status == 0);
  CHECK(csv_sums(dir + "/csv") == Sums{{"k", {2, 20}}});
  CHECK(jsonl_sums(run({"export", "--format", "jsonl", trace}).out) == Sums{{"k", {2, 20}}});
}

TEST_CASE("export: docs/export.md's SQL queries run on an export") {
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/a.db", "@aligned.json"}).status == 0);
  const Db db(dir + "/a.db");
  const std::string doc = clitest::read_file(std::string(CLPROF_DOCS_DIR) + "/export.md");
  size_t n = 0;
  for (size_t at = doc.find("```sql\n"); at != std::string::npos;
       at = doc.find("```sql\n", at + 1)) {
    const size_t begin = at + 7, end = doc.find("```", begin);
    const std::string sql = doc.substr(begin, end - begin);
    if (sql.find("read_csv_auto") != std::string::npos) continue;  // DuckDB's, not SQLite's
    db.query(sql);
    ++n;
  }
  CHECK(n >= 6);
  // The time-per-kernel query gives clprof kernels' totals.
  const auto rows =
      db.query("SELECT kernel, SUM(duration_ns) FROM launches GROUP BY kernel ORDER BY kernel");
  const Sums want = kernels_sums("@aligned.json");
  for (const auto& r : rows) CHECK(std::stoll(r[1]) == want.at(r[0]).second);
}

// The pandas example of docs/export.md, run by Debian's python3 (which has pandas) on an
// export in both forms it reads (run.db and run/).
TEST_CASE("export: docs/export.md's pandas example runs") {
  const std::string python = "/usr/bin/python3";
  const std::string scratch = clitest::temp_dir();
  if (clprof::test::run_child({python, "-c", "import pandas"}, {}, "", scratch).status != 0) {
    CLPROF_SKIP("/usr/bin/python3 has no pandas");
  }
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/run.db", "@aligned.json"}).status == 0);
  REQUIRE(run({"export", "--format", "csv", "-o", dir + "/run", "@aligned.json"}).status == 0);
  const std::string doc = clitest::read_file(std::string(CLPROF_DOCS_DIR) + "/export.md");
  const size_t at = doc.find("```python\nimport sqlite3");
  REQUIRE(at != std::string::npos);
  const size_t begin = doc.find('\n', at) + 1;
  const std::string code =
      doc.substr(begin, doc.find("```", begin) - begin) + "print(per_layer.to_dict())\n";
  const auto r = clprof::test::run_child({python, "-c", code}, {}, dir, scratch);
  INFO(r.err);
  REQUIRE(r.status == 0);
  // per_kernel printed, then per_layer from the CSV: net/conv1 holds 1000 + 500 ns.
  CHECK(r.out.find("XgemmDirectNN") != std::string::npos);
  CHECK(r.out.find("'net/conv1': 1500") != std::string::npos);
}

// Each row's columns joined by '|'.
static std::vector<std::string> joined(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) line += (i ? "|" : "") + r[i];
    out.push_back(line);
  }
  return out;
}

// The GEMM library calls (blas_calls.json, figures by hand in tests/analyzer/data/README.md):
// at the app's sizes with every kernel's time, beside launches holding the kernel's own
// (padded) sizes, in the three formats; docs/export.md's GEMM queries agree with clprof gemm.
TEST_CASE("export: the GEMM calls, at the app's sizes, agree with clprof gemm") {
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/g.db", "@blas_calls.json"}).status == 0);
  const Db db(dir + "/g.db");
  using Rows = std::vector<std::vector<std::string>>;
  // Ids are run-wide as range_id: 2^40 (the first process) + the trace's id, so call 3 is
  // 1099511627779 and call 5 1099511627781.
  // Call 3: 300 + 1000 + 200 = 1500 ns, 2*48*30*12 = 34560 FLOP, 34560 / 1500 = 23.04 GFLOPS.
  // Call 5: 100 + 800 = 900 ns, 34560 / 900 = 38.4. Seq 6 by itself: 16^3 * 2 = 8192 FLOP
  // in 512 ns = 16 GFLOPS.
  CHECK(joined(db.query("SELECT call_id, seq, name, source, m, n, k, batch, trans_a, trans_b, "
                        "kernels, time_ns, main_ns, exec_m, exec_n, exec_k, flops, gflops, layer, "
                        "host_begin_ns, host_end_ns, status FROM gemm_calls ORDER BY seq")) ==
        std::vector<std::string>{
            "1099511627779|1|clblast::Gemm<float>|call|48|30|12|1|n|t|3|1500|1000|64|32|16|"
            "34560.0|23.04|net/conv1|120|2000|0",
            "1099511627781|4|clblast::Gemm<float>|call|48|30|12|1|n|t|2|900|800|64|32|16|"
            "34560.0|38.4|net/conv2|2030|4000|0",
            "NULL|6|XgemmDirectNN|kernel|16|16|16|1|NULL|NULL|1|512|512|16|16|16|8192.0|16.0|net|"
            "NULL|NULL|NULL"});
  // A launch holds its kernel's sizes (64x32x16 padded), and the call it was made in.
  CHECK(db.query("SELECT seq, call_id, kernel_m, kernel_n, kernel_k FROM launches WHERE kernel = "
                 "'XgemmDirectNN' ORDER BY seq") == Rows{{"2", "1099511627779", "64", "32", "16"},
                                                         {"5", "1099511627781", "64", "32", "16"},
                                                         {"6", "NULL", "16", "16", "16"}});
  // The launches of a call join back to it: 3 + 2 kernels.
  CHECK(db.query("SELECT g.call_id, COUNT(*), SUM(l.duration_ns) FROM gemm_calls g JOIN launches "
                 "l ON l.process = g.process AND l.call_id = g.call_id GROUP BY g.call_id") ==
        Rows{{"1099511627779", "3", "1500"}, {"1099511627781", "2", "900"}});

  // docs/export.md's GEMM queries, run as written, against clprof gemm's own figures.
  const std::string doc = clitest::read_file(std::string(CLPROF_DOCS_DIR) + "/export.md");
  const auto sql_after = [&](const std::string& title) {
    const size_t at = doc.find(title);
    REQUIRE(at != std::string::npos);
    const size_t begin = doc.find("```sql\n", at) + 7;
    return doc.substr(begin, doc.find("```", begin) - begin);
  };
  const auto per_call = db.query(sql_after("GEMM calls as `clprof gemm` lists them"));
  const auto gemm = run({"gemm", "--format", "json", "@blas_calls.json"});
  REQUIRE(gemm.status == 0);
  rapidjson::Document calls;
  calls.Parse(gemm.out.c_str());
  REQUIRE(calls.IsArray());
  REQUIRE(per_call.size() == calls.Size());
  for (rapidjson::SizeType i = 0; i < calls.Size(); ++i) {
    const auto& c = calls[i];
    CAPTURE(i);
    // seq, name, m, n, k, batch, time_ns, gflops
    CHECK(per_call[i][0] == std::to_string(c["seq"].GetUint64()));
    CHECK(per_call[i][1] == c["name"].GetString());
    CHECK(std::stoll(per_call[i][6]) == c["time_ns"].GetInt64());
    CHECK(std::stod(per_call[i][7]) == doctest::Approx(c["gflops"].GetDouble()).epsilon(1e-12));
  }
  CHECK(std::stod(per_call.at(1).at(7)) == doctest::Approx(38.4));
  const auto per_shape = db.query(sql_after("GEMM throughput per shape"));
  const auto grouped = run({"gemm", "--group", "--format", "json", "@blas_calls.json"});
  REQUIRE(grouped.status == 0);
  rapidjson::Document groups;
  groups.Parse(grouped.out.c_str());
  REQUIRE(groups.IsArray());
  REQUIRE(per_shape.size() == groups.Size());
  std::map<std::string, std::vector<std::string>> by_name;
  for (const auto& r : per_shape) by_name[r.at(0) + " " + r.at(1)] = r;
  for (const auto& g : groups.GetArray()) {
    const std::string key =
        std::string(g["name"].GetString()) + " " + std::to_string(g["m"].GetInt64());
    CAPTURE(key);
    REQUIRE(by_name.count(key));
    const auto& r = by_name[key];
    // name, m, n, k, batch, calls, total_ns, gflops_best, gflops_overall
    CHECK(std::stoull(r[5]) == g["count"].GetUint64());
    CHECK(std::stoll(r[6]) == g["total_ns"].GetInt64());
    CHECK(std::stod(r[7]) == doctest::Approx(g["gflops_best"].GetDouble()).epsilon(1e-12));
  }
  // By hand: the 48x30x12 calls: best 34560 / 900 = 38.4, overall 69120 / 2400 = 28.8.
  CHECK(std::stod(by_name.at("clblast::Gemm<float> 48").at(7)) == doctest::Approx(38.4));
  CHECK(std::stod(by_name.at("clblast::Gemm<float> 48").at(8)) == doctest::Approx(28.8));

  // CSV and JSON Lines hold the same rows.
  REQUIRE(run({"export", "--format", "csv", "-o", dir + "/csv", "@blas_calls.json"}).status == 0);
  const std::string csv = clitest::read_file(dir + "/csv/gemm_calls.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);  // header + 3 calls
  CHECK(csv.find(",clblast::Gemm<float>,") != std::string::npos);
  std::map<std::string, size_t> per_table;
  const auto j = run({"export", "--format", "jsonl", "@blas_calls.json"});
  REQUIRE(j.status == 0);
  jsonl_sums(j.out, &per_table);
  CHECK(per_table["gemm_calls"] == 3);
  CHECK(j.out.find(
            R"("table":"gemm_calls","process":0,"pid":300,"call_id":1099511627779,"seq":1,)") !=
        std::string::npos);

  // A selection keeps the calls clprof gemm keeps: --filter conv2 leaves call 5.
  REQUIRE(run({"export", "--filter", "conv2", "-o", dir + "/f.db", "@blas_calls.json"}).status ==
          0);
  CHECK(Db(dir + "/f.db").query("SELECT call_id, time_ns FROM gemm_calls") ==
        Rows{{"1099511627781", "900"}});
  const auto filtered = run({"gemm", "--filter", "conv2", "--format", "json", "@blas_calls.json"});
  CHECK(filtered.out.find(R"("time_ns": 900)") != std::string::npos);
  CHECK(filtered.out.find(R"("time_ns": 1500)") == std::string::npos);
}

TEST_CASE("export: refusals and failures") {
  const std::string dir = clitest::temp_dir();
  CHECK(run({"export", "--format", "xml", "-o", dir + "/x", "@basic.json"}).status == 2);
  CHECK(run({"export", "@basic.json"}).status == 2);  // sqlite needs -o
  CHECK(run({"export", "--format", "csv", "@basic.json"}).status == 2);
  CHECK(run({"export", "-o", clitest::data("basic.json"), "@basic.json"}).status == 2);
  // A bad input leaves no database behind.
  const auto bad = run({"export", "-o", dir + "/bad.db",
                        clitest::write_temp("bad.json", "{\"format\":\"clprof-trace\",")});
  CHECK(bad.status == 2);
  std::ifstream probe(dir + "/bad.db");
  CHECK_FALSE(probe.good());
  // CSV into something that is not a directory.
  const std::string file = clitest::write_temp("plain", "x");
  const auto notdir = run({"export", "--format", "csv", "-o", file, "@basic.json"});
  CHECK(notdir.status == 1);
  CHECK(notdir.err.find("not a directory") != std::string::npos);
}
