// Files for the shim's tests, unit and end-to-end alike: fresh directories and files that
// remove themselves, and reading what a run left behind. Failures fail the current
// doctest case.
#pragma once

#include <string>
#include <vector>

namespace shim_test {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Absolute path of the directory.
  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// An empty file of its own in a fresh directory, removed with it.
struct TempFile {
  TempFile();
  TempDir dir;
  std::string path;
};

// The whole file ("" if it cannot be read).
std::string read_file(const std::string& path);
// How many times `what` occurs in `text` (non-empty `what`).
std::size_t count_of(const std::string& text, const std::string& what);
// Bytes [from, from + n) of `text` for a failure message: printable ASCII as is, every
// other byte as \xHH, and "<<HERE>>" before byte `mark` (npos: none).
std::string printable(const std::string& text, std::size_t from, std::size_t n,
                      std::size_t mark = std::string::npos);
// True if `path` exists (any kind of file).
bool file_exists(const std::string& path);
// Names of the entries of directory `path`, unsorted.
std::vector<std::string> list_dir(const std::string& path);

}  // namespace shim_test
