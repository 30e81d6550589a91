#include "readers/armnn/armnn.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "readers/import_json.hpp"
#include "readers/limits.hpp"

namespace clprof::readers {

namespace ij = import_json;

namespace {

enum class MeasureKind : uint8_t { Wall, Start, Stop, Kernel, Other };

struct Measurement {
  MeasureKind kind = MeasureKind::Other;
  std::string key;          // full key, e.g. "OpenClKernelTimer/0: im2col GWS[..]_#8"
  std::vector<int64_t> ns;  // one value per inference (maybe fewer); kRejected: skipped
  // Kernel timers only:
  std::string backend;  // "GpuAcc" (OpenClKernelTimer) | "CpuAcc" (NeonKernelTimer)
  std::string timer_index;
  std::string kernel;
  std::vector<uint64_t> gws;
  std::optional<std::vector<uint64_t>> lws;
};

// A value that was read but rejected (a negative duration): its inference has no launch.
constexpr int64_t kRejected = model::kNoTime;

struct Event {
  std::string key;   // full key, e.g. "ClConvolution2dWorkload_Execute_#8"
  std::string base;  // key without the "_#<id>" suffix
  std::vector<Measurement> measurements;
  std::vector<Event> children;
  size_t count = 0;  // most values of any measurement in this subtree: inferences [0, count)
};

// "Foo_#12" -> "Foo" (Arm NN appends the event id to every label).
std::string strip_id(const std::string& key) {
  size_t p = key.rfind("_#");
  if (p == std::string::npos) return key;
  for (size_t i = p + 2; i < key.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(key[i]))) return key;
  return key.substr(0, p);
}

// Parses "[a,b,c]" at `pos` of `s`; empty fields (Arm NN's test fixtures print "GWS[,,]")
// make the whole list empty.
bool parse_size_list(const std::string& s, size_t pos, std::vector<uint64_t>* out) {
  if (pos >= s.size() || s[pos] != '[') return false;
  size_t close = s.find(']', pos);
  if (close == std::string::npos) return false;
  std::vector<uint64_t> values;
  size_t i = pos + 1;
  bool any_empty = false;
  while (i <= close) {
    size_t j = i;
    uint64_t v = 0;
    while (j < close && std::isdigit(static_cast<unsigned char>(s[j]))) {
      if (v > (UINT64_MAX - 9) / 10) return false;
      v = v * 10 + static_cast<uint64_t>(s[j] - '0');
      ++j;
    }
    if (j == i) any_empty = true;
    if (j < close && s[j] != ',') return false;
    values.push_back(v);
    i = j + 1;
  }
  *out = any_empty ? std::vector<uint64_t>{} : std::move(values);
  return true;
}

// "OpenClKernelTimer/<i>: <kernel> GWS[..] [LWS[..]]" or "NeonKernelTimer/<i>: <kernel>".
bool parse_kernel_timer(const std::string& label, Measurement* m) {
  std::string timer;
  if (label.rfind("OpenClKernelTimer", 0) == 0) {
    timer = "OpenClKernelTimer";
    m->backend = "GpuAcc";
  } else if (label.rfind("NeonKernelTimer", 0) == 0) {
    timer = "NeonKernelTimer";
    m->backend = "CpuAcc";
  } else {
    return false;
  }
  size_t colon = label.find(':', timer.size());
  if (colon == std::string::npos) return false;
  if (label.size() > timer.size() && label[timer.size()] == '/')
    m->timer_index = label.substr(timer.size() + 1, colon - timer.size() - 1);
  std::string rest = label.substr(colon + 1);
  size_t gws = rest.find(" GWS[");
  size_t lws = rest.find(" LWS[");
  size_t name_end = std::min({gws, lws, rest.size()});
  std::string name = rest.substr(0, name_end);
  size_t b = name.find_first_not_of(' ');
  size_t e = name.find_last_not_of(' ');
  m->kernel = b == std::string::npos ? std::string() : name.substr(b, e - b + 1);
  if (gws != std::string::npos) parse_size_list(rest, gws + 4, &m->gws);
  if (lws != std::string::npos) {
    std::vector<uint64_t> l;
    if (parse_size_list(rest, lws + 4, &l) && !l.empty()) m->lws = std::move(l);
  }
  return true;
}

int unit_scale(const ij::Source& src, const ij::Value& unit) {
  const std::string& u = ij::expect_string(src, unit, "a time unit");
  if (u == "ns") return 0;
  if (u == "us") return 3;
  if (u == "ms") return 6;
  if (u == "s") return 9;
  throw src.error_at(unit.offset,
                     "expected unit \"ns\", \"us\", \"ms\" or \"s\", found \"" + u + "\"");
}

bool looks_like_measurement(const ij::Value& v) {
  if (const ij::Value* t = v.find("type"); t && t->is_string()) return t->text == "Measurement";
  return v.find("raw") || v.find("unit");  // pre-20.x printers had no "type"
}

// A bad measurement (bad unit, "raw" not an array) is skipped whole; a bad value (not a
// number, out of range, a negative duration) only for its inference. Both are counted.
Measurement read_measurement(const ij::Source& src, const std::string& key, const ij::Value& v,
                             ij::Findings& findings) {
  Measurement m;
  m.key = findings.name(key);
  std::string label = strip_id(m.key);
  if (label == "Wall clock time")
    m.kind = MeasureKind::Wall;
  else if (label == "Wall clock time (Start)")
    m.kind = MeasureKind::Start;
  else if (label == "Wall clock time (Stop)")
    m.kind = MeasureKind::Stop;
  else if (parse_kernel_timer(label, &m))
    m.kind = MeasureKind::Kernel;
  int scale = 3;  // Arm NN's default unit is us when "unit" is absent
  if (const ij::Value* unit = v.find("unit")) scale = unit_scale(src, *unit);
  const ij::Value& raw = ij::expect_member(src, v, "raw");
  ij::expect_array(src, raw, "\"raw\" measurement values");
  // Start and Stop are points on a clock; the others durations, which cannot be negative.
  const bool duration = m.kind != MeasureKind::Start && m.kind != MeasureKind::Stop;
  m.ns.reserve(raw.items.size());
  for (const auto& x : raw.items) {
    int64_t ns = kRejected;
    findings.record([&] {
      const int64_t value = ij::expect_scaled(src, x, scale, "a time");
      if (duration && value < 0)
        throw src.error_at(x.offset, "expected a duration >= 0 in \"" + limits::for_message(m.key) +
                                         "\", found " + x.text);
      ns = value;
    });
    m.ns.push_back(ns);
  }
  return m;
}

Event read_event(const ij::Source& src, const std::string& key, const ij::Value& v,
                 ij::Findings& findings, size_t depth) {
  Event e;
  e.key = findings.name(key);
  e.base = strip_id(e.key);
  for (const auto& [k, child] : v.members) {
    if (!child.is_object()) continue;  // "type" and future scalar fields
    if (looks_like_measurement(child)) {
      // Not findings.record(): only the values count as records kept.
      try {
        e.measurements.push_back(read_measurement(src, k, child, findings));
        e.count = std::max(e.count, e.measurements.back().ns.size());
      } catch (InputError& error) {
        findings.skip(std::move(error));
      }
    } else if (const ij::Value* t = child.find("type");
               !t || (t->is_string() && t->text == "Event")) {
      // Every event is a range: a launch's chain holds at most kMaxRangeDepth of them.
      if (depth + 1 >= limits::kMaxRangeDepth) {
        findings.skip(src.error_at(child.offset, "expected events nested at most " +
                                                     std::to_string(limits::kMaxRangeDepth) +
                                                     " deep (the analyzer's ceiling)"));
        continue;
      }
      e.children.push_back(read_event(src, k, child, findings, depth + 1));
      e.count = std::max(e.count, e.children.back().count);
    }
    // other types ("Operator Description" layer details) carry no timings
  }
  return e;
}

bool present(const Event& e, size_t i) {
  return i < e.count;
}

size_t count_short(const Event& e, size_t n) {
  size_t k = 0;
  for (const auto& m : e.measurements)
    if (m.kind == MeasureKind::Kernel && m.ns.size() < n) ++k;
  for (const auto& c : e.children) k += count_short(c, n);
  return k;
}

class Importer {
 public:
  Importer(model::Run& run, uint32_t process) : run_(run), process_(process) {
    for (const auto& r : run.ranges) next_range_id_ = std::max(next_range_id_, r.id + 1);
  }

  // Imports inferences [0, n) of `root` as inferences base + i of the process.
  void import_root(const Event& root, size_t n, size_t base) {
    bool inference = root.base == "inference_measurements";
    auto& proc = run_.processes[process_];
    for (size_t i = 0; i < n; ++i) {
      if (!present(root, i)) continue;
      uint64_t id = add_range(inference ? std::string("inference") : root.base, 0, root, i);
      if (inference) {
        if (const Measurement* wall = find(root, MeasureKind::Wall);
            wall && wall->ns.size() > i && wall->ns[i] != kRejected) {
          if (proc.iteration_wall_ns.size() <= base + i)
            proc.iteration_wall_ns.resize(base + i + 1, 0);
          proc.iteration_wall_ns[base + i] = wall->ns[i];
        }
      }
      std::vector<uint64_t> chain{id};
      inference_ = base + i;
      add_kernels(root, i, chain);
      for (const auto& c : root.children) {
        // "Execute" only groups the workloads of one inference; flattening it makes every
        // launch's range chain [inference, workload] as vison lists them.
        if (c.base == "Execute") {
          add_kernels(c, i, chain);
          for (const auto& w : c.children) add_event(w, i, chain);
        } else {
          add_event(c, i, chain);
        }
      }
    }
  }

  void finish() {
    // Host times were collected as absolute steady_clock ns; make them relative to the
    // earliest one (Process::host_start_ns), as for clprof traces.
    auto& proc = run_.processes[process_];
    if (min_abs_ns_ == INT64_MAX) return;
    proc.host_start_ns = min_abs_ns_;
    for (size_t r = first_range_; r < run_.ranges.size(); ++r) {
      auto& range = run_.ranges[r];
      if (range.host_begin_ns != model::kNoTime) range.host_begin_ns -= min_abs_ns_;
      if (range.host_end_ns != model::kNoTime) range.host_end_ns -= min_abs_ns_;
    }
  }

  void set_first_range() { first_range_ = run_.ranges.size(); }

 private:
  static const Measurement* find(const Event& e, MeasureKind kind) {
    for (const auto& m : e.measurements)
      if (m.kind == kind) return &m;
    return nullptr;
  }

  uint64_t add_range(const std::string& name, uint64_t parent, const Event& e, size_t i) {
    model::Range r;
    r.id = next_range_id_++;
    r.parent = parent;
    r.name = name;
    r.process = process_;
    const Measurement* start = find(e, MeasureKind::Start);
    const Measurement* stop = find(e, MeasureKind::Stop);
    if (start && start->ns.size() > i && start->ns[i] != kRejected) {
      r.host_begin_ns = start->ns[i];
      min_abs_ns_ = std::min(min_abs_ns_, r.host_begin_ns);
    }
    if (stop && stop->ns.size() > i && stop->ns[i] != kRejected) {
      r.host_end_ns = stop->ns[i];
      min_abs_ns_ = std::min(min_abs_ns_, r.host_end_ns);
    }
    run_.ranges.push_back(std::move(r));
    return run_.ranges.back().id;
  }

  void add_event(const Event& e, size_t i, std::vector<uint64_t>& chain) {
    if (!present(e, i)) return;
    uint64_t id = add_range(e.key, chain.back(), e, i);
    chain.push_back(id);
    add_kernels(e, i, chain);
    for (const auto& c : e.children) add_event(c, i, chain);
    chain.pop_back();
  }

  void add_kernels(const Event& e, size_t i, const std::vector<uint64_t>& chain) {
    for (const auto& m : e.measurements) {
      if (m.kind != MeasureKind::Kernel || m.ns.size() <= i || m.ns[i] == kRejected) continue;
      model::Launch l;
      l.seq = next_seq_++;
      l.process = process_;
      l.name = m.kernel;
      if (m.backend == "CpuAcc") l.api = "NeonKernel";
      l.device = device_for(m.backend);
      l.gws = m.gws;
      l.lws = m.lws;
      l.ranges = chain;
      l.duration_override_ns = m.ns[i];
      l.extra["armnn.measurement"] = m.key;
      l.extra["armnn.backend"] = m.backend;
      if (!m.timer_index.empty()) l.extra["armnn.timer_index"] = m.timer_index;
      l.extra["armnn.inference"] = std::to_string(inference_);
      run_.launches.push_back(std::move(l));
    }
  }

  uint32_t device_for(const std::string& backend) {
    auto it = std::find(backends_.begin(), backends_.end(), backend);
    if (it != backends_.end()) return backend_device_[static_cast<size_t>(it - backends_.begin())];
    model::Device d;
    d.id = static_cast<uint32_t>(run_.devices.size() + 1);
    d.name = backend == "GpuAcc" ? "Arm NN GpuAcc (OpenCL)" : "Arm NN CpuAcc (Neon)";
    d.type = backend == "GpuAcc" ? "GPU" : "CPU";
    run_.devices.push_back(d);
    backends_.push_back(backend);
    backend_device_.push_back(d.id);
    return d.id;
  }

  model::Run& run_;
  uint32_t process_;
  uint64_t next_range_id_ = 1;
  uint64_t next_seq_ = 1;
  size_t first_range_ = 0;
  size_t inference_ = 0;
  int64_t min_abs_ns_ = INT64_MAX;
  std::vector<std::string> backends_;
  std::vector<uint32_t> backend_device_;
};

}  // namespace

bool looks_like_armnn(std::string_view head) {
  size_t p = head.find("\"ArmNN\"");
  if (p == std::string_view::npos) return false;
  size_t q = ij::skip_whitespace(head, p + 7);
  return q >= head.size() || head[q] == ':';
}

void read_armnn(const ij::Source& src, model::Run& run, Diagnostics& diagnostics) {
  ij::Findings findings(src.path, "Arm NN measurements or values");
  std::optional<Importer> importer;  // made with the process, at the first profile
  uint32_t process = 0;
  size_t short_measurements = 0, max_n = 0;
  size_t base = 0;
  // One profile: its events are taken out of the JSON tree, which is then freed before the
  // launches are made (peak memory: the larger of the two, not their sum).
  auto import_doc = [&](const ij::Value& doc) {
    std::vector<Event> roots;
    const ij::Value* armnn_v = doc.find("ArmNN");
    if (!armnn_v) throw src.error_at(doc.offset, "expected member \"ArmNN\" in this object");
    const ij::Value& armnn = ij::expect_object(src, *armnn_v, "the \"ArmNN\" profile");
    for (const auto& [key, v] : armnn.members)
      if (v.is_object()) roots.push_back(read_event(src, key, v, findings, 0));
    return roots;
  };
  // ExecuteNetwork prints log lines around the profile; like vison, a JSON document is a
  // line starting with '{'. Every such document holding "ArmNN" is read, in order.
  size_t pos = 0;
  size_t first_brace = std::string_view::npos;
  while (pos < src.content.size()) {
    size_t line_end = src.content.find('\n', pos);
    if (line_end == std::string_view::npos) line_end = src.content.size();
    size_t first = pos;
    while (first < line_end &&
           (src.content[first] == ' ' || src.content[first] == '\t' || src.content[first] == '\r'))
      ++first;
    pos = line_end + 1;
    if (first >= line_end || src.content[first] != '{') continue;
    if (first_brace == std::string_view::npos) first_brace = first;
    // Only a document opening with "ArmNN" is parsed (its errors are real errors); other
    // lines starting with '{' are the program's own output.
    size_t key = ij::skip_whitespace(src.content, first + 1);
    if (src.content.substr(key, 7) != "\"ArmNN\"") continue;
    size_t end = 0;
    std::vector<Event> roots = import_doc(ij::parse_value(src, first, &end));
    pos = end;
    if (!importer) {
      model::Process proc;
      proc.source = src.path;
      proc.source_format = "armnn";
      run.processes.push_back(proc);
      process = static_cast<uint32_t>(run.processes.size() - 1);
      importer.emplace(run, process);
      importer->set_first_range();
    }
    size_t doc_n = 0;
    for (const Event& root : roots) {
      const size_t n = root.count;
      max_n = std::max(max_n, n);
      short_measurements += count_short(root, n);
      importer->import_root(root, n, base);
      if (root.base == "inference_measurements") doc_n = std::max(doc_n, n);
    }
    base += doc_n;  // a second printed profile continues the inference numbering
  }
  if (!importer)
    throw src.error_at(first_brace == std::string_view::npos ? src.content.size() : first_brace,
                       "expected an Arm NN profile: a line starting with {\"ArmNN\": {...}}");
  importer->finish();
  findings.finish(diagnostics);
  if (short_measurements > 0)
    diagnostics.warnings.push_back(
        src.path + ": " + std::to_string(short_measurements) +
        " Arm NN kernel measurements have fewer values than inferences (" + std::to_string(max_n) +
        "); their values are taken as the first inferences' and the rest skipped");
}

}  // namespace clprof::readers
