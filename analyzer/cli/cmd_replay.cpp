// clprof replay TRACE (--launch SEQ | --kernel NAME): a launch captured with CLPROF_CAPTURE
// run again on its own, timed and verified (docs/replay.md).
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "output/log.hpp"
#include "output/tables/replay.hpp"
#include "readers/load.hpp"
#include "replay/replay.hpp"

namespace clprof::cli {

namespace {

namespace fs = std::filesystem;

struct Options {
  std::string trace;
  std::optional<uint64_t> seq;
  std::string kernel;
  unsigned repeat = 10;
  std::optional<unsigned> device;
  std::optional<std::string> build_options;
  std::string sweep;
  std::string format = "table";
  std::string output;
};

std::string captured_list(const model::Run& run) {
  std::string list;
  for (const model::Launch& l : run.launches)
    if (l.capture) list += (list.empty() ? "" : ", ") + std::to_string(l.seq) + " (" + l.name + ")";
  return list.empty() ? "none: record with CLPROF_CAPTURE=REGEX" : list;
}

int run_replay_command(const Options& o) {
  if (o.seq.has_value() == !o.kernel.empty())
    throw UsageError("give one of --launch SEQ and --kernel NAME");
  if (o.repeat == 0) throw UsageError("--repeat: at least 1");
  if (!o.sweep.empty() && o.sweep != "local")
    throw UsageError("--sweep: unknown sweep '" + o.sweep + "' (local)");
  Request r;
  r.inputs = {o.trace};
  r.output = o.output;
  auto f = output::parse_format(o.format);
  if (!f)
    throw UsageError("--format: unknown format '" + o.format + "' (table, csv, json, markdown)");
  r.format = *f;
  check_output_path(r);

  model::Run run;
  readers::Diagnostics diagnostics;
  readers::load_run({o.trace}, "", run, diagnostics);
  if (run.processes.empty()) throw UsageError(o.trace + ": no process in the trace");
  const model::Process& proc = run.processes.front();
  const model::Launch* launch = nullptr;
  const model::Capture* capture = nullptr;
  if (o.seq) {
    for (const model::Launch& l : run.launches)
      if (l.seq == *o.seq) launch = &l;
    if (!launch) throw UsageError(o.trace + ": no launch with seq " + std::to_string(*o.seq));
    if (!launch->capture)
      throw UsageError(o.trace + ": launch " + std::to_string(*o.seq) + " (" + launch->name +
                       ") was not captured; captured launches: " + captured_list(run));
    for (const model::Capture& c : proc.captures)
      if (c.id == launch->capture) capture = &c;
  } else {
    for (const model::Capture& c : proc.captures)
      if (!capture && c.kernel == o.kernel && c.status == "captured") capture = &c;
    if (!capture) {
      for (const model::Capture& c : proc.captures)
        if (!capture && c.kernel == o.kernel) capture = &c;
    }
    if (!capture)
      throw UsageError(o.trace + ": no launch of kernel " + o.kernel +
                       " was captured; captured launches: " + captured_list(run));
    for (const model::Launch& l : run.launches)
      if (l.capture == capture->id) launch = &l;
  }
  const std::string which =
      launch ? "launch " + std::to_string(launch->seq) + " (" + launch->name + ")"
             : "capture " + std::to_string(capture ? capture->id : 0);
  if (!capture)
    throw UsageError(o.trace + ": " + which + " names capture " + std::to_string(launch->capture) +
                     ", which has no capture record");
  if (capture->status != "captured")
    throw UsageError(o.trace + ": " + which + " was not captured (" + capture->status +
                     "): " + capture->reason);
  const fs::path dir = fs::path(o.trace).parent_path() / capture->dir;
  if (!fs::is_directory(dir))
    throw UsageError(dir.string() + ": the capture folder of " + which +
                     " is missing (it lies beside the trace: TRACE.capture/ID)");

  replay::Options ro;
  ro.repeat = o.repeat;
  ro.device = o.device;
  ro.build_options = o.build_options;
  ro.sweep_local = o.sweep == "local";
  try {
    const replay::Capture c = replay::load_capture(dir.string());
    const replay::Outcome out = replay::run_replay(c, ro);
    const bool with_candidates = ro.sweep_local || ro.build_options.has_value();
    // A sweep at the captured options is what `clprof advise` reads (local-size-sweep).
    if (ro.sweep_local && !ro.build_options) replay::store_sweep(c, out, o.repeat);
    emit(output::tables::replay_result(c, out,
                                       launch ? std::optional<uint64_t>(launch->seq) : std::nullopt,
                                       o.repeat, with_candidates),
         r);
    return out.app.verified.has_value() && !*out.app.verified ? 4 : 0;
  } catch (const replay::ReplayError& e) {
    log::error(e.what());
    return e.exit_status();
  }
}

}  // namespace

Runner setup_replay(CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("trace", o->trace, "The trace recorded with CLPROF_CAPTURE")->required();
  app.add_option("--launch", o->seq, "The launch to replay, by its seq (clprof launches)")
      ->type_name("SEQ");
  app.add_option("--kernel", o->kernel, "The first captured launch of kernel NAME")
      ->type_name("NAME");
  app.add_option("--repeat", o->repeat, "Runs of each configuration (default 10)")->type_name("N");
  app.add_option("--device", o->device,
                 "The device, by its index among all platforms' devices (default: the recorded "
                 "device's name, else its type, else the first)")
      ->type_name("N");
  app.add_option("--options", o->build_options, "Build options to compare with the captured ones")
      ->type_name("\"...\"");
  app.add_option("--sweep", o->sweep, "local: time every local size the device accepts")
      ->type_name("local");
  app.add_option("--format", o->format, "Output format: table, csv, json or markdown");
  app.add_option("-o,--output", o->output, "Write the output to FILE instead of stdout")
      ->type_name("FILE");
  app.footer(
      "Exit status: 0 verified (or nothing to verify), 4 the replay's outputs differ from the "
      "captured ones, 2 bad input (no such launch, not captured, a missing or damaged capture "
      "folder), 5 the device cannot build or run it. docs/replay.md.");
  return [o]() -> int { return run_replay_command(*o); };
}

}  // namespace clprof::cli
