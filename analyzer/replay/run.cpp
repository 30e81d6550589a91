// Running a capture on a device (replay.hpp).
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "clprof/cl_text.hpp"

#include "replay/replay.hpp"

namespace clprof::replay {
namespace {

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  std::string name, platform_name, type;
  std::string label() const { return name + " (" + platform_name + ", " + type + ")"; }
};

std::vector<Device> all_devices() {
  std::vector<Device> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
    const std::string pname = cl_text::info_text([&](size_t n, void* v, size_t* r) {
      return clGetPlatformInfo(p, CL_PLATFORM_NAME, n, v, r);
    });
    for (cl_device_id d : ids) {
      Device dev;
      dev.platform = p;
      dev.id = d;
      dev.platform_name = pname;
      dev.name = cl_text::info_text([&](size_t n, void* v, size_t* r) {
        return clGetDeviceInfo(d, CL_DEVICE_NAME, n, v, r);
      });
      cl_device_type t = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr);
      dev.type = cl_text::device_type_word(t);
      out.push_back(std::move(dev));
    }
  }
  return out;
}

std::string sizes_text(const std::optional<std::vector<uint64_t>>& v) {
  if (!v) return "NULL";
  std::string s;
  for (uint64_t x : *v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// The OpenCL objects of one replay, released in the destructor.
class Bench {
 public:
  Bench(const Capture& c, const Device& d) : c_(c), d_(d) {
    cl_int rc = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &rc);
    if (!context_) fail("cannot make a context", rc);
    queue_ = clCreateCommandQueue(context_, d.id, CL_QUEUE_PROFILING_ENABLE, &rc);
    if (!queue_) fail("cannot make a queue", rc);
    for (const CapturedBuffer& b : c.buffers) {
      if (b.bytes == 0) fail("a captured buffer is empty", CL_INVALID_BUFFER_SIZE);
      cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, b.bytes, nullptr, &rc);
      if (!m) fail("cannot make a buffer of " + std::to_string(b.bytes) + " bytes", rc);
      roots_.push_back(m);
    }
    for (const CapturedImage& img : c.images) {
      cl_image_format format{img.channel_order, img.channel_type};
      cl_image_desc desc{};
      desc.image_type = img.type;
      desc.image_width = img.width;
      desc.image_height = img.height;
      desc.image_depth = img.depth;
      desc.image_array_size = img.array_size;
      // The app's kernel access (read-only, write-only or both): the formats a device
      // supports may differ by access.
      const cl_mem_flags access =
          img.flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
      cl_mem m = clCreateImage(context_, access ? access : CL_MEM_READ_WRITE, &format, &desc,
                               nullptr, &rc);
      if (!m)
        fail("cannot make a " + std::string(cl_text::word_of(cl_text::kImageTypes, img.type)) +
                 " of " + std::to_string(img.width) + "x" + std::to_string(img.height) + "x" +
                 std::to_string(img.depth) + " (array " + std::to_string(img.array_size) +
                 ") in channel order " + std::to_string(img.channel_order) + ", type " +
                 std::to_string(img.channel_type),
             rc);
      images_.push_back(m);
    }
    for (const CapturedArg& a : c.args) {
      cl_mem m = nullptr;
      cl_sampler s = nullptr;
      if (a.kind == "image") m = images_[a.image];
      if (a.kind == "sampler") {
        s = clCreateSampler(context_, a.normalized ? CL_TRUE : CL_FALSE, a.addressing, a.filter,
                            &rc);
        if (!s) fail("cannot make the sampler of argument " + std::to_string(arg_mems_.size()), rc);
      }
      arg_samplers_.push_back(s);
      if (a.kind == "buffer" && a.buffer >= 0) {
        m = roots_[a.buffer];
        if (a.offset != 0 || a.bytes_used != c.buffers[a.buffer].bytes) {
          cl_buffer_region region{a.offset, a.bytes_used};
          m = clCreateSubBuffer(roots_[a.buffer], CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                &region, &rc);
          if (!m)
            fail("cannot make the sub-buffer at offset " + std::to_string(a.offset) +
                     " (the device's base address alignment may differ from the recorded one's)",
                 rc);
          subs_.push_back(m);
        }
      }
      arg_mems_.push_back(m);
    }
  }
  ~Bench() {
    for (auto& [options, k] : kernels_) {
      if (k.kernel) clReleaseKernel(k.kernel);
      if (k.program) clReleaseProgram(k.program);
    }
    for (cl_sampler s : arg_samplers_)
      if (s) clReleaseSampler(s);
    for (cl_mem m : images_) clReleaseMemObject(m);
    for (cl_mem m : subs_) clReleaseMemObject(m);
    for (cl_mem m : roots_) clReleaseMemObject(m);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  [[noreturn]] void fail(const std::string& what, cl_int rc) const {
    throw ReplayError("capture " + std::to_string(c_.id) + " (kernel " + c_.kernel +
                          ") on device " + d_.label() + ": " + what + " (OpenCL error " +
                          std::to_string(rc) + ")",
                      5);
  }

  // The kernel built with `options`, its arguments set.
  cl_kernel kernel(const std::string& options) {
    auto it = kernels_.find(options);
    if (it != kernels_.end()) return it->second.kernel;
    Built& b = kernels_[options];
    cl_int rc = CL_SUCCESS;
    if (c_.origin == "source") {
      const char* text = c_.source.c_str();
      const size_t len = c_.source.size();
      b.program = clCreateProgramWithSource(context_, 1, &text, &len, &rc);
    } else {
      const unsigned char* bin = c_.binary.data();
      const size_t len = c_.binary.size();
      cl_int status = CL_SUCCESS;
      b.program = clCreateProgramWithBinary(context_, 1, &d_.id, &len, &bin, &status, &rc);
    }
    if (!b.program) fail("cannot make the program from its " + c_.origin, rc);
    rc = clBuildProgram(b.program, 1, &d_.id, options.c_str(), nullptr, nullptr);
    if (rc != CL_SUCCESS) {
      std::string log = cl_text::info_text([&](size_t n, void* v, size_t* r) {
        return clGetProgramBuildInfo(b.program, d_.id, CL_PROGRAM_BUILD_LOG, n, v, r);
      });
      if (log.size() > 2000) log = log.substr(0, 2000) + "\n[log cut]";
      fail("the program does not build with options \"" + options + "\"" +
               (log.empty() ? std::string() : ":\n" + log + "\n"),
           rc);
    }
    b.kernel = clCreateKernel(b.program, c_.kernel.c_str(), &rc);
    if (!b.kernel) fail("the program has no kernel " + c_.kernel, rc);
    cl_uint nargs = 0;
    clGetKernelInfo(b.kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
    if (nargs != c_.args.size())
      fail("the kernel has " + std::to_string(nargs) + " arguments, the capture " +
               std::to_string(c_.args.size()),
           CL_INVALID_KERNEL_ARGS);
    for (cl_uint i = 0; i < nargs; ++i) {
      const CapturedArg& a = c_.args[i];
      if (a.kind == "scalar") {
        rc = clSetKernelArg(b.kernel, i, a.bytes.size(), a.bytes.data());
      } else if (a.kind == "local") {
        rc = clSetKernelArg(b.kernel, i, a.size, nullptr);
      } else if (a.kind == "sampler") {
        rc = clSetKernelArg(b.kernel, i, sizeof(cl_sampler), &arg_samplers_[i]);
      } else {
        rc = clSetKernelArg(b.kernel, i, sizeof(cl_mem), &arg_mems_[i]);
      }
      if (rc != CL_SUCCESS) fail("argument " + std::to_string(i) + " cannot be set", rc);
    }
    return b.kernel;
  }

  // Writes every buffer's captured contents (zeros when none).
  void restore() {
    for (size_t b = 0; b < roots_.size(); ++b) {
      const CapturedBuffer& buf = c_.buffers[b];
      std::vector<unsigned char> zeros;
      const void* data = buf.before.data();
      if (!buf.has_before) {
        zeros.assign(buf.bytes, 0);
        data = zeros.data();
      }
      const cl_int rc =
          clEnqueueWriteBuffer(queue_, roots_[b], CL_TRUE, 0, buf.bytes, data, 0, nullptr, nullptr);
      if (rc != CL_SUCCESS) fail("cannot write buffer " + std::to_string(b), rc);
    }
    for (size_t i = 0; i < images_.size(); ++i) {
      const CapturedImage& img = c_.images[i];
      size_t region[3];
      cl_text::image_region(img.type, img.width, img.height, img.depth, img.array_size, region);
      // Packed rows and slices (pitch 0), as captured.
      const cl_int rc = clEnqueueWriteImage(queue_, images_[i], CL_TRUE, kOrigin, region, 0, 0,
                                            img.before.data(), 0, nullptr, nullptr);
      if (rc != CL_SUCCESS) fail("cannot write image " + std::to_string(i), rc);
    }
  }

  // Whether every buffer equals its captured post-launch contents (nullopt: none captured).
  std::optional<bool> verify() {
    std::optional<bool> verdict;
    std::vector<unsigned char> now;
    for (size_t b = 0; b < roots_.size(); ++b) {
      const CapturedBuffer& buf = c_.buffers[b];
      if (!buf.has_after) continue;
      now.resize(buf.bytes);
      const cl_int rc = clEnqueueReadBuffer(queue_, roots_[b], CL_TRUE, 0, buf.bytes, now.data(), 0,
                                            nullptr, nullptr);
      if (rc != CL_SUCCESS) fail("cannot read buffer " + std::to_string(b), rc);
      const bool same = std::memcmp(now.data(), buf.after.data(), buf.bytes) == 0;
      verdict = verdict.value_or(true) && same;
    }
    for (size_t i = 0; i < images_.size(); ++i) {
      const CapturedImage& img = c_.images[i];
      if (!img.has_after) continue;
      size_t region[3];
      cl_text::image_region(img.type, img.width, img.height, img.depth, img.array_size, region);
      now.resize(img.bytes);
      const cl_int rc = clEnqueueReadImage(queue_, images_[i], CL_TRUE, kOrigin, region, 0, 0,
                                           now.data(), 0, nullptr, nullptr);
      if (rc != CL_SUCCESS) fail("cannot read image " + std::to_string(i), rc);
      const bool same = std::memcmp(now.data(), img.after.data(), img.bytes) == 0;
      verdict = verdict.value_or(true) && same;
    }
    return verdict;
  }

  // `repeat` runs of the launch with local size `lws` (nullopt: NULL); rc != 0 when the
  // device refuses that local size (candidate left out), else the candidate.
  cl_int measure(const std::string& options, const std::optional<std::vector<uint64_t>>& lws,
                 unsigned repeat, Candidate& out) {
    cl_kernel k = kernel(options);
    std::vector<size_t> gws(c_.gws.begin(), c_.gws.end()), gwo(c_.gwo.begin(), c_.gwo.end());
    std::vector<size_t> local;
    if (lws) local.assign(lws->begin(), lws->end());
    std::vector<int64_t> times;
    std::optional<bool> verified;
    for (unsigned r = 0; r < repeat; ++r) {
      restore();
      cl_event e = nullptr;
      cl_int rc = clEnqueueNDRangeKernel(queue_, k, c_.work_dim, gwo.empty() ? nullptr : gwo.data(),
                                         gws.data(), lws ? local.data() : nullptr, 0, nullptr, &e);
      if (rc != CL_SUCCESS) return rc;
      rc = clWaitForEvents(1, &e);
      cl_ulong start = 0, end = 0;
      if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      if (rc == CL_SUCCESS)
        rc = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(e);
      if (rc != CL_SUCCESS) fail("the launch failed with local size " + sizes_text(lws), rc);
      times.push_back(end >= start ? static_cast<int64_t>(end - start) : 0);
      const std::optional<bool> v = verify();
      if (v) verified = verified.value_or(true) && *v;
    }
    std::sort(times.begin(), times.end());
    out.lws = lws;
    out.options = options;
    out.min_ns = times.front();
    out.max_ns = times.back();
    const size_t n = times.size();
    out.median_ns = n % 2 ? times[n / 2] : times[n / 2 - 1] + (times[n / 2] - times[n / 2 - 1]) / 2;
    out.verified = verified;
    return CL_SUCCESS;
  }

  cl_device_id device() const { return d_.id; }

 private:
  struct Built {
    cl_program program = nullptr;
    cl_kernel kernel = nullptr;
  };
  const Capture& c_;
  const Device& d_;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  static constexpr size_t kOrigin[3] = {0, 0, 0};
  std::vector<cl_mem> roots_, subs_, images_;
  // Per argument: its buffer, sub-buffer or image; its sampler; nullptr for neither.
  std::vector<cl_mem> arg_mems_;
  std::vector<cl_sampler> arg_samplers_;
  std::map<std::string, Built> kernels_;
};

}  // namespace

std::vector<std::string> device_list() {
  std::vector<std::string> out;
  for (const Device& d : all_devices()) out.push_back(d.label());
  return out;
}

std::vector<std::vector<uint64_t>> sweep_local_sizes(
    const std::vector<uint64_t>& gws, uint64_t max_group, const std::vector<uint64_t>& max_items,
    uint64_t preferred, const std::optional<std::vector<uint64_t>>& app_lws, size_t limit) {
  std::vector<std::vector<uint64_t>> divisors(gws.size());
  for (size_t d = 0; d < gws.size(); ++d) {
    const uint64_t cap = d < max_items.size() ? max_items[d] : max_group;
    for (uint64_t x = 1; x <= gws[d] && x <= cap && x <= max_group; ++x)
      if (gws[d] % x == 0) divisors[d].push_back(x);
  }
  std::vector<std::vector<uint64_t>> all;
  std::vector<uint64_t> cur(gws.size());
  auto walk = [&](auto& self, size_t d, uint64_t product) -> void {
    if (d == gws.size()) {
      all.push_back(cur);
      return;
    }
    for (uint64_t x : divisors[d]) {
      if (product * x > max_group) break;
      cur[d] = x;
      self(self, d + 1, product * x);
    }
  };
  walk(walk, 0, 1);
  auto product = [](const std::vector<uint64_t>& v) {
    uint64_t p = 1;
    for (uint64_t x : v) p *= x;
    return p;
  };
  std::vector<std::vector<uint64_t>> kept;
  if (preferred > 1)
    for (const auto& v : all)
      if (product(v) % preferred == 0) kept.push_back(v);
  if (kept.empty()) kept = all;
  // The largest groups first; among equal ones, the given order (lexicographic).
  std::stable_sort(kept.begin(), kept.end(),
                   [&](const auto& a, const auto& b) { return product(a) > product(b); });
  if (kept.size() > limit) kept.resize(limit);
  if (app_lws && std::find(kept.begin(), kept.end(), *app_lws) == kept.end())
    kept.push_back(*app_lws);
  return kept;
}

Outcome run_replay(const Capture& c, const Options& o) {
  const std::vector<Device> devices = all_devices();
  if (devices.empty()) throw ReplayError("no OpenCL device to replay on (no platform answers)", 5);
  const Device* dev = nullptr;
  if (o.device) {
    if (*o.device >= devices.size()) {
      std::string list;
      for (size_t i = 0; i < devices.size(); ++i)
        list += "\n  " + std::to_string(i) + ": " + devices[i].label();
      throw ReplayError("--device " + std::to_string(*o.device) + ": there are " +
                        std::to_string(devices.size()) + " devices:" + list);
    }
    dev = &devices[*o.device];
  } else {
    for (const Device& d : devices)
      if (!dev && d.name == c.device_name) dev = &d;
    for (const Device& d : devices)
      if (!dev && d.type == c.device_type) dev = &d;
    if (!dev) dev = &devices.front();
  }
  Bench bench(c, *dev);
  Outcome out;
  out.device = dev->label();
  bool zero = false, no_after = true;
  for (const CapturedBuffer& b : c.buffers) {
    zero = zero || !b.has_before;
    no_after = no_after && !b.has_after;
  }
  for (const CapturedImage& img : c.images) no_after = no_after && !img.has_after;
  if (zero) out.notes.push_back("Some buffers have no captured contents: they start zero-filled.");
  if (no_after) out.notes.push_back("No post-launch contents were captured: verified is null.");

  const cl_int rc = bench.measure(c.options, c.lws, o.repeat, out.app);
  if (rc != CL_SUCCESS) bench.fail("the launch as recorded is refused", rc);
  out.app.app = true;
  const std::string options = o.build_options.value_or(c.options);
  if (o.build_options && !o.sweep_local) {
    out.candidates.push_back(out.app);
    Candidate given;
    const cl_int r = bench.measure(options, c.lws, o.repeat, given);
    if (r != CL_SUCCESS) bench.fail("the launch is refused with options \"" + options + "\"", r);
    out.candidates.push_back(given);
  }
  if (o.sweep_local) {
    cl_kernel k = bench.kernel(options);
    size_t group = 0, preferred = 1;
    clGetKernelWorkGroupInfo(k, bench.device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof group, &group,
                             nullptr);
    clGetKernelWorkGroupInfo(k, bench.device(), CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                             sizeof preferred, &preferred, nullptr);
    size_t items[3] = {0, 0, 0};
    clGetDeviceInfo(bench.device(), CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr);
    std::vector<uint64_t> max_items(items, items + c.work_dim);
    std::vector<std::optional<std::vector<uint64_t>>> sizes;
    for (auto& v : sweep_local_sizes(c.gws, group, max_items, preferred, c.lws)) sizes.push_back(v);
    sizes.push_back(std::nullopt);
    if (o.build_options) out.candidates.push_back(out.app);
    for (const auto& lws : sizes) {
      Candidate cand;
      if (!o.build_options && lws == c.lws) {
        out.candidates.push_back(out.app);
        continue;
      }
      const cl_int r = bench.measure(options, lws, o.repeat, cand);
      if (r != CL_SUCCESS) {
        out.notes.push_back("Local size " + sizes_text(lws) +
                            " is refused by the device (OpenCL error " + std::to_string(r) +
                            "): left out.");
        continue;
      }
      out.candidates.push_back(cand);
    }
  }
  std::stable_sort(
      out.candidates.begin(), out.candidates.end(),
      [](const Candidate& a, const Candidate& b) { return a.median_ns < b.median_ns; });
  return out;
}

}  // namespace clprof::replay
