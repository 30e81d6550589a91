#include "trace_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace clprof::shim {

bool TraceWriter::open(const std::string& path, std::string_view header_line, std::string& error) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  buffer_.reserve(1 << 17);
  buffer_.assign(header_line);
  buffer_ += '\n';
  const bool ok = write_all(buffer_.data(), buffer_.size());
  buffer_.clear();
  if (!ok) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
  return ok;
}

void TraceWriter::append(std::string_view record) {
  buffer_.append(record);
  buffer_ += ",\n";
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
  if (fd_ < 0 || buffer_.empty()) {
    buffer_.clear();
    return;
  }
  // A full disk loses lines, never the app's run: the error is not retried.
  write_all(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void TraceWriter::finish(std::string_view end_record) {
  if (fd_ < 0) return;
  buffer_.append(end_record);
  buffer_ += "]}\n";
  flush();
  ::close(fd_);
  fd_ = -1;
}

}  // namespace clprof::shim
