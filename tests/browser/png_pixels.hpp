// Reading a PNG (a browser's screenshot) into RGB pixels with libpng, for the browser test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace browser_test {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
  // The number of pixels of exactly this colour.
  size_t count(uint32_t rgb_hex) const;
  // Distinct colours.
  size_t colours() const;
};

// Empty image (width 0) and `error` set when the file is not a readable PNG.
Image read_png(const std::string& path, std::string& error);

}  // namespace browser_test
