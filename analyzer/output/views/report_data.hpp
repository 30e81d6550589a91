// What `clprof report` shows of one run, gathered in one pass over its launches and
// transfers (streamed or in memory) and finished against the run's metadata: the summary,
// kernels, layers and iterations, GEMM groups, per-kernel launch-time distributions, the
// per-queue timeline and (when two runs are reported) compare's figures.
//
// Bounds (docs/cli.md "clprof report"): the timeline keeps at most kMaxTimelineSpans device
// intervals (24 bytes each) and the distributions the launch times of the kMaxBoxes kernels
// with the most time; everything else is per kernel, layer or shape. Not thread-safe: one
// ReportAnalysis per reading thread, merged.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyses/advice/advice.hpp"
#include "analyses/api.hpp"
#include "analyses/builds.hpp"
#include "analyses/compare.hpp"
#include "analyses/ranks.hpp"
#include "analyses/run_summary.hpp"
#include "analyses/transfers.hpp"
#include "analysis.hpp"
#include "sweep.hpp"

namespace clprof::output::report {

inline constexpr size_t kMaxTimelineSpans = size_t{1} << 21;
inline constexpr size_t kMaxBoxes = 20;
inline constexpr size_t kMaxOutliers = 40;  // per box: the 20 lowest and the 20 highest

// Device intervals of kernels and transfers per (process, device, queue).
class QueueSpans : public Analysis {
 public:
  struct Span {
    int64_t start_ns = 0, end_ns = 0;  // device clock
    uint32_t name = 0;                 // index in names(); transfers are "transfer: OP"
    uint32_t lane = 0;                 // index in lanes()
  };
  struct LaneKey {
    uint32_t process = 0, device = 0;
    uint64_t queue = 0;
    bool operator<(const LaneKey& o) const;
  };
  void add_launch(const model::Launch& launch) override;
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;

  const std::vector<Span>& spans() const { return spans_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<LaneKey>& lanes() const { return lanes_; }
  uint64_t dropped() const { return dropped_; }  // intervals past kMaxTimelineSpans

 private:
  void add(uint32_t process, uint32_t device, uint64_t queue, int64_t start, int64_t end,
           const std::string& name);
  uint32_t name_id(const std::string& name);
  uint32_t lane_id(const LaneKey& key);
  std::vector<Span> spans_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::vector<LaneKey> lanes_;
  std::map<LaneKey, uint32_t> lane_ids_;
  uint64_t dropped_ = 0;
};

// Everything the report reads, fed together.
class ReportAnalysis : public Analysis {
 public:
  ReportAnalysis(analyses::LaunchPredicate keep,
                 std::shared_ptr<const std::vector<gemm::Rule>> compare_gemm_rules);
  void add_launch(const model::Launch& launch) override;
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;

  analyses::RunSummaryAnalysis summary;
  analyses::ProfileAnalysis profile;
  QueueSpans spans;
  analyses::TransfersAnalysis transfers;
  analyses::ApiAnalysis api;       // launches and transfers; the run's other calls at the end
  analyses::ProcessKernels ranks;  // per-process kernel totals (the ranks chart)
  // The selection's launches and the transfers, kept for clprof advise's rules (the "What to
  // fix first" section), which read the host's order of calls.
  std::vector<model::Launch> advice_launches;
  std::vector<model::Transfer> advice_transfers;

 private:
  analyses::LaunchPredicate keep_;
};

// A kernel's launch times as a box plot: quartiles (linear interpolation between order
// statistics), whiskers at the most extreme launches within 1.5 IQR of the box, the rest
// outliers.
struct Distribution {
  std::string name;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0, whisker_lo = 0, whisker_hi = 0;  // ns
  std::vector<double> outliers;  // at most kMaxOutliers (the lowest and highest)
  uint64_t outliers_total = 0;
};
// The distribution of `values` (sorted in place); count 0 when empty.
Distribution distribution(std::string name, std::vector<int64_t>& values);

// One queue of the timeline, its intervals on the chosen clock (absolute ns), in order.
struct TimelineLane {
  std::string label;  // "pid 123 · TestDev · queue 1", "pid 123 · host builds"
  uint32_t device = 0;
  uint32_t process = 0;  // index into Run::processes
  bool host = false;     // the process's host activity: ranges, builds, waits, library calls
  struct Interval {
    int64_t begin = 0, end = 0;
    uint32_t name = 0;
  };
  std::vector<Interval> intervals;
};
struct Timeline {
  std::vector<TimelineLane> lanes;  // per process: its host lane (with a host clock), its queues
  // Kernels and "transfer: OP"; host intervals are "range: NAME", "build: API",
  // "wait: API" and "call: API" (a library call, e.g. clblast::Gemm<float>).
  std::vector<std::string> names;
  bool host_clock = false;  // false: each device's own clock
  uint64_t dropped = 0;
};

// One run, finished: what the page draws and tabulates.
struct RunReport {
  std::string label;
  std::vector<std::string> sources;  // the input files
  std::vector<std::string> devices;  // device names
  std::string command_line;          // of the first process, when recorded
  std::optional<int64_t> start_unix_ns;
  analyses::Summary summary;
  analyses::GemmResult gemm;                 // grouped, with percent of the peak
  std::vector<analyses::KernelRow> kernels;  // by total time
  std::vector<analyses::LayerRow> layers;    // execution order, no per-layer kernels kept
  std::string iteration_range;
  std::vector<analyses::IterationDetail> iterations;  // the selected ones
  std::vector<Distribution> distributions;            // the kernels with most time first
  Timeline timeline;
  std::vector<analyses::TransferRow> transfers;  // as clprof transfers
  std::vector<analyses::BuildRow> builds;        // as clprof builds
  std::vector<analyses::ApiRow> api;             // as clprof api
  std::optional<analyses::RunFigures> figures;   // for a comparison
  std::optional<analyses::RankTable> ranks;      // a job of several ranks (is_multi_rank)
  analyses::advice::Report advice;               // clprof advise's findings, ranked
};

// Where a device timestamp lands on the host clock (absolute ns: the process's host time 0
// plus the device-to-host offset), or nullopt when the run records no offset. The one place
// to switch to clock_alignment when it lands.
std::optional<int64_t> host_time(const model::Run& run, uint32_t process, uint32_t device,
                                 int64_t device_ns);

// Finishes `analysis` over `run`. `selected`: the iteration range ids kept (nullptr: all);
// `stat`: for the comparison figures, made when `with_figures`; `sweeps`: the run's stored
// local-size sweeps (readers/sweeps.hpp), for advise's local-size-sweep.
RunReport finish_report(std::string label, ReportAnalysis&& analysis, const model::Run& run,
                        const analyses::Iterations& iterations,
                        const std::unordered_set<uint64_t>* selected, double peak_gflops,
                        bool with_figures, analyses::Stat stat,
                        const std::vector<model::LocalSweep>& sweeps = {});

}  // namespace clprof::output::report
