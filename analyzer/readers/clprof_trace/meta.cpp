// The metadata records of a clprof trace: applying parsed metadata to the model::Run in
// file order (see meta.hpp).
#include "readers/clprof_trace/meta.hpp"

#include <algorithm>

namespace clprof::readers::detail {

void MetaBatch::clear() {
  order.clear();
  devices.clear();
  clock_syncs.clear();
  queues.clear();
  programs.clear();
  builds.clear();
  kernels.clear();
  kernel_devices.clear();
  syncs.clear();
  range_begins.clear();
  blas_calls.clear();
  range_ends.clear();
  marks.clear();
  warnings.clear();
  captures.clear();
  ends.clear();
}

void MetaBatch::drop_last() {
  if (order.empty()) return;
  const Entry e = order.back();
  order.pop_back();
  switch (e.type) {
    case RecordType::Device:
      devices.resize(e.index);
      break;
    case RecordType::ClockSync:
      clock_syncs.resize(e.index);
      break;
    case RecordType::Queue:
      queues.resize(e.index);
      break;
    case RecordType::Program:
      programs.resize(e.index);
      break;
    case RecordType::Build:
      builds.resize(e.index);
      break;
    case RecordType::Kernel:
      kernels.resize(e.index);
      break;
    case RecordType::KernelDevice:
      kernel_devices.resize(e.index);
      break;
    case RecordType::Sync:
      syncs.resize(e.index);
      break;
    case RecordType::RangeBegin:
      if (e.blas) {
        blas_calls.resize(e.index);
      } else {
        range_begins.resize(e.index);
      }
      break;
    case RecordType::RangeEnd:
      range_ends.resize(e.index);
      break;
    case RecordType::Mark:
      marks.resize(e.index);
      break;
    case RecordType::Warning:
      warnings.resize(e.index);
      break;
    case RecordType::Capture:
      captures.resize(e.index);
      break;
    case RecordType::End:
      ends.resize(e.index);
      break;
    case RecordType::Launch:
    case RecordType::Transfer:
      break;
  }
}

std::string range_open_already(uint64_t run_id) {
  return "range_begin record: range " +
         std::to_string(run_id & ((uint64_t{1} << kRangeIdBits) - 1)) +
         " is open already (expected a new id)";
}

void MetaBatch::remove_folded(const std::function<void(size_t, size_t)>& moved) {
  std::vector<Entry> kept;
  std::vector<model::Range> begins;
  std::vector<RangeEndRecord> ends;
  kept.reserve(order.size() / 2 + 16);
  for (size_t i = 0; i < order.size(); ++i) {
    Entry e = order[i];
    if (e.folded) continue;
    if (e.type == RecordType::RangeBegin && !e.blas) {
      begins.push_back(std::move(range_begins[e.index]));
      e.index = static_cast<uint32_t>(begins.size() - 1);
      moved(i, kept.size());
    } else if (e.type == RecordType::RangeEnd) {
      ends.push_back(range_ends[e.index]);
      e.index = static_cast<uint32_t>(ends.size() - 1);
    }
    kept.push_back(e);
  }
  order = std::move(kept);
  range_begins = std::move(begins);
  range_ends = std::move(ends);
}

void TraceBuilder::apply(MetaBatch& batch) {
  reserve_more(run.ranges, batch.range_begins.size());
  reserve_more(run.syncs, batch.syncs.size());
  for (const MetaBatch::Entry& entry : batch.order) {
    if (entry.folded) continue;
    const uint32_t i = entry.index;
    switch (entry.type) {
      case RecordType::Device:
        apply_device(batch.devices[i].first, std::move(batch.devices[i].second));
        break;
      case RecordType::ClockSync: {
        const ClockSyncRecord& c = batch.clock_syncs[i];
        const uint32_t id = device_or_zero(c.device);
        if (id == 0) break;  // a device of no device record: nothing to relate
        model::Device& d = run.devices[id - 1];
        d.has_clock_offset = true;
        d.device_to_host_offset_ns = c.offset_ns;
        d.clock_uncertainty_ns = c.uncertainty_ns;
        d.clock_method = c.method;
        break;
      }
      case RecordType::Queue: {
        QueueRecord& q = batch.queues[i];
        q.queue.device = device_or_zero(q.device);
        run.queues.push_back(std::move(q.queue));
        break;
      }
      case RecordType::Program:
        programs[batch.programs[i].id] = run.programs.size();
        run.programs.push_back(std::move(batch.programs[i]));
        break;
      case RecordType::Build: {
        BuildRecord& b = batch.builds[i];
        for (uint64_t local : b.devices) b.build.devices.push_back(device_or_zero(local));
        if (b.build.rc == 0) {
          auto it = programs.find(b.build.program_id);
          if (it != programs.end()) run.programs[it->second].options = b.build.options;
        }
        run.builds.push_back(std::move(b.build));
        break;
      }
      case RecordType::Kernel:
        run.kernels.push_back(std::move(batch.kernels[i]));
        break;
      case RecordType::KernelDevice: {
        KernelDeviceRecord& k = batch.kernel_devices[i];
        k.facts.device = device_or_zero(k.device);
        run.kernel_devices.push_back(std::move(k.facts));
        break;
      }
      case RecordType::Sync:
        run.syncs.push_back(std::move(batch.syncs[i]));
        break;
      case RecordType::RangeBegin: {
        if (entry.blas) {
          model::BlasCall& c = batch.blas_calls[i];
          if (ranges.count(c.id) || blas_open.count(c.id)) {
            problems.skipped.add(entry.offset, range_open_already(c.id));
            break;
          }
          blas_open[c.id] = run.blas_calls.size();
          run.blas_calls.push_back(std::move(c));
          break;
        }
        model::Range& r = batch.range_begins[i];
        if (ranges.count(r.id) || blas_open.count(r.id)) {
          problems.skipped.add(entry.offset, range_open_already(r.id));
          break;
        }
        ranges[r.id] = run.ranges.size();
        run.ranges.push_back(std::move(r));
        break;
      }
      case RecordType::RangeEnd: {
        const RangeEndRecord& e = batch.range_ends[i];
        auto it = ranges.find(e.id);
        if (it == ranges.end()) {
          if (auto b = blas_open.find(e.id); b != blas_open.end()) {
            model::BlasCall& c = run.blas_calls[b->second];
            c.host_end_ns = e.end_ns;
            c.status = e.status;
            blas_open.erase(b);
            break;
          }
          problems.skipped.add(entry.offset,
                               "range_end record: range " +
                                   std::to_string(e.id & ((uint64_t{1} << kRangeIdBits) - 1)) +
                                   " is not open (expected the id of a range_begin before it)");
          break;
        }
        run.ranges[it->second].host_end_ns = e.end_ns;
        run.ranges[it->second].left_open = e.open;
        ranges.erase(it);  // ended: keeps the index as small as the open ranges
        break;
      }
      case RecordType::Mark:
        run.marks.push_back(std::move(batch.marks[i]));
        break;
      case RecordType::Warning:
        proc().warnings.push_back(std::move(batch.warnings[i]));
        break;
      case RecordType::Capture:
        proc().captures.push_back(std::move(batch.captures[i]));
        break;
      case RecordType::End: {
        EndRecord& e = batch.ends[i];
        proc().incomplete_events = e.incomplete;
        proc().dropped_records = e.dropped;
        proc().end_host_ns = e.host_ns;
        proc().record_counts = std::move(e.counts);
        proc().live_objects = std::move(e.live);
        end_seen = true;
        break;
      }
      case RecordType::Launch:
      case RecordType::Transfer:
        break;
    }
  }
  batch.clear();
}

void TraceBuilder::apply_device(uint64_t local, model::Device d) {
  auto it = devices.find(local);
  if (it != devices.end()) {
    // A repeated device record refreshes the description, the id and clock stay.
    d.id = it->second;
    d.process = process;
    model::Device& old = run.devices[d.id - 1];
    d.has_clock_offset = old.has_clock_offset;
    d.device_to_host_offset_ns = old.device_to_host_offset_ns;
    d.clock_uncertainty_ns = old.clock_uncertainty_ns;
    d.clock_method = std::move(old.clock_method);
    old = std::move(d);
    return;
  }
  d.id = static_cast<uint32_t>(run.devices.size() + 1);
  d.process = process;
  devices.emplace(local, d.id);
  run.devices.push_back(std::move(d));
}

void TraceBuilder::finish() {
  for (auto& [i, local] : launch_fixups) run.launches[i].device = device_or_zero(local);
  for (auto& [i, local] : transfer_fixups) run.transfers[i].device = device_or_zero(local);
  launch_fixups.clear();
  transfer_fixups.clear();
}

}  // namespace clprof::readers::detail
