// clprof compare: two runs side by side — per kernel, per layer and per GEMM shape, the time
// in each run, the delta, the speedup, what is new and what vanished, and the total.
//
// The unit compared is the time per iteration: the `stat` (median, min or mean) over the
// selected iterations of a run's iteration range of what a kernel or layer took in each
// iteration (0 in an iteration where it did not run). A run without an iteration range is
// one iteration: a kernel's time is its launch count times the `stat` over its launches (the
// mean then gives the total). GEMM shapes compare the time of one launch (`stat` over the
// shape's launches) and its GFLOPS. Layers are matched by their path below the iteration
// range with Arm NN's `_#N` event numbers dropped; the k-th layer of one name matches the
// k-th of that name in the other run (layer_key). Everything here is pure: models and the
// analyses fed from them in, figures out. Single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "analyses/advice/advice.hpp"
#include "analyses/gemm/gemm.hpp"
#include "analyses/kernels.hpp"
#include "analyses/layers.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

enum class Stat : uint8_t { Median, Min, Mean };
// "median", "min" or "mean"; nullopt for anything else.
std::optional<Stat> parse_stat(std::string_view name);
const char* stat_name(Stat stat);
// The statistic of `values` (reordered in place); 0 when empty. Median and mean round to the
// nearest ns as compute_stats does.
int64_t apply_stat(Stat stat, std::vector<int64_t>& values);

// What compare (and the report) reads of one run, fed in one pass: per-kernel and per-layer
// accumulators and, when `gemm_rules` is given, the GEMM launches (per launch).
class ProfileAnalysis : public Analysis {
 public:
  ProfileAnalysis(LaunchPredicate keep, std::shared_ptr<const std::vector<gemm::Rule>> gemm_rules);
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;

  KernelsAnalysis kernels;
  LayersAnalysis layers;
  std::unique_ptr<GemmAnalysis> gemm;  // null without GEMM rules

 private:
  LaunchPredicate keep_;
};

// One kernel, layer or GEMM shape in one run.
struct Figure {
  uint64_t count = 0;            // timed launches in the selection
  int64_t time_ns = 0;           // per iteration (kernels, layers) or per launch (GEMM shapes)
  std::optional<double> gflops;  // GEMM shapes: FLOPs / time_ns
  std::string display;           // the name as this run spells it (layers: with their `_#N`)
};

// A GEMM shape: M, N, K, batch.
using GemmShape = std::tuple<int64_t, int64_t, int64_t, int64_t>;

struct GemmFigure {
  Figure figure;
  std::string kernels;  // the kernel names that ran the shape, ", "-joined
};

// A run reduced to what compare compares.
struct RunFigures {
  std::string label;
  uint64_t iterations = 0;  // selected iterations; 0: the run has no iteration range
  std::string iteration_range;
  int64_t total_ns = 0;  // `stat` over the iterations of their kernel time (else the sum)
  // By variant_key, in first-launch order; kernel_variants: each key's variant. compare_runs
  // matches a name with one variant in each run by name, else variant by variant, and names
  // the variants over both runs (kernel_variants.hpp).
  std::vector<std::pair<std::string, Figure>> kernels;
  std::map<std::string, KernelVariant> kernel_variants;
  std::vector<std::pair<std::string, Figure>> layers;  // by layer_key, in execution order
  std::map<GemmShape, GemmFigure> gemm;
  bool gemm_known = false;          // GEMM figures were asked for
  uint64_t outside_iterations = 0;  // timed launches outside every selected iteration
  advice::Report advice;            // clprof advise's findings over the run's selection
};

// The matching key of a kernel variant: its name, source hash and build options (one string).
std::string variant_key(const KernelVariant& variant);

// The matching key of a layer path: every '/'-separated part without a trailing `_#<digits>`.
std::string layer_key(std::string_view path);

// The figures of `analysis` over `run`. `iterations`: the run's iteration range (empty: none);
// `selected`: the iteration range ids kept (nullptr: all). `gemm`: the finished GEMM launches
// (nullptr: none asked for).
RunFigures run_figures(std::string label, const ProfileAnalysis& analysis, const model::Run& run,
                       const Iterations& iterations, const std::unordered_set<uint64_t>* selected,
                       Stat stat, const GemmResult* gemm);

enum class Section : uint8_t { Kernels, Layers, Gemm };
const char* section_name(Section section);

// One kernel, layer or GEMM shape in both runs (unset: absent from that run).
struct CompareItem {
  // kernel variant's row name (over both runs); layer path as the base spells it; a shape's
  // kernels
  std::string name;
  std::optional<GemmShape> shape;
  std::optional<Figure> base, other;
  std::optional<double> base_share;  // percent of the base total (kernels, layers)

  std::optional<int64_t> delta_ns() const;      // other - base
  std::optional<double> delta_percent() const;  // 100 * (other - base) / base
  std::optional<double> speedup() const;        // base / other (above 1: faster)
  // "new", "vanished", "slower", "faster" or "equal".
  const char* status() const;
};

struct CompareSection {
  Section section = Section::Kernels;
  std::string unit;  // "per iteration", "per run", "per launch"
  std::vector<CompareItem> items;
};

struct Comparison {
  std::string base_label, other_label;
  Stat stat = Stat::Median;
  uint64_t base_iterations = 0, other_iterations = 0;
  int64_t base_total_ns = 0, other_total_ns = 0;
  std::vector<CompareSection> sections;  // kernels, layers, then GEMM shapes if asked for
  std::vector<std::string> notes;        // differences in units, launches left out
  // clprof advise's findings of the other run that the base lacks (advice::new_findings:
  // keyed by rule and subjects), in the other run's ranking.
  std::vector<advice::Finding> new_findings;

  std::optional<int64_t> total_delta_ns() const;
  std::optional<double> total_delta_percent() const;
  std::optional<double> total_speedup() const;
};

// The two runs side by side. Kernels and GEMM shapes by time (the larger of the two runs'
// first), layers in the base's execution order with new layers after.
Comparison compare_runs(const RunFigures& base, const RunFigures& other);

// What got slower by more than `percent`: the total, and each kernel present in both runs
// whose share of the base total is at least `min_share` percent.
struct Offender {
  std::string what;  // "total" or "kernel NAME"
  int64_t base_ns = 0, other_ns = 0;
  double delta_percent = 0;
};
std::vector<Offender> slower_than(const Comparison& comparison, double percent, double min_share);

}  // namespace clprof::analyses
