#include <doctest/doctest.h>
#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/handback_queues.hpp"
#include "recording/record.hpp"
#include "recording/record_ring.hpp"
#include "output/trace_writer.hpp"

using namespace clprof::shim;

TEST_CASE("ring: every item from many producers arrives exactly once") {
  struct Item {
    int producer;
    int index;
  };
  MpscRing<Item> ring(64);  // small, so producers meet a full ring often
  constexpr int kProducers = 4;
  constexpr int kPerProducer = 20000;
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&ring, p] {
      for (int i = 0; i < kPerProducer; ++i) {
        auto slot = ring.try_claim();
        while (!slot.value) {
          std::this_thread::yield();
          slot = ring.try_claim();
        }
        slot.value->producer = p;
        slot.value->index = i;
        ring.publish(slot);
      }
    });
  }
  std::vector<int> next(kProducers, 0);
  int received = 0;
  bool in_order = true;
  while (received < kProducers * kPerProducer) {
    if (Item* it = ring.front()) {
      // One producer's items keep their order.
      if (it->index != next[it->producer]) in_order = false;
      next[it->producer] = it->index + 1;
      ring.pop();
      ++received;
    } else {
      std::this_thread::yield();
    }
  }
  for (auto& t : producers) t.join();
  CHECK(in_order);
  CHECK(ring.front() == nullptr);
  for (int p = 0; p < kProducers; ++p) CHECK(next[p] == kPerProducer);
}

TEST_CASE("ring: full ring refuses, then accepts after a pop") {
  MpscRing<int> ring(2);
  auto a = ring.try_claim();
  REQUIRE(a.value);
  ring.publish(a);
  auto b = ring.try_claim();
  REQUIRE(b.value);
  ring.publish(b);
  CHECK(ring.try_claim().value == nullptr);
  REQUIRE(ring.front());
  ring.pop();
  CHECK(ring.try_claim().value != nullptr);
}

TEST_CASE("ring: a hand-back left at pop goes to the next claimer of that cell, once") {
  MpscRing<int> ring(2);
  int token_a = 0, token_b = 0;
  auto s0 = ring.try_claim();  // position 0, cell 0
  REQUIRE(s0.value);
  CHECK(s0.handback == nullptr);
  ring.publish(s0);
  REQUIRE(ring.front());
  ring.pop(&token_a);          // cell 0 freed, carrying token_a
  auto s1 = ring.try_claim();  // position 1, cell 1: nothing there
  REQUIRE(s1.value);
  CHECK(s1.handback == nullptr);
  ring.publish(s1);
  auto s2 = ring.try_claim();  // position 2, cell 0 again
  REQUIRE(s2.value);
  CHECK(s2.handback == &token_a);
  ring.publish(s2);
  CHECK(ring.take_handback(0) == nullptr);  // the claimer took it already
  REQUIRE(ring.front());
  ring.pop(&token_b);  // position 1 -> cell 1
  CHECK(ring.dequeue_pos() == 2);
  CHECK(ring.take_handback(1) == &token_b);  // the consumer takes it back itself
  CHECK(ring.take_handback(1) == nullptr);
  REQUIRE(ring.front());
  ring.pop();
  auto s3 = ring.try_claim();  // position 3, cell 1: taken back, so empty
  REQUIRE(s3.value);
  CHECK(s3.handback == nullptr);
}

TEST_CASE("ring: a hand-back offered to a freed cell later reaches its next claimer") {
  MpscRing<int> ring(4);
  int token_a = 0, token_b = 0, token_c = 0;
  for (int i = 0; i < 2; ++i) {  // positions 0 and 1, freed without hand-backs
    auto s = ring.try_claim();
    REQUIRE(s.value);
    ring.publish(s);
    REQUIRE(ring.front());
    CHECK(ring.pop() == nullptr);
  }
  CHECK(ring.offer_handback(0, &token_a));
  CHECK_FALSE(ring.offer_handback(0, &token_b));  // one per cell
  // Positions 2, 3, then 4 = cell 0 again: its claimer takes token_a.
  std::vector<MpscRing<int>::Slot> slots;
  for (int i = 0; i < 3; ++i) {
    slots.push_back(ring.try_claim());
    REQUIRE(slots.back().value);
  }
  CHECK(slots[2].pos == 4);
  CHECK(slots[2].handback == &token_a);
  // Cell 1, freed at position 1, is claimed next at position 5, not yet: an offer lands.
  CHECK(ring.offer_handback(1, &token_b));
  // A cell claimed since it was freed (position 0 -> claimed as 4) takes no offer.
  CHECK_FALSE(ring.offer_handback(0, &token_c));
  for (auto& s : slots) ring.publish(s);
  // (An offer that lands just after a claimer looked would come back from pop(); that
  // needs two threads at the same moment, which this test does not stage.)
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 2
  auto s5 = ring.try_claim();    // position 5, cell 1: takes token_b
  REQUIRE(s5.value);
  CHECK(s5.handback == &token_b);
  ring.publish(s5);
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 3
  REQUIRE(ring.front());
  CHECK(ring.pop() == nullptr);  // position 4 (cell 0): token_a went to its claimer
}

TEST_CASE("freed cells: oldest first; only the last `capacity` positions are kept") {
  FreedCells f(4);
  std::size_t pos = 99;
  CHECK_FALSE(f.pop(pos));
  for (std::size_t p = 10; p < 16; ++p) f.push(p);  // 10 and 11 dropped
  CHECK(f.size() == 4);
  for (std::size_t want = 12; want < 16; ++want) {
    REQUIRE(f.pop(pos));
    CHECK(pos == want);
  }
  CHECK_FALSE(f.pop(pos));
  f.push(20);
  f.clear();
  CHECK_FALSE(f.pop(pos));
}

namespace {
std::vector<void*> g_released;
void note_release(void* e) {
  g_released.push_back(e);
}
void* event_no(std::size_t i) {
  return reinterpret_cast<void*>(0x1000 + 16 * i);
}
}  // namespace

TEST_CASE("hand-backs: first in first out; beyond kMaxWaiting an event is released at once") {
  g_released.clear();
  Handbacks h(note_release);
  CHECK(h.next() == nullptr);
  constexpr std::size_t kMax = Handbacks::kMaxWaiting;
  for (std::size_t i = 0; i < kMax + 10; ++i) h.add(event_no(i));
  CHECK(h.waiting() == kMax);
  REQUIRE(g_released.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) CHECK(g_released[i] == event_no(kMax + i));
  // Taking some makes room again; order is kept across the wrap of the fixed array.
  for (std::size_t i = 0; i < 100; ++i) CHECK(h.next() == event_no(i));
  for (std::size_t i = 0; i < 100; ++i) h.add(event_no(1000 + i));
  CHECK(h.waiting() == kMax);
  CHECK(g_released.size() == 10);
  for (std::size_t i = 100; i < kMax; ++i) CHECK(h.next() == event_no(i));
  CHECK(h.next() == event_no(1000));
  h.release_all();
  CHECK(h.waiting() == 0);
  CHECK(h.next() == nullptr);
  REQUIRE(g_released.size() == 10 + 99);
  CHECK(g_released.back() == event_no(1099));
}

namespace {
// A launch with n arguments whose fields and argument bytes all differ.
void fill_launch(OpRecord& r, unsigned n_args, std::uint64_t salt) {
  std::memset(static_cast<void*>(&r), 0xEE, sizeof r);  // args past n_args: junk
  r.kind = RecordKind::Launch;
  r.n_args = static_cast<std::uint16_t>(n_args);
  r.total_args = static_cast<std::uint16_t>(n_args);
  r.n_ranges = 2;
  r.ranges[0] = 7;
  r.ranges[1] = 9;
  r.kernel_id = salt;
  r.gws[0] = salt * 3;
  r.host_end_ns = static_cast<std::int64_t>(salt * 5);
  r.event = &r;
  for (unsigned i = 0; i < n_args; ++i) {
    r.args[i].kind = ArgKind::Scalar;
    r.args[i].size = 8;
    for (unsigned b = 0; b < sizeof r.args[i].bytes; ++b)
      r.args[i].bytes[b] = static_cast<std::uint8_t>(salt + i + b);
  }
}
}  // namespace

TEST_CASE("pending copies: a copy keeps the used part, in storage sized for it, reused per size") {
  CHECK(PendingCopies::room_for(0) == 4);
  CHECK(PendingCopies::room_for(3) == 4);
  CHECK(PendingCopies::room_for(5) == 8);
  CHECK(PendingCopies::room_for(16) == 16);
  CHECK(PendingCopies::room_for(17) == kMaxRecordedArgs);
  CHECK(PendingCopies::bytes_for_args(kMaxRecordedArgs) == sizeof(OpRecord));
  CHECK(PendingCopies::bytes_for_args(4) * 3 < sizeof(OpRecord));
  auto slot = std::make_unique<OpRecord>();
  PendingCopies copies;
  for (unsigned n : {0u, 3u, 8u, 20u, kMaxRecordedArgs}) {
    CAPTURE(n);
    fill_launch(*slot, n, 40 + n);
    OpRecord* c = copies.copy(*slot);
    REQUIRE(c);
    CHECK(c->n_args == n);
    CHECK(c->n_ranges == 2);
    CHECK(c->ranges[1] == 9);
    CHECK(c->kernel_id == 40 + n);
    CHECK(c->gws[0] == (40 + n) * 3);
    CHECK(c->host_end_ns == static_cast<std::int64_t>((40 + n) * 5));
    CHECK(c->event == slot.get());
    for (unsigned i = 0; i < n; ++i) {
      CHECK(c->args[i].kind == ArgKind::Scalar);
      CHECK(std::memcmp(c->args[i].bytes, slot->args[i].bytes, sizeof c->args[i].bytes) == 0);
    }
    // Freed and asked again for the same size: the same storage; another size: other storage.
    copies.recycle(c);
    OpRecord* again = copies.copy(*slot);
    CHECK(again == c);
    fill_launch(*slot, n < 4 ? 30 : 1, 1);
    OpRecord* other = copies.copy(*slot);
    CHECK(other != c);
    copies.recycle(again);
    copies.recycle(other);
  }
}

namespace {

// A new empty file for a writer test, removed at the end.
struct TempFile {
  char path[32] = "/tmp/clprof_writer_test_XXXXXX";
  TempFile() {
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
  }
  ~TempFile() { std::remove(path); }
};

std::string read_file(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

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
      const int app_fd = open(apps.path, O_WRONLY | O_APPEND);
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
  const char* path = file.path;
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

TEST_CASE("trace writer: writes past a file size limit fail; the file holds all before them") {
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
  // A file size limit fails the writes past 2.5 MiB (EFBIG; SIGXFSZ ignored), as a full
  // disk would: a short write, then failed ones, and the run goes on.
  struct sigaction ignore = {};
  struct sigaction old_action = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old_action);
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
  sigaction(SIGXFSZ, &old_action, nullptr);
  REQUIRE(opened);
  CHECK_FALSE(w.is_open());
  CHECK(text.size() == limit.rlim_cur);  // everything up to the limit, nothing past it
  CHECK(expected.compare(0, text.size(), text) == 0);
  CHECK(text.find('\0') == std::string::npos);
}
