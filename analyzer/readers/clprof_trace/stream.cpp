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

#include "readers/clprof_trace/checks.hpp"
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

  LineReader(const File& file, uint64_t start, size_t chunk_bytes,
             std::atomic<uint64_t>* counter = nullptr)
      : counter_(counter),
        file_(file),
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
      if (counter_) counter_->fetch_add(got, std::memory_order_relaxed);
      eof_ = got < want;  // the file shrank under us: what we have is all there is
      fill_ += got;
      next_read_ += got;
    }
  }

 private:
  std::atomic<uint64_t>* counter_;  // progress: bytes read (may be null)
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
  MetaBatch meta;                    // parsed metadata, applied in file order afterwards
  model::FoldedRanges::Part folded;  // TraceStreamTuning::fold_ranges: the ranges folded
  OrderChecks checks;
  Problems problems;
  uint64_t records = 0;
  uint64_t first_line_offset = Problems::kNone;
  uint64_t closing_offset = Problems::kNone;
  uint64_t after_closing_offset = Problems::kNone;
  bool cut = false;  // the file ends in a partial line
  std::vector<uint64_t> missing_devices;
  ClockBrackets clock_brackets;  // of the commands read
  bool has_error = false;
  PositionedError error{0, {}};
  std::exception_ptr other_error;
};

// Reads the lines that start in [begin, stop) (the first one after `begin` - 1 when
// `skip_partial`: that line belongs to the previous range), with `checks` as the order
// checks of the records before them. Runs on its own thread, `devices` is read-only
// meanwhile. An error lowers `abort_at` to its position; a thread stops once it reads
// past `abort_at` (what comes later cannot be the first error). Reports everything,
// errors included, through `out`: never throws.
void stream_range(const File& file, uint64_t begin, uint64_t stop, bool skip_partial,
                  const TraceStreamTuning& tuning, uint32_t process,
                  const std::unordered_map<uint64_t, uint32_t>& devices, OrderChecks checks,
                  std::atomic<uint64_t>& abort_at, WorkerResult& out) {
  try {
    LineProcessor lines(process, &devices, tuning.fast_path, /*strict=*/false);
    if (tuning.fold_ranges) lines.fold_ranges(tuning.keep_top_level_ranges);
    lines.checks = std::move(checks);
    auto finish = [&] {
      out.meta = std::move(lines.batch());
      out.folded = std::move(lines.folded());
      out.checks = std::move(lines.checks);
      out.problems = std::move(lines.problems);
      out.records = lines.records;
      out.first_line_offset = lines.first_line_offset;
      out.closing_offset = lines.closing_offset;
      out.after_closing_offset = lines.after_closing_offset;
    };
    LineReader reader(file, begin, tuning.chunk_bytes, tuning.bytes_read);
    std::string_view line;
    bool terminated;
    if (skip_partial && !reader.next(line, terminated)) return finish();
    uint64_t n = 0;
    auto on_bulk = [&](RecordType type, TraceParser& parser) {
      note_clock_bracket(out.clock_brackets, type, parser);
      if (type == RecordType::Launch)
        out.analysis->add_launch(parser.launch);
      else
        out.analysis->add_transfer(parser.transfer);
      if (parser.pending_device()) {
        auto& m = out.missing_devices;
        if (std::find(m.begin(), m.end(), parser.pending_device()) == m.end())
          m.push_back(parser.pending_device());
      }
    };
    while (reader.position() < stop) {
      const uint64_t offset = reader.position();
      if (!reader.next(line, terminated)) break;
      // Checking the flag every few thousand lines keeps it off the hot path.
      if ((++n & 4095) == 0 && offset > abort_at.load(std::memory_order_relaxed)) break;
      try {
        if (lines.process(line, offset, terminated, LineReader::kSlack, on_bulk) ==
            LineOutcome::Cut) {
          out.cut = true;
          break;
        }
      } catch (PositionedError& e) {
        out.has_error = true;
        out.error = std::move(e);
        uint64_t seen = abort_at.load(std::memory_order_relaxed);
        while (out.error.position < seen &&
               !abort_at.compare_exchange_weak(seen, out.error.position)) {
        }
        break;
      }
    }
    finish();
  } catch (...) {
    out.other_error = std::current_exception();
    abort_at.store(0, std::memory_order_relaxed);
  }
}

// Throws `e` as an InputError with the line and column of its position in `file`.
[[noreturn]] void throw_at(const File& file, const PositionedError& e) {
  auto [line, column] = file.locate(e.position);
  throw InputError(file.path(), line, column, e.message);
}

// The records after the prefix, read by `threads` threads from `prefix_end`, each
// feeding an Analysis of its own. Throws InputError (what another thread's error would
// throw had the file been read in order: the first in the file).
std::vector<WorkerResult> read_rest(const File& file, uint64_t prefix_end, unsigned threads,
                                    const TraceStreamTuning& tuning, uint32_t process,
                                    const TraceBuilder& builder, const OrderChecks& prefix_checks,
                                    const AnalysisFactory& factory) {
  const uint64_t remaining = file.size() > prefix_end ? file.size() - prefix_end : 0;
  const uint64_t per = std::max<uint64_t>(1, tuning.min_bytes_per_thread);
  threads = static_cast<unsigned>(
      std::min<uint64_t>(std::max(1u, threads), std::max<uint64_t>(1, remaining / per)));
  std::vector<WorkerResult> results(threads);
  for (auto& r : results) r.analysis = factory();
  if (remaining == 0) return results;
  std::atomic<uint64_t> abort_at{Problems::kNone};
  std::vector<std::thread> pool;
  std::vector<uint64_t> bounds(threads + 1);
  for (unsigned i = 0; i <= threads; ++i) bounds[i] = prefix_end + remaining * i / threads;
  try {
    for (unsigned i = 1; i < threads; ++i) {
      pool.emplace_back(stream_range, std::cref(file), bounds[i] - 1, bounds[i + 1], true,
                        std::cref(tuning), process, std::cref(builder.devices), OrderChecks(),
                        std::ref(abort_at), std::ref(results[i]));
    }
  } catch (...) {
    // No thread may outlive this frame (they reference it): stop and join the started ones.
    abort_at.store(0);
    for (auto& t : pool) t.join();
    throw;
  }
  stream_range(file, bounds[0], bounds[1], false, tuning, process, builder.devices, prefix_checks,
               abort_at, results[0]);
  for (auto& t : pool) t.join();
  for (auto& r : results)
    if (r.other_error) std::rethrow_exception(r.other_error);
  return results;
}

// Whether the threads' order checks, merged in file order, hold (the first thread's
// began with the prefix's): else a record of one thread fails the checks with another's
// records before it.
bool checks_hold(const std::vector<WorkerResult>& results) {
  OrderChecks merged = results.front().checks;
  for (size_t i = 1; i < results.size(); ++i)
    if (!merged.merge(results[i].checks)) return false;
  return true;
}

// The first fatal error of the file, by position: a thread's error, or content after the
// end of the trace ("]}"), which a thread that does not see the end cannot tell.
void throw_first_error(const File& file, const LineProcessor& prefix,
                       const std::vector<WorkerResult>& results) {
  const PositionedError* first = nullptr;
  for (const auto& r : results)
    if (r.has_error && (!first || r.error.position < first->position)) first = &r.error;
  // The part (prefix = -1, or a thread) that saw the end of the trace first.
  uint64_t after = Problems::kNone;
  if (prefix.closed()) {
    for (const auto& r : results) after = std::min(after, r.first_line_offset);
  } else {
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].closing_offset == Problems::kNone) continue;
      after = results[i].after_closing_offset;
      for (size_t j = i + 1; j < results.size() && after == Problems::kNone; ++j)
        after = results[j].first_line_offset;
      break;
    }
  }
  PositionedError after_end{after, kAfterEndMessage};
  if (after != Problems::kNone && (!first || after <= first->position)) first = &after_end;
  if (first) throw_at(file, *first);
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
  if (!line_mode) {
    // Not the shim's layout (re-formatted, or not a trace at all): the in-memory path
    // reads it, then the bulk records are fed and dropped again.
    std::string content(static_cast<size_t>(file.size()), '\0');
    content.resize(file.read_at(content.data(), content.size(), 0));
    if (tuning.bytes_read) tuning.bytes_read->fetch_add(content.size(), std::memory_order_relaxed);
    size_t launches_before = run.launches.size(), transfers_before = run.transfers.size();
    read_clprof_trace(path, content, run, diagnostics, tuning.fast_path);
    return feed_new_records(run, launches_before, transfers_before, factory);
  }

  LineReader head(file, 0, tuning.chunk_bytes, tuning.bytes_read);
  std::string_view first;
  bool terminated = false;
  head.next(first, terminated);
  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  Problems problems;
  TraceBuilder builder(run, process, problems);
  try {
    parse_header_line(first, run, process);
  } catch (PositionedError& e) {
    throw_at(file, e);
  }

  // The prefix up to the first launch or transfer is read here, in order: it holds the
  // device records, so the threads can map device ids without waiting for one another.
  SequentialLines prefix(builder, tuning.fast_path);
  uint64_t prefix_end = file.size();
  bool cut = false;
  try {
    std::string_view line;
    for (;;) {
      const uint64_t offset = head.position();
      if (!head.next(line, terminated)) break;
      const LineOutcome o = prefix.process(
          line, offset, terminated, LineReader::kSlack, [](RecordType, TraceParser&) {}, true);
      if (o == LineOutcome::Bulk) {
        prefix_end = offset;
        break;
      }
      if (o == LineOutcome::Cut) cut = true;
    }
  } catch (PositionedError& e) {
    throw_at(file, e);
  }

  // The rest, by several threads; read again by one when their order checks clash (a
  // repeated seq or a record after the end record across threads: hostile input only).
  unsigned threads = cut ? 1 : std::max(1u, tuning.threads);
  std::vector<WorkerResult> results;
  if (!cut) {
    results = read_rest(file, prefix_end, threads, tuning, process, builder, prefix.lines().checks,
                        factory);
    if (results.size() > 1 && !checks_hold(results)) {
      threads = 1;
      results =
          read_rest(file, prefix_end, 1, tuning, process, builder, prefix.lines().checks, factory);
    }
    threads = static_cast<unsigned>(results.size());
    throw_first_error(file, prefix.lines(), results);
  }

  uint64_t records = prefix.lines().records;
  std::vector<uint64_t> missing;
  for (auto& r : results) {
    builder.apply(r.meta);
    r.meta = MetaBatch();  // release the drained vectors' memory now
    run.folded_ranges.absorb(process, std::move(r.folded));
    records += r.records;
    cut = cut || r.cut;
    problems.merge(std::move(r.problems));
    missing.insert(missing.end(), r.missing_devices.begin(), r.missing_devices.end());
  }
  problems.merge(std::move(prefix.lines().problems));

  bool rerun = false;
  for (uint64_t local : missing)
    if (builder.devices.count(local)) rerun = true;
  if (rerun) {
    // A launch came before the record of its device: now that every device is known,
    // read the bulk records again into fresh analyses (rare; writers emit devices first).
    // The metadata and the problems are known already: only the analyses are kept.
    results = read_rest(file, prefix_end, threads, tuning, process, builder, prefix.lines().checks,
                        factory);
  }

  auto main_analysis = factory();
  for (auto& r : results) {
    main_analysis->merge(std::move(*r.analysis));
    // In file order: each thread's commands come after the previous thread's.
    for (const auto& [device, e] : r.clock_brackets) builder.clock_brackets[device].merge(e);
  }
  builder.finish();
  warn_if_truncated(path, builder, records, diagnostics);
  problems.report(
      path, [&](uint64_t offset) { return file.locate(offset); }, diagnostics);
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
