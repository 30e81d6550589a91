// `clprof ranks`: one row per process of a parallel job (its rank, from the trace header),
// which rank is slow and in what: wall, kernel time, device busy, launches, top kernel, the
// deviation from the median rank and an outlier flag by a robust rule (docs/cli.md
// "clprof ranks"). `--kernel NAME`: that kernel's spread across the ranks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyses/selection.hpp"
#include "analyses/summary.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// Per process, each kernel name's launches and total time (memory: processes x distinct
// kernel names).
class ProcessKernels : public Analysis {
 public:
  struct Totals {
    uint64_t launches = 0;
    int64_t total_ns = 0;  // of the launches with a device time
    uint64_t timed = 0;
  };
  void add_launch(const model::Launch& l) override;
  void merge(Analysis&& other) override;
  // process index -> kernel name -> totals.
  std::map<uint32_t, std::map<std::string, Totals>> per_process;
};

// `clprof ranks`'s analysis: the summary's figures (device intervals, host spans) and the
// per-process kernel totals, of the launches `keep` accepts.
class RanksAnalysis : public Analysis {
 public:
  explicit RanksAnalysis(LaunchPredicate keep) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override;
  void add_transfer(const model::Transfer& t) override { summary.add_transfer(t); }
  void merge(Analysis&& other) override;

  SummaryAnalysis summary;
  ProcessKernels kernels;

 private:
  LaunchPredicate keep_;
};

// Which figure the deviation and the outlier rule compare.
enum class RankMetric { Kernel, Busy, Wall };
// "kernel", "busy", "wall"; nullopt for another word.
std::optional<RankMetric> parse_rank_metric(const std::string& word);
const char* rank_metric_name(RankMetric m);

// The robust rule: a value is an outlier when it lies more than `mads` median absolute
// deviations (unscaled: the median of |x - median|) AND more than `fraction` of the median
// from the median of `values`. Returns one flag per value (false for nullopt values; the
// median and MAD are over the known ones). With MAD 0 (most ranks equal) the first condition
// holds for any difference, so the fraction alone decides.
struct RobustCenter {
  std::optional<int64_t> median;  // nullopt: no known value
  int64_t mad = 0;
};
RobustCenter robust_center(const std::vector<std::optional<int64_t>>& values);
bool is_outlier(int64_t value, const RobustCenter& c, double mads = 3.0, double fraction = 0.10);

struct RankRow {
  uint32_t process = 0;
  std::optional<uint64_t> rank;  // nullopt: the trace records none
  std::optional<uint64_t> world_size;
  std::string host;
  int64_t pid = 0;
  std::string file;
  std::optional<int64_t> wall_ns;  // first to last host event of the process
  int64_t kernel_ns = 0;
  int64_t busy_ns = 0;  // union of kernel intervals per device of the process, summed
  uint64_t launches = 0;
  std::string top_kernel;  // "" when no timed launch
  int64_t top_kernel_ns = 0;
  std::optional<int64_t> deviation_ns;  // metric - median of the metric over the rows
  std::optional<double> deviation_percent;
  bool outlier = false;
};

struct RankTable {
  RankMetric metric = RankMetric::Kernel;
  std::vector<RankRow> rows;  // by rank (rows without one last, by file), then pid
  std::optional<int64_t> median_ns;
  int64_t mad_ns = 0;
};

// The rows over the processes of `run` (every process has a row, launches or not), from
// `summary` (its device intervals are sorted in place) and `kernels`, fed the same launches.
RankTable rank_table(SummaryAnalysis& summary, const ProcessKernels& kernels, const model::Run& run,
                     RankMetric metric);
// The same from rows made elsewhere (clprof-dask's merged partials): `rows` have every
// figure but the deviation and the outlier flag, which this sets; it sorts them.
RankTable finish_rank_table(std::vector<RankRow> rows, RankMetric metric);
// Sets `row`'s launches, kernel time and top kernel from its kernels' totals.
void set_kernel_figures(RankRow& row, const std::map<std::string, ProcessKernels::Totals>& kernels);
// True when `run` is a job of several ranks: more than one process, one with a rank.
bool is_multi_rank(const model::Run& run);

// One kernel's total time per rank, and its spread.
struct KernelSpread {
  std::string kernel;
  uint64_t ranks = 0;  // processes that launched it
  uint64_t launches = 0;
  int64_t min_ns = 0, median_ns = 0, max_ns = 0;  // of the per-rank totals
  const RankRow* fastest = nullptr;
  const RankRow* slowest = nullptr;
  std::optional<double> spread_percent;  // (max - min) / median * 100; nullopt: median 0
  uint64_t outliers = 0;                 // ranks whose total is an outlier by the rule
};
// nullopt when no process launched `kernel`. The rows are `table`'s (pointers into it).
std::optional<KernelSpread> kernel_spread(const ProcessKernels& kernels, const RankTable& table,
                                          const std::string& kernel);

}  // namespace clprof::analyses
