// Progress of reading large inputs, on stderr when it is a terminal (log::progress_shown()):
// "reading 1.2 GiB of 4.0 GiB (30%), 410 MiB/s, 7 s left", rewritten every quarter of a
// second by a background thread from a counter the readers add the bytes they read to, and
// once everything is read, the phase: "read 4.0 GiB in 9 s; analysing (3 s)"; at its end it
// leaves "analysing..." until the output or a log line erases it (cli/emit.cpp clears it
// before writing). Quiet otherwise, and for inputs under 16 MiB.
// Threads: counter() may be added to from any thread; construct and destroy on one.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace clprof::output {

class ReadProgress {
 public:
  // `total_bytes`: what will be read in all (a file read twice counts twice).
  explicit ReadProgress(uint64_t total_bytes);
  ~ReadProgress();
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;

  std::atomic<uint64_t>* counter() { return &done_; }
  // The line for `done` bytes of `total` after `seconds` (a pure function, for tests);
  // `analysing_seconds` >= 0: everything was read that long ago (the analysis phase).
  static std::string line(uint64_t done, uint64_t total, double seconds,
                          double analysing_seconds = -1);

 private:
  void run();
  uint64_t total_;
  std::atomic<uint64_t> done_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace clprof::output
