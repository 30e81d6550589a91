#include "readers/dvdt_prof/dvdt_prof.hpp"

#include <string>
#include <string_view>
#include <utility>

#include "readers/dvdt_prof/dvdt_text.hpp"

namespace clprof::readers {

namespace ij = import_json;
using dvdt::kPrefix;
using dvdt::trim_cr;

bool looks_like_dvdt_prof(std::string_view head) {
  if (head.find("[dv/dt] ") != std::string_view::npos) return true;
  size_t p = ij::skip_whitespace(head, 0);
  if (p >= head.size() || head[p] != '[') return false;
  size_t call = head.find("\"call\"", p);
  if (call == std::string_view::npos) return false;
  size_t q = ij::skip_whitespace(head, call + 6);
  if (q >= head.size() || head[q] != ':') return false;
  q = ij::skip_whitespace(head, q + 1);
  return head.substr(q, 3) == "\"cl";
}

void read_dvdt_prof(const ij::Source& src, model::Run& run, Diagnostics& diagnostics) {
  model::Process proc;
  proc.source = src.path;
  proc.source_format = "dvdt-prof";
  size_t first = ij::skip_whitespace(src.content, 0);
  ij::Value calls;
  if (first < src.content.size() && src.content[first] == '[' &&
      src.content.substr(first, kPrefix.size()) != kPrefix) {
    size_t end = 0;
    calls = ij::parse_value(src, first, &end);
    size_t rest = ij::skip_whitespace(src.content, end);
    if (rest < src.content.size())
      throw src.error_at(rest, "expected end of input after the call list");
  } else {
    // Program stdout: cJSON blocks "[dv/dt] <<" ... "[dv/dt] >>", else line mode.
    calls = ij::Value();
    calls.type = ij::Value::Type::Array;
    bool any_block = false;
    size_t pos = 0;
    while (pos < src.content.size()) {
      size_t eol = src.content.find('\n', pos);
      if (eol == std::string_view::npos) eol = src.content.size();
      std::string_view line = trim_cr(src.content.substr(pos, eol - pos));
      if (line == "[dv/dt] <<") {
        size_t end = 0;
        ij::Value block = ij::parse_value(src, eol, &end);
        ij::expect_array(src, block, "the cJSON call list after [dv/dt] <<");
        for (auto& r : block.items) calls.items.push_back(std::move(r));
        size_t close = ij::skip_whitespace(src.content, end);
        if (src.content.substr(close, 10) != "[dv/dt] >>")
          throw src.error_at(close, "expected \"[dv/dt] >>\" closing the cJSON call list");
        any_block = true;
        pos = close + 10;
        continue;
      }
      pos = eol + 1;
    }
    if (!any_block) {
      calls = dvdt_lines_to_calls(src);
      if (calls.items.empty())
        throw src.error_at(first,
                           "expected dvdt-prof output: a JSON call list, \"[dv/dt] <<\" or "
                           "\"[dv/dt] cl...\" lines");
    }
  }
  ij::expect_array(src, calls, "the list of dvdt-prof call records");
  run.processes.push_back(proc);
  import_dvdt_calls(src, calls, run, static_cast<uint32_t>(run.processes.size() - 1), diagnostics);
}

}  // namespace clprof::readers
