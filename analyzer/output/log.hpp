// The analyzer's diagnostics: one logger writing to stderr, with levels set by --quiet
// (errors only) and --verbose (debug). Lines read "clprof: error: ...", "clprof: warning:
// ...", and "clprof: ..." for information. Backed by spdlog (kept out of this header, so
// that nothing else includes it). Log from the main thread; the progress line may come from
// another (a lock orders them). The shim has its own logger.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clprof::log {

enum class Level { Debug, Info, Warning, Error };

// `text` with its control bytes escaped (\n, \t, \x1b, ...): a file, kernel or option name
// from an input can never move the cursor, clear the screen or fake a line on stderr.
// Every message below goes through it.
std::string printable(std::string_view text);

// Messages below `level` are dropped (default: Info).
void set_level(Level level);
void debug(std::string_view message);
void info(std::string_view message);
void warning(std::string_view message);
void error(std::string_view message);
// Each distinct message of `messages` once, as a warning.
void warnings(const std::vector<std::string>& messages);

// A progress line on stderr ("clprof: ..."), rewritten in place: only when stderr is a
// terminal and information is shown (not --quiet); otherwise these do nothing.
bool progress_shown();
void progress(std::string_view line);
// Erases the progress line (if one is shown), so that what follows starts on a clean line.
void progress_clear();

}  // namespace clprof::log
