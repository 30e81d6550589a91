#include "output/tables/gemm.hpp"

#include <memory>

#include "output/format.hpp"
#include "output/json_writer.hpp"

namespace clprof::output::tables {

namespace {

// The columns both views share, in order.
std::vector<Column> shape_columns() {
  return {
      column("m", "M", Type::Int, "", "rows of C (as the rule decodes them)").allow_null(),
      column("n", "N", Type::Int, "", "columns of C").allow_null(),
      column("k", "K", Type::Int, "", "inner dimension").allow_null(),
      column("batch", "Batch", Type::Int, "", "GEMMs in the launch").allow_null(),
  };
}

Column name_column() {
  return column("name", "Kernel", Type::Text, "", "kernel function name; the table marks padded sizes with *")
      .shrink()
      .marked_by("padded");
}

Column peak_column(const std::string& of) {
  return column("percent_of_peak", "% peak", Type::Real, "%", "GFLOPS (" + of + ") / --peak, in percent")
      .allow_null()
      .only_with("--peak");
}

Column rule_column() { return column("rule", "Rule", Type::Text, "", "id of the rule that decoded it").wide(); }

Column padded_column() {
  return column("padded", "Padded", Type::Bool, "",
                "the rule decodes padded sizes (CLBlast's indirect Xgemm): FLOPs include the padding")
      .machine_only();
}

}  // namespace

const Schema& gemm_schema() {
  static const Schema s = [] {
    Schema g;
    g.name = "gemm";
    g.title = "one row per GEMM launch";
    g.default_order = "process, then sequence number";
    g.columns = {
        column("seq", "Seq", Type::Int, "", "sequence number of the launch in its process").ascending().wide(),
        column("process", "Process", Type::Int, "", "index of the process among the inputs").machine_only(),
        name_column(),
        column("layer", "Layer", Type::Text, "", "path of the innermost range").shrink(Shorten::Head, 12),
    };
    for (auto& c : shape_columns()) g.columns.push_back(c);
    g.columns.push_back(column("time_ns", "Time", Type::Duration, "ns", "kernel time").allow_null());
    g.columns.push_back(
        column("gflops", "GFLOPS", Type::Real, "GFLOPS", "2*M*N*K*batch / kernel time").allow_null().digits(2));
    g.columns.push_back(peak_column("gflops"));
    g.columns.push_back(rule_column());
    g.columns.push_back(padded_column());
    return g;
  }();
  return s;
}

const Schema& gemm_group_schema() {
  static const Schema s = [] {
    Schema g;
    g.name = "gemm";
    g.view = "--group";
    g.title = "one row per distinct (kernel, M, N, K, batch)";
    g.default_order = "total time, descending";
    g.columns = {name_column()};
    for (auto& c : shape_columns()) g.columns.push_back(c);
    g.columns.push_back(column("count", "Calls", Type::Int, "", "launches"));
    g.columns.push_back(column("total_ns", "Total", Type::Duration, "ns", "sum of the kernel times").wide());
    g.columns.push_back(column("median_ns", "Median", Type::Duration, "ns", "median kernel time").allow_null());
    g.columns.push_back(column("min_ns", "Min", Type::Duration, "ns", "shortest kernel time").allow_null().wide());
    g.columns.push_back(column("gflops_median", "GF/s med", Type::Real, "GFLOPS", "2*M*N*K*batch / median time")
                            .allow_null()
                            .digits(2));
    g.columns.push_back(column("gflops_best", "GF/s best", Type::Real, "GFLOPS", "2*M*N*K*batch / shortest time")
                            .allow_null()
                            .digits(2)
                            .alias("gflops"));
    g.columns.push_back(peak_column("gflops_best"));
    g.columns.push_back(rule_column());
    g.columns.push_back(padded_column());
    return g;
  }();
  return s;
}

Result gemm_result(const analyses::GemmResult& result, bool peak) {
  Result out(gemm_schema());
  if (peak) out.options.push_back("--peak");
  // Consecutive launches mostly share their range: its path is made once for them.
  struct Cache {
    uint64_t range = UINT64_MAX;
    Value layer;
  };
  auto cache = std::make_shared<Cache>();
  out.source.count = result.records.size();
  out.source.fill = [&result, cache](size_t i, Row& row) {
    const auto& rec = result.records[i];
    const auto& s = result.shape(rec);
    if (rec.range != cache->range) {
      cache->layer = Value::text(result.layer(rec));
      cache->range = rec.range;
    }
    const auto gflops = result.gflops(rec);
    std::optional<double> percent;
    if (gflops && result.peak_gflops > 0) percent = 100.0 * *gflops / result.peak_gflops;
    row = {Value::uint(rec.seq),
           Value::uint(s.process),
           Value::text(result.names[s.name_id]),
           cache->layer,
           Value::integer(s.m),
           Value::integer(s.n),
           Value::integer(s.k),
           Value::integer(s.batch),
           Value::integer(result.time_ns(rec)),
           Value::real(gflops),
           Value::real(percent),
           Value::text(s.rule->id),
           Value::boolean(s.rule->padded)};
  };
  return out;
}

Result gemm_group_result(const analyses::GemmResult& result, bool peak) {
  Result out(gemm_group_schema());
  if (peak) out.options.push_back("--peak");
  for (const auto& g : result.groups) {
    const Value none;
    out.rows.push_back({Value::text(g.name), Value::integer(g.m), Value::integer(g.n), Value::integer(g.k),
                        Value::integer(g.batch), Value::uint(g.count), Value::integer(g.total_ns),
                        g.timed ? Value::integer(g.median_ns) : none, g.timed ? Value::integer(g.min_ns) : none,
                        Value::real(g.gflops_median), Value::real(g.gflops_best), Value::real(g.percent_of_peak),
                        Value::text(g.rule), Value::boolean(g.padded)});
  }
  return out;
}

void add_gemm_notes(Result& out, const analyses::GemmResult& result) {
  std::string note = std::to_string(result.launches) + " GEMM launches, " + format_general(result.gflop_total) + " GFLOP";
  if (result.peak_gflops > 0) note += "; peak " + format_fixed(result.peak_gflops, 2) + " GFLOPS";
  out.notes.push_back(note + ".");
  const size_t padded = out.schema->find("padded");
  bool any = false;
  if (out.source.fill) {
    // Per launch: padded is a property of the shape.
    std::vector<bool> shown(result.shapes.size(), false);
    for (size_t i = 0; i < out.size(); ++i)
      shown[result.records[out.ordered ? out.order[i] : i].shape] = true;
    for (size_t i = 0; i < shown.size(); ++i) any |= shown[i] && result.shapes[i].rule->padded;
  } else {
    Row scratch;
    for (size_t i = 0; i < out.size() && !any; ++i) any = out.row(i, scratch)[padded].as_bool();
  }
  if (any) out.notes.push_back("* padded sizes (CLBlast indirect GEMM): FLOPs include the padding.");
}

std::string rules_json(const std::vector<gemm::Rule>& rules) {
  JsonWriter j;
  j.begin_object();
  j.key("gemm_rules");
  j.begin_array();
  for (const auto& r : rules) {
    j.begin_object();
    j.field("id", r.id);
    j.field("kernel", r.kernel);
    const std::pair<const char*, const gemm::DimSource*> dims[] = {{"m", &r.m}, {"n", &r.n}, {"k", &r.k}, {"batch", &r.batch}};
    for (const auto& [name, d] : dims) {
      j.key(name);
      j.begin_object();
      switch (d->kind) {
        case gemm::DimSource::Kind::Arg: {
          j.field("arg", d->index);
          const std::string t = gemm::describe(*d);
          j.field("type", t.substr(t.find('(') + 1, t.size() - t.find('(') - 2));
          break;
        }
        case gemm::DimSource::Kind::Gws: j.field("gws", d->index); break;
        case gemm::DimSource::Kind::Option: j.field("option", d->option); break;
        case gemm::DimSource::Kind::Const: j.field("const", d->value); break;
      }
      j.end_object();
    }
    j.field("padded", r.padded);
    if (!r.verified.empty()) j.field("verified", r.verified);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

}  // namespace clprof::output::tables
