#include "output/views/out_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace clprof::output::views {

OutFile::OutFile(const std::string& path)
    : to_stdout_(path.empty()), name_(path.empty() ? "stdout" : path) {
  file_ = to_stdout_ ? std::tmpfile() : std::fopen(path.c_str(), "w+b");
  if (!file_)
    fail(to_stdout_ ? "cannot create a temporary file for stdout" : "cannot open for writing");
}

OutFile::~OutFile() {
  if (file_) std::fclose(file_);
}

void OutFile::fail(const std::string& what) const {
  const int e = errno;
  throw std::runtime_error("'" + name_ + "': " + what +
                           (e ? std::string(": ") + std::strerror(e) : ""));
}

void OutFile::write(std::string_view text) {
  if (text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail("cannot write");
}

uint64_t OutFile::position() {
  const long p = std::ftell(file_);
  if (p < 0) fail("cannot tell the position");
  return static_cast<uint64_t>(p);
}

void OutFile::cut_back(uint64_t position) {
  errno = 0;
  if (std::fflush(file_) != 0 || ::ftruncate(fileno(file_), static_cast<off_t>(position)) != 0 ||
      std::fseek(file_, static_cast<long>(position), SEEK_SET) != 0)
    fail("cannot cut back");
}

void OutFile::finish() {
  errno = 0;
  if (std::fflush(file_) != 0) fail("cannot write");
  if (to_stdout_) {
    std::rewind(file_);
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0)
      if (std::fwrite(buf, 1, n, stdout) != n) fail("cannot write");
    if (std::ferror(file_)) fail("cannot read back the temporary file");
    if (std::fflush(stdout) != 0) fail("cannot write");
  }
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) fail("cannot write");
}

}  // namespace clprof::output::views
