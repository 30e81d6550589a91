#include "readers/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace clprof::readers {

namespace {

std::string format_location(const std::string& file, size_t line, size_t column,
                            const std::string& message) {
  std::string out = file;
  out += ':';
  out += std::to_string(line);
  out += ':';
  out += std::to_string(column);
  out += ": ";
  out += message;
  return out;
}

}  // namespace

InputError::InputError(std::string file, size_t line, size_t column, std::string message)
    : std::runtime_error(format_location(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

int open_regular_file(const std::string& path, uint64_t& size_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang; it is rejected below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw InputError(path, 0, 0, std::string("cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, 0, "cannot read: Is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, 0, "cannot read: not a regular file (save the trace to a file)");
  }
  size_bytes = static_cast<uint64_t>(st.st_size);
  return fd;
}

}  // namespace clprof::readers
