// Enqueue micro-benchmark: the host cost of one launch (clSetKernelArg x3 +
// clEnqueueNDRangeKernel), bare or under a tool preloaded on top (libclprof.so, clIntercept).
// Run by bench/peer/run.sh (tools, or builds of the shim, side by side; bench/peer/README.md
// has the method).
//
//   enqueue_bench [--events | --events-held | --events-remote | --latency | --init-only]
//                 [--app-work-ns N]
//                 [ITERATIONS [FINISH_EVERY [WARMUP]]]
//
// Modes (one at most):
//   (none)       the loop: no event, queue without profiling, clFinish every FINISH_EVERY.
//   --events     the same loop, but the app itself does what an event-based tracer needs from
//                the driver: a profiling queue and an event per launch, released at once. It
//                tells the driver's share of a tool's cost from the tool's own.
//   --events-held  the same, but each event is held for kHeldEvents launches (a tracer's
//                ring of records), then its four profiling times are read (END first, as
//                clprof's harvester does) and it is released, on the app's own thread:
//                everything a full per-launch device record needs from the driver, done
//                where the app already runs, with no second thread. An event whose command
//                has not ended by then is read and released after the next clFinish.
//   --events-remote  the same ring of kHeldEvents events, but the times are read by a second
//                thread (named bench-reader), as a tracer's background thread does: it reads
//                the events in order, in rounds (asleep 1 ms between rounds, woken every
//                quarter ring), and one whose command has not ended waits in its own list.
//                The app releases each event when it reuses its slot (or after clFinish for
//                those that waited), as clprof's hand-back does; it waits when the reader is a
//                whole ring behind. With --events-held beside it: what moving the driver
//                queries to a second thread costs, apart from everything a tracer formats
//                and writes.
//   --latency    clpeak's --kernel-latency loop: a profiling queue, one launch with an event,
//                clFinish, then the event's QUEUED/START/END times; per launch + wait it
//                prints the host time and the event times (the device side of the latency).
//   --init-only  sets up everything (context, queue, program build, kernel, buffers) and
//                exits without a launch: the fixed cost per process of a tool.
//
// --app-work-ns N (with any mode but --init-only): after each enqueue the app's thread
// busy-waits N ns (steady_clock), as if it did that much work of its own per launch, or as a
// tool's hook would. A yardstick for tools: what N ns on the app's thread costs the whole
// process, the driver's threads included (on PoCL, ~2-3x N of CPU: docs/performance.md).
//
// Prints "key value" lines: platform, mode, iterations, launches (incl. warm-up),
// ns_per_iter (wall clock, steady_clock, of the timed loop), thread_cpu_ns_per_iter (CPU of
// the enqueuing thread), process_cpu_ns_per_iter (all threads: driver and tool background
// threads included), user_ns_per_iter / sys_ns_per_iter (getrusage, all threads),
// tool_threads_cpu_ns_per_iter (threads named clprof-*, and --events-remote's bench-reader: a
// tool's background CPU),
// tool_threads_runs_per_1k_iter (how often those threads were put on a CPU: wake-ups), and
// other_threads_cpu_ns_per_iter (the driver's threads, and a tool's unnamed ones),
// peak_rss_kb (VmHWM at the end); with --latency also queued_to_start_ns_per_iter and
// queued_to_end_ns_per_iter (event profiling, device clock). Single-threaded; exits 1 on
// any OpenCL error, 2 on bad arguments.
#include <CL/cl.h>

#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* kSource =
    "__kernel void triv(__global float* a, __global const float* b, const int n) {\n"
    "  size_t i = get_global_id(0); if ((int)i < n) a[i] = b[i];\n"
    "}\n";

enum class Mode { Loop, Events, EventsHeld, EventsRemote, Latency, InitOnly };
// --events-held: launches an event is held before its times are read (a ring's worth).
constexpr unsigned long kHeldEvents = 512;

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "enqueue_bench: %s failed: %d\n", what, rc);
    std::exit(1);
  }
}

long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

double clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double ns_of(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) * 1e9 + static_cast<double>(tv.tv_usec) * 1e3;
}

// CPU figures of the timed loop, all in ns since the previous snapshot.
struct CpuSnapshot {
  double thread_ns, process_ns, user_ns, sys_ns;
  static CpuSnapshot now() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {clock_ns(CLOCK_THREAD_CPUTIME_ID), clock_ns(CLOCK_PROCESS_CPUTIME_ID),
            ns_of(ru.ru_utime), ns_of(ru.ru_stime)};
  }
};

// CPU ns of every thread of the process by who runs it, from /proc/self/task/*/schedstat
// (ns on the CPU, exact) and comm: the app's thread (this one), a tool's background threads
// (named "clprof-*", or the model's bench-reader) and the rest (the driver's, and a tool's
// unnamed threads).
struct ThreadCpu {
  double app_ns = 0, tool_ns = 0, other_ns = 0;
  double tool_runs = 0;  // times a tool's thread was put on a CPU (schedstat's third field)
  static ThreadCpu now() {
    ThreadCpu t;
    const long self = static_cast<long>(gettid());
    DIR* dir = opendir("/proc/self/task");
    if (!dir) return t;
    while (dirent* d = readdir(dir)) {
      if (d->d_name[0] == '.') continue;
      const std::string base = std::string("/proc/self/task/") + d->d_name;
      std::ifstream stat(base + "/schedstat"), comm(base + "/comm");
      double ns = 0, wait_ns = 0, runs = 0;
      std::string name;
      if (!(stat >> ns >> wait_ns >> runs)) continue;
      std::getline(comm, name);
      if (std::strtol(d->d_name, nullptr, 10) == self)
        t.app_ns += ns;
      else if (name.rfind("clprof", 0) == 0 || name == "bench-reader")
        t.tool_ns += ns, t.tool_runs += runs;
      else
        t.other_ns += ns;
    }
    closedir(dir);
    return t;
  }
};

bool parse_count(const char* text, unsigned long* out) {
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (!*text || *end || text[0] == '-') return false;
  *out = value;
  return true;
}

// Reads the four profiling times of an event, END first; false (nothing read) while END is
// not available, i.e. the command has not ended.
bool read_times(cl_event h) {
  cl_ulong t[4] = {};
  const cl_int rc =
      clGetEventProfilingInfo(h, CL_PROFILING_COMMAND_END, sizeof t[3], &t[3], nullptr);
  if (rc == CL_PROFILING_INFO_NOT_AVAILABLE) return false;
  check(rc, "clGetEventProfilingInfo");
  for (cl_uint w = 0; w < 3; ++w)
    check(clGetEventProfilingInfo(h, CL_PROFILING_COMMAND_QUEUED + w, sizeof t[w], &t[w], nullptr),
          "clGetEventProfilingInfo");
  return true;
}

// --events-remote: the second thread that reads the times of the app's events, and the ring
// the app hands them over in. The app owns a slot's event again once `read_` passed it.
class RemoteReader {
 public:
  RemoteReader() : thread_([this] { run(); }) {}
  ~RemoteReader() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  // Launch `i`'s event: the slot's previous event, once read, goes back to the app
  // (released here); the app waits while the reader is a whole ring behind.
  void hand_over(unsigned long i, cl_event e) {
    cl_event& slot = slots_[i % kHeldEvents];
    if (slot) {
      while (read_.load(std::memory_order_acquire) <= i - kHeldEvents) {
        nudge();
        std::this_thread::yield();
      }
      clReleaseEvent(slot);
    }
    slot = e;
    published_.store(i + 1, std::memory_order_release);
    if ((i & (kHeldEvents / 4 - 1)) == 0) nudge();
  }
  // After clFinish: releases the events that waited in the reader's list once read. Counts
  // them in `late_count` when `timed`.
  void release_late(unsigned long& late_count, bool timed) {
    std::vector<cl_event> done;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done.swap(late_done_);
    }
    for (cl_event h : done) clReleaseEvent(h);
    late_count += timed ? done.size() : 0;
  }
  // The end: waits for every published event to be read, then releases all of them.
  void drain(unsigned long launches) {
    while (read_.load(std::memory_order_acquire) < launches || late_waiting_.load() != 0) {
      nudge();
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    unsigned long ignored = 0;
    release_late(ignored, false);
    for (cl_event& h : slots_)
      if (h) clReleaseEvent(h), h = nullptr;
  }

 private:
  void nudge() { wake_.notify_one(); }
  void run() {
    pthread_setname_np(pthread_self(), "bench-reader");
    std::vector<cl_event> late;  // read later: their commands had not ended
    unsigned long next = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (stop_) return;
        wake_.wait_for(lock, std::chrono::milliseconds(1));
        if (stop_) return;
      }
      const unsigned long published = published_.load(std::memory_order_acquire);
      for (; next < published; ++next) {
        cl_event h = slots_[next % kHeldEvents];
        if (!read_times(h)) {
          clRetainEvent(h);  // its slot goes back to the app, which releases that reference
          late.push_back(h);
        }
      }
      read_.store(next, std::memory_order_release);
      std::vector<cl_event> done;
      for (auto it = late.begin(); it != late.end();) {
        if (read_times(*it)) {
          done.push_back(*it);
          it = late.erase(it);
        } else {
          ++it;
        }
      }
      late_waiting_.store(late.size());
      if (!done.empty()) {
        std::lock_guard<std::mutex> lock(mutex_);
        late_done_.insert(late_done_.end(), done.begin(), done.end());
      }
    }
  }
  cl_event slots_[kHeldEvents] = {};
  std::atomic<unsigned long> published_{0}, read_{0};
  std::atomic<std::size_t> late_waiting_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::vector<cl_event> late_done_;  // read, for the app to release (under mutex_)
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  Mode mode = Mode::Loop;
  unsigned long counts[3] = {200000, 1000, 2000};  // iterations, finish_every, warm-up
  int positional = 0;
  unsigned long app_work_ns = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--app-work-ns" && i + 1 < argc && parse_count(argv[i + 1], &app_work_ns))
      ++i;
    else if (mode == Mode::Loop && arg == "--events")
      mode = Mode::Events;
    else if (mode == Mode::Loop && arg == "--events-held")
      mode = Mode::EventsHeld;
    else if (mode == Mode::Loop && arg == "--events-remote")
      mode = Mode::EventsRemote;
    else if (mode == Mode::Loop && arg == "--latency")
      mode = Mode::Latency;
    else if (mode == Mode::Loop && arg == "--init-only")
      mode = Mode::InitOnly;
    else if (positional < 3 && parse_count(argv[i], &counts[positional]))
      ++positional;
    else {
      std::fprintf(stderr,
                   "usage: %s [--events | --events-held | --events-remote | --latency | "
                   "--init-only] [--app-work-ns N] "
                   "[ITERATIONS [FINISH_EVERY [WARMUP]]]\n(at %s)\n",
                   argv[0], argv[i]);
      return 2;
    }
  }
  const unsigned long iterations = mode == Mode::InitOnly ? 0 : counts[0];
  const unsigned long finish_every = counts[1];
  const unsigned long warmup = mode == Mode::InitOnly ? 0 : counts[2];
  if ((mode != Mode::InitOnly && iterations == 0) || finish_every == 0) {
    std::fprintf(stderr, "enqueue_bench: ITERATIONS and FINISH_EVERY must be > 0\n");
    return 2;
  }

  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  char name[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
  cl_int rc = 0;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  const bool profiling = mode == Mode::Events || mode == Mode::EventsHeld ||
                         mode == Mode::EventsRemote || mode == Mode::Latency;
  cl_command_queue q =
      clCreateCommandQueue(ctx, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &rc);
  check(rc, "clCreateCommandQueue");
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k = clCreateKernel(prog, "triv", &rc);
  check(rc, "clCreateKernel");
  const size_t gws = 64;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gws * sizeof(float), nullptr, &rc);
  check(rc, "clCreateBuffer");
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gws * sizeof(float), nullptr, &rc);
  check(rc, "clCreateBuffer");

  double queued_to_start_ns = 0, queued_to_end_ns = 0;  // --latency: sums over the timed loop
  bool timed = false;
  // --events-held: the held events, and those found still running (read after clFinish).
  cl_event held[kHeldEvents] = {};
  std::vector<cl_event> late;
  unsigned long late_count = 0;  // over the timed loop
  // False (the event kept) when its command has not ended: END is not available yet.
  auto read_and_release = [&](cl_event h) {
    if (!read_times(h)) return false;
    clReleaseEvent(h);
    return true;
  };
  std::optional<RemoteReader> reader;  // --events-remote
  if (mode == Mode::EventsRemote) reader.emplace();
  unsigned long launch_no = 0;  // warm-up and timed loop together
  auto read_late = [&] {
    for (cl_event h : late)
      if (!read_and_release(h)) check(CL_PROFILING_INFO_NOT_AVAILABLE, "an event after clFinish");
    late.clear();
  };
  auto one = [&](unsigned long i) {
    const cl_int n = static_cast<cl_int>(i & 63);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof n, &n);
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr,
                                 profiling ? &e : nullptr),
          "clEnqueueNDRangeKernel");
    if (mode == Mode::Latency) {
      check(clFinish(q), "clFinish");
      cl_ulong queued = 0, start = 0, end = 0;
      check(
          clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr),
          "clGetEventProfilingInfo");
      check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
            "clGetEventProfilingInfo");
      check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
            "clGetEventProfilingInfo");
      if (timed) {
        queued_to_start_ns += static_cast<double>(start - queued);
        queued_to_end_ns += static_cast<double>(end - queued);
      }
    }
    if (mode == Mode::EventsHeld) {
      cl_event& slot = held[i % kHeldEvents];
      if (slot && !read_and_release(slot)) {
        late.push_back(slot);
        late_count += timed;
      }
      slot = e;
      e = nullptr;
    }
    if (mode == Mode::EventsRemote) {
      reader->hand_over(launch_no++, e);
      e = nullptr;
    }
    if (e) clReleaseEvent(e);
    if (app_work_ns) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(app_work_ns);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    // Bounds the queue (same in every mode) so that memory, not launches, is constant.
    if (mode != Mode::Latency && i % finish_every == finish_every - 1) {
      check(clFinish(q), "clFinish");
      read_late();
      if (reader) reader->release_late(late_count, timed);
    }
  };

  // Warm-up: PoCL compiles the kernel for the work-group size at the first launch.
  for (unsigned long i = 0; i < warmup; ++i) one(i);
  check(clFinish(q), "clFinish");

  timed = true;
  const CpuSnapshot cpu0 = CpuSnapshot::now();
  const ThreadCpu threads0 = ThreadCpu::now();
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned long i = 0; i < iterations; ++i) one(i);
  check(clFinish(q), "clFinish");
  const auto t1 = std::chrono::steady_clock::now();
  const CpuSnapshot cpu1 = CpuSnapshot::now();
  const ThreadCpu threads1 = ThreadCpu::now();

  read_late();
  if (reader) reader->drain(launch_no);
  for (cl_event h : held)
    if (h && !read_and_release(h)) check(CL_PROFILING_INFO_NOT_AVAILABLE, "an event at the end");
  static const char* const kModeNames[] = {"loop",          "events",  "events-held",
                                           "events-remote", "latency", "init-only"};
  std::printf("platform %s\n", name);
  std::printf("mode %s\n", kModeNames[static_cast<int>(mode)]);
  std::printf("iterations %lu\n", iterations);
  if (app_work_ns) std::printf("app_work_ns %lu\n", app_work_ns);
  std::printf("launches %lu\n", iterations + warmup);
  if (iterations > 0) {
    const double per = 1.0 / static_cast<double>(iterations);
    std::printf("ns_per_iter %.1f\n",
                std::chrono::duration<double, std::nano>(t1 - t0).count() * per);
    std::printf("thread_cpu_ns_per_iter %.1f\n", (cpu1.thread_ns - cpu0.thread_ns) * per);
    std::printf("process_cpu_ns_per_iter %.1f\n", (cpu1.process_ns - cpu0.process_ns) * per);
    std::printf("user_ns_per_iter %.1f\n", (cpu1.user_ns - cpu0.user_ns) * per);
    std::printf("sys_ns_per_iter %.1f\n", (cpu1.sys_ns - cpu0.sys_ns) * per);
    std::printf("tool_threads_cpu_ns_per_iter %.1f\n", (threads1.tool_ns - threads0.tool_ns) * per);
    std::printf("tool_threads_runs_per_1k_iter %.2f\n",
                (threads1.tool_runs - threads0.tool_runs) * per * 1000);
    std::printf("other_threads_cpu_ns_per_iter %.1f\n",
                (threads1.other_ns - threads0.other_ns) * per);
    if (mode == Mode::EventsHeld || mode == Mode::EventsRemote) {
      std::printf("held_events_late_per_1k_iter %.2f\n", late_count * per * 1000);
    }
    if (mode == Mode::Latency) {
      std::printf("queued_to_start_ns_per_iter %.1f\n", queued_to_start_ns * per);
      std::printf("queued_to_end_ns_per_iter %.1f\n", queued_to_end_ns * per);
    }
  }
  std::printf("peak_rss_kb %ld\n", peak_rss_kb());

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
