// The CLPROF_* settings as typed values, parsed and checked against the one table in
// include/clprof/settings_table.hpp. No OpenCL, no globals: unit-testable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clprof/settings_table.hpp"

namespace clprof::shim {

enum class LogLevel { Trace, Debug, Info, Warn, Error, Off };

using SettingBool = bool;
using SettingUint = std::uint64_t;
using SettingPath = std::string;
using SettingLogLevel = LogLevel;
using SettingName = std::string;
using SettingRegex = std::string;

// One member per row of CLPROF_SETTINGS, typed by the row's type. Value type; the
// defaults of a default-constructed Settings are the table's defaults.
struct Settings {
#define CLPROF_SETTING_MEMBER(member, env, type, def, min, max, help) Setting##type member{};
  CLPROF_SETTINGS(CLPROF_SETTING_MEMBER)
#undef CLPROF_SETTING_MEMBER
  Settings();
};

// Parsers for one value of each type; false when `text` does not parse (out untouched).
// The uint parser takes any 64-bit value; the row's range is checked by check_setting.
bool parse_setting(std::string_view text, bool& out);
bool parse_setting(std::string_view text, std::uint64_t& out);
bool parse_setting(std::string_view text, std::string& out);
bool parse_setting(std::string_view text, LogLevel& out);

// Parses `text` for `row` and checks it against the row's limits (Uint range, Path and
// Name length and characters); false when it does not pass (out untouched).
bool check_setting(const settings::Description& row, std::string_view text, bool& out);
bool check_setting(const settings::Description& row, std::string_view text, std::uint64_t& out);
bool check_setting(const settings::Description& row, std::string_view text, std::string& out);
bool check_setting(const settings::Description& row, std::string_view text, LogLevel& out);

// Canonical text of a value ("1"/"0", decimal, the string, the level name).
std::string format_setting(bool v);
std::string format_setting(std::uint64_t v);
std::string format_setting(const std::string& v);
std::string format_setting(LogLevel v);

// `text` safe to print in one line of a message: control characters and bytes past ASCII
// as \xNN, cut to about 80 characters ("..." appended).
std::string printable_value(std::string_view text);

// Reads every setting through `get_env` (nullptr or "" = unset) and checks it. When one
// or more values do not pass, the result is the table's defaults with `disable` set (the
// log level kept when it passed), and `warnings` gets exactly one message naming each bad
// variable, its value and what is allowed. Threads: pure function.
Settings load_settings(const std::function<const char*(const char*)>& get_env,
                       std::vector<std::string>& warnings);

// load_settings over the process environment, read with secure_getenv: a setuid or
// setgid program (secure-execution mode) sees no setting, and the shim stays off in it.
// Threads: any (reads the environment).
Settings load_settings_from_environment(std::vector<std::string>& warnings);

// (ENV_NAME, canonical value) for every setting, in table order (for the trace header).
std::vector<std::pair<std::string, std::string>> settings_as_text(const Settings& s);

}  // namespace clprof::shim
