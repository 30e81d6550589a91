# cmake -DSOURCE_DIR=<clprof source> -DWORK_DIR=<scratch dir> -P opencl_headers.cmake
#
# Configures the shim-only build against OpenCL headers at the 2.2 level (the machine's own
# headers seen through a CL/cl.h that sets CL_TARGET_OPENCL_VERSION to 220, which hides the
# 3.0 declarations, as Ubuntu 20.04's headers lack them): the configure step must stop with
# the message that says what to install. Then configures the same build directory with the
# machine's headers: it must pass (the failed check is not left cached).
file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${WORK_DIR}/include/CL/cl.h"
  "#undef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 220\n#include_next <CL/cl.h>\n")
set(options -DCLPROF_BUILD_ANALYZER=OFF -DCLPROF_BUILD_TESTS=OFF -DCLPROF_BUILD_EXAMPLES=OFF
  -DCLPROF_BUILD_BENCH=OFF)

execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" ${options}
          "-DCMAKE_CXX_FLAGS=-I${WORK_DIR}/include"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "configure passed with OpenCL 2.2 headers:\n${out}\n${err}")
endif()
string(REGEX REPLACE "[ \n]+" " " err_flat "${err}")
if(NOT err_flat MATCHES "lacks the OpenCL 3.0 declarations .*Install OpenCL headers of 2020.06")
  message(FATAL_ERROR "configure failed without the headers message:\n${err}")
endif()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" ${options}
          "-DCMAKE_CXX_FLAGS="
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed with the machine's headers:\n${out}\n${err}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "OpenCL 2.2 headers: stopped with the message; the machine's headers: configured")
