// device-idle and queue-serialisation: the device's timeline (docs/advice.md).
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

namespace {

// A device command: a launch (index into Commands::launches) or a transfer (index +
// kTransfer into Commands::transfers).
constexpr uint64_t kTransfer = uint64_t{1} << 40;

struct Timeline {
  const Commands& c;
  const std::vector<bool>& first;
  int64_t begin(uint64_t k) const {
    return k >= kTransfer ? c.transfers[k - kTransfer].start : c.launches[k].start;
  }
  int64_t end(uint64_t k) const {
    return k >= kTransfer ? c.transfers[k - kTransfer].end : c.launches[k].end;
  }
  int64_t queued(uint64_t k) const {
    return k >= kTransfer ? c.transfers[k - kTransfer].queued : c.launches[k].queued;
  }
  // The command's name (kernel, or transfer api).
  const std::string& what(uint64_t k) const {
    return c.names[k >= kTransfer ? c.transfers[k - kTransfer].api : c.launches[k].name];
  }
  uint64_t range(uint64_t k) const {
    return k >= kTransfer ? c.transfers[k - kTransfer].range : c.launches[k].range;
  }
  // A kernel's first launch in its process (a lazy driver compiles it).
  bool is_first(uint64_t k) const { return k < kTransfer && first[k]; }
};

// A busy stretch: commands merged while they overlap.
struct Stretch {
  int64_t begin, end;
  uint64_t starts;  // the command that starts it
  uint64_t ends;    // the last command to extend its end
};

// Sorted, merged stretches of the commands `v` (sorted here by start, equal starts in
// their order in `v`: launches, then transfers, each in file order).
std::vector<Stretch> merged(std::vector<uint64_t>& v, const Timeline& tl) {
  std::stable_sort(v.begin(), v.end(),
                   [&](uint64_t a, uint64_t b) { return tl.begin(a) < tl.begin(b); });
  std::vector<Stretch> out;
  for (uint64_t k : v) {
    const int64_t b = tl.begin(k), e = tl.end(k);
    if (!out.empty() && b <= out.back().end) {
      if (e > out.back().end) {
        out.back().end = e;
        out.back().ends = k;  // the last to end names the end of the busy stretch
      }
    } else {
      out.push_back({b, e, k, k});
    }
  }
  std::vector<uint64_t>().swap(v);
  return out;
}

int64_t busy(const std::vector<Stretch>& m) {
  int64_t b = 0;
  for (const auto& i : m) b += i.end - i.begin;
  return b;
}

int64_t overlap(const std::vector<Stretch>& a, const std::vector<Stretch>& b) {
  int64_t o = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const int64_t lo = std::max(a[i].begin, b[j].begin), hi = std::min(a[i].end, b[j].end);
    if (hi > lo) o += hi - lo;
    (a[i].end < b[j].end) ? ++i : ++j;
  }
  return o;
}

std::string device_name(const model::Run& run, uint32_t id) {
  for (const auto& d : run.devices)
    if (d.id == id && !d.name.empty()) return d.name;
  return "device " + std::to_string(id);
}

}  // namespace

void device(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // Indices only (8 bytes a command): the records stay in `c`.
  std::map<uint32_t, std::vector<uint64_t>> per_device;
  bool any_timed = false;
  const std::vector<bool> first = util::first_launches(c);
  const Timeline tl{c, first};
  {  // sized first: no growth slack
    std::map<uint32_t, size_t> n;
    for (const auto& l : c.launches) ++n[l.device];
    for (const auto& x : c.transfers) ++n[x.device];
    for (const auto& [dev, k] : n) per_device[dev].reserve(k);
  }
  for (size_t k = 0; k < c.launches.size(); ++k) {
    const auto& l = c.launches[k];
    if (!l.has_device_times() || l.end < l.start) continue;
    any_timed = true;
    per_device[l.device].push_back(k);
  }
  for (size_t k = 0; k < c.transfers.size(); ++k) {
    const auto& x = c.transfers[k];
    if (x.start == model::kNoTime || x.end == model::kNoTime || x.end < x.start) continue;
    per_device[x.device].push_back(k + kTransfer);
  }
  if (!c.launches.empty() && !any_timed) {
    out.not_evaluated.push_back({"device-idle", "no launch has device times"});
    out.not_evaluated.push_back({"queue-serialisation", "no launch has device times"});
    return;
  }

  // device-idle: gaps of at least min_gap_ns between the device's busy stretches (kernels
  // and transfers), against its span (first start to last end). A gap that ends at a
  // kernel's first launch is warm-up (lazy drivers such as PoCL compile a kernel at its first
  // enqueue; builds have their own rules): said, not counted. So is a gap whose next command
  // was queued before the gap began: the host had fed the device, the driver was slow to start
  // it (PoCL compiles a kernel again per work-group size). Impact: the idle time in the
  // counted gaps (what keeping the device fed would recover at most).
  const double min_gap = t.get("device-idle", "min_gap_ns");
  const double share = t.get("device-idle", "share");
  const double warning_share = t.get("device-idle", "warning_share");
  for (auto& [dev, v] : per_device) {
    const auto m = merged(v, tl);
    if (m.size() < 2) continue;
    const int64_t span = m.back().end - m.front().begin;
    int64_t idle = 0, largest = 0, warmup = 0, latency = 0;
    uint64_t gaps = 0, warmups = 0, latencies = 0;
    size_t at = 0;
    for (size_t i = 1; i < m.size(); ++i) {
      const int64_t g = m[i].begin - m[i - 1].end;
      if (g < min_gap) continue;
      if (tl.is_first(m[i].starts)) {
        warmup += g;
        ++warmups;
        continue;
      }
      const int64_t queued = tl.queued(m[i].starts);
      if (queued != model::kNoTime && queued <= m[i - 1].end) {
        latency += g;
        ++latencies;
        continue;
      }
      idle += g;
      ++gaps;
      if (g > largest) {
        largest = g;
        at = i;
      }
    }
    if (span <= 0 || gaps == 0 || idle < share * span) continue;
    Finding f;
    f.rule = "device-idle";
    f.severity = idle >= warning_share * span ? Severity::Warning : Severity::Info;
    f.title = device_name(run, dev) + " idles " + util::percent(idle, span) + " of its busy span";
    // Each stretch is named by the last command to extend its end (its first when none did).
    const std::string& before_what = tl.what(m[at - 1].ends);
    const std::string before_range = util::range_name(run, tl.range(m[at - 1].ends));
    const std::string& after_what = tl.what(m[at].ends);
    const std::string after_range = util::range_name(run, tl.range(m[at].ends));
    f.evidence = util::count_of(gaps, "gap", "gaps") + " of at least " +
                 util::ns(static_cast<int64_t>(min_gap)) + " add up to " + util::ns(idle) +
                 " of the " + util::ns(span) +
                 " from the first command's start to the last one's end; "
                 "the largest, " +
                 util::ns(largest) + ", lies between " + before_what +
                 (before_range.empty() ? "" : " (in " + before_range + ")") + " and " + after_what +
                 (after_range.empty() ? "" : " (in " + after_range + ")") +
                 (warmups ? "; not counted: " + util::count_of(warmups, "gap", "gaps") + " of " +
                                util::ns(warmup) + " before a kernel's first launch (warm-up)"
                          : std::string()) +
                 (latencies ? "; not counted: " + util::count_of(latencies, "gap", "gaps") +
                                  " of " + util::ns(latency) +
                                  " whose next command was already queued (driver latency)"
                            : std::string());
    f.advice =
        "Keep work queued ahead of the device: enqueue the next commands before waiting on the "
        "current ones, move host work (preparing inputs, reading results) off the path between "
        "launches or overlap it with device work, and drop waits the next command does not need "
        "(clprof timeline shows the gaps).";
    f.impact_ns = idle;
    f.subjects = {device_name(run, dev), before_what};
    if (after_what != before_what) f.subjects.push_back(after_what);  // clpeak: X then X
    if (!after_range.empty()) f.subjects.push_back(after_range);
    out.findings.push_back(std::move(f));
  }

  // queue-serialisation: per process and device, two or more queues with device work whose
  // busy stretches overlap by less than max_overlap of the smaller queues' busy time.
  // Impact: the busy time of all but the busiest queue, an upper bound (perfect overlap).
  const double max_overlap = t.get("queue-serialisation", "max_overlap");
  // Built after device-idle's (freed) indices: one set of them at a time.
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint64_t, std::vector<uint64_t>>> per_queue;
  for (size_t k = 0; k < c.launches.size(); ++k) {
    const auto& l = c.launches[k];
    if (l.has_device_times() && l.end >= l.start)
      per_queue[{c.process_of(l.thread), l.device}][l.queue].push_back(k);
  }
  for (size_t k = 0; k < c.transfers.size(); ++k) {
    const auto& x = c.transfers[k];
    if (x.start != model::kNoTime && x.end != model::kNoTime && x.end >= x.start)
      per_queue[{c.process_of(x.thread), x.device}][x.queue].push_back(k + kTransfer);
  }
  for (auto& [where, queues] : per_queue) {
    if (queues.size() < 2) continue;
    std::vector<std::pair<uint64_t, std::vector<Stretch>>> m;
    for (auto& [q, v] : queues) m.emplace_back(q, merged(v, tl));
    int64_t total = 0, largest = 0, over = 0;
    for (const auto& [q, v] : m) {
      add_to(total, busy(v));
      largest = std::max(largest, busy(v));
    }
    for (size_t i = 0; i < m.size(); ++i)
      for (size_t j = i + 1; j < m.size(); ++j) over += overlap(m[i].second, m[j].second);
    const int64_t smaller = total - largest;
    if (smaller <= 0 || over > max_overlap * smaller) continue;
    Finding f;
    f.rule = "queue-serialisation";
    f.severity = Severity::Info;
    f.title = std::to_string(m.size()) + " queues on " + device_name(run, where.second) +
              " never run at the same time";
    std::string qs;
    for (const auto& [q, v] : m) {
      qs += (qs.empty() ? "" : ", ") + std::string("queue ") + std::to_string(q) + " " +
            util::ns(busy(v));
      f.subjects.push_back("queue " + std::to_string(q));
    }
    f.evidence = "busy time per queue: " + qs + "; they overlap " + util::ns(over) + " (" +
                 util::percent(over, smaller) + " of the smaller queues' " + util::ns(smaller) +
                 ")";
    f.advice =
        "If the queues are meant to run concurrently, check that nothing orders them: waits on "
        "each other's events, a clFinish between them, one host thread feeding both. A device "
        "that runs one command at a time (many CPU and embedded drivers) serialises them "
        "anyway; then one in-order queue is simpler.";
    f.impact_ns = smaller;
    out.findings.push_back(std::move(f));
  }
}

}  // namespace clprof::analyses::advice::rules
