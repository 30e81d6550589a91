// Opening the trace file: what the shim does when CLPROF_OUTPUT's path already exists, or
// is a symbolic link someone else placed there (docs/settings.md, "The output file").
//
//   nothing there            created, O_CREAT|O_EXCL (never through a link)
//   a regular file           yours (same owner as this process's effective uid): emptied
//                            and written; anyone else's: left alone, no trace
//   a symbolic link          followed only when it belongs to you or to root (/dev/stdout
//                            is one), and its target is then judged by these rules;
//                            anyone else's: left alone, no trace
//   a device or a FIFO       written as is (/dev/null, a terminal, a named pipe), never
//                            created or emptied
//   anything else            (a directory, a socket) no trace
// So a link or file planted in a shared directory such as /tmp never redirects the trace
// into a file of the user's, nor hands the trace to its owner.
// Pure system calls; threads: any.
#pragma once

#include <string>

namespace clprof::shim {

// The open descriptor (O_WRONLY|O_CLOEXEC) for `path`, or -1 with `error` set to a
// sentence naming the path and the reason. `mode` is for a file it creates.
int open_output_file(const std::string& path, std::string& error, unsigned mode = 0644);

}  // namespace clprof::shim
