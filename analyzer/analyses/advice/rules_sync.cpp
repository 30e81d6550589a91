// sync-after-each-launch and blocking-transfer: the host waiting for the device between
// enqueues (docs/advice.md).
#include <set>

#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

void sync(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // Both rules read the host-order pass (util::host_order: each thread's launches, transfers
  // and syncs in host order, through a state machine per thread).
  const HostOrder& h = util::host_order(run, c);

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
    for (const auto& th : h.threads) {
      const uint64_t tl = th.launches, ts = th.synced;
      if (tl < min_launches || tl == 0 || static_cast<double>(ts) / tl < ratio) continue;
      launches += tl;
      synced += ts;
      add_to(sync_host, th.sync_host);
      timed_waits = timed_waits || th.timed_waits;
      add_to(idle, th.idle);
      idle_known = idle_known || th.idle_known;
      for (const auto& [k, n] : th.kernels) kernels[k] += n;
      for (const auto& [k, n] : th.apis) apis[k] += n;
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
    const uint64_t count = h.blocking, bytes = h.blocking_bytes;
    const int64_t host = h.blocking_host, waited = h.waited;
    const bool waited_known = h.waited_known;
    const auto& apis = h.blocking_apis;
    const auto& after = h.after;
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
