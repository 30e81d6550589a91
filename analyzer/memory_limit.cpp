#include "memory_limit.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLPROF_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CLPROF_SANITIZED 1
#endif
#endif

namespace clprof {

namespace {

std::atomic<uint64_t> g_applied{0};

// A cgroup v2 limit ("max" or a byte count), 0 when there is none.
uint64_t cgroup_limit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  return parse_memory_size(text).value_or(0);
}

// A size as people read it: MiB from 1 MiB on, KiB below it, bytes below 1 KiB (never
// "0 MiB" for a limit of 1K).
std::string mib(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  uint64_t ram =
      pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  const uint64_t cgroup = cgroup_limit();
  if (cgroup && (ram == 0 || cgroup < ram)) ram = cgroup;
  return ram / 2;
}

std::optional<uint64_t> parse_memory_size(std::string_view text) {
  size_t i = 0;
  uint64_t n = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (n > (uint64_t{1} << 62) / 10) return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (i == 0) return std::nullopt;
  std::string suffix;
  for (; i < text.size(); ++i)
    suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  int shift = 0;
  if (suffix.empty() || suffix == "B")
    shift = 0;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    shift = 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
    shift = 40;
  else
    return std::nullopt;
  if (n > ((uint64_t{1} << 62) >> shift)) return std::nullopt;
  return n << shift;
}

bool apply_memory_limit(uint64_t bytes, std::string* error) {
#ifdef CLPROF_SANITIZED
  (void)bytes;
  if (error) *error = "not applied in a sanitizer build";
  return false;
#else
  struct rlimit current;
  if (::getrlimit(RLIMIT_DATA, &current) != 0) {
    if (error) *error = std::strerror(errno);
    return false;
  }
  struct rlimit wanted = current;
  const rlim_t limit = bytes == 0 ? RLIM_INFINITY : static_cast<rlim_t>(bytes);
  // Never above the hard limit someone else set (raising it needs privileges).
  wanted.rlim_cur =
      current.rlim_max == RLIM_INFINITY || limit < current.rlim_max ? limit : current.rlim_max;
  if (::setrlimit(RLIMIT_DATA, &wanted) != 0) {
    if (error) *error = std::strerror(errno);
    return false;
  }
  g_applied.store(wanted.rlim_cur == RLIM_INFINITY ? 0 : static_cast<uint64_t>(wanted.rlim_cur));
  return true;
#endif
}

uint64_t applied_memory_limit() {
  return g_applied.load();
}

std::string out_of_memory_message() {
  const uint64_t limit = applied_memory_limit();
  if (limit == 0) return "out of memory";
  return "out of memory: reading and analysing the input needs more than the " + mib(limit) +
         " of --max-memory (default: half of the RAM); raise it, e.g. --max-memory 16G, or "
         "--max-memory 0 for no limit";
}

}  // namespace clprof
