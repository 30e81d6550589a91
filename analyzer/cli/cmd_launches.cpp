// clprof launches: one row per kernel launch (the seed-001 "kernel enqueues" table).
#include <algorithm>

#include "analyses/kernels.hpp"
#include "cli/commands.hpp"

namespace clprof::cli {

namespace {

// Collects the kept launches (in memory anyway: the output has one row per launch).
class LaunchesAnalysis : public Analysis {
 public:
  explicit LaunchesAnalysis(analyses::LaunchPredicate keep) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override {
    if (!keep_ || keep_(l)) launches.push_back(&l);
  }
  void merge(Analysis&& other) override {
    auto& o = dynamic_cast<LaunchesAnalysis&>(other);
    launches.insert(launches.end(), o.launches.begin(), o.launches.end());
  }
  std::vector<const model::Launch*> launches;  // point into Session::run.launches

 private:
  analyses::LaunchPredicate keep_;
};

std::string dims(const std::vector<uint64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

std::optional<int64_t> t(int64_t v) {
  if (v == model::kNoTime) return std::nullopt;
  return v;
}

std::optional<int64_t> diff(int64_t a, int64_t b) {
  if (a == model::kNoTime || b == model::kNoTime) return std::nullopt;
  return b - a;
}

void arg_json(output::JsonWriter& j, const model::KernelArg& a) {
  using K = model::KernelArg::Kind;
  j.begin_array();
  switch (a.kind) {
    case K::Unset: j.value("unset"); break;
    case K::Scalar:
      j.value("scalar");
      j.value(static_cast<uint64_t>(a.size));
      j.value(a.hex);
      if (a.has_value) j.value(a.value);
      break;
    case K::Buffer:
    case K::Image:
    case K::Pipe:
      j.value(a.kind == K::Buffer ? "buffer" : a.kind == K::Image ? "image" : "pipe");
      j.value(static_cast<uint64_t>(a.size));
      j.value(a.object_id);
      j.value(a.object_bytes);
      break;
    case K::Local:
      j.value("local");
      j.value(static_cast<uint64_t>(a.size));
      break;
    case K::Svm:
      j.value("svm");
      j.value(uint64_t{0});
      j.value(a.svm_pointer);
      break;
    case K::Sampler:
      j.value("sampler");
      j.value(static_cast<uint64_t>(a.size));
      j.value(a.object_id);
      break;
  }
  j.end_array();
}

std::string args_text(const model::KernelArg& a) {
  using K = model::KernelArg::Kind;
  switch (a.kind) {
    case K::Scalar: return a.has_value ? std::to_string(a.value) : "0x" + a.hex;
    case K::Buffer: return "buf#" + std::to_string(a.object_id);
    case K::Image: return "img#" + std::to_string(a.object_id);
    case K::Pipe: return "pipe#" + std::to_string(a.object_id);
    case K::Local: return "local:" + std::to_string(a.size);
    case K::Svm: return "svm:" + a.svm_pointer;
    case K::Sampler: return "smp#" + std::to_string(a.object_id);
    case K::Unset: return "unset";
  }
  return "?";
}

}  // namespace

Runner setup_launches(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  add_common_options(app, *o);
  app.footer("Device timestamps are printed as the device reported them. Queued>Submit, "
             "Submit>Start are device phases; Enqueue is host time inside the enqueue call. "
             "--sort: seq (default), duration, name.");
  return [o]() -> int {
    const auto format = parse_format_option(*o);
    auto session = run_session(
        *o,
        [](analyses::LaunchPredicate keep) { return std::make_unique<LaunchesAnalysis>(std::move(keep)); },
        true);
    auto& rows = static_cast<LaunchesAnalysis&>(*session.analysis).launches;
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
      return analyses::launch_order(*a) < analyses::launch_order(*b);
    });
    if (!o->sort.empty()) {
      if (o->sort == "duration" || o->sort == "duration_ns")
        std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
          return a->duration_ns().value_or(-1) > b->duration_ns().value_or(-1);
        });
      else if (o->sort == "name")
        std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->name < b->name; });
      else if (o->sort != "seq")
        throw UsageError("--sort: unknown field '" + o->sort + "' for launches (seq, duration, name)");
    }
    if (o->top > 0 && rows.size() > o->top) rows.resize(o->top);
    const analyses::RangeIndex index(session.run);
    auto pid_of = [&](const model::Launch& l) -> int64_t {
      return l.process < session.run.processes.size() ? session.run.processes[l.process].pid : 0;
    };
    std::string text;
    if (format == output::Format::Json) {
      output::JsonWriter j;
      j.begin_array();
      for (const auto* l : rows) {
        j.begin_object();
        j.field("seq", l->seq);
        j.field("pid", pid_of(*l));
        j.field("name", l->name);
        j.field("layer", index.path(analyses::innermost_range(*l)));
        j.key("gwo");
        if (l->gwo.empty()) {
          j.null();
        } else {
          j.begin_array();
          for (auto v : l->gwo) j.value(v);
          j.end_array();
        }
        j.key("gws");
        j.begin_array();
        for (auto v : l->gws) j.value(v);
        j.end_array();
        j.key("lws");
        if (!l->lws) {
          j.null();
        } else {
          j.begin_array();
          for (auto v : *l->lws) j.value(v);
          j.end_array();
        }
        j.key("args");
        j.begin_array();
        for (const auto& a : l->args) arg_json(j, a);
        j.end_array();
        j.field("queued_ns", t(l->queued_ns));
        j.field("submit_ns", t(l->submit_ns));
        j.field("start_ns", t(l->start_ns));
        j.field("end_ns", t(l->end_ns));
        j.field("duration_ns", l->duration_ns());
        j.field("host_enqueue_ns", diff(l->host_begin_ns, l->host_end_ns));
        j.field("status", l->status);
        j.end_object();
      }
      j.end_array();
      text = j.str();
    } else {
      using output::Align;
      const bool machine = format == output::Format::Csv;
      const bool all = machine || o->wide;
      std::vector<output::Column> cols = {{"Seq", "seq"}, {"Kernel", "name", Align::Left, true}};
      if (all) cols.push_back({"Pid", "pid"});
      if (all) cols.push_back({"Layer", "layer", Align::Left, true});
      cols.push_back({"GWS", "gws", Align::Left});
      cols.push_back({"LWS", "lws", Align::Left});
      if (all) cols.push_back({"GWO", "gwo", Align::Left});
      if (all) cols.push_back({"Args", "args", Align::Left, true});
      if (all) {
        cols.push_back({"Queued", "queued_ns"});
        cols.push_back({"Submit", "submit_ns"});
        cols.push_back({"Start", "start_ns"});
        cols.push_back({"End", "end_ns"});
      }
      cols.push_back({"Duration", "duration_ns"});
      cols.push_back({"Q>Sub", "queued_to_submit_ns"});
      cols.push_back({"Sub>Start", "submit_to_start_ns"});
      cols.push_back({"Enqueue", "host_enqueue_ns"});
      output::Table tb(cols);
      for (const auto* l : rows) {
        std::vector<output::Cell> c = {output::int_cell(static_cast<int64_t>(l->seq)),
                                       output::text_cell(l->name)};
        if (all) c.push_back(output::int_cell(pid_of(*l)));
        if (all) c.push_back(output::text_cell(index.path(analyses::innermost_range(*l))));
        c.push_back(output::text_cell(dims(l->gws)));
        c.push_back(l->lws ? output::text_cell(dims(*l->lws)) : output::Cell{"-", ""});
        if (all) c.push_back(l->gwo.empty() ? output::Cell{"-", ""} : output::text_cell(dims(l->gwo)));
        if (all) {
          std::string a;
          for (size_t i = 0; i < l->args.size(); ++i) a += (i ? " " : "") + args_text(l->args[i]);
          c.push_back(output::text_cell(a));
          // Raw device timestamps: integers in every format (adaptive units make no sense
          // for absolute clock values).
          for (int64_t v : {l->queued_ns, l->submit_ns, l->start_ns, l->end_ns})
            c.push_back(output::int_cell(t(v)));
        }
        c.push_back(output::ns_cell(l->duration_ns()));
        c.push_back(output::ns_cell(diff(l->queued_ns, l->submit_ns)));
        c.push_back(output::ns_cell(diff(l->submit_ns, l->start_ns)));
        c.push_back(output::ns_cell(diff(l->host_begin_ns, l->host_end_ns)));
        tb.add_row(std::move(c));
      }
      text = output::render(tb, format, o->wide ? SIZE_MAX : 80);
    }
    write_output(*o, text);
    return 0;
  };
}

}  // namespace clprof::cli
