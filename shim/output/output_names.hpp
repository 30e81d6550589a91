// Names and hashes the shim writes: the trace file's path (CLPROF_OUTPUT expanded per
// process) and the hash of a program's source. Pure functions; threads: any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace clprof::shim {

// What CLPROF_OUTPUT's "%" fields become besides the pid.
struct NameFields {
  std::string rank = "0";  // "%r": the rank in a parallel job, "0" outside one
  std::string host;        // "%h": the host name, each '/' as '_'
};

// CLPROF_OUTPUT expansion: every "%p" becomes `pid`, "%r" and "%h" the fields' texts.
// Without "%p", a process whose pid is not `root_pid` inserts ".<pid>" before the file
// name's extension (run.json -> run.<pid>.json; "run" -> "run.<pid>"). root_pid 0 counts
// as "this is the root". `suffix_children` false turns the ".<pid>" rule off (the target
// is a device or FIFO such as /dev/null that every process may share).
std::string expand_output_path(std::string_view pattern, long pid, long root_pid,
                               bool suffix_children = true, const NameFields& fields = {});
// `path` with `text` inserted before the file name's extension ("run.json", ".1" ->
// "run.1.json"; "run" -> "run.1"; ".trace" -> ".trace.1").
std::string insert_before_extension(std::string_view path, std::string_view text);

// FNV-1a 64-bit, incremental: start with kFnvOffset, feed bytes.
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a64(std::uint64_t state, const void* data, std::size_t n);
// "fnv1a64:<16 lower-case hex digits>"
std::string source_hash_text(std::uint64_t hash);

}  // namespace clprof::shim
