// The export tables (output/views/export_tables.hpp): every row has its table's columns, in
// order and of their declared types, with exact values on a constructed run; and
// docs/export.md's tables are what the declarations say (CLPROF_UPDATE_DOCS=1 rewrites them).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "model_builders.hpp"
#include "output/views/export_tables.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

using namespace clprof;
using output::Value;
using output::views::ExportTable;

namespace {

struct Collected {
  std::map<ExportTable, std::vector<output::Row>> rows;
  void operator()(ExportTable t, const output::Row& r) {
    const auto& schema = *output::views::export_table(t).schema;
    REQUIRE_MESSAGE(r.size() == schema.columns.size(), schema.name);
    for (size_t i = 0; i < r.size(); ++i) {
      const auto& c = schema.columns[i];
      CAPTURE(schema.name);
      CAPTURE(c.key);
      if (r[i].is_null()) {
        CHECK(c.nullable);
        continue;
      }
      switch (c.type) {
        case output::Type::Text:
          CHECK(r[i].kind() == Value::Kind::Text);
          break;
        case output::Type::Real:
          CHECK(r[i].kind() == Value::Kind::Real);
          break;
        case output::Type::Bool:
          CHECK(r[i].kind() == Value::Kind::Bool);
          break;
        default:
          CHECK((r[i].kind() == Value::Kind::Int || r[i].kind() == Value::Kind::Uint));
      }
    }
    rows[t].push_back(r);
  }
};

const Value& field(const output::Row& r, ExportTable t, const std::string& key) {
  const auto& s = *output::views::export_table(t).schema;
  const size_t i = s.find(key);
  REQUIRE_MESSAGE(i != output::Schema::npos, key);
  return r[i];
}

model::Run constructed() {
  model::Run run;
  run.processes.resize(1);
  run.processes[0].pid = 42;
  run.processes[0].command_line = {"./app", "a \"b\""};
  run.processes[0].host_start_ns = 1000;
  model::Device d;
  d.id = 1;
  d.process = 0;
  d.name = "GPU";
  d.has_clock_offset = true;
  d.device_to_host_offset_ns = -500;
  d.clock_uncertainty_ns = 3;
  run.devices = {d};
  run.ranges = {unit::range(7, 0, "net", 10, 900), unit::range(8, 7, "conv", 20, 800)};
  model::Sync y;
  y.seq = 9;
  y.api = "clFinish";
  y.queue_id = 1;
  y.host_begin_ns = 850;
  y.host_end_ns = 880;
  run.syncs = {y};
  return run;
}

}  // namespace

TEST_CASE("export rows: metadata and a launch, exactly") {
  model::Run run = constructed();
  output::views::ExportRows rows(run, gemm::builtin_rules());
  Collected c;
  rows.metadata(std::ref(c));
  REQUIRE(c.rows[ExportTable::Processes].size() == 1);
  CHECK(
      field(c.rows[ExportTable::Processes][0], ExportTable::Processes, "command_line").as_text() ==
      R"(["./app","a \"b\""])");
  const auto& dev = c.rows[ExportTable::Devices].at(0);
  CHECK(field(dev, ExportTable::Devices, "clock_offset_ns").as_int() == -500);
  CHECK(field(dev, ExportTable::Devices, "clock_uncertainty_ns").as_uint() == 3);
  const auto& conv = c.rows[ExportTable::Ranges].at(1);
  CHECK(field(conv, ExportTable::Ranges, "path").as_text() == "net/conv");
  CHECK(field(conv, ExportTable::Ranges, "depth").as_int() == 1);
  CHECK(field(conv, ExportTable::Ranges, "parent_id").as_uint() == 7);
  CHECK(field(c.rows[ExportTable::Ranges].at(0), ExportTable::Ranges, "parent_id").is_null());
  const auto& wait = c.rows[ExportTable::ApiCalls].at(0);
  CHECK(field(wait, ExportTable::ApiCalls, "duration_ns").as_int() == 30);

  // XgemmDirectNN 64x32x16 by its arguments, [1000, 1400] on the device = [500, 900] on the host.
  model::Launch l = unit::launch("XgemmDirectNN", 1000, 400, {7, 8}, 3);
  l.gws = {16, 8};
  l.lws = std::vector<uint64_t>{8, 8};
  l.args = {unit::scalar(4, 64), unit::scalar(4, 32), unit::scalar(4, 16),
            unit::scalar(8, UINT64_MAX), unit::buffer(5)};
  rows.launch(l, std::ref(c));
  const auto& row = c.rows[ExportTable::Launches].at(0);
  CHECK(field(row, ExportTable::Launches, "host_start_ns").as_int() == 500);
  CHECK(field(row, ExportTable::Launches, "host_end_ns").as_int() == 900);
  CHECK(field(row, ExportTable::Launches, "start_ns").as_int() == 1000);
  CHECK(field(row, ExportTable::Launches, "duration_ns").as_int() == 400);
  CHECK(field(row, ExportTable::Launches, "work_dim").as_uint() == 2);
  CHECK(field(row, ExportTable::Launches, "gws_y").as_uint() == 8);
  CHECK(field(row, ExportTable::Launches, "gws_z").is_null());
  CHECK(field(row, ExportTable::Launches, "gwo_x").is_null());
  CHECK(field(row, ExportTable::Launches, "range_id").as_uint() == 8);
  CHECK(field(row, ExportTable::Launches, "layer").as_text() == "net/conv");
  CHECK(field(row, ExportTable::Launches, "kernel_m").as_int() == 64);
  CHECK(field(row, ExportTable::Launches, "kernel_n").as_int() == 32);
  CHECK(field(row, ExportTable::Launches, "kernel_k").as_int() == 16);
  CHECK(field(row, ExportTable::Launches, "kernel_flops").as_real() ==
        doctest::Approx(2.0 * 64 * 32 * 16));
  const auto& a = c.rows[ExportTable::Args];
  REQUIRE(a.size() == 5);
  CHECK(field(a[0], ExportTable::Args, "value").as_uint() == 64);
  CHECK(field(a[3], ExportTable::Args, "value").as_uint() == UINT64_MAX);
  CHECK(field(a[4], ExportTable::Args, "kind").as_text() == "buffer");
  CHECK(field(a[4], ExportTable::Args, "mem_id").as_uint() == 5);
  CHECK(field(a[4], ExportTable::Args, "value").is_null());

  // Without a clock sync: host-aligned times null, device times as reported.
  run.devices[0].has_clock_offset = false;
  output::views::ExportRows unsynced(run, gemm::builtin_rules());
  Collected u;
  unsynced.launch(l, std::ref(u));
  CHECK(
      field(u.rows[ExportTable::Launches].at(0), ExportTable::Launches, "host_start_ns").is_null());
  CHECK(field(u.rows[ExportTable::Launches].at(0), ExportTable::Launches, "start_ns").as_int() ==
        1000);
  CHECK(unsynced.device_use().used() == std::set<uint32_t>{1});
}

TEST_CASE("export tables: every name is SQL-safe and unique") {
  std::set<std::string> tables;
  for (const auto& t : output::views::export_tables()) {
    CHECK(tables.insert(t.schema->name).second);
    std::set<std::string> keys;
    for (const auto& c : t.schema->columns) {
      CHECK(keys.insert(c.key).second);
      CHECK(c.key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string::npos);
    }
    for (const auto& ix : t.indexes)
      for (const auto& k : ix) CHECK(keys.count(k));
  }
  CHECK(tables.size() == static_cast<size_t>(ExportTable::Count));
}

TEST_CASE("docs/export.md's tables are what the columns declare") {
  const std::string path = std::string(CLPROF_DOCS_DIR) + "/export.md";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const std::string begin = "<!-- tables -->\n", end = "<!-- /tables -->";
  const size_t a = doc.find(begin);
  REQUIRE(a != std::string::npos);
  const size_t b = doc.find(end, a);
  REQUIRE(b != std::string::npos);
  const std::string now = output::views::export_markdown() + "\n";
  const char* u = std::getenv("CLPROF_UPDATE_DOCS");
  if (u && std::string(u) == "1") {
    doc.replace(a + begin.size(), b - a - begin.size(), now);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  CHECK_MESSAGE(doc.substr(a + begin.size(), b - a - begin.size()) == now,
                "docs/export.md is stale: run analyzer_unit_tests with CLPROF_UPDATE_DOCS=1");
}
