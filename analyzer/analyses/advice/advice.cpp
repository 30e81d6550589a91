#include "analyses/advice/advice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice {

const char* severity_name(Severity s) {
  return s == Severity::Warning ? "warning" : "info";
}

std::optional<Severity> parse_severity(const std::string& text) {
  if (text == "info") return Severity::Info;
  if (text == "warning") return Severity::Warning;
  return std::nullopt;
}

const std::vector<RuleInfo>& rule_catalog() {
  auto rule = [](std::string id, std::string summary, std::vector<Threshold> thresholds) {
    return RuleInfo{std::move(id), std::move(summary), std::move(thresholds), true, ""};
  };
  static const std::vector<RuleInfo> all = {
      rule("sync-after-each-launch", "clFinish / clWaitForEvents right after most launches",
           {{"sync-after-each-launch.min_launches", 10,
             "launches a thread needs before the rule looks"},
            {"sync-after-each-launch.ratio", 0.5,
             "share of launches followed by a sync (0-1) that fires it"}}),
      rule(
          "blocking-transfer", "blocking reads and writes between launches",
          {{"blocking-transfer.min_count", 3, "blocking transfers between launches that fire it"}}),
      rule("launch-bound", "kernels shorter than their launch overhead: many tiny launches",
           {{"launch-bound.min_launches", 100, "tiny launches that fire it"},
            {"launch-bound.ratio", 0.5, "share of the launches (0-1) that must be tiny"},
            {"launch-bound.tiny_ns", 20000,
             "a launch is tiny when its device time is below this (ns) and below its enqueue's "
             "host time"}}),
      rule("repeated-build", "the same source and options built more than once",
           {{"repeated-build.min_builds", 2, "builds of one source and options that fire it"}}),
      rule(
          "build-dominates", "program builds take a large share of the wall time",
          {{"build-dominates.share", 0.2, "share of the wall time (0-1) in builds that fires it"},
           {"build-dominates.min_ns", 1000000, "build time (ns) below which it never fires"},
           {"build-dominates.warning_ns", 1000000000,
            "build time (ns) from which it is a warning (below: info; a short run is all build)"}}),
      rule("default-local-size",
           "NULL local work size (the runtime picks one), worst with a prime global size",
           {{"default-local-size.min_prime", 64,
             "a prime global size at least this makes it a warning"}}),
      rule("device-idle", "gaps where the device idles between commands",
           {{"device-idle.min_gap_ns", 100000, "gaps shorter than this (ns) are not counted"},
            {"device-idle.share", 0.25,
             "idle share of the device's span (0-1) that fires it (info)"},
            {"device-idle.warning_share", 0.5, "idle share (0-1) that makes it a warning"}}),
      rule("api-errors",
           "OpenCL calls that returned an error, worst when the app went on enqueueing", {}),
      rule(
          "transfer-bound", "transfers comparable to kernel time, or many small transfers",
          {{"transfer-bound.ratio", 0.5, "transfer device time / kernel device time that fires it"},
           {"transfer-bound.small_bytes", 65536, "a transfer below this many bytes is small"},
           {"transfer-bound.min_small", 100, "small transfers that fire the many-small finding"}}),
      rule("gemm-padding",
           "CLBlast's indirect GEMM: pad / copy / transpose kernels' share of the GEMM time",
           {{"gemm-padding.share", 0.2,
             "helper kernels' share (0-1) of the GEMM time that fires it"}}),
      rule("queue-serialisation", "several queues of one device whose work never overlaps",
           {{"queue-serialisation.max_overlap", 0.01,
             "overlap share (0-1) of the smaller queues' busy time below which queues count as "
             "serial"}}),
      rule("local-size-not-multiple",
           "local size not a multiple of the kernel's preferred work-group multiple",
           {{"local-size-not-multiple.min_share", 0.1,
             "share (0-1) of the explicit-local-size launches' device time that makes it a "
             "warning"}}),
      rule("object-leak", "OpenCL objects the app never released, alive at exit",
           {{"object-leak.warning_count", 100,
             "objects of one kind alive at exit that make it a warning"},
            {"object-leak.warning_bytes", 268435456,
             "bytes of memory objects of one kind alive at exit that make it a warning"}}),
      rule("rank-imbalance", "the slow rank of a parallel job, and the kernel that makes it slow",
           {{"rank-imbalance.share", 0.1,
             "imbalance (slowest - mean) / slowest (0-1) that fires it (info)"},
            {"rank-imbalance.warning_share", 0.25, "imbalance (0-1) that makes it a warning"}}),
      rule("gemm-below-peak", "GEMMs far below the device's peak (--peak or --peak-from)",
           {{"gemm-below-peak.share", 0.25, "share (0-1) of the peak below which it fires"},
            {"gemm-below-peak.min_ns", 1000000,
             "GEMM device time (ns) below which it never fires"}}),
      rule("local-size-sweep",
           "a stored clprof replay --sweep local found a verified local size faster than the "
           "app's",
           {{"local-size-sweep.min_speedup", 1.1, "app median / best median that fires it (info)"},
            {"local-size-sweep.warning_speedup", 1.5,
             "app median / best median that makes it a warning"}}),
  };
  return all;
}

Thresholds::Thresholds() {
  for (const auto& r : rule_catalog())
    for (const auto& t : r.thresholds) values_[t.key] = t.value;
}

void Thresholds::set(const std::string& spec) {
  const size_t eq = spec.find('=');
  const std::string key = spec.substr(0, eq);
  const size_t dot = key.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == key.size())
    throw std::invalid_argument("'" + spec +
                                "': expected RULE.KEY=VALUE (clprof advise --list-rules)");
  const std::string rule = key.substr(0, dot);
  const RuleInfo* info = nullptr;
  for (const auto& r : rule_catalog())
    if (r.id == rule) info = &r;
  if (!info)
    throw std::invalid_argument("'" + spec + "': no rule '" + rule +
                                "' (clprof advise --list-rules)");
  if (!values_.count(key)) {
    std::string keys;
    for (const auto& t : info->thresholds)
      keys += (keys.empty() ? "" : ", ") + t.key.substr(dot + 1);
    throw std::invalid_argument(
        "'" + spec + "': rule " + rule + " has no threshold '" + key.substr(dot + 1) + "'" +
        (keys.empty() ? std::string(" (it has none)") : " (it has " + keys + ")"));
  }
  const std::string text = spec.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw std::invalid_argument("'" + spec + "': expected a finite number >= 0, not '" + text +
                                "'");
  values_[key] = v;
}

double Thresholds::get(const std::string& rule, const std::string& key) const {
  return values_.at(rule + "." + key);
}

Report advise(const model::Run& run, const Thresholds& t,
              const std::vector<model::LocalSweep>& sweeps) {
  Commands c(t, t.peak_gflops().has_value());
  feed(run, c);
  return advise(run, c, t, sweeps);
}

Report advise(const model::Run& run, const Commands& c, const Thresholds& t,
              const std::vector<model::LocalSweep>& sweeps) {
  Report out;
  rules::sync(run, c, t, out);
  rules::launches(run, c, t, out);
  rules::builds(run, c, t, out);
  rules::device(run, c, t, out);
  rules::errors(run, c, t, out);
  rules::transfers(run, c, t, out);
  rules::gemm(run, c, t, out);
  rules::gemm_peak(run, c, t, out);
  rules::objects(run, c, t, out);
  rules::ranks(run, c, t, out);
  rules::local_size_sweep(run, c, sweeps, t, out);
  for (const auto& r : rule_catalog())
    if (!r.evaluated) out.not_evaluated.push_back({r.id, "needs " + r.missing});
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (a.impact_ns.has_value() != b.impact_ns.has_value())
                       return a.impact_ns.has_value();
                     if (a.impact_ns && *a.impact_ns != *b.impact_ns)
                       return *a.impact_ns > *b.impact_ns;
                     return a.severity > b.severity;
                   });
  return out;
}

namespace util {

namespace {

// One host-side command of a thread, as the host-order pass sorts it.
struct HostRec {
  uint32_t process = 0;
  uint8_t kind = 0;          // 0 launch, 1 transfer, 2 sync: the order of equal host begins
  bool first = false;        // launches: the kernel's first launch in its process
  bool blocking_rw = false;  // transfers
  uint64_t tid = 0;
  int64_t begin = 0;
  uint64_t ordinal = 0;  // file position among its kind (syncs: index into run.syncs)
  int64_t host_end = model::kNoTime, start = model::kNoTime, end = model::kNoTime;
  uint64_t bytes = 0;
  uint32_t name = 0;  // launches: kernel, transfers: api (Commands::names)
  uint32_t device = 0;
  int32_t rc = 0;
  bool has_device_times() const { return start != model::kNoTime && end != model::kNoTime; }
};

struct HostLess {
  bool operator()(const HostRec& a, const HostRec& b) const {
    return std::tie(a.process, a.tid, a.begin, a.kind, a.ordinal) <
           std::tie(b.process, b.tid, b.begin, b.kind, b.ordinal);
  }
};

// The rules' state for one thread, fed its events in host order.
struct ThreadPass {
  ThreadPass(HostOrder& o, const model::Run& r, const Commands& cs, uint32_t p, uint64_t tid)
      : out(o), run(r), c(cs), last_process(p), last_tid(tid) {}
  HostOrder& out;
  HostOrder::Thread t;
  const model::Run& run;
  const Commands& c;
  uint32_t last_process = 0;  // the thread this pass reads
  uint64_t last_tid = 0;
  // sync-after-each-launch: the previous event was this launch; a synced launch waiting for
  // the thread's next launch (the device idle between them).
  bool after_launch = false, waiting = false;
  HostRec last, synced;
  // blocking-transfer: a launch came; the blocking reads/writes since the last launch.
  bool launched = false;
  uint64_t pending = 0, pending_bytes = 0;
  int64_t pending_host = 0, pending_waited = 0;
  bool pending_known = false;
  std::map<std::string, uint64_t> pending_apis;
  // api-errors: the previous enqueue failed.
  bool failed = false;

  void see(const HostRec& e) {
    if (e.kind != 2) {  // an enqueue
      if (failed) ++out.ignored;
      failed = e.rc != 0;
    }
    if (e.kind == 0) {
      if (waiting) {  // the first launch after a synced one
        waiting = false;
        if (e.device == synced.device && synced.has_device_times() && e.has_device_times() &&
            !e.first) {
          t.idle_known = true;
          if (e.start > synced.end) add_to(t.idle, sub_ns(e.start, synced.end));
        }
      }
      ++t.launches;
      last = e;
      after_launch = true;
      if (launched) {
        out.blocking += pending;
        out.blocking_bytes += pending_bytes;
        for (const auto& [k, n] : pending_apis) out.blocking_apis[k] += n;
        add_to(out.blocking_host, pending_host);
        add_to(out.waited, pending_waited);
        out.waited_known = out.waited_known || pending_known;
        if (pending) ++out.after[c.names[e.name]];
      }
      pending = pending_bytes = 0;
      pending_host = pending_waited = 0;
      pending_known = false;
      pending_apis.clear();
      launched = true;
    } else if (e.kind == 2) {
      if (after_launch) {
        const auto& s = run.syncs[e.ordinal];
        ++t.synced;
        ++t.kernels[c.names[last.name]];
        ++t.apis[s.api];
        const int64_t d = host_duration(s.host_begin_ns, s.host_end_ns);
        if (d >= 0) {
          add_to(t.sync_host, d);
          t.timed_waits = true;
        }
        waiting = true;
        synced = last;
      }
      after_launch = false;
    } else {
      after_launch = false;
      if (launched && e.blocking_rw) {
        ++pending;
        pending_bytes += e.bytes;
        ++pending_apis[c.names[e.name]];
        const int64_t d = host_duration(e.begin, e.host_end);
        if (d > 0) add_to(pending_host, d);
        if (d >= 0 && e.start != model::kNoTime && e.end >= e.start) {
          pending_known = true;
          add_to(pending_waited, std::max<int64_t>(0, sub_ns(d, sub_ns(e.end, e.start))));
        }
      }
    }
  }
};

}  // namespace

const HostOrder& host_order(const model::Run& run, const Commands& c) {
  if (c.host_order_cache) return *c.host_order_cache;
  auto out = std::make_shared<HostOrder>();
  ExternalSort<HostRec, HostLess> sorted;
  c.for_each_command([&](const CommandRec& r) {
    if (r.host_begin == model::kNoTime) return;
    HostRec h;
    h.process = c.threads[r.thread].first;
    h.tid = c.threads[r.thread].second;
    h.kind = r.transfer ? 1 : 0;
    h.first = c.is_first(r);
    h.blocking_rw = r.blocking_rw;
    h.begin = r.host_begin;
    h.ordinal = r.ordinal;
    h.host_end = r.host_end;
    h.start = r.start;
    h.end = r.end;
    h.bytes = r.bytes;
    h.name = r.name;
    h.device = r.device;
    h.rc = r.rc;
    sorted.push(h);
  });
  for (size_t i = 0; i < run.syncs.size(); ++i) {
    const auto& s = run.syncs[i];
    if (s.host_begin_ns == model::kNoTime) continue;
    HostRec h;
    h.process = s.process;
    h.tid = s.tid;
    h.kind = 2;
    h.begin = s.host_begin_ns;
    h.ordinal = i;
    sorted.push(h);
  }
  std::unique_ptr<ThreadPass> pass;
  sorted.for_each([&](const HostRec& e) {
    if (!pass || pass->last_process != e.process || pass->last_tid != e.tid) {
      if (pass) out->threads.push_back(std::move(pass->t));
      pass = std::make_unique<ThreadPass>(*out, run, c, e.process, e.tid);
    }
    pass->see(e);
  });
  if (pass) out->threads.push_back(std::move(pass->t));
  c.host_order_cache = out;
  return *out;
}

std::string range_name(const model::Run& run, uint64_t id) {
  if (id == 0) return "";
  for (const auto& r : run.ranges)
    if (r.id == id) return r.name;
  if (const std::string* name = run.folded_ranges.name(id)) return *name;
  return "";
}

}  // namespace util

std::vector<const Finding*> new_findings(const Report& base, const Report& other) {
  std::vector<const Finding*> out;
  for (const auto& f : other.findings) {
    bool known = false;
    for (const auto& b : base.findings)
      known = known || (b.rule == f.rule && b.subjects == f.subjects);
    if (!known) out.push_back(&f);
  }
  return out;
}

}  // namespace clprof::analyses::advice
