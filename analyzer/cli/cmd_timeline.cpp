// clprof timeline: the run as Chrome Trace Event JSON for the Perfetto UI and chrome://tracing
// (output/views/timeline.hpp), written while the traces are read.
#include "cli/commands.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/views/timeline.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

#ifndef CLPROF_VERSION
#define CLPROF_VERSION "unknown"
#endif

namespace clprof::cli {

Runner setup_timeline(CLI::App& app) {
  struct Options {
    CommonOptions common;
    bool per_kernel = false;
    bool stages = false;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common, Takes{false, false, false});
  app.get_option("--output")->description("Write the JSON to FILE instead of stdout");
  app.add_flag("--per-kernel", o->per_kernel,
               "One device track per kernel name (and per transfer kind), not per queue");
  app.add_flag("--stages", o->stages,
               "Also each command's queued and submitted phases, on tracks of their own");
  app.footer(
      "Writes Chrome Trace Event JSON (open it in https://ui.perfetto.dev or chrome://tracing): a "
      "track per host\n"
      "thread with its OpenCL calls and ranges, a track per device queue with its kernels and "
      "transfers on the\n"
      "host clock (the trace's clock_sync), an arrow from each enqueue to its execution. See "
      "docs/cli.md.");
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    output::views::OutFile out(r.output);
    std::unique_ptr<output::views::TimelineWriter> writer;
    output::views::TimelineOptions options;
    options.per_kernel = o->per_kernel;
    options.stages = o->stages;
    options.generator = std::string("clprof ") + CLPROF_VERSION;
    auto session = run_ordered_session(
        r,
        [&](const model::Run& run) {
          writer = std::make_unique<output::views::TimelineWriter>(run, gemm::builtin_rules(),
                                                                   options, out);
          writer->begin();
        },
        [&](analyses::LaunchPredicate keep) {
          return std::make_unique<ForwardTo<output::views::TimelineWriter>>(*writer,
                                                                            std::move(keep));
        });
    writer->end();
    out.finish();
    const auto& c = writer->counts();
    std::set<uint32_t> used = c.unaligned_devices;
    used.insert(c.aligned_devices.begin(), c.aligned_devices.end());
    log::warnings(model::unsynced_device_warnings(session.run, used));
    if (c.untimed > 0)
      log::info(
          "timeline: " + std::to_string(c.untimed) +
          " launch(es) and transfer(s) have no timestamps at all and are not on the timeline");
    if (c.ranges_without_end > 0)
      log::info("timeline: " + std::to_string(c.ranges_without_end) +
                " range(s) never ended and are not shown");
    log::debug("timeline: " + std::to_string(c.launches) + " launches, " +
               std::to_string(c.transfers) + " transfers, " + std::to_string(c.device_slices) +
               " on device tracks, " + std::to_string(c.flows) + " flows");
    return 0;
  };
}

}  // namespace clprof::cli
