#include "runtime/settings.hpp"

#include <cctype>
#include <charconv>

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
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return false;
  out = v;
  return true;
}

bool parse_setting(std::string_view text, std::string& out) {
  out = std::string(text);
  return true;
}

bool parse_setting(std::string_view text, LogLevel& out) {
  static constexpr std::pair<std::string_view, LogLevel> kLevels[] = {
      {"trace", LogLevel::Trace}, {"debug", LogLevel::Debug},  {"info", LogLevel::Info},
      {"warn", LogLevel::Warn},   {"warning", LogLevel::Warn}, {"error", LogLevel::Error},
      {"off", LogLevel::Off}};
  const std::string t = lower(trim(text));
  for (const auto& [name, level] : kLevels) {
    if (t == name) {
      out = level;
      return true;
    }
  }
  return false;
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
  switch (v) {
    case LogLevel::Trace:
      return "trace";
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
    case LogLevel::Off:
      return "off";
  }
  return "warn";
}

Settings::Settings() {
  // The table's defaults are text; parsing them keeps one source of truth.
#define CLPROF_SETTING_DEFAULT(member, env, type, def, help) parse_setting(def, member);
  CLPROF_SETTINGS(CLPROF_SETTING_DEFAULT)
#undef CLPROF_SETTING_DEFAULT
}

Settings load_settings(const std::function<const char*(const char*)>& get_env,
                       std::vector<std::string>& warnings) {
  Settings s;
#define CLPROF_SETTING_LOAD(member, env, type, def, help)                          \
  if (const char* value = get_env(env)) {                                          \
    if (!parse_setting(value, s.member)) {                                         \
      warnings.push_back(std::string(env) + "=\"" + value + "\" is not a valid " + \
                         std::string(settings::type_name(settings::Type::type)) +  \
                         "; using the default \"" + def + "\"");                   \
    }                                                                              \
  }
  CLPROF_SETTINGS(CLPROF_SETTING_LOAD)
#undef CLPROF_SETTING_LOAD
  return s;
}

std::vector<std::pair<std::string, std::string>> settings_as_text(const Settings& s) {
  std::vector<std::pair<std::string, std::string>> out;
#define CLPROF_SETTING_TEXT(member, env, type, def, help) \
  out.emplace_back(env, format_setting(s.member));
  CLPROF_SETTINGS(CLPROF_SETTING_TEXT)
#undef CLPROF_SETTING_TEXT
  return out;
}

}  // namespace clprof::shim
