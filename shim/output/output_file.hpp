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

namespace clprof::shim {

// CLPROF_OUTPUT without "%p" names one file for every process of a run: the first process
// of the run to start its trace (its first OpenCL call) takes the name, every later one
// writes NAME.<pid>.EXT (runtime/lifecycle.cpp). Not the first process of the run (a
// wrapper such as `timeout` or `sh -c` that never calls OpenCL would keep the name and
// write nothing). The claim is atomic across processes, with no file of its own left
// behind:
//   nothing there        a private file beside it, locked (flock), is linked to the name
//                        (link(2) fails if another process got there first: asked again)
//   a regular file of    locked (flock, waiting while another process of the run writes
//   this user's          its header there), then its header read: written by this run
//                        (the header's session_id is CLPROF_SESSION_ID) it is taken;
//                        anything else (an earlier run's trace, an empty file) is stale,
//                        and is claimed
//   anything else        (a link, a device, another user's file, an unwritable directory,
//                        no session id) unclaimable: the caller keeps the older rule (the
//                        run's root process, CLPROF_ROOT_PID, takes the name)
// A claimed file stays locked until release(): the claimer opens it and writes its header
// meanwhile (TraceWriter::open empties it first), so a process of the run that asks next
// reads that header. Threads: the owner's; system calls only (start-up, never the
// enqueue path).
enum class NameClaim {
  Claimed,           // ours: open and write the header, then release()
  TakenByRun,        // another process of this run holds it
  TakenByThisImage,  // this process (same pid) wrote it before an exec
  Unclaimable,
};

class OutputNameClaim {
 public:
  NameClaim claim(const std::string& path, const std::string& session_id, long pid);
  void release();
  OutputNameClaim() = default;
  ~OutputNameClaim() { release(); }
  OutputNameClaim(const OutputNameClaim&) = delete;
  OutputNameClaim& operator=(const OutputNameClaim&) = delete;

 private:
  int lock_fd_ = -1;
};

}  // namespace clprof::shim
