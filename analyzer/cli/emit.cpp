#include "cli/emit.hpp"

#include <unistd.h>

#include <iostream>
#include <stdexcept>

#include "output/log.hpp"
#include "output/terminal.hpp"

namespace clprof::cli {

OutputStream::OutputStream(const std::string& path) : path_(path), out_(&std::cout) {
  if (path_.empty()) return;
  file_ = std::make_unique<std::ofstream>(path_, std::ios::binary);
  if (!*file_) throw std::runtime_error("cannot open '" + path_ + "' for writing");
  out_ = file_.get();
}

OutputStream::~OutputStream() = default;

void OutputStream::write(std::string_view text) {
  out_->write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!*out_)
    throw std::runtime_error(path_.empty() ? "cannot write to stdout"
                                           : "cannot write '" + path_ + "'");
}

void OutputStream::finish() {
  out_->flush();
  if (file_) file_->close();
  if (!*out_)
    throw std::runtime_error(path_.empty() ? "cannot write to stdout"
                                           : "cannot write '" + path_ + "'");
}

void emit(const output::Result& result, const Request& request) {
  log::progress_clear();  // "analysing..." ends where the output begins
  OutputStream out(request.output);
  output::RenderOptions o;
  o.format = request.format;
  o.wide = request.wide;
  o.width = output::table_width(out.to_stdout() ? STDOUT_FILENO : -1);
  output::render(result, o, [&out](std::string_view s) { out.write(s); });
  out.finish();
}

void emit_text(const std::string& text, const Request& request) {
  log::progress_clear();
  OutputStream out(request.output);
  out.write(text);
  out.finish();
}

}  // namespace clprof::cli
