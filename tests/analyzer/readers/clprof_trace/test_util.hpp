// Helpers of the reader tests: temporary trace files and a small per-kernel Analysis.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis.hpp"
#include "model.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"

namespace clprof::test {

// A directory under $TMPDIR (or /tmp) removed with its files at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/clprof_reader_XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    for (const auto& f : files_) ::unlink(f.c_str());
    ::rmdir(path_.c_str());
  }
  // Writes `content` to a file called `name` in the directory and returns its path.
  std::string write(const std::string& name, const std::string& content) {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    files_.push_back(p);
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// What readers::load_run made of one file: the Run, its diagnostics, and the file's path
// (the warnings begin with it).
// A trace (or a part of one) from its lines: each line, then a newline.
inline std::string trace_lines(std::initializer_list<std::string_view> lines) {
  std::string out;
  for (std::string_view line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

struct Loaded {
  model::Run run;
  readers::Diagnostics diag;
  std::string path;
};

// Writes `content` to the file `name` of `dir` and loads it with readers::load_run
// (`format` "": detected). The file lives as long as `dir`. What load_run throws
// propagates.
inline Loaded load_text(TempDir& dir, const std::string& name, const std::string& content,
                        const std::string& format = "") {
  Loaded o;
  o.path = dir.write(name, content);
  readers::load_run({o.path}, format, o.run, o.diag);
  return o;
}

// Each warning with its first path.size() characters (the file's path) replaced by "FILE".
inline void name_file_in_warnings(readers::Diagnostics& diag, const std::string& path) {
  for (auto& w : diag.warnings) w.replace(0, path.size(), "FILE");
}

// Streaming with `threads` threads reading `chunk_bytes` at a time, each thread given
// some bytes however small the file: so that chunk and thread boundaries fall mid-line.
inline readers::detail::TraceStreamTuning small_chunks(unsigned threads, size_t chunk_bytes) {
  readers::detail::TraceStreamTuning tuning;
  tuning.threads = threads;
  tuning.chunk_bytes = chunk_bytes;
  tuning.min_bytes_per_thread = 1;
  return tuning;
}

// Per-kernel count, total and sorted durations plus transfer totals: enough to compare
// the streaming path with the in-memory path.
class KernelTotals : public Analysis {
 public:
  struct Row {
    uint64_t count = 0;
    int64_t total_ns = 0;
    std::vector<int64_t> durations_ns;
    uint64_t arg_value_sum = 0;  // of scalar args, to see the args survive streaming
    uint64_t range_id_sum = 0;
    uint64_t device_sum = 0;
    bool operator==(const Row& o) const {
      return count == o.count && total_ns == o.total_ns && durations_ns == o.durations_ns &&
             arg_value_sum == o.arg_value_sum && range_id_sum == o.range_id_sum &&
             device_sum == o.device_sum;
    }
  };
  void add_launch(const model::Launch& l) override {
    Row& r = rows[l.name];
    ++r.count;
    auto d = l.duration_ns();
    if (d) {
      r.total_ns += *d;
      r.durations_ns.insert(std::upper_bound(r.durations_ns.begin(), r.durations_ns.end(), *d), *d);
    }
    for (const auto& a : l.args) r.arg_value_sum += a.value;
    for (uint64_t id : l.ranges) r.range_id_sum += id;
    r.device_sum += l.device;
  }
  void add_transfer(const model::Transfer& t) override {
    ++transfers;
    transfer_bytes += t.bytes;
  }
  void merge(Analysis&& other) override {
    auto& o = static_cast<KernelTotals&>(other);
    for (auto& [name, row] : o.rows) {
      Row& r = rows[name];
      r.count += row.count;
      r.total_ns += row.total_ns;
      r.durations_ns.insert(r.durations_ns.end(), row.durations_ns.begin(), row.durations_ns.end());
      std::sort(r.durations_ns.begin(), r.durations_ns.end());
      r.arg_value_sum += row.arg_value_sum;
      r.range_id_sum += row.range_id_sum;
      r.device_sum += row.device_sum;
    }
    transfers += o.transfers;
    transfer_bytes += o.transfer_bytes;
  }
  std::map<std::string, Row> rows;
  uint64_t transfers = 0, transfer_bytes = 0;
};

inline AnalysisFactory kernel_totals_factory() {
  return [] { return std::unique_ptr<Analysis>(new KernelTotals); };
}

// What streaming one file into a KernelTotals made: the Run's metadata, the diagnostics,
// and the totals the launches and transfers were fed to.
struct Streamed {
  model::Run run;
  readers::Diagnostics diag;
  std::unique_ptr<Analysis> analysis;  // a KernelTotals
};

// Streams `path` with small_chunks(threads, chunk_bytes) into a KernelTotals. What the
// reader throws propagates.
inline Streamed stream_totals(const std::string& path, unsigned threads, size_t chunk_bytes) {
  Streamed s;
  s.analysis = readers::detail::stream_clprof_trace_file(
      path, s.run, kernel_totals_factory(), s.diag, small_chunks(threads, chunk_bytes));
  return s;
}

// Keeps a copy of every launch and transfer fed, in file order (the streaming path merges
// its threads' analyses in the order of their byte ranges).
class CollectAll : public Analysis {
 public:
  void add_launch(const model::Launch& l) override { launches.push_back(l); }
  void add_transfer(const model::Transfer& t) override { transfers.push_back(t); }
  void merge(Analysis&& other) override {
    auto& o = static_cast<CollectAll&>(other);
    launches.insert(launches.end(), o.launches.begin(), o.launches.end());
    transfers.insert(transfers.end(), o.transfers.begin(), o.transfers.end());
  }
  std::vector<model::Launch> launches;
  std::vector<model::Transfer> transfers;
};

inline AnalysisFactory collect_all_factory() {
  return [] { return std::unique_ptr<Analysis>(new CollectAll); };
}

}  // namespace clprof::test
