// launch-bound and default-local-size: how kernels are launched (docs/advice.md).
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"

namespace clprof::analyses::advice::rules {

namespace {

struct Less64 {
  bool operator()(int64_t a, int64_t b) const { return a < b; }
};

// The lower median (a figure of the trace) of `value` over the launches `c` keeps that
// `pick` accepts, sorted through an ExternalSort (bounded memory whatever their number); 0
// when none.
template <typename Pick, typename Value>
int64_t median(const Commands& c, Pick pick, Value value) {
  ExternalSort<int64_t, Less64> sorted;
  c.for_each_command([&](const CommandRec& r) {
    if (pick(r)) sorted.push(value(r));
  });
  const uint64_t n = sorted.size();
  if (n == 0) return 0;
  const uint64_t mid = (n - 1) / 2;
  uint64_t i = 0;
  int64_t out = 0;
  sorted.for_each([&](int64_t v) {
    if (i++ == mid) out = v;
  });
  return out;
}

}  // namespace

void launches(const model::Run&, const Commands& c, const Thresholds& t, Report& out) {
  // launch-bound: a tiny launch runs shorter on the device than tiny_ns and than its own
  // enqueue call took on the host. Impact: the host time of the tiny launches' enqueues
  // (what fusing or batching them would stop paying), an upper bound.
  {
    const double min_launches = t.get("launch-bound", "min_launches");
    const double ratio = t.get("launch-bound", "ratio");
    const double tiny_ns = t.get("launch-bound", "tiny_ns");
    // Tallied as the launches streamed (Commands::add_launch, tiny_ns applied there); the
    // medians are sorted here, when the rule fires.
    const auto& tl = c.tallies;
    const uint64_t timed = tl.lb_timed, tiny = tl.lb_tiny;
    const int64_t tiny_enqueue = tl.lb_tiny_enqueue, first = tl.lb_first, last = tl.lb_last;
    const auto& names = tl.lb_names;
    auto is_timed = [](const CommandRec& r) {
      return !r.transfer && r.duration != model::kNoTime &&
             util::host_duration(r.host_begin, r.host_end) >= 0;
    };
    if (tl.launches > 0 && timed == 0) {
      out.not_evaluated.push_back(
          {"launch-bound", "no launch has both device times and an enqueue host time"});
    } else if (tiny > 0 && tiny >= min_launches && static_cast<double>(tiny) / timed >= ratio) {
      Finding f;
      f.rule = "launch-bound";
      f.severity = Severity::Warning;
      f.title = std::to_string(tiny) + " launches run shorter than their launch overhead";
      const int64_t span = last - first;
      const std::string rate =
          span > 0
              ? output::format_general(1e9 * static_cast<double>(timed - 1) / span) + " launches/s"
              : std::string("-");
      f.evidence =
          std::to_string(tiny) + " of " + std::to_string(timed) + " timed launches (" +
          util::percent(tiny, timed) + ") run under " + util::ns(static_cast<int64_t>(tiny_ns)) +
          " on the device and under their enqueue's host time; median device time " +
          util::ns(median(c, is_timed, [](const CommandRec& r) { return r.duration; })) +
          ", median enqueue " +
          util::ns(median(
              c, is_timed,
              [](const CommandRec& r) { return util::host_duration(r.host_begin, r.host_end); })) +
          ", enqueue rate " + rate + "; most often " + util::counted(names, 3);
      f.advice =
          "Give each launch more work: fuse consecutive small kernels, process several items "
          "per work-item or batch the calls (one launch over the whole batch); a launch costs "
          "the host and the driver about the same whatever its size.";
      f.impact_ns = tiny_enqueue;
      f.subjects = util::top_names(names, 5);
      out.findings.push_back(std::move(f));
    }
  }

  // default-local-size: launches with a NULL local size. A global size that is a prime of
  // at least min_prime leaves the runtime only work-groups of 1 or of that prime: warning.
  {
    // Tallied as the launches streamed (Commands::add_launch, min_prime applied there).
    const double min_prime = t.get("default-local-size", "min_prime");
    const auto& tl = c.tallies;
    const uint64_t null_lws = tl.null_lws, prime = tl.prime, total = tl.ndrange;
    const auto& names = tl.null_names;
    const auto& prime_names = tl.prime_names;
    const auto& prime_gws = tl.prime_gws;
    auto add = [&](Severity sev, uint64_t n, const std::map<std::string, uint64_t>& which,
                   bool primes) {
      Finding f;
      f.rule = "default-local-size";
      f.severity = sev;
      f.title = primes ? util::count_of(n, "launch", "launches") +
                             " with a NULL local size and a prime global size"
                       : util::count_of(n, "launch", "launches") + " with a NULL local size";
      f.evidence = "local_work_size NULL in " + std::to_string(n) + " of " +
                   util::count_of(total, "NDRange launch", "NDRange launches") + " (" +
                   util::counted(which, 3) + ")";
      if (primes) {
        std::string g;
        for (const auto& k : util::top_names(which, 3))
          g += (g.empty() ? "" : ", ") + k + " " + prime_gws.at(k);
        f.evidence += "; global sizes with a prime of at least " +
                      std::to_string(static_cast<uint64_t>(min_prime)) + ": " + g +
                      ", so the runtime can only pick work-groups of 1 or of the whole prime";
      }
      f.advice = primes ? "Round the global size up to a multiple of a work-group size you choose "
                          "(64 or 128, or CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) and guard "
                          "the extra work-items with an `if (gid < n)` in the kernel; pass that "
                          "local size explicitly."
                        : "Pass a local size chosen for the kernel (a multiple of "
                          "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, tuned per device) instead "
                          "of NULL, or at least check what the runtime picks on each target.";
      f.subjects = util::top_names(which, 5);
      out.findings.push_back(std::move(f));
    };
    if (prime > 0) add(Severity::Warning, prime, prime_names, true);
    if (null_lws > prime) {
      std::map<std::string, uint64_t> rest = names;
      for (const auto& [k, c] : prime_names)
        if ((rest[k] -= c) == 0) rest.erase(k);
      add(Severity::Info, null_lws - prime, rest, false);
    }
  }
}

}  // namespace clprof::analyses::advice::rules
