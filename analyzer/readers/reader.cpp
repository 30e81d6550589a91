#include "readers/reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifdef CLPROF_HAVE_ZSTD
#include <zstd.h>
#endif

#include "memory_limit.hpp"
#include "readers/decompressed_limit.hpp"

namespace clprof::readers {

namespace {

std::string format_location(const std::string& file, size_t line, size_t column,
                            const std::string& message) {
  std::string out = file;
  out += ':';
  out += std::to_string(line);
  out += ':';
  out += std::to_string(column);
  out += ": ";
  out += message;
  return out;
}

}  // namespace

InputError::InputError(std::string file, size_t line, size_t column, std::string message)
    : std::runtime_error(format_location(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

std::string printable(std::string_view text, size_t max_bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t n = text.size() < max_bytes ? text.size() : max_bytes;
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    // A multi-byte UTF-8 sequence is kept whole (names may be in any script), except the
    // C1 controls U+0080..U+009F, which terminals act on too.
    const size_t len = c >= 0xF5 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 1;
    bool whole = len > 1 && i + len <= text.size() &&
                 !(c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0);
    for (size_t k = 1; whole && k < len; ++k)
      whole = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (whole) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

namespace {

std::atomic<uint64_t> g_decompressed_limit{0};  // set_decompressed_limit

// The first bytes of every zstd frame (RFC 8878), little-endian 0xFD2FB528.
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

bool starts_with_zstd_magic(int fd) {
  unsigned char head[4] = {};
  ssize_t n;
  while ((n = ::pread(fd, head, sizeof head, 0)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof head)) return false;
  // Or a skippable frame (0x184D2A50 to 0x184D2A5F): the shim's .zst traces open with one
  // holding the header line (shim/output/zstd_frames.hpp).
  const bool skippable =
      (head[0] & 0xF0) == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18;
  return skippable || std::memcmp(head, kZstdMagic, 4) == 0;
}

#ifdef CLPROF_HAVE_ZSTD
void write_all(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw InputError(path, 0, 0, std::string("cannot decompress: ") + std::strerror(errno));
    data += w;
    n -= static_cast<size_t>(w);
  }
}

// `fd` (a zstd file, closed here) decompressed into an anonymous in-memory file (memfd),
// whose descriptor is returned with its size: every reader then maps, preads and sniffs it
// as it does a plain trace. Streamed in ZSTD_DStreamInSize() chunks: memory beyond the
// result is two buffers. The result's size is held below half of --max-memory (when set).
// A last frame cut short keeps what its whole blocks held: the shim ends a block at every
// write (and a frame every 8 MiB of trace), so a killed program's trace reads up to its
// last write, a line cut there dropped by the trace reader as for a plain file. A damaged
// frame is an error naming its byte offset.
int decompress_zstd(int fd, const std::string& path, uint64_t& size_bytes) {
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } in_file{fd};
  const int out = ::memfd_create("clprof-trace", MFD_CLOEXEC);
  if (out < 0)
    throw InputError(path, 0, 0, std::string("cannot decompress: ") + std::strerror(errno));
  Closer out_guard{out};
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(),
                                                              ZSTD_freeDStream);
  if (!ds || ZSTD_isError(ZSTD_initDStream(ds.get())))
    throw InputError(path, 0, 0, "cannot decompress: out of memory");
  const uint64_t from_memory = applied_memory_limit() / 2, own = g_decompressed_limit.load();
  const uint64_t limit = own != 0 && (from_memory == 0 || own < from_memory) ? own : from_memory;
  const std::string bound =
      limit == own ? " bytes, the reader's bound)" : " bytes, half of --max-memory)";
  std::vector<char> in(ZSTD_DStreamInSize()), buf(ZSTD_DStreamOutSize());
  uint64_t consumed = 0;               // compressed bytes before `in`
  uint64_t frame_start = 0;            // compressed offset of the frame being read
  uint64_t written = 0, complete = 0;  // decompressed bytes: all, up to the last frame's end
  for (;;) {
    const ssize_t n = ::read(fd, in.data(), in.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path, 0, 0, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    ZSTD_inBuffer ib{in.data(), static_cast<size_t>(n), 0};
    while (ib.pos < ib.size) {
      ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
      const size_t r = ZSTD_decompressStream(ds.get(), &ob, &ib);
      if (ZSTD_isError(r)) {
        throw InputError(path, 0, 0,
                         "damaged zstd frame starting at byte " + std::to_string(frame_start) +
                             " (detected by byte " + std::to_string(consumed + ib.pos) +
                             "): " + ZSTD_getErrorName(r));
      }
      write_all(out, buf.data(), ob.pos, path);
      written += ob.pos;
      if (limit != 0 && written > limit) {
        throw InputError(path, 0, 0,
                         "the decompressed trace exceeds its bound (" + std::to_string(limit) +
                             bound +
                             ": raise --max-memory, or decompress the file with zstd -d first");
      }
      if (r == 0) {  // a frame ended here
        complete = written;
        frame_start = consumed + ib.pos;
      }
    }
    consumed += static_cast<uint64_t>(n);
  }
  // A last frame cut short (a killed writer) keeps its whole blocks' text: `written`, not
  // `complete` (the end of the last whole frame).
  static_cast<void>(complete);
  if (::lseek(out, 0, SEEK_SET) != 0)  // read as a file just opened is
    throw InputError(path, 0, 0, std::string("cannot decompress: ") + std::strerror(errno));
  size_bytes = written;
  out_guard.fd = -1;
  return out;
}
#endif

}  // namespace

void set_decompressed_limit(uint64_t bytes) {
  g_decompressed_limit.store(bytes);
}

int open_regular_file(const std::string& path, uint64_t& size_bytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang; it is rejected below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw InputError(path, 0, 0, std::string("cannot stat: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, 0, "cannot read: Is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(path, 0, 0, "cannot read: not a regular file (save the trace to a file)");
  }
  size_bytes = static_cast<uint64_t>(st.st_size);
  if (starts_with_zstd_magic(fd)) {
#ifdef CLPROF_HAVE_ZSTD
    return decompress_zstd(fd, path, size_bytes);
#else
    ::close(fd);
    throw InputError(path, 0, 0,
                     "a zstd-compressed file, and this clprof was built without libzstd "
                     "(decompress it with zstd -d first)");
#endif
  }
  return fd;
}

}  // namespace clprof::readers
