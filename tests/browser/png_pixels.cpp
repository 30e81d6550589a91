#include "png_pixels.hpp"

#include <png.h>

#include <cstring>
#include <unordered_set>

namespace browser_test {

size_t Image::count(uint32_t hex) const {
  const uint8_t r = hex >> 16, g = (hex >> 8) & 0xFF, b = hex & 0xFF;
  size_t n = 0;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3)
    n += rgb[i] == r && rgb[i + 1] == g && rgb[i + 2] == b;
  return n;
}

size_t Image::colours() const {
  std::unordered_set<uint32_t> seen;
  for (size_t i = 0; i + 2 < rgb.size(); i += 3)
    seen.insert(uint32_t{rgb[i]} << 16 | uint32_t{rgb[i + 1]} << 8 | rgb[i + 2]);
  return seen.size();
}

Image read_png(const std::string& path, std::string& error) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    error = image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGB;
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) {
    error = image.message;
    out.rgb.clear();
    return out;
  }
  out.width = image.width;
  out.height = image.height;
  return out;
}

}  // namespace browser_test
