// The record types of a clprof trace, field by field: each record's fields, named by the
// schema (trace_schema.hpp), decoded with the decoder of their schema type (checked at
// compile time by CLPROF_FIELD) into the model (TraceParser::parse_*, records.hpp).
#include "readers/clprof_trace/records.hpp"
#include "readers/clprof_trace/schema_field.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;
namespace od = simdjson::ondemand;

void TraceParser::parse_launch(od::object& obj) {
  model::Launch& l = launch;
  reset_launch();
  bool args = false;
  using F = ts::launch::F;
  for_each_schema_field(obj, ts::launch::kFields, "launch record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::seq:
        l.seq = seq_ = get_seq(v, CLPROF_FIELD(launch, seq, Seq));
        break;
      case F::tid:
        l.tid = get_uint(v, CLPROF_FIELD(launch, tid, Uint));
        break;
      case F::rc:
        l.rc = get_int32(v, CLPROF_FIELD(launch, rc, Int32));
        break;
      case F::api:
        l.api.assign(get_string(v, CLPROF_FIELD(launch, api, String)));
        break;
      case F::kernel:
        l.name.assign(get_string(v, CLPROF_FIELD(launch, kernel, String)));
        break;
      case F::kernel_id:
        l.kernel_id = get_uint(v, CLPROF_FIELD(launch, kernel_id, Uint));
        break;
      case F::program_id:
        l.program_id = get_uint(v, CLPROF_FIELD(launch, program_id, Uint));
        break;
      case F::queue_id:
        l.queue_id = get_uint(v, CLPROF_FIELD(launch, queue_id, Uint));
        break;
      case F::context_id:
        l.context_id = get_uint(v, CLPROF_FIELD(launch, context_id, Uint));
        break;
      case F::device_id:
        l.device = map_device(get_uint(v, CLPROF_FIELD(launch, device_id, Uint)));
        break;
      case F::gwo:
        if (!get_work_sizes_or_null(v, CLPROF_FIELD(launch, gwo, WorkSizesOrNull), l.gwo))
          l.gwo.clear();
        break;
      case F::gws:
        get_work_sizes(v, CLPROF_FIELD(launch, gws, WorkSizes), l.gws);
        break;
      case F::lws: {
        std::vector<uint64_t>& lws = lws_present();
        if (!get_work_sizes_or_null(v, CLPROF_FIELD(launch, lws, WorkSizesOrNull), lws)) lws_null();
        break;
      }
      case F::args:
        get_args(v, CLPROF_FIELD(launch, args, Args));
        args = true;
        break;
      case F::args_total:
        l.args_total = get_uint32(v, CLPROF_FIELD(launch, args_total, Uint32));
        break;
      case F::host_ns:
        get_host_span(v, CLPROF_FIELD(launch, host_ns, HostSpan), l.host_begin_ns, l.host_end_ns);
        break;
      case F::device_ns: {
        int64_t t[4];
        if (get_device_times(v, CLPROF_FIELD(launch, device_ns, DeviceTimes), t)) {
          l.queued_ns = t[0];
          l.submit_ns = t[1];
          l.start_ns = t[2];
          l.end_ns = t[3];
        }
        break;
      }
      case F::status:
        l.status.assign(get_status(v, CLPROF_FIELD(launch, status, Status)));
        break;
      case F::exec_status:
        l.exec_status = get_int32(v, CLPROF_FIELD(launch, exec_status, Int32));
        break;
      case F::ranges:
        get_range_ids(v, CLPROF_FIELD(launch, ranges, RangeIds), l.ranges);
        break;
      case F::call:
        l.call = get_range_id(v, CLPROF_FIELD(launch, call, RangeId));
        break;
      case F::capture:
        l.capture = get_uint(v, CLPROF_FIELD(launch, capture, Uint));
        break;
      case F::kCount:
        break;
    }
  });
  if (!args) trim_args(0);
}

void TraceParser::parse_transfer(od::object& obj) {
  model::Transfer& t = transfer;
  t.seq = 0;
  t.process = process_;
  t.tid = 0;
  t.api.clear();
  t.op.clear();
  t.queue_id = 0;
  t.device = 0;
  t.bytes = 0;
  t.blocking = false;
  t.host_begin_ns = t.host_end_ns = model::kNoTime;
  t.queued_ns = t.submit_ns = t.start_ns = t.end_ns = model::kNoTime;
  t.status.assign(ts::name(ts::Status::Complete));
  t.rc = 0;
  t.exec_status = 0;
  t.ranges.clear();
  t.call = 0;
  using F = ts::transfer::F;
  for_each_schema_field(obj, ts::transfer::kFields, "transfer record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::seq:
        t.seq = seq_ = get_seq(v, CLPROF_FIELD(transfer, seq, Seq));
        break;
      case F::tid:
        t.tid = get_uint(v, CLPROF_FIELD(transfer, tid, Uint));
        break;
      case F::rc:
        t.rc = get_int32(v, CLPROF_FIELD(transfer, rc, Int32));
        break;
      case F::api:
        t.api.assign(get_string(v, CLPROF_FIELD(transfer, api, String)));
        break;
      case F::op:
        t.op.assign(get_transfer_op(v, CLPROF_FIELD(transfer, op, TransferOp)));
        break;
      case F::queue_id:
        t.queue_id = get_uint(v, CLPROF_FIELD(transfer, queue_id, Uint));
        break;
      case F::device_id:
        t.device = map_device(get_uint(v, CLPROF_FIELD(transfer, device_id, Uint)));
        break;
      case F::bytes:
        t.bytes = get_uint(v, CLPROF_FIELD(transfer, bytes, Uint));
        break;
      case F::blocking:
        t.blocking = get_bool(v, CLPROF_FIELD(transfer, blocking, Bool));
        break;
      case F::host_ns:
        get_host_span(v, CLPROF_FIELD(transfer, host_ns, HostSpan), t.host_begin_ns, t.host_end_ns);
        break;
      case F::device_ns: {
        int64_t x[4];
        if (get_device_times(v, CLPROF_FIELD(transfer, device_ns, DeviceTimes), x)) {
          t.queued_ns = x[0];
          t.submit_ns = x[1];
          t.start_ns = x[2];
          t.end_ns = x[3];
        }
        break;
      }
      case F::status:
        t.status.assign(get_status(v, CLPROF_FIELD(transfer, status, Status)));
        break;
      case F::exec_status:
        t.exec_status = get_int32(v, CLPROF_FIELD(transfer, exec_status, Int32));
        break;
      case F::ranges:
        get_range_ids(v, CLPROF_FIELD(transfer, ranges, RangeIds), t.ranges);
        break;
      case F::call:
        t.call = get_range_id(v, CLPROF_FIELD(transfer, call, RangeId));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_device(od::object& obj) {
  auto& slot = meta_->add(RecordType::Device, meta_->devices);
  model::Device& d = slot.second;
  using F = ts::device::F;
  for_each_schema_field(obj, ts::device::kFields, "device record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::id:
        slot.first = get_id(v, CLPROF_FIELD(device, id, Id));
        break;
      case F::name:
        d.name.assign(get_string(v, CLPROF_FIELD(device, name, String)));
        break;
      case F::vendor:
        d.vendor.assign(get_string(v, CLPROF_FIELD(device, vendor, String)));
        break;
      case F::platform:
        d.platform.assign(get_string(v, CLPROF_FIELD(device, platform, String)));
        break;
      case F::platform_version:
        d.platform_version.assign(get_string(v, CLPROF_FIELD(device, platform_version, String)));
        break;
      case F::version:
        d.version.assign(get_string(v, CLPROF_FIELD(device, version, String)));
        break;
      case F::driver_version:
        d.driver_version.assign(get_string(v, CLPROF_FIELD(device, driver_version, String)));
        break;
      case F::device_type:
        d.type.assign(get_string(v, CLPROF_FIELD(device, device_type, String)));
        break;
      case F::compute_units:
        d.compute_units = get_uint32(v, CLPROF_FIELD(device, compute_units, Uint32));
        break;
      case F::max_clock_mhz:
        d.max_clock_mhz = get_uint32(v, CLPROF_FIELD(device, max_clock_mhz, Uint32));
        break;
      case F::global_mem_bytes:
        d.global_mem_bytes = get_uint(v, CLPROF_FIELD(device, global_mem_bytes, Uint));
        break;
      case F::local_mem_bytes:
        d.local_mem_bytes = get_uint(v, CLPROF_FIELD(device, local_mem_bytes, Uint));
        break;
      case F::timer_resolution_ns:
        d.timer_resolution_ns = get_uint(v, CLPROF_FIELD(device, timer_resolution_ns, Uint));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_clock_sync(od::object& obj) {
  ClockSyncRecord& c = meta_->add(RecordType::ClockSync, meta_->clock_syncs);
  using F = ts::clock_sync::F;
  for_each_schema_field(
      obj, ts::clock_sync::kFields, "clock_sync record", [&](size_t i, od::value& v) {
        switch (static_cast<F>(i)) {
          case F::device_id:
            c.device = get_uint(v, CLPROF_FIELD(clock_sync, device_id, Uint));
            break;
          case F::method:
            c.method.assign(get_string(v, CLPROF_FIELD(clock_sync, method, String)));
            break;
          case F::offset_ns:
            c.offset_ns = get_int(v, CLPROF_FIELD(clock_sync, offset_ns, Int));
            break;
          case F::uncertainty_ns:
            c.uncertainty_ns = get_uint(v, CLPROF_FIELD(clock_sync, uncertainty_ns, Uint));
            break;
          case F::kCount:
            break;
        }
      });
}

void TraceParser::parse_queue(od::object& obj) {
  QueueRecord& q = meta_->add(RecordType::Queue, meta_->queues);
  q.queue.process = process_;
  using F = ts::queue::F;
  for_each_schema_field(obj, ts::queue::kFields, "queue record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::id:
        q.queue.id = get_id(v, CLPROF_FIELD(queue, id, Id));
        break;
      case F::context_id:
        q.queue.context_id = get_uint(v, CLPROF_FIELD(queue, context_id, Uint));
        break;
      case F::device_id:
        q.device = get_uint(v, CLPROF_FIELD(queue, device_id, Uint));
        break;
      case F::properties:
        q.queue.properties = get_uint(v, CLPROF_FIELD(queue, properties, Uint));
        break;
      case F::profiling_added:
        q.queue.profiling_added = get_bool(v, CLPROF_FIELD(queue, profiling_added, Bool));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_program(od::object& obj) {
  model::Program& p = meta_->add(RecordType::Program, meta_->programs);
  p.process = process_;
  using F = ts::program::F;
  for_each_schema_field(obj, ts::program::kFields, "program record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::id:
        p.id = get_id(v, CLPROF_FIELD(program, id, Id));
        break;
      case F::context_id:
        p.context_id = get_uint(v, CLPROF_FIELD(program, context_id, Uint));
        break;
      case F::origin:
        p.origin.assign(get_string(v, CLPROF_FIELD(program, origin, String)));
        break;
      case F::source_hash:
        p.source_hash.assign(get_string(v, CLPROF_FIELD(program, source_hash, String)));
        break;
      case F::source_bytes:
        p.source_bytes = get_uint(v, CLPROF_FIELD(program, source_bytes, Uint));
        break;
      case F::source:
        p.source.assign(get_string(v, CLPROF_FIELD(program, source, String)));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_build(od::object& obj) {
  BuildRecord& rec = meta_->add(RecordType::Build, meta_->builds);
  model::Build& b = rec.build;
  b.process = process_;
  using F = ts::build::F;
  for_each_schema_field(obj, ts::build::kFields, "build record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::api:
        b.api.assign(get_string(v, CLPROF_FIELD(build, api, String)));
        break;
      case F::program_id:
        b.program_id = get_uint(v, CLPROF_FIELD(build, program_id, Uint));
        break;
      case F::options:
        b.options.assign(get_string(v, CLPROF_FIELD(build, options, String)));
        break;
      case F::device_ids:
        get_uints(v, CLPROF_FIELD(build, device_ids, Uints), rec.devices);
        break;
      case F::host_ns:
        get_host_span(v, CLPROF_FIELD(build, host_ns, HostSpan), b.host_begin_ns, b.host_end_ns);
        break;
      case F::rc:
        b.rc = get_int32(v, CLPROF_FIELD(build, rc, Int32));
        break;
      case F::build_status:
        get_int32s(v, CLPROF_FIELD(build, build_status, Int32s), b.build_status);
        break;
      case F::kernels:
        get_strings(v, CLPROF_FIELD(build, kernels, Strings), b.kernels);
        break;
      case F::source_hash:
        b.source_hash.assign(get_string(v, CLPROF_FIELD(build, source_hash, String)));
        break;
      case F::logs:
        get_strings(v, CLPROF_FIELD(build, logs, Strings), b.logs);
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_kernel(od::object& obj) {
  model::Kernel& k = meta_->add(RecordType::Kernel, meta_->kernels);
  k.process = process_;
  using F = ts::kernel::F;
  for_each_schema_field(obj, ts::kernel::kFields, "kernel record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::id:
        k.id = get_id(v, CLPROF_FIELD(kernel, id, Id));
        break;
      case F::program_id:
        k.program_id = get_uint(v, CLPROF_FIELD(kernel, program_id, Uint));
        break;
      case F::context_id:
        k.context_id = get_uint(v, CLPROF_FIELD(kernel, context_id, Uint));
        break;
      case F::name:
        k.name.assign(get_string(v, CLPROF_FIELD(kernel, name, String)));
        break;
      case F::num_args:
        k.num_args = get_uint32(v, CLPROF_FIELD(kernel, num_args, Uint32));
        break;
      case F::arg_types:
        get_strings(v, CLPROF_FIELD(kernel, arg_types, Strings), k.arg_types);
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_sync(od::object& obj) {
  model::Sync& s = meta_->add(RecordType::Sync, meta_->syncs);
  s.process = process_;
  using F = ts::sync::F;
  for_each_schema_field(obj, ts::sync::kFields, "sync record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::seq:
        s.seq = seq_ = get_seq(v, CLPROF_FIELD(sync, seq, Seq));
        break;
      case F::tid:
        s.tid = get_uint(v, CLPROF_FIELD(sync, tid, Uint));
        break;
      case F::rc:
        s.rc = get_int32(v, CLPROF_FIELD(sync, rc, Int32));
        break;
      case F::api:
        s.api.assign(get_string(v, CLPROF_FIELD(sync, api, String)));
        break;
      case F::queue_id:
        s.queue_id = get_uint(v, CLPROF_FIELD(sync, queue_id, Uint));
        break;
      case F::host_ns:
        get_host_span(v, CLPROF_FIELD(sync, host_ns, HostSpan), s.host_begin_ns, s.host_end_ns);
        break;
      case F::call:
        s.call = get_range_id(v, CLPROF_FIELD(sync, call, RangeId));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_range_begin(od::object& obj) {
  model::Range r;
  r.process = process_;
  model::BlasCall call;
  bool blas = false;
  const char* at = first_non_space();
  using F = ts::range_begin::F;
  for_each_schema_field(
      obj, ts::range_begin::kFields, "range_begin record", [&](size_t i, od::value& v) {
        switch (static_cast<F>(i)) {
          case F::id:
            r.id = get_range_id(v, CLPROF_FIELD(range_begin, id, RangeId));
            break;
          case F::parent:
            r.parent = get_range_id(v, CLPROF_FIELD(range_begin, parent, RangeId));
            break;
          case F::name:
            r.name.assign(get_string(v, CLPROF_FIELD(range_begin, name, String)));
            break;
          case F::tid:
            r.tid = get_uint(v, CLPROF_FIELD(range_begin, tid, Uint));
            break;
          case F::host_ns:
            r.host_begin_ns = get_host_instant(v, CLPROF_FIELD(range_begin, host_ns, HostInstant));
            break;
          case F::blas:
            get_blas_call(v, CLPROF_FIELD(range_begin, blas, Object), call);
            blas = true;
            break;
          case F::kCount:
            break;
        }
      });
  if (r.id == 0) fail_schema(at, "range_begin record: expected a range id from 1");
  if (!blas) {
    meta_->add(RecordType::RangeBegin, meta_->range_begins) = std::move(r);
    return;
  }
  // A BLAS call: not one of the app's ranges (Run::blas_calls).
  call.id = r.id;
  call.parent = r.parent;
  call.process = r.process;
  call.tid = r.tid;
  call.host_begin_ns = r.host_begin_ns;
  meta_->add_blas_call() = std::move(call);
}

void TraceParser::parse_range_end(od::object& obj) {
  RangeEndRecord& r = meta_->add(RecordType::RangeEnd, meta_->range_ends);
  const char* at = first_non_space();
  using F = ts::range_end::F;
  for_each_schema_field(
      obj, ts::range_end::kFields, "range_end record", [&](size_t i, od::value& v) {
        switch (static_cast<F>(i)) {
          case F::id:
            r.id = get_range_id(v, CLPROF_FIELD(range_end, id, RangeId));
            break;
          case F::tid:
            get_uint(v, CLPROF_FIELD(range_end, tid, Uint));  // its begin's
            break;
          case F::host_ns:
            r.end_ns = get_host_instant(v, CLPROF_FIELD(range_end, host_ns, HostInstant));
            break;
          case F::open:
            r.open = get_bool(v, CLPROF_FIELD(range_end, open, Bool));
            break;
          case F::status:
            r.status = get_int32(v, CLPROF_FIELD(range_end, status, Int32));
            break;
          case F::kCount:
            break;
        }
      });
  if (r.id == 0) fail_schema(at, "range_end record: expected a range id from 1");
}

void TraceParser::parse_mark(od::object& obj) {
  model::Run::Mark& m = meta_->add(RecordType::Mark, meta_->marks);
  m.process = process_;
  using F = ts::mark::F;
  for_each_schema_field(obj, ts::mark::kFields, "mark record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::name:
        m.name.assign(get_string(v, CLPROF_FIELD(mark, name, String)));
        break;
      case F::tid:
        m.tid = get_uint(v, CLPROF_FIELD(mark, tid, Uint));
        break;
      case F::host_ns:
        m.host_ns = get_host_instant(v, CLPROF_FIELD(mark, host_ns, HostInstant));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_capture(od::object& obj) {
  model::Capture& c = meta_->add(RecordType::Capture, meta_->captures);
  using F = ts::capture::F;
  for_each_schema_field(obj, ts::capture::kFields, "capture record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::id:
        c.id = get_uint(v, CLPROF_FIELD(capture, id, Id));
        break;
      case F::kernel:
        c.kernel.assign(get_string(v, CLPROF_FIELD(capture, kernel, String)));
        break;
      case F::status:
        c.status.assign(get_string(v, CLPROF_FIELD(capture, status, String)));
        break;
      case F::reason:
        c.reason.assign(get_string(v, CLPROF_FIELD(capture, reason, String)));
        break;
      case F::dir:
        c.dir.assign(get_string(v, CLPROF_FIELD(capture, dir, String)));
        break;
      case F::files:
        get_strings(v, CLPROF_FIELD(capture, files, Strings), c.files);
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_warning(od::object& obj) {
  model::ShimWarning& w = meta_->add(RecordType::Warning, meta_->warnings);
  using F = ts::warning::F;
  for_each_schema_field(obj, ts::warning::kFields, "warning record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::message:
        w.message.assign(get_string(v, CLPROF_FIELD(warning, message, String)));
        break;
      case F::host_ns:
        w.host_ns = get_host_instant(v, CLPROF_FIELD(warning, host_ns, HostInstant));
        break;
      case F::kCount:
        break;
    }
  });
}

void TraceParser::parse_end(od::object& obj) {
  EndRecord& e = meta_->add(RecordType::End, meta_->ends);
  using F = ts::end::F;
  for_each_schema_field(obj, ts::end::kFields, "end record", [&](size_t i, od::value& v) {
    switch (static_cast<F>(i)) {
      case F::host_ns:
        e.host_ns = get_host_instant(v, CLPROF_FIELD(end, host_ns, HostInstant));
        break;
      case F::counts:
        get_count_map(v, CLPROF_FIELD(end, counts, CountMap), e.counts);
        break;
      case F::incomplete:
        e.incomplete = get_uint(v, CLPROF_FIELD(end, incomplete, Uint));
        break;
      case F::dropped:
        e.dropped = get_uint(v, CLPROF_FIELD(end, dropped, Uint));
        break;
      case F::kCount:
        break;
    }
  });
}

}  // namespace clprof::readers::detail
