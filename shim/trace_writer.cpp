#include "trace_writer.hpp"

#include <fcntl.h>
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
  // Room for a flush's worth of records (the harvester flushes at 256 KiB) and one more.
  grow(std::max<std::size_t>(header_line.size() + 1, 320 * 1024));
  std::memcpy(buf_, header_line.data(), header_line.size());
  buf_[header_line.size()] = '\n';
  const bool ok = write_all(buf_, header_line.size() + 1);
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

void TraceWriter::flush() {
  if (fd_ < 0 || size_ == 0) {
    size_ = 0;
    return;
  }
  // A full disk loses lines, never the app's run: the error is not retried.
  write_all(buf_, size_);
  size_ = 0;
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
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clprof::shim
