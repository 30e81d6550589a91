// repeated-build and build-dominates: program builds (docs/advice.md).
#include <tuple>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/stats.hpp"

namespace clprof::analyses::advice::rules {

namespace {

// Per process: first host begin to last host end of any record (ns), summed over processes.
int64_t wall_ns(const model::Run& run, const Commands& c) {
  // The launches' and transfers' spans were tallied as they streamed (Commands).
  std::map<uint32_t, std::pair<int64_t, int64_t>> span = c.tallies.spans;
  auto see = [&span](uint32_t p, int64_t b, int64_t e) { util::see_span(span, p, b, e); };
  for (const auto& s : run.syncs) see(s.process, s.host_begin_ns, s.host_end_ns);
  for (const auto& b : run.builds) see(b.process, b.host_begin_ns, b.host_end_ns);
  for (const auto& r : run.ranges) see(r.process, r.host_begin_ns, r.host_end_ns);
  // The ranges a streaming read folded (model::FoldedRanges), by the same rule.
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const auto s = run.folded_ranges.begun_span(p);
    see(p, s.begin_ns, s.end_ns);
  }
  int64_t total = 0;
  for (const auto& [p, s] : span) add_to(total, sub_ns(s.second, s.first));
  return total;
}

}  // namespace

void builds(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // repeated-build: builds of one process with the same source hash and options. Impact:
  // the time of every such build but the fastest (what building once would save).
  {
    const double min_builds = t.get("repeated-build", "min_builds");
    struct Group {
      uint64_t count = 0;
      int64_t total = 0, fastest = INT64_MAX;
      bool timed = false;
      std::vector<std::string> kernels;
    };
    std::map<std::tuple<uint32_t, std::string, std::string>, Group> groups;
    for (const auto& b : run.builds) {
      if (b.source_hash.empty() || b.api == "clLinkProgram") continue;
      auto& g = groups[{b.process, b.source_hash, b.options}];
      ++g.count;
      const int64_t d = util::host_duration(b.host_begin_ns, b.host_end_ns);
      if (d >= 0) {
        g.timed = true;
        add_to(g.total, d);
        g.fastest = std::min(g.fastest, d);
      }
      if (g.kernels.empty()) g.kernels = b.kernels;
    }
    for (const auto& [key, g] : groups) {
      if (g.count < 2 || g.count < min_builds) continue;
      const auto& [process, hash, options] = key;
      Finding f;
      f.rule = "repeated-build";
      f.severity = Severity::Warning;
      f.title = "one program source built " + std::to_string(g.count) + " times";
      f.evidence =
          "source " + hash + " with options '" + options + "' was built " +
          std::to_string(g.count) + " times" +
          (run.processes.size() > 1 ? " in process " + std::to_string(run.processes[process].pid)
                                    : std::string()) +
          (g.timed ? ", " + util::ns(g.total) + " in all (fastest " + util::ns(g.fastest) + ")"
                   : std::string(", untimed"));
      f.advice =
          "Build the program once and keep the cl_program (and its cl_kernel objects) for the "
          "life of the context; across runs, cache the binary (clGetProgramInfo "
          "CL_PROGRAM_BINARIES, then clCreateProgramWithBinary).";
      if (g.timed) f.impact_ns = g.total - g.fastest;
      f.subjects.push_back(hash);
      for (size_t i = 0; i < g.kernels.size() && i < 4; ++i) f.subjects.push_back(g.kernels[i]);
      out.findings.push_back(std::move(f));
    }
  }

  // build-dominates: builds' host time against the run's wall time. Impact: the build time,
  // an upper bound of what a binary cache saves (loading a binary is not free).
  {
    const double share = t.get("build-dominates", "share");
    const double min_ns = t.get("build-dominates", "min_ns");
    int64_t build = 0;
    uint64_t count = 0;
    bool timed = false;
    std::map<std::string, uint64_t> slow;
    for (const auto& b : run.builds) {
      const int64_t d = util::host_duration(b.host_begin_ns, b.host_end_ns);
      if (d < 0) continue;
      timed = true;
      add_to(build, d);
      ++count;
      slow[b.kernels.empty() ? "program " + std::to_string(b.program_id) : b.kernels.front()] += d;
    }
    const int64_t wall = wall_ns(run, c);
    if (!run.builds.empty() && !timed) {
      out.not_evaluated.push_back({"build-dominates", "no build has a host time"});
    } else if (wall > 0 && build >= min_ns && build >= share * wall) {
      Finding f;
      f.rule = "build-dominates";
      f.severity =
          build >= t.get("build-dominates", "warning_ns") ? Severity::Warning : Severity::Info;
      f.title = "program builds take " + util::percent(build, wall) + " of the wall time";
      f.evidence = util::count_of(count, "build", "builds") + " took " + util::ns(build) + " of " +
                   util::ns(wall) + " wall time (" + util::percent(build, wall) + ")";
      f.advice =
          "Cache program binaries between runs (clGetProgramInfo CL_PROGRAM_BINARIES, "
          "clCreateProgramWithBinary), build only the kernels the run uses, and build "
          "off the critical path (a thread, or at start-up before timing matters).";
      f.impact_ns = build;
      f.subjects = util::top_names(slow, 5);
      out.findings.push_back(std::move(f));
    }
  }
}

}  // namespace clprof::analyses::advice::rules
