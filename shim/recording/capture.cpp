#include "recording/capture.hpp"

#include <dlfcn.h>
#include <re2/re2.h>

#include <map>
#include <new>

#include "clprof/cl_text.hpp"

#include "base/log.hpp"
#include "base/process_settings.hpp"
#include "base/real_opencl.hpp"
#include "recording/memory.hpp"

namespace clprof::shim {

std::atomic<int> g_capture_state{0};

namespace {

// RE2 without a link-time dependency: libclprof.so must load into every app with no
// library of its own (and cost nothing while CLPROF_CAPTURE is unset), so libre2.so.9 is
// opened only when a pattern is given, and its two entry points are found by name.
struct Re2Api {
  using Construct = void (*)(re2::RE2*, const char*);
  using Partial = bool (*)(const re2::StringPiece&, const re2::RE2&, const re2::RE2::Arg* const[],
                           int);
  Construct construct = nullptr;
  Partial partial = nullptr;
  alignas(re2::RE2) unsigned char storage[sizeof(re2::RE2)];
  re2::RE2* re = nullptr;  // constructed in storage, never destroyed (process lifetime)
};

Re2Api* g_re2 = nullptr;  // set once under capture_mutex

struct Counts {
  std::map<std::string, std::uint64_t> per_name;
  std::uint64_t next_id = 0;
};
Counts& counts() {
  static auto* c = new Counts;  // leaked: hooks may run during static destruction
  return *c;
}

// Opens RE2 and compiles CLPROF_CAPTURE; false (with `why`) when it cannot.
bool compile_pattern(const std::string& pattern, std::string& why) {
  void* lib = dlopen("libre2.so.9", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libre2.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = "CLPROF_CAPTURE needs RE2 (libre2.so.9, Debian libre2-9), which cannot be loaded";
    return false;
  }
  auto* api = new (std::nothrow) Re2Api;
  if (!api) return false;
  api->construct = reinterpret_cast<Re2Api::Construct>(real_dlsym(lib, "_ZN3re23RE2C1EPKc"));
  api->partial = reinterpret_cast<Re2Api::Partial>(
      real_dlsym(lib, "_ZN3re23RE213PartialMatchNERKNS_11StringPieceERKS0_PKPKNS0_3ArgEi"));
  if (!api->construct || !api->partial) {
    why = "CLPROF_CAPTURE: this libre2 lacks RE2::RE2(const char*) or RE2::PartialMatchN";
    return false;
  }
  api->construct(reinterpret_cast<re2::RE2*>(api->storage), pattern.c_str());
  api->re = reinterpret_cast<re2::RE2*>(api->storage);
  if (!api->re->ok()) {
    why = "CLPROF_CAPTURE is not a valid regular expression (" + api->re->error() + ")";
    return false;
  }
  g_re2 = api;
  return true;
}

bool name_matches(const std::string& name) {
  const re2::StringPiece text(name.data(), name.size());
  return g_re2->partial(text, *g_re2->re, nullptr, 0);
}

std::string kernel_name(cl_kernel kernel) {
  return cl_text::info_text([&](size_t n, void* v, size_t* r) {
    return real().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, n, v, r);
  });
}

std::string device_text(cl_device_id d, cl_device_info what) {
  return cl_text::info_text(
      [&](size_t n, void* v, size_t* r) { return real().clGetDeviceInfo(d, what, n, v, r); });
}

std::string arg_name(unsigned i, const std::string& type_name) {
  return "argument " + std::to_string(i) + (type_name.empty() ? "" : " (" + type_name + ")");
}

}  // namespace

std::mutex& capture_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

void capture_disable(const std::string& why) {
  g_capture_state.store(1, std::memory_order_relaxed);
  log_message(LogLevel::Warn, "capture is off for the rest of the run: %s", why.c_str());
}

std::uint64_t capture_claim_slow(cl_kernel kernel) {
  KernelInfo* info = kernel_info(kernel);
  if (!info) return 0;
  KernelInfo& k = *info;
  std::unique_lock<std::mutex> lock(capture_mutex());
  int state = g_capture_state.load(std::memory_order_relaxed);
  if (state == 0) {
    const std::string& pattern = settings().capture;
    std::string why;
    if (pattern.empty()) {
      state = 1;
    } else if (compile_pattern(pattern, why)) {
      state = 2;
    } else {
      state = 1;
      log_message(LogLevel::Warn, "%s: nothing is captured", why.c_str());
    }
    g_capture_state.store(state, std::memory_order_relaxed);
  }
  if (state != 2) return 0;
  const std::string name = kernel_name(kernel);
  if (k.capture_match == 0) k.capture_match = !name.empty() && name_matches(name) ? 2 : 1;
  if (k.capture_match != 2) return 0;
  std::uint64_t& n = counts().per_name[name];
  if (n >= settings().capture_limit) return 0;
  ++n;
  lock.release();  // the caller unlocks once the capture's files are written
  return ++counts().next_id;
}

LaunchCapture::LaunchCapture(std::uint64_t id, cl_command_queue queue, cl_kernel kernel,
                             const KernelInfo& k)
    : queue_(queue), kernel_(kernel), info_(k) {
  facts.id = id;
  facts.kernel = kernel_name(kernel);
  facts.kernel_id = k.id;
  facts.program_id = k.program_id;
}

LaunchCapture::~LaunchCapture() {
  if (private_queue_) real().clReleaseCommandQueue(private_queue_);
}

bool LaunchCapture::refuse(const std::string& why) {
  facts.status = "refused";
  facts.reason = why;
  return false;
}

bool LaunchCapture::fail(const std::string& why, cl_int rc) {
  facts.status = "failed";
  facts.reason = why + " (OpenCL error " + std::to_string(rc) + ")";
  capture_disable("capture " + std::to_string(facts.id) + " of " + facts.kernel + ": " +
                  facts.reason);
  return false;
}

bool LaunchCapture::before(cl_uint work_dim, const size_t* gwo, const size_t* gws,
                           const size_t* lws, cl_uint num_events, const cl_event* wait_list) {
  const RealTable& cl = real();
  cl_int rc =
      cl.clGetCommandQueueInfo(queue_, CL_QUEUE_CONTEXT, sizeof context_, &context_, nullptr);
  if (rc == CL_SUCCESS)
    rc = cl.clGetCommandQueueInfo(queue_, CL_QUEUE_DEVICE, sizeof device_, &device_, nullptr);
  if (rc != CL_SUCCESS) return refuse("its queue answers no context or device");
  if (work_dim < 1 || work_dim > 3 || !gws) return refuse("work_dim is not 1 to 3");
  facts.work_dim = work_dim;
  facts.has_gwo = gwo != nullptr;
  facts.has_lws = lws != nullptr;
  for (unsigned d = 0; d < work_dim; ++d) {
    facts.gws[d] = gws[d];
    facts.gwo[d] = gwo ? gwo[d] : 0;
    facts.lws[d] = lws ? lws[d] : 0;
  }

  // The device.
  facts.device_name = device_text(device_, CL_DEVICE_NAME);
  facts.device_vendor = device_text(device_, CL_DEVICE_VENDOR);
  facts.device_version = device_text(device_, CL_DEVICE_VERSION);
  facts.driver_version = device_text(device_, CL_DRIVER_VERSION);
  cl_device_type type = 0;
  cl.clGetDeviceInfo(device_, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  facts.device_type = cl_text::device_type_word(type);
  cl_platform_id platform = nullptr;
  if (cl.clGetDeviceInfo(device_, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) ==
      CL_SUCCESS) {
    facts.platform_name = cl_text::info_text([&](size_t n, void* v, size_t* r) {
      return cl.clGetPlatformInfo(platform, CL_PLATFORM_NAME, n, v, r);
    });
  }

  // The program: its source, else this device's binary; the options it was built with.
  cl_program program = nullptr;
  if (cl.clGetKernelInfo(kernel_, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr) !=
      CL_SUCCESS)
    return refuse("the kernel answers no program");
  facts.source = cl_text::info_text([&](size_t n, void* v, size_t* r) {
    return cl.clGetProgramInfo(program, CL_PROGRAM_SOURCE, n, v, r);
  });
  facts.options = cl_text::info_text([&](size_t n, void* v, size_t* r) {
    return cl.clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_OPTIONS, n, v, r);
  });
  if (!facts.source.empty()) {
    facts.origin = "source";
  } else {
    cl_uint ndev = 0;
    cl.clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, nullptr);
    std::vector<cl_device_id> devices(ndev);
    std::vector<size_t> sizes(ndev);
    if (ndev == 0 ||
        cl.clGetProgramInfo(program, CL_PROGRAM_DEVICES, ndev * sizeof(cl_device_id),
                            devices.data(), nullptr) != CL_SUCCESS ||
        cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(size_t), sizes.data(),
                            nullptr) != CL_SUCCESS)
      return refuse("the program has neither source nor binaries to keep");
    std::vector<std::vector<unsigned char>> bins(ndev);
    std::vector<unsigned char*> ptrs(ndev);
    for (cl_uint i = 0; i < ndev; ++i) {
      bins[i].resize(sizes[i]);
      ptrs[i] = bins[i].data();
    }
    if (cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, ndev * sizeof(unsigned char*),
                            ptrs.data(), nullptr) != CL_SUCCESS)
      return refuse("the program's binaries cannot be read");
    for (cl_uint i = 0; i < ndev; ++i)
      if (devices[i] == device_) facts.binary = std::move(bins[i]);
    if (facts.binary.empty())
      return refuse("the program has no source and no binary for the device");
    facts.origin = "binary";
  }

  // The arguments.
  const unsigned nargs = info_.num_args;
  if (nargs > kMaxRecordedArgs)
    return refuse("the kernel has " + std::to_string(nargs) + " arguments (at most " +
                  std::to_string(kMaxRecordedArgs) + " are captured)");
  for (unsigned i = 0; i < nargs; ++i) {
    const ArgSnapshot& a = info_.args[i];
    CapturedArg c;
    c.kind = a.kind;
    c.size = a.size;
    c.type_name = cl_text::info_text([&](size_t n, void* v, size_t* r) {
      return cl.clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_TYPE_NAME, n, v, r);
    });
    const std::string what = arg_name(i, c.type_name);
    if (c.type_name == "queue_t" || c.type_name == "clk_event_t")
      return refuse(what + " is a device queue: device-side enqueue is not captured");
    switch (a.kind) {
      case ArgKind::Unset:
        return refuse(what + " was never set");
      case ArgKind::Svm:
        return refuse(what + " is an SVM pointer: SVM is not captured");
      case ArgKind::Pipe:
        return refuse(what + " is a pipe: pipes are not captured");
      case ArgKind::Image:
        if (!take_image(static_cast<cl_mem>(const_cast<void*>(info_.handles[i])), what, c))
          return false;
        break;
      case ArgKind::Sampler:
        if (!take_sampler(static_cast<cl_sampler>(const_cast<void*>(info_.handles[i])), what, c))
          return false;
        break;
      case ArgKind::Local:
        break;
      case ArgKind::Scalar:
        if (a.size > trace::kMaxScalarBytes)
          return refuse(what + " is a " + std::to_string(a.size) + "-byte value (at most " +
                        std::to_string(trace::kMaxScalarBytes) + " are kept)");
        c.bytes.assign(a.bytes, a.bytes + a.size);
        break;
      case ArgKind::Buffer: {
        cl_mem mem = static_cast<cl_mem>(const_cast<void*>(info_.handles[i]));
        if (!mem) break;  // NULL buffer
        cl_mem_object_type mt = 0;
        cl_mem parent = nullptr;
        size_t offset = 0, size = 0;
        if (cl.clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof mt, &mt, nullptr) != CL_SUCCESS ||
            cl.clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr) != CL_SUCCESS)
          return refuse(what + ": its buffer answers no type or size");
        if (mt != CL_MEM_OBJECT_BUFFER) return refuse(what + " is not a buffer");
        cl.clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr);
        if (parent) cl.clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof offset, &offset, nullptr);
        cl_mem root = parent ? parent : mem;
        c.offset = offset;
        c.bytes_used = size;
        size_t b = 0;
        for (; b < roots_.size() && roots_[b] != root; ++b) {
        }
        if (b == roots_.size()) {
          CapturedBuffer buf;
          size_t root_size = 0;
          cl_mem_flags flags = 0;
          cl.clGetMemObjectInfo(root, CL_MEM_SIZE, sizeof root_size, &root_size, nullptr);
          cl.clGetMemObjectInfo(root, CL_MEM_FLAGS, sizeof flags, &flags, nullptr);
          if (flags & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY))
            return refuse(what +
                          ": its buffer was made host-unreadable (CL_MEM_HOST_NO_ACCESS "
                          "or CL_MEM_HOST_WRITE_ONLY)");
          MemInfo* m = mems().find(root);
          buf.mem_id = m ? m->id : 0;
          buf.bytes = root_size;
          buf.flags = flags;
          facts.buffers.push_back(std::move(buf));
          roots_.push_back(root);
        }
        c.buffer = static_cast<int>(b);
        break;
      }
    }
    facts.args.push_back(std::move(c));
  }

  // The launch's prerequisites: its wait list (never a user event still unset: waiting
  // for it here would wait for the app, which is inside this call) and its queue.
  for (cl_uint i = 0; i < num_events && wait_list; ++i) {
    cl_command_type ct = 0;
    cl_int st = CL_COMPLETE;
    cl.clGetEventInfo(wait_list[i], CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, nullptr);
    cl.clGetEventInfo(wait_list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
    if (ct == CL_COMMAND_USER && st > CL_COMPLETE)
      return refuse("its wait list holds a user event that is not set yet");
  }
  if (num_events && wait_list) {
    rc = cl.clWaitForEvents(num_events, wait_list);
    if (rc != CL_SUCCESS) return refuse("its wait list failed (" + std::to_string(rc) + ")");
  }
  rc = cl.clFinish(queue_);
  if (rc != CL_SUCCESS) return fail("clFinish on the app's queue failed", rc);
  if (!facts.buffers.empty() || !facts.images.empty()) {
    private_queue_ = cl.clCreateCommandQueue(context_, device_, 0, &rc);
    if (!private_queue_ || rc != CL_SUCCESS)
      return fail("a queue of clprof's own cannot be made", rc);
  }
  return read_buffers(false) && read_images(false);
}

bool LaunchCapture::take_image(cl_mem mem, const std::string& what, CapturedArg& c) {
  const RealTable& cl = real();
  if (!mem) return refuse(what + " is a NULL image");
  size_t b = 0;
  for (; b < images_.size() && images_[b] != mem; ++b) {
  }
  c.image = static_cast<int>(b);
  if (b < images_.size()) return true;  // the same image as an earlier argument
  CapturedImage img;
  cl_mem_object_type mt = 0;
  cl_mem parent = nullptr;
  cl_image_format format{};
  size_t element = 0, width = 0, height = 0, depth = 0, array_size = 0;
  cl_uint mips = 0;
  cl_mem_flags flags = 0;
  if (cl.clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof mt, &mt, nullptr) != CL_SUCCESS ||
      cl.clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof flags, &flags, nullptr) != CL_SUCCESS ||
      cl.clGetImageInfo(mem, CL_IMAGE_FORMAT, sizeof format, &format, nullptr) != CL_SUCCESS ||
      cl.clGetImageInfo(mem, CL_IMAGE_ELEMENT_SIZE, sizeof element, &element, nullptr) !=
          CL_SUCCESS ||
      cl.clGetImageInfo(mem, CL_IMAGE_WIDTH, sizeof width, &width, nullptr) != CL_SUCCESS ||
      cl.clGetImageInfo(mem, CL_IMAGE_HEIGHT, sizeof height, &height, nullptr) != CL_SUCCESS ||
      cl.clGetImageInfo(mem, CL_IMAGE_DEPTH, sizeof depth, &depth, nullptr) != CL_SUCCESS)
    return refuse(what + ": its image answers no type, format or size");
  // OpenCL 1.2's: a 1.1 driver has no arrays (0 then).
  cl.clGetImageInfo(mem, CL_IMAGE_ARRAY_SIZE, sizeof array_size, &array_size, nullptr);
  cl.clGetImageInfo(mem, CL_IMAGE_NUM_MIP_LEVELS, sizeof mips, &mips, nullptr);
  cl.clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr);
  if (!cl_text::word_of(cl_text::kImageTypes, mt))
    return refuse(what + " is an image of a kind not captured (a 1-D image made from a buffer)");
  if (parent)
    return refuse(what + " is an image made from a buffer or another image: not captured");
  if (mips > 1) return refuse(what + " is a mipmapped image: not captured");
  if (flags & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY))
    return refuse(what +
                  ": its image was made host-unreadable (CL_MEM_HOST_NO_ACCESS or "
                  "CL_MEM_HOST_WRITE_ONLY)");
  img.type = static_cast<unsigned>(mt);
  img.flags = flags;
  img.channel_order = format.image_channel_order;
  img.channel_type = format.image_channel_data_type;
  img.element_size = element;
  img.width = width;
  img.height = height;
  img.depth = depth;
  img.array_size = array_size;
  cl_text::image_region(img.type, width, height, depth, array_size, img.region);
  // The driver's sizes: their product checked for overflow, not trusted.
  std::uint64_t bytes = element;
  for (size_t d : img.region) {
    if (d == 0 || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes))
      return refuse(what + ": its image's size is zero or overflows");
  }
  img.bytes = bytes;
  MemInfo* m = mems().find(mem);
  img.mem_id = m ? m->id : 0;
  facts.images.push_back(std::move(img));
  images_.push_back(mem);
  return true;
}

bool LaunchCapture::take_sampler(cl_sampler sampler, const std::string& what, CapturedArg& c) {
  const RealTable& cl = real();
  cl_bool normalized = CL_FALSE;
  cl_addressing_mode addressing = 0;
  cl_filter_mode filter = 0;
  if (!sampler ||
      cl.clGetSamplerInfo(sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized,
                          nullptr) != CL_SUCCESS ||
      cl.clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof addressing, &addressing,
                          nullptr) != CL_SUCCESS ||
      cl.clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, nullptr) !=
          CL_SUCCESS)
    return refuse(what + ": its sampler answers no coordinates, addressing or filter mode");
  if (!cl_text::word_of(cl_text::kAddressingModes, addressing) ||
      !cl_text::word_of(cl_text::kFilterModes, filter))
    return refuse(what + ": its sampler has an addressing or filter mode not captured (" +
                  std::to_string(addressing) + ", " + std::to_string(filter) + ")");
  c.normalized = normalized != CL_FALSE;
  c.addressing = addressing;
  c.filter = filter;
  return true;
}

bool LaunchCapture::make_room(std::vector<unsigned char>& out, std::uint64_t bytes,
                              const std::string& what) {
  try {
    out.resize(bytes);
  } catch (const std::bad_alloc&) {
    return fail("no memory for a copy of " + what + " (" + std::to_string(bytes) + " bytes)",
                CL_OUT_OF_HOST_MEMORY);
  }
  return true;
}

bool LaunchCapture::read_images(bool after) {
  static const size_t kOrigin[3] = {0, 0, 0};
  for (size_t b = 0; b < images_.size(); ++b) {
    CapturedImage& img = facts.images[b];
    std::vector<unsigned char>& out = after ? img.after : img.before;
    const std::string what = "image " + std::to_string(b);
    if (!make_room(out, img.bytes, what)) return false;
    // Row and slice pitch 0: packed rows and slices, whatever the image's own pitches.
    const cl_int rc = real().clEnqueueReadImage(private_queue_, images_[b], CL_TRUE, kOrigin,
                                                img.region, 0, 0, out.data(), 0, nullptr, nullptr);
    if (rc != CL_SUCCESS)
      return fail("reading " + what + " (" + std::to_string(img.bytes) + " bytes) failed", rc);
    img.has_after = after;
  }
  return true;
}

bool LaunchCapture::read_buffers(bool after) {
  for (size_t b = 0; b < roots_.size(); ++b) {
    CapturedBuffer& buf = facts.buffers[b];
    std::vector<unsigned char>& out = after ? buf.after : buf.before;
    if (!make_room(out, buf.bytes, "buffer " + std::to_string(b))) return false;
    if (buf.bytes == 0) continue;
    const cl_int rc = real().clEnqueueReadBuffer(private_queue_, roots_[b], CL_TRUE, 0, buf.bytes,
                                                 out.data(), 0, nullptr, nullptr);
    if (rc != CL_SUCCESS)
      return fail("reading buffer " + std::to_string(b) + " (" + std::to_string(buf.bytes) +
                      " bytes) failed",
                  rc);
    buf.has_after = after;
  }
  return true;
}

void LaunchCapture::after(cl_event event) {
  const RealTable& cl = real();
  if (event) {
    const cl_int rc = cl.clWaitForEvents(1, &event);
    if (rc != CL_SUCCESS) {
      fail("the captured launch failed", rc);
      return;
    }
    cl_ulong start = 0, end = 0;
    if (cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                   nullptr) == CL_SUCCESS &&
        cl.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
            CL_SUCCESS &&
        end >= start)
      facts.recorded_ns = static_cast<std::int64_t>(end - start);
  } else {
    const cl_int rc = cl.clFinish(queue_);
    if (rc != CL_SUCCESS) {
      fail("clFinish after the captured launch failed", rc);
      return;
    }
  }
  if (read_buffers(true)) read_images(true);
}

}  // namespace clprof::shim
