// clprof gemm: GEMM launches decoded by the rule table, with GFLOPS and % of peak.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <tuple>

#include "analyses/gemm/gemm.hpp"
#include "readers/clpeak/peak.hpp"
#include "cli/commands.hpp"

namespace clprof::cli {

namespace {

struct GemmOptions {
  CommonOptions common;
  bool group = false;
  std::vector<std::string> rules_files;
  bool no_builtin = false;
  bool list_rules = false;
  double peak = 0;
  std::string peak_from;
};

using output::Align;
using output::Cell;
using output::Column;

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw readers::InputError(path, 0, 0, "cannot open file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

Runner setup_gemm(CLI::App& app) {
  auto o = std::make_shared<GemmOptions>();
  // --list-rules needs no trace, so the positional is optional here and checked below.
  add_common_options(app, o->common);
  app.get_option("traces")->required(false);
  app.add_flag("--group", o->group,
               "One row per distinct (kernel, M, N, K, batch): count, median, min, GFLOPS");
  app.add_option("--rules", o->rules_files,
                 "Extra GEMM rules (JSON, see docs/gemm-rules.md); tried before the built-in ones")
      ->type_name("FILE");
  app.add_flag("--no-builtin-rules", o->no_builtin, "Use only the --rules files");
  app.add_flag("--list-rules", o->list_rules, "Print the rule table (JSON) and exit");
  app.add_option("--peak", o->peak, "Peak GFLOPS of the device: adds a % of peak column")
      ->type_name("GFLOPS");
  app.add_option("--peak-from", o->peak_from,
                 "Take the peak from clpeak's output (best Single-precision compute value)")
      ->type_name("FILE");
  app.footer("FLOPs = 2*M*N*K*batch; GFLOPS = FLOPs / device time. Rules marked padded "
             "decode padded sizes (CLBlast's indirect Xgemm), overstating the useful work.");
  return [o]() -> int {
    auto rules = std::make_shared<std::vector<gemm::Rule>>();
    for (const auto& f : o->rules_files) {
      auto extra = gemm::parse_rules(read_file(f), f);
      rules->insert(rules->end(), extra.begin(), extra.end());
    }
    if (!o->no_builtin) rules->insert(rules->end(), gemm::builtin_rules().begin(), gemm::builtin_rules().end());
    if (o->list_rules) {
      output::JsonWriter j;
      j.begin_object();
      j.key("gemm_rules");
      j.begin_array();
      for (const auto& r : *rules) {
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
      write_output(o->common, j.str());
      return 0;
    }
    if (o->common.inputs.empty()) throw UsageError("gemm: a TRACE is required");
    const auto format = parse_format_option(o->common);
    if (o->peak < 0) throw UsageError("--peak must be positive");
    double peak = o->peak;
    std::vector<analyses::ClpeakDevice> clpeak;
    if (!o->peak_from.empty()) {
      try {
        clpeak = analyses::parse_clpeak(read_file(o->peak_from));
      } catch (const std::invalid_argument& e) {
        throw readers::InputError(o->peak_from, 0, 0, std::string("not a clpeak report: ") + e.what());
      }
    }
    const bool group = o->group;
    auto session = run_session(
        o->common,
        [rules, group](analyses::LaunchPredicate keep) {
          return std::make_unique<analyses::GemmAnalysis>(rules, std::move(keep), group);
        },
        false);
    if (!clpeak.empty() && peak == 0) {
      std::string device;
      if (!session.run.devices.empty()) device = session.run.devices.front().name;
      peak = analyses::pick_peak(clpeak, device);
    }
    auto result = analyses::finish_gemm(std::move(static_cast<analyses::GemmAnalysis&>(*session.analysis)),
                                        session.run, peak);
    session.analysis.reset();
    std::vector<std::string> warnings;
    for (const auto& [problem, n] : result.problems)
      warnings.push_back("gemm: " + std::to_string(n) + " launch(es) not decoded: " + problem);
    print_warnings(warnings);
    const bool with_peak = peak > 0;
    std::string text;
    bool any_padded = false;
    // Per launch, the rows can be millions: they stay compact records (32 bytes each) and
    // are rendered and written out piece by piece, never held as strings.
    std::optional<OutputStream> stream;
    if (!group) {
      auto& recs = result.records;
      if (!o->common.sort.empty()) {
        const std::string f = o->common.sort;
        using Record = analyses::GemmAnalysis::Record;
        const auto& shapes = result.shapes;
        // Ties keep the (process, seq) order: std::sort with a total order, no extra memory.
        auto tie = [&shapes](const Record& x, const Record& y) {
          return std::tie(shapes[x.shape].process, x.seq) < std::tie(shapes[y.shape].process, y.seq);
        };
        auto by_desc = [&](auto key) {
          std::sort(recs.begin(), recs.end(), [&](const Record& x, const Record& y) {
            const double kx = key(x), ky = key(y);
            if (kx != ky) return kx > ky;
            return tie(x, y);
          });
        };
        auto dim = [&shapes](const std::optional<int64_t> analyses::GemmResult::Shape::*d) {
          return [&shapes, d](const Record& r) { return static_cast<double>((shapes[r.shape].*d).value_or(-1)); };
        };
        if (f == "name") {
          const auto& names = result.names;
          std::sort(recs.begin(), recs.end(), [&](const Record& x, const Record& y) {
            const auto nx = shapes[x.shape].name_id, ny = shapes[y.shape].name_id;
            if (nx != ny) return names[nx] < names[ny];
            return tie(x, y);
          });
        } else if (f == "time" || f == "time_ns") {
          by_desc([](const Record& r) { return static_cast<double>(r.duration_ns); });
        } else if (f == "gflops") {
          by_desc([&result](const Record& r) { return result.gflops(r).value_or(-1); });
        } else if (f == "m") {
          by_desc(dim(&analyses::GemmResult::Shape::m));
        } else if (f == "n") {
          by_desc(dim(&analyses::GemmResult::Shape::n));
        } else if (f == "k") {
          by_desc(dim(&analyses::GemmResult::Shape::k));
        } else if (f != "seq") {
          throw UsageError("--sort: unknown field '" + f + "' for gemm (seq, name, time, gflops, m, n, k)");
        }
      }
      if (o->common.top > 0 && recs.size() > o->common.top) recs.resize(o->common.top);
      {
        std::vector<bool> shown(result.shapes.size(), false);
        for (const auto& r : recs) shown[r.shape] = true;
        for (size_t i = 0; i < shown.size(); ++i) any_padded |= shown[i] && result.shapes[i].rule->padded;
      }
      stream.emplace(o->common);
      if (format == output::Format::Json) {
        output::JsonWriter j;
        j.begin_array();
        for (size_t i = 0; i < recs.size(); ++i) {
          const auto r = result.row(i);
          j.begin_object();
          j.field("seq", r.seq);
          j.field("process", r.process);
          j.field("name", r.name);
          j.field("layer", r.layer);
          j.field("m", r.m);
          j.field("n", r.n);
          j.field("k", r.k);
          j.field("batch", r.batch);
          j.field("time_ns", r.time_ns);
          j.field("gflops", r.gflops);
          if (with_peak) j.field("percent_of_peak", r.percent_of_peak);
          j.field("rule", r.rule);
          j.field("padded", r.padded);
          j.end_object();
          if (i % 1024 == 1023) stream->write(j.drain());
        }
        j.end_array();
        stream->write(j.drain() + "\n");
      } else {
        const bool machine = format == output::Format::Csv;
        const bool all = machine || o->common.wide;
        std::vector<Column> cols;
        if (all) cols.push_back({"Seq", "seq"});
        cols.push_back({"Kernel", "name", Align::Left, true});
        // The innermost part of a layer path tells most: keep its tail.
        cols.push_back({"Layer", "layer", Align::Left, true, output::Shorten::Head, 12});
        cols.push_back({"M", "m"});
        cols.push_back({"N", "n"});
        cols.push_back({"K", "k"});
        cols.push_back({"Batch", "batch"});
        cols.push_back({"Time", "time_ns"});
        cols.push_back({"GFLOPS", "gflops"});
        if (with_peak) cols.push_back({"% peak", "percent_of_peak"});
        if (all) cols.push_back({"Rule", "rule", Align::Left});
        // What launches share is formatted once per shape / layer; per launch only the
        // sequence number, time and GFLOPS (twice for a text table: widths, then lines).
        struct ShapeCells {
          Cell name, m, n, k, batch, rule;
        };
        std::vector<ShapeCells> shape_cells;
        for (const auto& sh : result.shapes) {
          const std::string& name = result.names[sh.name_id];
          shape_cells.push_back({output::text_cell(machine || !sh.rule->padded ? name : name + "*"),
                                 output::int_cell(sh.m), output::int_cell(sh.n), output::int_cell(sh.k),
                                 output::int_cell(sh.batch), output::text_cell(sh.rule->id)});
        }
        // Consecutive launches mostly share their range: its path is made once for them.
        uint64_t layer_range = UINT64_MAX;
        Cell layer_cell;
        // The full-precision raw value is only read by CSV.
        auto number = [machine](std::optional<double> v, int decimals) {
          if (machine) return output::fixed_cell(v, decimals);
          return v && std::isfinite(*v) ? Cell{output::format_fixed(*v, decimals), ""} : Cell{"-", ""};
        };
        auto source = [&](size_t i, std::vector<Cell>& c) {
          const auto& rec = recs[i];
          const auto& sc = shape_cells[rec.shape];
          if (all) c.push_back(output::int_cell(static_cast<int64_t>(rec.seq)));
          c.push_back(sc.name);
          if (rec.range != layer_range) {
            layer_cell = output::text_cell(result.layer(rec));
            layer_range = rec.range;
          }
          c.push_back(layer_cell);
          c.push_back(sc.m);
          c.push_back(sc.n);
          c.push_back(sc.k);
          c.push_back(sc.batch);
          c.push_back(output::ns_cell(result.time_ns(rec)));
          const auto gflops = result.gflops(rec);
          c.push_back(number(gflops, 2));
          if (with_peak) c.push_back(number(gflops ? std::optional<double>(100.0 * *gflops / peak) : std::nullopt, 1));
          if (all) c.push_back(sc.rule);
        };
        output::render_stream(cols, recs.size(), source, format, o->common.wide ? SIZE_MAX : 80,
                              [&stream](std::string_view s) { stream->write(s); });
      }
    } else {
      auto& rows = result.groups;
      if (!o->common.sort.empty()) {
        const std::string f = o->common.sort;
        if (f == "name")
          std::stable_sort(rows.begin(), rows.end(), [](auto& x, auto& y) { return x.name < y.name; });
        else if (f == "count")
          std::stable_sort(rows.begin(), rows.end(), [](auto& x, auto& y) { return x.count > y.count; });
        else if (f == "gflops" || f == "gflops_best")
          std::stable_sort(rows.begin(), rows.end(), [](auto& x, auto& y) {
            return x.gflops_best.value_or(-1) > y.gflops_best.value_or(-1);
          });
        else if (f == "gflops_median")
          std::stable_sort(rows.begin(), rows.end(), [](auto& x, auto& y) {
            return x.gflops_median.value_or(-1) > y.gflops_median.value_or(-1);
          });
        else if (f != "total" && f != "total_ns")
          throw UsageError("--sort: unknown field '" + f +
                           "' for gemm --group (total, count, name, gflops, gflops_median)");
      }
      if (o->common.top > 0 && rows.size() > o->common.top) rows.resize(o->common.top);
      if (format == output::Format::Json) {
        output::JsonWriter j;
        j.begin_array();
        for (const auto& r : rows) {
          j.begin_object();
          j.field("name", r.name);
          j.field("m", r.m);
          j.field("n", r.n);
          j.field("k", r.k);
          j.field("batch", r.batch);
          j.field("count", r.count);
          j.field("total_ns", r.total_ns);
          j.field("median_ns", r.median_ns);
          j.field("min_ns", r.min_ns);
          j.field("gflops_median", r.gflops_median);
          j.field("gflops_best", r.gflops_best);
          if (with_peak) j.field("percent_of_peak", r.percent_of_peak);
          j.field("rule", r.rule);
          j.field("padded", r.padded);
          j.end_object();
        }
        j.end_array();
        text = j.str();
      } else {
        const bool machine = format == output::Format::Csv;
        const bool all = machine || o->common.wide;
        std::vector<Column> cols = {{"Kernel", "name", Align::Left, true},
                                    {"M", "m"}, {"N", "n"}, {"K", "k"}, {"Batch", "batch"},
                                    {"Calls", "count"}};
        if (all) cols.push_back({"Total", "total_ns"});
        cols.push_back({"Median", "median_ns"});
        cols.push_back({"Min", "min_ns"});
        cols.push_back({"GF/s med", "gflops_median"});
        cols.push_back({"GF/s best", "gflops_best"});
        if (with_peak) cols.push_back({"% peak", "percent_of_peak"});
        if (all) cols.push_back({"Rule", "rule", Align::Left});
        output::Table t(cols);
        for (const auto& r : rows) {
          any_padded |= r.padded;
          std::vector<Cell> c = {output::text_cell(machine || !r.padded ? r.name : r.name + "*"),
                                 output::int_cell(r.m), output::int_cell(r.n), output::int_cell(r.k),
                                 output::int_cell(r.batch),
                                 output::int_cell(static_cast<int64_t>(r.count))};
          if (all) c.push_back(output::ns_cell(r.total_ns));
          c.push_back(output::ns_cell(r.median_ns));
          c.push_back(output::ns_cell(r.min_ns));
          c.push_back(output::fixed_cell(r.gflops_median, 2));
          c.push_back(output::fixed_cell(r.gflops_best, 2));
          if (with_peak) c.push_back(output::fixed_cell(r.percent_of_peak, 1));
          if (all) c.push_back(output::text_cell(r.rule));
          t.add_row(std::move(c));
        }
        text = output::render(t, format, o->common.wide ? SIZE_MAX : 80);
      }
    }
    if (format == output::Format::Table || format == output::Format::Markdown) {
      text += "\n" + std::to_string(result.launches) + " GEMM launches, " +
              output::format_general(result.gflop_total) + " GFLOP";
      if (with_peak) text += "; peak " + output::format_fixed(peak, 2) + " GFLOPS";
      text += ".\n";
      if (any_padded)
        text += "* padded sizes (CLBlast indirect GEMM): FLOPs include the padding.\n";
    }
    if (stream) {
      stream->write(text);
      stream->finish();
    } else {
      write_output(o->common, text);
    }
    return 0;
  };
}

}  // namespace clprof::cli
