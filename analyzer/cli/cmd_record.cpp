// clprof record: run a program with the shim preloaded, then report its trace files.
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <utility>

#include "cli/commands.hpp"
#include "cli/request.hpp"
#include "clprof/settings_table.hpp"
#include "output/log.hpp"
#include "output/tables/settings.hpp"
#include "readers/reader.hpp"

namespace clprof::cli {

namespace {

// LD_PRELOAD for the program: the shim first, then what the user preloads, except that a
// sanitizer runtime the user preloads stays in front (AddressSanitizer refuses to start
// unless its runtime is the first object loaded; ThreadSanitizer and HWASan want the same).
std::string compose_preload(const std::string& shim, const std::string& old) {
  std::vector<std::string> first, rest;
  std::string entry;
  auto flush = [&] {
    if (entry.empty()) return;
    const std::string base =
        entry.substr(entry.rfind('/') == std::string::npos ? 0 : entry.rfind('/') + 1);
    const bool runtime = base.rfind("libasan", 0) == 0 || base.rfind("libtsan", 0) == 0 ||
                         base.rfind("libhwasan", 0) == 0 ||
                         base.rfind("libclang_rt.asan", 0) == 0 ||
                         base.rfind("libclang_rt.tsan", 0) == 0;
    (runtime ? first : rest).push_back(entry);
    entry.clear();
  };
  for (char c : old) {
    if (c == ':' || c == ' ') {
      flush();
    } else {
      entry += c;
    }
  }
  flush();
  std::string out;
  for (const auto& e : first) out += e + ":";
  out += shim;
  for (const auto& e : rest) out += ":" + e;
  return out;
}

// How the shim is loaded into the program (docs/recording.md says when each is better).
enum class Mode { Preload, Layer };

Mode parse_mode(const std::string& text) {
  if (text == "preload") return Mode::Preload;
  if (text == "layer") return Mode::Layer;
  throw UsageError("--mode: unknown mode '" + text + "' (preload, layer)");
}

// OPENCL_LAYERS for the program: the shim first, so that it sits next to the driver and
// records what reaches it, then the user's layers. (ocl-icd 2.3 also cuts the variable at
// its first ':' in the process that reads it: children still find the shim.)
std::string compose_layers(const std::string& shim, const char* old) {
  return old && *old ? shim + ":" + old : shim;
}

struct RecordOptions {
  std::string output;
  std::string mode = "preload";
  bool list_options = false;
  std::string format = "table";
  std::vector<std::string> command;
};

std::string wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    const std::string word = text.substr(pos, sp - pos);
    pos = sp + 1;
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string list_options_text(output::Format format) {
  using settings::kAll;
  if (format == output::Format::Table) {
    std::string out;
    for (const auto& d : kAll) {
      out += std::string(d.env_name) + " (" + std::string(settings::type_name(d.type)) +
             ", default \"" + std::string(d.default_value) + "\"; " + settings::allowed_values(d) +
             ")\n";
      out += wrap(std::string(d.help), 4, 80);
    }
    return out;
  }
  return output::render_to_string(
      output::tables::settings_result(format == output::Format::Markdown),
      output::RenderOptions{format, SIZE_MAX, false});
}

// The trace is written by the shim inside the program, which cannot tell the user: a
// directory that does not exist or cannot be written is refused before the program runs.
void check_output_directory(const std::string& output) {
  const size_t slash = output.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : output.substr(0, slash);
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    throw UsageError("-o " + output + ": cannot write there: " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) throw UsageError("-o " + output + ": " + dir + " is not a directory");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError("-o " + output + ": cannot write in " + dir + ": " + std::strerror(errno));
}

std::string self_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

// Quotes glob metacharacters so that a literal path part matches only itself.
std::string glob_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> glob_files(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

bool modified_since(const std::string& path, const timespec& since) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  // Coarse file-system timestamps may lag the clock slightly: allow one second.
  return st.st_mtim.tv_sec + 1 >= since.tv_sec;
}

// The files this run wrote: CLPROF_OUTPUT with %p as the root pid, and the names the shim
// gives other processes (every %p expansion, or NAME.<pid>.EXT without %p).
std::vector<std::string> find_traces(const std::string& output, pid_t child,
                                     const timespec& since) {
  std::set<std::string> found;
  if (output.find("%p") != std::string::npos) {
    std::string pattern;
    size_t pos = 0;
    for (size_t p; (p = output.find("%p", pos)) != std::string::npos; pos = p + 2)
      pattern += glob_escape(output.substr(pos, p - pos)) + "[0-9]*";
    pattern += glob_escape(output.substr(pos));
    for (auto& f : glob_files(pattern))
      if (modified_since(f, since)) found.insert(f);
  } else {
    if (modified_since(output, since)) found.insert(output);
    const auto slash = output.rfind('/');
    auto dot = output.rfind('.');
    // "run.json.zst": the shim names the others run.<pid>.json.zst.
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash) &&
        output.substr(dot) == ".zst") {
      const auto inner = output.rfind('.', dot - 1);
      if (inner != std::string::npos && (slash == std::string::npos || inner > slash)) dot = inner;
    }
    std::string stem = output, ext;
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
      stem = output.substr(0, dot);
      ext = output.substr(dot);
    }
    for (auto& f : glob_files(glob_escape(stem) + ".[0-9]*" + glob_escape(ext)))
      if (modified_since(f, since)) found.insert(f);
  }
  (void)child;
  return {found.begin(), found.end()};
}

// What the shim's "%r" becomes in this process's children: the first launcher variable
// set (shim/base/process_facts.hpp, the same order), "0" without one.
std::string own_rank_text() {
  for (const char* name :
       {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    const std::string s = v;
    if (s.size() <= 8 && s.find_first_not_of("0123456789") == std::string::npos &&
        std::stol(s) < (1L << 24))
      return std::to_string(std::stol(s));
  }
  return "0";
}

// "%h": the host name, each '/' as '_'.
std::string own_host_text() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string s = host;
  for (char& c : s)
    if (c == '/') c = '_';
  return s;
}

struct TraceInfo {
  uint64_t launches = 0;
  bool complete = false;
  bool used_opencl = false;  // a record beyond the devices' facts (a queue, a program, ...)
};

TraceInfo inspect_trace(const std::string& path) {
  // One record per line (docs/trace-format.md): counting lines is enough and cheap.
  TraceInfo info;
  // A .zst trace through the readers' opening, which decompresses it (into memory); a
  // plain one line by line.
  std::ifstream plain;
  std::istringstream unpacked;
  std::istream* in = &plain;
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".zst") == 0) {
    uint64_t size = 0;
    int fd = -1;
    try {
      fd = readers::open_regular_file(path, size);
    } catch (const std::exception&) {
      return info;
    }
    std::string text(static_cast<size_t>(size), '\0');
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    ::close(fd);
    text.resize(got);
    unpacked.str(std::move(text));
    in = &unpacked;
  } else {
    plain.open(path, std::ios::binary);
  }
  std::istream& f = *in;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("{\"type\":\"launch\"", 0) == 0) ++info.launches;
    if (line.rfind("{\"type\":\"end\"", 0) == 0) info.complete = true;
    // A process that queried platforms and devices and used none (darktable probing
    // OpenCL at start-up) writes device and clock_sync records alone.
    if (line.rfind("{\"type\":", 0) == 0 && line.rfind("{\"type\":\"device\"", 0) != 0 &&
        line.rfind("{\"type\":\"clock_sync\"", 0) != 0 && line.rfind("{\"type\":\"end\"", 0) != 0 &&
        line.rfind("{\"type\":\"warning\"", 0) != 0)
      info.used_opencl = true;
  }
  return info;
}

int run_record(const RecordOptions& o) {
  const Mode mode = parse_mode(o.mode);
  if (o.list_options) {
    auto f = output::parse_format(o.format);
    if (!f)
      throw UsageError("--format: unknown format '" + o.format + "' (table, csv, json, markdown)");
    std::cout << list_options_text(*f);
    return 0;
  }
  std::vector<std::string> cmd = o.command;
  if (!cmd.empty() && cmd.front() == "--") cmd.erase(cmd.begin());
  if (cmd.empty())
    throw UsageError(
        "record: no program to run (clprof record [-o FILE] [--mode MODE] -- PROGRAM ARGS...)");
  const char* shim_env = std::getenv("CLPROF_SHIM");
  const std::string shim = shim_env && *shim_env ? shim_env : self_dir() + "/../lib/libclprof.so";
  if (access(shim.c_str(), R_OK) != 0)
    throw std::runtime_error("cannot find the shim at '" + shim + "' (set CLPROF_SHIM)");
  std::string output = o.output;
  if (output.empty()) {
    const char* env = std::getenv("CLPROF_OUTPUT");
    output = env && *env ? env : "clprof-%p.json";
  }
  check_output_directory(output);
  const char* old_preload = std::getenv("LD_PRELOAD");
  const std::string preload = compose_preload(shim, old_preload ? old_preload : "");
  const std::string layers = compose_layers(shim, std::getenv("OPENCL_LAYERS"));

  timespec start{};
  clock_gettime(CLOCK_REALTIME, &start);
  std::vector<char*> argv;
  for (auto& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  // Closed by a successful exec; a failed one writes its errno first. So the parent knows
  // whether the program ran at all (if not, there is no trace to look for).
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    close(exec_pipe[0]);
    // The child knows its own pid only now: CLPROF_ROOT_PID tells the shim which process
    // writes CLPROF_OUTPUT unchanged.
    setenv("CLPROF_ROOT_PID", std::to_string(getpid()).c_str(), 1);
    setenv("CLPROF_OUTPUT", output.c_str(), 1);
    if (mode == Mode::Preload) {
      setenv("LD_PRELOAD", preload.c_str(), 1);
    } else {
      setenv("OPENCL_LAYERS", layers.c_str(), 1);
    }
    execvp(argv[0], argv.data());
    const int err = errno;
    std::string msg = "clprof: error: cannot run '" + cmd[0] + "': " + std::strerror(err) + "\n";
    (void)!write(2, msg.data(), msg.size());
    (void)!write(exec_pipe[1], &err, sizeof err);
    _exit(err == ENOENT ? 127 : 126);
  }
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(exec_pipe[0]);
  const bool ran = got != static_cast<ssize_t>(sizeof exec_errno);
  // Like a shell waiting for a foreground job: ^C and ^\ are for the child.
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  const int rc = WIFEXITED(status)     ? WEXITSTATUS(status)
                 : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                       : 1;

  if (!ran) return rc;  // the child said why
  // %r and %h as the shim expands them (docs/settings.md): the program inherits this
  // process's launcher variables and runs on this host.
  output = replace_all(replace_all(output, "%r", own_rank_text()), "%h", own_host_text());
  const std::string expanded = replace_all(output, "%p", std::to_string(pid));
  // A device such as /dev/null is where the user sent the trace on purpose: nothing to list.
  struct stat target;
  if (stat(expanded.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) return rc;
  auto traces = find_traces(output, pid, start);
  if (traces.empty()) {
    log::warning("no trace was written (expected " + expanded +
                 "): the program made no OpenCL call, or the shim said why above");
  }
  for (const auto& t : traces) {
    const auto info = inspect_trace(t);
    log::info(t + ": " + std::to_string(info.launches) + " kernel launch" +
              (info.launches == 1 ? "" : "es") +
              (info.used_opencl ? "" : " (it only queried platforms and devices)") +
              (info.complete ? "" : " (truncated: no end record)"));
  }
  return rc;
}

}  // namespace

std::vector<std::string>& record_command_after_dashes() {
  static std::vector<std::string> command;
  return command;
}

Runner setup_record(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  app.add_option("-o,--output", o->output,
                 "Trace file (CLPROF_OUTPUT; %p = pid; default clprof-%p.json)")
      ->type_name("FILE");
  app.add_option("--mode", o->mode,
                 "How the shim is loaded: preload (LD_PRELOAD, the default) or layer "
                 "(OPENCL_LAYERS, an OpenCL loader layer)")
      ->type_name("MODE");
  app.add_flag("--list-options", o->list_options, "Print the CLPROF_* settings and exit");
  app.add_option("--format", o->format, "--list-options format: table, markdown, csv, json")
      ->type_name("FMT");
  // Everything from the first non-option argument (or after "--") is the program and its
  // arguments, untouched: CLI11 leaves it in remaining().
  app.prefix_command();
  app.footer(
      "Usage: clprof record [-o FILE] [--mode preload|layer] [--] PROGRAM [ARGS...]\n"
      "Sets LD_PRELOAD to the shim (CLPROF_SHIM, else <clprof dir>/../lib/libclprof.so) "
      "ahead of an existing LD_PRELOAD (a sanitizer runtime there stays first), or with "
      "--mode layer OPENCL_LAYERS (the shim ahead of an existing OPENCL_LAYERS), and "
      "CLPROF_OUTPUT and CLPROF_ROOT_PID, runs the program and exits with its status "
      "(128+N if killed by signal N).");
  return [o, &app]() -> int {
    RecordOptions opts = *o;
    for (auto& extra : app.remaining()) opts.command.push_back(extra);
    for (auto& a : record_command_after_dashes()) opts.command.push_back(a);
    return run_record(opts);
  };
}

}  // namespace clprof::cli
