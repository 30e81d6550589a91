// sync-after-each-launch and blocking-transfer: the host waiting for the device between
// enqueues (docs/advice.md).
#include <set>

#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

using util::HostEvent;
using Kind = util::HostEvent::Kind;

void sync(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  const auto events = util::host_events(run, c);
  const std::vector<bool> first = util::first_launches(c);

  // sync-after-each-launch: per thread, a launch whose next host event is a clFinish or
  // clWaitForEvents is "synced". Impact: the host time in those waits — what the host loses
  // to them, and the most a fix saves: without the waits host and device work overlap, and
  // the wall shrinks by at most the time the host sat blocked. The evidence adds the device
  // idle from a synced launch's end to the next launch's start (device times; not after the
  // next kernel's first launch, whose wait is a lazy driver's compile): it includes the
  // host's own work between launches, which stays.
  {
    const double min_launches = t.get("sync-after-each-launch", "min_launches");
    const double ratio = t.get("sync-after-each-launch", "ratio");
    uint64_t launches = 0, synced = 0;
    int64_t sync_host = 0, idle = 0;
    bool timed_waits = false;
    bool idle_known = false;
    std::map<std::string, uint64_t> kernels, apis;
    for (const auto& [thread, v] : events) {
      uint64_t tl = 0, ts = 0;
      int64_t th = 0, ti = 0;
      bool tw = false;
      bool tk = false;
      std::map<std::string, uint64_t> tkernels, tapis;
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i].kind != Kind::Launch) continue;
        ++tl;
        if (i + 1 >= v.size() || v[i + 1].kind != Kind::Sync) continue;
        ++ts;
        const auto& l = c.launches[v[i].index];
        const auto& s = run.syncs[v[i + 1].index];
        ++tkernels[c.names[l.name]];
        ++tapis[s.api];
        const int64_t d = util::host_duration(s.host_begin_ns, s.host_end_ns);
        if (d >= 0) {
          add_to(th, d);
          tw = true;
        }
        // The next launch of this thread after the sync.
        for (size_t j = i + 2; j < v.size(); ++j) {
          if (v[j].kind != Kind::Launch) continue;
          const auto& n = c.launches[v[j].index];
          if (n.device == l.device && l.has_device_times() && n.has_device_times() &&
              !first[v[j].index]) {
            tk = true;
            if (n.start > l.end) add_to(ti, sub_ns(n.start, l.end));
          }
          break;
        }
      }
      if (tl < min_launches || tl == 0 || static_cast<double>(ts) / tl < ratio) continue;
      launches += tl;
      synced += ts;
      add_to(sync_host, th);
      timed_waits = timed_waits || tw;
      add_to(idle, ti);
      idle_known = idle_known || tk;
      for (const auto& [k, c] : tkernels) kernels[k] += c;
      for (const auto& [k, c] : tapis) apis[k] += c;
    }
    if (synced > 0) {
      Finding f;
      f.rule = "sync-after-each-launch";
      f.severity = Severity::Warning;
      f.title = std::to_string(synced) + " of " + std::to_string(launches) +
                " launches are followed by a wait before the next enqueue";
      f.evidence = std::to_string(synced) + " of " + std::to_string(launches) + " launches (" +
                   util::percent(synced, launches) + ") are followed at once by " +
                   util::counted(apis, 3) + "; the host spent " + util::ns(sync_host) +
                   " in those waits" +
                   (idle_known ? "; the device idled " + util::ns(idle) +
                                     " from each synced kernel's end to the next one's start"
                               : std::string("; no device times to say how long the device idled"));
      f.advice =
          "Enqueue the whole sequence on an in-order queue and wait once at the end (or on the "
          "last event): an in-order queue already runs the kernels one after another. Call "
          "clFlush where the host must wait for something else; keep clFinish for the point "
          "where the host reads results.";
      if (timed_waits) f.impact_ns = sync_host;
      f.subjects = util::top_names(kernels, 5);
      for (const auto& a : util::top_names(apis, 2)) f.subjects.push_back(a);
      out.findings.push_back(std::move(f));
    }
  }

  // blocking-transfer: blocking reads / writes with a launch of the same thread before and
  // after them. Impact: their host time beyond their own device transfer time (the wait
  // for the commands queued before them), where the device times are known.
  {
    const double min_count = t.get("blocking-transfer", "min_count");
    uint64_t count = 0, bytes = 0;
    int64_t host = 0, waited = 0;
    bool waited_known = false;
    std::map<std::string, uint64_t> apis, after;
    for (const auto& [thread, v] : events) {
      bool launched = false;
      std::vector<uint32_t> pending;  // blocking transfers since the last launch
      for (const auto& e : v) {
        if (e.kind == Kind::Launch) {
          if (launched)
            for (uint32_t i : pending) {
              const auto& x = c.transfers[i];
              ++count;
              bytes += x.bytes;
              ++apis[c.names[x.api]];
              const int64_t d = util::host_duration(x.host_begin, x.host_end);
              if (d > 0) add_to(host, d);
              if (d >= 0 && x.start != model::kNoTime && x.end >= x.start) {
                waited_known = true;
                add_to(waited, std::max<int64_t>(0, sub_ns(d, sub_ns(x.end, x.start))));
              }
            }
          if (launched && !pending.empty()) ++after[c.names[c.launches[e.index].name]];
          pending.clear();
          launched = true;
        } else if (e.kind == Kind::Transfer && launched) {
          const auto& x = c.transfers[e.index];
          if (x.blocking && x.read_write) pending.push_back(e.index);
        }
      }
    }
    if (count > 0 && count >= min_count) {
      Finding f;
      f.rule = "blocking-transfer";
      f.severity = Severity::Warning;
      f.title = util::count_of(count, "blocking read/write", "blocking reads/writes") +
                " between launches";
      f.evidence =
          std::to_string(count) + " blocking transfers (" + util::counted(apis, 3) + ", " +
          output::format_bytes(bytes) + ") sit between launches; the host spent " + util::ns(host) +
          " in them" +
          (waited_known ? ", " + util::ns(waited) + " of it beyond the transfers' own device time"
                        : std::string());
      f.advice =
          "Pass CL_FALSE (non-blocking) and wait on the transfer's event only where the host "
          "touches the data; keep data the next kernel needs on the device instead of reading "
          "it back each iteration; double-buffer so a transfer overlaps the next kernel.";
      if (waited_known) f.impact_ns = waited;
      f.subjects = util::top_names(apis, 3);
      for (const auto& k : util::top_names(after, 3)) f.subjects.push_back(k);
      out.findings.push_back(std::move(f));
    }
  }
}

}  // namespace clprof::analyses::advice::rules
