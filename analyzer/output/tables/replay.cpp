#include "output/tables/replay.hpp"

namespace clprof::output::tables {

namespace {

const Schema& candidate_schema() {
  static const Schema s = [] {
    Schema d;
    d.name = "replay_candidates";
    d.title = "one row per local size (--sweep local) or build options (--options) tried";
    d.default_order = "median time, fastest first";
    d.label = 0;
    d.columns = {
        column("lws", "Local size", Type::Dims, "", "the local work size (null: NULL)")
            .allow_null()
            .left(),
        column("options", "Options", Type::Text, "", "the build options")
            .shrink(Shorten::Middle, 12),
        column("median_ns", "Median", Type::Duration, "ns", "median device time of the runs"),
        column("min_ns", "Min", Type::Duration, "ns", "fastest run"),
        column("verified", "Verified", Type::Bool, "",
               "every run's outputs equal the captured post-launch contents (null: none captured)")
            .allow_null(),
        column("app", "App's", Type::Bool, "", "the app's own local size and build options"),
    };
    return d;
  }();
  return s;
}

Value dims(const std::optional<std::vector<uint64_t>>& v) {
  if (!v) return Value::null();
  std::vector<Value> out;
  for (uint64_t x : *v) out.push_back(Value::uint(x));
  return Value::list(std::move(out));
}

Value verdict(const std::optional<bool>& v) {
  return v ? Value::boolean(*v) : Value::null();
}

}  // namespace

const Schema& replay_schema() {
  static const Schema s = [] {
    Schema r;
    r.name = "replay";
    r.title = "one captured launch run again (one object), its candidates nested";
    r.layout = Layout::Record;
    r.single = true;
    r.label = Schema::npos;
    r.columns = {
        column("kernel", "Kernel", Type::Text, "", "the kernel function name"),
        column("seq", "Launch", Type::Int, "", "the launch's seq in the trace").allow_null(),
        column("capture", "Capture", Type::Int, "", "the capture's id (TRACE.capture/ID)"),
        column("device", "Device", Type::Text, "", "the device replayed on: name (platform, type)"),
        column("gws", "Global size", Type::Dims, "", "the global work size, as recorded"),
        column("lws", "Local size", Type::Dims, "", "the app's local work size (null: NULL)")
            .allow_null(),
        column("options", "Options", Type::Text, "", "the build options, as captured"),
        column("repeat", "Runs", Type::Int, "", "runs of each configuration (--repeat)"),
        column("recorded_ns", "Recorded", Type::Duration, "ns",
               "the launch's device time in the recorded run (null: unknown)")
            .allow_null(),
        column("replay_ns", "Replay median", Type::Duration, "ns",
               "median device time of the replay's runs, as the app launched it"),
        column("replay_min_ns", "Replay min", Type::Duration, "ns", "fastest replay run"),
        column("replay_max_ns", "Replay max", Type::Duration, "ns", "slowest replay run"),
        column("verified", "Verified", Type::Bool, "",
               "every replay run's outputs equal the captured post-launch contents bit for bit "
               "(null: no contents captured)")
            .allow_null(),
        nested("candidates", "Candidates", candidate_schema(),
               "with --sweep local or --options: each configuration tried, fastest first")
            .only_with("--sweep/--options"),
    };
    return r;
  }();
  return s;
}

Result replay_result(const replay::Capture& c, const replay::Outcome& o,
                     std::optional<uint64_t> seq, unsigned repeat, bool with_candidates) {
  Result out(replay_schema());
  std::vector<Value> gws;
  for (uint64_t x : c.gws) gws.push_back(Value::uint(x));
  std::vector<Row> cands;
  for (const replay::Candidate& k : o.candidates)
    cands.push_back({dims(k.lws), Value::text(k.options), Value::integer(k.median_ns),
                     Value::integer(k.min_ns), verdict(k.verified), Value::boolean(k.app)});
  Row row = {Value::text(c.kernel),
             seq ? Value::uint(*seq) : Value::null(),
             Value::uint(c.id),
             Value::text(o.device),
             Value::list(std::move(gws)),
             dims(c.lws),
             Value::text(c.options),
             Value::uint(repeat),
             c.recorded_ns ? Value::integer(*c.recorded_ns) : Value::null(),
             Value::integer(o.app.median_ns),
             Value::integer(o.app.min_ns),
             Value::integer(o.app.max_ns),
             verdict(o.app.verified),
             Value::rows(std::move(cands))};
  out.rows.push_back(std::move(row));
  if (with_candidates) out.options.push_back("--sweep/--options");
  for (const std::string& n : o.notes) out.notes.push_back(n);
  if (o.app.verified && !*o.app.verified)
    out.notes.push_back("The replay's outputs differ from the captured ones (exit status 4).");
  return out;
}

}  // namespace clprof::output::tables
