#include "analyses/cl_errors.hpp"

namespace clprof::analyses {

namespace {

// OpenCL 3.0 core return codes (CL/cl.h), without the CL_ prefix.
#define CLPROF_CL_ERRORS(X)                         \
  X(0, SUCCESS)                                     \
  X(-1, DEVICE_NOT_FOUND)                           \
  X(-2, DEVICE_NOT_AVAILABLE)                       \
  X(-3, COMPILER_NOT_AVAILABLE)                     \
  X(-4, MEM_OBJECT_ALLOCATION_FAILURE)              \
  X(-5, OUT_OF_RESOURCES)                           \
  X(-6, OUT_OF_HOST_MEMORY)                         \
  X(-7, PROFILING_INFO_NOT_AVAILABLE)               \
  X(-8, MEM_COPY_OVERLAP)                           \
  X(-9, IMAGE_FORMAT_MISMATCH)                      \
  X(-10, IMAGE_FORMAT_NOT_SUPPORTED)                \
  X(-11, BUILD_PROGRAM_FAILURE)                     \
  X(-12, MAP_FAILURE)                               \
  X(-13, MISALIGNED_SUB_BUFFER_OFFSET)              \
  X(-14, EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) \
  X(-15, COMPILE_PROGRAM_FAILURE)                   \
  X(-16, LINKER_NOT_AVAILABLE)                      \
  X(-17, LINK_PROGRAM_FAILURE)                      \
  X(-18, DEVICE_PARTITION_FAILED)                   \
  X(-19, KERNEL_ARG_INFO_NOT_AVAILABLE)             \
  X(-30, INVALID_VALUE)                             \
  X(-31, INVALID_DEVICE_TYPE)                       \
  X(-32, INVALID_PLATFORM)                          \
  X(-33, INVALID_DEVICE)                            \
  X(-34, INVALID_CONTEXT)                           \
  X(-35, INVALID_QUEUE_PROPERTIES)                  \
  X(-36, INVALID_COMMAND_QUEUE)                     \
  X(-37, INVALID_HOST_PTR)                          \
  X(-38, INVALID_MEM_OBJECT)                        \
  X(-39, INVALID_IMAGE_FORMAT_DESCRIPTOR)           \
  X(-40, INVALID_IMAGE_SIZE)                        \
  X(-41, INVALID_SAMPLER)                           \
  X(-42, INVALID_BINARY)                            \
  X(-43, INVALID_BUILD_OPTIONS)                     \
  X(-44, INVALID_PROGRAM)                           \
  X(-45, INVALID_PROGRAM_EXECUTABLE)                \
  X(-46, INVALID_KERNEL_NAME)                       \
  X(-47, INVALID_KERNEL_DEFINITION)                 \
  X(-48, INVALID_KERNEL)                            \
  X(-49, INVALID_ARG_INDEX)                         \
  X(-50, INVALID_ARG_VALUE)                         \
  X(-51, INVALID_ARG_SIZE)                          \
  X(-52, INVALID_KERNEL_ARGS)                       \
  X(-53, INVALID_WORK_DIMENSION)                    \
  X(-54, INVALID_WORK_GROUP_SIZE)                   \
  X(-55, INVALID_WORK_ITEM_SIZE)                    \
  X(-56, INVALID_GLOBAL_OFFSET)                     \
  X(-57, INVALID_EVENT_WAIT_LIST)                   \
  X(-58, INVALID_EVENT)                             \
  X(-59, INVALID_OPERATION)                         \
  X(-60, INVALID_GL_OBJECT)                         \
  X(-61, INVALID_BUFFER_SIZE)                       \
  X(-62, INVALID_MIP_LEVEL)                         \
  X(-63, INVALID_GLOBAL_WORK_SIZE)                  \
  X(-64, INVALID_PROPERTY)                          \
  X(-65, INVALID_IMAGE_DESCRIPTOR)                  \
  X(-66, INVALID_COMPILER_OPTIONS)                  \
  X(-67, INVALID_LINKER_OPTIONS)                    \
  X(-68, INVALID_DEVICE_PARTITION_COUNT)            \
  X(-69, INVALID_PIPE_SIZE)                         \
  X(-70, INVALID_DEVICE_QUEUE)                      \
  X(-71, INVALID_SPEC_ID)                           \
  X(-72, MAX_SIZE_RESTRICTION_EXCEEDED)

struct Code {
  int32_t rc;
  const char* name;
};
#define CLPROF_CL_ERROR_ROW(rc, name) {rc, #name},
constexpr Code kCodes[] = {CLPROF_CL_ERRORS(CLPROF_CL_ERROR_ROW)};
#undef CLPROF_CL_ERROR_ROW

}  // namespace

std::string cl_error_name(int32_t rc) {
  for (const auto& c : kCodes)
    if (c.rc == rc) return std::string("CL_") + c.name;
  return "error " + std::to_string(rc);
}

}  // namespace clprof::analyses
