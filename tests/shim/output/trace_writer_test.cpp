// The trace file's writer (output/trace_writer.hpp): whole lines only, aligned writes on
// regular files, a pipe served line by line, a descriptor the app took back.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "output/trace_writer.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using shim_test::read_file;
using shim_test::TempFile;

namespace {

// A mark record whose text is `chars` long (name padded with 'x'), numbered `i`.
std::string mark_of_length(std::size_t chars, int i) {
  const std::string head = R"({"type":"mark","name":")";
  const std::string tail = R"(","tid":1,"host_ns":)" + std::to_string(i) + "}";
  return head + std::string(chars - head.size() - tail.size(), 'x') + tail;
}

}  // namespace

TEST_CASE("trace writer: whole lines, one valid JSON document") {
  TempFile file;
  TraceWriter w;
  std::string error;
  REQUIRE(
      w.open(file.path, R"({"format":"clprof-trace","version":1,"header":{},"records":[)", error));
  w.append(R"({"type":"mark","name":"a","tid":1,"host_ns":1})");
  w.flush();
  {
    // After a flush, the file holds only complete lines (what a crash would leave).
    const std::string text = read_file(file.path);
    CHECK(text.back() == '\n');
    CHECK(text.find(R"({"type":"mark","name":"a","tid":1,"host_ns":1},)"
                    "\n") != std::string::npos);
  }
  w.append(R"({"type":"mark","name":"b","tid":1,"host_ns":2})");
  w.finish(R"({"type":"end","host_ns":3,"counts":{},"incomplete":0,"dropped":0})");
  CHECK_FALSE(w.is_open());
  const std::string text = read_file(file.path);
  rapidjson::Document d;
  d.Parse(text.c_str());
  REQUIRE_FALSE(d.HasParseError());
  REQUIRE(d["records"].Size() == 3);
  CHECK(std::string(d["records"][2]["type"].GetString()) == "end");
  int lines = 0;
  for (char c : text) lines += c == '\n';
  CHECK(lines == 4);
}

TEST_CASE("trace writer: a descriptor the app closed or replaced is never written again") {
  // Daemons close every descriptor they did not open and open files of their own, which
  // may get the trace's number: those files must never get trace lines.
  for (const bool replace : {false, true}) {
    CAPTURE(replace);
    TempFile trace, apps;
    TraceWriter w;
    std::string error;
    REQUIRE(w.open(trace.path, "{\"records\":[", error));
    const int fd = w.fd_for_test();
    CHECK(fd >= TraceWriter::kHighFd);  // out of the app's way (the test's limit allows it)
    w.append(R"({"type":"mark","name":"before","tid":1,"host_ns":1})");
    REQUIRE(w.flush());
    REQUIRE(close(fd) == 0);
    if (replace) {
      const int app_fd = open(apps.path.c_str(), O_WRONLY | O_APPEND);
      REQUIRE(app_fd >= 0);
      REQUIRE(dup2(app_fd, fd) == fd);
      close(app_fd);
    }
    w.append(R"({"type":"mark","name":"after","tid":1,"host_ns":2})");
    CHECK_FALSE(w.flush());
    CHECK(w.lost());
    w.append(R"({"type":"mark","name":"later","tid":1,"host_ns":3})");
    w.finish(R"({"type":"end"})");
    CHECK(read_file(apps.path).empty());  // nothing in the app's file
    const std::string text = read_file(trace.path);
    CHECK(text.find("before") != std::string::npos);
    CHECK(text.find("after") == std::string::npos);
    if (replace) {
      CHECK(fcntl(fd, F_GETFD) >= 0);  // the app's descriptor is left open
      close(fd);
    }
  }
}

TEST_CASE("trace writer: an unwritable path is an error, not a crash") {
  TraceWriter w;
  std::string error;
  CHECK_FALSE(w.open("/nonexistent-dir/x.json", "{", error));
  CHECK(error.find("/nonexistent-dir/x.json") != std::string::npos);
  w.append("{}");
  w.flush();
  w.finish("{}");
}

TEST_CASE("trace writer: writes to a file end on multiples of kFlushBytes, on whole lines") {
  TempFile file;
  const char* path = file.path.c_str();
  TraceWriter w;
  std::string error;
  REQUIRE(w.open(path, R"({"format":"clprof-trace","version":1,"header":{},"records":[)", error));
  constexpr std::size_t kAlign = TraceWriter::kFlushBytes;
  std::vector<std::string> appended;
  std::vector<std::uint64_t> sizes_after_write;  // file size after each write by append
  std::uint64_t writes = w.writes();
  unsigned seed = 12345;
  const auto append = [&](const std::string& record) {
    w.append(record);
    appended.push_back(record);
    if (w.writes() == writes) return;
    writes = w.writes();
    sizes_after_write.push_back(read_file(path).size());
  };
  // ~2.5 MiB of lines of 60-900 characters: two aligned writes.
  for (int i = 0; appended.size() < 5000; ++i) {
    seed = seed * 1103515245u + 12345u;
    append(mark_of_length(60 + (seed >> 16) % 841, i));
  }
  REQUIRE(sizes_after_write.size() == 2);
  CHECK(sizes_after_write[0] == kAlign);
  CHECK(sizes_after_write[1] == 2 * kAlign);
  // The second write (whole blocks at an aligned offset) went straight to the disk, where
  // the file system takes direct writes (the writer leaves tmpfs alone: no disk behind it).
  struct statfs fs {};
  const int probe = ::open(path, O_WRONLY | O_DIRECT);
  if (probe >= 0 && ::fstatfs(probe, &fs) == 0 && fs.f_type != TMPFS_MAGIC) {
    CHECK((::fcntl(w.fd_for_test(), F_GETFL) & O_DIRECT) != 0);
  }
  if (probe >= 0) ::close(probe);
  // The timer's write (whatever is buffered) leaves the file unaligned...
  w.flush();
  writes = w.writes();
  const std::uint64_t after_flush = read_file(path).size();
  CHECK(after_flush % kAlign != 0);
  // ...and the next write realigns it, even with a line longer than any padding between.
  append(mark_of_length(TraceWriter::kMaxPadBytes + 1000, -1));
  for (int i = 0; sizes_after_write.size() < 4; ++i) append(mark_of_length(400, i));
  CHECK(sizes_after_write[2] == 3 * kAlign);
  CHECK(sizes_after_write[3] == 4 * kAlign);
  w.finish(R"({"type":"end","host_ns":3,"counts":{},"incomplete":0,"dropped":0})");

  const std::string text = read_file(path);
  // Every byte before a write boundary ends a line; the line before it carries the padding.
  for (std::uint64_t boundary : {kAlign, 2 * kAlign, 3 * kAlign, 4 * kAlign}) {
    CAPTURE(boundary);
    CHECK(text[boundary - 1] == '\n');
    CHECK(text[boundary - 2] == ' ');
  }
  // The records, in order and unchanged but for trailing spaces; padding stays small.
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // the header
  std::size_t n = 0, padding = 0;
  while (std::getline(lines, line) && n < appended.size()) {
    const std::size_t end = line.find_last_not_of(' ') + 1;
    padding += line.size() - end;
    CHECK(line.substr(0, end) == appended[n] + ",");
    ++n;
  }
  CHECK(n == appended.size());
  CHECK(padding > 0);
  CHECK(padding <= 4 * 900);  // at most one line's length per aligned write
  rapidjson::Document d;
  d.Parse(text.c_str());
  REQUIRE_FALSE(d.HasParseError());
  CHECK(d["records"].Size() == appended.size() + 1);
}

TEST_CASE("trace writer: a pipe gets whole lines and no padding") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::string received;
  std::thread reader([&] {
    char buf[65536];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) received.append(buf, n);
  });
  TraceWriter w;
  std::string error;
  const std::string path = "/proc/self/fd/" + std::to_string(fds[1]);
  REQUIRE(w.open(path, R"({"records":[)", error));
  close(fds[1]);  // the writer has its own descriptor
  std::size_t bytes = 0;
  for (int i = 0; bytes < 3 * TraceWriter::kFlushBytes; ++i) {
    const std::string record = mark_of_length(100 + i % 700, i);
    w.append(record);
    bytes += record.size() + 2;
  }
  CHECK(w.writes() >= 3);
  w.finish("{}");
  reader.join();
  close(fds[0]);
  CHECK(received.find(" \n") == std::string::npos);
  CHECK(received.size() == std::string(R"({"records":[)").size() + 1 + bytes + 5);
}

TEST_CASE("trace writer: a pipe whose reader went away is an error, never a SIGPIPE") {
  // The trace's last writes run on the app's thread at exit: SIGPIPE's default action
  // would end this process (the case could not finish).
  struct sigaction dfl {
  }, old{};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  REQUIRE(sigaction(SIGPIPE, &dfl, &old) == 0);
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  TraceWriter w;
  std::string error;
  REQUIRE(w.open("/proc/self/fd/" + std::to_string(fds[1]), R"({"records":[)", error));
  close(fds[1]);
  close(fds[0]);  // the reader goes away
  w.append(mark_of_length(100, 1));
  CHECK_FALSE(w.flush());
  CHECK(w.write_error() == EPIPE);
  sigset_t pending;
  REQUIRE(sigpending(&pending) == 0);
  CHECK_FALSE(sigismember(&pending, SIGPIPE));  // taken back, not left pending
  w.finish("{}");
  sigaction(SIGPIPE, &old, nullptr);
}

TEST_CASE("trace writer: at a file size limit the file ends with the last whole line, no SIGXFSZ") {
  TempFile file;
  const char* header = R"({"format":"clprof-trace","version":1,"header":{},"records":[)";
  // ~3.5 MiB of lines of 60-900 characters, with a timer's write (unaligned) in the middle;
  // returns the file's content after finish().
  const auto write_sample_trace = [&](TraceWriter& w) {
    unsigned seed = 777;
    for (int i = 0; i < 7000; ++i) {
      seed = seed * 1103515245u + 12345u;
      w.append(mark_of_length(60 + (seed >> 16) % 841, i));
      if (i == 3000) w.flush();
    }
    w.finish(R"({"type":"end","host_ns":3,"counts":{},"incomplete":0,"dropped":0})");
    return read_file(file.path);
  };
  std::string expected;  // what the file holds with room for everything
  {
    TraceWriter w;
    std::string error;
    REQUIRE(w.open(file.path, header, error));
    expected = write_sample_trace(w);
  }
  REQUIRE(expected.size() > 3 * TraceWriter::kFlushBytes);
  // A file size limit of 2.5 MiB, as a full disk: the writer writes the whole lines below
  // it and stops with EFBIG, never starting a write at the limit (the kernel would send
  // SIGXFSZ, whose default action ends this process: the case would not finish).
  rlimit old_limit{};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  rlimit limit = old_limit;
  limit.rlim_cur = 5 * TraceWriter::kFlushBytes / 2;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  TraceWriter w;
  std::string error;
  const bool opened = w.open(file.path, header, error);
  const std::string text = opened ? write_sample_trace(w) : "";
  setrlimit(RLIMIT_FSIZE, &old_limit);
  REQUIRE(opened);
  CHECK_FALSE(w.is_open());
  CHECK(w.write_error() == EFBIG);
  // Every whole line up to the limit (the longest line is 900 characters), nothing past it.
  CHECK(text.size() <= limit.rlim_cur);
  CHECK(text.size() + 1000 > limit.rlim_cur);
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  CHECK(expected.compare(0, text.size(), text) == 0);
  CHECK(text.find('\0') == std::string::npos);
}
