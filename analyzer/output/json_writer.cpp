#include "output/json_writer.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cmath>

namespace clprof::output {

struct JsonWriter::Impl {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer{buffer};
  Impl() { writer.SetIndent(' ', 2); }
};

JsonWriter::JsonWriter() : impl_(std::make_unique<Impl>()) {}
JsonWriter::~JsonWriter() = default;

void JsonWriter::begin_object() {
  impl_->writer.StartObject();
}
void JsonWriter::end_object() {
  impl_->writer.EndObject();
}
void JsonWriter::begin_array() {
  impl_->writer.StartArray();
}
void JsonWriter::end_array() {
  impl_->writer.EndArray();
}
void JsonWriter::key(std::string_view k) {
  impl_->writer.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()), true);
}
void JsonWriter::value(std::string_view v) {
  impl_->writer.String(v.data(), static_cast<rapidjson::SizeType>(v.size()), true);
}
void JsonWriter::value(int64_t v) {
  impl_->writer.Int64(v);
}
void JsonWriter::value(uint64_t v) {
  impl_->writer.Uint64(v);
}
void JsonWriter::value(double v) {
  if (std::isfinite(v))
    impl_->writer.Double(v);
  else
    impl_->writer.Null();
}
void JsonWriter::value(bool v) {
  impl_->writer.Bool(v);
}
void JsonWriter::null() {
  impl_->writer.Null();
}

std::string JsonWriter::str() const {
  return std::string(impl_->buffer.GetString(), impl_->buffer.GetSize()) + "\n";
}

std::string JsonWriter::drain() {
  std::string out(impl_->buffer.GetString(), impl_->buffer.GetSize());
  impl_->buffer.Clear();
  return out;
}

}  // namespace clprof::output
