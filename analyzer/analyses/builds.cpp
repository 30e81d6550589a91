#include "analyses/builds.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "analyses/cl_errors.hpp"
#include "analyses/time_window.hpp"

namespace clprof::analyses {

using model::kNoTime;

std::vector<BuildRow> build_rows(const model::Run& run) {
  const RunClock clock(run);
  std::map<std::pair<uint32_t, uint64_t>, const model::Program*> programs;  // (process, id)
  for (const auto& p : run.programs) programs[{p.process, p.id}] = &p;      // the last record wins
  std::vector<BuildRow> rows;
  for (const auto& b : run.builds) {
    BuildRow r;
    r.process = b.process;
    r.pid = b.process < run.processes.size() ? run.processes[b.process].pid : 0;
    r.program_id = b.program_id;
    r.api = b.api;
    if (auto it = programs.find({b.process, b.program_id}); it != programs.end()) {
      const model::Program& p = *it->second;
      r.origin = p.origin;
      r.source_hash = p.source_hash;
      if (!p.source_hash.empty() || p.source_bytes) r.source_bytes = p.source_bytes;
      r.source_captured = !p.source.empty();
    }
    r.options = b.options;
    for (uint32_t d : b.devices) {
      const std::string name = d > 0 && d <= run.devices.size() ? run.devices[d - 1].name : "";
      r.devices.push_back(name.empty() ? "device " + std::to_string(d) : name);
    }
    r.start_ns = clock.at(b.process, b.host_begin_ns);
    if (b.host_begin_ns != kNoTime && b.host_end_ns != kNoTime && b.host_end_ns >= b.host_begin_ns)
      r.time_ns = b.host_end_ns - b.host_begin_ns;
    r.rc = b.rc;
    r.status = b.rc == 0 ? "ok" : cl_error_name(b.rc);
    r.kernels = b.kernels;
    if (!b.logs.empty()) {
      std::string log;
      for (size_t i = 0; i < b.logs.size(); ++i) {
        if (b.logs.size() > 1)
          log += "== " + (i < r.devices.size() ? r.devices[i] : "device " + std::to_string(i + 1)) +
                 " ==\n";
        log += b.logs[i];
        if (b.logs.size() > 1 && !log.empty() && log.back() != '\n') log += '\n';
      }
      r.log = std::move(log);
    }
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const BuildRow& a, const BuildRow& b) {
    if (a.process != b.process) return a.process < b.process;
    return a.start_ns.value_or(INT64_MIN) < b.start_ns.value_or(INT64_MIN);
  });
  return rows;
}

namespace {

uint64_t parse_id(std::string_view s, std::string_view spec) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos)
    throw std::invalid_argument("'" + std::string(spec) +
                                "' is not a program id (ID, or PID:ID with several processes)");
  return std::stoull(std::string(s));
}

}  // namespace

const model::Program& find_program(const model::Run& run, std::string_view spec) {
  const size_t colon = spec.find(':');
  std::optional<int64_t> pid;
  uint64_t id = 0;
  if (colon == std::string_view::npos) {
    id = parse_id(spec, spec);
  } else {
    pid = static_cast<int64_t>(parse_id(spec.substr(0, colon), spec));
    id = parse_id(spec.substr(colon + 1), spec);
  }
  std::vector<const model::Program*> found;
  for (const auto& p : run.programs) {
    if (p.id != id) continue;
    if (pid && (p.process >= run.processes.size() || run.processes[p.process].pid != *pid))
      continue;
    found.push_back(&p);
  }
  if (found.empty())
    throw std::invalid_argument("no program " + std::string(spec) +
                                " in the run (clprof builds lists them)");
  if (found.size() > 1) {
    std::string pids;
    for (const auto* p : found)
      if (p->process < run.processes.size())
        pids += (pids.empty() ? "" : ", ") + std::to_string(run.processes[p->process].pid);
    throw std::invalid_argument("program " + std::to_string(id) +
                                " is in several processes (pids " + pids +
                                "): give PID:" + std::to_string(id));
  }
  return *found.front();
}

}  // namespace clprof::analyses
