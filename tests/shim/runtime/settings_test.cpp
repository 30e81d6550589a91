#include <doctest/doctest.h>

#include <map>
#include <string>

#include "runtime/settings.hpp"

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
  CHECK(s.poll_interval_us == 1000);
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

TEST_CASE("load_settings reads the environment and warns once per bad value") {
  g_env = {{"CLPROF_OUTPUT", "run.json"},
           {"CLPROF_DISABLE", "yes"},
           {"CLPROF_POLL_INTERVAL_US", "fast"},
           {"CLPROF_LOG_LEVEL", "info"},
           {"CLPROF_EXIT_WAIT_MS", "5"}};
  std::vector<std::string> warnings;
  const Settings s = load_settings(fake_env, warnings);
  CHECK(s.output == "run.json");
  CHECK(s.disable);
  CHECK(s.log_level == LogLevel::Info);
  CHECK(s.exit_wait_ms == 5);
  CHECK(s.poll_interval_us == 1000);  // bad value -> default
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "CLPROF_POLL_INTERVAL_US=\"fast\" is not a valid uint; using the default \"1000\"");
}

TEST_CASE("settings_as_text lists every setting in table order") {
  Settings s;
  s.disable = true;
  s.flush_interval_ms = 42;
  const auto text = settings_as_text(s);
  REQUIRE(text.size() == sizeof(clprof::settings::kAll) / sizeof(clprof::settings::kAll[0]));
  CHECK(text[0] == std::make_pair(std::string("CLPROF_OUTPUT"), std::string("clprof-%p.json")));
  CHECK(text[1] == std::make_pair(std::string("CLPROF_DISABLE"), std::string("1")));
  CHECK(text[4] == std::make_pair(std::string("CLPROF_FLUSH_INTERVAL_MS"), std::string("42")));
}
