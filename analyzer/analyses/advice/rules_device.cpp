// device-idle and queue-serialisation: the device's timeline (docs/advice.md).
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

namespace {

struct Interval {
  int64_t begin, end;
  std::string what;  // the command's name (kernel, or transfer api)
  std::string range;
  bool first = false;  // a kernel's first launch in its process (a lazy driver compiles it)
  int64_t queued = model::kNoTime;  // when the command reached the queue (device clock)
};

// Sorted, merged copies of `v` (what: of the interval that starts each merged one).
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (auto& i : v) {
    if (!out.empty() && i.begin <= out.back().end) {
      if (i.end > out.back().end) {
        out.back().end = i.end;
        out.back().what = i.what;  // the last to end names the end of the busy stretch
        out.back().range = i.range;
      }
    } else {
      out.push_back(std::move(i));
    }
  }
  return out;
}

int64_t busy(const std::vector<Interval>& m) {
  int64_t b = 0;
  for (const auto& i : m) b += i.end - i.begin;
  return b;
}

int64_t overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
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

void device(const model::Run& run, const Thresholds& t, Report& out) {
  std::map<uint32_t, std::vector<Interval>> per_device;
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint64_t, std::vector<Interval>>> per_queue;
  bool any_timed = false;
  const std::vector<bool> first = util::first_launches(run);
  for (size_t k = 0; k < run.launches.size(); ++k) {
    const auto& l = run.launches[k];
    if (!l.has_device_times() || l.end_ns < l.start_ns) continue;
    any_timed = true;
    Interval i{l.start_ns, l.end_ns,   l.name, util::innermost_range(run, l.ranges),
               first[k],   l.queued_ns};
    per_device[l.device].push_back(i);
    per_queue[{l.process, l.device}][l.queue_id].push_back(i);
  }
  for (const auto& x : run.transfers) {
    if (x.start_ns == model::kNoTime || x.end_ns == model::kNoTime || x.end_ns < x.start_ns)
      continue;
    Interval i{x.start_ns, x.end_ns,   x.api, util::innermost_range(run, x.ranges),
               false,      x.queued_ns};
    per_device[x.device].push_back(i);
    per_queue[{x.process, x.device}][x.queue_id].push_back(std::move(i));
  }
  if (!run.launches.empty() && !any_timed) {
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
    const auto m = merged(std::move(v));
    if (m.size() < 2) continue;
    const int64_t span = m.back().end - m.front().begin;
    int64_t idle = 0, largest = 0, warmup = 0, latency = 0;
    uint64_t gaps = 0, warmups = 0, latencies = 0;
    size_t at = 0;
    for (size_t i = 1; i < m.size(); ++i) {
      const int64_t g = m[i].begin - m[i - 1].end;
      if (g < min_gap) continue;
      if (m[i].first) {
        warmup += g;
        ++warmups;
        continue;
      }
      if (m[i].queued != model::kNoTime && m[i].queued <= m[i - 1].end) {
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
    const auto& before = m[at - 1];
    const auto& after = m[at];
    f.evidence = util::count_of(gaps, "gap", "gaps") + " of at least " +
                 util::ns(static_cast<int64_t>(min_gap)) + " add up to " + util::ns(idle) +
                 " of the " + util::ns(span) +
                 " from the first command's start to the last one's end; "
                 "the largest, " +
                 util::ns(largest) + ", lies between " + before.what +
                 (before.range.empty() ? "" : " (in " + before.range + ")") + " and " + after.what +
                 (after.range.empty() ? "" : " (in " + after.range + ")") +
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
    f.subjects = {device_name(run, dev), before.what};
    if (after.what != before.what) f.subjects.push_back(after.what);  // clpeak: X then X
    if (!after.range.empty()) f.subjects.push_back(after.range);
    out.findings.push_back(std::move(f));
  }

  // queue-serialisation: per process and device, two or more queues with device work whose
  // busy stretches overlap by less than max_overlap of the smaller queues' busy time.
  // Impact: the busy time of all but the busiest queue, an upper bound (perfect overlap).
  const double max_overlap = t.get("queue-serialisation", "max_overlap");
  for (auto& [where, queues] : per_queue) {
    if (queues.size() < 2) continue;
    std::vector<std::pair<uint64_t, std::vector<Interval>>> m;
    for (auto& [q, v] : queues) m.emplace_back(q, merged(std::move(v)));
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
