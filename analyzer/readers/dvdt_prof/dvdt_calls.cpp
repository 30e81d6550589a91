// dvdt-prof call records (a JSON array, in call order) into the model: programs, builds,
// devices, launches with their arguments and device times, transfers
// (dvdt_prof.hpp: import_dvdt_calls).
#include "readers/dvdt_prof/dvdt_prof.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clock_alignment.hpp"

namespace clprof::readers {

namespace ij = import_json;

namespace {

// Line mode prints scalars without types (pointers, numbers and hex all look alike), so the
// accessors below accept a number or its text as a string.
const std::string& scalar_text(const ij::Source& s, const ij::Value& v, const char* what) {
  if (!v.is_string() && !v.is_number())
    throw s.error_at(v.offset, std::string("expected ") + what + " (a number or string), found " +
                                   ij::type_name(v.type));
  return v.text;
}

uint64_t to_uint(const ij::Source& s, const ij::Value& v, const char* what) {
  const std::string& t = scalar_text(s, v, what);
  uint64_t x = 0;
  bool ok = !t.empty() && t.size() <= 20;
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      ok = false;
    else if (x > (UINT64_MAX - 9) / 10)
      ok = false;
    else
      x = x * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok)
    throw s.error_at(
        v.offset, std::string("expected ") + what + " (an unsigned integer), found \"" + t + "\"");
  return x;
}

int64_t to_int(const ij::Source& s, const ij::Value& v, const char* what) {
  const std::string& t = scalar_text(s, v, what);
  int64_t x = 0;
  if (t.find_first_of(".eE") != std::string::npos || !ij::scaled_integer(t, 0, &x))
    throw s.error_at(v.offset,
                     std::string("expected ") + what + " (an integer), found \"" + t + "\"");
  return x;
}

// A handle printed as "0x55a2b3dc00" (or "0" for NULL).
uint64_t to_handle(const ij::Source& s, const ij::Value& v, const char* what) {
  const std::string& t = scalar_text(s, v, what);
  if (t == "0" || t == "(nil)") return 0;
  uint64_t x = 0;
  bool ok = t.size() > 2 && t.size() <= 18 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  for (size_t i = 2; ok && i < t.size(); ++i) {
    int d = std::isdigit(static_cast<unsigned char>(t[i])) ? t[i] - '0'
            : (t[i] >= 'a' && t[i] <= 'f')                 ? t[i] - 'a' + 10
            : (t[i] >= 'A' && t[i] <= 'F')                 ? t[i] - 'A' + 10
                                                           : -1;
    if (d < 0)
      ok = false;
    else
      x = (x << 4) | static_cast<uint64_t>(d);
  }
  if (!ok)
    throw s.error_at(v.offset, std::string("expected ") + what +
                                   " (a handle such as 0x55a2b3dc00), found \"" + t + "\"");
  return x;
}

// "2018-02-09T10:36:48.553314" (UTC, boost's ISO extended format) -> ns since the epoch.
std::optional<int64_t> iso_to_unix_ns(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  char sep = 0;
  int n = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &sec, &n) !=
          7 ||
      (sep != 'T' && sep != ' ') || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
      mi < 0 || mi > 59 || sec < 0 || sec > 60)
    return std::nullopt;
  // int64 ns since 1970 spans 1678..2262; dvdt-prof traces are from this century. Within
  // 1900..2200 every difference of two times fits too.
  if (y < 1900 || y > 2200) return std::nullopt;
  int64_t frac_ns = 0;
  size_t i = static_cast<size_t>(n);
  if (i < t.size() && t[i] == '.') {
    int64_t scale = 100000000;
    for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      frac_ns += (t[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i != t.size()) return std::nullopt;
  // Days since 1970-01-01 of a proleptic Gregorian date (civil-from-days inverted).
  int64_t yy = y - (mo <= 2);
  int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  int64_t yoe = yy - era * 400;
  int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return ((days * 24 + h) * 60 + mi) * 60'000'000'000LL + sec * 1'000'000'000LL + frac_ns;
}

std::vector<uint64_t> size_list(const ij::Source& s, const ij::Value& v, const char* what) {
  ij::expect_array(s, v, what);
  if (v.items.size() > 3)
    throw s.error_at(v.offset, std::string("expected ") + what + " of at most 3 sizes");
  std::vector<uint64_t> out;
  for (const auto& x : v.items) out.push_back(to_uint(s, x, what));
  return out;
}

struct KernelInfo {
  uint64_t id = 0;
  std::string name;
  uint64_t program_id = 0;
  std::map<uint32_t, model::KernelArg> args;  // latest value per index
};

struct BufferInfo {
  uint64_t id = 0;
  uint64_t bytes = 0;
};

class CallImporter {
 public:
  CallImporter(const ij::Source& src, model::Run& run, uint32_t process, ij::Findings& findings)
      : s_(src), run_(run), process_(process), findings_(findings) {
    for (const auto& p : run.programs) next_id_ = std::max(next_id_, p.id + 1);
  }

  void import(const ij::Value& calls) {
    ij::expect_array(s_, calls, "the list of dvdt-prof call records");
    // A bad record is skipped (counted); each record checks everything before it changes
    // any state, so a skipped one leaves no trace.
    for (const auto& rec : calls.items) findings_.record([&] { record(rec); });
    // Host times are UTC wall clock (boost microsec_clock); anchor them at the first call.
    auto& proc = run_.processes[process_];
    if (first_unix_ns_) {
      proc.start_unix_ns = *first_unix_ns_;
      proc.host_start_ns = *first_unix_ns_;
      auto rel = [&](int64_t& t) {
        if (t != model::kNoTime) t -= *first_unix_ns_;
      };
      for (size_t i = first_launch_; i < run_.launches.size(); ++i) {
        rel(run_.launches[i].host_begin_ns);
        rel(run_.launches[i].host_end_ns);
      }
      for (size_t i = first_transfer_; i < run_.transfers.size(); ++i) {
        rel(run_.transfers[i].host_begin_ns);
        rel(run_.transfers[i].host_end_ns);
      }
      for (size_t i = first_build_; i < run_.builds.size(); ++i) {
        rel(run_.builds[i].host_begin_ns);
        rel(run_.builds[i].host_end_ns);
      }
    }
  }

  // dvdt-prof records no clock relation: each device's offset is estimated from its commands'
  // enqueue calls (their host times) and device queued times; the views that put device times
  // on the host clock say so (model::estimated_clock_warning).
  void estimate_clocks() {
    for (const auto& [handle, id] : device_ids_)
      model::estimate_clock(run_.devices[id - 1],
                            model::commands_bracket(run_, id, first_launch_, first_transfer_));
  }

  void set_marks() {
    first_launch_ = run_.launches.size();
    first_transfer_ = run_.transfers.size();
    first_build_ = run_.builds.size();
  }

 private:
  void host_times(const ij::Value& rec, int64_t* begin, int64_t* end) {
    const ij::Value* ts = rec.find("timestamp");
    if (!ts) return;
    ij::expect_object(s_, *ts, "\"timestamp\" {start, end}");
    auto one = [&](const char* key, int64_t* out) {
      const ij::Value* v = ts->find(key);
      if (!v) return;
      const std::string& t = ij::expect_string(s_, *v, "an ISO time");
      std::optional<int64_t> ns = iso_to_unix_ns(t);
      if (!ns)
        throw s_.error_at(
            v->offset, "expected an ISO time like 2018-02-09T10:36:48.553314, found \"" + t + "\"");
      *out = *ns;
      if (!first_unix_ns_) first_unix_ns_ = *ns;
    };
    one("start", begin);
    one("end", end);
  }

  void device_times(const ij::Value& rec, int64_t* q, int64_t* sub, int64_t* st, int64_t* en) {
    const ij::Value* p = rec.find("profiling");
    if (!p) return;
    ij::expect_object(s_, *p, "\"profiling\" {queued, submit, start, end}");
    const char* keys[] = {"queued", "submit", "start", "end"};
    int64_t* outs[] = {q, sub, st, en};
    for (int i = 0; i < 4; ++i)
      if (const ij::Value* v = p->find(keys[i])) {
        *outs[i] = to_int(s_, *v, "a device time (ns)");
        if (*outs[i] < 0 || *outs[i] > ij::kMaxAbsTimeNs)
          throw s_.error_at(v->offset,
                            "expected a device time (ns) in [0, 2^61], found " + v->text);
      }
  }

  uint64_t new_id() { return next_id_++; }

  uint32_t device_for_queue(uint64_t queue) {
    auto it = queue_device_.find(queue);
    return it == queue_device_.end() ? 0 : it->second;
  }

  void record(const ij::Value& rec) {
    ij::expect_object(s_, rec, "a dvdt-prof call record");
    const std::string& call =
        ij::expect_string(s_, ij::expect_member(s_, rec, "call"), "the API call name");
    auto get = [&](const char* key) { return rec.find(key); };
    if (call == "clCreateCommandQueue" || call == "clCreateCommandQueueWithProperties") {
      const ij::Value* q = get("queue");
      const ij::Value* d = get("device");
      if (!q) return;
      uint64_t queue = to_handle(s_, *q, "a queue handle");
      uint64_t dev = d ? to_handle(s_, *d, "a device handle") : 0;
      auto it = device_ids_.find(dev);
      if (it == device_ids_.end()) {
        model::Device device;
        device.id = static_cast<uint32_t>(run_.devices.size() + 1);
        device.name = "OpenCL device " + (d ? d->text : std::string("?"));
        run_.devices.push_back(device);
        it = device_ids_.emplace(dev, device.id).first;
      }
      queue_device_[queue] = it->second;
      queue_ids_[queue] = new_id();
    } else if (call == "clCreateProgramWithSource" || call == "clCreateProgramWithBinary") {
      const ij::Value* p = get("program");
      if (!p) return;
      model::Program prog;
      prog.id = new_id();
      prog.process = process_;
      prog.origin = call == "clCreateProgramWithSource" ? "source" : "binary";
      if (const ij::Value* src = get("source"); src && src->is_object()) {
        for (const auto& [k, text] : src->members)
          if (text.is_string()) prog.source += text.text;
        prog.source_bytes = prog.source.size();
      }
      programs_[to_handle(s_, *p, "a program handle")] = run_.programs.size();
      run_.programs.push_back(std::move(prog));
    } else if (call == "clBuildProgram") {
      const ij::Value* p = get("program");
      if (!p) return;
      uint64_t handle = to_handle(s_, *p, "a program handle");
      model::Build b;
      b.process = process_;
      b.api = call;
      if (const ij::Value* o = get("options")) b.options = scalar_text(s_, *o, "build options");
      if (const ij::Value* e = get("errcode"))
        b.rc = static_cast<int32_t>(to_int(s_, *e, "an error code"));
      host_times(rec, &b.host_begin_ns, &b.host_end_ns);
      auto it = programs_.find(handle);
      if (it != programs_.end()) {
        b.program_id = run_.programs[it->second].id;
        if (b.rc == 0) run_.programs[it->second].options = b.options;
      }
      run_.builds.push_back(std::move(b));
    } else if (call == "clCreateKernel") {
      const ij::Value* k = get("kernel");
      if (!k) return;
      KernelInfo info;  // a handle returned again is a new kernel: forget the old args
      info.id = new_id();
      if (const ij::Value* n = get("name"))
        info.name = findings_.name(scalar_text(s_, *n, "a kernel name"));
      if (const ij::Value* p = get("program")) {
        auto it = programs_.find(to_handle(s_, *p, "a program handle"));
        if (it != programs_.end()) info.program_id = run_.programs[it->second].id;
      }
      kernels_[to_handle(s_, *k, "a kernel handle")] = std::move(info);
    } else if (call == "clCreateBuffer") {
      const ij::Value* b = get("buffer");
      if (!b) return;
      BufferInfo info;
      info.id = new_id();
      if (const ij::Value* sz = get("size")) info.bytes = to_uint(s_, *sz, "a buffer size");
      buffers_[to_handle(s_, *b, "a buffer handle")] = info;
    } else if (call == "clSetKernelArg") {
      set_arg(rec);
    } else if (call == "clEnqueueNDRangeKernel") {
      launch(rec);
    } else if (call == "clEnqueueReadBuffer" || call == "clEnqueueWriteBuffer") {
      transfer(rec, call);
    }
  }

  void set_arg(const ij::Value& rec) {
    uint64_t kernel = to_handle(s_, ij::expect_member(s_, rec, "kernel"), "a kernel handle");
    uint64_t index = to_uint(s_, ij::expect_member(s_, rec, "arg_index"), "an argument index");
    if (index > 1023)
      throw s_.error_at(rec.find("arg_index")->offset, "expected an argument index below 1024");
    uint64_t size = to_uint(s_, ij::expect_member(s_, rec, "arg_size"), "an argument size");
    model::KernelArg arg;
    arg.size = static_cast<uint32_t>(std::min<uint64_t>(size, UINT32_MAX));
    const ij::Value* ptr = rec.find("arg_value_ptr");
    const ij::Value* value = rec.find("arg_value");
    if (ptr && to_handle(s_, *ptr, "an argument pointer") == 0) {
      arg.kind = model::KernelArg::Kind::Local;  // NULL value: __local memory of `size` bytes
    } else {
      arg.kind = model::KernelArg::Kind::Scalar;
      if (value) {
        const std::string& hex = scalar_text(s_, *value, "the argument bytes (hex)");
        if (hex.size() % 2 != 0 || !std::all_of(hex.begin(), hex.end(), [](char c) {
              return std::isxdigit(static_cast<unsigned char>(c));
            }))
          throw s_.error_at(
              value->offset,
              "expected the argument bytes as hex digit pairs, found \"" + hex + "\"");
        arg.hex = hex.substr(0, 128);  // clprof keeps at most 64 bytes too
        std::transform(arg.hex.begin(), arg.hex.end(), arg.hex.begin(), [](char c) {
          return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        });
        size_t bytes = hex.size() / 2;
        if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) {
          uint64_t v = 0;
          for (size_t b = bytes; b-- > 0;)
            v = (v << 8) | std::stoull(arg.hex.substr(2 * b, 2), nullptr, 16);
          arg.has_value = true;
          arg.value = v;
          // A pointer-sized value equal to a live buffer handle is that cl_mem.
          auto it = buffers_.find(v);
          if ((bytes == 8 || bytes == 4) && v != 0 && it != buffers_.end()) {
            arg.kind = model::KernelArg::Kind::Buffer;
            arg.object_id = it->second.id;
            arg.object_bytes = it->second.bytes;
            arg.hex.clear();
            arg.has_value = false;
            arg.value = 0;
          }
        }
      }
    }
    kernels_[kernel].args[static_cast<uint32_t>(index)] = std::move(arg);
  }

  void launch(const ij::Value& rec) {
    model::Launch l;
    l.process = process_;
    l.api = "clEnqueueNDRangeKernel";
    uint64_t kernel = 0;
    if (const ij::Value* k = rec.find("kernel")) kernel = to_handle(s_, *k, "a kernel handle");
    auto kit = kernels_.find(kernel);
    if (kit != kernels_.end()) {
      l.name = kit->second.name;
      l.kernel_id = kit->second.id;
      l.program_id = kit->second.program_id;
      if (!kit->second.args.empty()) {
        l.args.resize(kit->second.args.rbegin()->first + 1);
        for (const auto& [i, a] : kit->second.args) l.args[i] = a;
      }
    }
    // The enqueue record's own "name" is what clGetKernelInfo said at launch time.
    if (const ij::Value* n = rec.find("name"); n && !scalar_text(s_, *n, "a kernel name").empty())
      l.name = findings_.name(n->text);
    if (const ij::Value* q = rec.find("queue")) {
      uint64_t queue = to_handle(s_, *q, "a queue handle");
      l.device = device_for_queue(queue);
      auto it = queue_ids_.find(queue);
      if (it != queue_ids_.end()) l.queue_id = it->second;
    }
    std::vector<uint64_t> gws, lws, gwo;
    const ij::Value* gws_v = rec.find("gws");
    if (gws_v) gws = size_list(s_, *gws_v, "gws");
    if (const ij::Value* v = rec.find("lws")) lws = size_list(s_, *v, "lws");
    if (const ij::Value* v = rec.find("gwo")) gwo = size_list(s_, *v, "gwo");
    // dvdt-prof pads every list to 3 (gws with 1, lws with 1 or all 0 for NULL, gwo with 0)
    // and does not log work_dim: a dimension is real if any list is not at its pad there.
    size_t dims = 1;
    if (const ij::Value* wd = rec.find("work_dim")) {
      dims = static_cast<size_t>(std::clamp<uint64_t>(to_uint(s_, *wd, "work_dim"), 1, 3));
    } else {
      bool lws_null = std::all_of(lws.begin(), lws.end(), [](uint64_t x) { return x == 0; });
      for (size_t d = 0; d < 3; ++d) {
        bool real = (d < gws.size() && gws[d] != 1) ||
                    (!lws_null && d < lws.size() && lws[d] != 1) || (d < gwo.size() && gwo[d] != 0);
        if (real) dims = d + 1;
      }
    }
    gws.resize(std::min(gws.size(), dims));
    l.gws = gws;
    if (!lws.empty() && !std::all_of(lws.begin(), lws.end(), [](uint64_t x) { return x == 0; })) {
      lws.resize(std::min(lws.size(), dims));
      l.lws = lws;
    }
    if (std::any_of(gwo.begin(), gwo.end(), [](uint64_t x) { return x != 0; })) {
      gwo.resize(std::min(gwo.size(), dims));
      l.gwo = gwo;
    }
    host_times(rec, &l.host_begin_ns, &l.host_end_ns);
    device_times(rec, &l.queued_ns, &l.submit_ns, &l.start_ns, &l.end_ns);
    if (const ij::Value* e = rec.find("errcode"))
      l.rc = static_cast<int32_t>(to_int(s_, *e, "an error code"));
    if (l.rc != 0)
      l.status = "not_enqueued";
    else if (!l.has_device_times())
      l.status = "incomplete";
    l.seq = next_seq_++;  // last: a record that throws above is skipped without a gap
    run_.launches.push_back(std::move(l));
  }

  void transfer(const ij::Value& rec, const std::string& call) {
    model::Transfer t;
    t.process = process_;
    t.api = call;
    t.op = call == "clEnqueueReadBuffer" ? "read" : "write";
    if (const ij::Value* q = rec.find("queue")) {
      uint64_t queue = to_handle(s_, *q, "a queue handle");
      t.device = device_for_queue(queue);
      auto it = queue_ids_.find(queue);
      if (it != queue_ids_.end()) t.queue_id = it->second;
    }
    if (const ij::Value* sz = rec.find("size")) t.bytes = to_uint(s_, *sz, "a transfer size");
    if (const ij::Value* b = rec.find("blocking"))
      t.blocking = to_uint(s_, *b, "a blocking flag") != 0;
    host_times(rec, &t.host_begin_ns, &t.host_end_ns);
    device_times(rec, &t.queued_ns, &t.submit_ns, &t.start_ns, &t.end_ns);
    if (const ij::Value* e = rec.find("errcode"))
      t.rc = static_cast<int32_t>(to_int(s_, *e, "an error code"));
    if (t.rc != 0) t.status = "not_enqueued";
    t.seq = next_seq_++;
    run_.transfers.push_back(std::move(t));
  }

  const ij::Source& s_;
  model::Run& run_;
  uint32_t process_;
  ij::Findings& findings_;
  uint64_t next_id_ = 1;
  uint64_t next_seq_ = 1;
  std::optional<int64_t> first_unix_ns_;
  size_t first_launch_ = 0, first_transfer_ = 0, first_build_ = 0;
  std::map<uint64_t, size_t> programs_;  // handle -> index into run.programs
  std::map<uint64_t, KernelInfo> kernels_;
  std::map<uint64_t, BufferInfo> buffers_;
  std::map<uint64_t, uint32_t> device_ids_;
  std::map<uint64_t, uint32_t> queue_device_;
  std::map<uint64_t, uint64_t> queue_ids_;
};

}  // namespace

void import_dvdt_calls(const ij::Source& source, const ij::Value& calls, model::Run& run,
                       uint32_t process, Diagnostics& diagnostics) {
  ij::Findings findings(source.path, "dvdt-prof call records");
  CallImporter importer(source, run, process, findings);
  importer.set_marks();
  importer.import(calls);
  findings.finish(diagnostics);
  importer.estimate_clocks();
}

}  // namespace clprof::readers
