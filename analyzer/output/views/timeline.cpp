#include "output/views/timeline.hpp"

#include <algorithm>

#include "output/views/json_text.hpp"

namespace clprof::output::views {

namespace {

using model::kNoTime;

constexpr size_t kFlushBytes = size_t{1} << 20;
// Device slices held back to be given lanes in start order (about 0.5 KiB each).
constexpr size_t kWindow = 16384;
// Most entries a list in an event's args holds (a range's untimed kernels, a build's kernels).
constexpr size_t kMaxListedItems = 64;

int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return kNoTime;
  return r;
}

// The flow id of command `seq` of process `process`: unique in the file and below 2^53 (a
// JavaScript number holds it exactly).
uint64_t flow_id(uint32_t process, uint64_t seq) {
  if (process >= (1u << 12) || seq >= (uint64_t{1} << 40) - 1) return 0;
  return (uint64_t{process} << 40) + seq + 1;
}

bool is_api(const std::string& api) {
  return api.rfind("cl", 0) == 0;
}

}  // namespace

// The "args" object of one event, built as text.
struct TimelineWriter::Args {
  std::string text;
  Args& str(const char* key, const std::string& v) {
    open(key);
    append_json_string(text, v);
    return *this;
  }
  Args& num(const char* key, int64_t v) {
    open(key);
    text += std::to_string(v);
    return *this;
  }
  Args& unum(const char* key, uint64_t v) {
    open(key);
    text += std::to_string(v);
    return *this;
  }
  Args& real(const char* key, double v) {
    open(key);
    append_json_real(text, v);
    return *this;
  }
  Args& flag(const char* key, bool v) {
    open(key);
    text += v ? "true" : "false";
    return *this;
  }
  Args& dims(const char* key, const std::vector<uint64_t>& v) {
    open(key);
    text += '[';
    for (size_t i = 0; i < v.size(); ++i) text += (i ? "," : "") + std::to_string(v[i]);
    text += ']';
    return *this;
  }
  Args& strings(const char* key, const std::vector<std::string>& v) {
    open(key);
    text += '[';
    for (size_t i = 0; i < v.size() && i < kMaxListedItems; ++i) {
      if (i) text += ',';
      append_json_string(text, v[i]);
    }
    text += ']';
    return *this;
  }
  Args& raw(const char* key, const std::string& json) {
    open(key);
    text += json;
    return *this;
  }

 private:
  void open(const char* key) {
    text += text.empty() ? "" : ",";
    append_json_string(text, key);
    text += ':';
  }
};

TimelineWriter::TimelineWriter(const model::Run& run, const std::vector<gemm::Rule>& rules,
                               TimelineOptions options, OutFile& out)
    : run_(run),
      options_(std::move(options)),
      out_(out),
      clocks_(run),
      ranges_(run),
      gemm_(rules),
      tracks_(run) {
  // The origin: the earliest process start, less the largest sync uncertainty, since an
  // aligned device time may precede its enqueue by that much.
  int64_t origin = INT64_MAX, uncertainty = 0;
  for (const auto& p : run.processes)
    if (p.host_start_ns != kNoTime) origin = std::min(origin, p.host_start_ns);
  for (const auto& d : run.devices)
    if (d.has_clock_offset)
      uncertainty =
          std::max(uncertainty,
                   static_cast<int64_t>(std::min<uint64_t>(d.clock_uncertainty_ns, 1000000000)));
  origin_ns_ = origin == INT64_MAX ? 0 : origin - uncertainty;
  for (const auto& p : run.programs) program_options_[{p.process, p.id}] = &p.options;
  for (const auto& q : run.queues)
    if (q.properties & 1)
      out_of_order_.insert({q.process, q.id});  // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
  for (const auto& l : run.launches) {
    const bool timed =
        (l.host_begin_ns != kNoTime && l.host_end_ns != kNoTime) || clocks_.times(l).start_ns;
    if (!timed && !l.ranges.empty()) untimed_by_range_[l.ranges.back()].push_back(&l);
  }
}

TimelineWriter::~TimelineWriter() = default;

int64_t TimelineWriter::ts(uint32_t process, int64_t host_ns) const {
  if (host_ns == kNoTime) return kNoTime;
  int64_t start = process < run_.processes.size() ? run_.processes[process].host_start_ns : kNoTime;
  if (start == kNoTime) start = origin_ns_;
  const int64_t abs = sat_add(start, host_ns);
  return abs == kNoTime ? kNoTime : sat_add(abs, -origin_ns_);
}

void TimelineWriter::event(const std::string& text) {
  if (!first_event_) buffer_ += ",\n";
  first_event_ = false;
  buffer_ += text;
  if (buffer_.size() >= kFlushBytes) flush();
}

void TimelineWriter::flush() {
  out_.write(buffer_);
  buffer_.clear();
}

std::string TimelineWriter::slice_text(uint32_t process, uint32_t tid, int64_t begin_ns,
                                       int64_t end_ns, const std::string& name,
                                       std::string_view cat, const Args& args, uint64_t flow_out,
                                       uint64_t flow_in, size_t* tid_at) const {
  std::string e = "{\"ph\":\"X\",\"ts\":";
  append_us(e, begin_ns);
  e += ",\"dur\":";
  append_us(e, end_ns - begin_ns);
  e += ",\"pid\":" + std::to_string(tracks_.pid(process)) + ",\"tid\":";
  if (tid_at)
    *tid_at = e.size();
  else
    e += std::to_string(tid);
  e += ",\"name\":";
  append_json_string(e, name);
  e += ",\"cat\":";
  append_json_string(e, cat);
  if (flow_out || flow_in) e += ",\"bind_id\":" + std::to_string(flow_out ? flow_out : flow_in);
  if (flow_out) e += ",\"flow_out\":true";
  if (flow_in) e += ",\"flow_in\":true";
  e += ",\"args\":{" + args.text + "}}";
  return e;
}

void TimelineWriter::slice(uint32_t process, uint32_t tid, int64_t begin_ns, int64_t end_ns,
                           const std::string& name, std::string_view cat, const Args& args,
                           uint64_t flow_out, uint64_t flow_in) {
  if (begin_ns == kNoTime || end_ns == kNoTime || end_ns < begin_ns)
    return;  // times out of int64's reach
  event(slice_text(process, tid, begin_ns, end_ns, name, cat, args, flow_out, flow_in, nullptr));
}

void TimelineWriter::device_slice(uint32_t process, const DeviceTrack& track, const char* stage,
                                  int64_t begin_ns, int64_t end_ns, const std::string& name,
                                  std::string_view cat, const Args& args, uint64_t flow_in) {
  if (begin_ns == kNoTime || end_ns == kNoTime || end_ns < begin_ns) return;
  Pending p;
  p.process = process;
  p.begin = begin_ns;
  p.end = end_ns;
  p.order = order_++;
  if (!options_.stages) {
    p.key = track.key;
    p.name = track.name;
    p.track_order = track.order * 4;
  } else {
    const std::string st = stage;
    p.key = track.key + "/" + st;
    p.name = track.name + " · " + st;
    p.track_order = track.order * 4 + (st == "queued" ? 0 : st == "submitted" ? 1 : 2);
  }
  p.text = slice_text(process, 0, begin_ns, end_ns, name, cat, args, 0, flow_in, &p.tid_at);
  pending_.push_back(std::move(p));
  std::push_heap(pending_.begin(), pending_.end(), Pending::later);
  if (pending_.size() > kWindow) release_one();
}

void TimelineWriter::release_one() {
  std::pop_heap(pending_.begin(), pending_.end(), Pending::later);
  Pending p = std::move(pending_.back());
  pending_.pop_back();
  const uint32_t tid = tracks_.lane(p.process, p.key, p.name, p.track_order, p.begin, p.end);
  p.text.insert(p.tid_at, std::to_string(tid));
  event(p.text);
}

void TimelineWriter::release_all() {
  while (!pending_.empty()) release_one();
}

std::string TimelineWriter::layer(const std::vector<uint64_t>& ranges) const {
  return ranges_.path(ranges.empty() ? 0 : ranges.back());
}

void TimelineWriter::begin() {
  std::string inputs;
  for (const auto& p : run_.processes) inputs += (inputs.empty() ? "" : ", ") + p.source;
  std::string head = "{\"otherData\":{\"generator\":";
  append_json_string(head, options_.generator);
  head += ",\"inputs\":";
  append_json_string(head, inputs);
  head += ",\"ts_origin_ns\":" + std::to_string(origin_ns_) +
          ",\"ts_unit\":\"microseconds since ts_origin_ns on the host clock (CLOCK_MONOTONIC for "
          "clprof "
          "traces)\"},\n\"traceEvents\":[\n";
  buffer_ += head;
  write_ranges();
  write_host_metadata();
  write_layer_timings();
}

void TimelineWriter::write_ranges() {
  for (const auto& r : run_.ranges) {
    if (r.host_begin_ns == kNoTime) continue;
    if (r.host_end_ns == kNoTime || r.host_end_ns < r.host_begin_ns) {
      ++counts_.ranges_without_end;
      continue;
    }
    Args a;
    a.str("path", ranges_.path(r.id));
    if (r.left_open) a.flag("left_open", true);
    auto untimed = untimed_by_range_.find(r.id);
    if (untimed != untimed_by_range_.end()) {
      // Durations without timestamps (an Arm NN workload's kernels) cannot be placed: the
      // range lists them.
      std::string list = "[";
      const auto& ls = untimed->second;
      for (size_t i = 0; i < ls.size() && i < kMaxListedItems; ++i) {
        list += i ? ",{\"name\":" : "{\"name\":";
        append_json_string(list, ls[i]->name);
        const auto d = ls[i]->duration_ns();
        list += ",\"duration_ns\":" + (d ? std::to_string(*d) : std::string("null")) + "}";
      }
      a.raw("kernels", list + "]");
      if (ls.size() > kMaxListedItems) a.unum("kernels_not_listed", ls.size() - kMaxListedItems);
    }
    slice(r.process, tracks_.host_thread(r.process, r.tid), ts(r.process, r.host_begin_ns),
          ts(r.process, r.host_end_ns), r.name, "range", a, 0, 0);
  }
}

void TimelineWriter::write_host_metadata() {
  for (const auto& y : run_.syncs) {
    if (y.host_begin_ns == kNoTime || y.host_end_ns == kNoTime || y.host_end_ns < y.host_begin_ns)
      continue;
    Args a;
    a.unum("seq", y.seq).unum("queue", y.queue_id);
    if (y.rc != 0) a.num("rc", y.rc);
    slice(y.process, tracks_.host_thread(y.process, y.tid), ts(y.process, y.host_begin_ns),
          ts(y.process, y.host_end_ns), y.api, "sync", a, 0, 0);
  }
  for (const auto& b : run_.builds) {
    if (b.host_begin_ns == kNoTime || b.host_end_ns == kNoTime || b.host_end_ns < b.host_begin_ns)
      continue;
    Args a;
    a.unum("program", b.program_id).str("options", b.options);
    std::vector<std::string> devices;
    for (uint32_t d : b.devices)
      devices.push_back(d > 0 && d <= run_.devices.size() ? run_.devices[d - 1].name
                                                          : "device " + std::to_string(d));
    a.strings("devices", devices).num("rc", b.rc).strings("kernels", b.kernels);
    const uint32_t tid = tracks_.named(b.process, "builds", "program builds (thread not recorded)",
                                       TimelineTracks::Group::Builds);
    slice(b.process, tid, ts(b.process, b.host_begin_ns), ts(b.process, b.host_end_ns),
          b.api + " (program " + std::to_string(b.program_id) + ")", "build", a, 0, 0);
  }
  for (const auto& m : run_.marks) {
    const int64_t at = ts(m.process, m.host_ns);
    if (at == kNoTime) continue;
    std::string e = "{\"ph\":\"i\",\"ts\":";
    append_us(e, at);
    e += ",\"pid\":" + std::to_string(tracks_.pid(m.process)) +
         ",\"tid\":" + std::to_string(tracks_.host_thread(m.process, m.tid)) +
         ",\"s\":\"t\",\"name\":";
    append_json_string(e, m.name);
    e += ",\"cat\":\"mark\",\"args\":{}}";
    event(e);
  }
}

void TimelineWriter::write_layer_timings() {
  if (run_.layer_timings.empty()) return;
  // Caffe's per-layer times have no timestamps: each iteration's layers are laid end to end
  // in profile order, iterations one after another, on a track whose name says so.
  const uint32_t tid = tracks_.named(0, "layer_timings",
                                     "layers (durations only: laid end to end, not measured times)",
                                     TimelineTracks::Group::Imported);
  std::map<uint32_t, std::vector<const model::LayerTiming*>> by_iteration;
  for (const auto& t : run_.layer_timings) by_iteration[t.iteration].push_back(&t);
  int64_t at = 0;
  for (const auto& [iteration, layers] : by_iteration) {
    const int64_t begin = at;
    for (const model::LayerTiming* t : layers) {
      const int64_t d = std::max<int64_t>(t->time_ns, 0);
      Args a;
      a.unum("iteration", iteration).num("time_ns", d).flag("laid_end_to_end", true);
      if (!t->direction.empty()) a.str("direction", t->direction);
      slice(0, tid, ts(0, at), ts(0, at + d),
            t->layer + (t->direction == "backward" ? " (backward)" : ""), "layer", a, 0, 0);
      at += d;
    }
    Args a;
    a.unum("iteration", iteration).flag("laid_end_to_end", true);
    slice(0, tid, ts(0, begin), ts(0, at), "iteration " + std::to_string(iteration), "iteration", a,
          0, 0);
  }
}

void TimelineWriter::note_bulk(uint32_t process, bool launch, uint64_t seq) {
  auto [it, fresh] = restarts_.try_emplace(process);
  Restart& r = it->second;
  if (fresh) {
    // A new process: its slices are never held back together with the previous one's.
    release_all();
    flush();
    r.launch = launch;
    r.seq = seq;
    r.position = out_.position();
    r.first_event = first_event_;
    r.counts = counts_;
    return;
  }
  if (r.launch != launch || r.seq != seq) return;
  // The reader delivers this process's records again from the first: drop the first delivery.
  pending_.clear();
  buffer_.clear();
  out_.cut_back(r.position);
  first_event_ = r.first_event;
  counts_ = r.counts;
  tracks_.clear_lanes(process);
}

std::string TimelineWriter::queue_name(uint32_t process, uint64_t queue,
                                       const std::string& device) const {
  return "queue " + std::to_string(queue) + " (" + device +
         (out_of_order_.count({process, queue}) ? ", out of order)" : ")");
}

int64_t TimelineWriter::order_of(const std::string& key) {
  return kernel_order_.try_emplace(key, static_cast<int64_t>(kernel_order_.size())).first->second;
}

template <typename Command>
TimelineWriter::Placement TimelineWriter::place(const Command& c, bool device_times) {
  Placement x;
  x.host_begin = ts(c.process, c.host_begin_ns);
  x.host_end = ts(c.process, c.host_end_ns);
  x.on_host = x.host_begin != kNoTime && x.host_end != kNoTime && x.host_end >= x.host_begin;
  x.at = clocks_.times(c);
  x.on_device = x.at.start_ns && x.at.end_ns && *x.at.end_ns >= *x.at.start_ns;
  if (!x.on_device && device_times && !clocks_.synced(c.device))
    counts_.unaligned_devices.insert(c.device);
  if (x.on_device) counts_.aligned_devices.insert(c.device);
  x.flow = x.on_host && x.on_device ? flow_id(c.process, c.seq) : 0;
  return x;
}

void TimelineWriter::add_launch(const model::Launch& l) {
  note_bulk(l.process, true, l.seq);
  ++counts_.launches;
  const uint32_t p = l.process;
  const auto [host_begin, host_end, on_host, at, on_device, flow] = place(l, l.has_device_times());
  const std::string layer_path = layer(l.ranges);

  if (on_host) {
    Args a;
    a.unum("seq", l.seq).str("kernel", l.name).str("layer", layer_path);
    if (is_api(l.api)) a.unum("queue", l.queue_id);
    if (l.status != "complete") a.str("status", l.status);
    if (l.rc != 0) a.num("rc", l.rc);
    for (const auto& [k, v] : l.extra) a.str(k.c_str(), v);
    const bool api = is_api(l.api);
    // An imported event keeps its category (Chrome's "cat").
    auto cat = l.extra.find("chrome.cat");
    const std::string name = api ? l.api + " " + l.name : l.name;
    slice(p, tracks_.host_thread(p, l.tid), host_begin, host_end, name,
          api ? "api" : (cat != l.extra.end() && !cat->second.empty() ? cat->second : "event"), a,
          flow, 0);
  }
  if (!on_device) {
    if (!on_host && (l.ranges.empty() || !untimed_by_range_.count(l.ranges.back())))
      ++counts_.untimed;
    return;
  }
  ++counts_.device_slices;
  if (flow) ++counts_.flows;
  const std::string device =
      l.device > 0 && l.device <= run_.devices.size() ? run_.devices[l.device - 1].name : "?";
  DeviceTrack track;
  if (options_.per_kernel) {
    track.key = "kernel:" + l.name;
    track.name = "kernel " + l.name;
    track.order = order_of(track.key);
  } else {
    track.key = "queue:" + std::to_string(l.queue_id);
    track.name = queue_name(p, l.queue_id, device);
    track.order = static_cast<int64_t>(l.queue_id);
  }
  Args a;
  a.unum("seq", l.seq).dims("gws", l.gws);
  if (l.lws) a.dims("lws", *l.lws);
  if (!l.gwo.empty()) a.dims("gwo", l.gwo);
  a.unum("queue", l.queue_id).str("device", device).str("layer", layer_path);
  const int64_t duration = *at.end_ns - *at.start_ns;
  a.num("duration_ns", duration);
  auto prog = program_options_.find({p, l.program_id});
  if (auto g = gemm_.decode(l, prog == program_options_.end() ? nullptr : prog->second)) {
    a.str("gemm_rule", g->rule->id);
    if (g->m) a.num("m", *g->m);
    if (g->n) a.num("n", *g->n);
    if (g->k) a.num("k", *g->k);
    if (g->batch) a.num("batch", *g->batch);
    if (auto gf = g->gflops(duration)) a.real("gflops", *gf);
    if (g->rule->padded) a.flag("padded", true);
  }
  if (l.status != "complete") a.str("status", l.status);
  const int64_t start = ts(p, *at.start_ns), end = ts(p, *at.end_ns);
  device_slice(p, track, "running", start, end, l.name, "kernel", a, flow);
  if (options_.stages) stage_slices(p, track, at, l.seq, l.name);
}

void TimelineWriter::stage_slices(uint32_t p, const DeviceTrack& track,
                                  const model::AlignedTimes& at, uint64_t seq,
                                  const std::string& name) {
  Args s;
  s.unum("seq", seq);
  if (at.queued_ns && at.submit_ns && *at.submit_ns >= *at.queued_ns)
    device_slice(p, track, "queued", ts(p, *at.queued_ns), ts(p, *at.submit_ns), name, "queued", s,
                 0);
  if (at.submit_ns && at.start_ns && *at.start_ns >= *at.submit_ns)
    device_slice(p, track, "submitted", ts(p, *at.submit_ns), ts(p, *at.start_ns), name,
                 "submitted", s, 0);
}

void TimelineWriter::add_transfer(const model::Transfer& t) {
  note_bulk(t.process, false, t.seq);
  ++counts_.transfers;
  const uint32_t p = t.process;
  const auto [host_begin, host_end, on_host, at, on_device, flow] =
      place(t, t.start_ns != kNoTime && t.end_ns != kNoTime);
  if (on_host) {
    Args a;
    a.unum("seq", t.seq)
        .str("op", t.op)
        .unum("bytes", t.bytes)
        .flag("blocking", t.blocking)
        .unum("queue", t.queue_id);
    if (t.status != "complete") a.str("status", t.status);
    if (t.rc != 0) a.num("rc", t.rc);
    slice(p, tracks_.host_thread(p, t.tid), host_begin, host_end, t.api,
          t.blocking ? "api,wait" : "api", a, flow, 0);
  }
  if (!on_device) {
    if (!on_host) ++counts_.untimed;
    return;
  }
  ++counts_.device_slices;
  if (flow) ++counts_.flows;
  const std::string device =
      t.device > 0 && t.device <= run_.devices.size() ? run_.devices[t.device - 1].name : "?";
  DeviceTrack track;
  track.key = options_.per_kernel ? "transfer:" + t.op : "queue:" + std::to_string(t.queue_id);
  track.name = options_.per_kernel ? "transfers " + t.op : queue_name(p, t.queue_id, device);
  // --per-kernel: transfer tracks after the kernel tracks.
  track.order =
      options_.per_kernel ? 100000 + order_of(track.key) : static_cast<int64_t>(t.queue_id);
  const int64_t duration = *at.end_ns - *at.start_ns;
  Args a;
  a.unum("seq", t.seq)
      .str("api", t.api)
      .unum("bytes", t.bytes)
      .unum("queue", t.queue_id)
      .str("device", device);
  a.num("duration_ns", duration).str("layer", layer(t.ranges));
  if (duration > 0)
    a.real("gb_per_s", static_cast<double>(t.bytes) / static_cast<double>(duration));
  const int64_t start = ts(p, *at.start_ns), end = ts(p, *at.end_ns);
  device_slice(p, track, "running", start, end, t.op, "transfer", a, flow);
  if (options_.stages) stage_slices(p, track, at, t.seq, t.op);
}

void TimelineWriter::end() {
  release_all();
  for (const std::string& m : tracks_.metadata_events()) event(m);
  buffer_ += "\n]}\n";
  flush();
}

}  // namespace clprof::output::views
