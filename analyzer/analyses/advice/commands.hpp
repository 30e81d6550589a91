// What `clprof advise` keeps of a run's launches and transfers for its rules: streamed,
// one Commands per reading thread, merged in file order (analysis.hpp).
//
// Two kinds of state. Tallies: the rules that read each command on its own (default-local-size,
// local-size-not-multiple, transfer-bound, gemm-padding, gemm-below-peak, api-errors' counts,
// local-size-sweep's like launches, build-dominates' wall) are summed as the commands stream
// past: counts, sums, min/max and per-kernel (per-key) maps, which merge exactly; their size
// grows with the distinct kernels, local sizes and APIs, not with the launches. Records: the
// rules that read the run in an order (the host's order per thread: sync-after-each-launch,
// blocking-transfer, api-errors' ignored failures; the device timeline: device-idle,
// queue-serialisation; medians: launch-bound, rank-imbalance; a kernel's first launch) keep
// one compact record per launch (LaunchRec, 80 bytes) and per transfer (TransferRec, 88
// bytes) instead of the model's (about 1 KiB with the rules' working copies): exact, and
// bounded by the caller's ceiling (cmd_advise.cpp: --max-memory at kAdviseBytesPerCommand a
// command).
//
// Threads: not thread-safe; one instance per reading thread, merged on one thread.
// Units: ns (kNoTime = unknown), bytes.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyses/advice/advice.hpp"
#include "analyses/gemm/gemm.hpp"
#include "analysis.hpp"
#include "model.hpp"

namespace clprof::analyses::advice {

// One launch as the ordered rules read it. Strings and threads are interned (Commands::names,
// Commands::threads).
struct LaunchRec {
  int64_t host_begin = model::kNoTime, host_end = model::kNoTime;
  int64_t queued = model::kNoTime, start = model::kNoTime, end = model::kNoTime;
  int64_t duration = model::kNoTime;  // Launch::duration_ns(), kNoTime when unknown
  uint64_t range = 0;                 // innermost range id, 0 = none
  uint64_t queue = 0;                 // queue_id
  uint32_t thread = 0;                // index into Commands::threads
  uint32_t name = 0;                  // kernel name, index into Commands::names
  uint32_t device = 0;
  int32_t rc = 0;
  bool has_device_times() const { return start != model::kNoTime && end != model::kNoTime; }
};

// One transfer as the ordered rules read it.
struct TransferRec {
  int64_t host_begin = model::kNoTime, host_end = model::kNoTime;
  int64_t queued = model::kNoTime, start = model::kNoTime, end = model::kNoTime;
  uint64_t bytes = 0;
  uint64_t range = 0;  // innermost range id, 0 = none
  uint64_t queue = 0;
  uint32_t thread = 0;  // index into Commands::threads
  uint32_t api = 0;     // index into Commands::names
  uint32_t device = 0;
  int32_t rc = 0;
  bool blocking = false;
  bool read_write = false;  // op read or write
};

// The per-command tallies (see the file's comment); every field merges by adding, min/max,
// or keeping the earlier file position's entry.
struct Tallies {
  uint64_t launches = 0, transfers = 0;
  // default-local-size (its min_prime threshold applied as they stream).
  uint64_t ndrange = 0, null_lws = 0, prime = 0;
  std::map<std::string, uint64_t> null_names, prime_names;
  std::map<std::string, std::string> prime_gws;  // the first prime launch's global size
  // local-size-not-multiple: explicit local sizes per (process, program, kernel, device,
  // work-group size); facts (kernel_device records) are looked up at the end.
  struct LocalSize {
    uint64_t launches = 0, untimed = 0;
    int64_t device_ns = 0;  // of the timed ones
    uint64_t first = 0;     // file position (launch ordinal) of its first launch
  };
  uint64_t explicit_lws = 0;
  std::map<std::tuple<uint32_t, uint64_t, std::string, uint32_t, uint64_t>, LocalSize> local_sizes;
  // transfer-bound (small_bytes applied as they stream).
  int64_t transfer_ns = 0, kernel_ns = 0, small_host = 0;
  uint64_t timed_transfers = 0, transfer_bytes = 0, small = 0;
  bool any_map = false;
  std::map<std::string, uint64_t> ops, small_ops;
  // gemm-padding.
  int64_t helper_ns = 0, gemm_ns = 0;
  uint64_t helpers = 0, gemms = 0, gemm_untimed = 0;
  std::map<std::string, uint64_t> helper_names;
  // api-errors, the launches' and transfers' part.
  uint64_t errors = 0, failed_commands = 0;
  std::map<std::string, uint64_t> error_calls, error_subjects;
  // local-size-sweep: the last launch with each (process, capture id), and the launches per
  // (process, kernel, global size, local size) key (sweep_key).
  std::map<std::pair<uint32_t, uint64_t>, std::string> captured;  // -> sweep_key
  std::map<std::pair<uint32_t, uint64_t>, std::string> captured_gws;
  std::unordered_map<std::string, uint64_t> like;
  // build-dominates: per process, the first host begin and last host end of its commands.
  std::map<uint32_t, std::pair<int64_t, int64_t>> spans;

  void merge(Tallies&& later);
};

// The key local-size-sweep compares launches by: process, kernel, global and local size.
std::string sweep_key(uint32_t process, const std::string& name, const std::vector<uint64_t>& gws,
                      const std::optional<std::vector<uint64_t>>& lws);

class Commands : public Analysis {
 public:
  // `t`: the thresholds the tallies apply as they stream (default-local-size.min_prime,
  // transfer-bound.small_bytes); `gemm_peak`: decode the GEMMs for gemm-below-peak (its
  // launches' arguments are read then, as clprof gemm does).
  Commands(const Thresholds& t, bool gemm_peak);
  void add_launch(const model::Launch& l) override;
  void add_transfer(const model::Transfer& x) override;
  // Appends `other`, which read the commands after this one's in file order.
  void merge(Analysis&& other) override;

  // In file order (inputs in their order; an input's launches, then its transfers, as
  // Run::launches and Run::transfers hold them).
  std::deque<LaunchRec> launches;
  std::deque<TransferRec> transfers;
  std::vector<std::string> names;                      // interned kernel and API names
  std::vector<std::pair<uint32_t, uint64_t>> threads;  // interned (process, tid)
  Tallies tallies;
  std::unique_ptr<GemmAnalysis> gemm;  // with gemm_peak

  uint32_t process_of(uint32_t thread) const { return threads[thread].first; }

 private:
  uint32_t intern_name(const std::string& s);
  uint32_t intern_thread(uint32_t process, uint64_t tid);
  double min_prime_, small_bytes_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> thread_ids_;
};

// Runs every rule over `run`'s metadata and the streamed `commands` (advise() feeds a run's
// own launches and transfers through a Commands: the same rules either way).
Report advise(const model::Run& run, const Commands& commands, const Thresholds& thresholds,
              const std::vector<model::LocalSweep>& sweeps = {});

}  // namespace clprof::analyses::advice
