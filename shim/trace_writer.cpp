#include "trace_writer.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace clprof::shim {

bool TraceWriter::open(const std::string& path, std::string_view header_line, std::string& error) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  // Only files on a disk: tmpfs would reserve memory, and a device or pipe has no blocks.
  struct stat st {};
  struct statfs fs {};
  file_bytes_ = 0;
  reserved_to_ = 0;
  reserving_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && ::fstatfs(fd_, &fs) == 0 &&
               fs.f_type != TMPFS_MAGIC;
  // Room for a flush's worth of records and some more: only an outsized line grows it.
  grow(std::max<std::size_t>(header_line.size() + 1, kFlushBytes + 64 * 1024));
  std::memcpy(buf_, header_line.data(), header_line.size());
  buf_[header_line.size()] = '\n';
  size_ = header_line.size() + 1;
  const bool ok = flush();
  size_ = 0;
  if (!ok) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
  return ok;
}

void TraceWriter::grow(std::size_t need) {
  if (need <= cap_) return;
  std::size_t cap = cap_ ? cap_ : 4096;
  while (cap < need) cap *= 2;
  char* p = static_cast<char*>(std::realloc(buf_, cap));
  if (!p) std::abort();  // as std::string would (bad_alloc) on the harvester thread
  buf_ = p;
  cap_ = cap;
}

void TraceWriter::append(std::string_view record) {
  char* p = begin_record(record.size());
  if (!record.empty()) std::memcpy(p, record.data(), record.size());
  end_record(p + record.size());
}

bool TraceWriter::write_all(const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
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
  if (fd_ < 0 || size_ == 0) {
    size_ = 0;
    return true;
  }
  reserve_ahead(size_);
  // A full disk loses lines, never the app's run: the error is not retried.
  const bool ok = write_all(buf_, size_);
  if (ok) {
    file_bytes_ += size_;
  } else {
    reserving_ = false;  // the file offset is no longer known here
  }
  size_ = 0;
  return ok;
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
  flush();
  if (reserved_to_ != 0) {
    // Blocks reserved past the end stay allocated until a truncate, even at the same size.
    const off_t end = ::lseek(fd_, 0, SEEK_CUR);
    if (end >= 0) static_cast<void>(::ftruncate(fd_, end));
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clprof::shim
