#include "output/progress.hpp"

#include <chrono>
#include <cstdio>

#include "output/log.hpp"

namespace clprof::output {

namespace {

constexpr uint64_t kShownFrom = uint64_t{16} << 20;

std::string size_text(double bytes) {
  char buf[32];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / (1024.0 * 1024));
  return buf;
}

}  // namespace

std::string ReadProgress::line(uint64_t done, uint64_t total, double seconds,
                               double analysing_seconds) {
  if (done > total) done = total;
  if (analysing_seconds >= 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " in %.0f s; analysing (%.0f s)",
                  seconds - analysing_seconds > 0 ? seconds - analysing_seconds : 0.0,
                  analysing_seconds);
    return "read " + size_text(static_cast<double>(total)) + buf;
  }
  const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", 100.0 * fraction);
  std::string s = "reading " + size_text(static_cast<double>(done)) + " of " +
                  size_text(static_cast<double>(total)) + " (" + percent + ")";
  if (seconds > 0.5 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    s += ", " + size_text(rate) + "/s";
    char left[32];
    std::snprintf(left, sizeof left, ", %.0f s left", static_cast<double>(total - done) / rate);
    s += left;
  }
  return s;
}

ReadProgress::ReadProgress(uint64_t total_bytes) : total_(total_bytes) {
  if (total_ < kShownFrom || !log::progress_shown()) return;
  log::progress(line(0, total_, 0));
  ticker_ = std::thread([this] { run(); });
}

ReadProgress::~ReadProgress() {
  if (!ticker_.joinable()) return;
  {
    std::lock_guard<std::mutex> g(m_);
    stop_ = true;
  }
  cv_.notify_all();
  ticker_.join();
  // What follows reading (finishing the analysis, rendering) has no byte count: say so
  // until the output (or a log line) erases it.
  log::progress("analysing...");
}

void ReadProgress::run() {
  const auto start = std::chrono::steady_clock::now();
  double read_at = -1;  // seconds from start when everything had been read
  std::unique_lock<std::mutex> g(m_);
  while (!cv_.wait_for(g, std::chrono::milliseconds(250), [this] { return stop_; })) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const uint64_t done = done_.load(std::memory_order_relaxed);
    if (done >= total_ && read_at < 0) read_at = seconds;
    log::progress(line(done, total_, seconds, read_at < 0 ? -1 : seconds - read_at));
  }
}

}  // namespace clprof::output
