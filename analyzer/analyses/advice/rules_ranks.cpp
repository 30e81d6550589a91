// rank-imbalance: the ranks of a parallel job (the trace header's rank and world_size)
// whose kernels keep the others waiting. docs/advice.md.
#include <set>
#include <tuple>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"

namespace clprof::analyses::advice::rules {

// The work of a rank is, over its kernels, each kernel's launches times its median device
// time (all the rank's processes together): a few launches stretched by preemption (a
// loaded host, a CPU device) do not make a rank slow, more launches or longer ones do.
// Each kernel's first launch in each process is left out: a lazy driver (PoCL) compiles
// the kernel inside that command, so the rank that happens to compile first (the others
// hit the driver's cache) would read as slow (first-launch-jit's subject). The slow rank
// has the most; imbalance = (slowest - mean) / slowest. Impact: slowest - mean, the time
// the job would save per rank if the work were spread evenly (the others wait that long
// at the job's next barrier). The kernel that makes it slow: the one whose time on the
// slow rank exceeds its mean over the ranks by the most.
void ranks(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  const double share = t.get("rank-imbalance", "share");
  const double warning_share = t.get("rank-imbalance", "warning_share");
  std::map<uint64_t, int64_t> busy;                               // rank -> device ns
  std::map<uint64_t, std::map<std::string, uint64_t>> by_kernel;  // rank -> kernel -> ns
  std::map<uint64_t, uint64_t> untimed;
  std::set<uint64_t> ranks;
  for (const auto& p : run.processes)
    if (p.rank) ranks.insert(*p.rank);
  if (ranks.size() < 2) {
    out.not_evaluated.push_back(
        {"rank-imbalance",
         ranks.empty() ? "no trace has a rank (the header's rank: a process of an MPI or Slurm "
                         "job; give every rank's trace)"
                       : "the traces are of one rank only (give every rank's trace)"});
    return;
  }
  for (uint64_t r : ranks) busy[r] = 0;
  // Each (rank, kernel)'s device times, sorted through an ExternalSort (bounded memory):
  // its median is the middle of its run of records.
  struct Sample {
    uint64_t rank = 0;
    uint32_t name = 0;
    int64_t duration = 0;
    uint64_t ordinal = 0;
  };
  struct SampleLess {
    bool operator()(const Sample& a, const Sample& b) const {
      return std::tie(a.rank, a.name, a.duration, a.ordinal) <
             std::tie(b.rank, b.name, b.duration, b.ordinal);
    }
  };
  ExternalSort<Sample, SampleLess> samples;
  std::map<std::pair<uint64_t, uint32_t>, uint64_t> counts;  // small: ranks x kernels
  c.for_each_command([&](const CommandRec& l) {
    if (l.transfer) return;
    const auto& p = run.processes[c.process_of(l.thread)];
    if (!p.rank || c.is_first(l)) return;
    if (l.duration == model::kNoTime) {
      ++untimed[*p.rank];
      return;
    }
    samples.push({*p.rank, l.name, l.duration, l.ordinal});
    ++counts[{*p.rank, l.name}];
  });
  // Per (rank, kernel): the value at the lower middle of its sorted run of records.
  std::pair<uint64_t, uint32_t> key{0, 0};
  uint64_t at = 0, size = 0;
  samples.for_each([&](const Sample& s) {
    if (at == 0 || key != std::make_pair(s.rank, s.name)) {
      key = {s.rank, s.name};
      size = counts[key];
      at = 0;
    }
    if (at++ == (size - 1) / 2) {
      const int64_t work = s.duration * static_cast<int64_t>(size);
      busy[s.rank] += work;
      by_kernel[s.rank][c.names[s.name]] = static_cast<uint64_t>(work);
    }
    if (at == size) at = 0;
  });
  int64_t total = 0;
  uint64_t slow = *ranks.begin();
  for (const auto& [r, ns] : busy) {
    total += ns;
    if (ns > busy[slow]) slow = r;
  }
  if (total == 0) {
    out.not_evaluated.push_back({"rank-imbalance", "the ranks' launches have no device times"});
    return;
  }
  const double mean = static_cast<double>(total) / static_cast<double>(busy.size());
  const double slowest = static_cast<double>(busy[slow]);
  const double imbalance = (slowest - mean) / slowest;
  if (imbalance < share) return;
  // The kernel that makes the slow rank slow.
  std::map<std::string, double> excess;
  for (const auto& [rank, kernels] : by_kernel)
    for (const auto& [name, ns] : kernels) excess[name] -= static_cast<double>(ns) / busy.size();
  for (const auto& [name, ns] : by_kernel[slow]) excess[name] += static_cast<double>(ns);
  std::string worst;
  double worst_excess = 0;
  for (const auto& [name, e] : excess)
    if (e > worst_excess) {
      worst = name;
      worst_excess = e;
    }
  int64_t fastest = busy[slow];
  uint64_t fast = slow;
  for (const auto& [r, ns] : busy)
    if (ns < fastest) {
      fastest = ns;
      fast = r;
    }
  Finding f;
  f.rule = "rank-imbalance";
  f.severity = imbalance >= warning_share ? Severity::Warning : Severity::Info;
  f.title = "rank " + std::to_string(slow) + " runs " + util::percent(slowest - mean, mean) +
            " more kernel time than the ranks' mean" +
            (worst.empty() ? std::string() : "; most of it in " + worst);
  f.evidence = "kernel device time per rank (launches x median) over " +
               std::to_string(busy.size()) + " ranks: slowest rank " + std::to_string(slow) + " " +
               util::ns(busy[slow]) + ", fastest rank " + std::to_string(fast) + " " +
               util::ns(fastest) + ", mean " + util::ns(static_cast<int64_t>(mean)) +
               " (imbalance " + util::percent(slowest - mean, slowest) + " of the slowest)";
  if (!worst.empty()) {
    const auto& k = by_kernel[slow];
    const auto it = k.find(worst);
    f.evidence += "; " + worst + " takes " +
                  util::ns(it == k.end() ? 0 : static_cast<int64_t>(it->second)) + " on rank " +
                  std::to_string(slow) + ", " + util::ns(static_cast<int64_t>(worst_excess)) +
                  " above its mean over the ranks";
  }
  f.advice =
      "Balance the work between the ranks: split the domain by cost rather than by size, give "
      "the slow rank's device less (or a faster device), or overlap the wait with independent "
      "work; check first that the slow rank's kernel runs the same sizes as on the others.";
  f.impact_ns = static_cast<int64_t>(slowest - mean);
  f.subjects = {"rank " + std::to_string(slow)};
  if (!worst.empty()) f.subjects.push_back(worst);
  out.findings.push_back(std::move(f));
}

}  // namespace clprof::analyses::advice::rules
