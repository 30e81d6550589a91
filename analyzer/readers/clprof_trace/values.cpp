// The value types of the trace schema (trace::Type), decoded from simdjson values and
// checked: wrong JSON types and numbers out of the type's range are schema errors naming
// the field, what it expects and what it got (TraceParser::get_*, records.hpp).
#include <cmath>
#include <limits>

#include "readers/clprof_trace/records.hpp"
#include "readers/reader.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;
namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

constexpr int64_t kMaxDeviceNs = std::numeric_limits<int64_t>::max();

// Errors that say "the value is JSON, but not what the field takes".
bool is_value_error(error_code e) {
  return e == simdjson::INCORRECT_TYPE || e == simdjson::NUMBER_OUT_OF_RANGE ||
         e == simdjson::NUMBER_ERROR;
}

}  // namespace

[[noreturn]] void TraceParser::fail_type(od::value& v, const ts::Field& field,
                                         std::string_view expected, error_code e) {
  if (e != simdjson::SUCCESS && !is_value_error(e)) fail_json(e);
  std::string_view token = v.raw_json_token();
  fail_schema(token.data(), "\"" + std::string(field.key) + "\": expected " +
                                std::string(expected) + ", got " + quoted_snippet(trim(token)));
}

uint64_t TraceParser::get_uint(od::value& v, const ts::Field& field) {
  uint64_t x;
  if (auto e = v.get_uint64().get(x)) fail_type(v, field, "an unsigned 64-bit integer", e);
  return x;
}

int64_t TraceParser::get_int(od::value& v, const ts::Field& field) {
  int64_t x;
  if (auto e = v.get_int64().get(x)) fail_type(v, field, "a 64-bit integer", e);
  return x;
}

uint32_t TraceParser::get_uint32(od::value& v, const ts::Field& field) {
  uint64_t x;
  auto e = v.get_uint64().get(x);
  if (e || x > std::numeric_limits<uint32_t>::max())
    fail_type(v, field, "an unsigned 32-bit integer", e);
  return static_cast<uint32_t>(x);
}

int32_t TraceParser::get_int32(od::value& v, const ts::Field& field) {
  int64_t x;
  auto e = v.get_int64().get(x);
  if (e || x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
    fail_type(v, field, "a 32-bit integer", e);
  return static_cast<int32_t>(x);
}

double TraceParser::get_real(od::value& v, const ts::Field& field) {
  double x;
  auto e = v.get_double().get(x);
  if (e || !std::isfinite(x)) fail_type(v, field, "a number", e);
  return x;
}

uint64_t TraceParser::get_id(od::value& v, const ts::Field& field) {
  uint64_t x;
  auto e = v.get_uint64().get(x);
  if (e || x == 0) fail_type(v, field, "an object id (an integer from 1)", e);
  return x;
}

uint64_t TraceParser::get_seq(od::value& v, const ts::Field& field) {
  uint64_t x;
  auto e = v.get_uint64().get(x);
  if (e || x == 0) fail_type(v, field, "a sequence number (an integer from 1)", e);
  return x;
}

uint64_t TraceParser::get_range_id(od::value& v, const ts::Field& field) {
  uint64_t x;
  auto e = v.get_uint64().get(x);
  if (e || x >= (uint64_t{1} << kRangeIdBits))
    fail_type(v, field, "a range id (an integer below 2^40)", e);
  return run_range_id(process_, x);
}

bool TraceParser::get_bool(od::value& v, const ts::Field& field) {
  bool x;
  if (auto e = v.get_bool().get(x)) fail_type(v, field, "true or false", e);
  return x;
}

std::string_view TraceParser::get_string(od::value& v, const ts::Field& field) {
  std::string_view x;
  if (auto e = v.get_string().get(x)) fail_type(v, field, "a string", e);
  return x;
}

template <class E, size_t N>
std::string_view TraceParser::get_name(od::value& v, const ts::Field& field, std::string_view what,
                                       const std::string_view (&names)[N]) {
  std::string_view x;
  E value;
  auto e = v.get_string().get(x);
  if (e || !ts::parse_name(names, x, value)) {
    std::string known;
    for (size_t i = 0; i < N; ++i)
      known += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i]);
    fail_type(v, field, std::string(what) + " (" + known + ")", e);
  }
  return x;
}

std::string_view TraceParser::get_status(od::value& v, const ts::Field& field) {
  return get_name<ts::Status>(v, field, "a status", ts::kStatusNames);
}

std::string_view TraceParser::get_transfer_op(od::value& v, const ts::Field& field) {
  return get_name<ts::TransferOp>(v, field, "a transfer op", ts::kTransferOpNames);
}

void TraceParser::get_uints(od::value& v, const ts::Field& field, std::vector<uint64_t>& out) {
  out.clear();
  for_each_element(v, field, [&](od::value& e) { out.push_back(get_uint(e, field)); });
}

void TraceParser::get_int32s(od::value& v, const ts::Field& field, std::vector<int32_t>& out) {
  out.clear();
  for_each_element(v, field, [&](od::value& e) { out.push_back(get_int32(e, field)); });
}

void TraceParser::get_strings(od::value& v, const ts::Field& field, std::vector<std::string>& out) {
  out.clear();
  for_each_element(v, field, [&](od::value& e) { out.emplace_back(get_string(e, field)); });
}

void TraceParser::get_range_ids(od::value& v, const ts::Field& field, std::vector<uint64_t>& out) {
  out.clear();
  for_each_element(v, field, [&](od::value& e) {
    const uint64_t id = get_range_id(e, field);
    if (id == 0) fail_type(e, field, "a range id from 1", simdjson::SUCCESS);
    out.push_back(id);
  });
}

void TraceParser::get_work_sizes(od::value& v, const ts::Field& field, std::vector<uint64_t>& out) {
  const char* at = v.raw_json_token().data();
  get_uints(v, field, out);
  if (out.empty() || out.size() > ts::kMaxWorkDim)
    fail_schema(at, "\"" + std::string(field.key) + "\": expected 1 to 3 sizes, got " +
                        std::to_string(out.size()));
}

std::optional<uint64_t> TraceParser::get_uint_or_null(od::value& v, const ts::Field& field) {
  bool null = false;
  if (auto e = v.is_null().get(null)) fail_type(v, field, "null or uint", e);
  if (null) return std::nullopt;
  return get_uint(v, field);
}

bool TraceParser::get_work_sizes_or_null(od::value& v, const ts::Field& field,
                                         std::vector<uint64_t>& out) {
  bool null = false;
  if (auto e = v.is_null().get(null)) fail_type(v, field, "null or [uint] (1-3)", e);
  if (null) return false;
  get_work_sizes(v, field, out);
  return true;
}

void TraceParser::get_host_span(od::value& v, const ts::Field& field, int64_t& begin,
                                int64_t& end) {
  const char* at = v.raw_json_token().data();
  int n = 0;
  int64_t t[2] = {0, 0};
  for_each_element(v, field, [&](od::value& x) {
    const int64_t ns = get_int(x, field);
    if (n < 2) t[n] = ns;
    ++n;
  });
  if (n != 2)
    fail_schema(at, "\"" + std::string(field.key) + "\": expected [begin, end] (2 integers)");
  begin = t[0];
  end = t[1];
}

int64_t TraceParser::get_host_instant(od::value& v, const ts::Field& field) {
  return get_int(v, field);
}

bool TraceParser::get_device_times(od::value& v, const ts::Field& field, int64_t* t4) {
  bool null = false;
  if (auto e = v.is_null().get(null))
    fail_type(v, field, "null or [queued, submit, start, end]", e);
  if (null) return false;
  const char* at = v.raw_json_token().data();
  int n = 0;
  int64_t t[4] = {0, 0, 0, 0};
  for_each_element(v, field, [&](od::value& x) {
    uint64_t ns;
    auto e = x.get_uint64().get(ns);
    if (e || ns > static_cast<uint64_t>(kMaxDeviceNs))
      fail_type(x, field, "a device time (an integer from 0 to 2^63 - 1)", e);
    if (n < 4) t[n] = static_cast<int64_t>(ns);
    ++n;
  });
  if (n != 4)
    fail_schema(at, "\"" + std::string(field.key) +
                        "\": expected null or [queued, submit, start, end] (4 integers)");
  std::copy(t, t + 4, t4);
  return true;
}

void TraceParser::get_string_map(od::value& v, const ts::Field& field,
                                 std::vector<std::pair<std::string, std::string>>& out) {
  out.clear();
  od::object obj;
  if (auto e = v.get_object().get(obj)) fail_type(v, field, "an object of strings", e);
  for_each_field(obj, [&](std::string_view key, od::value& x) {
    out.emplace_back(std::string(key), std::string(get_string(x, field)));
  });
}

void TraceParser::get_count_map(od::value& v, const ts::Field& field,
                                std::vector<std::pair<std::string, uint64_t>>& out) {
  out.clear();
  od::object obj;
  if (auto e = v.get_object().get(obj)) fail_type(v, field, "an object of counts", e);
  for_each_field(obj, [&](std::string_view key, od::value& x) {
    out.emplace_back(std::string(key), get_uint(x, field));
  });
}

void TraceParser::get_args(od::value& v, const ts::Field& field) {
  size_t nargs = 0;
  for_each_element(v, field, [&](od::value& a) {
    get_arg(a, field, next_arg(nargs));
    ++nargs;
  });
  trim_args(nargs);
}

void TraceParser::get_arg(od::value& v, const ts::Field& field, model::KernelArg& a) {
  using K = model::KernelArg::Kind;
  const char* at = v.raw_json_token().data();
  unsigned n = 0;
  for_each_element(v, field, [&](od::value& x) {
    if (n == 0) {
      ts::parse(get_name<ts::ArgKind>(x, field, "an argument kind", ts::kArgKindNames), a.kind);
    } else if (n == 1) {
      a.size = get_uint32(x, field);
    } else if (a.kind == K::Scalar && n == 2) {
      a.hex.assign(get_string(x, field));
    } else if (a.kind == K::Scalar && n == 3) {
      a.value = get_uint(x, field);
      a.has_value = true;
    } else if (a.kind == K::Svm && n == 2) {
      a.svm_pointer.assign(get_string(x, field));
    } else if (n == 2) {  // buffer, image, pipe, sampler
      a.object_id = get_uint(x, field);
    } else if (n == 3) {  // buffer, image, pipe
      a.object_bytes = get_uint(x, field);
    }
    ++n;
  });
  const ts::ArgLayout& layout = ts::kArgLayouts[n ? static_cast<unsigned>(a.kind) : 0];
  if (n == 0 || n < layout.min_elements || n > layout.max_elements)
    fail_schema(at, "\"" + std::string(field.key) + "\": expected " +
                        (n == 0 ? std::string("[kind, ...]") : std::string(layout.layout)));
}

}  // namespace clprof::readers::detail
