// Reading a capture's folder (shim/output/capture_files.hpp writes it).
#include <simdjson.h>

#include <fstream>
#include <iterator>

#include "replay/replay.hpp"

namespace clprof::replay {
namespace {

namespace dom = simdjson::dom;

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReplayError(path + ": cannot read " + what + " (missing or unreadable)");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Manifest {
  std::string path;
  [[noreturn]] void bad(const std::string& why) const {
    throw ReplayError(path + ": damaged capture manifest: " + why);
  }
  dom::element at(dom::element obj, const char* key) const {
    dom::element v;
    if (obj.at_key(key).get(v)) bad(std::string("no \"") + key + "\"");
    return v;
  }
  std::string str(dom::element obj, const char* key) const {
    std::string_view s;
    if (at(obj, key).get(s)) bad(std::string("\"") + key + "\" is not a string");
    return std::string(s);
  }
  uint64_t uint(dom::element obj, const char* key) const {
    uint64_t x;
    if (at(obj, key).get(x)) bad(std::string("\"") + key + "\" is not a whole number");
    return x;
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

}  // namespace

Capture load_capture(const std::string& dir) {
  Capture c;
  c.dir = dir;
  Manifest m{dir + "/capture.json"};
  const std::string text = read_file(m.path, "the capture manifest");
  dom::parser parser;
  dom::element root;
  if (auto e = parser.parse(text).get(root)) m.bad(simdjson::error_message(e));
  if (m.str(root, "format") != "clprof-capture") m.bad("\"format\" is not \"clprof-capture\"");
  if (m.uint(root, "version") != 1)
    m.bad("unsupported version " + std::to_string(m.uint(root, "version")) +
          " (this clprof reads 1)");
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
    const std::string before = m.str(b, "before");
    const std::string file = dir + "/" + before;
    std::string data = read_file(file, "a buffer's contents before the launch");
    if (data.size() != buf.bytes)
      throw ReplayError(file + ": damaged capture: " + std::to_string(data.size()) +
                        " bytes, the buffer has " + std::to_string(buf.bytes));
    buf.before.assign(data.begin(), data.end());
    buf.has_before = true;
    const dom::element after = m.at(b, "after");
    if (!after.is_null()) {
      std::string_view name;
      if (after.get(name)) m.bad("a buffer's \"after\" is not a string");
      const std::string afile = dir + "/" + std::string(name);
      data = read_file(afile, "a buffer's contents after the launch");
      if (data.size() != buf.bytes)
        throw ReplayError(afile + ": damaged capture: " + std::to_string(data.size()) +
                          " bytes, the buffer has " + std::to_string(buf.bytes));
      buf.after.assign(data.begin(), data.end());
      buf.has_after = true;
    }
    c.buffers.push_back(std::move(buf));
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
    } else if (arg.kind != "local") {
      m.bad("argument kind \"" + arg.kind + "\" is not scalar, buffer or local");
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
