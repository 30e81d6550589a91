// Storing --sweep local's result beside its capture (replay.hpp store_sweep); the readers
// read it back (readers/sweeps.hpp).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <fstream>

#include "replay/replay.hpp"

namespace clprof::replay {

std::string store_sweep(const Capture& c, const Outcome& out, unsigned repeat) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  auto text = [&](const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  text("format", "clprof-sweep");
  w.Key("version");
  w.Uint(1);
  w.Key("capture");
  w.Uint64(c.id);
  text("kernel", c.kernel);
  text("device", out.device);
  w.Key("repeat");
  w.Uint(repeat);
  w.Key("candidates");
  w.StartArray();
  for (const Candidate& k : out.candidates) {
    w.StartObject();
    w.Key("lws");
    if (k.lws) {
      w.StartArray();
      for (uint64_t x : *k.lws) w.Uint64(x);
      w.EndArray();
    } else {
      w.Null();
    }
    w.Key("median_ns");
    w.Int64(k.median_ns);
    w.Key("min_ns");
    w.Int64(k.min_ns);
    w.Key("verified");
    if (k.verified) {
      w.Bool(*k.verified);
    } else {
      w.Null();
    }
    w.Key("app");
    w.Bool(k.app);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  // Written whole to a temporary name, then renamed: a reader never sees half a file.
  const std::string path = c.dir + "/sweep.json", tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(sb.GetString(), static_cast<std::streamsize>(sb.GetSize()));
    f << '\n';
    if (!f.flush()) throw ReplayError(tmp + ": cannot write the sweep's result");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw ReplayError(path + ": cannot write the sweep's result");
  return path;
}

}  // namespace clprof::replay
