// Transfers: read/write/copy/fill/map/unmap of buffers, rects, images and SVM. Each
// hook: scope, real call, best-effort record, the real result.
#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/recording.hpp"

namespace clprof::shim {
namespace {

// Region product times the image's bytes per pixel (cached at creation); the pixel
// count alone when the format was unknown.
std::uint64_t image_bytes(cl_mem image, const size_t* region) {
  const MemInfo* m = mems().find(image);
  const std::uint64_t per = m && m->element_bytes ? m->element_bytes : 1;
  return region_product(region) * per;
}

// Map calls report failure through errcode_ret, which the app may leave NULL.
struct ErrcodeOut {
  explicit ErrcodeOut(cl_int* app) : app_(app) {}
  ~ErrcodeOut() {
    if (app_) *app_ = value;
  }
  cl_int* ptr() { return &value; }
  cl_int value = CL_SUCCESS;

 private:
  cl_int* app_;
};

}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     void* ptr, cl_uint nwait, const cl_event* wait,
                                                     cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueReadBuffer(q, buffer, blocking, offset, size, ptr, nwait, wait,
                                               scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueReadBuffer", TransferOp::Read, rc, q, size, blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem buffer,
                                                      cl_bool blocking, size_t offset, size_t size,
                                                      const void* ptr, cl_uint nwait,
                                                      const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueWriteBuffer(q, buffer, blocking, offset, size, ptr, nwait, wait,
                                                scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueWriteBuffer", TransferOp::Write, rc, q, size, blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                                     size_t src_offset, size_t dst_offset,
                                                     size_t size, cl_uint nwait,
                                                     const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueCopyBuffer(q, src, dst, src_offset, dst_offset, size, nwait,
                                               wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueCopyBuffer", TransferOp::Copy, rc, q, size, false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem buffer,
                                                     const void* pattern, size_t pattern_size,
                                                     size_t offset, size_t size, cl_uint nwait,
                                                     const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueFillBuffer(q, buffer, pattern, pattern_size, offset, size,
                                               nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueFillBuffer", TransferOp::Fill, rc, q, size, false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue q, cl_mem buffer, cl_bool blocking, const size_t* buffer_origin,
    const size_t* host_origin, const size_t* region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, void* ptr,
    cl_uint nwait, const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueReadBufferRect(
      q, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
      host_row_pitch, host_slice_pitch, ptr, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueReadBufferRect", TransferOp::Read, rc, q,
                    region_product(region), blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue q, cl_mem buffer, cl_bool blocking, const size_t* buffer_origin,
    const size_t* host_origin, const size_t* region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, const void* ptr,
    cl_uint nwait, const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueWriteBufferRect(
      q, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch, buffer_slice_pitch,
      host_row_pitch, host_slice_pitch, ptr, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueWriteBufferRect", TransferOp::Write, rc, q,
                    region_product(region), blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue q, cl_mem src, cl_mem dst, const size_t* src_origin, const size_t* dst_origin,
    const size_t* region, size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch,
    size_t dst_slice_pitch, cl_uint nwait, const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueCopyBufferRect(q, src, dst, src_origin, dst_origin, region,
                                                   src_row_pitch, src_slice_pitch, dst_row_pitch,
                                                   dst_slice_pitch, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueCopyBufferRect", TransferOp::Copy, rc, q,
                    region_product(region), false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem image,
                                                    cl_bool blocking, const size_t* origin,
                                                    const size_t* region, size_t row_pitch,
                                                    size_t slice_pitch, void* ptr, cl_uint nwait,
                                                    const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueReadImage(q, image, blocking, origin, region, row_pitch,
                                              slice_pitch, ptr, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueReadImage", TransferOp::Read, rc, q,
                    image_bytes(image, region), blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem image,
                                                     cl_bool blocking, const size_t* origin,
                                                     const size_t* region, size_t row_pitch,
                                                     size_t slice_pitch, const void* ptr,
                                                     cl_uint nwait, const cl_event* wait,
                                                     cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueWriteImage(q, image, blocking, origin, region, row_pitch,
                                               slice_pitch, ptr, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueWriteImage", TransferOp::Write, rc, q,
                    image_bytes(image, region), blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                                    const size_t* src_origin,
                                                    const size_t* dst_origin, const size_t* region,
                                                    cl_uint nwait, const cl_event* wait,
                                                    cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueCopyImage(q, src, dst, src_origin, dst_origin, region, nwait,
                                              wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueCopyImage", TransferOp::Copy, rc, q, image_bytes(src, region),
                    false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue q, cl_mem image,
                                                    const void* fill_color, const size_t* origin,
                                                    const size_t* region, cl_uint nwait,
                                                    const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueFillImage(q, image, fill_color, origin, region, nwait, wait,
                                              scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueFillImage", TransferOp::Fill, rc, q,
                    image_bytes(image, region), false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue q, cl_mem src_image, cl_mem dst_buffer, const size_t* src_origin,
    const size_t* region, size_t dst_offset, cl_uint nwait, const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueCopyImageToBuffer(q, src_image, dst_buffer, src_origin, region,
                                                      dst_offset, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueCopyImageToBuffer", TransferOp::Copy, rc, q,
                    image_bytes(src_image, region), false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src_buffer,
                                                            cl_mem dst_image, size_t src_offset,
                                                            const size_t* dst_origin,
                                                            const size_t* region, cl_uint nwait,
                                                            const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueCopyBufferToImage(
      q, src_buffer, dst_image, src_offset, dst_origin, region, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueCopyBufferToImage", TransferOp::Copy, rc, q,
                    image_bytes(dst_image, region), false);
  return rc;
}

CLPROF_EXPORT void* CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem buffer,
                                                   cl_bool blocking, cl_map_flags flags,
                                                   size_t offset, size_t size, cl_uint nwait,
                                                   const cl_event* wait, cl_event* event,
                                                   cl_int* errcode_ret) {
  EnqueueScope scope(event);
  ErrcodeOut err(errcode_ret);
  void* mapped = real().clEnqueueMapBuffer(q, buffer, blocking, flags, offset, size, nwait, wait,
                                           scope.event_out(), err.ptr());
  if (scope.active()) {
    if (err.value == CL_SUCCESS) mapping_add(mapped, size);
    record_transfer(scope, "clEnqueueMapBuffer", TransferOp::Map, err.value, q, size, blocking);
  }
  return mapped;
}

CLPROF_EXPORT void* CL_API_CALL clEnqueueMapImage(cl_command_queue q, cl_mem image,
                                                  cl_bool blocking, cl_map_flags flags,
                                                  const size_t* origin, const size_t* region,
                                                  size_t* row_pitch, size_t* slice_pitch,
                                                  cl_uint nwait, const cl_event* wait,
                                                  cl_event* event, cl_int* errcode_ret) {
  EnqueueScope scope(event);
  ErrcodeOut err(errcode_ret);
  void* mapped = real().clEnqueueMapImage(q, image, blocking, flags, origin, region, row_pitch,
                                          slice_pitch, nwait, wait, scope.event_out(), err.ptr());
  if (scope.active()) {
    const std::uint64_t bytes = image_bytes(image, region);
    if (err.value == CL_SUCCESS) mapping_add(mapped, bytes);
    record_transfer(scope, "clEnqueueMapImage", TransferOp::Map, err.value, q, bytes, blocking);
  }
  return mapped;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem memobj,
                                                         void* mapped_ptr, cl_uint nwait,
                                                         const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc =
      real().clEnqueueUnmapMemObject(q, memobj, mapped_ptr, nwait, wait, scope.event_out());
  if (scope.active()) {
    const std::uint64_t bytes = rc == CL_SUCCESS ? mapping_take(mapped_ptr) : 0;
    record_transfer(scope, "clEnqueueUnmapMemObject", TransferOp::Unmap, rc, q, bytes, false);
  }
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void* dst,
                                                    const void* src, size_t size, cl_uint nwait,
                                                    const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc =
      real().clEnqueueSVMMemcpy(q, blocking, dst, src, size, nwait, wait, scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueSVMMemcpy", TransferOp::Copy, rc, q, size, blocking);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue q, void* svm_ptr,
                                                     const void* pattern, size_t pattern_size,
                                                     size_t size, cl_uint nwait,
                                                     const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueSVMMemFill(q, svm_ptr, pattern, pattern_size, size, nwait, wait,
                                               scope.event_out());
  if (scope.active())
    record_transfer(scope, "clEnqueueSVMMemFill", TransferOp::Fill, rc, q, size, false);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue q, cl_bool blocking,
                                                 cl_map_flags flags, void* svm_ptr, size_t size,
                                                 cl_uint nwait, const cl_event* wait,
                                                 cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc =
      real().clEnqueueSVMMap(q, blocking, flags, svm_ptr, size, nwait, wait, scope.event_out());
  if (scope.active()) {
    if (rc == CL_SUCCESS) mapping_add(svm_ptr, size);
    record_transfer(scope, "clEnqueueSVMMap", TransferOp::Map, rc, q, size, blocking);
  }
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue q, void* svm_ptr, cl_uint nwait,
                                                   const cl_event* wait, cl_event* event) {
  EnqueueScope scope(event);
  const cl_int rc = real().clEnqueueSVMUnmap(q, svm_ptr, nwait, wait, scope.event_out());
  if (scope.active()) {
    const std::uint64_t bytes = rc == CL_SUCCESS ? mapping_take(svm_ptr) : 0;
    record_transfer(scope, "clEnqueueSVMUnmap", TransferOp::Unmap, rc, q, bytes, false);
  }
  return rc;
}
