// local-size-sweep: a stored `clprof replay --sweep local` (model::LocalSweep) that found a
// verified local size faster than the app's. docs/advice.md.
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"

namespace clprof::analyses::advice::rules {

// For each sweep: the app's candidate against the fastest other candidate whose outputs
// verified (true, not null: a size that changes the result is no advice). Fires from
// min_speedup (app median / best median), a warning from warning_speedup. Impact: the
// trace's launches like the captured one (same process, kernel, global and local size)
// times (app median - best median), both medians the replay's; null when the trace has
// no such launch (a selection that left it out).
void local_size_sweep(const model::Run& run, const Commands& c,
                      const std::vector<model::LocalSweep>& sweeps, const Thresholds& t,
                      Report& out) {
  if (sweeps.empty()) {
    out.not_evaluated.push_back(
        {"local-size-sweep",
         "no stored sweep: run clprof replay TRACE --launch SEQ --sweep local on a launch "
         "captured with CLPROF_CAPTURE (docs/replay.md)"});
    return;
  }
  const double min_speedup = t.get("local-size-sweep", "min_speedup");
  const double warning_speedup = t.get("local-size-sweep", "warning_speedup");
  for (const model::LocalSweep& s : sweeps) {
    const model::SweepCandidate* app = nullptr;
    const model::SweepCandidate* best = nullptr;
    for (const model::SweepCandidate& c : s.candidates) {
      if (c.app && !app) app = &c;
      if (!c.app && c.verified == true && (!best || c.median_ns < best->median_ns)) best = &c;
    }
    if (!app || !best || best->median_ns <= 0 || best->median_ns >= app->median_ns) continue;
    const double speedup = static_cast<double>(app->median_ns) / best->median_ns;
    if (speedup < min_speedup) continue;
    // The last launch with the capture's id, and the launches like it (tallied by
    // Commands::add_launch per process, kernel, global and local size).
    const auto captured = c.tallies.captured.find({s.process, s.capture});
    const bool known = captured != c.tallies.captured.end();
    uint64_t like = 0;
    if (known) {
      const auto n = c.tallies.like.find(captured->second);
      if (n != c.tallies.like.end()) like = n->second;
    }
    Finding f;
    f.rule = "local-size-sweep";
    f.severity = speedup >= warning_speedup ? Severity::Warning : Severity::Info;
    const std::string factor = output::format_fixed(speedup, 2) + "x";
    f.title = s.kernel + ": local size " + output::format_sizes(best->lws) + " is " + factor +
              " faster than the app's " + output::format_sizes(app->lws);
    f.evidence =
        "clprof replay --sweep local (" + s.file + ") on " + s.device + ", median of " +
        std::to_string(s.repeat) + " runs: the app's " + output::format_sizes(app->lws) + " " +
        util::ns(app->median_ns) + ", " + output::format_sizes(best->lws) + " " +
        util::ns(best->median_ns) + " (outputs verified bit for bit); " +
        util::count_of(like, "launch", "launches") + " like the captured one (global " +
        (known ? c.tallies.captured_gws.at({s.process, s.capture}) : std::string("unknown")) +
        ", the app's local size) in the trace";
    f.advice = "Launch " + s.kernel + " with local size " + output::format_sizes(best->lws) +
               " (pass it as local_work_size). The best size belongs to the device and driver "
               "the sweep ran on: sweep again on each target device.";
    if (like > 0) {
      int64_t per = app->median_ns - best->median_ns, total = 0;
      if (__builtin_mul_overflow(per, static_cast<int64_t>(like), &total)) total = INT64_MAX;
      f.impact_ns = total;
    }
    f.subjects = {s.kernel};
    out.findings.push_back(std::move(f));
  }
}

}  // namespace clprof::analyses::advice::rules
