// The streaming path of the clprof trace reader (detail::stream_clprof_trace_file): the
// header and the device prefix in order, then the rest cut into byte ranges read by
// several threads in chunks, each feeding its own Analysis and collecting metadata that
// is applied in file order afterwards; truncation and errors are reported by position.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/clprof_trace/lines.hpp"
#include "readers/clprof_trace/meta.hpp"
#include "readers/clprof_trace/records.hpp"

namespace clprof::readers::detail {
namespace {

// The header line holds the command line and settings: small, but argv may reach a few
// MB. A first line longer than this is not the shim's layout (e.g. a minified document).
constexpr size_t kMaxHeaderLineBytes = size_t{8} << 20;

// A regular file opened for reading (pread: safe to share between threads). Throws
// InputError on failure.
class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    fd_ = open_regular_file(path, size_);
    // The streaming readers go front to back; a larger readahead window helps.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Reads [offset, offset+n) fully (short only at end of file).
  size_t read_at(char* dst, size_t n, uint64_t offset) const {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        throw InputError(path_, 0, 0, std::string("cannot read: ") + std::strerror(errno));
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }

  // (line, column) of byte `pos`, by counting newlines before it: error path only.
  std::pair<size_t, size_t> locate(uint64_t pos) const {
    pos = std::min(pos, size_);
    std::vector<char> block(size_t{1} << 20);
    size_t line = 1;
    uint64_t line_start = 0;
    for (uint64_t at = 0; at < pos;) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(block.size(), pos - at));
      size_t got = read_at(block.data(), want, at);
      if (got == 0) break;
      for (size_t i = 0; i < got; ++i)
        if (block[i] == '\n') {
          ++line;
          line_start = at + i + 1;
        }
      at += got;
    }
    return {line, static_cast<size_t>(pos - line_start + 1)};
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Lines of a file from a start offset, read in chunks into one buffer that grows only for
// a line longer than the chunk.
class LineReader {
 public:
  // Bytes after the end of any returned line that may be read (not part of the data):
  // lets the record parser work in place.
  static constexpr size_t kSlack = kPadding;

  LineReader(const File& file, uint64_t start, size_t chunk_bytes)
      : file_(file),
        next_read_(start),
        cap_(std::max<size_t>(chunk_bytes, 16)),
        buf_(cap_ + kSlack) {}

  // Absolute offset of the next line.
  uint64_t position() const { return next_read_ - (fill_ - pos_); }

  bool next(std::string_view& line, bool& terminated) {
    for (;;) {
      if (pos_ < fill_) {
        const char* start = buf_.data() + pos_;
        const void* nl = std::memchr(start, '\n', fill_ - pos_);
        if (nl) {
          size_t len = static_cast<size_t>(static_cast<const char*>(nl) - start);
          line = std::string_view(start, len);
          pos_ += len + 1;
          terminated = true;
          return true;
        }
      }
      if (eof_ || next_read_ >= file_.size()) {
        if (pos_ >= fill_) return false;
        line = std::string_view(buf_.data() + pos_, fill_ - pos_);
        pos_ = fill_;
        terminated = false;
        return true;
      }
      if (pos_ > 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, fill_ - pos_);
        fill_ -= pos_;
        pos_ = 0;
      }
      if (fill_ == cap_) {
        cap_ *= 2;
        buf_.resize(cap_ + kSlack);
      }
      size_t want =
          static_cast<size_t>(std::min<uint64_t>(cap_ - fill_, file_.size() - next_read_));
      size_t got = file_.read_at(buf_.data() + fill_, want, next_read_);
      eof_ = got < want;  // the file shrank under us: what we have is all there is
      fill_ += got;
      next_read_ += got;
    }
  }

 private:
  const File& file_;
  uint64_t next_read_;
  size_t cap_;  // data capacity; buf_ has kSlack more
  std::vector<char> buf_;
  size_t pos_ = 0, fill_ = 0;
  bool eof_ = false;
};

// What one streaming thread found in its byte range (written by that thread only, read
// after it was joined).
struct WorkerResult {
  std::unique_ptr<Analysis> analysis;
  MetaBatch meta;  // parsed metadata, applied in file order afterwards
  uint64_t records = 0;
  uint64_t last_record_offset = 0;
  uint64_t closing_offset = std::numeric_limits<uint64_t>::max();
  bool cut = false;  // the file ends in a partial line
  std::vector<uint64_t> missing_devices;
  bool has_error = false;
  PositionedError error{0, {}};
  std::exception_ptr other_error;
};

// Reads the lines that start in [begin, stop) (the first one after `begin` - 1 when
// `skip_partial`: that line belongs to the previous range). Runs on its own thread,
// `devices` is read-only meanwhile; sets `abort` on an error and stops when it is set.
// Reports everything, errors included, through `out`: never throws.
void stream_range(const File& file, uint64_t begin, uint64_t stop, bool skip_partial,
                  size_t chunk_bytes, uint32_t process,
                  const std::unordered_map<uint64_t, uint32_t>& devices, bool keep_metadata,
                  std::atomic<bool>& abort, WorkerResult& out) {
  try {
    TraceParser parser(process);
    parser.set_device_map(&devices);
    if (keep_metadata) parser.set_meta(&out.meta);
    LineReader reader(file, begin, chunk_bytes);
    std::string_view line;
    bool terminated;
    if (skip_partial && !reader.next(line, terminated)) return;
    uint64_t n = 0;
    while (reader.position() < stop) {
      uint64_t offset = reader.position();
      if (!reader.next(line, terminated)) break;
      // Checking the flag every few thousand lines keeps it off the hot path.
      if ((++n & 4095) == 0 && abort.load(std::memory_order_relaxed)) return;
      std::string_view t = trim(line);
      if (t.empty()) continue;
      uint64_t t_offset = offset + static_cast<uint64_t>(t.data() - line.data());
      if (t == "]}") {
        out.closing_offset = std::min(out.closing_offset, t_offset);
        continue;
      }
      bool comma = t.back() == ',';
      std::string_view rec = comma ? t.substr(0, t.size() - 1) : t;
      const char* text = rec.data();
      bool closing = false;
      RecordKind kind;
      try {
        kind = parser.parse_record(text, rec.size(), LineReader::kSlack, &closing);
        if (closing && comma)
          fail(text + rec.size(), "expected a newline after the end of the records");
      } catch (RecordError& e) {
        // A last line without newline that does not parse is where the writer was cut off.
        if (!terminated) {
          out.cut = true;
          break;
        }
        out.has_error = true;
        out.error =
            PositionedError{t_offset + error_offset(e, text, rec.size()), std::move(e.message)};
        abort.store(true, std::memory_order_relaxed);
        return;
      }
      ++out.records;
      out.last_record_offset = t_offset;
      if (closing) out.closing_offset = std::min(out.closing_offset, t_offset + rec.size());
      if (kind == RecordKind::Launch)
        out.analysis->add_launch(parser.launch);
      else if (kind == RecordKind::Transfer)
        out.analysis->add_transfer(parser.transfer);
      else
        continue;
      if (parser.pending_device()) {
        auto& m = out.missing_devices;
        if (std::find(m.begin(), m.end(), parser.pending_device()) == m.end())
          m.push_back(parser.pending_device());
      }
    }
  } catch (...) {
    out.other_error = std::current_exception();
    abort.store(true, std::memory_order_relaxed);
  }
}

// Throws `e` as an InputError with the line and column of its position in `file`.
[[noreturn]] void throw_at(const File& file, const PositionedError& e) {
  auto [line, column] = file.locate(e.position);
  throw InputError(file.path(), line, column, e.message);
}

// stream_clprof_trace_file on an opened file.
std::unique_ptr<Analysis> stream_file(const File& file, model::Run& run,
                                      const AnalysisFactory& factory, Diagnostics& diagnostics,
                                      const TraceStreamTuning& tuning) {
  const std::string& path = file.path();
  if (file.size() == 0) throw InputError(path, 1, 1, kEmptyMessage);

  bool line_mode = false;
  {
    // Look for the header line's end without reading a whole one-line document.
    std::vector<char> probe(
        static_cast<size_t>(std::min<uint64_t>(file.size(), kMaxHeaderLineBytes)));
    size_t got = file.read_at(probe.data(), probe.size(), 0);
    const void* nl = std::memchr(probe.data(), '\n', got);
    line_mode =
        nl && is_line_mode_header(std::string_view(
                  probe.data(), static_cast<size_t>(static_cast<const char*>(nl) - probe.data())));
  }
  LineReader head(file, 0, tuning.chunk_bytes);
  std::string_view first;
  bool terminated = false;
  if (line_mode) head.next(first, terminated);
  if (!line_mode) {
    // Not the shim's layout (re-formatted, or not a trace at all): the in-memory path
    // reads it, then the bulk records are fed and dropped again.
    std::string content(static_cast<size_t>(file.size()), '\0');
    content.resize(file.read_at(content.data(), content.size(), 0));
    size_t launches_before = run.launches.size(), transfers_before = run.transfers.size();
    clprof_trace_reader().read(path, content, run, diagnostics);
    return feed_new_records(run, launches_before, transfers_before, factory);
  }

  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  TraceBuilder builder(run, process);
  try {
    parse_header_line(first, run, process);
  } catch (PositionedError& e) {
    throw_at(file, e);
  }

  // The prefix up to the first bulk record is read here, in order: it holds the device
  // records, so the threads can map device ids without waiting for one another.
  auto main_analysis = factory();
  SequentialLines lines(builder);
  uint64_t closing_offset = std::numeric_limits<uint64_t>::max();
  uint64_t last_record = 0;
  bool cut = false, saw_bulk = false;
  uint64_t first_bulk_offset = 0;
  std::vector<uint64_t> missing;
  try {
    std::string_view line;
    while (!saw_bulk) {
      uint64_t offset = head.position();
      if (!head.next(line, terminated)) break;
      LineOutcome o = lines.process(line, offset, terminated, LineReader::kSlack,
                                    [&](RecordKind kind, TraceParser& p) {
                                      saw_bulk = true;
                                      first_bulk_offset = offset;
                                      if (p.pending_device()) missing.push_back(p.pending_device());
                                      if (kind == RecordKind::Launch)
                                        main_analysis->add_launch(p.launch);
                                      else
                                        main_analysis->add_transfer(p.transfer);
                                    });
      if (o == LineOutcome::Cut) cut = true;
      if (o == LineOutcome::Closing) closing_offset = std::min(closing_offset, offset);
      if (o == LineOutcome::Record) last_record = offset;
    }
  } catch (PositionedError& e) {
    throw_at(file, e);
  }
  uint64_t prefix_end = head.position();
  const bool prefix_cut = cut;
  uint64_t records = lines.records();

  std::vector<WorkerResult> results;
  auto run_workers = [&](bool keep_metadata) {
    uint64_t remaining = file.size() > prefix_end ? file.size() - prefix_end : 0;
    unsigned threads = std::max(1u, tuning.threads);
    uint64_t per = std::max<uint64_t>(1, tuning.min_bytes_per_thread);
    threads =
        static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(1, remaining / per)));
    results.clear();
    results.resize(threads);
    for (auto& r : results) r.analysis = factory();
    if (remaining == 0 || prefix_cut) return;
    std::atomic<bool> abort{false};
    std::vector<std::thread> pool;
    std::vector<uint64_t> bounds(threads + 1);
    for (unsigned i = 0; i <= threads; ++i) bounds[i] = prefix_end + remaining * i / threads;
    try {
      for (unsigned i = 1; i < threads; ++i) {
        pool.emplace_back(stream_range, std::cref(file), bounds[i] - 1, bounds[i + 1], true,
                          tuning.chunk_bytes, process, std::cref(builder.devices), keep_metadata,
                          std::ref(abort), std::ref(results[i]));
      }
    } catch (...) {
      // No thread may outlive this frame (they reference it): stop and join the started ones.
      abort.store(true);
      for (auto& t : pool) t.join();
      throw;
    }
    stream_range(file, bounds[0], bounds[1], false, tuning.chunk_bytes, process, builder.devices,
                 keep_metadata, abort, results[0]);
    for (auto& t : pool) t.join();
    for (auto& r : results)
      if (r.other_error) std::rethrow_exception(r.other_error);
    const PositionedError* first_error = nullptr;
    for (auto& r : results)
      if (r.has_error && (!first_error || r.error.position < first_error->position))
        first_error = &r.error;
    if (first_error) throw_at(file, *first_error);
  };
  run_workers(true);

  for (auto& r : results) {
    builder.apply(r.meta);
    r.meta = MetaBatch();  // release the drained vectors' memory now
    records += r.records;
    cut = cut || r.cut;
    closing_offset = std::min(closing_offset, r.closing_offset);
    if (r.records) last_record = std::max(last_record, r.last_record_offset);
    missing.insert(missing.end(), r.missing_devices.begin(), r.missing_devices.end());
  }
  if (closing_offset != std::numeric_limits<uint64_t>::max() && last_record > closing_offset)
    throw_at(file, PositionedError{last_record, "unexpected content after the end of the trace"});

  bool rerun = false;
  for (uint64_t local : missing)
    if (builder.devices.count(local)) rerun = true;
  if (rerun) {
    // A launch came before the record of its device: now that every device is known,
    // read the bulk records again into fresh analyses (rare; writers emit devices first).
    // The metadata is complete already, so the workers start at the first bulk record.
    main_analysis = factory();
    prefix_end = first_bulk_offset;
    run_workers(false);
  }

  for (auto& r : results) main_analysis->merge(std::move(*r.analysis));
  builder.finish();
  warn_if_truncated(path, builder, records, diagnostics);
  return main_analysis;
}

}  // namespace

std::unique_ptr<Analysis> stream_clprof_trace_file(const std::string& path, model::Run& run,
                                                   const AnalysisFactory& factory,
                                                   Diagnostics& diagnostics,
                                                   const TraceStreamTuning& tuning) {
  File file(path);
  return stream_file(file, run, factory, diagnostics, tuning);
}

}  // namespace clprof::readers::detail
