#include "base/process_settings.hpp"

#include <string>
#include <vector>

#include "base/log.hpp"

namespace clprof::shim {

const Settings& settings() {
  static const Settings* s = [] {
    std::vector<std::string> warnings;
    auto* parsed = new Settings(load_settings_from_environment(warnings));
    set_log_level(parsed->log_level);
    // At most one: bad values turn the shim off, and that is its one notice.
    for (const auto& w : warnings) log_once_warn("%s", w.c_str());
    return parsed;
  }();
  return *s;
}

bool hooks_may_be_handed_out() {
  return !settings().disable;
}

}  // namespace clprof::shim
