#include "output/zstd_frames.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>

namespace clprof::shim {

bool ZstdFrames::open(std::string& error) {
  // Kept open for the process's life (never dlclose'd: the finaliser may still compress).
  void* lib = ::dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error = "libzstd.so.1 cannot be loaded";
    return false;
  }
  auto create = reinterpret_cast<CreateFn>(::dlsym(lib, "ZSTD_createCCtx"));
  free_ = reinterpret_cast<FreeFn>(::dlsym(lib, "ZSTD_freeCCtx"));
  compress_ = reinterpret_cast<CompressFn>(::dlsym(lib, "ZSTD_compressCCtx"));
  bound_ = reinterpret_cast<BoundFn>(::dlsym(lib, "ZSTD_compressBound"));
  is_error_ = reinterpret_cast<IsErrorFn>(::dlsym(lib, "ZSTD_isError"));
  stream_ = reinterpret_cast<StreamFn>(::dlsym(lib, "ZSTD_compressStream2"));
  set_parameter_ = reinterpret_cast<SetParameterFn>(::dlsym(lib, "ZSTD_CCtx_setParameter"));
  if (!create || !free_ || !compress_ || !bound_ || !is_error_ || !stream_ || !set_parameter_) {
    error = "libzstd.so.1 lacks the functions clprof uses";
    return false;
  }
  ctx_ = create();
  if (!ctx_) error = "libzstd cannot make a compression context (out of memory)";
  constexpr int kCompressionLevelParameter = 100;  // ZSTD_c_compressionLevel (zstd.h)
  if (ctx_ && is_error_(set_parameter_(ctx_, kCompressionLevelParameter, kLevel))) {
    error = "libzstd refuses the compression level";
    free_(ctx_);
    ctx_ = nullptr;
  }
  return ctx_ != nullptr;
}

ZstdFrames::~ZstdFrames() {
  if (ctx_) free_(ctx_);
}

std::size_t ZstdFrames::bound(std::size_t n) const {
  return bound_(n);
}

std::size_t ZstdFrames::compress(char* dst, std::size_t cap, const char* src, std::size_t n) {
  const std::size_t z = compress_(ctx_, dst, cap, src, n, kLevel);
  return is_error_(z) ? 0 : z;
}

namespace {
// zstd.h's ZSTD_inBuffer and ZSTD_outBuffer (stable ABI since zstd 1.3).
struct InBuffer {
  const void* src;
  std::size_t size;
  std::size_t pos;
};
struct OutBuffer {
  void* dst;
  std::size_t size;
  std::size_t pos;
};
constexpr int kFlushBlock = 1, kEndFrame = 2;  // ZSTD_e_flush, ZSTD_e_end
}  // namespace

std::size_t ZstdFrames::compress_stream(char* dst, std::size_t cap, const char* src, std::size_t n,
                                        bool end_frame) {
  InBuffer in{src, n, 0};
  OutBuffer out{dst, cap, 0};
  for (;;) {
    const std::size_t left = stream_(ctx_, &out, &in, end_frame ? kEndFrame : kFlushBlock);
    if (is_error_(left)) return 0;
    if (left == 0 && in.pos == in.size) return out.pos;
    if (out.pos == out.size) return 0;  // no room (bound + slack should always do)
  }
}

std::size_t ZstdFrames::skippable(char* dst, const std::string& text) {
  const std::uint32_t magic = 0x184D2A50u, size = static_cast<std::uint32_t>(text.size());
  const unsigned char head[8] = {
      static_cast<unsigned char>(magic),       static_cast<unsigned char>(magic >> 8),
      static_cast<unsigned char>(magic >> 16), static_cast<unsigned char>(magic >> 24),
      static_cast<unsigned char>(size),        static_cast<unsigned char>(size >> 8),
      static_cast<unsigned char>(size >> 16),  static_cast<unsigned char>(size >> 24)};
  std::memcpy(dst, head, sizeof head);
  std::memcpy(dst + sizeof head, text.data(), text.size());
  return sizeof head + text.size();
}

}  // namespace clprof::shim
