#include "cli_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace clitest {

std::string data(const std::string& name) { return std::string(CLPROF_TEST_DATA) + "/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
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
  const std::string dir = temp_dir();
  const std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::vector<std::string> argv_s = {CLPROF_BIN};
  for (const auto& a : args) argv_s.push_back(!a.empty() && a[0] == '@' ? data(a.substr(1)) : a);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    for (const auto& [k, v] : env) {
      if (v.empty()) unsetenv(k.c_str());
      else setenv(k.c_str(), v.c_str(), 1);
    }
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(99);
    execv(argv[0], argv.data());
    _exit(98);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

}  // namespace clitest
