#include "readers/chrome/chrome_trace.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "readers/import_json.hpp"
#include "readers/limits.hpp"

namespace clprof::readers {

namespace ij = import_json;

namespace {

// One complete event (X, or a matched B/E pair) on one track.
struct Interval {
  int64_t begin_ns = 0, end_ns = 0;
  std::string name, cat;
  std::map<std::string, std::string> args;  // "chrome.args.<key>" -> value text
  size_t order = 0;                         // input order, to keep equal intervals stable
  uint32_t process = 0;                     // index into this file's processes
  uint64_t tid = 0;
  bool left_open = false;
  size_t offset = 0;  // where the event (the B of a pair) starts, for messages
  // Filled by nesting:
  int64_t parent = -1;  // index into the track's intervals
  bool has_children = false;
  bool too_deep = false;  // more than limits::kMaxRangeDepth ancestors: skipped
  uint64_t range_id = 0;
};

// Compact JSON text of a value, for args that are not strings. Iterative: the tree may be
// as deep as import_json::kMaxDepth.
void write_json(const ij::Value& root, std::string& out) {
  // Each frame: a container and the index of its next child.
  std::vector<std::pair<const ij::Value*, size_t>> stack;
  auto string = [&out](const std::string& text) {
    out += '"';
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
    out += '"';
  };
  auto open = [&](const ij::Value& v) {
    switch (v.type) {
      case ij::Value::Type::Null:
        out += "null";
        break;
      case ij::Value::Type::Bool:
        out += v.boolean ? "true" : "false";
        break;
      case ij::Value::Type::Number:
        out += v.text;
        break;
      case ij::Value::Type::String:
        string(v.text);
        break;
      case ij::Value::Type::Array:
        out += '[';
        stack.emplace_back(&v, 0);
        break;
      case ij::Value::Type::Object:
        out += '{';
        stack.emplace_back(&v, 0);
        break;
    }
  };
  open(root);
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    const bool array = v->is_array();
    const size_t size = array ? v->items.size() : v->members.size();
    if (next == size) {
      out += array ? ']' : '}';
      stack.pop_back();
      continue;
    }
    if (next > 0) out += ',';
    const size_t i = next++;
    if (array) {
      open(v->items[i]);
    } else {
      string(v->members[i].first);
      out += ':';
      open(v->members[i].second);  // may grow the stack: `v` is not used after this
    }
  }
}

// Whether a leaf event is a host API call rather than device work: its name is an OpenCL
// entry point ("cl" then an upper-case letter: clEnqueueNDRangeKernel, clFinish) or its
// category names an API ("api", "cuda_runtime_api", "OpenCL API": any case).
bool is_api_event(const Interval& iv) {
  const std::string& n = iv.name;
  if (n.size() > 2 && n[0] == 'c' && n[1] == 'l' && n[2] >= 'A' && n[2] <= 'Z') return true;
  std::string cat = iv.cat;
  for (char& c : cat) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return cat.find("api") != std::string::npos;
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
    id.text = limits::capped_name(v->text);
    return id;
  }
  id.number = ij::expect_int(s, *v, what);
  id.text = v->text;
  return id;
}

class Importer {
 public:
  Importer(const ij::Source& s, model::Run& run, Diagnostics& diag)
      : s_(s), run_(run), diag_(diag), findings_(s.path, "trace events") {
    for (const auto& r : run.ranges) next_range_id_ = std::max(next_range_id_, r.id + 1);
  }

  // One trace event; a bad one is skipped (counted and reported by finish()).
  void event(const ij::Value& e) {
    findings_.record([&] { read_event(e); });
  }

  // The input ended inside an event (or another member after the events): everything
  // before it was read.
  void cut_at(size_t offset, const std::string& inside) {
    const auto [line, column] = s_.line_column(offset);
    diag_.warnings.push_back(s_.path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                             ": the trace is cut inside " + inside + "; the " +
                             std::to_string(events_) + " complete events before it were read");
  }
  void count_event() { ++events_; }

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
    std::vector<model::Launch> launches;
    for (auto& [track, ivs] : tracks_) nest(ivs, base, origin, launches);
    findings_.finish(diag_);
    for (auto& p : processes_) {
      p.host_start_ns = origin;
      run_.processes.push_back(std::move(p));
    }
    // Launch order = time order (seq is per process).
    std::stable_sort(launches.begin(), launches.end(),
                     [](const model::Launch& a, const model::Launch& b) {
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
  // Checks the whole event first, then records it: a bad event changes nothing.
  void read_event(const ij::Value& e) {
    ij::expect_object(s_, e, "a trace event");
    const ij::Value* ph_v = e.find("ph");
    if (!ph_v)
      throw s_.error_at(e.offset, "expected member \"ph\" (the event phase) in this trace event");
    const std::string& ph = ij::expect_string(s_, *ph_v, "the event phase");
    Id pid = read_id(s_, e.find("pid"), "a pid");
    Id tid = read_id(s_, e.find("tid"), "a tid");
    std::string name;
    if (const ij::Value* n = e.find("name"))
      name = findings_.name(ij::expect_string(s_, *n, "the event name"));
    if (ph == "M") {
      if (name == "process_name")
        if (const ij::Value* a = e.find("args"); a && a->is_object())
          if (const ij::Value* pn = a->find("name"); pn && pn->is_string())
            processes_[process_for(pid)].command_line = {findings_.name(pn->text)};
      return;
    }
    bool timed = ph == "X" || ph == "B" || ph == "E" || ph == "i" || ph == "I" || ph == "R";
    if (!timed) return;  // counters, async, flow, object events carry no layer structure
    int64_t ts = ij::expect_scaled(s_, ij::expect_member(s_, e, "ts"), 3, "ts (microseconds)");
    int64_t dur = 0;
    if (ph == "X") {
      const ij::Value& d = ij::expect_member(s_, e, "dur");
      dur = ij::expect_scaled(s_, d, 3, "dur (microseconds)");
      if (dur < 0) throw s_.error_at(d.offset, "expected dur >= 0");
    }
    if ((ph == "X" || ph == "B") && !e.find("name"))
      throw s_.error_at(e.offset, "expected member \"name\" in this " + ph + " event");
    // Numeric tids are threads; string tids label tracks of one logical thread (Neural
    // Engine puts model, iteration and operator events on tids "inference", "Iteration",
    // "Operator"), so all string tids of a pid nest together.
    std::string track = pid.text + "\x1f" + (tid.numeric ? tid.text : std::string("\x1e"));
    if (ph == "E") {
      auto it = open_.find(track);
      if (it != open_.end() && !it->second.empty() && ts < it->second.back().begin_ns)
        throw s_.error_at(e.offset, "expected the E event's ts >= its B event's ts");
    }
    // Valid: from here on nothing throws.
    const uint32_t process = process_for(pid);
    min_ns_ = std::min(min_ns_, ts);
    max_ns_ = std::max(max_ns_, ts + dur);  // both within 2^61: no overflow
    uint64_t tid_value = tid.numeric ? static_cast<uint64_t>(tid.number) : 0;
    std::string cat;
    if (const ij::Value* c = e.find("cat"); c && c->is_string()) cat = limits::capped_name(c->text);
    // Converted now: the parsed event does not outlive this call.
    std::map<std::string, std::string> args;
    if (const ij::Value* a = e.find("args"); a && a->is_object() && (ph == "X" || ph == "B")) {
      for (const auto& [k, v] : a->members) {
        std::string text;
        if (v.is_string())
          text = v.text;
        else
          write_json(v, text);
        args["chrome.args." + k] = std::move(text);
      }
    }
    if (ph == "X") {
      add(track, {ts, ts + dur, std::move(name), std::move(cat), std::move(args), order_++, process,
                  tid_value, false, e.offset});
    } else if (ph == "B") {
      open_[track].push_back({ts, ts, std::move(name), std::move(cat), std::move(args), order_++,
                              process, tid_value, false, e.offset});
    } else if (ph == "E") {
      auto& stack = open_[track];
      if (stack.empty()) {
        ++unmatched_end_;
        return;
      }
      Interval iv = std::move(stack.back());
      stack.pop_back();
      iv.end_ns = ts;
      if (iv.name.empty()) iv.name = std::move(name);
      add(track, std::move(iv));
    } else {
      model::Run::Mark m;
      m.process = process;
      m.tid = tid_value;
      m.name = std::move(name);
      m.host_ns = ts;
      marks_.push_back(std::move(m));
    }
  }

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

  // Nests one track's intervals by time containment: linear after the sort, and no launch
  // carries more than limits::kMaxRangeDepth range ids (deeper events are skipped).
  void nest(std::vector<Interval>& ivs, uint32_t base, int64_t origin,
            std::vector<model::Launch>& launches) {
    std::stable_sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) {
      if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
      return a.end_ns > b.end_ns;  // the longer of two events starting together is the parent
    });
    // Sorted order is a depth-first walk of the containment tree: `open` holds the
    // ancestors of the interval at hand, outermost first.
    std::vector<size_t> open;
    for (size_t i = 0; i < ivs.size(); ++i) {
      while (!open.empty() && ivs[open.back()].end_ns < ivs[i].end_ns) open.pop_back();
      if (open.size() >= limits::kMaxRangeDepth) {
        ivs[i].too_deep = true;  // its own children are at least as deep: skipped too
        findings_.skip_at(s_, ivs[i].offset,
                          "expected events nested at most " +
                              std::to_string(limits::kMaxRangeDepth) +
                              " deep (the analyzer's ceiling)");
        continue;
      }
      if (!open.empty()) {
        ivs[i].parent = static_cast<int64_t>(open.back());
        ivs[open.back()].has_children = true;
      }
      open.push_back(i);
    }
    // Parents precede children: ids are given in one more walk, the chain of range ids of
    // the current ancestors kept alongside.
    std::vector<size_t> stack;
    std::vector<uint64_t> chain;
    for (size_t i = 0; i < ivs.size(); ++i) {
      Interval& iv = ivs[i];
      if (iv.too_deep) continue;
      while (!stack.empty() && static_cast<int64_t>(stack.back()) != iv.parent) {
        stack.pop_back();
        chain.pop_back();
      }
      if (iv.has_children) {
        model::Range r;
        r.id = next_range_id_++;
        r.parent = chain.empty() ? 0 : chain.back();
        r.name = std::move(iv.name);
        r.process = base + iv.process;
        r.tid = iv.tid;
        r.host_begin_ns = iv.begin_ns - origin;
        r.host_end_ns = iv.end_ns - origin;
        r.left_open = iv.left_open;
        iv.range_id = r.id;
        run_.ranges.push_back(std::move(r));
        stack.push_back(i);
        chain.push_back(iv.range_id);
        continue;
      }
      if (is_api_event(iv)) {
        // A host API call (an OpenCL entry point, or an event its tool files as API): it goes
        // to `clprof api`, not to the kernels.
        model::ApiCall c;
        c.process = base + iv.process;
        c.tid = iv.tid;
        c.name = iv.name;
        c.host_begin_ns = iv.begin_ns - origin;
        c.host_end_ns = iv.end_ns - origin;
        run_.api_calls.push_back(std::move(c));
        continue;
      }
      model::Launch l;
      l.process = base + iv.process;
      l.tid = iv.tid;
      l.name = std::move(iv.name);
      l.api = "trace_event";
      l.host_begin_ns = iv.begin_ns - origin;
      l.host_end_ns = iv.end_ns - origin;
      l.duration_override_ns = iv.end_ns - iv.begin_ns;
      l.ranges = chain;
      if (iv.left_open) l.status = "incomplete";
      if (!iv.cat.empty()) l.extra["chrome.cat"] = std::move(iv.cat);
      for (auto& [k, v] : iv.args) l.extra[k] = std::move(v);
      launches.push_back(std::move(l));
    }
    ivs = {};  // the track is done: release its memory before the next one
  }

  const ij::Source& s_;
  model::Run& run_;
  Diagnostics& diag_;
  ij::Findings findings_;
  uint64_t next_range_id_ = 1;
  size_t order_ = 0;
  int64_t min_ns_ = INT64_MAX, max_ns_ = INT64_MIN;
  size_t unmatched_end_ = 0;
  size_t events_ = 0;  // complete events parsed (good or bad)
  std::vector<model::Process> processes_;
  std::map<std::string, uint32_t> pid_index_;
  std::map<std::string, std::vector<Interval>> tracks_;
  std::map<std::string, std::vector<Interval>> open_;
  std::vector<model::Run::Mark> marks_;
};

// Reads the events of an array starting at `pos` (just past its '['), one at a time: only
// one event's tree is in memory at once. Returns the offset past the closing ']', or
// content.size() when the input ends first (the format allows a missing ']' and a trailing
// comma: the writer may be killed mid-trace). An event cut by the end of the input is
// dropped with a warning; the events before it are kept.
size_t read_events(const ij::Source& src, size_t pos, Importer& importer) {
  const std::string_view content = src.content;
  pos = ij::skip_whitespace(content, pos);
  while (pos < content.size() && content[pos] != ']') {
    size_t end = 0;
    try {
      ij::Value e = ij::parse_value(src, pos, &end);
      importer.count_event();
      importer.event(e);
    } catch (const ij::JsonSyntaxError& error) {
      if (!error.at_end()) throw;
      importer.cut_at(pos, "an event");
      return content.size();
    }
    pos = ij::skip_whitespace(content, end);
    if (pos < content.size() && content[pos] == ',')
      pos = ij::skip_whitespace(content, pos + 1);
    else if (pos < content.size() && content[pos] != ']')
      throw src.error_at(pos, "expected ',' or ']' after a trace event");
  }
  return pos < content.size() ? pos + 1 : pos;
}

// {"traceEvents": [...], ...}, member by member: the events are read as in the array form;
// other members (metadata, stack frames) are checked and dropped.
void read_object(const ij::Source& src, size_t pos, Importer& importer) {
  const std::string_view content = src.content;
  const size_t object = pos;
  bool found = false;
  pos = ij::skip_whitespace(content, pos + 1);
  if (pos < content.size() && content[pos] == '}') pos = content.size() + 1;  // empty object
  while (pos < content.size()) {
    size_t end = 0;
    const ij::Value key = ij::parse_value(src, pos, &end);
    if (!key.is_string()) throw src.error_at(key.offset, "expected a member name (a string)");
    pos = ij::skip_whitespace(content, end);
    if (pos >= content.size()) break;
    if (content[pos] != ':') throw src.error_at(pos, "expected ':' after a member name");
    pos = ij::skip_whitespace(content, pos + 1);
    if (key.text == "traceEvents" && !found) {
      found = true;
      if (pos >= content.size()) break;
      if (content[pos] != '[') {
        const ij::Value v = ij::parse_value(src, pos);
        ij::expect_array(src, v, "\"traceEvents\"");
      }
      pos = read_events(src, pos + 1, importer);
    } else {
      try {
        ij::parse_value(src, pos, &end);
      } catch (const ij::JsonSyntaxError& error) {
        if (!error.at_end() || !found) throw;
        importer.cut_at(pos, "member \"" + limits::for_message(key.text) + "\"");
        break;
      }
      pos = end;
    }
    pos = ij::skip_whitespace(content, pos);
    if (pos < content.size() && content[pos] == ',') {
      pos = ij::skip_whitespace(content, pos + 1);
    } else if (pos < content.size() && content[pos] == '}') {
      const size_t rest = ij::skip_whitespace(content, pos + 1);
      if (rest < content.size())
        throw src.error_at(rest, "expected end of input after the trace object");
      pos = content.size() + 1;  // done
    } else if (pos < content.size()) {
      throw src.error_at(pos, "expected ',' or '}' after a member of the trace object");
    }
  }
  if (!found) throw src.error_at(object, "expected member \"traceEvents\" in this object");
}

}  // namespace

bool looks_like_chrome_trace(std::string_view head) {
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

void read_chrome_trace(const ij::Source& src, model::Run& run, Diagnostics& diagnostics) {
  size_t p = ij::skip_whitespace(src.content, 0);
  if (p >= src.content.size())
    throw src.error_at(
        p, "expected a Chrome trace ({\"traceEvents\": [...]} or [...]), found end of input");
  Importer importer(src, run, diagnostics);
  if (src.content[p] == '{') {
    read_object(src, p, importer);
  } else if (src.content[p] == '[') {
    const size_t end = read_events(src, p + 1, importer);
    const size_t rest = ij::skip_whitespace(src.content, end);
    if (rest < src.content.size()) throw src.error_at(rest, "expected end of input after ']'");
  } else {
    throw src.error_at(p, "expected a Chrome trace ({\"traceEvents\": [...]} or [...])");
  }
  importer.finish(src.path);
}

}  // namespace clprof::readers
