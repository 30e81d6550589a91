#include "base/process_facts.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <initializer_list>

namespace clprof::shim {

std::vector<std::string> command_line() {
  std::vector<std::string> out;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(f, arg, '\0')) out.push_back(arg);
  return out;
}

long root_pid_from_env() {
  const char* v = secure_getenv("CLPROF_ROOT_PID");  // checked by settings()
  return v ? std::strtol(v, nullptr, 10) : 0;
}

std::string session_id_from_env() {
  const char* v = secure_getenv("CLPROF_SESSION_ID");  // checked by settings()
  return v ? v : "";
}

void ensure_session_id() {
  const char* v = secure_getenv("CLPROF_SESSION_ID");
  if (v && *v) return;  // (empty counts as unset, as for every setting)
  std::uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof r)) {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);  // no entropy yet (early boot): time and pid
    r = (static_cast<std::uint64_t>(t.tv_sec) * 1000000007u) ^
        static_cast<std::uint64_t>(t.tv_nsec) ^ (static_cast<std::uint64_t>(getpid()) << 40);
  }
  char id[17];
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) id[i] = kHex[(r >> (60 - 4 * i)) & 15];
  id[16] = '\0';
  setenv("CLPROF_SESSION_ID", id, 1);
}

namespace {

std::optional<long> first_number(std::initializer_list<const char*> names) {
  constexpr long kMax = 1L << 24;
  for (const char* name : names) {
    const char* v = secure_getenv(name);
    if (!v || !*v) continue;
    long n = 0;
    const char* p = v;
    for (; *p >= '0' && *p <= '9' && n < kMax; ++p) n = n * 10 + (*p - '0');
    if (*p == '\0' && n < kMax) return n;
  }
  return std::nullopt;
}

}  // namespace

RankFacts rank_from_env() {
  RankFacts r;
  r.rank = first_number(
      {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"});
  r.world_size =
      first_number({"OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
  return r;
}

// The TSC may stand in for CLOCK_MONOTONIC only where the kernel itself derives that
// clock from an invariant TSC.
bool tsc_is_host_clock() {
#if defined(__x86_64__)
  std::ifstream cs("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  if (!(cs >> source) || source != "tsc") return false;
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" constant_tsc") != std::string::npos &&
             line.find(" nonstop_tsc") != std::string::npos;
    }
  }
#endif
  return false;
}

// Only the start of the file is read: the header is its first line. Only a regular file,
// opened without waiting: a FIFO planted at the path would block a plain open for ever.
bool holds_trace_of(const std::string& path, long pid) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  char buf[4096 + 8];
  const ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return false;
  buf[got] = '\0';
  // A ".zst" trace starts with a skippable frame holding the header line (8 bytes of its
  // own header first: shim/output/zstd_frames.hpp).
  static const char kSkippable[4] = {0x50, 0x2A, 0x4D, 0x18};
  const bool framed = got >= 8 && std::memcmp(buf, kSkippable, 4) == 0;
  const char* head = framed ? buf + 8 : buf;
  const std::string key = "\"pid\":" + std::to_string(pid) + ",";
  return std::strstr(head, "\"format\":\"clprof-trace\"") && std::strstr(head, key.c_str());
}

// The directory's link count is its threads plus "." and "..": one stat, and no
// descriptor taken (the shim's constructor asks, and an app thread may be opening files).
std::size_t thread_count() {
  struct stat task {};
  if (::stat("/proc/self/task", &task) != 0 || task.st_nlink < 3) return 0;
  return static_cast<std::size_t>(task.st_nlink - 2);
}

}  // namespace clprof::shim
