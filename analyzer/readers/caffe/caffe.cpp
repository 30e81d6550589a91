#include "readers/caffe/caffe.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "readers/import_json.hpp"
#include "readers/limits.hpp"

namespace clprof::readers {

namespace ij = import_json;

namespace {

// "07: fire2/expand1x1" -> "fire2/expand1x1" (CK prefixes the layer index).
std::string strip_index(const std::string& label) {
  size_t i = 0;
  while (i < label.size() && std::isdigit(static_cast<unsigned char>(label[i]))) ++i;
  if (i > 0 && i + 1 < label.size() && label[i] == ':' && label[i + 1] == ' ')
    return label.substr(i + 2);
  return label;
}

struct Counters {
  size_t out_of_range = 0;
  std::string first_out_of_range;
  ij::Findings* findings = nullptr;  // bad records (skipped) and cut names
};

// A time that does not fit int64 ns is Caffe's unsigned wrap-around of a negative timer
// difference (e.g. 1.84457e+13 ms in real CK data); it is skipped and counted apart. Any
// other bad time (not a number, negative) makes its record bad: InputError.
bool layer_time(const ij::Source& s, const ij::Value& v, int scale, const std::string& layer,
                Counters& c, int64_t* out) {
  if (!v.is_number())
    throw s.error_at(
        v.offset, std::string("expected a layer time (a number), found ") + ij::type_name(v.type));
  const bool fits = ij::scaled_integer(v.text, scale, out) && *out <= ij::kMaxAbsTimeNs &&
                    *out >= -ij::kMaxAbsTimeNs;
  if (fits && *out < 0)
    throw s.error_at(v.offset, "expected a time >= 0 for \"" + limits::for_message(layer) +
                                   "\", found " + v.text);
  if (fits) return true;
  if (c.out_of_range++ == 0)
    c.first_out_of_range = limits::for_message(layer) + " (" + v.text + ")";
  return false;
}

void read_per_layer_info(const ij::Source& s, const ij::Value& list, uint32_t iteration,
                         model::Run& run, Counters& c) {
  ij::expect_array(s, list, "\"per_layer_info\"");
  for (const auto& e : list.items) {
    c.findings->record([&] {
      ij::expect_object(s, e, "a per_layer_info entry");
      model::LayerTiming t;
      t.iteration = iteration;
      if (const ij::Value* n = e.find("name"))
        t.layer = ij::expect_string(s, *n, "the layer name");
      else
        t.layer =
            strip_index(ij::expect_string(s, ij::expect_member(s, e, "label"), "the layer label"));
      t.layer = c.findings->name(t.layer);
      if (const ij::Value* d = e.find("direction"))
        t.direction = ij::expect_string(s, *d, "the direction");
      bool ok = false;
      if (const ij::Value* ms = e.find("time_ms"))
        ok = layer_time(s, *ms, 6, t.layer, c, &t.time_ns);
      else
        ok = layer_time(s, ij::expect_member(s, e, "time_s"), 9, t.layer, c, &t.time_ns);
      if (ok) run.layer_timings.push_back(std::move(t));
    });
  }
}

// One CK run characteristics object (one repetition).
void read_characteristics(const ij::Source& s, const ij::Value& ch, uint32_t iteration,
                          model::Run& run, uint32_t process, Counters& c, Diagnostics& diag) {
  ij::expect_object(s, ch, "CK run characteristics");
  if (const ij::Value* pli = ch.find("per_layer_info"))
    read_per_layer_info(s, *pli, iteration, run, c);
  const ij::Value* wall = ch.find("time_fwbw_ms");
  if (!wall) wall = ch.find("time_fw_ms");
  if (wall) {
    c.findings->record([&] {
      int64_t ns = 0;
      if (!layer_time(s, *wall, 6, "the forward(-backward) time", c, &ns)) return;
      auto& w = run.processes[process].iteration_wall_ns;
      if (w.size() <= iteration) w.resize(iteration + 1, 0);
      w[iteration] = ns;
    });
  }
  if (const ij::Value* calls = ch.find("dvdt_prof"); calls && !calls->items.empty()) {
    model::Process p;
    p.source = s.path + " (dvdt_prof of repetition " + std::to_string(iteration) + ")";
    p.source_format = "dvdt-prof";
    run.processes.push_back(p);
    import_dvdt_calls(s, *calls, run, static_cast<uint32_t>(run.processes.size() - 1), diag);
  }
}

void read_json(const ij::Source& s, size_t first, model::Run& run, uint32_t process, Counters& c,
               Diagnostics& diag) {
  size_t end = 0;
  ij::Value doc = ij::parse_value(s, first, &end);
  size_t rest = ij::skip_whitespace(s.content, end);
  if (rest < s.content.size())
    throw s.error_at(rest, "expected end of input after the JSON object");
  ij::expect_object(s, doc, "CK-Caffe run characteristics");
  if (const ij::Value* list = doc.find("characteristics_list")) {
    ij::expect_array(s, *list, "\"characteristics_list\"");
    uint32_t rep = 0;
    for (const auto& item : list->items) {
      ij::expect_object(s, item, "a characteristics_list entry");
      read_characteristics(s, ij::expect_member(s, item, "run"), rep++, run, process, c, diag);
    }
  } else if (const ij::Value* r = doc.find("run"); r && r->is_object()) {
    read_characteristics(s, *r, 0, run, process, c, diag);
  } else if (doc.find("per_layer_info") || doc.find("dvdt_prof")) {
    read_characteristics(s, doc, 0, run, process, c, diag);
  } else {
    throw s.error_at(doc.offset,
                     "expected CK-Caffe run characteristics: an object with \"per_layer_info\"");
  }
}

// `caffe time` glog lines: "I0520 12:30:46.694118  2345 caffe.cpp:494]      conv1\tforward: 188.956
// ms."
void read_log(const ij::Source& s, model::Run& run, uint32_t process, Counters& c) {
  std::string_view text = s.content;
  size_t pos = 0;
  size_t found = 0;
  int64_t fwbw_ns = -1, fw_ns = -1;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    size_t line_pos = pos;
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t bracket = line.find("] ");
    if (bracket == std::string_view::npos || line.find(".cpp:") > bracket) continue;
    std::string_view msg = line.substr(bracket + 2);
    auto number_before_ms = [&](std::string_view after, size_t col, int64_t* ns,
                                const std::string& what) {
      size_t sp = after.find(' ');
      std::string num(after.substr(0, sp));
      if (sp == std::string_view::npos || after.substr(sp, 4) != " ms.")
        throw s.error_at(line_pos + col,
                         "expected \"<time> ms.\" after " + limits::for_message(what));
      ij::Value v;
      v.type = ij::Value::Type::Number;
      v.text = num;
      v.offset = line_pos + col;
      bool plausible =
          !num.empty() && (std::isdigit(static_cast<unsigned char>(num[0])) || num[0] == '-');
      if (!plausible)
        throw s.error_at(line_pos + col, "expected a time in ms after " +
                                             limits::for_message(what) + ", found \"" +
                                             limits::for_message(num) + "\"");
      return layer_time(s, v, 6, what, c, ns);
    };
    for (const char* dir : {"forward", "backward"}) {
      std::string key = std::string("\t") + dir + ": ";
      size_t k = msg.rfind(key);
      if (k == std::string_view::npos) continue;
      ++found;
      c.findings->record([&] {
        std::string_view name = msg.substr(0, k);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        model::LayerTiming t;
        t.layer = c.findings->name(name);
        t.direction = dir;
        size_t col = bracket + 2 + k + key.size();
        if (number_before_ms(msg.substr(k + key.size()), col, &t.time_ns, t.layer))
          run.layer_timings.push_back(std::move(t));
      });
    }
    const std::string_view fwbw = "Average Forward-Backward: ", fw = "Average Forward pass: ";
    if (msg.substr(0, fwbw.size()) == fwbw)
      c.findings->record([&] {
        number_before_ms(msg.substr(fwbw.size()), bracket + 2 + fwbw.size(), &fwbw_ns,
                         "Average Forward-Backward");
      });
    if (msg.substr(0, fw.size()) == fw)
      c.findings->record([&] {
        number_before_ms(msg.substr(fw.size()), bracket + 2 + fw.size(), &fw_ns,
                         "Average Forward pass");
      });
  }
  if (found == 0)
    throw s.error_at(0, "expected caffe time per-layer lines (\"<layer>\\tforward: <t> ms.\")");
  int64_t wall = fwbw_ns >= 0 ? fwbw_ns : fw_ns;
  if (wall >= 0) run.processes[process].iteration_wall_ns = {wall};
}

}  // namespace

bool looks_like_caffe(std::string_view head) {
  size_t p = ij::skip_whitespace(head, 0);
  if (p < head.size() && head[p] == '{')
    return head.find("\"per_layer_info\"") != std::string_view::npos ||
           head.find("\"dvdt_prof\"") != std::string_view::npos ||
           head.find("\"characteristics_list\"") != std::string_view::npos;
  return head.find(" caffe.cpp:") != std::string_view::npos;
}

void read_caffe(const ij::Source& src, model::Run& run, Diagnostics& diagnostics) {
  model::Process proc;
  proc.source = src.path;
  proc.source_format = "caffe";
  run.processes.push_back(proc);
  uint32_t process = static_cast<uint32_t>(run.processes.size() - 1);
  ij::Findings findings(src.path, "Caffe layer records");
  Counters c;
  c.findings = &findings;
  size_t first = ij::skip_whitespace(src.content, 0);
  if (first < src.content.size() && src.content[first] == '{')
    read_json(src, first, run, process, c, diagnostics);
  else
    read_log(src, run, process, c);
  findings.finish(diagnostics);
  if (c.out_of_range)
    diagnostics.warnings.push_back(
        src.path + ": " + std::to_string(c.out_of_range) +
        " Caffe layer times out of range (wrapped-around timers, first: " + c.first_out_of_range +
        ") were skipped");
}

}  // namespace clprof::readers
