#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace clprof::shim {
namespace {

int fail(std::string& error, const std::string& path, const std::string& why) {
  error = "cannot create " + path + ": " + why;
  return -1;
}

// `fd` is open on what `path` led to: keep it when the rules allow, else close it.
int judge_opened(int fd, const std::string& path, std::string& error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return fail(error, path, std::strerror(e));
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return fd;
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(error, path, "not a regular file, device or FIFO");
  }
  if (st.st_uid != ::geteuid()) {
    ::close(fd);
    return fail(error, path,
                "it exists and belongs to user " + std::to_string(st.st_uid) +
                    " (left alone; remove it or choose another CLPROF_OUTPUT)");
  }
  // Emptied only now that it is known to be ours (O_TRUNC would have done it first).
  if (::ftruncate(fd, 0) != 0) {
    const int e = errno;
    ::close(fd);
    return fail(error, path, std::strerror(e));
  }
  return fd;
}

}  // namespace

int open_output_file(const std::string& path, std::string& error, unsigned mode) {
  // A few rounds: the name may appear or vanish between two calls (another process
  // writing the same trace name, a cleaner removing it).
  for (int round = 0; round < 4; ++round) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) return fd;
    if (errno != EEXIST) return fail(error, path, std::strerror(errno));
    struct stat link {};
    if (::lstat(path.c_str(), &link) != 0) {
      if (errno == ENOENT) continue;
      return fail(error, path, std::strerror(errno));
    }
    int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    if (S_ISLNK(link.st_mode)) {
      if (link.st_uid != ::geteuid() && link.st_uid != 0) {
        return fail(error, path,
                    "it is a symbolic link of user " + std::to_string(link.st_uid) +
                        " (not followed; remove it or choose another CLPROF_OUTPUT)");
      }
    } else {
      flags |= O_NOFOLLOW;  // it must still be what lstat saw, not a link put there since
    }
    // O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of blocking the app.
    const int opened = ::open(path.c_str(), flags);
    if (opened < 0) {
      if (errno == ENOENT) continue;
      return fail(error, path, std::strerror(errno));
    }
    const int kept = judge_opened(opened, path, error);
    if (kept >= 0) {
      // Writes block as they would without O_NONBLOCK (a pipe the reader drains slowly).
      const int fl = ::fcntl(kept, F_GETFL);
      if (fl >= 0) static_cast<void>(::fcntl(kept, F_SETFL, fl & ~O_NONBLOCK));
    }
    return kept;
  }
  return fail(error, path, "it keeps appearing and vanishing");
}

}  // namespace clprof::shim
