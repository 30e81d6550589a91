// Commands: kernel launches, transfers, markers and barriers. Each checks its arguments,
// does its work on host memory at once, then finish_command() numbers it, stamps its
// times and hands out its event (README.md, "Deterministic timestamps").
#include "fake_internal.hpp"

namespace clprof::fake {
namespace {

cl_int check_wait_list(cl_uint n, const cl_event* list) {
  if ((n == 0) != (list == nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; ++i)
    if (!list[i]) return CL_INVALID_EVENT_WAIT_LIST;
  return CL_SUCCESS;
}

// Numbers a successfully validated command, stamps its times and hands out its event.
cl_int finish_command(cl_command_queue q, cl_command_type type, std::uint64_t duration_ns,
                      bool blocking, const KernelInfo* kernel, cl_event* event_out) {
  const std::uint64_t n = g_commands.fetch_add(1, std::memory_order_relaxed) + 1;
  const Config& cfg = config();
  EventMode mode = cfg.event_mode;
  if (mode != EventMode::kImmediate && !cfg.event_mode_kernel.empty() &&
      !(kernel && kernel->name == cfg.event_mode_kernel))
    mode = EventMode::kImmediate;
  if (blocking) {
    // In-order queue: a blocking command returns after everything before it is done.
    flush_queue(q, false);
    mode = EventMode::kImmediate;
  }
  if (!event_out) return CL_SUCCESS;
  cl_event e = new_event();
  e->queue = q;
  e->context = q->context;
  e->command_type = type;
  const std::uint64_t queued = kQueuedStep * n;
  e->times_ns[0] = queued;
  e->times_ns[1] = queued + kSubmitDelay;
  e->times_ns[2] = queued + kStartDelay;
  e->times_ns[3] = queued + kStartDelay + duration_ns;
  q->refs.retain_internal();
  if (kernel && !cfg.exec_error_kernel.empty() && kernel->name == cfg.exec_error_kernel) {
    // Failed on the device at once: no profiling times (status is not CL_COMPLETE).
    e->status.store(cfg.exec_error_code, std::memory_order_relaxed);
  } else if (mode == EventMode::kImmediate) {
    e->status.store(CL_COMPLETE, std::memory_order_relaxed);
  } else {
    e->status.store(CL_SUBMITTED, std::memory_order_relaxed);
    e->never = mode == EventMode::kNever;
    e->polls_left.store(mode == EventMode::kPolls ? cfg.event_polls : 0, std::memory_order_relaxed);
    e->refs.retain_internal();  // the queue's pending list
    std::lock_guard<std::mutex> lock(q->mutex);
    q->pending.push_back(e);
  }
  *event_out = e;
  return CL_SUCCESS;
}

// ---- enqueue: kernels -------------------------------------------------------------------------
cl_int check_launch(cl_command_queue q, cl_kernel k) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!k) return CL_INVALID_KERNEL;
  return k->program->context == q->context ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

// CL_INVALID_KERNEL_ARGS while an argument (of the first 64) was never set.
cl_int check_args_set(cl_kernel k) {
  const std::size_t n = k->info->args.size();
  const std::uint64_t need = n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  const bool all = (k->args_set.load(std::memory_order_relaxed) & need) == need;
  return all ? CL_SUCCESS : CL_INVALID_KERNEL_ARGS;
}

}  // namespace

cl_int CL_API_CALL EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint work_dim,
                                        const size_t* gwo, const size_t* gws, const size_t* lws,
                                        cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueNDRangeKernel");
  (void)gwo;
  if (cl_int rc = check_launch(q, k)) return rc;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!gws) return CL_INVALID_GLOBAL_WORK_SIZE;
  std::uint64_t items = 1;
  std::size_t group = 1;
  for (cl_uint d = 0; d < work_dim; ++d) {
    if (gws[d] == 0) return CL_INVALID_GLOBAL_WORK_SIZE;
    items *= gws[d];
    if (lws) {
      if (lws[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
      group *= lws[d];
    }
  }
  if (group > 1024) return CL_INVALID_WORK_GROUP_SIZE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  if (cl_int rc = check_args_set(k)) return rc;
  return finish_command(q, CL_COMMAND_NDRANGE_KERNEL, kKernelBase + items, false, k->info, event);
}

cl_int CL_API_CALL EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint num_wait,
                               const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueTask");
  if (cl_int rc = check_launch(q, k)) return rc;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  if (cl_int rc = check_args_set(k)) return rc;
  return finish_command(q, CL_COMMAND_TASK, kKernelBase + 1, false, k->info, event);
}

// ---- enqueue: transfers -----------------------------------------------------------------------
namespace {

cl_int check_range(cl_mem m, std::size_t offset, std::size_t bytes) {
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (offset > m->size || bytes > m->size - offset) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

// clEnqueueReadBuffer (`to_host`) and clEnqueueWriteBuffer.
cl_int buffer_transfer(cl_command_queue q, cl_mem m, bool to_host, cl_bool blocking, size_t offset,
                       size_t bytes, void* ptr, cl_uint num_wait, const cl_event* wait,
                       cl_event* event) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(m, offset, bytes)) return rc;
  if (!ptr || bytes == 0) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  if (to_host) {
    std::memcpy(ptr, m->data + offset, bytes);
  } else {
    std::memcpy(m->data + offset, ptr, bytes);
  }
  return finish_command(q, to_host ? CL_COMMAND_READ_BUFFER : CL_COMMAND_WRITE_BUFFER,
                        kTransferBase + bytes, blocking, nullptr, event);
}

}  // namespace

cl_int CL_API_CALL EnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                     size_t bytes, void* ptr, cl_uint num_wait,
                                     const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueReadBuffer");
  return buffer_transfer(q, m, true, blocking, offset, bytes, ptr, num_wait, wait, event);
}

cl_int CL_API_CALL EnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                      size_t bytes, const void* ptr, cl_uint num_wait,
                                      const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteBuffer");
  return buffer_transfer(q, m, false, blocking, offset, bytes, const_cast<void*>(ptr), num_wait,
                         wait, event);
}

cl_int CL_API_CALL EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                     size_t dst_offset, size_t bytes, cl_uint num_wait,
                                     const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueCopyBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(src, src_offset, bytes)) return rc;
  if (cl_int rc = check_range(dst, dst_offset, bytes)) return rc;
  if (bytes == 0) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  std::memmove(dst->data + dst_offset, src->data + src_offset, bytes);
  return finish_command(q, CL_COMMAND_COPY_BUFFER, kTransferBase + bytes, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueFillBuffer(cl_command_queue q, cl_mem m, const void* pattern,
                                     size_t pattern_size, size_t offset, size_t bytes,
                                     cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueFillBuffer");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_range(m, offset, bytes)) return rc;
  if (!pattern || pattern_size == 0 || offset % pattern_size || bytes % pattern_size)
    return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  for (std::size_t i = 0; i < bytes; i += pattern_size)
    std::memcpy(m->data + offset + i, pattern, pattern_size);
  return finish_command(q, CL_COMMAND_FILL_BUFFER, kTransferBase + bytes, false, nullptr, event);
}

// ---- rect and image transfers: 3-D regions in pitched byte layouts ----------------------------
namespace {

std::size_t region_bytes(const std::size_t region[3]) {
  return region[0] * region[1] * region[2];
}

// A pitch of 0 means "tightly packed".
void default_pitches(const std::size_t region[3], std::size_t& row, std::size_t& slice) {
  if (!row) row = region[0];
  if (!slice) slice = region[1] * row;
}

void copy_rect(unsigned char* dst, const std::size_t dst_origin[3], std::size_t dst_row,
               std::size_t dst_slice, const unsigned char* src, const std::size_t src_origin[3],
               std::size_t src_row, std::size_t src_slice, const std::size_t region[3]) {
  for (std::size_t z = 0; z < region[2]; ++z)
    for (std::size_t y = 0; y < region[1]; ++y)
      std::memmove(
          dst + dst_origin[0] + (dst_origin[1] + y) * dst_row + (dst_origin[2] + z) * dst_slice,
          src + src_origin[0] + (src_origin[1] + y) * src_row + (src_origin[2] + z) * src_slice,
          region[0]);
}

bool rect_fits(cl_mem m, const std::size_t origin[3], const std::size_t region[3], std::size_t row,
               std::size_t slice) {
  if (region[0] == 0 || region[1] == 0 || region[2] == 0) return false;
  const std::size_t last = origin[0] + region[0] - 1 + (origin[1] + region[1] - 1) * row +
                           (origin[2] + region[2] - 1) * slice;
  return last < m->size;
}

// clEnqueueReadBufferRect (`to_host`) and clEnqueueWriteBufferRect.
cl_int buffer_rect_transfer(cl_command_queue q, cl_mem m, bool to_host, cl_bool blocking,
                            const size_t* buf_origin, const size_t* host_origin,
                            const size_t* region, size_t buf_row, size_t buf_slice, size_t host_row,
                            size_t host_slice, void* ptr, cl_uint num_wait, const cl_event* wait,
                            cl_event* event) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!ptr || !buf_origin || !host_origin || !region) return CL_INVALID_VALUE;
  default_pitches(region, buf_row, buf_slice);
  default_pitches(region, host_row, host_slice);
  if (!rect_fits(m, buf_origin, region, buf_row, buf_slice)) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  auto* host = static_cast<unsigned char*>(ptr);
  if (to_host) {
    copy_rect(host, host_origin, host_row, host_slice, m->data, buf_origin, buf_row, buf_slice,
              region);
  } else {
    copy_rect(m->data, buf_origin, buf_row, buf_slice, host, host_origin, host_row, host_slice,
              region);
  }
  return finish_command(q, to_host ? CL_COMMAND_READ_BUFFER_RECT : CL_COMMAND_WRITE_BUFFER_RECT,
                        kTransferBase + region_bytes(region), blocking, nullptr, event);
}

}  // namespace

cl_int CL_API_CALL EnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                         const size_t* buf_origin, const size_t* host_origin,
                                         const size_t* region, size_t buf_row, size_t buf_slice,
                                         size_t host_row, size_t host_slice, void* ptr,
                                         cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueReadBufferRect");
  return buffer_rect_transfer(q, m, true, blocking, buf_origin, host_origin, region, buf_row,
                              buf_slice, host_row, host_slice, ptr, num_wait, wait, event);
}

cl_int CL_API_CALL EnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                          const size_t* buf_origin, const size_t* host_origin,
                                          const size_t* region, size_t buf_row, size_t buf_slice,
                                          size_t host_row, size_t host_slice, const void* ptr,
                                          cl_uint num_wait, const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteBufferRect");
  return buffer_rect_transfer(q, m, false, blocking, buf_origin, host_origin, region, buf_row,
                              buf_slice, host_row, host_slice, const_cast<void*>(ptr), num_wait,
                              wait, event);
}

cl_int CL_API_CALL EnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                         const size_t* src_origin, const size_t* dst_origin,
                                         const size_t* region, size_t src_row, size_t src_slice,
                                         size_t dst_row, size_t dst_slice, cl_uint num_wait,
                                         const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueCopyBufferRect");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!src || !dst) return CL_INVALID_MEM_OBJECT;
  if (!src_origin || !dst_origin || !region) return CL_INVALID_VALUE;
  default_pitches(region, src_row, src_slice);
  default_pitches(region, dst_row, dst_slice);
  if (!rect_fits(src, src_origin, region, src_row, src_slice) ||
      !rect_fits(dst, dst_origin, region, dst_row, dst_slice))
    return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  copy_rect(dst->data, dst_origin, dst_row, dst_slice, src->data, src_origin, src_row, src_slice,
            region);
  return finish_command(q, CL_COMMAND_COPY_BUFFER_RECT, kTransferBase + region_bytes(region), false,
                        nullptr, event);
}

namespace {

// Images: origin/region in pixels; the host side is pitched like the region unless given.
cl_int image_transfer(cl_command_queue q, cl_mem m, bool to_host, cl_bool blocking,
                      const size_t* origin, const size_t* region, size_t row, size_t slice,
                      void* ptr, cl_uint num_wait, const cl_event* wait, cl_event* event) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m || m->type == CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
  if (!ptr || !origin || !region) return CL_INVALID_VALUE;
  const std::size_t e = m->element_size;
  const std::size_t o[3] = {origin[0] * e, origin[1], origin[2]};
  const std::size_t r[3] = {region[0] * e, region[1], region[2]};
  default_pitches(r, row, slice);
  const std::size_t image_row = m->desc.image_row_pitch;
  const std::size_t image_slice = m->desc.image_slice_pitch;
  if (!rect_fits(m, o, r, image_row, image_slice)) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  const std::size_t zero[3] = {0, 0, 0};
  auto* host = static_cast<unsigned char*>(ptr);
  if (to_host) {
    copy_rect(host, zero, row, slice, m->data, o, image_row, image_slice, r);
  } else {
    copy_rect(m->data, o, image_row, image_slice, host, zero, row, slice, r);
  }
  return finish_command(q, to_host ? CL_COMMAND_READ_IMAGE : CL_COMMAND_WRITE_IMAGE,
                        kTransferBase + region_bytes(r), blocking, nullptr, event);
}

}  // namespace

cl_int CL_API_CALL EnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool blocking,
                                    const size_t* origin, const size_t* region, size_t row,
                                    size_t slice, void* ptr, cl_uint num_wait, const cl_event* wait,
                                    cl_event* event) {
  FAKE_INJECT("clEnqueueReadImage");
  return image_transfer(q, m, true, blocking, origin, region, row, slice, ptr, num_wait, wait,
                        event);
}

cl_int CL_API_CALL EnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool blocking,
                                     const size_t* origin, const size_t* region, size_t row,
                                     size_t slice, const void* ptr, cl_uint num_wait,
                                     const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueWriteImage");
  return image_transfer(q, m, false, blocking, origin, region, row, slice, const_cast<void*>(ptr),
                        num_wait, wait, event);
}

// ---- enqueue: map, unmap, migrate -------------------------------------------------------------
void* CL_API_CALL EnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags,
                                   size_t offset, size_t bytes, cl_uint num_wait,
                                   const cl_event* wait, cl_event* event, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clEnqueueMapBuffer", errcode_ret);
  if (!q) return fail<void>(errcode_ret, CL_INVALID_COMMAND_QUEUE);
  if (cl_int rc = check_range(m, offset, bytes)) return fail<void>(errcode_ret, rc);
  if (cl_int rc = check_wait_list(num_wait, wait)) return fail<void>(errcode_ret, rc);
  m->map_count.fetch_add(1);
  const cl_int rc =
      finish_command(q, CL_COMMAND_MAP_BUFFER, kTransferBase + bytes, blocking, nullptr, event);
  if (errcode_ret) *errcode_ret = rc;
  return m->data + offset;
}

cl_int CL_API_CALL EnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void* ptr, cl_uint num_wait,
                                         const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueUnmapMemObject");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!m) return CL_INVALID_MEM_OBJECT;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  cl_uint cur = m->map_count.load();
  while (cur > 0 && !m->map_count.compare_exchange_weak(cur, cur - 1)) {
  }
  return finish_command(q, CL_COMMAND_UNMAP_MEM_OBJECT, kTransferBase, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueMigrateMemObjects(cl_command_queue q, cl_uint num_mems,
                                            const cl_mem* mems, cl_mem_migration_flags,
                                            cl_uint num_wait, const cl_event* wait,
                                            cl_event* event) {
  FAKE_INJECT("clEnqueueMigrateMemObjects");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (num_mems == 0 || !mems) return CL_INVALID_VALUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  return finish_command(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, 0, false, nullptr, event);
}

// ---- enqueue: synchronisation commands --------------------------------------------------------
namespace {

// A marker or barrier (both take no time: the queue is in order).
cl_int sync_command(cl_command_queue q, cl_command_type type, cl_uint num_wait,
                    const cl_event* wait, cl_event* event) {
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int rc = check_wait_list(num_wait, wait)) return rc;
  return finish_command(q, type, 0, false, nullptr, event);
}

}  // namespace

cl_int CL_API_CALL EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint num_wait,
                                             const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueMarkerWithWaitList");
  return sync_command(q, CL_COMMAND_MARKER, num_wait, wait, event);
}

cl_int CL_API_CALL EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint num_wait,
                                              const cl_event* wait, cl_event* event) {
  FAKE_INJECT("clEnqueueBarrierWithWaitList");
  return sync_command(q, CL_COMMAND_BARRIER, num_wait, wait, event);
}

cl_int CL_API_CALL EnqueueMarker(cl_command_queue q, cl_event* event) {
  FAKE_INJECT("clEnqueueMarker");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (!event) return CL_INVALID_VALUE;
  return finish_command(q, CL_COMMAND_MARKER, 0, false, nullptr, event);
}

cl_int CL_API_CALL EnqueueBarrier(cl_command_queue q) {
  FAKE_INJECT("clEnqueueBarrier");
  return sync_command(q, CL_COMMAND_BARRIER, 0, nullptr, nullptr);
}

cl_int CL_API_CALL EnqueueWaitForEvents(cl_command_queue q, cl_uint num, const cl_event* list) {
  FAKE_INJECT("clEnqueueWaitForEvents");
  if (!q) return CL_INVALID_COMMAND_QUEUE;
  if (num == 0 || !list) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

}  // namespace clprof::fake
