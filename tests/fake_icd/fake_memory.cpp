// Memory objects (buffers, sub-buffers, images) backed by host memory, samplers, SVM
// allocations, and cl_arm_import_memory.
#include <algorithm>
#include <cstdlib>

#include "fake_internal.hpp"

namespace clprof::fake {

// ---- memory objects ---------------------------------------------------------------------------
namespace {

cl_int check_mem_flags(cl_mem_flags flags, const void* host_ptr) {
  const bool needs_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (needs_ptr != (host_ptr != nullptr)) return CL_INVALID_HOST_PTR;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

cl_mem make_mem(cl_context c, cl_mem_flags flags, std::size_t bytes, void* host_ptr,
                cl_int* errcode_ret) {
  const bool use_host = flags & CL_MEM_USE_HOST_PTR;
  auto* data = static_cast<unsigned char*>(host_ptr);
  if (!use_host) {
    data = static_cast<unsigned char*>(std::calloc(bytes ? bytes : 1, 1));
    if (!data) return fail<_cl_mem>(errcode_ret, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    if (flags & CL_MEM_COPY_HOST_PTR) std::memcpy(data, host_ptr, bytes);
  }
  auto* m = new_in_context<_cl_mem>(c);
  m->flags = flags ? flags : CL_MEM_READ_WRITE;
  m->size = bytes;
  m->data = data;
  m->owns_data = !use_host;
  if (use_host) m->host_ptr = host_ptr;
  return succeed(errcode_ret, m);
}

}  // namespace

cl_mem CL_API_CALL CreateBuffer(cl_context c, cl_mem_flags flags, size_t bytes, void* host_ptr,
                                cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateBuffer", errcode_ret);
  if (!c) return fail<_cl_mem>(errcode_ret, CL_INVALID_CONTEXT);
  if (bytes == 0 || bytes > (256ull << 20))
    return fail<_cl_mem>(errcode_ret, CL_INVALID_BUFFER_SIZE);
  if (cl_int rc = check_mem_flags(flags, host_ptr)) return fail<_cl_mem>(errcode_ret, rc);
  return make_mem(c, flags, bytes, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateBufferWithProperties(cl_context c, const cl_mem_properties*,
                                              cl_mem_flags flags, size_t bytes, void* host_ptr,
                                              cl_int* errcode_ret) {
  return CreateBuffer(c, flags, bytes, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                                   const void* info, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateSubBuffer", errcode_ret);
  if (!parent || parent->type != CL_MEM_OBJECT_BUFFER || parent->parent)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_MEM_OBJECT);
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  const auto* region = static_cast<const cl_buffer_region*>(info);
  if (region->size == 0) return fail<_cl_mem>(errcode_ret, CL_INVALID_BUFFER_SIZE);
  if (region->origin + region->size > parent->size)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  auto* m = new_in_context<_cl_mem>(parent->context);
  m->flags = flags ? flags : parent->flags;
  m->size = region->size;
  m->data = parent->data + region->origin;
  m->parent = parent;
  m->offset = region->origin;
  if (parent->host_ptr)
    m->host_ptr = static_cast<unsigned char*>(parent->host_ptr) + region->origin;
  parent->refs.retain_internal();
  return succeed(errcode_ret, m);
}

namespace {

std::size_t image_element_size(const cl_image_format& f) {
  std::size_t channels = 0;
  switch (f.image_channel_order) {
    case CL_R:
    case CL_A:
    case CL_INTENSITY:
    case CL_LUMINANCE:
    case CL_DEPTH:
      channels = 1;
      break;
    case CL_RG:
    case CL_RA:
      channels = 2;
      break;
    case CL_RGB:
      channels = 3;
      break;
    case CL_RGBA:
    case CL_BGRA:
    case CL_ARGB:
      channels = 4;
      break;
    default:
      return 0;
  }
  switch (f.image_channel_data_type) {
    case CL_SNORM_INT8:
    case CL_UNORM_INT8:
    case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
      return channels;
    case CL_SNORM_INT16:
    case CL_UNORM_INT16:
    case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT:
      return 2 * channels;
    case CL_SIGNED_INT32:
    case CL_UNSIGNED_INT32:
    case CL_FLOAT:
      return 4 * channels;
    default:
      return 0;
  }
}

}  // namespace

cl_mem CL_API_CALL CreateImage(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                               const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateImage", errcode_ret);
  if (!c) return fail<_cl_mem>(errcode_ret, CL_INVALID_CONTEXT);
  if (!format || image_element_size(*format) == 0)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  if (!desc || desc->image_width == 0)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR);
  if (desc->image_type != CL_MEM_OBJECT_IMAGE1D && desc->image_type != CL_MEM_OBJECT_IMAGE2D &&
      desc->image_type != CL_MEM_OBJECT_IMAGE3D &&
      desc->image_type != CL_MEM_OBJECT_IMAGE1D_ARRAY &&
      desc->image_type != CL_MEM_OBJECT_IMAGE2D_ARRAY)
    return fail<_cl_mem>(errcode_ret, CL_INVALID_IMAGE_DESCRIPTOR);
  if (cl_int rc = check_mem_flags(flags, host_ptr)) return fail<_cl_mem>(errcode_ret, rc);
  const std::size_t elem = image_element_size(*format);
  cl_image_desc d = *desc;
  d.image_height = std::max<std::size_t>(d.image_height, 1);
  d.image_depth = std::max<std::size_t>(d.image_depth, 1);
  d.image_array_size = std::max<std::size_t>(d.image_array_size, 1);
  if (d.image_row_pitch == 0) d.image_row_pitch = d.image_width * elem;
  if (d.image_slice_pitch == 0) d.image_slice_pitch = d.image_row_pitch * d.image_height;
  const std::size_t layers =
      desc->image_type == CL_MEM_OBJECT_IMAGE3D ? d.image_depth : d.image_array_size;
  cl_mem m = make_mem(c, flags, d.image_slice_pitch * layers, host_ptr, errcode_ret);
  if (!m) return m;
  m->type = desc->image_type;
  m->format = *format;
  m->desc = d;
  m->element_size = elem;
  return m;
}

cl_mem CL_API_CALL CreateImage2D(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                                 size_t w, size_t h, size_t pitch, void* host_ptr,
                                 cl_int* errcode_ret) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  d.image_width = w;
  d.image_height = h;
  d.image_row_pitch = pitch;
  return CreateImage(c, flags, format, &d, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL CreateImage3D(cl_context c, cl_mem_flags flags, const cl_image_format* format,
                                 size_t w, size_t h, size_t depth, size_t row_pitch,
                                 size_t slice_pitch, void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc d{};
  d.image_type = CL_MEM_OBJECT_IMAGE3D;
  d.image_width = w;
  d.image_height = h;
  d.image_depth = depth;
  d.image_row_pitch = row_pitch;
  d.image_slice_pitch = slice_pitch;
  return CreateImage(c, flags, format, &d, host_ptr, errcode_ret);
}

cl_int CL_API_CALL GetSupportedImageFormats(cl_context c, cl_mem_flags, cl_mem_object_type,
                                            cl_uint num_entries, cl_image_format* formats,
                                            cl_uint* num_formats) {
  if (!c) return CL_INVALID_CONTEXT;
  const cl_image_format all[] = {{CL_RGBA, CL_UNORM_INT8}, {CL_RGBA, CL_FLOAT}, {CL_R, CL_FLOAT}};
  const cl_uint n = sizeof all / sizeof all[0];
  if (formats)
    for (cl_uint i = 0; i < std::min(n, num_entries); ++i) formats[i] = all[i];
  if (num_formats) *num_formats = n;
  return CL_SUCCESS;
}

cl_int CL_API_CALL RetainMemObject(cl_mem m) {
  return retain(m, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL ReleaseMemObject(cl_mem m) {
  FAKE_INJECT("clReleaseMemObject");
  return release(m, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL GetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void* out,
                                    size_t* size_ret) {
  FAKE_INJECT("clGetMemObjectInfo");
  if (!m) return CL_INVALID_MEM_OBJECT;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_MEM_TYPE:
      return r.value(m->type);
    case CL_MEM_FLAGS:
      return r.value(m->flags);
    case CL_MEM_SIZE:
      return r.value<size_t>(m->size);
    case CL_MEM_HOST_PTR:
      return r.value(m->host_ptr);
    case CL_MEM_MAP_COUNT:
      return r.value<cl_uint>(m->map_count.load());
    case CL_MEM_REFERENCE_COUNT:
      return r.value<cl_uint>(m->refs.api());
    case CL_MEM_CONTEXT:
      return r.value(m->context);
    case CL_MEM_ASSOCIATED_MEMOBJECT:
      return r.value(m->parent);
    case CL_MEM_OFFSET:
      return r.value<size_t>(m->offset);
    case CL_MEM_USES_SVM_POINTER:
      return r.value<cl_bool>(CL_FALSE);
    case CL_MEM_PROPERTIES:
      return r.none();
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL GetImageInfo(cl_mem m, cl_image_info param, size_t size, void* out,
                                size_t* size_ret) {
  if (!m || m->type == CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_IMAGE_FORMAT:
      return r.value(m->format);
    case CL_IMAGE_ELEMENT_SIZE:
      return r.value<size_t>(m->element_size);
    case CL_IMAGE_ROW_PITCH:
      return r.value<size_t>(m->desc.image_row_pitch);
    case CL_IMAGE_SLICE_PITCH:
      return r.value<size_t>(m->desc.image_slice_pitch);
    case CL_IMAGE_WIDTH:
      return r.value<size_t>(m->desc.image_width);
    case CL_IMAGE_HEIGHT:
      return r.value<size_t>(m->type == CL_MEM_OBJECT_IMAGE1D ? 0 : m->desc.image_height);
    case CL_IMAGE_DEPTH:
      return r.value<size_t>(m->type == CL_MEM_OBJECT_IMAGE3D ? m->desc.image_depth : 0);
    case CL_IMAGE_ARRAY_SIZE:
      return r.value<size_t>(m->desc.image_array_size);
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES:
      return r.value<cl_uint>(0);
    case CL_IMAGE_BUFFER:
      return r.value<cl_mem>(nullptr);
    default:
      return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL SetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK* fn)(cl_mem, void*),
                                                  void* user_data) {
  return add_destructor(m, fn, user_data, CL_INVALID_MEM_OBJECT);
}

void* CL_API_CALL SVMAlloc(cl_context c, cl_svm_mem_flags, size_t bytes, cl_uint alignment) {
  if (!c || bytes == 0) return nullptr;
  const std::size_t align = alignment ? alignment : 128;
  return std::aligned_alloc(align, (bytes + align - 1) / align * align);
}

void CL_API_CALL SVMFree(cl_context, void* p) {
  std::free(p);
}

// ---- samplers ---------------------------------------------------------------------------------
cl_sampler CL_API_CALL CreateSampler(cl_context c, cl_bool normalized, cl_addressing_mode am,
                                     cl_filter_mode fm, cl_int* errcode_ret) {
  FAKE_INJECT_OBJ("clCreateSampler", errcode_ret);
  if (!c) return fail<_cl_sampler>(errcode_ret, CL_INVALID_CONTEXT);
  auto* s = new_in_context<_cl_sampler>(c);
  s->normalized = normalized;
  s->addressing = am;
  s->filter = fm;
  return succeed(errcode_ret, s);
}

cl_sampler CL_API_CALL CreateSamplerWithProperties(cl_context c, const cl_sampler_properties* props,
                                                   cl_int* errcode_ret) {
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode am = CL_ADDRESS_CLAMP;
  cl_filter_mode fm = CL_FILTER_NEAREST;
  for (std::size_t i = 0; props && props[i]; i += 2) {
    if (props[i] == CL_SAMPLER_NORMALIZED_COORDS) normalized = static_cast<cl_bool>(props[i + 1]);
    if (props[i] == CL_SAMPLER_ADDRESSING_MODE) am = static_cast<cl_addressing_mode>(props[i + 1]);
    if (props[i] == CL_SAMPLER_FILTER_MODE) fm = static_cast<cl_filter_mode>(props[i + 1]);
  }
  return CreateSampler(c, normalized, am, fm, errcode_ret);
}

cl_int CL_API_CALL RetainSampler(cl_sampler s) {
  return retain(s, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL ReleaseSampler(cl_sampler s) {
  return release(s, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL GetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size, void* out,
                                  size_t* size_ret) {
  if (!s) return CL_INVALID_SAMPLER;
  const InfoReply r(size, out, size_ret);
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT:
      return r.value<cl_uint>(s->refs.api());
    case CL_SAMPLER_CONTEXT:
      return r.value(s->context);
    case CL_SAMPLER_NORMALIZED_COORDS:
      return r.value(s->normalized);
    case CL_SAMPLER_ADDRESSING_MODE:
      return r.value(s->addressing);
    case CL_SAMPLER_FILTER_MODE:
      return r.value(s->filter);
    default:
      return CL_INVALID_VALUE;
  }
}

// cl_arm_import_memory (host memory only): a buffer over the app's memory, like
// CL_MEM_USE_HOST_PTR. Reached through extension lookup and the exported symbol
// (fake_dispatch.cpp), never through the dispatch table.
cl_mem CL_API_CALL ImportMemoryARM(cl_context c, cl_mem_flags flags, const intptr_t*, void* memory,
                                   size_t bytes, cl_int* errcode_ret) {
  if (!memory) return fail<_cl_mem>(errcode_ret, CL_INVALID_VALUE);
  return CreateBuffer(c, (flags ? flags : CL_MEM_READ_WRITE) | CL_MEM_USE_HOST_PTR, bytes, memory,
                      errcode_ret);
}

}  // namespace clprof::fake
