// clprof launches: one row per kernel launch (the seed-001 "kernel enqueues" table).
#include <algorithm>
#include <deque>

#include "analyses/clock_alignment.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/tables/launches.hpp"

namespace clprof::cli {

namespace {

// Keeps a copy of each launch of the selection (the output has a row per launch; the
// streamed ones are gone once delivered). A deque: merging moves blocks, never reallocates.
class LaunchesAnalysis : public Analysis {
 public:
  explicit LaunchesAnalysis(analyses::LaunchPredicate keep) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override {
    if (!keep_ || keep_(l)) kept.push_back(l);
  }
  void merge(Analysis&& other) override {
    auto& o = dynamic_cast<LaunchesAnalysis&>(other);
    for (auto& l : o.kept) kept.push_back(std::move(l));
    o.kept.clear();
  }
  std::deque<model::Launch> kept;

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
        SessionNeeds{false, false});
    std::vector<const model::Launch*> rows;
    for (const auto& l : static_cast<LaunchesAnalysis&>(*session.analysis).kept) rows.push_back(&l);
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
