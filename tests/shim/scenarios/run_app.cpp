#include "run_app.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <rapidjson/error/en.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace shim_test {

namespace {

// Variables that would change what the app or the shim does: the test sets them itself.
bool is_controlled(const std::string& name) {
  return name.rfind("CLPROF_", 0) == 0 || name.rfind("FAKE_CL_", 0) == 0 ||
         name.rfind("OCL_ICD_", 0) == 0 || name == "LD_PRELOAD" ||
         name.rfind("OPENCL_LAYER", 0) == 0;
}

std::vector<std::string> build_env(const RunOptions& o) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = kv.substr(0, eq);
    if (!is_controlled(name)) env[name] = kv.substr(eq + 1);
  }
  env["OCL_ICD_VENDORS"] = CLPROF_TEST_FAKE_ICD_FILE;
  env["OCL_ICD_FILENAMES"] = CLPROF_TEST_FAKE_ICD_LIB;
  if (o.preload_shim) {
    // A sanitizer build: the sanitizer's runtime must come first in the process, so it
    // is preloaded ahead of the (instrumented) shim, as a user of such a build would.
    const std::string first = CLPROF_TEST_PRELOAD_FIRST;
    env["LD_PRELOAD"] = first.empty() ? CLPROF_TEST_SHIM_LIB : first + ":" + CLPROF_TEST_SHIM_LIB;
  }
  if (!o.output.empty()) env["CLPROF_OUTPUT"] = o.output;
  for (const auto& [name, value] : o.env) {
    if (value) {
      env[name] = *value;
    } else {
      env.erase(name);
    }
  }
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

pid_t spawn_app(const RunOptions& o, const std::string& io_dir, const std::string& app_path) {
  const std::vector<std::string> env = build_env(o);
  std::vector<char*> envp;
  for (const std::string& s : env) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);
  const std::string app = app_path.empty() ? std::string(CLPROF_TEST_APP) : app_path;
  std::vector<char*> argv;
  for (const std::string& w : o.wrapper) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(const_cast<char*>(app.c_str()));
  argv.push_back(const_cast<char*>(o.scenario.c_str()));
  if (!o.arg.empty()) argv.push_back(const_cast<char*>(o.arg.c_str()));
  argv.push_back(nullptr);
  const std::string out_path = io_dir + "/stdout.txt";
  const std::string err_path = io_dir + "/stderr.txt";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.cwd.c_str());
  pid_t pid = 0;
  const int rc = o.wrapper.empty()
                     ? posix_spawn(&pid, app.c_str(), &fa, nullptr, argv.data(), envp.data())
                     : posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE_MESSAGE(rc == 0, "posix_spawn failed: ", std::strerror(rc));
  return pid;
}

RunResult wait_app(pid_t pid, const std::string& io_dir) {
  RunResult r;
  r.pid = pid;
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.core_dumped = WIFSIGNALED(status) && WCOREDUMP(status);
  r.out = read_file(io_dir + "/stdout.txt");
  r.err = read_file(io_dir + "/stderr.txt");
  std::istringstream lines(r.out);
  std::string key;
  long long value = 0;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream ls(line);
    if (ls >> key >> value) r.values[key] = value;
  }
  return r;
}

RunResult run_app(const RunOptions& options, const std::string& io_dir, const std::string& app) {
  return wait_app(spawn_app(options, io_dir, app), io_dir);
}

EnvChanges system_opencl() {
  return {{"OCL_ICD_VENDORS", std::string("/etc/OpenCL/vendors")},
          {"OCL_ICD_FILENAMES", std::nullopt}};
}

TracedRun::TracedRun(const std::string& scenario, const EnvChanges& env) {
  const std::string out = dir.file("x.json");
  app = run_app({scenario, true, out, env}, dir.path());
  REQUIRE_MESSAGE(app.exit_code == 0, scenario, " under the shim: ", app.err);
  REQUIRE(load_trace(out, trace));
}

std::string stable_output(const std::string& out) {
  std::istringstream lines(out);
  std::string line, kept;
  while (std::getline(lines, line)) {
    if (line.rfind("pid ", 0) == 0 || line.rfind("tid ", 0) == 0 || line.rfind("child ", 0) == 0)
      continue;
    kept += line + "\n";
  }
  return kept;
}

std::vector<const rapidjson::Value*> Trace::of_type(const char* type) const {
  std::vector<const rapidjson::Value*> out;
  for (const rapidjson::Value* r : records) {
    auto it = r->FindMember("type");
    if (it != r->MemberEnd() && it->value.IsString() &&
        std::strcmp(it->value.GetString(), type) == 0)
      out.push_back(r);
  }
  return out;
}

const rapidjson::Value* Trace::by_id(const char* type, std::uint64_t id) const {
  for (const rapidjson::Value* r : of_type(type)) {
    auto it = r->FindMember("id");
    if (it != r->MemberEnd() && it->value.IsUint64() && it->value.GetUint64() == id) return r;
  }
  return nullptr;
}

bool load_trace(const std::string& path, Trace& t) {
  if (!file_exists(path)) {
    FAIL_CHECK("no trace file at ", path);
    return false;
  }
  t.text = read_file(path);
  // Well-formed UTF-8 too: the analyzer's parser requires it (docs/trace-format.md).
  t.doc.Parse<rapidjson::kParseValidateEncodingFlag>(t.text.c_str(), t.text.size());
  if (t.doc.HasParseError()) {
    // The bytes around the error, so that a failure in CI shows what was written.
    const std::size_t at = t.doc.GetErrorOffset();
    const std::size_t from = at > 200 ? at - 200 : 0;
    FAIL_CHECK("trace ", path, " is not valid JSON: ",
               std::string(rapidjson::GetParseError_En(t.doc.GetParseError())), " at offset ", at,
               " of ", t.text.size(), ": ", printable(t.text, from, 400, at));
    return false;
  }
  if (!t.doc.IsObject() || !t.doc.HasMember("records") || !t.doc["records"].IsArray() ||
      !t.doc.HasMember("header") || !t.doc["header"].IsObject()) {
    FAIL_CHECK("trace ", path, " lacks header/records");
    return false;
  }
  t.records.clear();
  for (const auto& r : t.doc["records"].GetArray()) {
    if (!r.IsObject()) {
      FAIL_CHECK("a record is not an object");
      return false;
    }
    t.records.push_back(&r);
  }
  // One record per line: line count = 1 (header) + number of records.
  std::size_t lines = 0;
  for (char c : t.text) lines += c == '\n';
  if (!t.text.empty() && t.text.back() != '\n') ++lines;
  CHECK_MESSAGE(lines == 1 + t.records.size(), "trace ", path, " is not one record per line");
  if (t.records.empty() || !(*t.records.back()).HasMember("type") ||
      std::strcmp((*t.records.back())["type"].GetString(), "end") != 0) {
    FAIL_CHECK("the last record of ", path, " is not the end record");
    return false;
  }
  return true;
}

bool is_whole_trace(const std::string& text) {
  return text.size() >= 3 && text.compare(text.size() - 3, 3, "]}\n") == 0;
}

bool load_partial_trace(const std::string& path, Trace& t) {
  if (!file_exists(path)) {
    FAIL_CHECK("no trace file at ", path);
    return false;
  }
  std::string text = read_file(path);
  const std::size_t last = text.rfind('\n');
  if (last == std::string::npos) {
    FAIL_CHECK("trace ", path, " has no whole line");
    return false;
  }
  text.resize(last + 1);  // a line cut by the kill goes
  if (is_whole_trace(text)) return load_trace(path, t);
  // The records array closed after the last whole record: its ",", the padding spaces
  // and the newline go.
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (!text.empty() && text.back() == ',') text.pop_back();
  t.text = text + "]}";
  t.doc.Parse<rapidjson::kParseValidateEncodingFlag>(t.text.c_str(), t.text.size());
  if (t.doc.HasParseError() || !t.doc.IsObject() || !t.doc.HasMember("records") ||
      !t.doc["records"].IsArray()) {
    FAIL_CHECK("trace ", path, " is not a trace cut after a whole record");
    return false;
  }
  t.records.clear();
  for (const auto& r : t.doc["records"].GetArray()) t.records.push_back(&r);
  return true;
}

std::string fnv1a64(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace shim_test
