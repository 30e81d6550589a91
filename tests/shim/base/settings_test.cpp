#include <doctest/doctest.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <string>

#include "base/settings.hpp"

using namespace clprof::shim;

namespace {
std::map<std::string, std::string> g_env;
const char* fake_env(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}
}  // namespace

TEST_CASE("defaults come from the settings table") {
  const Settings s;
  CHECK(s.output == "clprof-%p.json");
  CHECK(s.disable == false);
  CHECK(s.log_level == LogLevel::Warn);
  CHECK(s.capture_source == false);
  CHECK(s.flush_interval_ms == 100);
  CHECK(s.poll_interval_us == 2000);
  CHECK(s.exit_wait_ms == 2000);
  CHECK(s.opencl_library.empty());
  CHECK(s.root_pid == 0);
}

TEST_CASE("bool values") {
  bool b = false;
  for (const char* t : {"1", "true", "YES", " on "}) {
    b = false;
    CHECK(parse_setting(t, b));
    CHECK(b);
  }
  for (const char* f : {"0", "False", "no", "off"}) {
    b = true;
    CHECK(parse_setting(f, b));
    CHECK_FALSE(b);
  }
  b = true;
  CHECK_FALSE(parse_setting("2", b));
  CHECK_FALSE(parse_setting("", b));
  CHECK(b);  // untouched on failure
}

TEST_CASE("uint values") {
  std::uint64_t v = 7;
  CHECK(parse_setting("250", v));
  CHECK(v == 250);
  CHECK_FALSE(parse_setting("-1", v));
  CHECK_FALSE(parse_setting("12ms", v));
  CHECK_FALSE(parse_setting("", v));
  CHECK_FALSE(parse_setting("18446744073709551616", v));
  CHECK(v == 250);
}

TEST_CASE("log levels") {
  LogLevel l = LogLevel::Warn;
  CHECK(parse_setting("DEBUG", l));
  CHECK(l == LogLevel::Debug);
  CHECK(parse_setting("off", l));
  CHECK(l == LogLevel::Off);
  CHECK_FALSE(parse_setting("loud", l));
  CHECK(l == LogLevel::Off);
  CHECK(format_setting(LogLevel::Trace) == "trace");
}

TEST_CASE("load_settings reads the environment") {
  g_env = {{"CLPROF_OUTPUT", "run.json"},
           {"CLPROF_DISABLE", "yes"},
           {"CLPROF_LOG_LEVEL", "info"},
           {"CLPROF_EXIT_WAIT_MS", "5"}};
  std::vector<std::string> warnings;
  const Settings s = load_settings(fake_env, warnings);
  CHECK(s.output == "run.json");
  CHECK(s.disable);
  CHECK(s.log_level == LogLevel::Info);
  CHECK(s.exit_wait_ms == 5);
  CHECK(warnings.empty());
}

TEST_CASE("a bad value turns the shim off, with one warning naming each bad value") {
  g_env = {{"CLPROF_OUTPUT", "run.json"},
           {"CLPROF_POLL_INTERVAL_US", "fast"},
           {"CLPROF_LOG_LEVEL", "info"},
           {"CLPROF_EXIT_WAIT_MS", "99999999999999"}};
  std::vector<std::string> warnings;
  const Settings s = load_settings(fake_env, warnings);
  CHECK(s.disable);
  CHECK(s.output == "clprof-%p.json");  // nothing of a half-valid configuration is applied
  CHECK(s.exit_wait_ms == 2000);
  CHECK(s.log_level == LogLevel::Info);  // except a valid log level
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "CLPROF_POLL_INTERVAL_US=\"fast\" is not 50 to 1000000; CLPROF_EXIT_WAIT_MS="
        "\"99999999999999\" is not 0 to 600000; clprof is off, the program runs untouched");
}

TEST_CASE("every uint setting is range-checked, at both ends") {
  for (const auto& d : clprof::settings::kAll) {
    if (d.type != clprof::settings::Type::Uint) continue;
    CAPTURE(d.env_name);
    std::uint64_t v = 12345;
    CHECK(check_setting(d, std::to_string(d.min), v));
    CHECK(v == d.min);
    CHECK(check_setting(d, std::to_string(d.max), v));
    CHECK(v == d.max);
    CHECK_FALSE(check_setting(d, std::to_string(d.max + 1), v));
    if (d.min > 0) CHECK_FALSE(check_setting(d, std::to_string(d.min - 1), v));
    CHECK_FALSE(check_setting(d, "18446744073709551616", v));  // 2^64: no wrap
    CHECK_FALSE(check_setting(d, "-1", v));
    CHECK(v == d.max);
  }
}

TEST_CASE("the exit wait cannot overflow its nanoseconds") {
  // lifecycle.cpp multiplies by 1e6 into an int64: the maximum must fit.
  for (const auto& d : clprof::settings::kAll) {
    if (d.env_name == "CLPROF_EXIT_WAIT_MS" || d.env_name == "CLPROF_FLUSH_INTERVAL_MS") {
      CHECK(d.max <= static_cast<std::uint64_t>(INT64_MAX / 1000000));
    }
  }
}

TEST_CASE("an empty value is the same as unset") {
  g_env = {{"CLPROF_OUTPUT", ""}, {"CLPROF_DISABLE", ""}, {"CLPROF_EXIT_WAIT_MS", ""}};
  std::vector<std::string> warnings;
  const Settings s = load_settings(fake_env, warnings);
  CHECK(warnings.empty());
  CHECK_FALSE(s.disable);
  CHECK(s.output == "clprof-%p.json");  // not "" (which wrote "./.<pid>")
  CHECK(s.exit_wait_ms == 2000);
}

TEST_CASE("paths: length, control characters, a trailing slash") {
  const auto& output = clprof::settings::kAll[0];
  REQUIRE(output.env_name == "CLPROF_OUTPUT");
  std::string p;
  CHECK(check_setting(output, "/tmp/run %p.json", p));
  CHECK(p == "/tmp/run %p.json");
  CHECK(check_setting(output, std::string(4095, 'a'), p));
  CHECK_FALSE(check_setting(output, std::string(4096, 'a'), p));
  CHECK_FALSE(check_setting(output, "run\n.json", p));
  CHECK_FALSE(check_setting(output, "\x1b[2Jrun.json", p));
  CHECK_FALSE(check_setting(output, "traces/", p));
  CHECK(p == std::string(4095, 'a'));
}

TEST_CASE("a bad value is printed safely: control characters escaped, cut to a line") {
  g_env = {{"CLPROF_LOG_LEVEL", "\x1b[2J\n" + std::string(500, 'x')}};
  std::vector<std::string> warnings;
  const Settings s = load_settings(fake_env, warnings);
  CHECK(s.disable);
  CHECK(s.log_level == LogLevel::Warn);  // the bad level itself: the default
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find('\x1b') == std::string::npos);
  CHECK(warnings[0].find('\n') == std::string::npos);
  CHECK(warnings[0].rfind("CLPROF_LOG_LEVEL=\"\\x1b[2J\\x0a" + std::string(75, 'x') + "...\"", 0) ==
        0);
  CHECK(warnings[0].size() < 200);
}

TEST_CASE("secure_getenv: the environment as a normal program sees it") {
  // This test runs without setuid, so secure_getenv reads as getenv does.
  setenv("CLPROF_FLUSH_INTERVAL_MS", "77", 1);
  std::vector<std::string> warnings;
  const Settings s = load_settings_from_environment(warnings);
  unsetenv("CLPROF_FLUSH_INTERVAL_MS");
  CHECK(s.flush_interval_ms == 77);
}

TEST_CASE("settings_as_text lists every setting in table order") {
  Settings s;
  s.disable = true;
  s.flush_interval_ms = 42;
  const auto text = settings_as_text(s);
  REQUIRE(text.size() == sizeof(clprof::settings::kAll) / sizeof(clprof::settings::kAll[0]));
  CHECK(text[0] == std::make_pair(std::string("CLPROF_OUTPUT"), std::string("clprof-%p.json")));
  CHECK(text[1] == std::make_pair(std::string("CLPROF_DISABLE"), std::string("1")));
  // 3 CAPTURE_SOURCE, 4 CAPTURE (empty by default), 5 CAPTURE_LIMIT, 6 HOOK_BLAS.
  CHECK(text[4] == std::make_pair(std::string("CLPROF_CAPTURE"), std::string("")));
  CHECK(text[5] == std::make_pair(std::string("CLPROF_CAPTURE_LIMIT"), std::string("1")));
  CHECK(text[7] == std::make_pair(std::string("CLPROF_FLUSH_INTERVAL_MS"), std::string("42")));
}

TEST_CASE("names (CLPROF_SESSION_ID): a token of letters, digits, - _ and ., at most 64") {
  const clprof::settings::Description* row = nullptr;
  for (const auto& d : clprof::settings::kAll)
    if (d.env_name == "CLPROF_SESSION_ID") row = &d;
  REQUIRE(row != nullptr);
  std::string v;
  CHECK(check_setting(*row, "0123456789abcdef", v));
  CHECK(v == "0123456789abcdef");
  CHECK(check_setting(*row, "run-3_a.b", v));
  CHECK(check_setting(*row, std::string(64, 'a'), v));
  CHECK_FALSE(check_setting(*row, std::string(65, 'a'), v));
  CHECK_FALSE(check_setting(*row, "a b", v));
  CHECK_FALSE(check_setting(*row, "a\"},\"x\":{", v));
  CHECK_FALSE(check_setting(*row, "x\x1b[2J", v));
  CHECK(v == std::string(64, 'a'));  // untouched by the refusals
}
