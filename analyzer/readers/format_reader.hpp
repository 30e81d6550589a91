// A Reader made of an input format's two functions and its names: the importers (armnn/,
// caffe/, chrome/, dvdt_prof/) declare no class of their own, only their `*_reader()`
// instance, and define their sniff and read functions beside it.
//
// Threads: stateless and immutable; one instance serves any number of threads.
#pragma once

#include <string>
#include <string_view>

#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::readers {

class FormatReader final : public Reader {
 public:
  using Sniff = bool (*)(std::string_view head);
  using Read = void (*)(const std::string& path, std::string_view content, model::Run& run,
                        Diagnostics& diagnostics);
  // `name` and `description`: string literals (they are kept as views).
  FormatReader(std::string_view name, std::string_view description, Sniff sniff, Read read)
      : name_(name), description_(description), sniff_(sniff), read_(read) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  bool sniff(std::string_view head) const override { return sniff_(head); }
  void read(const std::string& path, std::string_view content, model::Run& run,
            Diagnostics& diagnostics) const override {
    read_(path, content, run, diagnostics);
  }

 private:
  std::string_view name_, description_;
  Sniff sniff_;
  Read read_;
};

}  // namespace clprof::readers
