// The CLPROF_* settings as typed values, parsed from the one table in
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
using SettingString = std::string;
using SettingLogLevel = LogLevel;

// One member per row of CLPROF_SETTINGS, typed by the row's type. Value type; the
// defaults of a default-constructed Settings are the table's defaults.
struct Settings {
#define CLPROF_SETTING_MEMBER(member, env, type, def, help) Setting##type member{};
  CLPROF_SETTINGS(CLPROF_SETTING_MEMBER)
#undef CLPROF_SETTING_MEMBER
  Settings();
};

// Parsers for one value of each type; false when `text` does not parse (out untouched).
bool parse_setting(std::string_view text, bool& out);
bool parse_setting(std::string_view text, std::uint64_t& out);
bool parse_setting(std::string_view text, std::string& out);
bool parse_setting(std::string_view text, LogLevel& out);

// Canonical text of a value ("1"/"0", decimal, the string, the level name).
std::string format_setting(bool v);
std::string format_setting(std::uint64_t v);
std::string format_setting(const std::string& v);
std::string format_setting(LogLevel v);

// Reads every setting through `get_env` (nullptr = unset). A value that does not parse
// keeps the default and appends one message naming the variable, the bad value and the
// default to `warnings`. Threads: pure function.
Settings load_settings(const std::function<const char*(const char*)>& get_env,
                       std::vector<std::string>& warnings);

// (ENV_NAME, canonical value) for every setting, in table order (for the trace header).
std::vector<std::pair<std::string, std::string>> settings_as_text(const Settings& s);

}  // namespace clprof::shim
