#include "output/trace_writer.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.hpp"
#include "output/descriptor_guard.hpp"
#include "output/output_file.hpp"

namespace clprof::shim {

void TraceWriter::grow_descriptor_table() {
  // A descriptor of our own to duplicate, not one of 0-2: closing a copy of a file's
  // descriptor drops the process's POSIX locks on that file, which an exec keeps.
  const int own = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (own < 0) return;
  const int high = ::fcntl(own, F_DUPFD_CLOEXEC, kHighFd);
  if (high >= 0) ::close(high);
  ::close(own);
}

bool TraceWriter::open(const std::string& path, std::string_view header_line, std::string& error) {
  fd_ = open_output_file(path, error);  // what an existing path gets: output_file.hpp
  if (fd_ < 0) return false;
  // Out of the way of the app's own descriptors: open() hands out the lowest free number,
  // so the app's next files get the numbers they would get without clprof.
  const int high = ::fcntl(fd_, F_DUPFD_CLOEXEC, kHighFd);
  if (high >= 0) {
    ::close(fd_);
    fd_ = high;
  }
  guard_descriptor(fd_);  // the app's close of it waits for a write in progress
  // Only files on a disk: tmpfs would reserve memory, and a device or pipe has no blocks.
  struct stat st {};
  struct statfs fs {};
  file_bytes_ = 0;
  reserved_to_ = 0;
  lost_ = false;
  const bool stat_ok = ::fstat(fd_, &st) == 0;
  dev_ = stat_ok ? st.st_dev : 0;
  ino_ = stat_ok ? st.st_ino : 0;
  const bool regular = stat_ok && S_ISREG(st.st_mode);
  regular_ = regular;
  write_error_ = 0;
  reserving_ = regular && ::fstatfs(fd_, &fs) == 0 && fs.f_type != TMPFS_MAGIC;
  aligned_ = regular;
  direct_ok_ = reserving_;
  direct_on_ = false;
  compress_ = false;
  frame_bytes_ = 0;
  finishing_ = false;
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".zst") == 0) {
    std::string why;
    if (zstd_.is_open() || zstd_.open(why)) {
      compress_ = true;
      aligned_ = false;  // frames have no line boundaries to pad or align to
      direct_ok_ = false;
    } else {
      log_once_warn("%s: writing %s as plain JSON", why.c_str(), path.c_str());
    }
  }
  // Room for a write's worth of records (up to 9/8 kFlushBytes after a short write) and
  // a line moved past it (write_full): only an outsized line grows it.
  grow(std::max<std::size_t>(header_line.size() + 1 + ZstdFrames::kSkippableHeader,
                             kFlushBytes * 2));
  if (compress_) {
    const std::string line = std::string(header_line) + "\n";
    const std::size_t n = ZstdFrames::skippable(buf_, line);
    if (!write_all(buf_, n)) {
      error = "cannot write " + path + ": " + std::strerror(errno);
      unguard_descriptor(fd_);
      ::close(fd_);
      fd_ = -1;
      return false;
    }
  }
  std::memcpy(buf_, header_line.data(), header_line.size());
  buf_[header_line.size()] = '\n';
  size_ = header_line.size() + 1;
  const bool ok = flush();
  if (!ok) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    unguard_descriptor(fd_);
    ::close(fd_);
    fd_ = -1;
  }
  return ok;
}

void TraceWriter::grow(std::size_t need) {
  if (need <= cap_) return;
  std::size_t cap = cap_ ? cap_ : kDirectAlign;
  while (cap < need) cap *= 2;
  // Aligned for direct writes (the kernel wants the memory aligned like the file offset).
  char* p = static_cast<char*>(std::aligned_alloc(kDirectAlign, cap));
  if (!p) std::abort();  // as std::string would (bad_alloc) on the harvester thread
  if (size_ > 0) std::memcpy(p, buf_, size_);
  std::free(buf_);
  buf_ = p;
  cap_ = cap;
}

void TraceWriter::append(std::string_view record) {
  char* p = begin_record(record.size());
  if (!record.empty()) std::memcpy(p, record.data(), record.size());
  end_record(p + record.size());
}

// A write of whole aligned blocks at an aligned offset goes straight to the disk (O_DIRECT):
// no page-cache copy. Measured on the project's VM (ext4, PoCL enqueue loop, ~380 bytes per
// record): writing the trace cost the harvester ~480 ns of CPU per record buffered (the
// copy into new page-cache folios), against ~260 ns per record for its other work. Other
// writes (the header, the timer's, a short one) go through the page cache as before; they
// never overlap a direct write's range. A file system that refuses direct writes (EINVAL)
// gets buffered ones from then on.
void TraceWriter::set_direct(bool on) {
  if (on == direct_on_) return;
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0 && ::fcntl(fd_, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT) == 0) {
    direct_on_ = on;
  } else {
    direct_ok_ = false;
  }
}

namespace {

// A pipe or socket whose reader went away answers a write with EPIPE and a SIGPIPE to the
// writing thread, whose default action ends the process. The harvester blocks every signal,
// but the trace's last writes at exit run on the app's thread: there the signal is held back
// for the write and, if the write raised it, taken back, so the app never sees it.
class SigpipeHold {
 public:
  SigpipeHold() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    held_ = ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_) == 0;
    sigset_t pending;
    was_pending_ = held_ && ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
  }
  ~SigpipeHold() {
    if (!held_) return;
    if (raised_ && !was_pending_) {
      const timespec none{0, 0};
      const int saved = errno;
      while (::sigtimedwait(&pipe_, nullptr, &none) < 0 && errno == EINTR) {
      }
      errno = saved;
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void write_failed(int error) { raised_ |= error == EPIPE; }
  SigpipeHold(const SigpipeHold&) = delete;
  SigpipeHold& operator=(const SigpipeHold&) = delete;

 private:
  sigset_t pipe_, old_;
  bool held_ = false, was_pending_ = false, raised_ = false;
};

}  // namespace

bool TraceWriter::write_all(const char* data, std::size_t n) {
  if (!regular_) {  // a regular file never raises SIGPIPE: no system calls for it
    SigpipeHold hold;
    const bool ok = write_some(data, n);
    if (!ok) hold.write_failed(errno);
    return ok;
  }
  return write_some(data, n);
}

bool TraceWriter::write_some(const char* data, std::size_t n) {
  while (n > 0) {
    std::size_t now = n;
    rlimit limit{};
    if (regular_ && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      // Only the whole lines that end below the limit.
      const std::uint64_t room = limit.rlim_cur > file_bytes_ ? limit.rlim_cur - file_bytes_ : 0;
      if (room < now && compress_) {
        errno = EFBIG;  // a frame is written whole or not at all
        return false;
      }
      if (room < now) {
        const void* last =
            room > 0 ? ::memrchr(data, '\n', static_cast<std::size_t>(room)) : nullptr;
        now = last ? static_cast<std::size_t>(static_cast<const char*>(last) - data) + 1 : 0;
      }
      if (now == 0) {
        errno = EFBIG;
        return false;
      }
    }
    set_direct(direct_ok_ && file_bytes_ % kDirectAlign == 0 && now % kDirectAlign == 0 &&
               reinterpret_cast<std::uintptr_t>(data) % kDirectAlign == 0);
    const ssize_t w = ::write(fd_, data, now);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EINVAL && direct_on_) {  // no direct writes here after all
        direct_ok_ = false;
        set_direct(false);
        if (!direct_on_) continue;
      }
      return false;
    }
    file_bytes_ += static_cast<std::uint64_t>(w);
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Delayed allocation makes the kernel reserve blocks page by page as a write copies into
// the page cache; reserving them ahead, many megabytes at a time, takes about 30% off the
// kernel's time per record (measured on ext4). Only past the end of the file
// (KEEP_SIZE): readers never see the reservation, and finish() gives the rest back.
void TraceWriter::reserve_ahead(std::size_t n) {
  if (!reserving_ || file_bytes_ + n <= reserved_to_) return;
  constexpr std::uint64_t kMin = 1 << 20, kMax = 16 << 20;
  // Grows with the file: a short run reserves 1 MiB, a long one 16 MiB at a time.
  const std::uint64_t chunk = std::clamp<std::uint64_t>(file_bytes_, kMin, kMax);
  const std::uint64_t from = std::max(reserved_to_, file_bytes_);
  const std::uint64_t len = std::max<std::uint64_t>(chunk, file_bytes_ + n - from);
  if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from), static_cast<off_t>(len)) !=
      0) {
    reserving_ = false;  // not supported here, or no room: plain writes, as before
    return;
  }
  reserved_to_ = from + len;
}

bool TraceWriter::flush() {
  return write_out(size_);
}

bool TraceWriter::still_ours() const {
  struct stat st {};
  return ::fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

bool TraceWriter::write_out(std::size_t n) {
  bool ok = true;
  // An app that closes every descriptor it did not open (daemons do) and opens files of its
  // own must not get trace lines in them. Its close (hooked) waits for this use to end and
  // turns the next one away (descriptor_guard.hpp); the fstat per write (a write carries
  // ~1 MiB, or 100 ms of records) covers a close the hooks do not see.
  const DescriptorUse use(n > 0 ? fd_ : -1);
  if (fd_ >= 0 && n > 0 && (!use.allowed() || !still_ours())) {
    lost_ = true;
    unguard_descriptor(fd_);  // the number is the app's now: its closes need not wait
    fd_ = -1;                 // not ours to close
  }
  if ((fd_ < 0 || write_error_ != 0) && n > 0) ok = false;
  if (fd_ >= 0 && write_error_ == 0 && n > 0) {
    ++writes_;
    const char* out = buf_;
    std::size_t out_n = n;
    if (compress_) {
      const std::size_t need = zstd_.bound(n) + ZstdFrames::kStreamSlack;
      if (need > zcap_) {
        std::free(zbuf_);
        zbuf_ = static_cast<char*>(std::malloc(need));
        if (!zbuf_) std::abort();  // as grow() does
        zcap_ = need;
      }
      out = zbuf_;
      // One frame per kFrameBytes of trace (or the last write): blocks flushed at every
      // write in between keep the frame's history (zstd_frames.hpp).
      frame_bytes_ += n;
      const bool end_frame = finishing_ || frame_bytes_ >= kFrameBytes;
      out_n = zstd_.compress_stream(zbuf_, zcap_, buf_, n, end_frame);
      if (end_frame) frame_bytes_ = 0;
    }
    reserve_ahead(out_n);
    // A full disk loses the rest of the trace, never the app's run: the file ends with
    // the last whole line (or frame) written, and nothing is written after it.
    ok = out_n > 0 && write_all(out, out_n);  // counts what it wrote in file_bytes_
    if (out_n == 0) errno = EIO;
    if (!ok) {
      write_error_ = errno != 0 ? errno : EIO;
      reserving_ = false;  // the file offset is no longer known here
      aligned_ = false;
      direct_ok_ = false;
    }
  }
  if (n < size_) std::memmove(buf_, buf_ + n, size_ - n);
  size_ -= n;
  limit_ = kFlushBytes;
  if (aligned_) {
    limit_ -= static_cast<std::size_t>(file_bytes_ % kFlushBytes);
    if (limit_ < kFlushBytes / 8) limit_ += kFlushBytes;  // no short write to realign
  }
  return ok;
}

// Writes that start and end on multiples of 1 MiB in the file can go to the disk directly
// (write_all), and where they go through the page cache it takes them in large folios: an
// aligned 1 MiB write fills one order-8 folio, an unaligned one a run of order 0 to 7 ones.
// Measured on ext4 (Linux 6.18), a loop of 1 MiB writes cost ~50 ns of kernel time per 361 bytes
// aligned and ~57 ns unaligned. So the line that crosses the boundary goes to the next write, and
// the one before it is padded with spaces up to the boundary (JSON whitespace at the end of a line,
// which readers trim): at most one line's length per MiB. A write that cannot be aligned (the
// timer's, or one after a line longer than kMaxPadBytes) only shortens the next one, which
// realigns.
void TraceWriter::write_full(std::size_t start) {
  const std::size_t len = size_ - start;
  if (aligned_ && start > 0 && start <= limit_ && limit_ - start <= kMaxPadBytes &&
      limit_ + len <= cap_) {
    std::memmove(buf_ + limit_, buf_ + start, len);
    std::memset(buf_ + start - 1, ' ', limit_ - start);  // over the last line's '\n'
    buf_[limit_ - 1] = '\n';
    size_ = limit_ + len;
    write_out(limit_);
  } else {
    flush();
  }
}

void TraceWriter::finish(std::string_view end_record) {
  if (fd_ < 0) return;
  char* p = begin_record(end_record.size() + 1);
  if (!end_record.empty()) std::memcpy(p, end_record.data(), end_record.size());
  p += end_record.size();
  p[0] = ']';
  p[1] = '}';
  p[2] = '\n';
  size_ = static_cast<std::size_t>(p + 3 - buf_);
  finishing_ = true;  // a .zst trace's last frame ends here
  flush();
  if (fd_ < 0) return;  // the app took the descriptor during that write
  const DescriptorUse use(fd_);
  if (!use.allowed()) {
    lost_ = true;
    unguard_descriptor(fd_);
    fd_ = -1;
    return;
  }
  if (reserved_to_ != 0) {
    // Blocks reserved past the end stay allocated until a truncate, even at the same size.
    const off_t end = ::lseek(fd_, 0, SEEK_CUR);
    if (end >= 0) static_cast<void>(::ftruncate(fd_, end));
  }
  unguard_descriptor(fd_);  // our own close, next, is not the app's
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clprof::shim
