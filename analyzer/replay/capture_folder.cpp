// Reading a capture's folder (shim/output/capture_files.hpp writes it).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <simdjson.h>

#include <fstream>
#include <iterator>

#include "clprof/cl_text.hpp"

#include "readers/json_fields.hpp"
#include "replay/replay.hpp"

namespace clprof::replay {
namespace {

namespace dom = simdjson::dom;

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReplayError(path + ": cannot read " + what + " (missing or unreadable)");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Manifest : readers::JsonFields {
  explicit Manifest(std::string p) : path(std::move(p)) {}
  std::string path;
  [[noreturn]] void bad(const std::string& why) const override {
    throw ReplayError(path + ": damaged capture manifest: " + why);
  }
  // The value of the word at `key` in `table` (cl_text's words).
  template <size_t N>
  unsigned word(dom::element obj, const char* key, const cl_text::Word (&table)[N]) const {
    const std::string w = str(obj, key);
    const std::optional<unsigned> v = cl_text::value_of(table, w);
    if (!v) {
      std::string words;
      for (const cl_text::Word& t : table)
        words += (words.empty() ? "" : ", ") + std::string(t.word);
      bad(std::string("\"") + key + "\" is \"" + w + "\", not one of " + words);
    }
    return *v;
  }
  std::vector<uint64_t> sizes(dom::element v, const char* key, unsigned dims) const {
    dom::array a;
    if (v.get(a)) bad(std::string("\"") + key + "\" is not an array");
    std::vector<uint64_t> out;
    for (dom::element e : a) {
      uint64_t x;
      if (e.get(x)) bad(std::string("\"") + key + "\" holds a value that is not a whole number");
      out.push_back(x);
    }
    if (out.size() != dims) bad(std::string("\"") + key + "\" does not have work_dim values");
    return out;
  }
};

std::vector<unsigned char> hex_bytes(const Manifest& m, const std::string& hex) {
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    m.bad("a scalar's \"hex\" is not hexadecimal");
  };
  if (hex.size() % 2) m.bad("a scalar's \"hex\" has an odd length");
  std::vector<unsigned char> out;
  for (size_t i = 0; i < hex.size(); i += 2)
    out.push_back(static_cast<unsigned char>(digit(hex[i]) * 16 + digit(hex[i + 1])));
  return out;
}

// A memory object's contents file: `key` ("before" or "after") of `entry`, `bytes` long.
// False when `key` is null (nothing captured).
bool read_contents(const Manifest& m, const std::string& dir, dom::element entry, const char* key,
                   const char* what, uint64_t bytes, std::vector<unsigned char>& out) {
  const dom::element v = m.at(entry, key);
  if (v.is_null()) return false;
  std::string_view name;
  if (v.get(name)) m.bad(std::string("a ") + what + "'s \"" + key + "\" is not a string");
  const std::string file = dir + "/" + std::string(name);
  const std::string data =
      read_file(file, std::string("a ") + what + "'s contents " + key + " the launch");
  if (data.size() != bytes)
    throw ReplayError(file + ": damaged capture: " + std::to_string(data.size()) + " bytes, the " +
                      what + " has " + std::to_string(bytes));
  out.assign(data.begin(), data.end());
  return true;
}

CapturedImage read_image(const Manifest& m, const std::string& dir, dom::element e) {
  CapturedImage img;
  img.type = m.word(e, "type", cl_text::kImageTypes);
  img.channel_order = static_cast<unsigned>(m.uint(e, "channel_order"));
  img.channel_type = static_cast<unsigned>(m.uint(e, "channel_type"));
  img.element_size = m.uint(e, "element_size");
  img.width = m.uint(e, "width");
  img.height = m.uint(e, "height");
  img.depth = m.uint(e, "depth");
  img.array_size = m.uint(e, "array_size");
  img.bytes = m.uint(e, "bytes");
  img.flags = m.uint(e, "flags");
  // The file's bytes must be the format's size over the region: checked without overflow
  // (a hostile manifest's sizes are arbitrary).
  size_t region[3];
  cl_text::image_region(img.type, img.width, img.height, img.depth, img.array_size, region);
  uint64_t bytes = img.element_size;
  for (size_t d : region)
    if (d == 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      m.bad("an image's size is zero or too large");
  if (img.element_size == 0 || img.element_size > 16)
    m.bad("an image's \"element_size\" is not 1 to 16 bytes");
  if (bytes != img.bytes)
    m.bad(
        "an image's \"bytes\" is not element_size times its width, height, depth and "
        "array_size");
  if (!read_contents(m, dir, e, "before", "image", img.bytes, img.before))
    m.bad("an image has no \"before\" contents");
  img.has_after = read_contents(m, dir, e, "after", "image", img.bytes, img.after);
  return img;
}

}  // namespace

Capture load_capture(const std::string& dir) {
  Capture c;
  c.dir = dir;
  Manifest m(dir + "/capture.json");
  const std::string text = read_file(m.path, "the capture manifest");
  dom::parser parser;
  const dom::element root = m.document(parser, text, "clprof-capture");
  c.id = m.uint(root, "id");
  c.kernel = m.str(root, "kernel");
  if (c.kernel.empty()) m.bad("empty \"kernel\"");
  const dom::element dev = m.at(root, "device");
  c.device_name = m.str(dev, "name");
  c.device_type = m.str(dev, "type");
  c.platform = m.str(dev, "platform");
  const dom::element prog = m.at(root, "program");
  c.origin = m.str(prog, "origin");
  c.options = m.str(prog, "options");
  const std::string program_file = dir + "/" + m.str(prog, "file");
  const std::string program = read_file(program_file, "the captured program");
  if (c.origin == "source") {
    c.source = program;
  } else if (c.origin == "binary") {
    c.binary.assign(program.begin(), program.end());
  } else {
    m.bad("program origin \"" + c.origin + "\" is neither source nor binary");
  }
  if (program.empty()) throw ReplayError(program_file + ": the captured program is empty");
  c.work_dim = static_cast<unsigned>(m.uint(root, "work_dim"));
  if (c.work_dim < 1 || c.work_dim > 3) m.bad("\"work_dim\" is not 1, 2 or 3");
  c.gws = m.sizes(m.at(root, "gws"), "gws", c.work_dim);
  const dom::element gwo = m.at(root, "gwo"), lws = m.at(root, "lws");
  if (!gwo.is_null()) c.gwo = m.sizes(gwo, "gwo", c.work_dim);
  if (!lws.is_null()) c.lws = m.sizes(lws, "lws", c.work_dim);
  dom::array bufs;
  if (m.at(root, "buffers").get(bufs)) m.bad("\"buffers\" is not an array");
  for (dom::element b : bufs) {
    CapturedBuffer buf;
    buf.bytes = m.uint(b, "bytes");
    buf.flags = m.uint(b, "flags");
    m.str(b, "before");
    buf.has_before = read_contents(m, dir, b, "before", "buffer", buf.bytes, buf.before);
    buf.has_after = read_contents(m, dir, b, "after", "buffer", buf.bytes, buf.after);
    c.buffers.push_back(std::move(buf));
  }
  // "images": absent in a capture without images (clprof before images were captured).
  dom::element images;
  if (!root.at_key("images").get(images)) {
    dom::array list;
    if (images.get(list)) m.bad("\"images\" is not an array");
    for (dom::element e : list) c.images.push_back(read_image(m, dir, e));
  }
  dom::array args;
  if (m.at(root, "args").get(args)) m.bad("\"args\" is not an array");
  for (dom::element a : args) {
    CapturedArg arg;
    arg.kind = m.str(a, "kind");
    arg.size = static_cast<uint32_t>(m.uint(a, "size"));
    arg.type = m.str(a, "type");
    if (arg.kind == "scalar") {
      arg.bytes = hex_bytes(m, m.str(a, "hex"));
      if (arg.bytes.size() != arg.size) m.bad("a scalar's \"hex\" does not hold \"size\" bytes");
    } else if (arg.kind == "buffer") {
      const dom::element b = m.at(a, "buffer");
      if (!b.is_null()) {
        uint64_t index;
        if (b.get(index) || index >= c.buffers.size()) m.bad("an argument names no buffer");
        arg.buffer = static_cast<int>(index);
        arg.offset = m.uint(a, "offset");
        arg.bytes_used = m.uint(a, "bytes");
        if (arg.offset + arg.bytes_used > c.buffers[index].bytes || arg.bytes_used == 0)
          m.bad("an argument's part lies outside its buffer");
      }
    } else if (arg.kind == "image") {
      uint64_t index = m.uint(a, "image");
      if (index >= c.images.size()) m.bad("an argument names no image");
      arg.image = static_cast<int>(index);
    } else if (arg.kind == "sampler") {
      arg.normalized = m.boolean(a, "normalized");
      arg.addressing = m.word(a, "addressing", cl_text::kAddressingModes);
      arg.filter = m.word(a, "filter", cl_text::kFilterModes);
    } else if (arg.kind != "local") {
      m.bad("argument kind \"" + arg.kind + "\" is not scalar, buffer, local, image or sampler");
    }
    c.args.push_back(std::move(arg));
  }
  const dom::element rec = m.at(root, "recorded_ns");
  if (!rec.is_null()) {
    int64_t ns;
    if (rec.get(ns)) m.bad("\"recorded_ns\" is not a number");
    c.recorded_ns = ns;
  }
  return c;
}

}  // namespace clprof::replay
