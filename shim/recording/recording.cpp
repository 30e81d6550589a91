#include "recording/recording.hpp"

#include <cstring>

#include "recording/objects.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {
namespace {

// Fields every launch/transfer/sync shares. The caller publishes the slot.
// Host times are stored as ticks; the harvester converts them when it drains the ring.
void fill_common(OpRecord& r, RecordKind kind, HookScope& scope, const char* api, cl_int rc,
                 std::uint64_t end_ticks) {
  r.kind = kind;
  r.api = api;
  r.rc = rc;
  r.tid = scope.thread().tid;
  r.host_begin_ns = scope.begin_ns();
  r.host_end_ns = static_cast<std::int64_t>(end_ticks);
  r.status = rc == CL_SUCCESS ? OpStatus::Incomplete : OpStatus::NotEnqueued;
  r.exec_status = 0;
  r.call = scope.thread().blas_call;
  r.event = nullptr;
  r.app_event = false;
  r.line = nullptr;
  r.n_args = 0;
  r.total_args = 0;
  r.n_ranges =
      static_cast<std::uint8_t>(scope.thread().ranges.copy_outermost(r.ranges, kMaxRecordedRanges));
}

void attach_event(OpRecord& r, EnqueueScope& scope, cl_int rc) {
  bool is_app = false;
  cl_event e = scope.take_event(rc, is_app);
  if (e && is_app) event_ref_add(e);
  r.event = e;
  r.app_event = is_app;
  // No event to wait for (the driver gave none): the record is final as is.
  if (!e && rc == CL_SUCCESS) r.status = OpStatus::Incomplete;
}

}  // namespace

void record_launch(EnqueueScope& scope, const char* api, cl_int rc, cl_command_queue queue,
                   cl_kernel kernel, cl_uint work_dim, const size_t* gwo, const size_t* gws,
                   const size_t* lws, std::uint64_t capture, std::uint64_t end_ticks) {
  if (end_ticks == 0) end_ticks = host_ticks_now();
  QueueInfo* q = queue_info(queue);
  KernelInfo* k = kernel_info(kernel);
  auto slot = claim_record();
  OpRecord& r = *slot.value;
  fill_common(r, RecordKind::Launch, scope, api, rc, end_ticks);
  r.queue_id = q ? q->id : 0;
  r.in_order_queue = q && !q->out_of_order;
  r.device_id = q ? q->device_id : 0;
  r.context_id = q ? q->context_id : (k ? k->context_id : 0);
  r.kernel_id = k ? k->id : 0;
  r.program_id = k ? k->program_id : 0;
  // The name as the trace spells it (record_sink_kernel_name); nullptr for a launch
  // without a kernel (an app's error, passed through) or one whose name is not known:
  // the formatter writes the empty name.
  r.kernel_name = k ? k->name : nullptr;
  r.capture = capture;
  const unsigned dims = work_dim <= 3 ? work_dim : 3;
  r.work_dim = static_cast<std::uint8_t>(dims);
  r.has_gwo = gwo != nullptr;
  r.has_lws = lws != nullptr;
  for (unsigned d = 0; d < dims; ++d) {
    r.gws[d] = gws ? gws[d] : 1;
    r.gwo[d] = gwo ? gwo[d] : 0;
    r.lws[d] = lws ? lws[d] : 0;
  }
  if (k) {
    r.total_args = static_cast<std::uint16_t>(k->num_args);
    r.n_args =
        static_cast<std::uint16_t>(k->num_args < kMaxRecordedArgs ? k->num_args : kMaxRecordedArgs);
    std::memcpy(static_cast<void*>(r.args), k->args, sizeof(ArgSnapshot) * r.n_args);
  }
  attach_event(r, scope, rc);
  publish_record(slot);
}

void record_transfer(EnqueueScope& scope, const char* api, TransferOp op, cl_int rc,
                     cl_command_queue queue, std::uint64_t bytes, bool blocking) {
  const std::uint64_t end_ticks = host_ticks_now();
  QueueInfo* q = queue_info(queue);
  auto slot = claim_record();
  OpRecord& r = *slot.value;
  fill_common(r, RecordKind::Transfer, scope, api, rc, end_ticks);
  r.op = op;
  r.bytes = bytes;
  r.blocking = blocking;
  r.queue_id = q ? q->id : 0;
  r.in_order_queue = q && !q->out_of_order;
  r.device_id = q ? q->device_id : 0;
  r.context_id = q ? q->context_id : 0;
  attach_event(r, scope, rc);
  publish_record(slot);
  // A blocking call returns once its command (and on an in-order queue, all before it) is
  // done: a sync point, as clFinish is.
  if (blocking && rc == CL_SUCCESS) app_sync_point(end_ticks);
}

void record_sync(HookScope& scope, const char* api, cl_int rc, cl_command_queue queue) {
  const std::uint64_t end_ticks = host_ticks_now();
  QueueInfo* q = queue ? queue_info(queue) : nullptr;
  auto slot = claim_record();
  OpRecord& r = *slot.value;
  fill_common(r, RecordKind::Sync, scope, api, rc, end_ticks);
  r.queue_id = q ? q->id : 0;
  r.status = OpStatus::Complete;
  publish_record(slot);
  // Everything enqueued before this wait may be done now (Harvester::app_sync_point says
  // what it does with that).
  app_sync_point(end_ticks);
}

}  // namespace clprof::shim
