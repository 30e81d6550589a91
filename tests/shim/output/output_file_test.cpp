// open_output_file: what the trace's path gets when something is already there
// (shim/output/output_file.hpp). Cases with another user's file or link need root (to
// chown them) and are skipped without it.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "output/output_file.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using shim_test::read_file;
using shim_test::TempDir;

namespace {

constexpr uid_t kOtherUser = 12345;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Opens `path` with open_output_file and writes `text`; the error when it fails.
std::string open_and_write(const std::string& path, const std::string& text) {
  std::string error;
  const int fd = open_output_file(path, error);
  if (fd < 0) return error.empty() ? "failed without a reason" : error;
  CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  CHECK(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  return "";
}

}  // namespace

TEST_CASE("output file: a new path is created") {
  TempDir dir;
  CHECK(open_and_write(dir.file("t.json"), "trace") == "");
  CHECK(read_file(dir.file("t.json")) == "trace");
}

TEST_CASE("output file: a file of the user's is emptied and rewritten") {
  TempDir dir;
  write_text(dir.file("t.json"), "an older, longer trace");
  CHECK(open_and_write(dir.file("t.json"), "new") == "");
  CHECK(read_file(dir.file("t.json")) == "new");
}

TEST_CASE("output file: a link of the user's is followed; a dangling one creates nothing") {
  TempDir dir;
  write_text(dir.file("real.json"), "old");
  REQUIRE(symlink("real.json", dir.file("link.json").c_str()) == 0);
  CHECK(open_and_write(dir.file("link.json"), "via link") == "");
  CHECK(read_file(dir.file("real.json")) == "via link");
  // A link to nothing: O_EXCL does not create through it, and opening it finds nothing.
  REQUIRE(symlink("missing.json", dir.file("dangling.json").c_str()) == 0);
  CHECK(open_and_write(dir.file("dangling.json"), "x") != "");
  CHECK_FALSE(shim_test::file_exists(dir.file("missing.json")));
}

TEST_CASE("output file: another user's link is not followed, and its target is untouched") {
  if (geteuid() != 0) {
    MESSAGE("needs root to make another user's link; skipped");
    return;
  }
  TempDir dir;
  write_text(dir.file("victim.txt"), "precious");
  const std::string link = dir.file("t.json");
  REQUIRE(symlink(dir.file("victim.txt").c_str(), link.c_str()) == 0);
  REQUIRE(lchown(link.c_str(), kOtherUser, kOtherUser) == 0);
  const std::string error = open_and_write(link, "trace");
  CHECK(error.find("symbolic link of user 12345") != std::string::npos);
  CHECK(read_file(dir.file("victim.txt")) == "precious");
  // Nor a dangling one: nothing is created where it points.
  const std::string dangling = dir.file("d.json");
  REQUIRE(symlink(dir.file("created.txt").c_str(), dangling.c_str()) == 0);
  REQUIRE(lchown(dangling.c_str(), kOtherUser, kOtherUser) == 0);
  CHECK(open_and_write(dangling, "trace") != "");
  CHECK_FALSE(shim_test::file_exists(dir.file("created.txt")));
}

TEST_CASE("output file: another user's file is left alone") {
  if (geteuid() != 0) {
    MESSAGE("needs root to make another user's file; skipped");
    return;
  }
  TempDir dir;
  const std::string path = dir.file("t.json");
  write_text(path, "theirs");
  REQUIRE(chown(path.c_str(), kOtherUser, kOtherUser) == 0);
  const std::string error = open_and_write(path, "trace");
  CHECK(error.find("belongs to user 12345") != std::string::npos);
  CHECK(read_file(path) == "theirs");
}

TEST_CASE("output file: devices are written as they are; a FIFO without reader never blocks") {
  CHECK(open_and_write("/dev/null", "trace") == "");
  struct stat st {};
  REQUIRE(stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(open_and_write(fifo, "trace").find("No such device or address") != std::string::npos);
  // With its reader open, a FIFO is written (and the descriptor blocks as usual).
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  std::string error;
  const int fd = open_output_file(fifo, error);
  REQUIRE(fd >= 0);
  CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);
  CHECK(write(fd, "ab", 2) == 2);
  char buf[4] = {};
  CHECK(read(reader, buf, sizeof buf) == 2);
  close(fd);
  close(reader);
}

TEST_CASE("output file: a directory is an error") {
  TempDir dir;
  CHECK(open_and_write(dir.path(), "x") != "");
}
