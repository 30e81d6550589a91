// clprof launches: one row per kernel launch (the seed-001 "kernel enqueues" table).
#include <algorithm>

#include "analyses/clock_alignment.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/tables/launches.hpp"

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

}  // namespace

Runner setup_launches(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  add_common_options(app, *o);
  app.footer(help_footer("launches",
                         "Device timestamps are printed as the device reported them; host_start_ns and "
                         "host_end_ns are the same instants on the host clock (the device's clock_sync). Q>Sub "
                         "and Sub>Start are device phases; Enqueue is host time inside the enqueue call."));
  return [o]() -> int {
    const Request r = make_request(*o);
    check_output_path(r);
    std::string extra;
    const size_t sort = sort_column(output::tables::launches_schema(), {}, r, extra);
    auto session = run_session(
        r, [](analyses::LaunchPredicate keep) { return std::make_unique<LaunchesAnalysis>(std::move(keep)); },
        SessionNeeds{true, false});
    auto& rows = static_cast<LaunchesAnalysis&>(*session.analysis).launches;
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) {
      return analyses::launch_order(*a) < analyses::launch_order(*b);
    });
    analyses::DeviceUse use;
    for (const model::Launch* l : rows) use.note(l->device, l->has_device_times());
    log::warnings(analyses::unsynced_device_warnings(session.run, use.used()));
    auto result = output::tables::launches_result(rows, session.run);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
