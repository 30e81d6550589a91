#include "timeline_check.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <regex>

namespace clprof::test {

namespace {

using Value = rapidjson::Value;

// Numbers are kept as their text (kParseNumbersAsStringsFlag): "12.345" -> 12345 ns.
std::optional<int64_t> micros_text_to_ns(const std::string& s) {
  static const std::regex form("-?[0-9]+\\.[0-9]{3}");
  if (!std::regex_match(s, form)) return std::nullopt;
  const bool negative = s[0] == '-';
  const std::string digits = (negative ? s.substr(1) : s);
  const size_t dot = digits.find('.');
  if (dot > 15) return std::nullopt;
  const int64_t v = std::stoll(digits.substr(0, dot)) * 1000 + std::stoll(digits.substr(dot + 1));
  return negative ? -v : v;
}

std::optional<uint64_t> decimal_u32(const Value& v) {
  if (!v.IsString()) return std::nullopt;
  const std::string s = v.GetString();
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const uint64_t n = std::stoull(s);
  if (n > UINT32_MAX) return std::nullopt;
  return n;
}

struct Slice {
  int64_t begin = 0, end = 0;
  size_t index = 0;
};

}  // namespace

TimelineFindings check_timeline(const std::string& text) {
  TimelineFindings f;
  auto error = [&f](const std::string& e) {
    if (f.errors.size() < 20) f.errors.push_back(e);
  };
  // Twice: for the types (a number is not a string) and for the numbers' text.
  rapidjson::Document typed, d;
  typed.Parse(text.c_str(), text.size());
  d.Parse<rapidjson::kParseNumbersAsStringsFlag>(text.c_str(), text.size());
  if (d.HasParseError() || typed.HasParseError()) {
    error(std::string("not JSON: ") + rapidjson::GetParseError_En(d.GetParseError()) + " at byte " +
          std::to_string(d.GetErrorOffset()));
    return f;
  }
  if (!d.IsObject() || !d.HasMember("traceEvents") || !d["traceEvents"].IsArray()) {
    error("not an object with a traceEvents array");
    return f;
  }
  for (auto m = d.MemberBegin(); m != d.MemberEnd(); ++m) {
    const std::string k = m->name.GetString();
    if (k != "traceEvents" && k != "otherData" && k != "displayTimeUnit" && k != "metadata")
      error("top-level key '" + k + "' (a viewer stops reading there)");
  }
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Slice>> tracks;
  std::map<std::pair<uint32_t, uint32_t>, std::string> thread_names;
  std::set<std::pair<uint32_t, uint32_t>> used;
  std::map<std::string, std::pair<int, int>> flows;  // bind_id -> (outs, ins)
  size_t index = 0;
  const auto& typed_events = typed["traceEvents"].GetArray();
  for (const Value& e : d["traceEvents"].GetArray()) {
    const Value& t = typed_events[static_cast<rapidjson::SizeType>(index)];
    const std::string at = "event " + std::to_string(index++);
    for (const char* k : {"ts", "dur", "pid", "tid", "bind_id"})
      if (t.IsObject() && t.HasMember(k) && !t[k].IsNumber())
        error(at + ": " + k + " is not a number");
    ++f.events;
    if (!e.IsObject() || e.MemberCount() < 2) {
      error(at + ": not an object with ph and ts");
      continue;
    }
    auto first = e.MemberBegin();
    if (std::string(first->name.GetString()) != "ph" ||
        std::string((first + 1)->name.GetString()) != "ts") {
      error(at + ": the first keys are not \"ph\", \"ts\"");
      continue;
    }
    if (!first->value.IsString()) {
      error(at + ": ph is not a string");
      continue;
    }
    const std::string ph = first->value.GetString();
    const auto pid = e.HasMember("pid") ? decimal_u32(e["pid"]) : std::nullopt;
    if (!pid) {
      error(at + ": pid is not a decimal integer below 2^32");
      continue;
    }
    std::optional<uint64_t> tid;
    if (e.HasMember("tid")) {
      tid = decimal_u32(e["tid"]);
      if (!tid) error(at + ": tid is not a decimal integer below 2^32");
    }
    if (ph == "M") {
      const std::string name =
          e.HasMember("name") && e["name"].IsString() ? e["name"].GetString() : "";
      if (!e.HasMember("args") || !e["args"].IsObject()) error(at + ": metadata without args");
      if (name == "process_name") {
        f.process_names[static_cast<uint32_t>(*pid)] = e["args"]["name"].GetString();
      } else if (name == "thread_name") {
        if (!tid)
          error(at + ": thread_name without tid");
        else
          thread_names[{static_cast<uint32_t>(*pid), static_cast<uint32_t>(*tid)}] =
              e["args"]["name"].GetString();
      } else if (name != "process_sort_index" && name != "thread_sort_index") {
        error(at + ": unknown metadata event '" + name + "'");
      }
      continue;
    }
    const auto ts = e["ts"].IsString() ? micros_text_to_ns(e["ts"].GetString()) : std::nullopt;
    if (!ts) {
      error(at + ": ts is not microseconds with three decimals");
      continue;
    }
    if (!tid) continue;
    const std::pair<uint32_t, uint32_t> track{static_cast<uint32_t>(*pid),
                                              static_cast<uint32_t>(*tid)};
    used.insert(track);
    if (ph == "i") {
      ++f.instants;
      continue;
    }
    if (ph != "X") {
      error(at + ": phase '" + ph + "' (the timeline writes X, i and M)");
      continue;
    }
    const auto dur = e.HasMember("dur") && e["dur"].IsString()
                         ? micros_text_to_ns(e["dur"].GetString())
                         : std::nullopt;
    if (!dur || *dur < 0) {
      error(at + ": dur is not a non-negative duration with three decimals");
      continue;
    }
    ++f.slices;
    tracks[track].push_back({*ts, *ts + *dur, index - 1});
    const std::string cat = e.HasMember("cat") && e["cat"].IsString() ? e["cat"].GetString() : "";
    ++f.by_cat[cat];
    if (e.HasMember("bind_id")) {
      const std::string id = e["bind_id"].IsString() ? e["bind_id"].GetString() : "?";
      if (e.HasMember("flow_out")) ++flows[id].first;
      if (e.HasMember("flow_in")) ++flows[id].second;
    }
    if (e.HasMember("args") && e["args"].IsObject() && e["args"].HasMember("seq")) {
      const Value& seq = e["args"]["seq"];
      const uint64_t s = seq.IsString() ? std::strtoull(seq.GetString(), nullptr, 10) : 0;
      if (cat == "api" || cat == "api,wait") ++f.host_commands[{track.first, s}];
      if (cat == "kernel" || cat == "transfer") ++f.device_commands[{track.first, s}];
    }
  }
  for (auto& [track, slices] : tracks) {
    // Proper nesting: sorted by begin (longer first), each slice ends within its enclosing one.
    std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
    });
    std::vector<Slice> stack;
    for (const Slice& s : slices) {
      while (!stack.empty() && stack.back().end <= s.begin) stack.pop_back();
      if (!stack.empty() && s.end > stack.back().end)
        error("pid " + std::to_string(track.first) + " tid " + std::to_string(track.second) +
              ": event " + std::to_string(s.index) + " [" + std::to_string(s.begin) + ", " +
              std::to_string(s.end) + "] partially overlaps event " +
              std::to_string(stack.back().index) + " [" + std::to_string(stack.back().begin) +
              ", " + std::to_string(stack.back().end) + "]");
      stack.push_back(s);
    }
  }
  for (const auto& [id, n] : flows) {
    if (n.first != 1 || n.second != 1)
      error("bind_id " + id + ": " + std::to_string(n.first) + " flow_out and " +
            std::to_string(n.second) + " flow_in slices (one each expected)");
    else
      ++f.flows;
  }
  for (const auto& t : used) {
    auto name = thread_names.find(t);
    if (name == thread_names.end()) {
      error("pid " + std::to_string(t.first) + " tid " + std::to_string(t.second) +
            " has no thread_name");
      continue;
    }
    f.track_names.insert(name->second);
    if (!f.process_names.count(t.first))
      error("pid " + std::to_string(t.first) + " has no process_name");
  }
  for (auto& [track, slices] : tracks) {
    auto name = thread_names.find(track);
    if (name != thread_names.end()) f.by_track[name->second] += slices.size();
  }
  return f;
}

std::string describe(const TimelineFindings& f) {
  std::string s;
  for (const auto& e : f.errors) s += e + "\n";
  return s;
}

}  // namespace clprof::test
