#include "analyses/api.hpp"
#include "analyses/stats.hpp"

#include <algorithm>

#include "analyses/cl_errors.hpp"

namespace clprof::analyses {

using model::kNoTime;

bool is_opencl_function(std::string_view name) {
  return name.size() > 2 && name[0] == 'c' && name[1] == 'l' && name[2] >= 'A' && name[2] <= 'Z';
}

ApiAnalysis::ApiAnalysis(GroupBy by, LaunchPredicate keep_launch)
    : by_(by), keep_launch_(std::move(keep_launch)) {}

void ApiAnalysis::add_call(uint32_t process, uint64_t tid, std::string_view function,
                           int64_t begin_ns, int64_t end_ns, int32_t rc) {
  auto& f = figures_[Key{group_key(by_, process, tid), std::string(function)}];
  ++f.calls;
  if (begin_ns != kNoTime && end_ns != kNoTime && end_ns >= begin_ns)
    f.durations_ns.add(end_ns - begin_ns);
  if (rc != 0) {
    ++f.errors;
    ++f.codes[rc];
  }
}

void ApiAnalysis::add_launch(const model::Launch& l) {
  if (!is_opencl_function(l.api) || (keep_launch_ && !keep_launch_(l))) return;
  add_call(l.process, l.tid, l.api, l.host_begin_ns, l.host_end_ns, l.rc);
}

void ApiAnalysis::add_transfer(const model::Transfer& t) {
  if (!is_opencl_function(t.api)) return;
  add_call(t.process, t.tid, t.api, t.host_begin_ns, t.host_end_ns, t.rc);
}

void ApiAnalysis::add_run_calls(const model::Run& run) {
  for (const auto& s : run.syncs)
    add_call(s.process, s.tid, s.api, s.host_begin_ns, s.host_end_ns, s.rc);
  // Build records carry no thread.
  for (const auto& b : run.builds)
    add_call(b.process, 0, b.api, b.host_begin_ns, b.host_end_ns, b.rc);
  for (const auto& c : run.api_calls)
    add_call(c.process, c.tid, c.name, c.host_begin_ns, c.host_end_ns, c.rc);
}

void ApiAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<ApiAnalysis&>(other);
  for (auto& [key, of] : o.figures_) {
    auto& f = figures_[key];
    f.calls += of.calls;
    f.durations_ns.merge(std::move(of.durations_ns));
    f.errors += of.errors;
    for (const auto& [rc, n] : of.codes) f.codes[rc] += n;
  }
  o.figures_.clear();
}

std::vector<ApiRow> api_rows(const ApiAnalysis& a) {
  std::vector<ApiRow> rows;
  int64_t total = 0;
  for (const auto& [key, f] : a.figures()) {
    ApiRow r;
    r.group = key.first;
    r.function = key.second;
    r.calls = f.calls;
    r.stats = f.durations_ns.stats();
    add_to(total, r.stats.total_ns);
    r.errors = f.errors;
    std::vector<std::pair<int32_t, uint64_t>> codes(f.codes.begin(), f.codes.end());
    std::stable_sort(codes.begin(), codes.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
    for (const auto& [rc, n] : codes)
      r.error_codes +=
          (r.error_codes.empty() ? "" : ", ") + cl_error_name(rc) + " x" + std::to_string(n);
    rows.push_back(std::move(r));
  }
  for (auto& r : rows)
    if (total > 0)
      r.percent = 100.0 * static_cast<double>(r.stats.total_ns) / static_cast<double>(total);
  std::stable_sort(rows.begin(), rows.end(), [](const ApiRow& x, const ApiRow& y) {
    if (!(x.group == y.group)) return x.group < y.group;
    if (x.stats.total_ns != y.stats.total_ns) return x.stats.total_ns > y.stats.total_ns;
    return x.function < y.function;
  });
  return rows;
}

}  // namespace clprof::analyses
