// Well-formed UTF-8 (RFC 3629) for the trace's strings: JSON text must be UTF-8, and the
// strings come from the app and its environment (kernel names, build options, sources,
// range names, the command line). Pure functions; threads: any.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace clprof::shim {

// How many leading bytes of `s` are well-formed UTF-8 (RFC 3629).
std::size_t utf8_valid_prefix(std::string_view s);
// `s` with every byte that starts no well-formed UTF-8 sequence replaced by U+FFFD (the
// trace's strings, docs/trace-format.md). Well-formed input comes back unchanged.
std::string valid_utf8(std::string_view s);

}  // namespace clprof::shim
