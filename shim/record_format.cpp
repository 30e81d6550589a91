#include "record_format.hpp"

#include <rapidjson/internal/itoa.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstring>

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
void string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// The hot records (launch, transfer, sync) are formatted by hand into a flat buffer:
// RapidJSON's Writer costs ~1 us per launch record here, more than an app may spend per
// launch, and the harvester must keep up with the app. Strings that need escaping
// (kernel names) are escaped once, with RapidJSON, when the kernel is registered.
class Out {
 public:
  explicit Out(char* p) : p_(p) {}
  template <std::size_t N>
  void lit(const char (&s)[N]) {
    std::memcpy(p_, s, N - 1);
    p_ += N - 1;
  }
  void raw(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void quoted_plain(std::string_view s) {  // ASCII without quotes/backslashes/controls
    *p_++ = '"';
    raw(s);
    *p_++ = '"';
  }
  void u64(std::uint64_t v) {
    if (v < 10) {  // ids, sizes, flags: most numbers in a record are tiny
      *p_++ = static_cast<char>('0' + v);
    } else {
      p_ = rapidjson::internal::u64toa(v, p_);
    }
  }
  void i64(std::int64_t v) { p_ = rapidjson::internal::i64toa(v, p_); }
  void ch(char c) { *p_++ = c; }
  char* pos() const { return p_; }

 private:
  char* p_;
};

void sizes(Out& o, bool present, const std::uint64_t* v, unsigned n) {
  if (!present) {
    o.lit("null");
    return;
  }
  o.ch('[');
  for (unsigned i = 0; i < n; ++i) {
    if (i) o.ch(',');
    o.u64(v[i]);
  }
  o.ch(']');
}

std::string_view arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::Scalar:
      return tf::arg_kind::kScalar;
    case ArgKind::Buffer:
      return tf::arg_kind::kBuffer;
    case ArgKind::Image:
      return tf::arg_kind::kImage;
    case ArgKind::Pipe:
      return tf::arg_kind::kPipe;
    case ArgKind::Local:
      return tf::arg_kind::kLocal;
    case ArgKind::Svm:
      return tf::arg_kind::kSvm;
    case ArgKind::Sampler:
      return tf::arg_kind::kSampler;
    case ArgKind::Unset:
      break;
  }
  return tf::arg_kind::kUnset;
}

void arg(Out& o, const ArgSnapshot& a) {
  static constexpr char kHex[] = "0123456789abcdef";
  o.ch('[');
  o.quoted_plain(arg_kind_name(a.kind));
  switch (a.kind) {
    case ArgKind::Unset:
      break;
    case ArgKind::Scalar: {
      o.ch(',');
      o.u64(a.size);
      o.lit(",\"");
      const unsigned kept = a.size < tf::kMaxScalarBytes ? a.size : tf::kMaxScalarBytes;
      for (unsigned i = 0; i < kept; ++i) {
        o.ch(kHex[a.bytes[i] >> 4]);
        o.ch(kHex[a.bytes[i] & 15]);
      }
      o.ch('"');
      if (a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8) {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < a.size; ++i)
          v |= static_cast<std::uint64_t>(a.bytes[i]) << (8 * i);
        o.ch(',');
        o.u64(v);
      }
      break;
    }
    case ArgKind::Buffer:
    case ArgKind::Image:
    case ArgKind::Pipe:
      o.ch(',');
      o.u64(a.size);
      o.ch(',');
      o.u64(a.object.id);
      o.ch(',');
      o.u64(a.object.mem_bytes);
      break;
    case ArgKind::Sampler:
      o.ch(',');
      o.u64(a.size);
      o.ch(',');
      o.u64(a.object.id);
      break;
    case ArgKind::Local:
      o.ch(',');
      o.u64(a.size);
      break;
    case ArgKind::Svm: {
      o.lit(",0,\"0x");
      char buf[24];
      const int n =
          std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(a.svm_pointer));
      o.raw(std::string_view(buf, static_cast<std::size_t>(n)));
      o.ch('"');
      break;
    }
  }
  o.ch(']');
}

std::string_view status_name(OpStatus s) {
  switch (s) {
    case OpStatus::Complete:
      return tf::status::kComplete;
    case OpStatus::Incomplete:
      return tf::status::kIncomplete;
    case OpStatus::Error:
      return tf::status::kError;
    case OpStatus::NotEnqueued:
      return tf::status::kNotEnqueued;
  }
  return tf::status::kIncomplete;
}

std::string_view op_name(TransferOp op) {
  switch (op) {
    case TransferOp::Read:
      return tf::transfer_op::kRead;
    case TransferOp::Write:
      return tf::transfer_op::kWrite;
    case TransferOp::Copy:
      return tf::transfer_op::kCopy;
    case TransferOp::Fill:
      return tf::transfer_op::kFill;
    case TransferOp::Map:
      return tf::transfer_op::kMap;
    case TransferOp::Unmap:
      return tf::transfer_op::kUnmap;
  }
  return tf::transfer_op::kCopy;
}

void host_times(Out& o, const OpRecord& r) {
  o.lit(",\"host_ns\":[");
  o.i64(r.host_begin_ns);
  o.ch(',');
  o.i64(r.host_end_ns);
  o.ch(']');
}

void device_and_status(Out& o, const OpRecord& r) {
  o.lit(",\"device_ns\":");
  if (r.has_device_ns) {
    o.ch('[');
    for (int i = 0; i < 4; ++i) {
      if (i) o.ch(',');
      o.u64(r.device_ns[i]);
    }
    o.ch(']');
  } else {
    o.lit("null");
  }
  o.lit(",\"status\":");
  o.quoted_plain(status_name(r.status));
  if (r.status == OpStatus::Error) {
    o.lit(",\"exec_status\":");
    o.i64(r.exec_status);
  }
  o.lit(",\"ranges\":[");
  for (unsigned i = 0; i < r.n_ranges; ++i) {
    if (i) o.ch(',');
    o.u64(r.ranges[i]);
  }
  o.ch(']');
}

template <std::size_t N>
void head(Out& o, const char (&type_prefix)[N], const OpRecord& r) {
  o.lit(type_prefix);
  o.u64(r.seq);
  o.lit(",\"tid\":");
  o.i64(r.tid);
  o.lit(",\"rc\":");
  o.i64(r.rc);
}

}  // namespace

void format_op(const OpRecord& r, std::string& out) {
  // Largest record: 32 scalar args of 64 bytes (~150 chars each) plus fixed fields.
  thread_local char buffer[16384];
  Out o(buffer);
  switch (r.kind) {
    case RecordKind::Launch:
      head(o, "{\"type\":\"launch\",\"seq\":", r);
      if (r.api) {
        o.lit(",\"api\":");
        o.quoted_plain(r.api);
      }
      o.lit(",\"kernel\":");
      if (r.kernel_name) {
        o.raw(r.kernel_name);  // pre-quoted and escaped (json_quote)
      } else {
        o.lit("\"\"");
      }
      o.lit(",\"kernel_id\":");
      o.u64(r.kernel_id);
      o.lit(",\"program_id\":");
      o.u64(r.program_id);
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      o.lit(",\"context_id\":");
      o.u64(r.context_id);
      o.lit(",\"device_id\":");
      o.u64(r.device_id);
      o.lit(",\"gwo\":");
      sizes(o, r.has_gwo, r.gwo, r.work_dim);
      o.lit(",\"gws\":");
      sizes(o, true, r.gws, r.work_dim);
      o.lit(",\"lws\":");
      sizes(o, r.has_lws, r.lws, r.work_dim);
      o.lit(",\"args\":[");
      for (unsigned i = 0; i < r.n_args; ++i) {
        if (i) o.ch(',');
        arg(o, r.args[i]);
      }
      o.ch(']');
      if (r.total_args > r.n_args) {
        o.lit(",\"args_total\":");
        o.u64(r.total_args);
      }
      host_times(o, r);
      device_and_status(o, r);
      break;
    case RecordKind::Transfer:
      head(o, "{\"type\":\"transfer\",\"seq\":", r);
      o.lit(",\"api\":");
      o.quoted_plain(r.api ? r.api : "");
      o.lit(",\"op\":");
      o.quoted_plain(op_name(r.op));
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      o.lit(",\"device_id\":");
      o.u64(r.device_id);
      o.lit(",\"bytes\":");
      o.u64(r.bytes);
      o.lit(",\"blocking\":");
      if (r.blocking) {
        o.lit("true");
      } else {
        o.lit("false");
      }
      host_times(o, r);
      device_and_status(o, r);
      break;
    case RecordKind::Sync:
      head(o, "{\"type\":\"sync\",\"seq\":", r);
      o.lit(",\"api\":");
      o.quoted_plain(r.api ? r.api : "");
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      host_times(o, r);
      break;
    case RecordKind::Line:
      o.ch('{');
      break;
  }
  o.ch('}');
  out.append(buffer, static_cast<std::size_t>(o.pos() - buffer));
}

std::string json_quote(std::string_view s) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  string(w, s);
  return std::string(sb.GetString(), sb.GetSize());
}

std::string_view line_kind_name(LineKind k) {
  switch (k) {
    case LineKind::Device:
      return tf::kind::kDevice;
    case LineKind::ClockSync:
      return tf::kind::kClockSync;
    case LineKind::Queue:
      return tf::kind::kQueue;
    case LineKind::Program:
      return tf::kind::kProgram;
    case LineKind::Build:
      return tf::kind::kBuild;
    case LineKind::Kernel:
      return tf::kind::kKernel;
    case LineKind::RangeBegin:
      return tf::kind::kRangeBegin;
    case LineKind::RangeEnd:
      return tf::kind::kRangeEnd;
    case LineKind::Mark:
      return tf::kind::kMark;
    case LineKind::Warning:
      return tf::kind::kWarning;
    case LineKind::Count:
      break;
  }
  return tf::kind::kWarning;
}

struct JsonLine::Impl {
  rapidjson::StringBuffer sb;
  Writer w{sb};
};

JsonLine::JsonLine(std::string_view type) : impl_(std::make_unique<Impl>()) {
  impl_->w.StartObject();
  str(tf::field::kType, type);
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

std::string JsonLine::finish() {
  impl_->w.EndObject();
  return std::string(impl_->sb.GetString(), impl_->sb.GetSize());
}

std::string format_header_line(const HeaderFacts& h) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, tf::top::kFormat);
  string(w, tf::kFormatName);
  key(w, tf::top::kVersion);
  w.Int(tf::kVersion);
  key(w, tf::top::kHeader);
  w.StartObject();
  key(w, tf::header::kPid);
  w.Int64(h.pid);
  key(w, tf::header::kPpid);
  w.Int64(h.ppid);
  key(w, tf::header::kCommandLine);
  w.StartArray();
  for (const auto& a : h.command_line) string(w, a);
  w.EndArray();
  key(w, tf::header::kStartUnixNs);
  w.Int64(h.start_unix_ns);
  key(w, tf::header::kHostStartNs);
  w.Int64(h.host_start_ns);
  key(w, tf::header::kHostClock);
  string(w, "CLOCK_MONOTONIC");
  key(w, tf::header::kHostName);
  string(w, h.host_name);
  key(w, tf::header::kClprofVersion);
  string(w, h.clprof_version);
  key(w, tf::header::kSettings);
  w.StartObject();
  for (const auto& [k, v] : h.settings) {
    key(w, k);
    string(w, v);
  }
  w.EndObject();
  w.EndObject();
  // The records array stays open: records follow one per line, then "]}".
  std::string out(sb.GetString(), sb.GetSize());
  out += ",\"";
  out += tf::top::kRecords;
  out += "\":[";
  return out;
}

std::string format_end_record(std::int64_t host_ns,
                              const std::vector<std::pair<std::string, std::uint64_t>>& counts,
                              std::uint64_t incomplete, std::uint64_t dropped) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, tf::field::kType);
  string(w, tf::kind::kEnd);
  key(w, tf::field::kHostNs);
  w.Int64(host_ns);
  key(w, tf::field::kCounts);
  w.StartObject();
  for (const auto& [k, v] : counts) {
    key(w, k);
    w.Uint64(v);
  }
  w.EndObject();
  key(w, tf::field::kIncomplete);
  w.Uint64(incomplete);
  key(w, tf::field::kDropped);
  w.Uint64(dropped);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string expand_output_path(std::string_view pattern, long pid, long root_pid) {
  const std::string pid_text = std::to_string(pid);
  std::string out;
  bool had_pid = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += pid_text;
      had_pid = true;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  if (had_pid || root_pid == 0 || root_pid == pid) return out;
  const std::size_t slash = out.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = out.rfind('.');
  // A leading dot (".trace") is a hidden file's name, not an extension.
  if (dot == std::string::npos || dot <= base) return out + "." + pid_text;
  return out.substr(0, dot) + "." + pid_text + out.substr(dot);
}

std::uint64_t fnv1a64(std::uint64_t state, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    state ^= p[i];
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string source_hash_text(std::uint64_t hash) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace clprof::shim
