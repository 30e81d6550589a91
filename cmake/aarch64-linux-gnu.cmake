# Toolchain file: cross-build for 64-bit Arm Linux (aarch64) on a Debian 12 x86-64 host with
# Debian's cross compilers (g++-aarch64-linux-gnu) and arm64 libraries installed through
# multiarch (dpkg --add-architecture arm64), which land in /usr/lib/aarch64-linux-gnu of the
# host's own root, not in a separate sysroot. Programs built for the target (try_run checks,
# ctest) run under user-mode QEMU. scripts/cross-aarch64.sh installs all of that and uses it:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#     -DCLPROF_BUILD_ANALYZER=OFF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch directory: libraries are searched in <prefix>/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64-static)

# Where libraries are found: the cross toolchain's own /usr/aarch64-linux-gnu and the host
# root "/" (without "/", ONLY mode misses /usr/lib/aarch64-linux-gnu and with it
# ocl-icd-libopencl1:arm64's libOpenCL.so.1). The x86-64 libraries stay out all the same:
# the search paths are <prefix>/lib/aarch64-linux-gnu and <prefix>/lib, never
# /usr/lib/x86_64-linux-gnu (an x86-64-only library such as libsimdjson is not found).
# Programs (tools) are the host's; headers and CMake package configs (OpenCL headers,
# RapidJSON, doctest) are architecture-independent.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
