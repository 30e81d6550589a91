// The metadata records of a clprof trace: classifying records, and applying parsed
// metadata to the model::Run in file order (see clprof_trace_meta.hpp).
#include "readers/clprof_trace/meta.hpp"

#include <algorithm>

#include "clprof/trace_schema.hpp"

namespace clprof::readers::detail {

namespace tf = clprof::trace;

RecordKind classify(std::string_view type) {
  if (type == tf::launch::kTypeName) return RecordKind::Launch;
  if (type == tf::transfer::kTypeName) return RecordKind::Transfer;
  if (type == tf::sync::kTypeName) return RecordKind::Sync;
  if (type == tf::range_begin::kTypeName) return RecordKind::RangeBegin;
  if (type == tf::range_end::kTypeName) return RecordKind::RangeEnd;
  if (type == tf::device::kTypeName) return RecordKind::Device;
  if (type == tf::clock_sync::kTypeName) return RecordKind::ClockSync;
  if (type == tf::program::kTypeName) return RecordKind::Program;
  if (type == tf::build::kTypeName) return RecordKind::Build;
  if (type == tf::mark::kTypeName) return RecordKind::Mark;
  if (type == tf::warning::kTypeName) return RecordKind::Warning;
  if (type == tf::end::kTypeName) return RecordKind::End;
  return RecordKind::Ignored;  // queue, kernel and record types of later versions
}

void MetaBatch::drop_last() {
  if (order.empty()) return;
  auto [kind, i] = order.back();
  order.pop_back();
  switch (kind) {
    case RecordKind::Device:
      devices.resize(i);
      break;
    case RecordKind::ClockSync:
      clock_syncs.resize(i);
      break;
    case RecordKind::Program:
      programs.resize(i);
      break;
    case RecordKind::Build:
      builds.resize(i);
      break;
    case RecordKind::Sync:
      syncs.resize(i);
      break;
    case RecordKind::RangeBegin:
      range_begins.resize(i);
      break;
    case RecordKind::RangeEnd:
      range_ends.resize(i);
      break;
    case RecordKind::Mark:
      marks.resize(i);
      break;
    case RecordKind::Warning:
      warnings.resize(i);
      break;
    case RecordKind::End:
      ends.resize(i);
      break;
    default:
      break;
  }
}

void TraceBuilder::apply(MetaBatch& batch) {
  reserve_more(run.ranges, batch.range_begins.size());
  reserve_more(run.syncs, batch.syncs.size());
  for (auto [kind, i] : batch.order) {
    switch (kind) {
      case RecordKind::Device:
        apply_device(batch.devices[i].first, std::move(batch.devices[i].second));
        break;
      case RecordKind::ClockSync: {
        const ClockSyncRecord& c = batch.clock_syncs[i];
        uint32_t id = device_or_zero(c.device);
        if (id == 0 || !c.has_offset) break;
        model::Device& d = run.devices[id - 1];
        d.has_clock_offset = true;
        d.device_to_host_offset_ns = c.offset_ns;
        d.clock_method = c.method;
        break;
      }
      case RecordKind::Program:
        programs[batch.programs[i].id] = run.programs.size();
        run.programs.push_back(std::move(batch.programs[i]));
        break;
      case RecordKind::Build: {
        BuildRecord& b = batch.builds[i];
        for (uint64_t local : b.devices) b.build.devices.push_back(device_or_zero(local));
        if (b.build.rc == 0) {
          auto it = programs.find(b.build.program_id);
          if (it != programs.end()) run.programs[it->second].options = b.build.options;
        }
        run.builds.push_back(std::move(b.build));
        break;
      }
      case RecordKind::Sync:
        run.syncs.push_back(std::move(batch.syncs[i]));
        break;
      case RecordKind::RangeBegin:
        ranges[batch.range_begins[i].id] = run.ranges.size();
        run.ranges.push_back(std::move(batch.range_begins[i]));
        break;
      case RecordKind::RangeEnd: {
        const RangeEndRecord& e = batch.range_ends[i];
        auto it = ranges.find(e.id);
        if (it == ranges.end()) break;  // begin lost (e.g. dropped): nothing to close
        run.ranges[it->second].host_end_ns = e.end_ns;
        run.ranges[it->second].left_open = e.open;
        ranges.erase(it);  // ended: keeps the index as small as the open ranges
        break;
      }
      case RecordKind::Mark:
        run.marks.push_back(std::move(batch.marks[i]));
        break;
      case RecordKind::Warning:
        proc().warnings.push_back(std::move(batch.warnings[i]));
        break;
      case RecordKind::End:
        proc().incomplete_events = batch.ends[i].incomplete;
        proc().dropped_records = batch.ends[i].dropped;
        end_seen = true;
        break;
      default:
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
    model::Device& old = run.devices[d.id - 1];
    d.has_clock_offset = old.has_clock_offset;
    d.device_to_host_offset_ns = old.device_to_host_offset_ns;
    d.clock_method = std::move(old.clock_method);
    old = std::move(d);
    return;
  }
  d.id = static_cast<uint32_t>(run.devices.size() + 1);
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
