#include "base/settings.hpp"

#include <sys/auxv.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace clprof::shim {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

}  // namespace

bool parse_setting(std::string_view text, bool& out) {
  const std::string t = lower(trim(text));
  if (t == "1" || t == "true" || t == "yes" || t == "on") {
    out = true;
    return true;
  }
  if (t == "0" || t == "false" || t == "no" || t == "off") {
    out = false;
    return true;
  }
  return false;
}

bool parse_setting(std::string_view text, std::uint64_t& out) {
  const std::string_view t = trim(text);
  if (t.empty()) return false;
  std::uint64_t v = 0;
  // from_chars refuses a sign and reports values past 2^64-1 as out of range.
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return false;
  out = v;
  return true;
}

bool parse_setting(std::string_view text, std::string& out) {
  out = std::string(text);
  return true;
}

// The log levels' names: CLPROF_LOG_LEVEL takes each; a level is written as its first.
constexpr std::pair<std::string_view, LogLevel> kLevels[] = {
    {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug},  {"info", LogLevel::Info},
    {"warn", LogLevel::Warn},   {"warning", LogLevel::Warn}, {"error", LogLevel::Error},
    {"off", LogLevel::Off}};

bool parse_setting(std::string_view text, LogLevel& out) {
  const std::string t = lower(trim(text));
  for (const auto& [name, level] : kLevels) {
    if (t == name) {
      out = level;
      return true;
    }
  }
  return false;
}

bool check_setting(const settings::Description&, std::string_view text, bool& out) {
  return parse_setting(text, out);
}

bool check_setting(const settings::Description& row, std::string_view text, std::uint64_t& out) {
  std::uint64_t v = 0;
  if (!parse_setting(text, v) || v < row.min || v > row.max) return false;
  out = v;
  return true;
}

// A path is taken byte for byte (no trimming: a name may end in a space). A control
// character (a newline, an escape sequence) is far likelier a mistake or an attack on
// the terminal that prints the warnings than a file name anyone wants.
// A name is a token: it goes into every trace's header and file-name-like places.
bool check_setting(const settings::Description& row, std::string_view text, std::string& out) {
  if (text.size() > row.max) return false;
  if (row.type == settings::Type::Name) {
    for (const char c : text) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        return false;
    }
    return parse_setting(text, out);
  }
  // A regex may end in '/' (it names kernels, not files); it is compiled where it is used.
  if (row.type != settings::Type::Regex && !text.empty() && text.back() == '/') return false;
  for (const char c : text) {
    if (is_control(static_cast<unsigned char>(c))) return false;
  }
  return parse_setting(text, out);
}

bool check_setting(const settings::Description&, std::string_view text, LogLevel& out) {
  return parse_setting(text, out);
}

std::string format_setting(bool v) {
  return v ? "1" : "0";
}
std::string format_setting(std::uint64_t v) {
  return std::to_string(v);
}
std::string format_setting(const std::string& v) {
  return v;
}
std::string format_setting(LogLevel v) {
  for (const auto& [name, level] : kLevels)
    if (level == v) return std::string(name);
  return "warn";
}

std::string printable_value(std::string_view text) {
  constexpr std::size_t kShown = 80;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_control(c) || c >= 0x80 || c == '\\' || c == '"') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kShown) out += "...";
  return out;
}

Settings::Settings() {
  // The table's defaults are text; parsing them keeps one source of truth.
#define CLPROF_SETTING_DEFAULT(member, env, type, def, min, max, help) parse_setting(def, member);
  CLPROF_SETTINGS(CLPROF_SETTING_DEFAULT)
#undef CLPROF_SETTING_DEFAULT
}

Settings load_settings(const std::function<const char*(const char*)>& get_env,
                       std::vector<std::string>& warnings) {
  Settings s;
  std::string problems;
  bool log_level_ok = true;
  std::size_t row = 0;
#define CLPROF_SETTING_LOAD(member, env, type, def, min, max, help)                    \
  {                                                                                    \
    const settings::Description& d = settings::kAll[row++];                            \
    const char* value = get_env(env);                                                  \
    if (value && *value && !check_setting(d, value, s.member)) {                       \
      problems += std::string(problems.empty() ? "" : "; ") + env + "=\"" +            \
                  printable_value(value) + "\" is not " + settings::allowed_values(d); \
      if (std::string_view(#member) == "log_level") log_level_ok = false;              \
    }                                                                                  \
  }
  CLPROF_SETTINGS(CLPROF_SETTING_LOAD)
#undef CLPROF_SETTING_LOAD
  if (problems.empty()) return s;
  // Half a configuration is not what the user asked for: nothing is recorded, and
  // nothing else changes (the program runs on its usual OpenCL library).
  Settings off;
  off.disable = true;
  if (log_level_ok) off.log_level = s.log_level;
  warnings.push_back(problems + "; clprof is off, the program runs untouched");
  return off;
}

Settings load_settings_from_environment(std::vector<std::string>& warnings) {
  if (getauxval(AT_SECURE) != 0) {
    Settings off;
    off.disable = true;
    return off;
  }
  return load_settings([](const char* name) { return secure_getenv(name); }, warnings);
}

std::vector<std::pair<std::string, std::string>> settings_as_text(const Settings& s) {
  std::vector<std::pair<std::string, std::string>> out;
#define CLPROF_SETTING_TEXT(member, env, type, def, min, max, help) \
  out.emplace_back(env, format_setting(s.member));
  CLPROF_SETTINGS(CLPROF_SETTING_TEXT)
#undef CLPROF_SETTING_TEXT
  return out;
}

}  // namespace clprof::shim
