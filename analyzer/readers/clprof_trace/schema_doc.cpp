// docs/trace-format.md's tables from the trace schema (see schema_doc.hpp).
#include "readers/clprof_trace/schema_doc.hpp"

#include "clprof/trace_schema.hpp"

namespace clprof::readers {

namespace {

namespace ts = clprof::trace;

std::string_view unit_name(ts::Unit u) {
  switch (u) {
    case ts::Unit::Ns:
      return "ns";
    case ts::Unit::Bytes:
      return "bytes";
    case ts::Unit::Mhz:
      return "MHz";
    case ts::Unit::None:
      break;
  }
  return "";
}

std::string_view clock_name(ts::Clock c) {
  switch (c) {
    case ts::Clock::Host:
      return "host";
    case ts::Clock::HostAbs:
      return "host (absolute)";
    case ts::Clock::Device:
      return "device";
    case ts::Clock::Unix:
      return "unix";
    case ts::Clock::None:
      break;
  }
  return "";
}

std::string_view presence_name(ts::Presence p) {
  switch (p) {
    case ts::Presence::Required:
      return "required";
    case ts::Presence::Always:
      return "always";
    case ts::Presence::Optional:
      return "optional";
  }
  return "";
}

// A Markdown cell: "|" escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string fields_table(const ts::Field* fields, size_t count) {
  std::string out =
      "| field | type | unit | clock | presence | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < count; ++i) {
    const ts::Field& f = fields[i];
    out += "| `" + std::string(f.key) + "` | " + cell(ts::name(f.type)) + " | " +
           std::string(unit_name(f.unit)) + " | " + std::string(clock_name(f.clock)) + " | " +
           std::string(presence_name(f.presence)) + " | " + cell(f.doc) + " |\n";
  }
  return out;
}

template <size_t N>
std::string names_table(std::string_view what, const std::string_view (&names)[N],
                        const std::string_view (&docs)[N]) {
  std::string out = "| " + std::string(what) + " | meaning |\n|---|---|\n";
  for (size_t i = 0; i < N; ++i)
    out += "| `" + std::string(names[i]) + "` | " + cell(docs[i]) + " |\n";
  return out;
}

}  // namespace

std::vector<std::string> schema_table_names() {
  std::vector<std::string> out = {"top", "header"};
  for (std::string_view t : ts::kRecordTypeNames) out.emplace_back(t);
  out.emplace_back("blas");  // the object inside a range_begin
  for (const char* n : {"types", "statuses", "transfer_ops", "arg_kinds"}) out.emplace_back(n);
  return out;
}

std::string schema_table(std::string_view name) {
  if (name == "top") return fields_table(ts::top::kFields, std::size(ts::top::kFields));
  if (name == "header") return fields_table(ts::header::kFields, std::size(ts::header::kFields));
  if (name == "blas") return fields_table(ts::blas::kFields, std::size(ts::blas::kFields));
  ts::RecordType type;
  if (ts::parse(name, type)) {
    const ts::RecordFields& r = ts::kRecordFields[static_cast<size_t>(type)];
    return fields_table(r.fields, r.count);
  }
  if (name == "types") {
    std::string out = "| type | value |\n|---|---|\n";
    for (size_t i = 0; i < std::size(ts::kTypeNames); ++i)
      out += "| " + cell(ts::kTypeNames[i]) + " | " + cell(ts::kTypeDocs[i]) + " |\n";
    return out;
  }
  if (name == "statuses") return names_table("status", ts::kStatusNames, ts::kStatusDocs);
  if (name == "transfer_ops") return names_table("op", ts::kTransferOpNames, ts::kTransferOpDocs);
  if (name == "arg_kinds") {
    std::string out = "| element | meaning |\n|---|---|\n";
    for (const ts::ArgLayout& a : ts::kArgLayouts)
      out += "| `" + cell(a.layout) + "` | " + cell(a.doc) + " |\n";
    return out;
  }
  return "";
}

std::string with_schema_tables(std::string_view doc) {
  static constexpr std::string_view kOpen = "<!-- schema:";
  static constexpr std::string_view kClose = "<!-- /schema -->";
  std::string out;
  size_t pos = 0;
  for (;;) {
    const size_t open = doc.find(kOpen, pos);
    if (open == std::string_view::npos) break;
    const size_t name_end = doc.find(" -->", open);
    const size_t close = doc.find(kClose, open);
    if (name_end == std::string_view::npos || close == std::string_view::npos) break;
    const std::string_view name = doc.substr(open + kOpen.size(), name_end - open - kOpen.size());
    const std::string table = schema_table(name);
    const size_t body = name_end + 4;  // after " -->"
    out.append(doc.substr(pos, body - pos));
    if (table.empty()) {
      out.append(doc.substr(body, close - body));
    } else {
      out += "\n";
      out += table;
    }
    out.append(kClose);
    pos = close + kClose.size();
  }
  out.append(doc.substr(pos));
  return out;
}

}  // namespace clprof::readers
