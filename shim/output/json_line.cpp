// The cold lines of the trace (output/record_format.hpp): the header, the end record and
// the object lines made with JsonLine on the hooks' cold paths (devices, queues, programs,
// builds, kernels, ranges, warnings). The hot records (launches, transfers, syncs) are
// output/record_format.cpp's.
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "output/json_text.hpp"
#include "output/record_format.hpp"

namespace clprof::shim {
namespace {
namespace ts = clprof::trace;
using json_text::key;
using json_text::string;
using json_text::Writer;
}  // namespace

std::string json_quote(std::string_view s) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  string(w, s);
  return std::string(sb.GetString(), sb.GetSize());
}

std::string_view line_kind_name(LineKind k) {
  switch (k) {
    case LineKind::Device:
      return ts::device::kTypeName;
    case LineKind::ClockSync:
      return ts::clock_sync::kTypeName;
    case LineKind::Queue:
      return ts::queue::kTypeName;
    case LineKind::Program:
      return ts::program::kTypeName;
    case LineKind::Build:
      return ts::build::kTypeName;
    case LineKind::Kernel:
      return ts::kernel::kTypeName;
    case LineKind::RangeBegin:
      return ts::range_begin::kTypeName;
    case LineKind::RangeEnd:
      return ts::range_end::kTypeName;
    case LineKind::Mark:
      return ts::mark::kTypeName;
    case LineKind::Warning:
      return ts::warning::kTypeName;
    case LineKind::Capture:
      return ts::capture::kTypeName;
    case LineKind::Count:
      break;
  }
  return ts::warning::kTypeName;
}

struct JsonLine::Impl {
  rapidjson::StringBuffer sb;
  Writer w{sb};
};

JsonLine::JsonLine(std::string_view type) : impl_(std::make_unique<Impl>()) {
  impl_->w.StartObject();
  str(ts::type_key, type);
}
JsonLine::~JsonLine() = default;

JsonLine& JsonLine::num(std::string_view k, std::int64_t v) {
  key(impl_->w, k);
  impl_->w.Int64(v);
  return *this;
}
JsonLine& JsonLine::unum(std::string_view k, std::uint64_t v) {
  key(impl_->w, k);
  impl_->w.Uint64(v);
  return *this;
}
JsonLine& JsonLine::str(std::string_view k, std::string_view v) {
  key(impl_->w, k);
  string(impl_->w, v);
  return *this;
}
JsonLine& JsonLine::boolean(std::string_view k, bool v) {
  key(impl_->w, k);
  impl_->w.Bool(v);
  return *this;
}
JsonLine& JsonLine::null(std::string_view k) {
  key(impl_->w, k);
  impl_->w.Null();
  return *this;
}
JsonLine& JsonLine::unums(std::string_view k, const std::vector<std::uint64_t>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (auto x : v) impl_->w.Uint64(x);
  impl_->w.EndArray();
  return *this;
}
JsonLine& JsonLine::nums(std::string_view k, const std::vector<std::int64_t>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (auto x : v) impl_->w.Int64(x);
  impl_->w.EndArray();
  return *this;
}
JsonLine& JsonLine::strs(std::string_view k, const std::vector<std::string>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (const auto& x : v) string(impl_->w, x);
  impl_->w.EndArray();
  return *this;
}

JsonLine& JsonLine::real(std::string_view k, double v) {
  key(impl_->w, k);
  if (std::isfinite(v)) {
    impl_->w.Double(v);
  } else {
    impl_->w.Null();
  }
  return *this;
}
JsonLine& JsonLine::begin_object(std::string_view k) {
  key(impl_->w, k);
  impl_->w.StartObject();
  return *this;
}
JsonLine& JsonLine::end_object() {
  impl_->w.EndObject();
  return *this;
}

std::string JsonLine::finish() {
  impl_->w.EndObject();
  return std::string(impl_->sb.GetString(), impl_->sb.GetSize());
}

std::string format_header_line(const HeaderFacts& h) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, ts::top::format);
  string(w, ts::kFormatName);
  key(w, ts::top::version);
  w.Int(ts::kVersion);
  key(w, ts::top::header);
  w.StartObject();
  key(w, ts::header::pid);
  w.Int64(h.pid);
  key(w, ts::header::ppid);
  w.Int64(h.ppid);
  key(w, ts::header::command_line);
  w.StartArray();
  for (const auto& a : h.command_line) string(w, a);
  w.EndArray();
  key(w, ts::header::start_unix_ns);
  w.Int64(h.start_unix_ns);
  key(w, ts::header::host_start_ns);
  w.Int64(h.host_start_ns);
  key(w, ts::header::host_clock);
  string(w, "CLOCK_MONOTONIC");
  key(w, ts::header::host_name);
  string(w, h.host_name);
  key(w, ts::header::rank);
  if (h.rank) {
    w.Int64(*h.rank);
  } else {
    w.Null();
  }
  key(w, ts::header::world_size);
  if (h.world_size) {
    w.Int64(*h.world_size);
  } else {
    w.Null();
  }
  key(w, ts::header::clprof_version);
  string(w, h.clprof_version);
  key(w, ts::header::settings);
  w.StartObject();
  for (const auto& [k, v] : h.settings) {
    key(w, k);
    string(w, v);
  }
  w.EndObject();
  key(w, ts::header::session_id);
  string(w, h.session_id);
  w.EndObject();
  // The records array stays open: records follow one per line, then "]}".
  std::string out(sb.GetString(), sb.GetSize());
  out += ts::top::records.member.view();
  out += '[';
  return out;
}

std::string format_end_record(std::int64_t host_ns,
                              const std::vector<std::pair<std::string, std::uint64_t>>& counts,
                              std::uint64_t incomplete, std::uint64_t dropped) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, ts::type_key);
  string(w, ts::end::kTypeName);
  key(w, ts::end::host_ns);
  w.Int64(host_ns);
  key(w, ts::end::counts);
  w.StartObject();
  for (const auto& [k, v] : counts) {
    key(w, k);
    w.Uint64(v);
  }
  w.EndObject();
  key(w, ts::end::incomplete);
  w.Uint64(incomplete);
  key(w, ts::end::dropped);
  w.Uint64(dropped);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

}  // namespace clprof::shim
