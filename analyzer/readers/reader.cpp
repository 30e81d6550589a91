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

std::string printable(std::string_view text, size_t max_bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t n = text.size() < max_bytes ? text.size() : max_bytes;
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    // A multi-byte UTF-8 sequence is kept whole (names may be in any script), except the
    // C1 controls U+0080..U+009F, which terminals act on too.
    const size_t len = c >= 0xF5 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 1;
    bool whole = len > 1 && i + len <= text.size() &&
                 !(c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0);
    for (size_t k = 1; whole && k < len; ++k)
      whole = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (whole) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

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
