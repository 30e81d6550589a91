#include "readers/reader.hpp"

#include <utility>

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

}  // namespace clprof::readers
