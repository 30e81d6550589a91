// open_output_file: what the trace's path gets when something is already there
// (shim/output/output_file.hpp). Cases with another user's file or link need root (to
// chown them) and are skipped without it.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
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
  if (geteuid() != 0) CLPROF_SKIP("needs root to make another user's link");
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
  if (geteuid() != 0) CLPROF_SKIP("needs root to make another user's file");
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

namespace {

// A header line as the shim writes its start (json_line.cpp), by hand.
std::string header_of(long pid, const std::string& session) {
  return "{\"format\":\"clprof-trace\",\"version\":2,\"header\":{\"pid\":" + std::to_string(pid) +
         ",\"ppid\":1,\"command_line\":[\"app\"],\"session_id\":\"" + session +
         "\"},\"records\":[\n";
}

}  // namespace

TEST_CASE("name claim: a missing name is created and claimed, with no file left beside it") {
  TempDir dir;
  const std::string path = dir.file("run.json");
  OutputNameClaim claim;
  CHECK(claim.claim(path, "s1", 100) == NameClaim::Claimed);
  CHECK(shim_test::file_exists(path));
  CHECK(read_file(path).empty());
  claim.release();
  CHECK(shim_test::list_dir(dir.path()) == std::vector<std::string>{"run.json"});
}

TEST_CASE("name claim: a file of this run is taken; of another run, or no trace, is stale") {
  TempDir dir;
  const std::string path = dir.file("run.json");
  OutputNameClaim claim;
  write_text(path, header_of(100, "s1"));
  CHECK(claim.claim(path, "s1", 200) == NameClaim::TakenByRun);
  CHECK(claim.claim(path, "s1", 100) == NameClaim::TakenByThisImage);  // an exec of pid 100
  CHECK(claim.claim(path, "s2", 200) == NameClaim::Claimed);           // an earlier run's
  claim.release();
  CHECK(read_file(path) == header_of(100, "s1"));  // the claim itself writes nothing
  write_text(path, "");  // an empty file (a claimer that died before its header)
  CHECK(claim.claim(path, "s1", 200) == NameClaim::Claimed);
  claim.release();
  // A header cut before its end is no header; a session id that is a prefix of another's
  // does not match it.
  write_text(path, header_of(100, "s1").substr(0, 40));
  CHECK(claim.claim(path, "s1", 200) == NameClaim::Claimed);
  claim.release();
  write_text(path, header_of(100, "s10"));
  CHECK(claim.claim(path, "s1", 200) == NameClaim::Claimed);
  claim.release();
  write_text(path, "not a trace\n");
  CHECK(claim.claim(path, "s1", 200) == NameClaim::Claimed);
}

TEST_CASE("name claim: a link, a device, a directory or no session id is unclaimable") {
  TempDir dir;
  OutputNameClaim claim;
  const std::string target = dir.file("target.json");
  write_text(target, header_of(100, "s1"));
  const std::string link = dir.file("link.json");
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
  CHECK(claim.claim(link, "s1", 200) == NameClaim::Unclaimable);
  CHECK(claim.claim("/dev/null", "s1", 200) == NameClaim::Unclaimable);
  CHECK(claim.claim(dir.path(), "s1", 200) == NameClaim::Unclaimable);
  CHECK(claim.claim(dir.file("new.json"), "", 200) == NameClaim::Unclaimable);
  CHECK(!shim_test::file_exists(dir.file("new.json")));
  CHECK(claim.claim(dir.file("no-such-dir/run.json"), "s1", 200) == NameClaim::Unclaimable);
}

TEST_CASE("name claim: a second claimer waits for the first one's header") {
  TempDir dir;
  const std::string path = dir.file("run.json");
  int go[2];
  REQUIRE(pipe(go) == 0);
  // Forked before the claim, so it shares none of the first claimer's descriptors: another
  // process of the run that asks while the first one writes its header.
  const pid_t child = fork();
  if (child == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(2);
    OutputNameClaim second;
    _exit(second.claim(path, "s1", 200) == NameClaim::TakenByRun ? 0 : 1);
  }
  OutputNameClaim first;
  REQUIRE(first.claim(path, "s1", 100) == NameClaim::Claimed);
  REQUIRE(write(go[1], "x", 1) == 1);
  usleep(50 * 1000);  // the child is waiting on the lock by now (or asks after the header)
  write_text(path, header_of(100, "s1"));
  first.release();
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // it saw the header, not the empty file
  close(go[0]);
  close(go[1]);
}
