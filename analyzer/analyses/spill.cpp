#include "analyses/spill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace clprof::analyses {

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t SpillFile::reserve(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) open_file();
  const uint64_t at = end_;
  end_ += bytes;
  return at;
}

uint64_t SpillFile::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return end_;
}

void SpillFile::fail(const std::string& doing, int error) const {
  throw std::runtime_error("cannot spill " + what_ + " to disk (" + doing + "): " +
                           std::strerror(error) + "; set TMPDIR to a directory with free space");
}

// Runs `io` (pread or pwrite) until all `bytes` are done; a count of 0 is `zero_error`.
template <class Io>
void SpillFile::whole(const char* doing, int zero_error, uint64_t offset, char* data, size_t bytes,
                      Io&& io) const {
  while (bytes > 0) {
    const ssize_t n = io(data, bytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string(doing) + " " + dir_, n < 0 ? errno : zero_error);
    data += n;
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<size_t>(n);
  }
}

void SpillFile::write(uint64_t offset, const void* data, size_t bytes) const {
  whole("writing", ENOSPC, offset, static_cast<char*>(const_cast<void*>(data)), bytes,
        [this](char* p, size_t n, off_t at) { return ::pwrite(fd_, p, n, at); });
}

void SpillFile::read(uint64_t offset, void* data, size_t bytes) const {
  whole("reading", EIO, offset, static_cast<char*>(data), bytes,
        [this](char* p, size_t n, off_t at) { return ::pread(fd_, p, n, at); });
}

void SpillFile::release(uint64_t offset, uint64_t bytes) const {
  if (fd_ >= 0 && bytes > 0)
    (void)::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                      static_cast<off_t>(bytes));
}

void SpillFile::open_file() {
  const char* tmp = std::getenv("TMPDIR");
  dir_ = tmp && *tmp ? tmp : "/tmp";
  fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ >= 0) return;
  std::string path = dir_ + "/clprof-spill-XXXXXX";
  fd_ = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd_ < 0) fail("creating a file in " + dir_, errno);
  ::unlink(path.c_str());
}

}  // namespace clprof::analyses
