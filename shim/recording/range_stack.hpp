// A thread's stack of open range ids (markers). Fixed capacity, no allocation: read on
// every enqueue. Deeper nesting than kCapacity is counted but not stored.
#pragma once

#include <cstdint>

namespace clprof::shim {

// Not thread-safe: owned by one thread (read at exit by the finaliser only).
class RangeStack {
 public:
  static constexpr unsigned kCapacity = 64;

  void push(std::uint32_t id) {
    if (depth_ < kCapacity) ids_[depth_] = id;
    ++depth_;
  }
  // Pops the innermost range; returns its id, 0 if none was open, or 0 when it was
  // beyond the capacity (id not stored). `was_open` tells the two apart.
  std::uint32_t pop(bool& was_open) {
    was_open = depth_ > 0;
    if (!was_open) return 0;
    --depth_;
    return depth_ < kCapacity ? ids_[depth_] : 0;
  }
  std::uint32_t top() const {
    if (depth_ == 0) return 0;
    return depth_ <= kCapacity ? ids_[depth_ - 1] : 0;
  }
  unsigned depth() const { return depth_; }
  unsigned stored() const { return depth_ < kCapacity ? depth_ : kCapacity; }
  // Copies at most `max` ids, outermost first; returns how many.
  unsigned copy_outermost(std::uint32_t* out, unsigned max) const {
    const unsigned n = stored() < max ? stored() : max;
    for (unsigned i = 0; i < n; ++i) out[i] = ids_[i];
    return n;
  }
  void clear() { depth_ = 0; }

 private:
  std::uint32_t ids_[kCapacity];
  unsigned depth_ = 0;
};

}  // namespace clprof::shim
