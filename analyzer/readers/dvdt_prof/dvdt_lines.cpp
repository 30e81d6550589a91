// Line mode ("[dv/dt] <call> <field> <value>") to the call records the cJSON mode prints
// (dvdt_prof.hpp: dvdt_lines_to_calls).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "readers/dvdt_prof/dvdt_text.hpp"

namespace clprof::readers {

namespace ij = import_json;
using dvdt::kPrefix;
using dvdt::trim_cr;

namespace {

ij::Value make_scalar(ij::Value::Type type, std::string text, size_t offset) {
  ij::Value v;
  v.type = type;
  v.text = std::move(text);
  v.offset = offset;
  return v;
}

ij::Value make_string(std::string text, size_t offset) {
  return make_scalar(ij::Value::Type::String, std::move(text), offset);
}

ij::Value make_number(std::string text, size_t offset) {
  return make_scalar(ij::Value::Type::Number, std::move(text), offset);
}

ij::Value make_container(ij::Value::Type type, size_t offset) {
  ij::Value v;
  v.type = type;
  v.offset = offset;
  return v;
}

bool is_dvdt_line(std::string_view line) {
  return line.size() > kPrefix.size() && line.substr(0, kPrefix.size()) == kPrefix &&
         line[kPrefix.size()] == ' ';
}

}  // namespace

ij::Value dvdt_lines_to_calls(const ij::Source& s) {
  ij::Value calls = make_container(ij::Value::Type::Array, 0);
  std::string_view c = s.content;
  size_t pos = 0;
  std::string source_call, source_key;  // inside "sources[i] <<" ... ">>"
  // The current record's "timestamp" and "source" members, by index: found once, not by a
  // search per line (a record of a million lines would be quadratic).
  constexpr size_t kNone = SIZE_MAX;
  size_t ts_member = kNone, source_member = kNone;
  std::string source_text;
  while (pos < c.size()) {
    size_t eol = c.find('\n', pos);
    if (eol == std::string_view::npos) eol = c.size();
    std::string_view line = trim_cr(c.substr(pos, eol - pos));
    size_t line_pos = pos;
    pos = eol + 1;
    if (!source_call.empty()) {
      std::string close = std::string(kPrefix) + " " + source_call + " " + source_key + " >>";
      if (line == close) {
        ij::Value& rec = calls.items.back();
        if (source_member == kNone) {
          source_member = rec.members.size();
          rec.members.emplace_back("source", make_container(ij::Value::Type::Object, line_pos));
        }
        ij::Value* src = &rec.members[source_member].second;
        std::string index = source_key.substr(8, source_key.size() - 9);  // sources[<i>]
        src->members.emplace_back(index, make_string(std::move(source_text), line_pos));
        source_text.clear();
        source_call.clear();
      } else {
        source_text.append(line);
        source_text += '\n';
      }
      continue;
    }
    if (!is_dvdt_line(line)) continue;
    std::string_view rest = line.substr(kPrefix.size() + 1);
    size_t sp = rest.find(' ');
    std::string call(rest.substr(0, sp));
    if (call.rfind("cl", 0) != 0)
      throw s.error_at(line_pos + kPrefix.size() + 1,
                       "expected an OpenCL call name after [dv/dt], found \"" + call + "\"");
    if (sp == std::string_view::npos) {  // "[dv/dt] clFoo" opens a record
      ij::Value rec = make_container(ij::Value::Type::Object, line_pos);
      rec.members.emplace_back("call", make_string(call, line_pos + kPrefix.size() + 1));
      calls.items.push_back(std::move(rec));
      ts_member = source_member = kNone;
      continue;
    }
    if (calls.items.empty() || calls.items.back().find("call")->text != call)
      throw s.error_at(line_pos,
                       "expected \"[dv/dt] " + call + "\" opening this call before its fields");
    std::string_view after = rest.substr(sp + 1);
    size_t sp2 = after.find(' ');
    std::string field(after.substr(0, sp2));
    std::string_view value =
        sp2 == std::string_view::npos ? std::string_view() : after.substr(sp2 + 1);
    size_t value_pos = line_pos + kPrefix.size() + 1 + sp + 1 +
                       (sp2 == std::string_view::npos ? after.size() : sp2 + 1);
    ij::Value& rec = calls.items.back();
    if (field.rfind("sources[", 0) == 0 && value == "<<") {
      source_call = call;
      source_key = field;
      continue;
    }
    auto tokens = [&](ij::Value::Type type) {
      ij::Value arr = make_container(ij::Value::Type::Array, value_pos);
      size_t i = 0;
      while (i < value.size()) {
        size_t j = value.find(' ', i);
        if (j == std::string_view::npos) j = value.size();
        if (j > i) {
          std::string tok(value.substr(i, j - i));
          arr.items.push_back(type == ij::Value::Type::Number ? make_number(tok, value_pos + i)
                                                              : make_string(tok, value_pos + i));
        }
        i = j + 1;
      }
      return arr;
    };
    if (field == "gws" || field == "lws" || field == "gwo") {
      rec.members.emplace_back(field, tokens(ij::Value::Type::Number));
    } else if (field == "event_wait_list" || field == "device_list") {
      rec.members.emplace_back(field, tokens(ij::Value::Type::String));
    } else if (field == "profiling") {
      if (value.rfind("output profiling info error", 0) == 0) continue;
      ij::Value four = tokens(ij::Value::Type::Number);
      if (four.items.size() != 4)
        throw s.error_at(value_pos, "expected 4 profiling times (queued submit start end)");
      ij::Value prof = make_container(ij::Value::Type::Object, value_pos);
      const char* keys[] = {"queued", "submit", "start", "end"};
      for (int i = 0; i < 4; ++i)
        prof.members.emplace_back(keys[i], std::move(four.items[static_cast<size_t>(i)]));
      rec.members.emplace_back("profiling", std::move(prof));
    } else if (field == "start" || field == "end") {
      if (ts_member == kNone) {
        ts_member = rec.members.size();
        rec.members.emplace_back("timestamp", make_container(ij::Value::Type::Object, value_pos));
      }
      rec.members[ts_member].second.members.emplace_back(
          field, make_string(std::string(value), value_pos));
    } else {
      rec.members.emplace_back(field, make_string(std::string(value), value_pos));
    }
  }
  if (!source_call.empty())
    throw s.error_at(c.size(), "expected \"[dv/dt] " + source_call + " " + source_key +
                                   " >>\" closing the source");
  return calls;
}

}  // namespace clprof::readers
