// Run overview (clprof summary): wall time, device busy time (union of kernel intervals),
// utilization, launches, transfers, builds, per device.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyses/interval_union.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// Streams launches and transfers: each timed launch's device interval goes into its
// device's IntervalUnion (its start and end, 2-3 bytes each in memory, spilled to disk past
// the durations' budget: interval_union.hpp), fixed sums otherwise.
class SummaryAnalysis : public Analysis {
 public:
  struct PerDevice {
    uint64_t launches = 0;
    int64_t kernel_ns = 0;    // sum of kernel durations
    IntervalUnion intervals;  // device [start, end] of the kernels
    // Busy time measured already: the union of intervals a partial's shard had whole
    // (SummaryInputs); 0 when the intervals are here.
    int64_t union_ns = 0;
    int64_t busy_extra_ns = 0;  // durations without device timestamps (importers)
    uint64_t transfers = 0;
    uint64_t transfer_bytes = 0;  // moved: reads, writes, copies, fills (not maps)
    uint64_t mapped_bytes = 0;    // covered by maps and unmaps (transfers.hpp: maps are not copies)
    int64_t transfer_ns = 0;      // sum of transfer device durations
    uint64_t timed_moved_bytes = 0;  // of the transfers that move bytes and have a device time
    int64_t timed_moved_ns = 0;

    // Adds `other`'s figures (its intervals moved in: `other` has none after).
    void add(PerDevice&& other);
    // Calls f(name, figure) for each figure that adds (not the intervals), by its name in a
    // partial (output/views/partial.hpp): the same list for writing and reading.
    template <class Self, class F>
    static void each_sum(Self& d, F&& f) {
      f("launches", d.launches);
      f("kernel_ns", d.kernel_ns);
      f("busy_union_ns", d.union_ns);
      f("busy_extra_ns", d.busy_extra_ns);
      f("transfers", d.transfers);
      f("transfer_bytes", d.transfer_bytes);
      f("mapped_bytes", d.mapped_bytes);
      f("transfer_ns", d.transfer_ns);
      f("timed_moved_bytes", d.timed_moved_bytes);
      f("timed_moved_ns", d.timed_moved_ns);
    }
  };
  void add_launch(const model::Launch& launch) override;
  void add_transfer(const model::Transfer& transfer) override;
  void merge(Analysis&& other) override;

  const std::map<uint32_t, PerDevice>& devices() const { return devices_; }
  // For make_summary, which sorts the intervals in place instead of copying them.
  std::map<uint32_t, PerDevice>& mutable_devices() { return devices_; }
  // Kernel name -> the devices (Device::id) it ran on.
  const std::map<std::string, std::vector<uint32_t>>& kernel_names() const { return names_; }
  // Earliest and latest absolute host time per process index (begin, end).
  const std::map<uint32_t, std::pair<int64_t, int64_t>>& host_spans() const { return spans_; }

 private:
  void extend(uint32_t process, int64_t begin, int64_t end);
  std::map<uint32_t, PerDevice> devices_;
  std::map<std::string, std::vector<uint32_t>> names_;
  std::map<uint32_t, std::pair<int64_t, int64_t>> spans_;
};

// busy / wall in percent; nullopt (and a warning naming `what`) when busy exceeds the wall
// time, which a union of intervals on the wall's clock cannot: two clocks were mixed.
std::optional<double> utilization_or_warn(int64_t busy_ns, std::optional<int64_t> wall_ns,
                                          const std::string& what,
                                          std::vector<std::string>& warnings);

// Total length of the union of [start, end] intervals (reordered in place).
int64_t union_length(std::vector<std::pair<int64_t, int64_t>>& intervals);

// Per process index: the earliest and latest host event (launches and transfers fed to `a`,
// ranges, builds, syncs and marks of `run`) on the absolute host clock (host_start_ns added).
std::map<uint32_t, std::pair<int64_t, int64_t>> absolute_host_spans(const SummaryAnalysis& a,
                                                                    const model::Run& run);

struct SummaryFigures {
  std::optional<int64_t> wall_ns;
  int64_t device_busy_ns = 0;
  std::optional<double> utilization;  // percent: device_busy_ns / wall_ns * 100
  uint64_t launches = 0;
  uint64_t kernels_distinct = 0;  // distinct kernel names (per device: that ran on it)
  uint64_t transfers = 0;
  uint64_t transfer_bytes = 0;  // bytes moved (reads, writes, copies, fills)
  uint64_t mapped_bytes = 0;    // bytes covered by maps and unmaps
  int64_t transfer_ns = 0;
  std::optional<double> transfer_gbps;  // bytes moved / device time of the timed ones (bytes/ns)
  int64_t build_ns = 0;
  int64_t kernel_ns = 0;
  // GEMM work in GFLOP over the GEMM calls of known size; null when there were GEMM calls
  // but none of known size (unknown, not 0); 0 with no GEMM call at all.
  std::optional<double> gflop_total = 0.0;
  uint64_t gemm_calls_unsized = 0;  // GEMM calls whose size (so FLOPs) is unknown
};

struct DeviceSummary {
  uint32_t device = 0;  // Device::id, 0 = unknown
  std::string name;
  SummaryFigures figures;  // wall_ns is the run's wall time
};

struct Summary {
  SummaryFigures run;
  std::vector<DeviceSummary> devices;
  uint64_t processes = 0;
  uint64_t truncated_processes = 0;
  // What the inputs record at all: importers know kernels (mostly) but no transfers or
  // builds, a Caffe layer-timing profile no kernels either; their figures are then unknown,
  // not 0. A clprof trace records all three.
  bool launches_known = false;
  bool transfers_known = false;
  bool builds_known = false;
  // Figures that could not be trusted and were left out, said once each as a warning
  // (e.g. a device busy longer than the wall time: two clocks mixed).
  std::vector<std::string> warnings;
};

// What a summary is made of, in mergeable form (clprof summary --partial, docs/scale.md):
// counts and sums, the host span of each process on the absolute clock, the devices' kernel
// figures and the GEMM work term by term. A shard's inputs merged in process order
// (merge_summary_inputs) give the whole run's, so finish_summary gives the one-machine
// figures exactly. Units: ns, bytes, GFLOP.
struct SummaryInputs {
  uint64_t processes = 0;
  uint64_t truncated_processes = 0;
  bool traces = false;  // a clprof trace among the inputs (launches, transfers, builds known)
  bool builds = false;  // a build record among them
  int64_t build_ns = 0;
  std::optional<int64_t> iteration_wall_ns;  // sum of the processes' (importers); null: none
  // Per process index: earliest and latest host event, absolute (absolute_host_spans).
  std::map<uint32_t, std::pair<int64_t, int64_t>> spans;
  // Per Device::id - 1: its name and its process's pid (0: unknown), for the rows' names.
  struct DeviceName {
    std::string name;
    int64_t pid = 0;
  };
  std::vector<DeviceName> device_names;
  std::map<uint32_t, SummaryAnalysis::PerDevice> devices;     // by Device::id, 0 = unknown
  std::map<std::string, std::vector<uint32_t>> kernel_names;  // name -> the devices it ran on
  // GEMM work per Device::id: each timed call of known size's GFLOP, in the order of
  // finish_gemm's records (process, host begin, seq), summed in that order at the end.
  std::map<uint32_t, std::vector<double>> gflop_terms;
  std::map<uint32_t, uint64_t> unsized_gemm_calls;  // per Device::id
  // --time-window on the absolute host clock [begin, end): the wall time is clipped to it.
  std::optional<std::pair<int64_t, int64_t>> window_ns;
};

// The inputs of `analysis` over `run` (its metadata: processes, devices, builds, ranges,
// syncs for the wall time), with the GEMM work's terms per device. Moves the analysis's
// per-device figures (their intervals) into the result: `analysis` has none after.
SummaryInputs summary_inputs(SummaryAnalysis& analysis, const model::Run& run,
                             std::map<uint32_t, std::vector<double>> gflop_terms,
                             std::map<uint32_t, uint64_t> unsized_gemm_calls,
                             std::optional<std::pair<int64_t, int64_t>> window_ns);
// `later`'s processes and devices come after `into`'s (their indices and ids shifted; the
// unknown device 0 stays 0, its intervals and terms appended). Throws std::invalid_argument
// when the two have different windows.
void merge_summary_inputs(SummaryInputs& into, SummaryInputs&& later);
// The figures (sorts the intervals in place).
Summary finish_summary(SummaryInputs& inputs);

// The figures of `analysis` over `run`: finish_summary(summary_inputs(...)) with one GEMM
// term per device, gflop_per_device's (from the GEMM analysis); `analysis` keeps its figures
// (the intervals sorted).
// `window_ns` (absolute host clock [begin, end), --time-window): the wall time is clipped to it.
Summary make_summary(SummaryAnalysis& analysis, const model::Run& run,
                     const std::map<uint32_t, double>& gflop_per_device,
                     std::optional<std::pair<int64_t, int64_t>> window_ns = std::nullopt,
                     const std::map<uint32_t, uint64_t>& unsized_gemm_calls_per_device = {});

}  // namespace clprof::analyses
