#include "readers/chrome/chrome_trace.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "readers/import_json.hpp"

namespace clprof::readers {

namespace ij = import_json;

namespace {

// One complete event (X, or a matched B/E pair) on one track.
struct Interval {
  int64_t begin_ns = 0, end_ns = 0;
  std::string name, cat;
  std::map<std::string, std::string> args;  // "chrome.args.<key>" -> value text
  size_t order = 0;          // input order, to keep equal intervals stable
  uint32_t process = 0;      // index into this file's processes
  uint64_t tid = 0;
  bool left_open = false;
  // Filled by nesting:
  int64_t parent = -1;       // index into the track's intervals
  bool has_children = false;
  uint64_t range_id = 0;
};

// Compact JSON text of a value, for args that are not strings.
void write_json(const ij::Value& v, std::string& out) {
  switch (v.type) {
    case ij::Value::Type::Null: out += "null"; break;
    case ij::Value::Type::Bool: out += v.boolean ? "true" : "false"; break;
    case ij::Value::Type::Number: out += v.text; break;
    case ij::Value::Type::String: {
      out += '"';
      for (char c : v.text) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
          out += ' ';
          continue;
        }
        out += c;
      }
      out += '"';
      break;
    }
    case ij::Value::Type::Array:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ',';
        write_json(v.items[i], out);
      }
      out += ']';
      break;
    case ij::Value::Type::Object:
      out += '{';
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i) out += ',';
        write_json(ij::Value{ij::Value::Type::String, false, 0, v.members[i].first, {}, {}}, out);
        out += ':';
        write_json(v.members[i].second, out);
      }
      out += '}';
      break;
  }
}

// pid/tid may be numbers or strings (Neural Engine uses "Operator", "Iteration", ...).
struct Id {
  bool numeric = true;
  int64_t number = 0;
  std::string text;
};

Id read_id(const ij::Source& s, const ij::Value* v, const char* what) {
  Id id;
  if (!v) return id;
  if (v->is_string()) {
    id.numeric = false;
    id.text = v->text;
    return id;
  }
  id.number = ij::expect_int(s, *v, what);
  id.text = v->text;
  return id;
}

class Importer {
 public:
  Importer(const ij::Source& s, model::Run& run, Diagnostics& diag)
      : s_(s), run_(run), diag_(diag) {
    for (const auto& r : run.ranges) next_range_id_ = std::max(next_range_id_, r.id + 1);
  }

  void event(const ij::Value& e) {
    ij::expect_object(s_, e, "a trace event");
    const ij::Value* ph_v = e.find("ph");
    if (!ph_v) throw s_.error_at(e.offset, "expected member \"ph\" (the event phase) in this trace event");
    const std::string& ph = ij::expect_string(s_, *ph_v, "the event phase");
    Id pid = read_id(s_, e.find("pid"), "a pid");
    Id tid = read_id(s_, e.find("tid"), "a tid");
    uint32_t process = process_for(pid);
    std::string name;
    if (const ij::Value* n = e.find("name")) name = ij::expect_string(s_, *n, "the event name");
    if (ph == "M") {
      if (name == "process_name")
        if (const ij::Value* a = e.find("args"); a && a->is_object())
          if (const ij::Value* pn = a->find("name"); pn && pn->is_string())
            processes_[process].command_line = {pn->text};
      return;
    }
    bool timed = ph == "X" || ph == "B" || ph == "E" || ph == "i" || ph == "I" || ph == "R";
    if (!timed) return;  // counters, async, flow, object events carry no layer structure
    int64_t ts = ij::expect_scaled(s_, ij::expect_member(s_, e, "ts"), 3, "ts (microseconds)");
    min_ns_ = std::min(min_ns_, ts);
    max_ns_ = std::max(max_ns_, ts);
    // Numeric tids are threads; string tids label tracks of one logical thread (Neural
    // Engine puts model, iteration and operator events on tids "inference", "Iteration",
    // "Operator"), so all string tids of a pid nest together.
    std::string track = pid.text + "\x1f" + (tid.numeric ? tid.text : std::string("\x1e"));
    uint64_t tid_value = tid.numeric ? static_cast<uint64_t>(tid.number) : 0;
    std::string cat;
    if (const ij::Value* c = e.find("cat"); c && c->is_string()) cat = c->text;
    // Converted now: in the array form the parsed event does not outlive this call.
    std::map<std::string, std::string> args;
    if (const ij::Value* a = e.find("args"); a && a->is_object() && (ph == "X" || ph == "B")) {
      for (const auto& [k, v] : a->members) {
        std::string text;
        if (v.is_string()) text = v.text;
        else write_json(v, text);
        args["chrome.args." + k] = std::move(text);
      }
    }
    if (ph == "X") {
      int64_t dur = 0;
      if (const ij::Value* d = e.find("dur")) dur = ij::expect_scaled(s_, *d, 3, "dur (microseconds)");
      if (dur < 0) throw s_.error_at(e.find("dur")->offset, "expected dur >= 0");
      if (ts > INT64_MAX - dur) throw s_.error_at(e.offset, "expected ts + dur within range");
      add(track, {ts, ts + dur, name, cat, args, order_++, process, tid_value});
      max_ns_ = std::max(max_ns_, ts + dur);
    } else if (ph == "B") {
      open_[track].push_back({ts, ts, name, cat, args, order_++, process, tid_value});
    } else if (ph == "E") {
      auto& stack = open_[track];
      if (stack.empty()) {
        ++unmatched_end_;
        return;
      }
      Interval iv = std::move(stack.back());
      stack.pop_back();
      iv.end_ns = std::max(ts, iv.begin_ns);
      if (iv.name.empty()) iv.name = name;
      add(track, std::move(iv));
    } else {
      model::Run::Mark m;
      m.process = process;
      m.tid = tid_value;
      m.name = name;
      m.host_ns = ts;
      marks_.push_back(std::move(m));
    }
  }

  void finish(const std::string& path) {
    // A B never closed (the trace was cut) ends at the last time seen.
    size_t left_open = 0;
    for (auto& [track, stack] : open_) {
      for (auto& iv : stack) {
        iv.end_ns = std::max(max_ns_, iv.begin_ns);
        iv.left_open = true;
        add(track, std::move(iv));
        ++left_open;
      }
    }
    if (left_open)
      diag_.warnings.push_back(path + ": " + std::to_string(left_open) +
                               " B events without their E were closed at the end of the trace");
    if (unmatched_end_)
      diag_.warnings.push_back(path + ": " + std::to_string(unmatched_end_) +
                               " E events without a B were ignored");
    uint32_t base = static_cast<uint32_t>(run_.processes.size());
    int64_t origin = min_ns_ == INT64_MAX ? 0 : min_ns_;
    for (auto& p : processes_) {
      p.host_start_ns = origin;
      run_.processes.push_back(std::move(p));
    }
    std::vector<model::Launch> launches;
    for (auto& [track, ivs] : tracks_) nest(ivs, base, origin, launches);
    // Launch order = time order (seq is per process).
    std::stable_sort(launches.begin(), launches.end(), [](const model::Launch& a, const model::Launch& b) {
      return a.host_begin_ns < b.host_begin_ns;
    });
    std::map<uint32_t, uint64_t> seq;
    for (auto& l : launches) {
      l.seq = ++seq[l.process];
      run_.launches.push_back(std::move(l));
    }
    for (auto& m : marks_) {
      m.process += base;
      m.host_ns -= origin;
      run_.marks.push_back(std::move(m));
    }
    // No Process::iteration_wall_ns: which range is "the iteration" is the analyses' choice
    // (e.g. Neural Engine's model_inference holds Iteration0..N); every range carries its
    // own begin/end, so its wall time is known whichever is chosen.
  }

 private:
  uint32_t process_for(const Id& pid) {
    std::string key = (pid.numeric ? "n" : "s") + pid.text;
    auto it = pid_index_.find(key);
    if (it != pid_index_.end()) return it->second;
    model::Process p;
    p.pid = pid.numeric ? pid.number : 0;
    p.source = s_.path;
    p.source_format = "chrome";
    processes_.push_back(std::move(p));
    uint32_t index = static_cast<uint32_t>(processes_.size() - 1);
    pid_index_.emplace(key, index);
    return index;
  }

  void add(const std::string& track, Interval iv) { tracks_[track].push_back(std::move(iv)); }

  void nest(std::vector<Interval>& ivs, uint32_t base, int64_t origin,
            std::vector<model::Launch>& launches) {
    std::stable_sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) {
      if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
      return a.end_ns > b.end_ns;  // the longer of two events starting together is the parent
    });
    std::vector<size_t> stack;
    for (size_t i = 0; i < ivs.size(); ++i) {
      while (!stack.empty() && ivs[stack.back()].end_ns < ivs[i].end_ns) stack.pop_back();
      if (!stack.empty()) {
        ivs[i].parent = static_cast<int64_t>(stack.back());
        ivs[stack.back()].has_children = true;
      }
      stack.push_back(i);
    }
    // Parents precede children in sorted order, so ids can be given in one pass.
    for (auto& iv : ivs) {
      std::vector<uint64_t> chain;
      for (int64_t p = iv.parent; p >= 0; p = ivs[static_cast<size_t>(p)].parent)
        chain.push_back(ivs[static_cast<size_t>(p)].range_id);
      std::reverse(chain.begin(), chain.end());
      if (iv.has_children) {
        model::Range r;
        r.id = next_range_id_++;
        r.parent = chain.empty() ? 0 : chain.back();
        r.name = iv.name;
        r.process = base + iv.process;
        r.tid = iv.tid;
        r.host_begin_ns = iv.begin_ns - origin;
        r.host_end_ns = iv.end_ns - origin;
        r.left_open = iv.left_open;
        iv.range_id = r.id;
        run_.ranges.push_back(std::move(r));
        continue;
      }
      model::Launch l;
      l.process = base + iv.process;
      l.tid = iv.tid;
      l.name = iv.name;
      l.api = "trace_event";
      l.host_begin_ns = iv.begin_ns - origin;
      l.host_end_ns = iv.end_ns - origin;
      l.duration_override_ns = iv.end_ns - iv.begin_ns;
      l.ranges = std::move(chain);
      if (iv.left_open) l.status = "incomplete";
      if (!iv.cat.empty()) l.extra["chrome.cat"] = iv.cat;
      for (auto& [k, v] : iv.args) l.extra[k] = std::move(v);
      launches.push_back(std::move(l));
    }
  }

  const ij::Source& s_;
  model::Run& run_;
  Diagnostics& diag_;
  uint64_t next_range_id_ = 1;
  size_t order_ = 0;
  int64_t min_ns_ = INT64_MAX, max_ns_ = INT64_MIN;
  size_t unmatched_end_ = 0;
  std::vector<model::Process> processes_;
  std::map<std::string, uint32_t> pid_index_;
  std::map<std::string, std::vector<Interval>> tracks_;
  std::map<std::string, std::vector<Interval>> open_;
  std::vector<model::Run::Mark> marks_;
};

}  // namespace

std::string_view ChromeTraceReader::name() const { return "chrome"; }

std::string_view ChromeTraceReader::description() const {
  return "Chrome Trace Event JSON (chrome://tracing, Perfetto, Neural Engine profiling)";
}

bool ChromeTraceReader::sniff(std::string_view head) const {
  size_t p = ij::skip_whitespace(head, 0);
  if (p >= head.size()) return false;
  if (head[p] == '{') return head.find("\"traceEvents\"") != std::string_view::npos;
  if (head[p] != '[') return false;
  p = ij::skip_whitespace(head, p + 1);
  if (p >= head.size() || head[p] != '{') return false;
  size_t close = head.find('}', p);
  size_t ph = head.find("\"ph\"", p);
  return ph != std::string_view::npos && (close == std::string_view::npos || ph < close);
}

void ChromeTraceReader::read(const std::string& path, std::string_view content, model::Run& run,
                             Diagnostics& diagnostics) const {
  ij::Source src{path, content};
  size_t p = ij::skip_whitespace(content, 0);
  if (p >= content.size()) throw src.error_at(p, "expected a Chrome trace ({\"traceEvents\": [...]} or [...]), found end of input");
  Importer importer(src, run, diagnostics);
  if (content[p] == '{') {
    size_t end = 0;
    ij::Value doc = ij::parse_value(src, p, &end);
    size_t rest = ij::skip_whitespace(content, end);
    if (rest < content.size()) throw src.error_at(rest, "expected end of input after the trace object");
    const ij::Value& events = ij::expect_array(src, ij::expect_member(src, doc, "traceEvents"), "\"traceEvents\"");
    for (const auto& e : events.items) importer.event(e);
  } else if (content[p] == '[') {
    // Array form, element by element: the format allows a trailing comma and a missing ']'
    // (the writer may be killed mid-trace), which a plain JSON parse rejects.
    size_t pos = ij::skip_whitespace(content, p + 1);
    while (pos < content.size() && content[pos] != ']') {
      size_t end = 0;
      ij::Value e = ij::parse_value(src, pos, &end);
      importer.event(e);
      pos = ij::skip_whitespace(content, end);
      if (pos < content.size() && content[pos] == ',') pos = ij::skip_whitespace(content, pos + 1);
      else if (pos < content.size() && content[pos] != ']')
        throw src.error_at(pos, "expected ',' or ']' after a trace event");
    }
    if (pos < content.size()) {
      size_t rest = ij::skip_whitespace(content, pos + 1);
      if (rest < content.size()) throw src.error_at(rest, "expected end of input after ']'");
    }
  } else {
    throw src.error_at(p, "expected a Chrome trace ({\"traceEvents\": [...]} or [...])");
  }
  importer.finish(path);
}

const Reader& chrome_trace_reader() {
  static const ChromeTraceReader reader;
  return reader;
}

}  // namespace clprof::readers
