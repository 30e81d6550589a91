#include "e2e_support.hpp"

#include <clprof/trace_schema.hpp>

#include <doctest/doctest.h>
#include <rapidjson/error/en.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace clprof::e2e {

namespace tf = clprof::trace;

const Paths& paths() {
  static const Paths p{CLPROF_E2E_BIN_DIR,      CLPROF_E2E_SHIM,   CLPROF_E2E_CLI,
                       CLPROF_E2E_EXAMPLES_SRC, CLPROF_E2E_PYTHON, CLPROF_E2E_WORK_ROOT};
  return p;
}

fs::path fresh_work_dir(const std::string& name) {
  const fs::path dir = paths().work_root / name;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  return dir;
}

namespace {

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_profiler_variable(const std::string& entry) {
  return entry.rfind("LD_PRELOAD=", 0) == 0 || entry.rfind("CLPROF_", 0) == 0 ||
         entry.rfind("OPENCL_LAYERS=", 0) == 0;
}

}  // namespace

std::string shim_preload() {
  const std::string first = CLPROF_TEST_PRELOAD_FIRST;
  return first.empty() ? paths().shim.string() : first + ":" + paths().shim.string();
}

RunResult run_program(const std::vector<std::string>& argv, const EnvChanges& env,
                      const fs::path& dir, const std::string& tag, unsigned timeout_s) {
  REQUIRE(!argv.empty());
  INFO("program: " << argv[0]);
  REQUIRE(fs::exists(argv[0]));

  // Everything the child needs is built before fork(): after fork only async-signal-safe
  // calls are allowed.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (is_profiler_variable(entry)) continue;
    bool overridden = false;
    for (const auto& [name, value] : env) overridden |= entry.rfind(name + "=", 0) == 0;
    if (!overridden) env_strings.push_back(entry);
  }
  bool sets_preload = false, sets_layers = false;
  for (const auto& [name, value] : env) {
    env_strings.push_back(name + "=" + value);
    sets_preload |= name == "LD_PRELOAD";
    sets_layers |= name == "OPENCL_LAYERS";
  }
  // A sanitizer build of the shim needs its runtime first in the programs it is loaded
  // into without LD_PRELOAD: as a loader layer, or by `clprof record` (which keeps a
  // preloaded sanitizer runtime ahead of the shim). Not in the others: preloaded into a
  // program that loads libstdc++ only later (python3), ASan's runtime aborts at the first
  // C++ exception.
  const std::string first = CLPROF_TEST_PRELOAD_FIRST;
  if (!sets_preload && !first.empty() && (sets_layers || argv[0] == paths().clprof_cli.string()))
    env_strings.push_back("LD_PRELOAD=" + first);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (std::string& s : args) argp.push_back(s.data());
  argp.push_back(nullptr);
  const std::string out_path = (dir / (tag + ".stdout")).string();
  const std::string err_path = (dir / (tag + ".stderr")).string();

  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int out_fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out_fd < 0 || err_fd < 0) _exit(126);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    // A pending alarm survives execve: the program is killed by SIGALRM if it hangs.
    alarm(timeout_s);
    execve(argp[0], argp.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    REQUIRE(errno == EINTR);
  }
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

RunResult clprof_ok(const std::vector<std::string>& args, const fs::path& dir,
                    const std::string& tag) {
  std::vector<std::string> argv{paths().clprof_cli.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run_program(argv, {}, dir, tag, 120);
  INFO("clprof " << tag << " stderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  REQUIRE_MESSAGE(!d.HasParseError(), "not JSON: " << text.substr(0, 200));
  return d;
}

RunResult run_with_and_without_shim(const std::vector<std::string>& argv, const fs::path& dir,
                                    const fs::path& trace, unsigned timeout_s,
                                    const EnvChanges& extra_env, ShimMode mode) {
  REQUIRE_MESSAGE(fs::exists(paths().shim), "the shim is not built: " << paths().shim);
  const RunResult plain = run_program(argv, extra_env, dir, "plain", timeout_s);
  INFO("plain run stderr:\n" << plain.err);
  REQUIRE_MESSAGE(plain.exit_code == 0, "the example fails even without clprof");

  EnvChanges env = extra_env;
  // (Layer mode: run_program preloads a sanitizer build's runtime by itself.)
  if (mode != ShimMode::Layer) env.emplace_back("LD_PRELOAD", shim_preload());
  if (mode != ShimMode::Preload) env.emplace_back("OPENCL_LAYERS", paths().shim.string());
  env.emplace_back("CLPROF_OUTPUT", trace.string());
  const RunResult profiled = run_program(argv, env, dir, "profiled", timeout_s);
  INFO("profiled run stderr:\n" << profiled.err);
  CHECK(profiled.exit_code == plain.exit_code);
  CHECK(profiled.out == plain.out);
  REQUIRE_MESSAGE(fs::exists(trace), "no trace written at " << trace);
  return profiled;
}

// ---- reading fields ------------------------------------------------------------------

bool has_member(const Json& object, std::string_view key) {
  return object.IsObject() &&
         object.FindMember(rapidjson::StringRef(key.data(), key.size())) != object.MemberEnd();
}

const Json& member(const Json& object, std::string_view key) {
  REQUIRE_MESSAGE(object.IsObject(), "not an object while looking for " << std::string(key));
  const auto it = object.FindMember(rapidjson::StringRef(key.data(), key.size()));
  REQUIRE_MESSAGE(it != object.MemberEnd(), "missing field \"" << std::string(key) << "\"");
  return it->value;
}

int64_t get_int(const Json& object, std::string_view key) {
  const Json& v = member(object, key);
  REQUIRE_MESSAGE(v.IsInt64(), "field \"" << std::string(key) << "\" is not an integer");
  return v.GetInt64();
}

uint64_t get_uint(const Json& object, std::string_view key) {
  const Json& v = member(object, key);
  REQUIRE_MESSAGE(v.IsUint64(), "field \"" << std::string(key) << "\" is not an unsigned");
  return v.GetUint64();
}

std::string get_string(const Json& object, std::string_view key) {
  const Json& v = member(object, key);
  REQUIRE_MESSAGE(v.IsString(), "field \"" << std::string(key) << "\" is not a string");
  return std::string(v.GetString(), v.GetStringLength());
}

namespace {

// An array of integers of type T (uint64_t or int64_t): each element must fit T.
template <class T>
std::vector<T> integer_array(const Json& v, std::string_view what) {
  REQUIRE_MESSAGE(v.IsArray(), std::string(what) << " is not an array");
  std::vector<T> out;
  for (const Json& e : v.GetArray()) {
    REQUIRE_MESSAGE(e.Is<T>(), std::string(what) << " holds a non-integer");
    out.push_back(e.Get<T>());
  }
  return out;
}

std::vector<uint64_t> uint_array(const Json& v, std::string_view what) {
  return integer_array<uint64_t>(v, what);
}

std::vector<int64_t> int_array(const Json& v, std::string_view what) {
  return integer_array<int64_t>(v, what);
}

std::optional<std::vector<uint64_t>> optional_uint_array(const Json& v, std::string_view what) {
  if (v.IsNull()) return std::nullopt;
  return uint_array(v, what);
}

std::string to_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// ---- Trace ---------------------------------------------------------------------------

Trace::Trace(const fs::path& file) {
  const std::string text = read_file(file);
  INFO("trace: " << file.string());
  doc_.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());  // UTF-8 too
  REQUIRE_MESSAGE(!doc_.HasParseError(), "trace does not parse at offset "
                                             << doc_.GetErrorOffset() << ": "
                                             << rapidjson::GetParseError_En(doc_.GetParseError()));
  REQUIRE(doc_.IsObject());
  CHECK(get_string(doc_, tf::top::format) == tf::kFormatName);
  CHECK(get_int(doc_, tf::top::version) == tf::kVersion);
  const Json& record_array = member(doc_, tf::top::records);
  REQUIRE(record_array.IsArray());
  for (const Json& r : record_array.GetArray()) {
    REQUIRE(r.IsObject());
    all_.push_back(&r);
  }
  REQUIRE_MESSAGE(!all_.empty(), "trace has no records");

  // The line layout is part of the contract (a reader of a cut-short file relies on it):
  // line 1 opens "records", then one record per line, each ending in "," except the last,
  // which is the end record followed by "]}".
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  REQUIRE(lines.size() == all_.size() + 1);
  CHECK(lines.front().rfind("{", 0) == 0);
  const std::string opener = "\"records\":[";
  REQUIRE(lines.front().size() >= opener.size());
  CHECK(lines.front().substr(lines.front().size() - opener.size()) == opener);
  for (size_t i = 1; i + 1 < lines.size(); ++i) {
    INFO("trace line " << i + 1);
    CHECK(lines[i].rfind("{\"type\":", 0) == 0);
    CHECK(lines[i].back() == ',');
  }
  CHECK(lines.back().rfind("{\"type\":\"end\"", 0) == 0);
  CHECK(lines.back().size() >= 2);
  CHECK(lines.back().substr(lines.back().size() - 2) == "]}");
  REQUIRE_MESSAGE(get_string(*all_.back(), tf::type_key) == tf::end::kTypeName,
                  "the last record is not \"end\": the trace was cut short");

  for (const Json* r : records(tf::launch::kTypeName)) {
    Launch l;
    l.record = r;
    l.seq = get_uint(*r, tf::launch::seq);
    l.tid = get_int(*r, tf::launch::tid);
    l.rc = get_int(*r, tf::launch::rc);
    l.kernel = get_string(*r, tf::launch::kernel);
    l.kernel_id = get_uint(*r, tf::launch::kernel_id);
    l.queue_id = get_uint(*r, tf::launch::queue_id);
    l.device_id = get_uint(*r, tf::launch::device_id);
    l.gws = uint_array(member(*r, tf::launch::gws), "gws");
    l.lws = optional_uint_array(member(*r, tf::launch::lws), "lws");
    l.gwo = optional_uint_array(member(*r, tf::launch::gwo), "gwo");
    l.host_ns = int_array(member(*r, tf::launch::host_ns), "host_ns");
    const Json& dev = member(*r, tf::launch::device_ns);
    if (!dev.IsNull()) l.device_ns = int_array(dev, "device_ns");
    l.status = get_string(*r, tf::launch::status);
    l.ranges = uint_array(member(*r, tf::launch::ranges), "ranges");
    l.args = &member(*r, tf::launch::args);
    REQUIRE(l.args->IsArray());
    launches_.push_back(std::move(l));
  }
  std::sort(launches_.begin(), launches_.end(),
            [](const Launch& a, const Launch& b) { return a.seq < b.seq; });

  for (const Json* r : records(tf::range_begin::kTypeName)) {
    Range g;
    g.id = get_uint(*r, tf::range_begin::id);
    g.parent = get_uint(*r, tf::range_begin::parent);
    g.name = get_string(*r, tf::range_begin::name);
    g.tid = get_int(*r, tf::range_begin::tid);
    g.begin_ns = get_int(*r, tf::range_begin::host_ns);
    INFO("range id " << g.id);
    CHECK_MESSAGE(g.id != 0, "range id 0 is reserved for 'none'");
    CHECK_MESSAGE(ranges_.count(g.id) == 0, "range id used twice");
    ranges_[g.id] = g;
  }
  for (const Json* r : records(tf::range_end::kTypeName)) {
    const uint64_t id = get_uint(*r, tf::range_end::id);
    INFO("range_end id " << id);
    auto it = ranges_.find(id);
    REQUIRE_MESSAGE(it != ranges_.end(), "range_end without range_begin");
    CHECK_MESSAGE(!it->second.end_ns.has_value(), "two range_end records for one range");
    it->second.end_ns = get_int(*r, tf::range_end::host_ns);
    CHECK(get_int(*r, tf::range_end::tid) == it->second.tid);
    if (has_member(*r, tf::range_end::open)) {
      it->second.closed_at_exit = member(*r, tf::range_end::open).IsTrue();
    }
  }
}

const Json& Trace::header() const {
  return member(doc_, tf::top::header);
}

std::vector<const Json*> Trace::records(std::string_view type) const {
  std::vector<const Json*> out;
  for (const Json* r : all_) {
    if (get_string(*r, tf::type_key) == type) out.push_back(r);
  }
  return out;
}

std::vector<Launch> Trace::launches_of(std::string_view kernel) const {
  std::vector<Launch> out;
  for (const Launch& l : launches_) {
    if (l.kernel == kernel) out.push_back(l);
  }
  return out;
}

const Range& Trace::range(uint64_t id) const {
  const auto it = ranges_.find(id);
  REQUIRE_MESSAGE(it != ranges_.end(), "no range_begin for range id " << id);
  return it->second;
}

std::vector<std::string> Trace::range_names(const std::vector<uint64_t>& ids) const {
  std::vector<std::string> names;
  for (uint64_t id : ids) names.push_back(range(id).name);
  return names;
}

// ---- invariants ----------------------------------------------------------------------

namespace {

// A record's "ranges" must be exactly the enqueuing thread's stack of open ranges:
// outermost first, each the parent of the next, all on the record's thread, all open
// during the whole API call.
void check_record_ranges(const Trace& trace, const std::vector<uint64_t>& ids, int64_t tid,
                         int64_t host_begin, int64_t host_end) {
  uint64_t expected_parent = 0;
  for (uint64_t id : ids) {
    const Range& g = trace.range(id);
    INFO("range " << id << " \"" << g.name << "\"");
    CHECK(g.tid == tid);
    CHECK(g.parent == expected_parent);
    CHECK(g.begin_ns <= host_begin);
    if (g.end_ns) CHECK(host_end <= *g.end_ns);
    expected_parent = id;
  }
}

void check_device_times(const std::optional<std::vector<int64_t>>& device_ns) {
  REQUIRE_MESSAGE(device_ns.has_value(), "device_ns is null for a completed command");
  REQUIRE(device_ns->size() == 4);
  const auto& d = *device_ns;
  CHECK(d[0] <= d[1]);  // queued <= submit
  CHECK(d[1] <= d[2]);  // submit <= start
  CHECK(d[2] <= d[3]);  // start <= end
}

}  // namespace

void check_trace_invariants(const Trace& trace) {
  const Json& header = trace.header();
  CHECK(get_int(header, tf::header::pid) > 0);
  CHECK(member(header, tf::header::command_line).IsArray());
  CHECK(get_string(header, tf::header::host_clock) == "CLOCK_MONOTONIC");
  get_int(header, tf::header::host_start_ns);
  get_int(header, tf::header::start_unix_ns);

  const Json& end = *trace.records(tf::end::kTypeName).back();
  CHECK(trace.records(tf::end::kTypeName).size() == 1);
  CHECK(get_uint(end, tf::end::dropped) == 0);
  CHECK(get_uint(end, tf::end::incomplete) == 0);
  const Json& counts = member(end, tf::end::counts);
  CHECK(get_uint(counts, tf::launch::kTypeName) == trace.launches().size());

  std::set<uint64_t> device_ids, queue_ids;
  for (const Json* d : trace.records(tf::device::kTypeName)) {
    device_ids.insert(get_uint(*d, tf::device::id));
  }
  REQUIRE_MESSAGE(!device_ids.empty(), "no device record");
  for (const Json* q : trace.records(tf::queue::kTypeName)) {
    queue_ids.insert(get_uint(*q, tf::queue::id));
    CHECK(device_ids.count(get_uint(*q, tf::queue::device_id)) == 1);
  }
  std::map<uint64_t, const Json*> kernels;
  for (const Json* k : trace.records(tf::kernel::kTypeName))
    kernels[get_uint(*k, tf::kernel::id)] = k;

  // seq: one per-process counter over launch, transfer and sync records.
  std::set<uint64_t> seqs;
  auto take_seq = [&seqs](const Json& r) {
    const uint64_t seq = get_uint(r, tf::launch::seq);
    INFO("seq " << seq);
    CHECK_MESSAGE(seqs.insert(seq).second, "seq used twice");
  };

  for (const Launch& l : trace.launches()) {
    INFO("launch seq " << l.seq << " kernel " << l.kernel);
    take_seq(*l.record);
    CHECK(l.rc == 0);
    CHECK(l.status == tf::name(tf::Status::Complete));
    check_device_times(l.device_ns);
    REQUIRE(l.host_ns.size() == 2);
    CHECK(l.host_ns[0] <= l.host_ns[1]);
    CHECK(device_ids.count(l.device_id) == 1);
    CHECK(queue_ids.count(l.queue_id) == 1);
    REQUIRE_FALSE(l.gws.empty());
    CHECK(l.gws.size() <= 3);
    if (l.lws) CHECK(l.lws->size() == l.gws.size());
    if (l.gwo) CHECK(l.gwo->size() == l.gws.size());
    const auto k = kernels.find(l.kernel_id);
    REQUIRE_MESSAGE(k != kernels.end(), "kernel_id " << l.kernel_id << " has no kernel record");
    CHECK(get_string(*k->second, tf::kernel::name) == l.kernel);
    CHECK(l.args->Size() == get_uint(*k->second, tf::kernel::num_args));
    for (const Json& a : l.args->GetArray()) {
      REQUIRE(a.IsArray());
      REQUIRE(a.Size() >= 1);
      REQUIRE(a[0].IsString());
      CHECK_MESSAGE(std::string(a[0].GetString()) != tf::name(tf::ArgKind::Unset),
                    "an argument is recorded as unset although the launch succeeded");
    }
    check_record_ranges(trace, l.ranges, l.tid, l.host_ns[0], l.host_ns[1]);
  }

  for (const Json* t : trace.records(tf::transfer::kTypeName)) {
    INFO("transfer seq " << get_uint(*t, tf::transfer::seq));
    take_seq(*t);
    CHECK(get_int(*t, tf::transfer::rc) == 0);
    CHECK(get_string(*t, tf::transfer::status) == tf::name(tf::Status::Complete));
    const Json& dev = member(*t, tf::transfer::device_ns);
    check_device_times(dev.IsNull()
                           ? std::nullopt
                           : std::optional<std::vector<int64_t>>(int_array(dev, "device_ns")));
    const std::vector<int64_t> host = int_array(member(*t, tf::transfer::host_ns), "host_ns");
    REQUIRE(host.size() == 2);
    CHECK(host[0] <= host[1]);
    check_record_ranges(trace, uint_array(member(*t, tf::transfer::ranges), "ranges"),
                        get_int(*t, tf::transfer::tid), host[0], host[1]);
  }
  for (const Json* s : trace.records(tf::sync::kTypeName)) {
    take_seq(*s);
    const std::vector<int64_t> host = int_array(member(*s, tf::sync::host_ns), "host_ns");
    REQUIRE(host.size() == 2);
    CHECK(host[0] <= host[1]);
  }

  // The examples close every range they open.
  for (const auto& [id, g] : trace.ranges()) {
    INFO("range " << id << " \"" << g.name << "\"");
    REQUIRE_MESSAGE(g.end_ns.has_value(), "range never ended");
    CHECK_FALSE(g.closed_at_exit);
    CHECK(g.begin_ns <= *g.end_ns);
    if (g.parent != 0) {
      const Range& p = trace.range(g.parent);
      CHECK(p.tid == g.tid);
      CHECK(p.begin_ns <= g.begin_ns);
      if (p.end_ns) CHECK(*g.end_ns <= *p.end_ns);
    }
  }
  // A well-behaved program triggers no clprof warning.
  for (const Json* w : trace.records(tf::warning::kTypeName)) {
    FAIL_CHECK("clprof warning in the trace: " << get_string(*w, tf::warning::message));
  }
}

std::vector<uint64_t> record_range_ids(const Json& record) {
  return uint_array(member(record, tf::launch::ranges), "ranges");
}

// ---- arguments -----------------------------------------------------------------------

namespace {

// The launch's argument `index`: a 4-element array [kind, size, ...] of `kind`, whose size
// is checked to be `size` bytes. The caller's INFO names the launch.
const Json& arg_entry(const Launch& launch, unsigned index, tf::ArgKind kind, unsigned size) {
  REQUIRE(index < launch.args->Size());
  const Json& a = (*launch.args)[index];
  REQUIRE(a.IsArray());
  REQUIRE(a.Size() == 4);
  REQUIRE(a[0].IsString());
  REQUIRE(std::string(a[0].GetString()) == tf::name(kind));
  REQUIRE(a[1].IsUint());
  CHECK(a[1].GetUint() == size);
  return a;
}

}  // namespace

uint64_t scalar_arg(const Launch& launch, unsigned index, unsigned size) {
  INFO("launch seq " << launch.seq << " " << launch.kernel << " arg " << index);
  const Json& a = arg_entry(launch, index, tf::ArgKind::Scalar, size);
  REQUIRE(a[2].IsString());
  REQUIRE(a[3].IsUint64());
  const uint64_t value = a[3].GetUint64();
  std::string hex;
  for (unsigned b = 0; b < size; ++b) {
    char byte[3];
    std::snprintf(byte, sizeof(byte), "%02x", static_cast<unsigned>((value >> (8 * b)) & 0xffu));
    hex += byte;
  }
  CHECK(to_lower(a[2].GetString()) == hex);
  return value;
}

std::pair<uint64_t, uint64_t> buffer_arg(const Launch& launch, unsigned index) {
  INFO("launch seq " << launch.seq << " " << launch.kernel << " arg " << index);
  const Json& a =
      arg_entry(launch, index, tf::ArgKind::Buffer, static_cast<unsigned>(sizeof(void*)));
  REQUIRE(a[2].IsUint64());
  REQUIRE(a[3].IsUint64());
  CHECK(a[2].GetUint64() != 0);
  return {a[2].GetUint64(), a[3].GetUint64()};
}

uint32_t float_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// ---- printed launches ----------------------------------------------------------------

std::vector<PrintedLaunch> printed_launches(const std::string& out) {
  std::vector<PrintedLaunch> result;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word) || word != "launch") continue;
    PrintedLaunch p;
    REQUIRE(static_cast<bool>(words >> p.kernel));
    while (words >> word) {
      const auto eq = word.find('=');
      REQUIRE_MESSAGE(eq != std::string::npos, "bad launch line: " << line);
      p.values[word.substr(0, eq)] = word.substr(eq + 1);
    }
    REQUIRE_MESSAGE(p.values.count("gws") == 1, "bad launch line: " << line);
    REQUIRE_MESSAGE(p.values.count("lws") == 1, "bad launch line: " << line);
    p.gws = std::stoull(p.values["gws"]);
    p.lws = std::stoull(p.values["lws"]);
    result.push_back(std::move(p));
  }
  return result;
}

void check_launches_match_printed(const Trace& trace, const std::vector<PrintedLaunch>& want) {
  const std::vector<Launch>& got = trace.launches();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("launch #" << i << " (seq " << got[i].seq << ")");
    CHECK(got[i].kernel == want[i].kernel);
    CHECK(got[i].gws == std::vector<uint64_t>{want[i].gws});
    if (want[i].lws == 0) {
      CHECK_FALSE(got[i].lws.has_value());
    } else if (want[i].values.count("api") == 1 && want[i].values.at("api") == "clEnqueueTask") {
      // clEnqueueTask passes no local size; it is defined as a work-group of one, so both
      // null and [1] describe it correctly.
      if (got[i].lws) CHECK(*got[i].lws == std::vector<uint64_t>{1});
    } else {
      REQUIRE(got[i].lws.has_value());
      CHECK(*got[i].lws == std::vector<uint64_t>{want[i].lws});
    }
    const auto gwo = want[i].values.find("gwo");
    if (gwo == want[i].values.end()) {
      CHECK_FALSE(got[i].gwo.has_value());
    } else {
      REQUIRE(got[i].gwo.has_value());
      CHECK(*got[i].gwo == std::vector<uint64_t>{std::stoull(gwo->second)});
    }
    const auto api = want[i].values.find("api");
    if (api != want[i].values.end()) {
      CHECK(get_string(*got[i].record, tf::launch::api) == api->second);
    }
  }
}

}  // namespace clprof::e2e
