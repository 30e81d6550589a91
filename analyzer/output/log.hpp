// The analyzer's diagnostics: one logger writing to stderr, with levels set by --quiet
// (errors only) and --verbose (debug). Lines read "clprof: error: ...", "clprof: warning:
// ...", and "clprof: ..." for information. Backed by spdlog (kept out of this header, so
// that nothing else includes it). Single-threaded use; the shim has its own logger.
#pragma once

#include <string_view>
#include <vector>
#include <string>

namespace clprof::log {

enum class Level { Debug, Info, Warning, Error };

// Messages below `level` are dropped (default: Info).
void set_level(Level level);
void debug(std::string_view message);
void info(std::string_view message);
void warning(std::string_view message);
void error(std::string_view message);
// Each distinct message of `messages` once, as a warning.
void warnings(const std::vector<std::string>& messages);

}  // namespace clprof::log
