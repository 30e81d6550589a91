// local-size-not-multiple and object-leak: facts the shim asks the driver for (kernel_device
// records, the end record's live counts; trace version 4). docs/advice.md.
#include <tuple>

#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"

namespace clprof::analyses::advice::rules {

void objects(const model::Run& run, const Commands& c, const Thresholds& t, Report& out) {
  // local-size-not-multiple: launches with an explicit local size whose work-group (the
  // product of its dimensions) is not a multiple of the kernel's preferred multiple on
  // that device. The last SIMD group of each work-group runs partly empty: impact is the
  // device time times the idle share round_up(wg, m) - wg over round_up(wg, m), an
  // estimate (the driver may pack work-groups, docs/advice.md). The launches were tallied
  // per (process, program, kernel, device, work-group) as they streamed (Commands).
  {
    const double min_share = t.get("local-size-not-multiple", "min_share");
    std::map<std::tuple<uint32_t, uint64_t, std::string, uint32_t>, const model::KernelDevice*>
        facts;
    for (const auto& k : run.kernel_devices)
      if (k.preferred_multiple && *k.preferred_multiple > 1)
        facts[{k.process, k.program_id, k.name, k.device}] = &k;
    const uint64_t explicit_lws = c.tallies.explicit_lws;
    uint64_t looked = 0, bad = 0;
    int64_t bad_ns = 0, all_ns = 0;
    double wasted = 0;
    bool all_timed = true;
    std::map<std::string, uint64_t> names;
    std::map<std::string, std::pair<uint64_t, std::string>> example;  // first file position
    for (const auto& [key, s] : c.tallies.local_sizes) {
      const auto& [process, program, name, device, wg] = key;
      auto it = facts.find({process, program, name, device});
      if (it == facts.end()) continue;
      looked += s.launches;
      all_ns += s.device_ns;
      const uint64_t m = *it->second->preferred_multiple;
      if (wg == 0 || wg % m == 0) continue;
      bad += s.launches;
      names[name] += s.launches;
      const uint64_t rounded = (wg + m - 1) / m * m;
      auto [e, fresh] = example.try_emplace(name, s.first, "");
      if (fresh || s.first < e->second.first)
        e->second = {s.first, "work-group " + std::to_string(wg) +
                                  " against a preferred multiple of " + std::to_string(m)};
      bad_ns += s.device_ns;
      wasted += static_cast<double>(s.device_ns) * static_cast<double>(rounded - wg) / rounded;
      if (s.untimed) all_timed = false;
    }
    if (explicit_lws > 0 && looked == 0 && run.kernel_devices.empty()) {
      out.not_evaluated.push_back(
          {"local-size-not-multiple",
           "the trace has no kernel_device records (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE; "
           "recorded from trace version 4)"});
    } else if (bad > 0) {
      Finding f;
      f.rule = "local-size-not-multiple";
      const bool heavy = all_ns > 0 && bad_ns >= min_share * all_ns;
      f.severity = heavy ? Severity::Warning : Severity::Info;
      f.title = util::count_of(bad, "launch", "launches") +
                " with a work-group that is not a multiple of the kernel's preferred size";
      std::string ex;
      for (const auto& k : util::top_names(names, 3))
        ex += (ex.empty() ? "" : "; ") + k + ": " + example[k].second;
      f.evidence = std::to_string(bad) + " of " + std::to_string(looked) +
                   " launches with an explicit local size (" + util::counted(names, 3) + "); " +
                   ex + "; their device time " + util::ns(bad_ns) + " (" +
                   util::percent(static_cast<double>(bad_ns), static_cast<double>(all_ns)) +
                   " of those launches')";
      f.advice =
          "Choose local sizes whose product is a multiple of "
          "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE for the kernel on the device (query it "
          "with clGetKernelWorkGroupInfo; 32 or 64 on most GPUs) and at most "
          "CL_KERNEL_WORK_GROUP_SIZE; round the global size up and guard the extra work-items.";
      if (bad_ns > 0 && all_timed) f.impact_ns = static_cast<int64_t>(wasted);
      f.subjects = util::top_names(names, 5);
      out.findings.push_back(std::move(f));
    }
  }

  // object-leak: the app's objects still alive when the trace ended (end.live), per
  // process. Warning when one kind has warning_count objects or more (a leak per
  // iteration, not a few objects a short program never freed), or its bytes reach
  // warning_bytes. No impact: a leak costs memory, not time.
  {
    const double warning_count = t.get("object-leak", "warning_count");
    const double warning_bytes = t.get("object-leak", "warning_bytes");
    bool any_known = false;
    for (const auto& p : run.processes) {
      if (!p.live_objects) continue;
      any_known = true;
      std::map<std::string, uint64_t> counts;
      for (const auto& [k, v] : *p.live_objects) counts[k] = v;
      std::string listed;
      std::vector<std::string> subjects;
      bool heavy = false;
      for (const auto& [k, v] : *p.live_objects) {
        if (v == 0 || (k.size() > 6 && k.compare(k.size() - 6, 6, "_bytes") == 0)) continue;
        // The kinds are plural ("programs"): one object reads "1 program".
        std::string item =
            std::to_string(v) + " " +
            (v == 1 && k.size() > 1 && k.back() == 's' ? k.substr(0, k.size() - 1) : k);
        const auto bytes = counts.find(k.substr(0, k.size() - 1) + "_bytes");
        if (bytes != counts.end() && bytes->second > 0) {
          item += " (" + output::format_bytes(bytes->second) + ")";
          heavy = heavy || static_cast<double>(bytes->second) >= warning_bytes;
        }
        heavy = heavy || static_cast<double>(v) >= warning_count;
        listed += (listed.empty() ? "" : ", ") + item;
        subjects.push_back(k);
      }
      if (listed.empty()) continue;
      Finding f;
      f.rule = "object-leak";
      f.severity = heavy ? Severity::Warning : Severity::Info;
      f.title = "OpenCL objects still alive at exit: " + listed;
      f.evidence = "the end record of process " + std::to_string(p.pid) +
                   " counts the objects the app made and did not release (its own references: "
                   "created, plus clRetain*, minus clRelease*): " +
                   listed;
      const auto events = counts.find("events");
      if (events == counts.end())
        f.evidence +=
            "; events not counted (the app released more events than the shim saw it get)";
      f.subjects = std::move(subjects);
      f.advice =
          "Release every object when done with it (clReleaseMemObject, clReleaseKernel, "
          "clReleaseEvent for each event an enqueue returned, ...), or use RAII wrappers (the "
          "C++ bindings' cl::Buffer); an object made per iteration and never released grows "
          "the device's memory until allocations fail.";
      out.findings.push_back(std::move(f));
    }
    if (!any_known)
      out.not_evaluated.push_back(
          {"object-leak",
           "the end record has no live counts (recorded from trace version 4, "
           "or the trace has no end record)"});
  }
}

}  // namespace clprof::analyses::advice::rules
