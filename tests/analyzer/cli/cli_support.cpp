#include "cli_support.hpp"

#include "run_child.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace clitest {

std::string data(const std::string& name) {
  return std::string(CLPROF_TEST_DATA) + "/" + name;
}

std::string read_file(const std::string& path) {
  return clprof::test::slurp(path);
}

namespace {
struct TempRoot {
  std::string path;
  TempRoot() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/clprof-cli-test-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempRoot() { (void)!std::system(("rm -rf '" + path + "'").c_str()); }
};
TempRoot& root() {
  static TempRoot r;
  return r;
}
int counter = 0;
}  // namespace

std::string temp_dir() {
  const std::string d = root().path + "/d" + std::to_string(++counter);
  if (mkdir(d.c_str(), 0700) != 0) throw std::runtime_error("mkdir failed");
  return d;
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string p = temp_dir() + "/" + name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

Result run(const std::vector<std::string>& args,
           const std::vector<std::pair<std::string, std::string>>& env, const std::string& cwd) {
  std::vector<std::string> argv = {CLPROF_BIN};
  for (const auto& a : args) argv.push_back(!a.empty() && a[0] == '@' ? data(a.substr(1)) : a);
  const auto c = clprof::test::run_child(argv, env, cwd, temp_dir());
  return Result{c.status, c.out, c.err};
}

}  // namespace clitest
