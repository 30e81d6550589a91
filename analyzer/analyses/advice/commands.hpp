// What `clprof advise` keeps of a run's launches and transfers for its rules: streamed,
// one Commands per reading thread, merged in file order (analysis.hpp). Nothing in memory
// grows with the number of launches or transfers.
//
// Two kinds of state. Tallies: the rules that read each command on its own (default-local-size,
// local-size-not-multiple, transfer-bound, gemm-padding, gemm-below-peak, api-errors' counts,
// local-size-sweep's like launches, build-dominates' wall, launch-bound's counts) are summed
// as the commands stream past: counts, sums, min/max and per-kernel (per-key) maps, which
// merge exactly; their size grows with the distinct kernels, local sizes, queues and APIs,
// not with the launches. So does each kernel's first launch per process (its host begin and
// file position, kept as they stream). The log: the rules that read the run in an order (the
// host's order per thread: sync-after-each-launch, blocking-transfer, api-errors' ignored
// failures; the device timeline: device-idle, queue-serialisation; medians: launch-bound,
// rank-imbalance) read one compact record per command (CommandRec, 104 bytes), appended as it
// streams to a RecordLog (analyses/spill.hpp: 256 KiB in memory per reading thread, the rest on an
// unlinked temporary file in $TMPDIR) and, at the end, sorted into each rule's order by an
// ExternalSort (32 MiB sorted in memory at a time, merged runs on a temporary file), then
// read once by a state machine or a sweep whose state is per thread, device or queue
// (util::host_order, rules_device.cpp). Exact: the same order (the sort keys end with the
// file position) and the same arithmetic as the rules had over records in memory. Disk: the
// log, ~104 bytes a command, and one sort's runs at a time (up to ~80 more); the files are
// gone when advise ends. A failed write throws std::runtime_error naming TMPDIR.
//
// Threads: not thread-safe; one instance per reading thread, merged on one thread; the rules
// read it on that thread after the reading.
// Units: ns (kNoTime = unknown), bytes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyses/advice/advice.hpp"
#include "analyses/gemm/gemm.hpp"
#include "analyses/spill.hpp"
#include "analysis.hpp"
#include "model.hpp"

namespace clprof::analyses::advice {

// One launch or transfer as the ordered rules read it, logged as it streams (RecordLog, on a
// temporary file past 256 KiB a reading thread) and sorted at the end for each rule's order
// (ExternalSort): 104 bytes on disk, none in memory. Strings and threads are interned
// (Commands::names, Commands::threads).
struct CommandRec {
  int64_t host_begin = model::kNoTime, host_end = model::kNoTime;
  int64_t queued = model::kNoTime, start = model::kNoTime, end = model::kNoTime;
  int64_t duration = model::kNoTime;  // launches: Launch::duration_ns(), kNoTime when unknown
  uint64_t bytes = 0;                 // transfers
  uint64_t range = 0;                 // innermost range id, 0 = none
  uint64_t queue = 0;                 // queue_id
  uint64_t ordinal = 0;               // file position among the launches (or the transfers)
  uint32_t thread = 0;                // index into Commands::threads
  uint32_t name = 0;                  // kernel name or transfer api, index into Commands::names
  uint32_t device = 0;
  int32_t rc = 0;
  bool transfer = false;
  bool blocking_rw = false;  // transfers: blocking, op read or write
  bool has_device_times() const { return start != model::kNoTime && end != model::kNoTime; }
  // On a device's timeline (device-idle, queue-serialisation): both device times, in order.
  bool timed() const { return has_device_times() && end >= start; }
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
  // device-idle's "no launch has device times"; queue-serialisation's queues with device work
  // (process, device, queue).
  uint64_t timed_launches = 0;
  std::set<std::tuple<uint32_t, uint32_t, uint64_t>> timed_queues;
  // launch-bound (tiny_ns applied as they stream): launches with device and enqueue times.
  uint64_t lb_timed = 0, lb_tiny = 0;
  int64_t lb_tiny_enqueue = 0;                        // plain sum, as the rule always had it
  int64_t lb_first = INT64_MAX, lb_last = INT64_MIN;  // their host begins
  std::map<std::string, uint64_t> lb_names;           // the tiny ones' kernels

  void merge(Tallies&& later);
};

// The key local-size-sweep compares launches by: process, kernel, global and local size.
std::string sweep_key(uint32_t process, const std::string& name, const std::vector<uint64_t>& gws,
                      const std::optional<std::vector<uint64_t>>& lws);

// The host-order pass over the launches, transfers and syncs of each (process, thread)
// (util::host_order): what sync-after-each-launch, blocking-transfer and api-errors read.
struct HostOrder {
  // sync-after-each-launch, per (process, tid) in that order.
  struct Thread {
    uint64_t launches = 0, synced = 0;
    int64_t sync_host = 0, idle = 0;
    bool timed_waits = false, idle_known = false;
    std::map<std::string, uint64_t> kernels, apis;
  };
  std::vector<Thread> threads;
  // blocking-transfer, over all threads.
  uint64_t blocking = 0, blocking_bytes = 0;
  int64_t blocking_host = 0, waited = 0;
  bool waited_known = false;
  std::map<std::string, uint64_t> blocking_apis, after;
  // api-errors: failed enqueues followed by another enqueue of the same thread.
  uint64_t ignored = 0;
};

class Commands : public Analysis {
 public:
  // `t`: the thresholds the tallies apply as they stream (default-local-size.min_prime,
  // transfer-bound.small_bytes, launch-bound.tiny_ns); `gemm_peak`: decode the GEMMs for
  // gemm-below-peak (its launches' arguments are read then, as clprof gemm does).
  Commands(const Thresholds& t, bool gemm_peak);
  void add_launch(const model::Launch& l) override;
  void add_transfer(const model::Transfer& x) override;
  // Appends `other`, which read the commands after this one's in file order.
  void merge(Analysis&& other) override;

  // Calls f(const CommandRec&) for every launch and transfer, with ids in this instance's
  // numbering (names, threads) and ordinals counted over all of them in file order; in no
  // particular order (the rules sort what they read: ExternalSort).
  template <typename F>
  void for_each_command(F&& f) const;
  // Whether launch `r` (from for_each_command) is its kernel's first launch in its process:
  // the one with the earliest host begin, the first in the file among equal ones (lazy
  // drivers such as PoCL compile the kernel then).
  bool is_first(const CommandRec& r) const;

  std::vector<std::string> names;                      // interned kernel and API names
  std::vector<std::pair<uint32_t, uint64_t>> threads;  // interned (process, tid)
  Tallies tallies;
  std::unique_ptr<GemmAnalysis> gemm;  // with gemm_peak

  uint32_t process_of(uint32_t thread) const { return threads[thread].first; }

  // What the host-order pass found (util::host_order), kept for the rules that read it:
  // computed once, on the merging thread, after the reading.
  mutable std::shared_ptr<const HostOrder> host_order_cache;

 private:
  // The records one reading thread logged, and how its ids and ordinals map into this
  // instance's (empty maps: the ids are this instance's already).
  struct Segment {
    RecordLog<CommandRec> log;
    std::vector<uint32_t> name_map, thread_map;
    uint64_t launch_base = 0, transfer_base = 0;
  };
  uint32_t intern_name(const std::string& s);
  uint32_t intern_thread(uint32_t process, uint64_t tid);
  // The fields launches and transfers share (model::Launch or model::Transfer).
  template <typename Command>
  CommandRec record(const Command& x, uint64_t ordinal, const std::string& name);
  double min_prime_, small_bytes_, tiny_ns_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> thread_ids_;
  std::vector<Segment> segments_;  // [0]: this instance's own records
  // Each (process, kernel name)'s first launch: (host begin, ordinal).
  std::map<std::pair<uint32_t, uint32_t>, std::pair<int64_t, uint64_t>> first_;
  mutable std::unordered_map<uint64_t, uint64_t> first_index_;  // (process << 32 | name) -> ordinal
};

template <typename F>
void Commands::for_each_command(F&& f) const {
  for (const Segment& s : segments_)
    s.log.for_each([&](CommandRec r) {
      if (!s.name_map.empty()) r.name = s.name_map[r.name];
      if (!s.thread_map.empty()) r.thread = s.thread_map[r.thread];
      r.ordinal += r.transfer ? s.transfer_base : s.launch_base;
      f(static_cast<const CommandRec&>(r));
    });
}

// Runs every rule over `run`'s metadata and the streamed `commands` (advise() feeds a run's
// own launches and transfers through a Commands: the same rules either way).
Report advise(const model::Run& run, const Commands& commands, const Thresholds& thresholds,
              const std::vector<model::LocalSweep>& sweeps = {});

}  // namespace clprof::analyses::advice
