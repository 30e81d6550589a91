// The names of OpenCL's return codes (CL_SUCCESS, CL_BUILD_PROGRAM_FAILURE, ...), for the
// outputs that show what a call returned (`api`, `builds`). Declared once, as a table
// (cl_errors.cpp); its values are checked against the Khronos headers by the unit tests.
#pragma once

#include <cstdint>
#include <string>

namespace clprof::analyses {

// "CL_BUILD_PROGRAM_FAILURE" for -11; "error N" for a code the table does not know
// (an extension's, a driver's own).
std::string cl_error_name(int32_t rc);

}  // namespace clprof::analyses
