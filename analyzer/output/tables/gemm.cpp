#include "output/tables/gemm.hpp"

#include <functional>
#include <memory>

#include "format.hpp"
#include "output/json_writer.hpp"
#include "output/tables/common_columns.hpp"

namespace clprof::output::tables {

namespace {

using analyses::GemmGroupRow;
using analyses::GemmResult;

// ---- per call: each column once, with how a call's value is read ----------------------
struct CallView {
  const GemmResult& result;
  const GemmResult::Record& rec;
  const GemmResult::Shape& shape;
  const Value& layer;
};
struct CallColumn {
  Column column;
  std::function<Value(const CallView&)> value;
};

Value opt_int(const std::optional<int32_t>& v) {
  return v ? Value::integer(*v) : Value::null();
}
Value opt_text(const std::string& s) {
  return s.empty() ? Value::null() : Value::text(s);
}
std::string layout_text(const std::string& layout, const std::string& trans) {
  if (layout.empty() && trans.empty()) return "";
  return layout + (layout.empty() ? "" : " ") + trans;
}

// The columns both views have: the same figure of a call and of a group of calls.
Column precision_column() {
  return column("precision", "Prec", Type::Text, "", "s, d, c, z or h (recorded calls)")
      .wide()
      .allow_null();
}
Column m_column() {
  return column("m", "M", Type::Int, "", "rows of C, as the app asked").allow_null();
}
Column n_column() {
  return column("n", "N", Type::Int, "", "columns of C").allow_null();
}
Column k_column() {
  return column("k", "K", Type::Int, "", "inner dimension").allow_null();
}
Column rule_column() {
  return column("rule", "Rule", Type::Text, "", "id of the rule that decoded the main kernel")
      .wide()
      .allow_null();
}

const std::vector<CallColumn>& call_columns() {
  static const std::vector<CallColumn> c = {
      {column("seq", "Seq", Type::Int, "",
              "sequence number of the call's first kernel in its process")
           .ascending()
           .wide()
           .allow_null(),
       [](const CallView& v) { return v.rec.seq ? Value::uint(v.rec.seq) : Value::null(); }},
      {column("process", "Process", Type::Int, "", "index of the process among the inputs")
           .machine_only(),
       [](const CallView& v) { return Value::uint(v.shape.process); }},
      {column("name", "Call", Type::Text, "",
              "the library entry point the app called, else the main kernel; the table marks "
              "padded sizes with *")
           .shrink()
           .marked_by("padded"),
       [](const CallView& v) { return Value::text(v.result.names[v.shape.name_id]); }},
      {layer_column(), [](const CallView& v) { return v.layer; }},
      {column(
           "source", "Source", Type::Text, "",
           "where M, N, K come from: call (the library call's arguments), group (CLBlast's kernels "
           "grouped into a call), kernel (one kernel, its rule)")
           .wide(),
       [](const CallView& v) { return Value::text(analyses::source_name(v.shape.source)); }},
      {precision_column(), [](const CallView& v) { return opt_text(v.shape.precision); }},
      {column("layout", "Layout", Type::Text, "",
              "row or col, then the transposes of A and B (recorded calls)")
           .wide()
           .allow_null(),
       [](const CallView& v) { return opt_text(layout_text(v.shape.layout, v.shape.trans)); }},
      {m_column(), [](const CallView& v) { return Value::integer(v.shape.m); }},
      {n_column(), [](const CallView& v) { return Value::integer(v.shape.n); }},
      {k_column(), [](const CallView& v) { return Value::integer(v.shape.k); }},
      {column("batch", "Batch", Type::Int, "", "GEMMs in the call").allow_null(),
       [](const CallView& v) { return Value::integer(v.shape.batch); }},
      {column("kernels", "Kernels", Type::Int, "",
              "kernel launches the call ran (pad, transpose, GEMM, copy back)")
           .wide(),
       [](const CallView& v) { return Value::uint(v.rec.kernels); }},
      {column("time_ns", "Time", Type::Duration, "ns",
              "sum of the kernel times of every kernel of the call")
           .allow_null(),
       [](const CallView& v) { return Value::integer(v.result.time_ns(v.rec)); }},
      {column("gflops", "GFLOPS", Type::Real, "GFLOPS", "2*M*N*K*batch / call time")
           .allow_null()
           .digits(2),
       [](const CallView& v) { return Value::real(v.result.gflops(v.rec)); }},
      {column("percent_of_peak", "% peak", Type::Real, "%", "GFLOPS / --peak, in percent")
           .allow_null()
           .only_with("--peak"),
       [](const CallView& v) {
         const auto g = v.result.gflops(v.rec);
         if (!g || v.result.peak_gflops <= 0) return Value::null();
         return Value::real(100.0 * *g / v.result.peak_gflops);
       }},
      {column("main_ns", "Main", Type::Duration, "ns",
              "kernel time of the main (GEMM) kernel alone")
           .allow_null()
           .wide(),
       [](const CallView& v) {
         return v.rec.main_ns >= 0 ? Value::integer(v.rec.main_ns) : Value::null();
       }},
      {column("kernel", "Main kernel", Type::Text, "", "the main kernel (decoded by a rule)")
           .wide()
           .allow_null(),
       [](const CallView& v) {
         return v.shape.kernel_id == GemmResult::kNoName
                    ? Value::null()
                    : Value::text(v.result.names[v.shape.kernel_id]);
       }},
      {column("exec_m", "Mp", Type::Int, "", "M as the main kernel ran it (padded)")
           .wide()
           .allow_null(),
       [](const CallView& v) { return Value::integer(v.shape.exec_m); }},
      {column("exec_n", "Np", Type::Int, "", "N as the main kernel ran it").wide().allow_null(),
       [](const CallView& v) { return Value::integer(v.shape.exec_n); }},
      {column("exec_k", "Kp", Type::Int, "", "K as the main kernel ran it").wide().allow_null(),
       [](const CallView& v) { return Value::integer(v.shape.exec_k); }},
      {column("executed_gflop", "Exec GFLOP", Type::Real, "GFLOP",
              "2*Mp*Np*Kp*batch / 1e9: the work the main kernel did")
           .wide()
           .allow_null()
           .digits(-1),
       [](const CallView& v) {
         return v.shape.exec_flops ? Value::real(*v.shape.exec_flops / 1e9) : Value::null();
       }},
      {column("status", "Status", Type::Int, "",
              "what the library returned (recorded calls; 0: success)")
           .wide()
           .allow_null(),
       [](const CallView& v) { return opt_int(v.shape.status); }},
      {rule_column(),
       [](const CallView& v) {
         return v.shape.rule ? Value::text(v.shape.rule->id) : Value::null();
       }},
      {column("padded", "Padded", Type::Bool, "",
              "M, N, K are padded sizes (no logical ones known): FLOPs include the padding")
           .machine_only(),
       [](const CallView& v) { return Value::boolean(v.shape.padded); }},
  };
  return c;
}

// ---- --group: each column once, read from a GemmGroupRow ------------------------------
struct GroupColumn {
  Column column;
  std::function<Value(const GemmGroupRow&)> value;
};

const std::vector<GroupColumn>& group_columns() {
  static const std::vector<GroupColumn> c = {
      {column("name", "Call", Type::Text, "",
              "the entry point, else the main kernel; the table marks padded sizes with *")
           .shrink()
           .marked_by("padded"),
       [](const GemmGroupRow& g) { return Value::text(g.name); }},
      {precision_column(), [](const GemmGroupRow& g) { return opt_text(g.precision); }},
      {column("layout", "Layout", Type::Text, "", "row or col, then the transposes of A and B")
           .wide()
           .allow_null(),
       [](const GemmGroupRow& g) { return opt_text(layout_text(g.layout, g.trans)); }},
      {m_column(), [](const GemmGroupRow& g) { return Value::integer(g.m); }},
      {n_column(), [](const GemmGroupRow& g) { return Value::integer(g.n); }},
      {k_column(), [](const GemmGroupRow& g) { return Value::integer(g.k); }},
      {column("batch", "Batch", Type::Int, "", "GEMMs per call").allow_null(),
       [](const GemmGroupRow& g) { return Value::integer(g.batch); }},
      {calls_column("calls"), [](const GemmGroupRow& g) { return Value::uint(g.count); }},
      {total_column("sum of the call times").wide(),
       [](const GemmGroupRow& g) { return Value::integer(g.total_ns); }},
      {statistic_column(Statistic::Median, "median call time"),
       [](const GemmGroupRow& g) { return g.timed ? Value::integer(g.median_ns) : Value::null(); }},
      {statistic_column(Statistic::Min, "shortest call time").wide(),
       [](const GemmGroupRow& g) { return g.timed ? Value::integer(g.min_ns) : Value::null(); }},
      {column("main_median_ns", "Main med", Type::Duration, "ns",
              "median time of the main kernel alone")
           .allow_null()
           .wide(),
       [](const GemmGroupRow& g) { return Value::integer(g.main_median_ns); }},
      {column("gflops_median", "GF/s med", Type::Real, "GFLOPS", "2*M*N*K*batch / median call time")
           .allow_null()
           .digits(2),
       [](const GemmGroupRow& g) { return Value::real(g.gflops_median); }},
      {column("gflops_best", "GF/s best", Type::Real, "GFLOPS",
              "2*M*N*K*batch / shortest call time")
           .allow_null()
           .digits(2)
           .alias("gflops"),
       [](const GemmGroupRow& g) { return Value::real(g.gflops_best); }},
      {column("percent_of_peak", "% peak", Type::Real, "%",
              "GFLOPS (gflops_best) / --peak, in percent")
           .allow_null()
           .only_with("--peak"),
       [](const GemmGroupRow& g) { return Value::real(g.percent_of_peak); }},
      {column("executed_gflop", "Exec GFLOP", Type::Real, "GFLOP",
              "2*Mp*Np*Kp*batch / 1e9 per call: the work the main kernel did at its padded sizes")
           .wide()
           .allow_null()
           .digits(-1),
       [](const GemmGroupRow& g) { return Value::real(g.executed_gflop); }},
      {rule_column(), [](const GemmGroupRow& g) { return opt_text(g.rule); }},
      {column("padded", "Padded", Type::Bool, "",
              "M, N, K are padded sizes (no logical ones known)")
           .machine_only(),
       [](const GemmGroupRow& g) { return Value::boolean(g.padded); }},
  };
  return c;
}

template <class Columns>
std::vector<Column> schema_columns(const Columns& cs) {
  std::vector<Column> out;
  for (const auto& c : cs) out.push_back(c.column);
  return out;
}

}  // namespace

const Schema& gemm_schema() {
  static const Schema s =
      schema("gemm",
             "one row per GEMM call (a library call, else CLBlast's kernels grouped, else one "
             "kernel)",
             schema_columns(call_columns()))
          .ordered_by("process, then start time");
  return s;
}

const Schema& gemm_group_schema() {
  static const Schema s =
      schema("gemm", "one row per distinct (call, precision, layout, M, N, K, batch)",
             schema_columns(group_columns()))
          .viewed_with("--group")
          .ordered_by("total time, descending");
  return s;
}

Result gemm_result(const GemmResult& result, bool peak) {
  Result out(gemm_schema());
  if (peak) out.options.push_back("--peak");
  // Consecutive calls mostly share their range: its path is made once for them.
  struct Cache {
    uint64_t range = UINT64_MAX;
    Value layer;
  };
  auto cache = std::make_shared<Cache>();
  out.source.count = result.records.size();
  out.source.fill = [&result, cache](size_t i, Row& row) {
    const auto& rec = result.records[i];
    if (rec.range != cache->range) {
      cache->layer = Value::text(result.layer(rec));
      cache->range = rec.range;
    }
    const CallView v{result, rec, result.shape(rec), cache->layer};
    row.clear();
    for (const auto& c : call_columns()) row.push_back(c.value(v));
  };
  return out;
}

Result gemm_group_result(const GemmResult& result, bool peak) {
  Result out(gemm_group_schema());
  if (peak) out.options.push_back("--peak");
  for (const auto& g : result.groups) {
    Row row;
    for (const auto& c : group_columns()) row.push_back(c.value(g));
    out.rows.push_back(std::move(row));
  }
  return out;
}

void add_gemm_notes(Result& out, const GemmResult& result) {
  // Short: notes are not cut to the terminal's width.
  std::string note = std::to_string(result.calls) + " GEMM calls (" +
                     std::to_string(result.from_library) + " recorded), " +
                     std::to_string(result.kernel_launches) + " kernels, " +
                     format_general(result.gflop_total) + " GFLOP";
  if (result.peak_gflops > 0) note += "; peak " + format_fixed(result.peak_gflops, 2) + " GFLOPS";
  out.notes.push_back(note + ".");
  const size_t padded = out.schema->find("padded");
  bool any = false;
  if (out.source.fill) {
    // Per call: padded is a property of the shape.
    std::vector<bool> shown(result.shapes.size(), false);
    for (size_t i = 0; i < out.size(); ++i)
      shown[result.records[out.ordered ? out.order[i] : i].shape] = true;
    for (size_t i = 0; i < shown.size(); ++i) any |= shown[i] && result.shapes[i].padded;
  } else {
    Row scratch;
    for (size_t i = 0; i < out.size() && !any; ++i) any = out.row(i, scratch)[padded].as_bool();
  }
  if (any)
    out.notes.push_back(
        "* padded sizes (the main kernel's; no logical sizes known): FLOPs include the padding.");
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
    const std::pair<const char*, const gemm::DimSource*> dims[] = {
        {"m", &r.m}, {"n", &r.n}, {"k", &r.k}, {"batch", &r.batch}};
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
        case gemm::DimSource::Kind::Gws:
          j.field("gws", d->index);
          break;
        case gemm::DimSource::Kind::Option:
          j.field("option", d->option);
          break;
        case gemm::DimSource::Kind::Const:
          j.field("const", d->value);
          break;
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
