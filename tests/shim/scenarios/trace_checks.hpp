// Reading a trace's records in the tests, and the checks every trace must pass. Each
// accessor fails the current doctest case (REQUIRE) when the record lacks the field or
// holds another type.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "run_app.hpp"

namespace shim_test {

using Ints = std::vector<long long>;

// `v` as compact JSON text (for messages).
std::string to_json(const rapidjson::Value& v);
const rapidjson::Value& member(const rapidjson::Value& r, const char* key);
std::string str(const rapidjson::Value& r, const char* key);
long long num(const rapidjson::Value& r, const char* key);
bool is_null(const rapidjson::Value& r, const char* key);
Ints nums(const rapidjson::Value& r, const char* key);

// Launch/transfer/sync records ordered by seq.
std::vector<const rapidjson::Value*> by_seq(const Trace& t);
// The records of one of those types (`type`) ordered by seq.
std::vector<const rapidjson::Value*> by_seq(const Trace& t, const char* type);
// The fake driver's stamps for command number n with the given duration.
Ints fake_times(long long n, long long duration);

// seq: one counter, starting at 1, without gaps (docs/trace-format.md).
void check_seq_unique_and_complete(const Trace& t);
// host_ns: [begin, end], 0 <= begin <= end.
void check_host_ns(const rapidjson::Value& r);
// The "end" record's counts agree with the records in the file.
void check_end_counts(const Trace& t);
// Object records come before the first record that refers to their id.
void check_objects_before_use(const Trace& t);

// A "key value" line the app printed (fails the case if it did not).
long long app_value(const RunResult& r, const char* key);

}  // namespace shim_test
