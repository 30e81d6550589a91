#include "output/capture_files.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>
#include <vector>

#include "clprof/cl_text.hpp"
#include "clprof/trace_schema.hpp"
#include "output/json_text.hpp"
#include "output/record_format.hpp"

namespace clprof::shim {
namespace {

namespace ts = trace;
using json_text::key;
using json_text::Writer;

std::string& trace_path() {
  static auto* p = new std::string;  // leaked: hooks may run during static destruction
  return *p;
}

// Writes `n` bytes to `path` (created or replaced); false with `why` set.
bool write_file(const std::string& path, const void* data, size_t n, std::string& why) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    why = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      why = "cannot write " + path + ": " + std::strerror(errno);
      close(fd);
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  if (close(fd) != 0) {
    why = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool make_dir(const std::string& path, std::string& why) {
  if (mkdir(path.c_str(), 0777) == 0 || errno == EEXIST) return true;
  why = "cannot make the folder " + path + ": " + std::strerror(errno);
  return false;
}

void sizes(Writer& w, const char* k, const std::uint64_t* v, unsigned n, bool present) {
  key(w, k);
  if (!present) {
    w.Null();
    return;
  }
  w.StartArray();
  for (unsigned i = 0; i < n; ++i) w.Uint64(v[i]);
  w.EndArray();
}

std::string hex(const std::vector<unsigned char>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

// A memory object's "before" and "after" file names ("" after: none captured).
struct ContentFiles {
  std::vector<std::string> before, after;
};

void content_keys(Writer& w, const ContentFiles& files, size_t i) {
  key(w, "before");
  w.String(files.before[i].c_str());
  key(w, "after");
  if (files.after[i].empty()) {
    w.Null();
  } else {
    w.String(files.after[i].c_str());
  }
}

void image_entry(Writer& w, const CapturedImage& img, const ContentFiles& files, size_t i) {
  w.StartObject();
  key(w, "mem_id");
  w.Uint64(img.mem_id);
  key(w, "type");
  w.String(cl_text::word_of(cl_text::kImageTypes, img.type));
  key(w, "channel_order");
  w.Uint(img.channel_order);
  key(w, "channel_type");
  w.Uint(img.channel_type);
  const std::pair<const char*, std::uint64_t> sizes[] = {{"element_size", img.element_size},
                                                         {"width", img.width},
                                                         {"height", img.height},
                                                         {"depth", img.depth},
                                                         {"array_size", img.array_size},
                                                         {"bytes", img.bytes},
                                                         {"flags", img.flags}};
  for (const auto& [k, v] : sizes) {
    key(w, k);
    w.Uint64(v);
  }
  content_keys(w, files, i);
  w.EndObject();
}

std::string manifest(const CaptureFacts& f, const std::string& program_file,
                     const ContentFiles& buffer_files, const ContentFiles& image_files) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, "format");
  w.String(kCaptureFormat);
  key(w, "version");
  w.Int(kCaptureVersion);
  key(w, "id");
  w.Uint64(f.id);
  key(w, "kernel");
  json_text::string(w, f.kernel);
  key(w, "kernel_id");
  w.Uint64(f.kernel_id);
  key(w, "program_id");
  w.Uint64(f.program_id);
  key(w, "device");
  w.StartObject();
  const std::pair<const char*, const std::string*> device[] = {
      {"name", &f.device_name},       {"vendor", &f.device_vendor},
      {"version", &f.device_version}, {"driver_version", &f.driver_version},
      {"platform", &f.platform_name}, {"type", &f.device_type}};
  for (const auto& [k, v] : device) {
    key(w, k);
    json_text::string(w, *v);
  }
  w.EndObject();
  key(w, "program");
  w.StartObject();
  key(w, "origin");
  w.String(f.origin.c_str());
  key(w, "file");
  json_text::string(w, program_file);
  key(w, "options");
  json_text::string(w, f.options);
  w.EndObject();
  key(w, "work_dim");
  w.Uint(f.work_dim);
  sizes(w, "gwo", f.gwo, f.work_dim, f.has_gwo);
  sizes(w, "gws", f.gws, f.work_dim, true);
  sizes(w, "lws", f.lws, f.work_dim, f.has_lws);
  key(w, "args");
  w.StartArray();
  for (const CapturedArg& a : f.args) {
    w.StartObject();
    key(w, "kind");
    w.String(std::string(ts::name(a.kind)).c_str());
    key(w, "size");
    w.Uint(a.size);
    key(w, "type");
    json_text::string(w, a.type_name);
    if (a.kind == ArgKind::Scalar) {
      key(w, "hex");
      w.String(hex(a.bytes).c_str());
    } else if (a.kind == ArgKind::Image) {
      key(w, "image");
      w.Int(a.image);
    } else if (a.kind == ArgKind::Sampler) {
      key(w, "normalized");
      w.Bool(a.normalized);
      key(w, "addressing");
      w.String(cl_text::word_of(cl_text::kAddressingModes, a.addressing));
      key(w, "filter");
      w.String(cl_text::word_of(cl_text::kFilterModes, a.filter));
    } else if (a.kind == ArgKind::Buffer) {
      key(w, "buffer");
      if (a.buffer < 0) {
        w.Null();
      } else {
        w.Int(a.buffer);
        key(w, "offset");
        w.Uint64(a.offset);
        key(w, "bytes");
        w.Uint64(a.bytes_used);
      }
    }
    w.EndObject();
  }
  w.EndArray();
  key(w, "buffers");
  w.StartArray();
  for (size_t b = 0; b < f.buffers.size(); ++b) {
    const CapturedBuffer& buf = f.buffers[b];
    w.StartObject();
    key(w, "mem_id");
    w.Uint64(buf.mem_id);
    key(w, "bytes");
    w.Uint64(buf.bytes);
    key(w, "flags");
    w.Uint64(buf.flags);
    content_keys(w, buffer_files, b);
    w.EndObject();
  }
  w.EndArray();
  key(w, "images");
  w.StartArray();
  for (size_t i = 0; i < f.images.size(); ++i) image_entry(w, f.images[i], image_files, i);
  w.EndArray();
  key(w, "recorded_ns");
  if (f.recorded_ns < 0) {
    w.Null();
  } else {
    w.Int64(f.recorded_ns);
  }
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

// The names of `items`' content files: PREFIX + index + ".before.bin" / ".after.bin".
template <class Item>
ContentFiles content_files(const std::vector<Item>& items, const char* prefix) {
  ContentFiles files;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string base = prefix + std::to_string(i);
    files.before.push_back(base + ".before.bin");
    files.after.push_back(items[i].has_after ? base + ".after.bin" : "");
  }
  return files;
}

// Writes `items`' content files into `dir`, naming them in `written`.
template <class Item>
bool write_contents(const std::vector<Item>& items, const ContentFiles& names,
                    const std::string& dir, std::vector<std::string>& written, std::string& why) {
  for (size_t i = 0; i < items.size(); ++i) {
    written.push_back(names.before[i]);
    if (!write_file(dir + "/" + names.before[i], items[i].before.data(), items[i].before.size(),
                    why))
      return false;
    if (names.after[i].empty()) continue;
    written.push_back(names.after[i]);
    if (!write_file(dir + "/" + names.after[i], items[i].after.data(), items[i].after.size(), why))
      return false;
  }
  return true;
}

// The folder's files; false with `why` when one cannot be written.
bool write_files(const CaptureFacts& f, const std::string& dir, std::vector<std::string>& files,
                 std::string& why) {
  const std::string program_file = f.origin == "binary" ? "program.bin" : "program.cl";
  const ContentFiles buffer_files = content_files(f.buffers, "buffer");
  const ContentFiles image_files = content_files(f.images, "image");
  const std::string m = manifest(f, program_file, buffer_files, image_files);
  files.push_back(kCaptureManifest);
  files.push_back(program_file);
  if (!write_file(dir + "/" + kCaptureManifest, m.data(), m.size(), why)) return false;
  const bool source = f.origin != "binary";
  if (!write_file(dir + "/" + program_file,
                  source ? static_cast<const void*>(f.source.data()) : f.binary.data(),
                  source ? f.source.size() : f.binary.size(), why))
    return false;
  return write_contents(f.buffers, buffer_files, dir, files, why) &&
         write_contents(f.images, image_files, dir, files, why);
}

}  // namespace

void set_capture_trace_path(const std::string& path) {
  trace_path() = path;
}

std::string write_capture(CaptureFacts& f) {
  std::string rel_dir;
  std::vector<std::string> files;
  if (f.captured()) {
    const std::string& trace = trace_path();
    const size_t slash = trace.rfind('/');
    const std::string folder = trace + ".capture";
    const std::string base =
        (slash == std::string::npos ? trace : trace.substr(slash + 1)) + ".capture";
    const std::string dir = folder + "/" + std::to_string(f.id);
    std::string why;
    if (make_dir(folder, why) && make_dir(dir, why) && write_files(f, dir, files, why)) {
      rel_dir = base + "/" + std::to_string(f.id);
    } else {
      files.clear();
      f.status = "failed";
      f.reason = why;
      capture_disable(why);
    }
  }
  JsonLine line(ts::capture::kTypeName);
  line.unum(ts::capture::id, f.id)
      .str(ts::capture::kernel, f.kernel)
      .str(ts::capture::status, f.status);
  if (!f.reason.empty()) line.str(ts::capture::reason, f.reason);
  line.str(ts::capture::dir, rel_dir).strs(ts::capture::files, files);
  return line.finish();
}

}  // namespace clprof::shim
