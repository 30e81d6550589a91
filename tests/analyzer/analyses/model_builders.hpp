// Building model objects for unit tests.
#pragma once

#include <string>
#include <vector>

#include "model.hpp"

namespace unit {

// A timed launch: device [start, start + duration], host [host, host + 10].
inline clprof::model::Launch launch(const std::string& name, int64_t start, int64_t duration,
                                    std::vector<uint64_t> ranges = {}, uint64_t seq = 0) {
  clprof::model::Launch l;
  l.name = name;
  l.seq = seq;
  l.device = 1;
  l.queued_ns = start - 30;
  l.submit_ns = start - 20;
  l.start_ns = start;
  l.end_ns = start + duration;
  l.host_begin_ns = start / 10;
  l.host_end_ns = start / 10 + 10;
  l.ranges = std::move(ranges);
  return l;
}

inline clprof::model::KernelArg scalar(uint32_t size, uint64_t value) {
  clprof::model::KernelArg a;
  a.kind = clprof::model::KernelArg::Kind::Scalar;
  a.size = size;
  a.has_value = true;
  a.value = value;
  return a;
}

inline clprof::model::KernelArg buffer(uint64_t id) {
  clprof::model::KernelArg a;
  a.kind = clprof::model::KernelArg::Kind::Buffer;
  a.size = 8;
  a.object_id = id;
  return a;
}

inline clprof::model::Range range(uint64_t id, uint64_t parent, const std::string& name,
                                  int64_t begin = clprof::model::kNoTime,
                                  int64_t end = clprof::model::kNoTime) {
  clprof::model::Range r;
  r.id = id;
  r.parent = parent;
  r.name = name;
  r.host_begin_ns = begin;
  r.host_end_ns = end;
  return r;
}

// A Run of one process with the devices `device_names`, given the Run-wide ids 1, 2, ...
// in that order.
inline clprof::model::Run one_process_run(const std::vector<std::string>& device_names) {
  clprof::model::Run run;
  run.processes.resize(1);
  for (size_t i = 0; i < device_names.size(); ++i) {
    clprof::model::Device& d = run.devices.emplace_back();
    d.id = static_cast<uint32_t>(i + 1);
    d.name = device_names[i];
  }
  return run;
}

}  // namespace unit
