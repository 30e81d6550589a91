// CLPROF_CAPTURE: which launches to capture for `clprof replay`, and the capture itself
// as plain facts (the program, every argument, the contents of every buffer argument
// before the launch and after it). Output writes them (output/capture_files.hpp); the
// launch hook drives both (entry/capture_launch.cpp). docs/replay.md.
//
// How a capture stays invisible to the app: it waits (clWaitForEvents on the app's wait
// list, then clFinish on the app's queue), reads buffers with blocking reads on a private
// queue of its own (same context and device, made and released within the capture, so
// the context's reference count is back where it was when the hook returns), and waits
// for the launch's event. The app's queue gets no command of clprof's, its events are
// untouched (a captured launch's event is complete when the enqueue returns), and no
// app object is retained or released.
//
// Threads: any app thread. capture_claim is cheap while off (one relaxed load); a
// capture holds one process-wide mutex from its claim to the end of its files (captures
// are serialised: their order of ids is their launch records' order).
// Images are read with clEnqueueReadImage on the same private queue, samplers answer
// clGetSamplerInfo (neither is retained).
// Ownership: CaptureFacts own their bytes. Units: bytes, ns, pixels.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "recording/kernels.hpp"

namespace clprof::shim {

// One buffer a launch's arguments use: a whole buffer made by the app (a sub-buffer's
// parent: arguments name their part of it by offset and size).
struct CapturedBuffer {
  std::uint64_t mem_id = 0;  // clprof id (0: not seen being made)
  std::uint64_t bytes = 0;
  std::uint64_t flags = 0;  // CL_MEM_FLAGS as made
  std::vector<unsigned char> before, after;
  bool has_after = false;
};

// One image a launch's arguments use. Its contents are packed whatever the driver's
// pitches: rows of width * element_size bytes, then rows of the next slice or layer
// (clEnqueueReadImage with row and slice pitch 0 over cl_text::image_region).
struct CapturedImage {
  std::uint64_t mem_id = 0;  // clprof id (0: not seen being made)
  std::uint64_t flags = 0;   // CL_MEM_FLAGS as made
  unsigned type = 0;         // CL_MEM_OBJECT_IMAGE2D, ... (cl_text::kImageTypes)
  unsigned channel_order = 0, channel_type = 0;                    // its cl_image_format
  std::uint64_t element_size = 0;                                  // bytes per pixel
  std::uint64_t width = 0, height = 0, depth = 0, array_size = 0;  // clGetImageInfo's
  size_t region[3]{};                                              // cl_text::image_region
  std::uint64_t bytes = 0;  // element_size * region[0] * region[1] * region[2]
  std::vector<unsigned char> before, after;
  bool has_after = false;
};

// One argument as the launch used it.
struct CapturedArg {
  ArgKind kind = ArgKind::Unset;     // Scalar, Buffer (buffer -1: NULL), Image, Sampler or Local
  std::uint32_t size = 0;            // arg_size as set
  std::vector<unsigned char> bytes;  // Scalar: its bytes
  int buffer = -1;                   // Buffer: index into CaptureFacts::buffers
  std::uint64_t offset = 0;          // Buffer: where the argument's part begins in it
  std::uint64_t bytes_used = 0;      // Buffer: the part's size (the sub-buffer's, or all)
  int image = -1;                    // Image: index into CaptureFacts::images
  // Sampler: its CL_SAMPLER_NORMALIZED_COORDS, _ADDRESSING_MODE and _FILTER_MODE.
  bool normalized = false;
  unsigned addressing = 0, filter = 0;
  std::string type_name;  // CL_KERNEL_ARG_TYPE_NAME, "" if unknown
};

struct CaptureFacts {
  std::uint64_t id = 0;  // 1, 2, ... in the process; the launch record's `capture`
  std::string kernel;
  std::string status = "captured";  // captured, refused, failed (trace_schema.hpp capture)
  std::string reason;
  // The program: its source, or (made from a binary) the device's binary.
  std::string origin;  // "source" or "binary"
  std::string source;
  std::vector<unsigned char> binary;
  std::string options;  // CL_PROGRAM_BUILD_OPTIONS for the device
  std::string device_name, device_vendor, device_version, driver_version, platform_name;
  std::string device_type;  // CPU, GPU, ACCELERATOR, ...
  std::uint64_t device_id = 0, kernel_id = 0, program_id = 0;
  unsigned work_dim = 0;
  bool has_gwo = false, has_lws = false;
  std::uint64_t gwo[3]{}, gws[3]{}, lws[3]{};
  std::vector<CapturedArg> args;
  std::vector<CapturedBuffer> buffers;
  std::vector<CapturedImage> images;
  std::int64_t recorded_ns = -1;  // CL_PROFILING_COMMAND_END - START; -1 unknown
  bool captured() const { return status == "captured"; }
};

// 0 unset/unknown, 1 off for the process, 2 on.
extern std::atomic<int> g_capture_state;

// The id of a new capture when this launch of `kernel` is to be captured (CLPROF_CAPTURE
// matches its name and the name has had fewer than CLPROF_CAPTURE_LIMIT captures), else 0.
// On a non-zero id the caller holds capture_mutex() (locked here) until it unlocks it.
std::uint64_t capture_claim_slow(cl_kernel kernel);
inline std::uint64_t capture_claim(cl_kernel kernel) {
  if (__builtin_expect(g_capture_state.load(std::memory_order_relaxed) == 1, 1)) return 0;
  return capture_claim_slow(kernel);
}
std::mutex& capture_mutex();

// Turns capture off for the rest of the process with one warning (our own failure).
void capture_disable(const std::string& why);

// One capture, on the launching thread, between claim and the files.
class LaunchCapture {
 public:
  LaunchCapture(std::uint64_t id, cl_command_queue queue, cl_kernel kernel, const KernelInfo& k);
  ~LaunchCapture();
  LaunchCapture(const LaunchCapture&) = delete;
  LaunchCapture& operator=(const LaunchCapture&) = delete;

  // Before the real enqueue: gathers the program and arguments, waits for the launch's
  // prerequisites and reads its buffers. False: not captured (facts.status says why);
  // the launch then goes ahead as usual.
  bool before(cl_uint work_dim, const size_t* gwo, const size_t* gws, const size_t* lws,
              cl_uint num_events, const cl_event* wait_list);
  // After a successful real enqueue of a launch before() accepted: waits for `event` (the
  // launch's) and reads the buffers again.
  void after(cl_event event);

  CaptureFacts facts;

 private:
  bool refuse(const std::string& why);
  bool fail(const std::string& why, cl_int rc);
  bool read_buffers(bool after);
  bool read_images(bool after);
  // `out` resized to `bytes` for a copy of `what`; false (failed) when memory runs out.
  bool make_room(std::vector<unsigned char>& out, std::uint64_t bytes, const std::string& what);
  // Argument `i`'s image (facts.images' index in c.image) or sampler; false: refused.
  bool take_image(cl_mem mem, const std::string& what, CapturedArg& c);
  bool take_sampler(cl_sampler sampler, const std::string& what, CapturedArg& c);

  cl_command_queue queue_;
  cl_kernel kernel_;
  const KernelInfo& info_;
  cl_context context_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_command_queue private_queue_ = nullptr;
  std::vector<cl_mem> roots_;   // facts.buffers' handles (the app's, not retained)
  std::vector<cl_mem> images_;  // facts.images' handles (the app's, not retained)
};

}  // namespace clprof::shim
