// clprof launches: one row per kernel launch (the seed-001 "kernel enqueues" table).
#include <algorithm>
#include <deque>
#include <functional>
#include <map>

#include "analyses/grouping.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "clock_alignment.hpp"
#include "output/log.hpp"
#include "output/render.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/launches.hpp"

namespace clprof::cli {

namespace {

// Keeps a copy of each launch of the selection (the output has a row per launch; the
// streamed ones are gone once delivered). A deque: merging moves blocks, never reallocates.
// With --top K (and no --by), only the K launches that order first: a heap per reading
// thread (memory: K launches per thread, whatever the trace size; docs/performance.md).
class LaunchesAnalysis : public Analysis {
 public:
  // The value a launch sorts by, for the columns that are the launch's own (no run
  // metadata: the reading threads fill the run while they read).
  using SortKey = std::function<output::Value(const model::Launch&)>;
  LaunchesAnalysis(analyses::LaunchPredicate keep, size_t top, const output::Column* column,
                   SortKey key)
      : keep_(std::move(keep)), top_(top), column_(column), key_(std::move(key)) {}
  void add_launch(const model::Launch& l) override {
    if (keep_ && !keep_(l)) return;
    if (top_ == 0) {
      kept.push_back(l);
      return;
    }
    Entry e{key_ ? key_(l) : output::Value::null(), analyses::launch_order(l), {}};
    if (heap_.size() == top_ && !before(e, heap_.front())) return;
    e.launch = l;
    push(std::move(e));
  }
  void merge(Analysis&& other) override {
    auto& o = dynamic_cast<LaunchesAnalysis&>(other);
    for (auto& l : o.kept) kept.push_back(std::move(l));
    o.kept.clear();
    for (auto& e : o.heap_)
      if (heap_.size() < top_ || before(e, heap_.front())) push(std::move(e));
    o.heap_.clear();
  }
  // Moves the heap's launches into `kept` (call once, after the reading).
  void finish() {
    for (auto& e : heap_) kept.push_back(std::move(e.launch));
    heap_.clear();
  }
  std::deque<model::Launch> kept;

 private:
  struct Entry {
    output::Value key;
    uint64_t order;
    model::Launch launch;
  };
  // True when `a` orders before `b`: by the sort column (nulls last), then in launch order.
  bool before(const Entry& a, const Entry& b) const {
    if (column_) {
      const int c = output::compare_values(*column_, a.key, b.key);
      if (c != 0) return c < 0;
    }
    return a.order < b.order;
  }
  // The heap's front is the entry that orders last: the first to go.
  void push(Entry e) {
    auto order = [this](const Entry& a, const Entry& b) { return before(a, b); };
    if (heap_.size() == top_) {
      std::pop_heap(heap_.begin(), heap_.end(), order);
      heap_.back() = std::move(e);
    } else {
      heap_.push_back(std::move(e));
    }
    std::push_heap(heap_.begin(), heap_.end(), order);
  }

  analyses::LaunchPredicate keep_;
  size_t top_;
  const output::Column* column_;
  SortKey key_;
  std::vector<Entry> heap_;
};

output::Value phase_value(int64_t a, int64_t b) {
  if (a == model::kNoTime || b == model::kNoTime) return output::Value::null();
  return output::Value::integer(analyses::sub_ns(b, a));
}

// The sort key of the launches columns a launch alone decides (as launches_result writes
// them), or an empty function for the others (which need the whole run: no heap then).
LaunchesAnalysis::SortKey launch_sort_key(const std::string& column) {
  using output::Value;
  if (column == "seq") return [](const model::Launch& l) { return Value::uint(l.seq); };
  if (column == "name") return [](const model::Launch& l) { return Value::text(l.name); };
  if (column == "duration_ns")
    return [](const model::Launch& l) { return Value::integer(l.duration_ns()); };
  if (column == "queued_to_submit_ns")
    return [](const model::Launch& l) { return phase_value(l.queued_ns, l.submit_ns); };
  if (column == "submit_to_start_ns")
    return [](const model::Launch& l) { return phase_value(l.submit_ns, l.start_ns); };
  if (column == "host_enqueue_ns")
    return [](const model::Launch& l) { return phase_value(l.host_begin_ns, l.host_end_ns); };
  if (column == "status") return [](const model::Launch& l) { return Value::text(l.status); };
  return {};
}

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
    // --top K: a heap of K launches when the order is launch order or a launch's own column
    // (--by orders by group first: all are kept then, as for the columns of the run).
    const auto& schema = output::tables::launches_schema();
    const output::Column* column =
        t.sort == output::Schema::npos ? nullptr : &schema.columns.at(t.sort);
    LaunchesAnalysis::SortKey key = column ? launch_sort_key(column->key) : nullptr;
    const bool heap =
        t.request.top > 0 && by == GroupBy::None && t.sort_extra.empty() && (!column || key);
    const size_t top = heap ? t.request.top : 0;
    auto session = run_session(
        t.request,
        [top, column, key](analyses::LaunchPredicate keep) {
          return std::make_unique<LaunchesAnalysis>(std::move(keep), top, column, key);
        },
        kFoldedRanges);
    auto& launches = static_cast<LaunchesAnalysis&>(*session.analysis);
    launches.finish();
    std::vector<const model::Launch*> rows;
    for (const auto& l : launches.kept) rows.push_back(&l);
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
