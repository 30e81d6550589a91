#include "output/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <set>

namespace clprof::log {

namespace {

// "warning: " and "error: " after "clprof: "; "debug: " for debug lines.
class LevelPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view p;
    if (msg.level == spdlog::level::warn)
      p = "warning: ";
    else if (msg.level >= spdlog::level::err)
      p = "error: ";
    else if (msg.level <= spdlog::level::debug)
      p = "debug: ";
    dest.append(p.data(), p.data() + p.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelPrefix>();
  }
};

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> l = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
    auto formatter = std::make_unique<spdlog::pattern_formatter>();
    formatter->add_flag<LevelPrefix>('*').set_pattern("clprof: %*%v");
    sink->set_formatter(std::move(formatter));
    auto lg = std::make_shared<spdlog::logger>("clprof", sink);
    lg->set_level(spdlog::level::info);
    lg->flush_on(spdlog::level::trace);  // stderr order must follow stdout's
    return lg;
  }();
  return *l;
}

}  // namespace

void set_level(Level level) {
  static const spdlog::level::level_enum levels[] = {spdlog::level::debug, spdlog::level::info,
                                                     spdlog::level::warn, spdlog::level::err};
  logger().set_level(levels[static_cast<int>(level)]);
}

namespace {

// The progress line may be written by a background thread (output/progress.hpp) while the
// main thread logs: one lock orders them, and a log line first erases a progress line.
std::mutex& progress_lock() {
  static std::mutex m;
  return m;
}
bool progress_on_screen = false;

void erase_progress_locked() {
  if (!progress_on_screen) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  progress_on_screen = false;
}

template <typename F>
void logged(F&& write) {
  std::lock_guard<std::mutex> g(progress_lock());
  erase_progress_locked();
  write();
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

void debug(std::string_view m) {
  logged([&] { logger().debug("{}", printable(m)); });
}
void info(std::string_view m) {
  logged([&] { logger().info("{}", printable(m)); });
}
void warning(std::string_view m) {
  logged([&] { logger().warn("{}", printable(m)); });
}
void error(std::string_view m) {
  logged([&] { logger().error("{}", printable(m)); });
}

bool progress_shown() {
  return ::isatty(STDERR_FILENO) == 1 && logger().should_log(spdlog::level::info);
}

void progress(std::string_view line) {
  if (!progress_shown()) return;
  std::lock_guard<std::mutex> g(progress_lock());
  std::fprintf(stderr, "\rclprof: %.*s\x1b[K", static_cast<int>(line.size()), line.data());
  std::fflush(stderr);
  progress_on_screen = true;
}

void progress_clear() {
  std::lock_guard<std::mutex> g(progress_lock());
  erase_progress_locked();
}

void warnings(const std::vector<std::string>& messages) {
  std::set<std::string> seen;
  for (const auto& w : messages)
    if (seen.insert(w).second) warning(w);
}

}  // namespace clprof::log
