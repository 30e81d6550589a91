// api-errors: calls that returned an error (docs/advice.md).
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "analyses/cl_errors.hpp"

namespace clprof::analyses::advice::rules {

void errors(const model::Run& run, const Commands& c, const Thresholds&, Report& out) {
  // The launches' and transfers' errors were tallied as they streamed (Commands::add_launch).
  std::map<std::string, uint64_t> calls = c.tallies.error_calls;  // "clEnqueueNDRangeKernel CL_..."
  uint64_t count = c.tallies.errors, ignored = 0, failed_commands = c.tallies.failed_commands;
  std::map<std::string, uint64_t> subjects = c.tallies.error_subjects;
  auto note = [&](const std::string& api, int32_t rc, const std::string& subject) {
    ++count;
    ++calls[api + " " + cl_error_name(rc)];
    if (!subject.empty()) ++subjects[subject];
  };
  for (const auto& s : run.syncs)
    if (s.rc != 0) note(s.api, s.rc, "");
  for (const auto& b : run.builds)
    if (b.rc != 0) note(b.api, b.rc, b.kernels.empty() ? "" : b.kernels.front());
  for (const auto& a : run.api_calls)
    if (a.rc != 0) note(a.name, a.rc, "");

  // Ignored: a failed enqueue followed by another enqueue of the same thread (host order:
  // util::host_order).
  ignored = util::host_order(run, c).ignored;
  if (count == 0 && failed_commands == 0) return;
  Finding f;
  f.rule = "api-errors";
  f.severity = ignored > 0 || failed_commands > 0 ? Severity::Warning : Severity::Info;
  f.title = util::count_of(count, "OpenCL call", "OpenCL calls") + " returned an error";
  if (ignored > 0)
    f.title += ", " + std::to_string(ignored) +
               (ignored == 1 ? " enqueue failure was" : " enqueue failures were") +
               std::string(" followed by more enqueues");
  f.evidence = count ? util::counted(calls, 5) : std::string("no call returned an error");
  if (ignored > 0)
    f.evidence += "; " + std::to_string(ignored) +
                  " failed enqueues were followed by further enqueues of the same thread";
  if (failed_commands > 0)
    f.evidence += "; " + std::to_string(failed_commands) +
                  " enqueued commands ended with an error execution status";
  f.advice =
      "Check every call's return code (and errcode_ret) and stop or recover at the first "
      "failure: a failed enqueue did nothing, so what follows reads stale or undefined data. "
      "For build failures print CL_PROGRAM_BUILD_LOG (clprof builds shows it).";
  for (const auto& [c, n] : calls) f.subjects.push_back(c.substr(0, c.find(' ')));
  f.subjects.erase(std::unique(f.subjects.begin(), f.subjects.end()), f.subjects.end());
  for (const auto& k : util::top_names(subjects, 3)) f.subjects.push_back(k);
  out.findings.push_back(std::move(f));
}

}  // namespace clprof::analyses::advice::rules
