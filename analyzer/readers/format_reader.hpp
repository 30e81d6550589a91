// A Reader made of an input format's two functions and its names: the importers (armnn/,
// caffe/, chrome/, dvdt_prof/) declare no class of their own, only their sniff and read
// functions; registry.cpp makes their `*_reader()` instances of them. Every input is
// checked to be text (import_json::check_input) before the format's read function sees it.
//
// Threads: stateless and immutable; one instance serves any number of threads.
#pragma once

#include <string>
#include <string_view>

#include "model.hpp"
#include "readers/import_json.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

class FormatReader final : public Reader {
 public:
  using Sniff = bool (*)(std::string_view head);
  using Read = void (*)(const import_json::Source& source, model::Run& run,
                        Diagnostics& diagnostics);
  // `name` and `description`: string literals (they are kept as views).
  constexpr FormatReader(std::string_view name, std::string_view description, Sniff sniff,
                         Read read)
      : name_(name), description_(description), sniff_(sniff), read_(read) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  bool sniff(std::string_view head) const override { return sniff_(head); }
  void read(const std::string& path, std::string_view content, model::Run& run,
            Diagnostics& diagnostics) const override {
    const import_json::Source source{path, content};
    import_json::check_input(source);
    read_(source, run, diagnostics);
  }

 private:
  std::string_view name_, description_;
  Sniff sniff_;
  Read read_;
};

}  // namespace clprof::readers
