// gemm-padding: CLBlast's indirect GEMM path; gemm-below-peak: GEMMs far below the peak
// given with --peak / --peak-from (docs/advice.md).
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/gemm/gemm.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

// Impact: the helper kernels' device time (what the direct path or pre-padded, pre-
// transposed matrices would save at most; the direct kernel can be slower per FLOP).
void gemm(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // Tallied as the launches streamed (Commands::add_launch).
  const double share = t.get("gemm-padding", "share");
  const auto& tl = c.tallies;
  const int64_t helper = tl.helper_ns, main = tl.gemm_ns;
  const uint64_t helpers = tl.helpers, mains = tl.gemms, untimed = tl.gemm_untimed;
  const auto& names = tl.helper_names;
  if (helpers + mains == 0) {
    if (untimed)
      out.not_evaluated.push_back({"gemm-padding", "CLBlast's kernels have no device times"});
    return;
  }
  const int64_t total = add_ns(helper, main);
  if (helpers == 0 || total <= 0 || helper < share * total) return;
  Finding f;
  f.rule = "gemm-padding";
  f.severity = Severity::Warning;
  f.title = "CLBlast's pad/copy/transpose kernels take " + util::percent(helper, total) +
            " of the GEMM time";
  f.evidence = std::to_string(helpers) + " helper launches took " + util::ns(helper) + " against " +
               std::to_string(mains) + " Xgemm launches' " + util::ns(main) + " (" +
               util::percent(helper, total) + " of " + util::ns(total) +
               "); by kernel: " + util::timed(names, 4);
  f.advice =
      "Make CLBlast take its direct path (XgemmDirect, no copies): small or odd shapes go "
      "there below its XGEMM_MIN_INDIRECT_SIZE tuning parameter, which clblast::OverrideParameters "
      "can raise; or store the matrices padded to the kernel's tile multiples and in the layout "
      "it wants (no transposes), or batch the small GEMMs (GemmBatched) so one copy serves many.";
  f.impact_ns = helper;
  f.subjects = util::top_names(names, 4);
  out.findings.push_back(std::move(f));
}

// gemm-below-peak: the run's GEMM calls as `clprof gemm` decodes them (its rule table, its
// FLOPs: 2*M*N*K*batch), against the peak. Fires when the calls of known size and time
// reach less than `share` of the peak together. Impact: their device time minus the time
// the same FLOPs take at `share` of the peak (what reaching the threshold would save).
void gemm_peak(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  const auto peak = t.peak_gflops();
  if (!peak) {
    out.not_evaluated.push_back(
        {"gemm-below-peak", "the device's peak: give --peak GFLOPS or --peak-from CLPEAK_OUTPUT"});
    return;
  }
  const double share = t.get("gemm-below-peak", "share");
  const double min_ns = t.get("gemm-below-peak", "min_ns");
  // Decoded as the launches streamed (Commands::gemm, made when the peak is given).
  if (!c.gemm) return;
  const GemmResult g = finish_gemm(*c.gemm, run, *peak);
  double flop = 0;
  int64_t ns = 0;
  uint64_t calls = 0, unsized = 0;
  std::map<std::string, uint64_t> names;
  for (const auto& r : g.records) {
    const auto& s = g.shape(r);
    const auto time = g.time_ns(r);
    if (!s.flops || !time || *time <= 0) {
      ++unsized;
      continue;
    }
    ++calls;
    flop += *s.flops;
    ns += *time;
    names[g.names[s.name_id]] += static_cast<uint64_t>(*time);
  }
  if (calls == 0) {
    if (g.calls > 0)
      out.not_evaluated.push_back(
          {"gemm-below-peak", std::to_string(g.calls) +
                                  " GEMM calls, none with both a decoded size and device times"});
    return;
  }
  const double gflops = flop / static_cast<double>(ns);  // FLOP per ns = GFLOPS
  if (gflops >= share * *peak || static_cast<double>(ns) < min_ns) return;
  Finding f;
  f.rule = "gemm-below-peak";
  f.severity = Severity::Warning;
  f.title = "GEMMs reach " + output::format_general(gflops) + " GFLOPS, " +
            util::percent(gflops, *peak) + " of the " + output::format_general(*peak) +
            " GFLOPS peak";
  f.evidence = std::to_string(calls) +
               " GEMM calls of known size: " + output::format_general(flop / 1e9) + " GFLOP in " +
               util::ns(ns) + " of device time (" + output::format_general(gflops) +
               " GFLOPS, below " + util::percent(share, 1) +
               " of the peak); by kernel: " + util::timed(names, 4) +
               (unsized ? "; " + std::to_string(unsized) + " more calls of unknown size or time"
                        : std::string());
  f.advice =
      "Tune the GEMM for the device (CLBlast's tuners, or a kernel with register and local-memory "
      "tiling), batch the small GEMMs (GemmBatched) so that each launch has enough work, and "
      "pad or reshape the matrices to the kernel's tile multiples; see clprof gemm --group for "
      "the shapes that fall furthest below the peak.";
  const double target_ns = flop / (share * *peak);
  if (static_cast<double>(ns) > target_ns) f.impact_ns = ns - static_cast<int64_t>(target_ns);
  f.subjects = util::top_names(names, 4);
  out.findings.push_back(std::move(f));
}

}  // namespace clprof::analyses::advice::rules
