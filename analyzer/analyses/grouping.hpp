// --by: the commands of a run split into groups — per queue, host thread, process, device or
// (transfers) layer — each group fed to an analysis of its own, so that every analysis that
// works on a whole run works on one group unchanged.
//
// Keys: a queue is (process, queue id), a program (process, program id) and a thread
// (process, tid), since ids are per
// process; a device is its Device::id (run-wide); a layer is the innermost range id. Id 0
// is "unknown" (an importer that records no queue, a command outside every range).
// Threads: an analysis per reading thread, as every Analysis; labels read the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/kernels.hpp"
#include "analyses/layers.hpp"
#include "analyses/ranges.hpp"
#include "analyses/transfers.hpp"
#include "analysis.hpp"
#include "model.hpp"

namespace clprof::analyses {

enum class GroupBy : uint8_t { None, Queue, Thread, Process, Device, Layer, Program };

// "queue", "thread", "process", "device", "layer", "program" (the --by values). A program is
// (process, program id): kernels of one name in programs built from other sources or with
// other options (OpenCV's morph with -D OP_ERODE and -D OP_DILATE) are apart.
// The --by groupings each command offers (its group columns and option derive from these):
// kernels, launches and layers; transfers (those and layer); api (thread and process).
const std::vector<GroupBy>& launch_groupings();
const std::vector<GroupBy>& transfer_groupings();
const std::vector<GroupBy>& api_groupings();

std::string_view group_by_name(GroupBy by);
// The value of --by among `allowed`; throws std::invalid_argument listing them.
GroupBy parse_group_by(std::string_view text, const std::vector<GroupBy>& allowed);

struct GroupKey {
  uint32_t process = 0;
  uint64_t id = 0;
  bool operator<(const GroupKey& o) const {
    return process != o.process ? process < o.process : id < o.id;
  }
  bool operator==(const GroupKey& o) const { return process == o.process && id == o.id; }
};

GroupKey group_key(GroupBy by, const model::Launch& launch);
GroupKey group_key(GroupBy by, const model::Transfer& transfer);
// For calls that carry only a process and a thread (syncs, builds, API calls).
GroupKey group_key(GroupBy by, uint32_t process, uint64_t tid);

// Names groups for the output: "queue 2 (pthread-cpu)", "tid 1234", "pid 99 (net)",
// "pthread-cpu", "net/conv1"; the pid is added to queues and threads when the run has
// several processes, the id to devices whose names repeat. `queue_devices` (optional)
// names each queue's device (GroupedAnalysis::devices). `run` must outlive the labels.
class GroupLabels {
 public:
  GroupLabels(const model::Run& run, GroupBy by,
              const std::map<GroupKey, uint32_t>* queue_devices = nullptr);
  std::string operator()(const GroupKey& key) const;

 private:
  const model::Run& run_;
  GroupBy by_;
  RangeIndex ranges_;
  bool several_processes_ = false;
  const std::map<GroupKey, uint32_t>* queue_devices_;
};

// Feeds each launch and transfer to the analysis of its group, made by `make` on first use.
class GroupedAnalysis : public Analysis {
 public:
  using Make = std::function<std::unique_ptr<Analysis>()>;
  GroupedAnalysis(GroupBy by, Make make) : by_(by), make_(std::move(make)) {}
  void add_launch(const model::Launch& launch) override;
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;
  GroupBy by() const { return by_; }
  const std::map<GroupKey, std::unique_ptr<Analysis>>& groups() const { return groups_; }
  // The device of each group's first command that names one (a queue's device).
  const std::map<GroupKey, uint32_t>& devices() const { return devices_; }

 private:
  Analysis& group(const GroupKey& key);
  GroupBy by_;
  Make make_;
  std::map<GroupKey, std::unique_ptr<Analysis>> groups_;
  std::map<GroupKey, uint32_t> devices_;
};

// The rows of a grouped analysis, group after group (in key order), each group's rows in
// their analysis's order and KernelRow/LayerRow/TransferRow::group set. Percentages are of
// the whole selection (every group), as without --by.
// `analysis` holds KernelsAnalysis groups; `kernels`: distinct kernel variants over the groups
// (named over all of them, from `run`'s programs; by program, with their plain names).
std::vector<KernelRow> grouped_kernel_rows(const GroupedAnalysis& analysis,
                                           const GroupLabels& labels, const model::Run& run,
                                           const Speedup* speedup, int64_t& total_ns,
                                           uint64_t& kernels);
// `analysis` holds LayersAnalysis groups.
std::vector<LayerRow> grouped_layer_rows(const GroupedAnalysis& analysis, const GroupLabels& labels,
                                         const model::Run& run, const Speedup* speedup);
// `analysis` holds TransfersAnalysis groups.
std::vector<TransferRow> grouped_transfer_rows(const GroupedAnalysis& analysis,
                                               const GroupLabels& labels, const model::Run& run);

// The analysis of a command that takes --by: make()'s (KernelsAnalysis, LayersAnalysis,
// TransfersAnalysis) when `by` is None, else a GroupedAnalysis making one per group.
std::unique_ptr<Analysis> maybe_grouped(GroupBy by, GroupedAnalysis::Make make);

// `clprof kernels`' table, from maybe_grouped(by, KernelsAnalysis) fed the selection.
struct KernelTable {
  std::vector<KernelRow> rows;  // make_kernel_rows' order; group after group with --by
  int64_t total_ns = 0;         // kernel time of the selection (every group)
  uint64_t kernels = 0;         // distinct kernel variants (rows without --by)
  std::optional<int64_t> estimated_total_ns;  // with a speedup: the estimated total
};
// `run`: labels the groups; `speedup`: nullptr or the estimate to add.
KernelTable kernel_table(const Analysis& analysis, GroupBy by, const model::Run& run,
                         const Speedup* speedup);

}  // namespace clprof::analyses
