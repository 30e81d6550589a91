// clprof_bench_reader: reads clprof traces the way `clprof kernels` does (streaming, with
// a per-kernel aggregation) or the in-memory way (--load), and prints the per-kernel
// table plus throughput. It isolates the reader from the analyses and the output code.
// --general-path streams one trace with the launch/range scanner off, every record through
// simdjson (what the scanner saves: analyzer/readers/README.md).
//
//   clprof_bench_reader [--load | --general-path] [--threads N] TRACE...
#include <sys/stat.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "analysis.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"

namespace {

// Per-kernel count, total and every duration (for the median) - what pandas computes.
class PerKernel : public clprof::Analysis {
 public:
  struct Row {
    uint64_t count = 0;
    int64_t total_ns = 0;
    std::vector<int64_t> durations_ns;
  };
  void add_launch(const clprof::model::Launch& l) override {
    Row& r = row(l.name);
    ++r.count;
    if (auto d = l.duration_ns()) {
      r.total_ns += *d;
      r.durations_ns.push_back(*d);
    }
  }
  void merge(clprof::Analysis&& other) override {
    for (auto& [name, o] : static_cast<PerKernel&>(other).rows_) {
      Row& r = rows_[name];
      r.count += o.count;
      r.total_ns += o.total_ns;
      r.durations_ns.insert(r.durations_ns.end(), o.durations_ns.begin(), o.durations_ns.end());
    }
  }
  std::map<std::string, Row>& rows() { return rows_; }

 private:
  // The last row is cached: traces repeat kernels, and the lookup dominates otherwise.
  Row& row(const std::string& name) {
    if (last_ && last_name_ == name) return *last_;
    last_ = &rows_[name];
    last_name_ = name;
    return *last_;
  }
  std::map<std::string, Row> rows_;
  Row* last_ = nullptr;
  std::string last_name_;
};

double median(std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = static_cast<double>(v[mid]);
  if (v.size() % 2 == 0) {
    int64_t lower = *std::max_element(v.begin(), v.begin() + mid);
    m = (m + static_cast<double>(lower)) / 2;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  bool load = false, general_path = false;
  unsigned threads = 0;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--load"))
      load = true;
    else if (!std::strcmp(argv[i], "--general-path"))
      general_path = true;
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else
      paths.emplace_back(argv[i]);
  }
  if (paths.empty() || (general_path && (load || paths.size() != 1))) {
    std::fprintf(stderr,
                 "usage: clprof_bench_reader [--load | --general-path] [--threads N] TRACE...\n"
                 "       (--general-path: one TRACE)\n");
    return 2;
  }
  uint64_t bytes = 0;
  for (auto& p : paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) bytes += static_cast<uint64_t>(st.st_size);
  }
  auto t0 = std::chrono::steady_clock::now();
  clprof::model::Run run;
  clprof::readers::Diagnostics diag;
  PerKernel totals;
  try {
    if (load) {
      clprof::readers::load_run(paths, "", run, diag);
      clprof::feed(run, totals);
    } else if (general_path) {
      clprof::readers::detail::TraceStreamTuning tuning;
      tuning.threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
      tuning.fast_path = false;
      auto a = clprof::readers::detail::stream_clprof_trace_file(
          paths[0], run, [] { return std::unique_ptr<clprof::Analysis>(new PerKernel); }, diag,
          tuning);
      totals.merge(std::move(*a));
    } else {
      clprof::readers::StreamOptions options;
      options.threads = threads;
      auto a = clprof::readers::stream_clprof_traces(
          paths, run, [] { return std::unique_ptr<clprof::Analysis>(new PerKernel); }, diag,
          options);
      totals.merge(std::move(*a));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  for (auto& w : diag.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::printf("%-28s %10s %14s %12s\n", "kernel", "count", "total_ms", "median_us");
  uint64_t launches = 0;
  for (auto& [name, r] : totals.rows()) {
    launches += r.count;
    std::printf("%-28s %10llu %14.3f %12.3f\n", name.c_str(),
                static_cast<unsigned long long>(r.count), static_cast<double>(r.total_ns) / 1e6,
                median(r.durations_ns) / 1e3);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "%s: %llu bytes, %llu launches in %.3f s: %.1f MB/s\n",
               load           ? "load"
               : general_path ? "stream, general path"
                              : "stream",
               static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(launches), s,
               static_cast<double>(bytes) / s / 1e6);
  return 0;
}
