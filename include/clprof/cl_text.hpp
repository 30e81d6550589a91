// Small OpenCL helpers the shim's capture (shim/recording/capture.cpp) and the
// analyzer's replay (analyzer/replay/run.cpp) share: a string query's answer, a device
// type's word, the capture manifest's words for image types, addressing and filter modes
// (docs/replay.md), and an image's region. Header-only; the caller includes CL/cl.h first.
// Threads: any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clprof::cl_text {

// The text a clGet*Info string query answers (without its terminating NULs), or "" when it
// fails. `get(size, value, size_ret)` makes the query (a lambda over the real function).
template <class Get>
std::string info_text(Get get) {
  size_t n = 0;
  if (get(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (get(n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// "GPU", "CPU", "ACCELERATOR", "CUSTOM" or "DEFAULT" (the trace's device_type words).
inline const char* device_type_word(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  if (t & CL_DEVICE_TYPE_CUSTOM) return "CUSTOM";
  return "DEFAULT";
}

// One OpenCL enum value and its word in the capture manifest.
struct Word {
  unsigned value;
  const char* word;
};

// The image types a capture keeps (an image made from a buffer, CL_MEM_OBJECT_IMAGE1D_BUFFER,
// is refused).
inline constexpr Word kImageTypes[] = {{CL_MEM_OBJECT_IMAGE1D, "image1d"},
                                       {CL_MEM_OBJECT_IMAGE1D_ARRAY, "image1d_array"},
                                       {CL_MEM_OBJECT_IMAGE2D, "image2d"},
                                       {CL_MEM_OBJECT_IMAGE2D_ARRAY, "image2d_array"},
                                       {CL_MEM_OBJECT_IMAGE3D, "image3d"}};
inline constexpr Word kAddressingModes[] = {{CL_ADDRESS_NONE, "none"},
                                            {CL_ADDRESS_CLAMP_TO_EDGE, "clamp_to_edge"},
                                            {CL_ADDRESS_CLAMP, "clamp"},
                                            {CL_ADDRESS_REPEAT, "repeat"},
                                            {CL_ADDRESS_MIRRORED_REPEAT, "mirrored_repeat"}};
inline constexpr Word kFilterModes[] = {{CL_FILTER_NEAREST, "nearest"},
                                        {CL_FILTER_LINEAR, "linear"}};

// The word of `value` in `table`, or nullptr when it has none.
template <size_t N>
const char* word_of(const Word (&table)[N], unsigned value) {
  for (const Word& w : table)
    if (w.value == value) return w.word;
  return nullptr;
}

// The value of `word` in `table`, or nullopt when it is none of them.
template <size_t N>
std::optional<unsigned> value_of(const Word (&table)[N], std::string_view word) {
  for (const Word& w : table)
    if (word == w.word) return w.value;
  return std::nullopt;
}

// The region (in pixels, rows, slices or layers) a whole image of `type` covers, as
// clEnqueueReadImage and clEnqueueWriteImage take it: {width, 1, 1} for 1-D, {width,
// array_size, 1} for a 1-D array, {width, height, 1} for 2-D, {width, height, array_size}
// for a 2-D array, {width, height, depth} for 3-D. False for another type.
inline bool image_region(unsigned type, std::uint64_t width, std::uint64_t height,
                         std::uint64_t depth, std::uint64_t array_size, size_t region[3]) {
  region[0] = static_cast<size_t>(width);
  region[1] = region[2] = 1;
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D:
      return true;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
      region[1] = static_cast<size_t>(array_size);
      return true;
    case CL_MEM_OBJECT_IMAGE2D:
      region[1] = static_cast<size_t>(height);
      return true;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      region[1] = static_cast<size_t>(height);
      region[2] = static_cast<size_t>(array_size);
      return true;
    case CL_MEM_OBJECT_IMAGE3D:
      region[1] = static_cast<size_t>(height);
      region[2] = static_cast<size_t>(depth);
      return true;
    default:
      return false;
  }
}

}  // namespace clprof::cl_text
