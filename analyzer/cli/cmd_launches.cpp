// clprof launches: one row per kernel launch (the seed-001 "kernel enqueues" table).
#include <algorithm>
#include <deque>
#include <map>

#include "analyses/grouping.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "clock_alignment.hpp"
#include "output/log.hpp"
#include "output/tables/grouping.hpp"
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
  using analyses::GroupBy;
  static const auto& groupings = analyses::launch_groupings();
  auto o = table_options(
      app, groupings, "launches",
      "Device timestamps are printed as the device reported them; host_start_ns and "
      "host_end_ns are the same instants on the host clock (the device's clock_sync). Q>Sub "
      "and Sub>Start are device phases; Enqueue is host time inside the enqueue call.");
  return [o]() -> int {
    const TableRun t = start_table_run(*o, groupings, output::tables::launches_schema());
    const GroupBy by = t.by;
    auto session = run_session(
        t.request,
        [](analyses::LaunchPredicate keep) {
          return std::make_unique<LaunchesAnalysis>(std::move(keep));
        },
        SessionNeeds{false, false});
    std::vector<const model::Launch*> rows;
    for (const auto& l : static_cast<LaunchesAnalysis&>(*session.analysis).kept) rows.push_back(&l);
    // Per group (in the order of their ids), each in launch order.
    std::stable_sort(rows.begin(), rows.end(), [by](auto* a, auto* b) {
      if (by != GroupBy::None) {
        const auto ka = analyses::group_key(by, *a), kb = analyses::group_key(by, *b);
        if (!(ka == kb)) return ka < kb;
      }
      return analyses::launch_order(*a) < analyses::launch_order(*b);
    });
    model::DeviceUse use;
    for (const model::Launch* l : rows) use.note(l->device, l->has_device_times());
    log::warnings(model::unsynced_device_warnings(session.run, use.used()));
    std::map<analyses::GroupKey, uint32_t> devices;  // a queue's device, for its label
    if (by == GroupBy::Queue)
      for (const auto* l : rows) devices.try_emplace(analyses::group_key(by, *l), l->device);
    auto labels = by == GroupBy::None
                      ? nullptr
                      : std::make_shared<analyses::GroupLabels>(session.run, by, &devices);
    auto result = output::tables::launches_result(rows, session.run, by, labels);
    return finish_table_run(result, t);
  };
}

}  // namespace clprof::cli
