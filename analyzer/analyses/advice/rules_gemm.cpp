// gemm-padding: CLBlast's indirect GEMM path (docs/advice.md).
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

namespace {

// CLBlast's pre/post-processing kernels of the indirect GEMM (analyses/gemm/gemm_groups.cpp).
bool is_helper(const std::string& n) {
  static const std::vector<std::string> bases = {"CopyPadMatrix", "TransposePadMatrix",
                                                 "CopyMatrix", "TransposeMatrix"};
  for (const auto& b : bases)
    if (n == b || n == b + "Batched" || n == b + "StridedBatched" || n == b + "Fast") return true;
  return false;
}

// The indirect path's GEMM kernels (XgemmDirect* runs without helpers: not counted).
bool is_gemm(const std::string& n) {
  return n == "Xgemm" || n == "XgemmBatched" || n == "XgemmStridedBatched";
}

}  // namespace

// Impact: the helper kernels' device time (what the direct path or pre-padded, pre-
// transposed matrices would save at most; the direct kernel can be slower per FLOP).
void gemm(const model::Run& run, const Thresholds& t, Report& out) {
  const double share = t.get("gemm-padding", "share");
  int64_t helper = 0, main = 0;
  uint64_t helpers = 0, mains = 0, untimed = 0;
  std::map<std::string, uint64_t> names;
  for (const auto& l : run.launches) {
    const bool h = is_helper(l.name), g = is_gemm(l.name);
    if (!h && !g) continue;
    const auto d = l.duration_ns();
    if (!d) {
      ++untimed;
      continue;
    }
    if (h) {
      add_to(helper, *d);
      ++helpers;
      names[l.name] += *d;
    } else {
      add_to(main, *d);
      ++mains;
    }
  }
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

}  // namespace clprof::analyses::advice::rules
