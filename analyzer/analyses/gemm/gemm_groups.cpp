#include "analyses/gemm/gemm_groups.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "name_regex.hpp"

namespace clprof::gemm {

namespace {

using Role = GroupKernel::Role;

// CLBlast 1.5.3's indirect GEMM kernels. Sources (CLBlast git tag 1.5.3):
// src/routines/level3/xgemm.cpp GemmIndirect, src/routines/levelx/xgemmbatched.cpp and
// xgemmstridedbatched.cpp BatchedGemmIndirect (kernel arguments), src/routines/common.hpp
// PadCopyTransposeMatrix[Batched|StridedBatched] (helper arguments), and the kernels in
// src/kernels/level3/{xgemm_part4,xgemm_batched,copy_pad,transpose_pad,copy_fast,
// transpose_fast}.opencl. Checked against traces of Debian's libclblast 1.5.3 on PoCL.
GroupKernel main_kernel(const char* id, const char* regex, int a, int b, int c, const char* src) {
  GroupKernel g;
  g.id = id;
  g.kernel = regex;
  g.role = Role::Main;
  g.a = a;
  g.b = b;
  g.c = c;
  g.verified = src;
  return g;
}
GroupKernel helper(const char* id, const char* regex, bool transposes, bool pads, int src, int dest,
                   int src_one, int src_two, int dest_one, int dest_two, const char* verified) {
  GroupKernel g;
  g.id = id;
  g.kernel = regex;
  g.role = Role::Helper;
  g.transposes = transposes;
  g.pads = pads;
  g.src = src;
  g.dest = dest;
  g.src_one = src_one;
  g.src_two = src_two;
  g.dest_one = dest_one;
  g.dest_two = dest_two;
  g.verified = verified;
  return g;
}

const char* const kPlain =
    "common.hpp PadCopyTransposeMatrix: 0 src_one, 1 src_two, 2 src_ld, 3 src_offset, 4 src, "
    "5 dest_one, 6 dest_two, 7 dest_ld, 8 dest_offset, 9 dest, 10 alpha; the Batched forms "
    "take offset buffers at 3 and 8";
const char* const kStrided =
    "common.hpp PadCopyTransposeMatrixStridedBatched: 0 src_one, 1 src_two, 2 src_ld, "
    "3 src_offset, 4 src_stride, 5 src, 6 dest_one, 7 dest_two, 8 dest_ld, 9 dest_offset, "
    "10 dest_stride, 11 dest";
const char* const kFast =
    "common.hpp PadCopyTransposeMatrix, fast kernel: 0 ld, 1 src, 2 dest, 3 alpha; chosen only "
    "when source and destination have the same dimensions (no padding)";

std::vector<GroupKernel> make_table() {
  return {
      main_kernel("clblast-xgemm", "Xgemm", 5, 6, 7,
                  "xgemm.cpp GemmIndirect: Xgemm(m_ceiled, n_ceiled, k_ceiled, alpha, beta, "
                  "a_temp, b_temp, c_temp, b_temp_offset/VWN, c_temp_offset/VWM)"),
      main_kernel("clblast-xgemm-batched", "Xgemm(Strided)?Batched", 5, 8, 11,
                  "xgemm_batched.opencl: (kSizeM, kSizeN, kSizeK, alpha(s), beta(s), agm, a_one, "
                  "a_two, bgm, b_one, b_two, cgm, c_one, c_two); batch = gws[2]"),
      helper("clblast-copy-pad", "CopyPadMatrix(Batched)?", false, true, 4, 9, 0, 1, 5, 6, kPlain),
      helper("clblast-copy", "CopyMatrix(Batched)?", false, false, 4, 9, 0, 1, 5, 6, kPlain),
      helper("clblast-transpose-pad", "TransposePadMatrix(Batched)?", true, true, 4, 9, 0, 1, 5, 6,
             kPlain),
      helper("clblast-transpose", "TransposeMatrix(Batched)?", true, false, 4, 9, 0, 1, 5, 6,
             kPlain),
      helper("clblast-copy-pad-strided", "CopyPadMatrixStridedBatched", false, true, 5, 11, 0, 1, 6,
             7, kStrided),
      helper("clblast-copy-strided", "CopyMatrixStridedBatched", false, false, 5, 11, 0, 1, 6, 7,
             kStrided),
      helper("clblast-transpose-pad-strided", "TransposePadMatrixStridedBatched", true, true, 5, 11,
             0, 1, 6, 7, kStrided),
      helper("clblast-transpose-strided", "TransposeMatrixStridedBatched", true, false, 5, 11, 0, 1,
             6, 7, kStrided),
      helper("clblast-copy-fast", "CopyMatrixFast", false, false, 1, 2, -1, -1, -1, -1, kFast),
      helper("clblast-transpose-fast", "TransposeMatrixFast", true, false, 1, 2, -1, -1, -1, -1,
             kFast),
  };
}

struct Compiled {
  std::vector<GroupKernel> table = make_table();
  std::vector<NameRegex> regexes;
  Compiled() {
    for (const auto& g : table) regexes.emplace_back("^(?:" + g.kernel + ")$");
  }
};

const Compiled& compiled() {
  static const Compiled c;
  return c;
}

int64_t int_arg(const model::Launch& l, int i) {
  if (i < 0 || static_cast<size_t>(i) >= l.args.size()) return -1;
  const auto& a = l.args[static_cast<size_t>(i)];
  if (a.kind != model::KernelArg::Kind::Scalar || !a.has_value || a.size != 4) return -1;
  const auto v = static_cast<int32_t>(static_cast<uint32_t>(a.value));
  return v < 0 ? -1 : v;
}

uint64_t mem_arg(const model::Launch& l, int i) {
  if (i < 0 || static_cast<size_t>(i) >= l.args.size()) return 0;
  const auto& a = l.args[static_cast<size_t>(i)];
  return a.kind == model::KernelArg::Kind::Buffer ? a.object_id : 0;
}

enum Slot { kA, kB, kC };

// A pair of dimensions.
struct Dims {
  int64_t one = -1, two = -1;
  bool known() const { return one >= 0 && two >= 0; }
  bool operator==(const Dims& o) const { return one == o.one && two == o.two; }
};

// A call being built: its main kernel and the helpers of each matrix.
struct Building {
  size_t main;
  std::vector<size_t> members;
  int pre[3] = {-1, -1, -1};  // index into the input per slot
  int post = -1;              // the helper that copied C back
  int last_slot = -1;
};

class Grouper {
 public:
  explicit Grouper(const std::vector<GroupLaunch>& in) : in_(in) {}

  std::vector<FoundCall> run() {
    for (size_t i = 0; i < in_.size(); ++i) {
      const GroupLaunch& l = in_[i];
      if (l.kind < 0) continue;
      State& st = states_[{l.queue, l.program}];
      const GroupKernel& g = compiled().table[static_cast<size_t>(l.kind)];
      if (g.role == Role::Main) {
        close(st);
        Building b{i, {}, {-1, -1, -1}, -1, -1};
        for (size_t p : st.pending) assign_pre(b, p);
        st.pending.clear();
        st.open = b;
        st.has_open = true;
      } else if (st.has_open && is_post(st.open, i)) {
        st.open.post = static_cast<int>(i);
        close(st);
      } else {
        close(st);
        st.pending.push_back(i);
      }
    }
    for (auto& [key, st] : states_) close(st);
    std::sort(out_.begin(), out_.end(),
              [](const FoundCall& x, const FoundCall& y) { return x.main < y.main; });
    return std::move(out_);
  }

 private:
  struct State {
    std::vector<size_t> pending;  // helpers waiting for their main kernel
    bool has_open = false;
    Building open{};  // the last main kernel, until its post-processing kernel or the next
  };

  const GroupKernel& kernel(size_t i) const {
    return compiled().table[static_cast<size_t>(in_[i].kind)];
  }
  // The helper's destination (source) dimensions; unknown for the fast kernels.
  Dims dest(size_t i) const { return {in_[i].dims[2], in_[i].dims[3]}; }
  Dims src(size_t i) const { return {in_[i].dims[0], in_[i].dims[1]}; }

  // The internal (padded, kernel-orientation) dimensions slot s may have: (m_c, k_c) or
  // (k_c, m_c) for A (GEMMK 0 or 1), (n_c, k_c) for B, (m_c, n_c) or (n_c, m_c) for C.
  bool fits(const GroupLaunch& main, Slot s, Dims d) const {
    const int64_t mc = main.dims[0], nc = main.dims[1], kc = main.dims[2];
    switch (s) {
      case kA:
        return d == Dims{mc, kc} || d == Dims{kc, mc};
      case kB:
        return d == Dims{nc, kc};
      case kC:
        return d == Dims{mc, nc} || d == Dims{nc, mc};
    }
    return false;
  }

  // A pending helper becomes the pre-processing kernel of the first matrix (in CLBlast's
  // order A, B, C, after the last one assigned) whose buffer it wrote, with fitting sizes.
  void assign_pre(Building& b, size_t h) {
    const GroupLaunch& main = in_[b.main];
    const GroupKernel& g = kernel(h);
    if (g.role != Role::Helper) return;
    const uint64_t written = in_[h].mem[1];
    for (int s = b.last_slot + 1; s < 3; ++s) {
      if (written == 0 || main.mem[s] != written) continue;
      if (g.dest_one >= 0 && !fits(main, static_cast<Slot>(s), dest(h))) continue;
      b.pre[s] = static_cast<int>(h);
      b.last_slot = s;
      return;
    }
  }

  // The kernel that copies C back: reads the main kernel's C buffer, does not pad.
  bool is_post(const Building& b, size_t h) const {
    const GroupKernel& g = kernel(h);
    if (g.role != Role::Helper || g.pads) return false;
    const GroupLaunch& main = in_[b.main];
    if (in_[h].mem[0] == 0 || in_[h].mem[0] != main.mem[kC]) return false;
    return g.src_one < 0 || fits(main, kC, src(h));
  }

  void close(State& st) {
    if (!st.has_open) return;
    st.has_open = false;
    Building& b = st.open;
    FoundCall c;
    c.main = b.main;
    for (int s = 0; s < 3; ++s)
      if (b.pre[s] >= 0) c.members.push_back(static_cast<size_t>(b.pre[s]));
    c.members.push_back(b.main);
    if (b.post >= 0) c.members.push_back(static_cast<size_t>(b.post));
    std::sort(c.members.begin(), c.members.end());
    sizes(b, c);
    out_.push_back(std::move(c));
  }

  // A matrix's logical dimensions in the kernel's orientation, from its helper: the source
  // of a pre-processing kernel (swapped when it transposes), the destination of the
  // post-processing one. A matrix without a helper, or with a "fast" one, was not padded.
  Dims logical(int helper, bool post, Dims internal) const {
    if (helper < 0) return internal;
    const auto h = static_cast<size_t>(helper);
    const GroupKernel& g = kernel(h);
    if (g.src_one < 0) return internal;
    const Dims d = post ? dest(h) : src(h);
    return g.transposes ? Dims{d.two, d.one} : d;
  }

  void sizes(const Building& b, FoundCall& c) const {
    const GroupLaunch& main = in_[b.main];
    const int64_t mc = main.dims[0], nc = main.dims[1], kc = main.dims[2];
    c.batch = main.dims[3];
    c.m = mc;
    c.n = nc;
    c.k = kc;
    if (mc < 0 || nc < 0 || kc < 0) return;
    // GEMMK 1 (some GPU tunings) keeps A and C rotated: (k, m) and (n, m). Told apart by the
    // helpers' destination sizes when they differ; GEMMK 0 otherwise.
    bool gemmk1 = false;
    if (b.pre[kA] >= 0 && kernel(static_cast<size_t>(b.pre[kA])).dest_one >= 0 && mc != kc) {
      gemmk1 = dest(static_cast<size_t>(b.pre[kA])) == Dims{kc, mc};
    } else if (mc != nc) {
      const int c_helper = b.pre[kC] >= 0 ? b.pre[kC] : b.post;
      if (c_helper >= 0 && kernel(static_cast<size_t>(c_helper)).dest_one >= 0) {
        const auto h = static_cast<size_t>(c_helper);
        gemmk1 = (c_helper == b.post ? src(h) : dest(h)) == Dims{nc, mc};
      }
    }
    const Dims a = logical(b.pre[kA], false, gemmk1 ? Dims{kc, mc} : Dims{mc, kc});
    const Dims bm = logical(b.pre[kB], false, Dims{nc, kc});
    // C: the pre-processing kernel's source and the post-processing kernel's destination
    // are the same matrix; either tells.
    const Dims c_internal = gemmk1 ? Dims{nc, mc} : Dims{mc, nc};
    Dims cm = logical(b.post, true, c_internal);
    if (b.post < 0) cm = logical(b.pre[kC], false, c_internal);
    const int64_t m_a = gemmk1 ? a.two : a.one, k_a = gemmk1 ? a.one : a.two;
    const int64_t m_c = gemmk1 ? cm.two : cm.one, n_c = gemmk1 ? cm.one : cm.two;
    const int64_t n = bm.one, k = bm.two;
    // Every matrix must tell the same story, within the padded sizes.
    if (m_a != m_c || n != n_c || k != k_a) return;
    if (m_a < 0 || n < 0 || k < 0 || m_a > mc || n > nc || k > kc) return;
    c.m = m_a;
    c.n = n;
    c.k = k;
    c.logical = true;
  }

  const std::vector<GroupLaunch>& in_;
  std::map<std::pair<uint64_t, uint64_t>, State> states_;
  std::vector<FoundCall> out_;
};

}  // namespace

const std::vector<GroupKernel>& group_kernels() {
  return compiled().table;
}

int match_group_kernel(const std::string& name) {
  const auto& c = compiled();
  for (size_t i = 0; i < c.regexes.size(); ++i)
    if (c.regexes[i].search(name)) return static_cast<int>(i);
  return -1;
}

GroupLaunch group_launch(const model::Launch& l, int kind) {
  GroupLaunch g;
  g.seq = l.seq;
  g.queue = l.queue_id;
  g.program = l.program_id;
  g.kind = kind;
  const GroupKernel& k = compiled().table[static_cast<size_t>(kind)];
  if (k.role == Role::Main) {
    g.mem[0] = mem_arg(l, k.a);
    g.mem[1] = mem_arg(l, k.b);
    g.mem[2] = mem_arg(l, k.c);
  } else {
    g.mem[0] = mem_arg(l, k.src);
    g.mem[1] = mem_arg(l, k.dest);
    g.dims[0] = int_arg(l, k.src_one);
    g.dims[1] = int_arg(l, k.src_two);
    g.dims[2] = int_arg(l, k.dest_one);
    g.dims[3] = int_arg(l, k.dest_two);
  }
  return g;
}

std::vector<FoundCall> group_calls(const std::vector<GroupLaunch>& launches) {
  return Grouper(launches).run();
}

}  // namespace clprof::gemm
