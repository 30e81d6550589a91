#include "trace_checks.hpp"

#include <doctest/doctest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <set>
#include <utility>

namespace shim_test {

using rapidjson::Value;

std::string to_json(const Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return sb.GetString();
}

const Value& member(const Value& r, const char* key) {
  auto it = r.FindMember(key);
  REQUIRE_MESSAGE(it != r.MemberEnd(), "no \"", key, "\" in ", to_json(r));
  return it->value;
}

std::string str(const Value& r, const char* key) {
  const Value& v = member(r, key);
  REQUIRE_MESSAGE(v.IsString(), "\"", key, "\" is not a string in ", to_json(r));
  return v.GetString();
}

long long num(const Value& r, const char* key) {
  const Value& v = member(r, key);
  REQUIRE_MESSAGE(v.IsInt64(), "\"", key, "\" is not an integer in ", to_json(r));
  return v.GetInt64();
}

bool is_null(const Value& r, const char* key) {
  return member(r, key).IsNull();
}

std::vector<long long> nums(const Value& r, const char* key) {
  const Value& v = member(r, key);
  REQUIRE_MESSAGE(v.IsArray(), "\"", key, "\" is not an array in ", to_json(r));
  std::vector<long long> out;
  for (const Value& e : v.GetArray()) {
    REQUIRE(e.IsInt64());
    out.push_back(e.GetInt64());
  }
  return out;
}

std::vector<const Value*> by_seq(const Trace& t) {
  std::vector<const Value*> out;
  for (const char* type : {"launch", "transfer", "sync"})
    for (const Value* r : t.of_type(type)) out.push_back(r);
  std::sort(out.begin(), out.end(),
            [](const Value* a, const Value* b) { return num(*a, "seq") < num(*b, "seq"); });
  return out;
}

std::vector<const Value*> by_seq(const Trace& t, const char* type) {
  std::vector<const Value*> out;
  for (const Value* r : by_seq(t))
    if (str(*r, "type") == type) out.push_back(r);
  return out;
}

Ints fake_times(long long n, long long duration) {
  return {1000 * n, 1000 * n + 10, 1000 * n + 100, 1000 * n + 100 + duration};
}

void check_seq_unique_and_complete(const Trace& t) {
  std::vector<long long> seqs;
  for (const Value* r : by_seq(t)) seqs.push_back(num(*r, "seq"));
  REQUIRE(!seqs.empty());
  // docs/trace-format.md: one counter, starting at 1, without gaps.
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    CAPTURE(i);
    REQUIRE(seqs[i] == static_cast<long long>(i) + 1);
  }
}

void check_host_ns(const Value& r) {
  const Ints h = nums(r, "host_ns");
  REQUIRE(h.size() == 2);
  CHECK(h[0] >= 0);
  CHECK(h[0] <= h[1]);
}

void check_end_counts(const Trace& t) {
  const Value& end = *t.records.back();
  const Value& counts = member(end, "counts");
  for (const char* type : {"launch", "transfer", "sync"}) {
    const long long have = static_cast<long long>(t.of_type(type).size());
    auto it = counts.FindMember(type);
    const long long said = it == counts.MemberEnd() ? 0 : it->value.GetInt64();
    CHECK_MESSAGE(said == have, "end.counts.", type);
  }
  CHECK(num(end, "dropped") == 0);
  // Every kind but "end", in the documented order.
  std::vector<std::string> keys;
  for (const auto& m : counts.GetObject()) keys.emplace_back(m.name.GetString());
  CHECK(keys == std::vector<std::string>{"launch", "transfer", "sync", "device", "clock_sync",
                                         "queue", "program", "build", "kernel", "kernel_device",
                                         "range_begin", "range_end", "mark", "warning"});
  for (const auto& m : counts.GetObject()) {
    CAPTURE(m.name.GetString());
    CHECK(m.value.GetInt64() == static_cast<long long>(t.of_type(m.name.GetString()).size()));
  }
  long long incomplete = 0;
  for (const char* type : {"launch", "transfer"})
    for (const Value* r : t.of_type(type)) incomplete += str(*r, "status") == "incomplete";
  CHECK(num(end, "incomplete") == incomplete);
}

void check_objects_before_use(const Trace& t) {
  std::set<std::pair<std::string, long long>> seen;
  const std::pair<const char*, const char*> refs[] = {{"device_id", "device"},
                                                      {"queue_id", "queue"},
                                                      {"program_id", "program"},
                                                      {"kernel_id", "kernel"}};
  for (const Value* r : t.records) {
    const std::string type = str(*r, "type");
    for (const auto& [field, kind] : refs) {
      auto it = r->FindMember(field);
      if (it == r->MemberEnd() || !it->value.IsInt64() || it->value.GetInt64() == 0) continue;
      if (type == kind) continue;
      CHECK_MESSAGE(seen.count({kind, it->value.GetInt64()}) == 1, kind, " ", it->value.GetInt64(),
                    " used before its record by ", to_json(*r));
    }
    auto id = r->FindMember("id");
    if (id != r->MemberEnd() && id->value.IsInt64()) seen.insert({type, id->value.GetInt64()});
  }
}

long long app_value(const RunResult& r, const char* key) {
  auto it = r.values.find(key);
  REQUIRE_MESSAGE(it != r.values.end(), "the app printed no \"", key, "\"; stdout:\n", r.out);
  return it->second;
}

}  // namespace shim_test
