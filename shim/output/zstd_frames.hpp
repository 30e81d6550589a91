// zstd frames for a trace whose name ends in ".zst" (CLPROF_OUTPUT): each write of the
// trace's buffer ends a block of one stream (a frame ends every few MiB and at the end),
// so a killed program's trace decodes up to its last write. libzstd is opened at run time (dlopen
// "libzstd.so.1"), never linked: libclprof.so gains no DT_NEEDED, and where the library is missing
// the trace says so with one warning and is written as plain JSON under the same name (the analyzer
// reads a file by its content, not its name). Threads: the writer's owner (the harvester, then the
// finaliser). No OpenCL.
#pragma once

#include <cstddef>
#include <string>

namespace clprof::shim {

class ZstdFrames {
 public:
  // Opens libzstd and a compression context; false with `error` set when it cannot.
  bool open(std::string& error);
  bool is_open() const { return ctx_ != nullptr; }
  // The largest frame `n` bytes can become.
  std::size_t bound(std::size_t n) const;
  // `src`'s n bytes as one frame at `dst` (room for bound(n)); its size, or 0 on failure.
  std::size_t compress(char* dst, std::size_t cap, const char* src, std::size_t n);
  // `src`'s n bytes into the stream at `dst` (room for bound(n) + kStreamSlack), flushed to
  // a whole block (a reader decodes everything written so far), the frame ended too when
  // `end_frame`. The history of the frame carries over from one call to the next, so small
  // writes (one after each sync point) compress nearly as well as one large one. Its size,
  // or 0 on failure.
  std::size_t compress_stream(char* dst, std::size_t cap, const char* src, std::size_t n,
                              bool end_frame);
  static constexpr std::size_t kStreamSlack = 1 << 16;
  // A skippable frame (RFC 8878) holding `text` as is, at `dst` (room for text + 8): the
  // trace's header line stays readable without decompressing (output_file.hpp's name
  // claim, the exec rule). Returns its size.
  static std::size_t skippable(char* dst, const std::string& text);
  static constexpr std::size_t kSkippableHeader = 8;
  // Compression level. Measured on the enqueue benchmark, fake driver (202,000 launches):
  // 1: 20.5 bytes per launch, 3: 21.4, -5: 45.7; the harvester's CPU about the same at 1
  // and 3 (+350 ns per launch over the plain trace), docs/recording.md. On the CLBlast
  // network's text too (2026-12-02, docs/performance.md): 74 bytes per launch at 1, 81 at 2,
  // 85 at 3, 69 at 9 for 14 us of CPU per launch.
  static constexpr int kLevel = 1;

  ZstdFrames() = default;
  ~ZstdFrames();
  ZstdFrames(const ZstdFrames&) = delete;
  ZstdFrames& operator=(const ZstdFrames&) = delete;

 private:
  using CreateFn = void* (*)();
  using FreeFn = std::size_t (*)(void*);
  using CompressFn = std::size_t (*)(void*, void*, std::size_t, const void*, std::size_t, int);
  using BoundFn = std::size_t (*)(std::size_t);
  using IsErrorFn = unsigned (*)(std::size_t);
  using StreamFn = std::size_t (*)(void*, void*, const void*, int);
  using SetParameterFn = std::size_t (*)(void*, int, int);
  void* ctx_ = nullptr;
  FreeFn free_ = nullptr;
  CompressFn compress_ = nullptr;
  BoundFn bound_ = nullptr;
  IsErrorFn is_error_ = nullptr;
  StreamFn stream_ = nullptr;
  SetParameterFn set_parameter_ = nullptr;
};

}  // namespace clprof::shim
