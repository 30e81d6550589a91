#include "readers/load.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <numeric>
#include <thread>
#include <utility>

#include "clprof/trace_schema.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/consistency.hpp"

namespace clprof::readers {
namespace {

constexpr size_t kSniffBytes = size_t{64} << 10;

[[noreturn]] void throw_os_error(const std::string& path, const char* what, int err) {
  throw InputError(path, 0, 0, std::string(what) + ": " + std::strerror(err));
}

// A read-only view of a whole file: mmap'd (the in-memory path touches every byte once,
// so the page cache serves it without a copy); empty files need no mapping.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    uint64_t size_bytes = 0;
    int fd = open_regular_file(path, size_bytes);
    size_ = static_cast<size_t>(size_bytes);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int err = errno;
        ::close(fd);
        throw_os_error(path, "cannot map", err);
      }
      data_ = static_cast<const char*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view view() const { return {data_ ? data_ : "", size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

std::string read_head(const std::string& path) {
  // The same checks as the readers themselves: a pipe would be consumed by sniffing.
  uint64_t size_bytes = 0;
  int fd = open_regular_file(path, size_bytes);
  std::string head(kSniffBytes, '\0');
  size_t got = 0;
  while (got < head.size()) {
    ssize_t r = ::read(fd, head.data() + got, head.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw_os_error(path, "cannot read", err);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  ::close(fd);
  head.resize(got);
  return head;
}

std::string known_formats() {
  std::string out;
  for (const Reader* r : all_readers()) {
    if (!out.empty()) out += ", ";
    out += r->name();
  }
  return out;
}

bool is_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  return true;
}

// The same file given twice (by any name: links, ./x and x) would count twice.
void reject_repeated_files(const std::vector<std::string>& paths) {
  std::vector<std::pair<dev_t, ino_t>> ids;
  for (size_t i = 0; i < paths.size(); ++i) {
    struct stat st;
    if (::stat(paths[i].c_str(), &st) != 0) {
      ids.emplace_back(0, 0);  // the reader says why it cannot be read
      continue;
    }
    for (size_t j = 0; j < ids.size(); ++j)
      if (ids[j] == std::make_pair(st.st_dev, st.st_ino))
        throw InputError(paths[i], 0, 0, "the same file as " + paths[j] + ": give each input once");
    ids.emplace_back(st.st_dev, st.st_ino);
  }
}

// The value of setting `name` in a trace's header, "" if absent.
std::string_view setting(const model::Process& p, std::string_view name) {
  for (const auto& [k, v] : p.settings)
    if (k == name) return v;
  return {};
}

// Whether two processes' traces come from one recorded run: the same session id; parent
// and child on one host (a child whose environment lost the session id); or, when one
// has no session id (trace version 1), one exec'd from the other (the same pid) or the
// same CLPROF_ROOT_PID on one host.
bool same_run(const model::Process& a, const model::Process& b) {
  const bool sessions = !a.session_id.empty() && !b.session_id.empty();
  if (sessions && a.session_id == b.session_id) return true;
  if (a.host_name != b.host_name) return false;
  if (a.ppid == b.pid || b.ppid == a.pid) return true;
  if (sessions) return false;
  if (a.pid == b.pid) return true;
  const std::string_view root_a = setting(a, "CLPROF_ROOT_PID");
  return !root_a.empty() && root_a != "0" && root_a == setting(b, "CLPROF_ROOT_PID");
}

std::string describe(const model::Process& p) {
  std::string out = "pid " + std::to_string(p.pid);
  if (!p.session_id.empty()) out += ", session " + printable(p.session_id, 64);
  return out;
}

}  // namespace

void check_related(const model::Run& run, size_t first, const LoadOptions& options) {
  std::vector<size_t> traces;
  for (size_t i = first; i < run.processes.size(); ++i)
    if (run.processes[i].source_format == trace::kFormatName) traces.push_back(i);
  for (size_t x = 0; x < traces.size(); ++x)
    for (size_t y = 0; y < x; ++y) {
      const model::Process& a = run.processes[traces[y]];
      const model::Process& b = run.processes[traces[x]];
      if (a.pid == b.pid && a.start_unix_ns == b.start_unix_ns && a.host_name == b.host_name)
        throw InputError(b.source, 0, 0,
                         "the trace of the same process as " + a.source + " (pid " +
                             std::to_string(b.pid) + ", same start time): give each trace once");
    }
  if (options.allow_unrelated || traces.size() < 2) return;
  // Processes linked pairwise by same_run must form one group (union-find).
  std::vector<size_t> parent(traces.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  auto root = [&](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t x = 0; x < traces.size(); ++x)
    for (size_t y = 0; y < x; ++y)
      if (same_run(run.processes[traces[y]], run.processes[traces[x]])) parent[root(x)] = root(y);
  for (size_t x = 1; x < traces.size(); ++x) {
    if (root(x) == root(0)) continue;
    const model::Process& a = run.processes[traces[0]];
    const model::Process& b = run.processes[traces[x]];
    throw InputError(b.source, 0, 0,
                     "not from the same recorded run as " + a.source + " (" + describe(b) + "; " +
                         describe(a) +
                         "): give the traces of one run together, or --merge to combine "
                         "unrelated runs");
  }
}

bool is_clprof_trace(std::string_view head) {
  return clprof_trace_reader().sniff(head);
}

const Reader& detect_reader(const std::string& path, std::string_view forced_format) {
  if (!forced_format.empty()) {
    const Reader* r = find_reader(forced_format);
    if (!r)
      throw InputError(path, 0, 0,
                       "unknown input format '" + std::string(forced_format) +
                           "' (known: " + known_formats() + ")");
    read_head(path);  // the same "cannot open" error as without a forced format
    return *r;
  }
  std::string head = read_head(path);
  if (is_blank(head)) throw InputError(path, 1, 1, "empty file: expected a profile or trace");
  for (const Reader* r : all_readers())
    if (r->sniff(head)) return *r;
  throw InputError(
      path, 1, 1, "unrecognized input format (known: " + known_formats() + "; see --input-format)");
}

void load_run(const std::vector<std::string>& paths, const LoadOptions& options, model::Run& run,
              Diagnostics& diagnostics) {
  reject_repeated_files(paths);
  const size_t first = run.processes.size();
  const size_t first_launch = run.launches.size(), first_transfer = run.transfers.size();
  for (const std::string& path : paths) {
    const Reader& reader = detect_reader(path, options.forced_format);
    MappedFile file(path);
    reader.read(path, file.view(), run, diagnostics);
    if (options.bytes_read)
      options.bytes_read->fetch_add(file.view().size(), std::memory_order_relaxed);
  }
  check_related(run, first, options);
  check_consistency(run, first, first_launch, first_transfer, diagnostics);
}

void load_run(const std::vector<std::string>& paths, std::string_view forced_format,
              model::Run& run, Diagnostics& diagnostics) {
  LoadOptions options;
  options.forced_format = std::string(forced_format);
  load_run(paths, options, run, diagnostics);
}

std::unique_ptr<Analysis> stream_clprof_traces(const std::vector<std::string>& paths,
                                               model::Run& run, const AnalysisFactory& factory,
                                               Diagnostics& diagnostics,
                                               const LoadOptions& options) {
  reject_repeated_files(paths);
  const size_t first = run.processes.size();
  detail::TraceStreamTuning tuning;
  tuning.threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  if (tuning.threads == 0) tuning.threads = 1;
  tuning.bytes_read = options.bytes_read;
  tuning.fold_ranges = options.fold_ranges;
  tuning.keep_top_level_ranges = options.keep_top_level_ranges;
  std::unique_ptr<Analysis> result;
  for (const std::string& path : paths) {
    const Reader& reader = detect_reader(path, options.forced_format);
    std::unique_ptr<Analysis> part;
    if (&reader == &clprof_trace_reader()) {
      part = detail::stream_clprof_trace_file(path, run, factory, diagnostics, tuning);
    } else {
      // Other formats are small: read whole, feed, and keep only the metadata.
      size_t launches_before = run.launches.size(), transfers_before = run.transfers.size();
      MappedFile file(path);
      reader.read(path, file.view(), run, diagnostics);
      if (options.bytes_read)
        options.bytes_read->fetch_add(file.view().size(), std::memory_order_relaxed);
      check_consistency(run, run.processes.size(), launches_before, transfers_before, diagnostics);
      part = feed_new_records(run, launches_before, transfers_before, factory);
    }
    if (!result)
      result = std::move(part);
    else
      result->merge(std::move(*part));
  }
  check_related(run, first, options);
  // The ranges of every input (the launches of clprof traces were checked by their reader
  // as they streamed past, or not kept: only their ranges are left to check here).
  check_consistency(run, first, run.launches.size(), run.transfers.size(), diagnostics);
  if (!result) result = factory();
  return result;
}

}  // namespace clprof::readers
