#include "output/views/timeline_tracks.hpp"

#include <algorithm>

#include "output/views/json_text.hpp"

namespace clprof::output::views {

namespace {

constexpr uint64_t kFirstSyntheticTid = 1u << 30;

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string process_name(const model::Process& p) {
  std::string name;
  if (!p.command_line.empty() && !p.command_line[0].empty())
    name = base_name(p.command_line[0]);
  else if (!p.source.empty())
    name = base_name(p.source);
  else
    name = "process";
  if (p.source_format != "clprof-trace" && !p.source_format.empty())
    name += " [" + p.source_format + "]";
  if (p.pid > 0) name += " (pid " + std::to_string(p.pid) + ")";
  return name;
}

void metadata_event(std::vector<std::string>& events, const char* what, uint32_t pid,
                    const uint32_t* tid, const char* arg, const std::string* text, int64_t number) {
  std::string out = "{\"ph\":\"M\",\"ts\":0,\"pid\":";
  out += std::to_string(pid);
  if (tid) {
    out += ",\"tid\":";
    out += std::to_string(*tid);
  }
  out += ",\"name\":\"";
  out += what;
  out += "\",\"args\":{\"";
  out += arg;
  out += "\":";
  if (text)
    append_json_string(out, *text);
  else
    out += std::to_string(number);
  out += "}}";
  events.push_back(std::move(out));
}

}  // namespace

TimelineTracks::TimelineTracks(const model::Run& run) : run_(run) {
  // A process keeps its pid unless another process of the run has it too (traces of two
  // machines) or it does not fit Chrome's 32-bit pids; those get numbers from 2^30 up.
  std::map<int64_t, int> count;
  for (const auto& p : run.processes) ++count[p.pid];
  uint32_t next = 1u << 30;
  for (const auto& p : run.processes) {
    const bool own =
        p.pid > 0 && p.pid < static_cast<int64_t>(kFirstSyntheticTid) && count[p.pid] == 1;
    pids_.push_back(own ? static_cast<uint32_t>(p.pid) : next++);
  }
}

uint32_t TimelineTracks::pid(uint32_t process) const {
  return process < pids_.size() ? pids_[process] : (1u << 30) - 1;
}

uint32_t TimelineTracks::host_thread(uint32_t process, uint64_t tid) {
  auto [it, fresh] = tracks_.try_emplace({process, "thread:" + std::to_string(tid)});
  Track& t = it->second;
  if (!fresh) return t.tid;
  if (tid == 0 || tid >= kFirstSyntheticTid) {
    t.tid = synthetic_tid();
    t.group = static_cast<int>(Group::Unknown);
    t.name = tid == 0 ? "thread not recorded" : "thread " + std::to_string(tid);
  } else {
    t.tid = static_cast<uint32_t>(tid);
    t.group = static_cast<int>(Group::HostThread);
    const bool main =
        process < run_.processes.size() && run_.processes[process].pid == static_cast<int64_t>(tid);
    t.name = (main ? "main thread " : "thread ") + std::to_string(tid);
  }
  t.order = static_cast<int64_t>(tid);
  return t.tid;
}

uint32_t TimelineTracks::named(uint32_t process, const std::string& key, const std::string& name,
                               Group group) {
  auto [it, fresh] = tracks_.try_emplace({process, "named:" + key});
  Track& t = it->second;
  if (fresh) {
    t.tid = synthetic_tid();
    t.name = name;
    t.group = static_cast<int>(group);
  }
  return t.tid;
}

uint32_t TimelineTracks::lane(uint32_t process, const std::string& key, const std::string& name,
                              int64_t order, int64_t begin, int64_t end) {
  auto [it, fresh] = tracks_.try_emplace({process, "device:" + key});
  Track& t = it->second;
  if (fresh) {
    t.name = name;
    t.group = static_cast<int>(Group::Device);
    t.order = order;
  }
  for (auto& [tid, latest_end] : t.lanes) {
    if (latest_end <= begin) {
      latest_end = std::max(latest_end, end);
      return tid;
    }
  }
  t.lanes.emplace_back(synthetic_tid(), end);
  return t.lanes.back().first;
}

void TimelineTracks::clear_lanes(uint32_t process) {
  for (auto& [key, t] : tracks_)
    if (key.first == process)
      for (auto& lane : t.lanes) lane.second = INT64_MIN;
}

size_t TimelineTracks::lanes_used() const {
  size_t n = 0;
  for (const auto& [key, t] : tracks_) n += t.lanes.size();
  return n;
}

std::vector<std::string> TimelineTracks::metadata_events() const {
  std::vector<std::string> out;
  for (uint32_t p = 0; p < run_.processes.size(); ++p) {
    const std::string name = process_name(run_.processes[p]);
    metadata_event(out, "process_name", pid(p), nullptr, "name", &name, 0);
    metadata_event(out, "process_sort_index", pid(p), nullptr, "sort_index", nullptr, p);
  }
  for (const auto& [key, t] : tracks_) {
    const uint32_t p = pid(key.first);
    // Host threads in tid order, then the other groups; within a device track its lanes.
    const int64_t base =
        static_cast<int64_t>(t.group) * 100000000 + std::min<int64_t>(t.order, 1000000) * 64;
    if (t.lanes.empty()) {
      metadata_event(out, "thread_name", p, &t.tid, "name", &t.name, 0);
      metadata_event(out, "thread_sort_index", p, &t.tid, "sort_index", nullptr, base);
      continue;
    }
    for (size_t i = 0; i < t.lanes.size(); ++i) {
      const std::string name = i == 0 ? t.name : t.name + " #" + std::to_string(i + 1);
      metadata_event(out, "thread_name", p, &t.lanes[i].first, "name", &name, 0);
      metadata_event(out, "thread_sort_index", p, &t.lanes[i].first, "sort_index", nullptr,
                     base + static_cast<int64_t>(std::min<size_t>(i, 63)));
    }
  }
  return out;
}

}  // namespace clprof::output::views
