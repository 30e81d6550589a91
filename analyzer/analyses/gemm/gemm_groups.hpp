// GEMM calls rebuilt from the kernel stream, where no library call was recorded (a library
// linked statically, CLPROF_HOOK_BLAS=0, an older trace): CLBlast's indirect GEMM runs
// pre-processing kernels (pad, copy, transpose A, B and C into a temporary buffer), the
// GEMM kernel on the padded sizes, and a post-processing kernel (C back into the app's
// buffer). The kernels of one call are found by program, queue, buffer arguments and
// order, and the call's logical M, N, K are read from the helpers' source dimensions.
// The table of kernels (gemm_groups.cpp, docs/gemm-rules.md "Calls from kernels") says
// which argument is what. Pure functions, no I/O; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace clprof::gemm {

// A kernel of the group table, as a launch plays it.
struct GroupKernel {
  enum class Role : uint8_t { Main, Helper };
  std::string id;      // e.g. "clblast-xgemm", "clblast-transpose-pad"
  std::string kernel;  // regex (name_regex.hpp syntax), matched against the whole name
  Role role = Role::Main;
  // Main: the matrix buffer arguments (the sizes and batch come from the GEMM rule).
  int a = -1, b = -1, c = -1;
  // Helper: copies (or transposes) src into dest; pads (pre-processing only) or not.
  bool transposes = false, pads = false;
  int src = -1, dest = -1;
  // The dimension arguments (one, two) of src and dest; -1 for the "fast" kernels, which
  // run only on matrices that need no padding.
  int src_one = -1, src_two = -1, dest_one = -1, dest_two = -1;
  std::string verified;  // where the layout was read
};

// The built-in table, and the index of the entry whose regex matches `name` (-1: none).
const std::vector<GroupKernel>& group_kernels();
int match_group_kernel(const std::string& name);

// One launch of a table kernel, as the grouping needs it. Dimensions and buffers are -1 /
// 0 when the argument is missing or not of its kind.
struct GroupLaunch {
  uint64_t seq = 0;
  uint64_t queue = 0, program = 0;
  int kind = -1;  // index in group_kernels()
  // Main: buffers a, b, c; helper: src, dest (third unused).
  uint64_t mem[3] = {0, 0, 0};
  // Main: the GEMM rule's m, n, k (padded) and batch; helper: src_one, src_two, dest_one,
  // dest_two.
  int64_t dims[4] = {-1, -1, -1, -1};
};

// Reads `launch`'s arguments for table entry `kind` into a GroupLaunch (main kernels: the
// caller fills dims from the GEMM rule).
GroupLaunch group_launch(const model::Launch& launch, int kind);

// One call found: its launches (indices into the input, main included) and its sizes.
struct FoundCall {
  size_t main = 0;
  std::vector<size_t> members;  // in launch order
  bool logical = false;         // m, n, k are the call's; else the main kernel's padded ones
  int64_t m = -1, n = -1, k = -1, batch = -1;
};

// Groups the launches of one process, given in seq order: every main kernel makes one
// call with the helpers that fed it and the one that copied its result back. Helpers that
// fed no main kernel are left out. Sizes: see gemm_groups.cpp (logical_sizes).
std::vector<FoundCall> group_calls(const std::vector<GroupLaunch>& launches);

}  // namespace clprof::gemm
