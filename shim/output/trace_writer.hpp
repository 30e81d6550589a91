// The trace file: header line, one record per line, the end record and "]}".
// Writes whole lines only, with write(2), so a killed process leaves complete lines.
// A regular file gets its writes at multiples of kFlushBytes in the file, some lines
// padded with trailing spaces to get there, and those whole-block writes bypass the page
// cache (O_DIRECT) on a file system on a disk (trace_writer.cpp says why).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "output/zstd_frames.hpp"

namespace clprof::shim {

// Not thread-safe: owned by one thread at a time (the harvester, then the finaliser).
class TraceWriter {
 public:
  // Opens `path` as open_output_file does (creates it, or empties a file of the user's;
  // output_file.hpp) and writes `header_line` + "\n". False with `error` set when the
  // file cannot be opened or written.
  // A path ending in ".zst" is written as zstd frames, a block per write, the header line also
  // in a skippable frame ahead of them (zstd_frames.hpp); without libzstd, as plain JSON
  // after one warning.
  bool open(const std::string& path, std::string_view header_line, std::string& error);
  bool is_open() const { return fd_ >= 0; }
  // Grows the process's descriptor table to hold kHighFd. For the shim's constructor, which
  // calls it only while the process has one thread: open() moves the trace's descriptor
  // there, and growing the table while threads share it (the driver's are running by the
  // first OpenCL call) makes the kernel wait for an RCU grace period inside that fcntl:
  // 8-20 ms of wall time per process, measured on PoCL. Keeps no descriptor (it opens "/"
  // with O_PATH, duplicates that to kHighFd and closes both, before the app runs), and no
  // other trace of it stays but the larger table. Best effort.
  static void grow_descriptor_table();
  // True once a write found the file's descriptor closed or pointing elsewhere (the app
  // closed it, or closed it and opened something else there): the writer then stops for
  // good, and never writes to or closes that descriptor again. Threads: owner only.
  bool lost() const { return lost_; }
  // The errno of the first write that failed (a full disk, RLIMIT_FSIZE reached, an I/O
  // error), or 0. The writer then stops for good: a trace with a gap would read as whole.
  // Threads: owner only.
  int write_error() const { return write_error_; }
  int fd_for_test() const { return fd_; }

  // end_record writes the buffer once about this much is buffered (the owner also
  // flushes on a timer). 1 MiB writes cost the process ~40 ns of CPU per launch less than
  // 256 KiB ones in the enqueue benchmark (the kernel's per-write and per-folio work), and
  // still come every ~2,800 launch records.
  static constexpr std::size_t kFlushBytes = 1024 * 1024;
  // The most padding a line gets to align a write (bytes).
  static constexpr std::size_t kMaxPadBytes = 4096;
  // The trace's descriptor is moved to the lowest free number from here, when the limit
  // on open files allows (the usual soft limit is 1024).
  static constexpr int kHighFd = 512;
  // Writes of whole blocks of this size at offsets of its multiples go to a regular file
  // (not tmpfs) with O_DIRECT (trace_writer.cpp says why); the buffer is aligned to it.
  static constexpr std::size_t kDirectAlign = 4096;

  // Buffers one record object as the line `record,\n`.
  void append(std::string_view record);
  // Formats a record in place: room for `max_chars` characters at the returned
  // pointer; then end_record(end) with the end of the text written there.
  char* begin_record(std::size_t max_chars) {
    if (__builtin_expect(cap_ - size_ < max_chars + 2, 0)) grow(size_ + max_chars + 2);
    return buf_ + size_;
  }
  // Ends the line; writes the buffer when the line crossed the next write boundary.
  void end_record(char* end) {
    end[0] = ',';
    end[1] = '\n';
    const std::size_t start = size_;
    size_ = static_cast<std::size_t>(end + 2 - buf_);
    if (__builtin_expect(size_ > limit_, 0)) write_full(start);
  }
  // Writes the buffered lines; false if the write failed (the lines are dropped).
  // Threads: owner only.
  bool flush();
  std::size_t buffered_bytes() const { return size_; }
  // How many times the buffer was written (by flush, or by end_record as it fills).
  std::uint64_t writes() const { return writes_; }

  // Buffers `end_record` + "]}\n", flushes, gives back the blocks reserved past the end
  // and closes.
  void finish(std::string_view end_record);

  TraceWriter() = default;
  ~TraceWriter() {
    std::free(buf_);
    std::free(zbuf_);
  }
  // Whether the file is written as zstd frames (a ".zst" path with libzstd at hand).
  bool compressed() const { return compress_; }
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

 private:
  // Writes n bytes of whole lines; false with errno set if they could not all be written.
  // On a regular file, never starts a write at or past the process's RLIMIT_FSIZE (the
  // kernel would send SIGXFSZ, which ends the app): the lines that fit below it are
  // written, then it fails with EFBIG. Counts what it wrote in file_bytes_. On anything
  // else (a pipe, a socket) SIGPIPE is held back for the write and taken back if it raised
  // one: a reader that went away is EPIPE, never the end of the app.
  bool write_all(const char* data, std::size_t n);
  bool write_some(const char* data, std::size_t n);  // write_all's loop
  // Turns O_DIRECT on or off for the descriptor; a failure turns direct writes off for good.
  void set_direct(bool on);
  // Writes the first n buffered bytes (whole lines) and keeps the rest for the next
  // write; false if the write failed (the n bytes are dropped).
  bool write_out(std::size_t n);
  // end_record's slow path: the line at [start, size_) crossed limit_.
  void write_full(std::size_t start);
  void grow(std::size_t need);  // capacity >= need (aborts on out of memory)
  // Regular files: reserves disk blocks past the end of the file ahead of the writes.
  void reserve_ahead(std::size_t n);
  // Whether fd_ still refers to the file open() made (same device and inode).
  bool still_ours() const;
  // A ".zst" path: every write_out ends a zstd block (a frame every kFrameBytes;
  // zstd_frames.hpp), from zbuf_.
  bool compress_ = false;
  ZstdFrames zstd_;
  char* zbuf_ = nullptr;
  std::size_t zcap_ = 0;
  // A frame ends after this much trace (or at finish): between, each write ends a block.
  static constexpr std::size_t kFrameBytes = 8 * 1024 * 1024;
  std::size_t frame_bytes_ = 0;
  bool finishing_ = false;
  int fd_ = -1;
  dev_t dev_ = 0;  // of the file open() made
  ino_t ino_ = 0;
  bool lost_ = false;
  int write_error_ = 0;
  bool regular_ = false;  // a regular file: RLIMIT_FSIZE applies
  // Regular files only: bytes written so far and the end of the blocks reserved with
  // fallocate(FALLOC_FL_KEEP_SIZE) (0: none reserved yet).
  std::uint64_t file_bytes_ = 0;
  std::uint64_t reserved_to_ = 0;
  bool reserving_ = false;  // a regular file that has not refused a reservation
  bool aligned_ = false;    // a regular file whose offset is known: writes are aligned
  bool direct_ok_ = false;  // a file on a disk that has not refused a direct write
  bool direct_on_ = false;  // O_DIRECT is set on fd_
  // end_record writes the buffer once it holds more than this (set by write_out: up to
  // the next multiple of kFlushBytes in the file).
  std::size_t limit_ = kFlushBytes;
  std::uint64_t writes_ = 0;  // write_out calls that wrote (writes())
  // Plain aligned_alloc'd buffer (kDirectAlign): appends never zero-fill; grown, never
  // shrunk.
  char* buf_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

}  // namespace clprof::shim
