#include "output/output_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

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

namespace {

// The first line of the trace `fd` holds, at most kMax bytes of it ("" if none).
std::string first_line(int fd) {
  constexpr std::size_t kMax = 1 << 16;  // a header with a long command line still fits
  std::string text(kMax, '\0');
  std::size_t got = 0;
  while (got < kMax) {
    const ssize_t n = ::pread(fd, &text[got], kMax - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    if (std::memchr(&text[got - static_cast<std::size_t>(n)], '\n', static_cast<std::size_t>(n)))
      break;
  }
  text.resize(got);
  // A ".zst" trace: the header line is a skippable frame's content (zstd_frames.hpp).
  static const char kSkippable[4] = {0x50, 0x2A, 0x4D, 0x18};
  if (text.size() >= 8 && std::memcmp(text.data(), kSkippable, 4) == 0) text.erase(0, 8);
  const std::size_t nl = text.find('\n');
  return nl == std::string::npos ? "" : text.substr(0, nl);  // an unfinished header: none
}

// What the header line says about who wrote it. "session_id" is the header's last member
// and its value a name (settings_table.hpp), so the text below cannot occur inside one of
// the header's strings (their quotes are escaped).
NameClaim judge_header(const std::string& line, const std::string& session_id, long pid) {
  const std::string start = "{\"format\":\"clprof-trace\",";
  const std::string session = "\"session_id\":\"" + session_id + "\"}";
  if (line.rfind(start, 0) != 0 || line.find(session) == std::string::npos)
    return NameClaim::Claimed;  // stale: not this run's
  const std::string own = "\"header\":{\"pid\":" + std::to_string(pid) + ",";
  return line.find(own) != std::string::npos ? NameClaim::TakenByThisImage : NameClaim::TakenByRun;
}

int lock_exclusive(int fd) {
  int rc;
  while ((rc = ::flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
  }
  return rc;
}

}  // namespace

NameClaim OutputNameClaim::claim(const std::string& path, const std::string& session_id, long pid) {
  release();
  if (session_id.empty()) return NameClaim::Unclaimable;
  for (int round = 0; round < 8; ++round) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno != ENOENT) return NameClaim::Unclaimable;
      // Created under a private name, locked, then given the shared name in one step.
      const std::string mine = path + ".claim." + std::to_string(pid);
      ::unlink(mine.c_str());  // one a process of the same pid left behind
      const int fd =
          ::open(mine.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
      if (fd < 0) return NameClaim::Unclaimable;
      const bool locked = lock_exclusive(fd) == 0;
      const int linked = locked ? ::link(mine.c_str(), path.c_str()) : -1;
      const int link_errno = errno;
      ::unlink(mine.c_str());
      if (linked == 0) {
        lock_fd_ = fd;
        return NameClaim::Claimed;
      }
      ::close(fd);
      if (!locked || link_errno != EEXIST) return NameClaim::Unclaimable;
      continue;  // another process linked first: judge what it put there
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) return NameClaim::Unclaimable;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return NameClaim::Unclaimable;
    }
    struct stat opened {
    }, now{};
    if (lock_exclusive(fd) != 0 || ::fstat(fd, &opened) != 0) {
      ::close(fd);
      return NameClaim::Unclaimable;
    }
    // Still the file the name leads to (not removed or replaced while we waited).
    if (::lstat(path.c_str(), &now) != 0 || now.st_ino != opened.st_ino ||
        now.st_dev != opened.st_dev) {
      ::close(fd);
      continue;
    }
    const NameClaim verdict = judge_header(first_line(fd), session_id, pid);
    if (verdict == NameClaim::Claimed) {
      lock_fd_ = fd;
    } else {
      ::close(fd);
    }
    return verdict;
  }
  return NameClaim::Unclaimable;
}

void OutputNameClaim::release() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing drops the lock
  lock_fd_ = -1;
}

}  // namespace clprof::shim
