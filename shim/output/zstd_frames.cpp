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
  if (!create || !free_ || !compress_ || !bound_ || !is_error_) {
    error = "libzstd.so.1 lacks the functions clprof uses";
    return false;
  }
  ctx_ = create();
  if (!ctx_) error = "libzstd cannot make a compression context (out of memory)";
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
