// device-idle and queue-serialisation: the device's timeline (docs/advice.md).
#include <set>
#include <tuple>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

namespace {

// What the rules say of a command that starts or ends a busy stretch.
struct Named {
  bool first = false;  // a kernel's first launch in its process (a lazy driver compiles it)
  int64_t queued = model::kNoTime;
  uint32_t name = 0;   // kernel or transfer api (Commands::names)
  uint64_t range = 0;  // innermost range id
};

// A timed command on its device's timeline, sorted by start (equal starts: launches, then
// transfers, each in file order).
struct DevRec {
  uint32_t device = 0;
  uint8_t kind = 0;  // 0 launch, 1 transfer
  int64_t start = 0, end = 0;
  uint64_t ordinal = 0;
  Named named;
};
struct DevLess {
  bool operator()(const DevRec& a, const DevRec& b) const {
    return std::tie(a.device, a.start, a.kind, a.ordinal) <
           std::tie(b.device, b.start, b.kind, b.ordinal);
  }
};

// A busy stretch: commands merged while they overlap (a command that starts at or before the
// stretch's end joins it), named by the command that starts it and by the first command to
// reach its final end (the last to extend it).
struct Stretch {
  int64_t begin = 0, end = 0;
  Named starts, ends;
};

// device-idle's sums over one device's gaps, fed its stretches in order.
struct Gaps {
  double min_gap = 0;
  uint64_t stretches = 0;
  int64_t first_begin = 0;
  Stretch prev;
  int64_t idle = 0, largest = 0, warmup = 0, latency = 0;
  uint64_t gaps = 0, warmups = 0, latencies = 0;
  Named before, after;  // the stretches around the largest gap: what ended them
  void see(const Stretch& s) {
    if (stretches++ == 0) {
      first_begin = s.begin;
      prev = s;
      return;
    }
    const int64_t g = s.begin - prev.end;
    const int64_t prev_end = prev.end;
    const Named prev_ends = prev.ends;
    prev = s;
    if (g < min_gap) return;
    if (s.starts.first) {
      warmup += g;
      ++warmups;
      return;
    }
    if (s.starts.queued != model::kNoTime && s.starts.queued <= prev_end) {
      latency += g;
      ++latencies;
      return;
    }
    idle += g;
    ++gaps;
    if (g > largest) {
      largest = g;
      before = prev_ends;
      after = s.ends;
    }
  }
};

// A queue's timed command, sorted per (process, device, queue) by start.
struct QueueRec {
  uint32_t process = 0, device = 0;
  uint64_t queue = 0;
  int64_t start = 0, end = 0;
  uint8_t kind = 0;
  uint64_t ordinal = 0;
};
struct QueueLess {
  bool operator()(const QueueRec& a, const QueueRec& b) const {
    return std::tie(a.process, a.device, a.queue, a.start, a.kind, a.ordinal) <
           std::tie(b.process, b.device, b.queue, b.start, b.kind, b.ordinal);
  }
};
// A queue's busy stretch, sorted per (process, device) by begin.
struct QueueStretch {
  uint32_t process = 0, device = 0;
  int64_t begin = 0, end = 0;
  uint64_t queue = 0;
};
struct StretchLess {
  bool operator()(const QueueStretch& a, const QueueStretch& b) const {
    return std::tie(a.process, a.device, a.begin, a.end, a.queue) <
           std::tie(b.process, b.device, b.begin, b.end, b.queue);
  }
};

std::string device_name(const model::Run& run, uint32_t id) {
  for (const auto& d : run.devices)
    if (d.id == id && !d.name.empty()) return d.name;
  return "device " + std::to_string(id);
}

}  // namespace

void device(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  if (c.tallies.launches > 0 && c.tallies.timed_launches == 0) {
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
  // counted gaps (what keeping the device fed would recover at most). The timed commands are
  // sorted per device by start (ExternalSort) and their stretches merged as they pass: the
  // state is one stretch and the gaps' sums per device.
  const double min_gap = t.get("device-idle", "min_gap_ns");
  const double share = t.get("device-idle", "share");
  const double warning_share = t.get("device-idle", "warning_share");
  auto finding = [&](uint32_t dev, const Gaps& m) {
    if (m.stretches < 2) return;
    const int64_t span = m.prev.end - m.first_begin;
    const int64_t idle = m.idle, largest = m.largest;
    const uint64_t gaps = m.gaps, warmups = m.warmups, latencies = m.latencies;
    const int64_t warmup = m.warmup, latency = m.latency;
    if (span <= 0 || gaps == 0 || idle < share * span) return;
    Finding f;
    f.rule = "device-idle";
    f.severity = idle >= warning_share * span ? Severity::Warning : Severity::Info;
    f.title = device_name(run, dev) + " idles " + util::percent(idle, span) + " of its busy span";
    // Each stretch is named by the last command to extend its end (its first when none did).
    const std::string& before_what = c.names[m.before.name];
    const std::string before_range = util::range_name(run, m.before.range);
    const std::string& after_what = c.names[m.after.name];
    const std::string after_range = util::range_name(run, m.after.range);
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
  };

  {
    ExternalSort<DevRec, DevLess> sorted;
    c.for_each_command([&](const CommandRec& r) {
      if (!r.timed()) return;
      sorted.push({r.device,
                   static_cast<uint8_t>(r.transfer),
                   r.start,
                   r.end,
                   r.ordinal,
                   {c.is_first(r), r.queued, r.name, r.range}});
    });
    bool open = false;
    uint32_t dev = 0;
    Stretch cur;
    Gaps gaps;
    sorted.for_each([&](const DevRec& r) {
      if (open && r.device != dev) {
        gaps.see(cur);
        finding(dev, gaps);
        open = false;
      }
      if (!open) {
        dev = r.device;
        gaps = Gaps();
        gaps.min_gap = min_gap;
      } else if (r.start <= cur.end) {
        if (r.end > cur.end) {
          cur.end = r.end;
          cur.ends = r.named;  // the last to end names the end of the busy stretch
        }
        return;
      } else {
        gaps.see(cur);
      }
      cur = {r.start, r.end, r.named, r.named};
      open = true;
    });
    if (open) {
      gaps.see(cur);
      finding(dev, gaps);
    }
  }

  // queue-serialisation: per process and device, two or more queues with device work whose
  // busy stretches overlap by less than max_overlap of the smaller queues' busy time.
  // Impact: the busy time of all but the busiest queue, an upper bound (perfect overlap).
  // Two sorted passes: each queue's commands by start, merged into stretches (their busy
  // time), then the stretches of each process and device by begin, where a stretch overlaps
  // those still running when it begins (at most one a queue): the sum over pairs of queues.
  const double max_overlap = t.get("queue-serialisation", "max_overlap");
  std::map<std::pair<uint32_t, uint32_t>, std::map<uint64_t, int64_t>> per_queue;  // busy ns
  std::map<std::pair<uint32_t, uint32_t>, int64_t> overlaps;
  // Only where a process has two queues or more with device work on one device (tallied as
  // the commands streamed): the sorts are skipped when none has.
  std::set<std::pair<uint32_t, uint32_t>> several;
  {
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> n;
    for (const auto& [p, d, q] : c.tallies.timed_queues)
      if (++n[{p, d}] == 2) several.insert({p, d});
  }
  if (!several.empty()) {
    ExternalSort<QueueStretch, StretchLess> stretches;
    {
      ExternalSort<QueueRec, QueueLess> sorted;
      c.for_each_command([&](const CommandRec& r) {
        if (!r.timed() || !several.count({c.process_of(r.thread), r.device})) return;
        sorted.push({c.process_of(r.thread), r.device, r.queue, r.start, r.end,
                     static_cast<uint8_t>(r.transfer), r.ordinal});
      });
      bool open = false;
      QueueStretch cur;
      auto close = [&] {
        per_queue[{cur.process, cur.device}][cur.queue] += cur.end - cur.begin;
        stretches.push(cur);
      };
      sorted.for_each([&](const QueueRec& r) {
        if (open && r.process == cur.process && r.device == cur.device && r.queue == cur.queue &&
            r.start <= cur.end) {
          cur.end = std::max(cur.end, r.end);
          return;
        }
        if (open) close();
        cur = {r.process, r.device, r.start, r.end, r.queue};
        open = true;
      });
      if (open) close();
    }
    std::vector<QueueStretch> running;
    stretches.for_each([&](const QueueStretch& s) {
      if (!running.empty() &&
          (running.front().process != s.process || running.front().device != s.device))
        running.clear();
      running.erase(std::remove_if(running.begin(), running.end(),
                                   [&](const QueueStretch& a) { return a.end <= s.begin; }),
                    running.end());
      int64_t& over = overlaps[{s.process, s.device}];
      for (const auto& a : running) {
        const int64_t hi = std::min(a.end, s.end);
        if (hi > s.begin) over += hi - s.begin;
      }
      running.push_back(s);
    });
  }
  for (const auto& [where, queues] : per_queue) {
    if (queues.size() < 2) continue;
    int64_t total = 0, largest = 0;
    const int64_t over = overlaps[where];
    for (const auto& [q, b] : queues) {
      add_to(total, b);
      largest = std::max(largest, b);
    }
    const int64_t smaller = total - largest;
    if (smaller <= 0 || over > max_overlap * smaller) continue;
    Finding f;
    f.rule = "queue-serialisation";
    f.severity = Severity::Info;
    f.title = std::to_string(queues.size()) + " queues on " + device_name(run, where.second) +
              " never run at the same time";
    std::string qs;
    for (const auto& [q, b] : queues) {
      qs +=
          (qs.empty() ? "" : ", ") + std::string("queue ") + std::to_string(q) + " " + util::ns(b);
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
