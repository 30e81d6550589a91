#include "readers/load.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "readers/clprof_trace/clprof_trace.hpp"

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

}  // namespace

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

void load_run(const std::vector<std::string>& paths, std::string_view forced_format,
              model::Run& run, Diagnostics& diagnostics) {
  for (const std::string& path : paths) {
    const Reader& reader = detect_reader(path, forced_format);
    MappedFile file(path);
    reader.read(path, file.view(), run, diagnostics);
  }
}

std::unique_ptr<Analysis> stream_clprof_traces(const std::vector<std::string>& paths,
                                               model::Run& run, const AnalysisFactory& factory,
                                               Diagnostics& diagnostics,
                                               const StreamOptions& options) {
  detail::TraceStreamTuning tuning;
  tuning.threads = options.threads ? options.threads : std::thread::hardware_concurrency();
  if (tuning.threads == 0) tuning.threads = 1;
  std::unique_ptr<Analysis> result;
  for (const std::string& path : paths) {
    const Reader& reader = detect_reader(path, "");
    std::unique_ptr<Analysis> part;
    if (&reader == &clprof_trace_reader()) {
      part = detail::stream_clprof_trace_file(path, run, factory, diagnostics, tuning);
    } else {
      // Other formats are small: read whole, feed, and keep only the metadata.
      size_t launches_before = run.launches.size(), transfers_before = run.transfers.size();
      MappedFile file(path);
      reader.read(path, file.view(), run, diagnostics);
      part = feed_new_records(run, launches_before, transfers_before, factory);
    }
    if (!result)
      result = std::move(part);
    else
      result->merge(std::move(*part));
  }
  if (!result) result = factory();
  return result;
}

}  // namespace clprof::readers
