// The trace descriptor's guard (output/descriptor_guard.hpp): the app's close of the trace's
// descriptor waits for the writer's use in progress and turns later uses away; other
// descriptors, other ranges and the writer's own thread never wait. And the writer
// (output/trace_writer.hpp) asks it before every write.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <thread>

#include "output/descriptor_guard.hpp"
#include "output/trace_writer.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using shim_test::read_file;
using shim_test::TempFile;

namespace {

// A descriptor of our own for the guard (never written here).
struct OpenFile {
  TempFile file;
  int fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ~OpenFile() {
    unguard_descriptor(fd);
    ::close(fd);
  }
};

}  // namespace

TEST_CASE("descriptor guard: only the guarded descriptor, in this process, is turned away") {
  OpenFile f;
  REQUIRE(f.fd >= 0);
  CHECK(DescriptorUse(f.fd).allowed());  // not guarded: always allowed
  CHECK_FALSE(is_trace_descriptor(f.fd));
  guard_descriptor(f.fd);
  CHECK(is_trace_descriptor(f.fd));
  CHECK_FALSE(is_trace_descriptor(f.fd + 1));
  CHECK(DescriptorUse(f.fd).allowed());
  before_app_closes(static_cast<unsigned>(f.fd) + 1, UINT_MAX);  // ranges that miss it
  before_app_closes(0, static_cast<unsigned>(f.fd) - 1);
  CHECK(DescriptorUse(f.fd).allowed());
  before_app_closes(0, UINT_MAX);  // closefrom(0)
  CHECK_FALSE(DescriptorUse(f.fd).allowed());
  CHECK(DescriptorUse(f.fd + 1).allowed());  // another descriptor is not guarded
  // A new trace's descriptor starts untaken.
  guard_descriptor(f.fd);
  CHECK(DescriptorUse(f.fd).allowed());
  unguard_descriptor(f.fd);
  CHECK_FALSE(is_trace_descriptor(f.fd));
  before_app_closes(static_cast<unsigned>(f.fd), static_cast<unsigned>(f.fd));
  CHECK(DescriptorUse(f.fd).allowed());  // unguarded: the app's close is not the trace's
}

TEST_CASE("descriptor guard: the app's close waits for a use in progress on another thread") {
  OpenFile f;
  REQUIRE(f.fd >= 0);
  guard_descriptor(f.fd);
  std::atomic<bool> returned{false};
  std::optional<std::thread> app;
  {
    const DescriptorUse use(f.fd);
    REQUIRE(use.allowed());
    app.emplace([&] {
      before_app_closes(static_cast<unsigned>(f.fd), static_cast<unsigned>(f.fd));
      returned.store(true);
    });
    // The app's side waits (up to kMaxWaitMs) while the use lasts.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_FALSE(returned.load());
  }
  app->join();
  CHECK(returned.load());
  CHECK_FALSE(DescriptorUse(f.fd).allowed());
}

TEST_CASE("descriptor guard: a close on the writer's own thread (a signal handler) does not wait") {
  OpenFile f;
  REQUIRE(f.fd >= 0);
  guard_descriptor(f.fd);
  const DescriptorUse use(f.fd);
  REQUIRE(use.allowed());
  before_app_closes(static_cast<unsigned>(f.fd), static_cast<unsigned>(f.fd));  // returns
  CHECK_FALSE(DescriptorUse(f.fd).allowed());
}

// The app announced its close (its hook ran), but the descriptor still refers to the trace
// file: the fstat check alone would write on; the guard stops the writer.
TEST_CASE("trace writer: once the app's close of its descriptor is announced, nothing is written") {
  TempFile file;
  TraceWriter w;
  std::string error;
  REQUIRE(w.open(file.path, R"({"format":"clprof-trace","records":[)", error));
  w.append(R"({"type":"mark","name":"a","tid":1,"host_ns":1})");
  REQUIRE(w.flush());
  const std::string before = read_file(file.path);
  const int fd = w.fd_for_test();
  before_app_closes(static_cast<unsigned>(fd), static_cast<unsigned>(fd));
  w.append(R"({"type":"mark","name":"b","tid":1,"host_ns":2})");
  CHECK_FALSE(w.flush());
  CHECK(w.lost());
  w.finish(R"({"type":"end"})");
  CHECK(read_file(file.path) == before);
  CHECK(::fcntl(fd, F_GETFD) != -1);  // not closed by the writer: the app's to close
  ::close(fd);
}
