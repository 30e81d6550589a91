#include "entry/hook_addresses.hpp"

#include <cstddef>
#include <cstring>

#include "base/entry_points.hpp"
#include "base/real_opencl.hpp"

namespace clprof::shim {
namespace {

struct NamedHook {
  const char* name;
  void* hook;
};

const NamedHook kHooks[] = {
#define CLPROF_NAMED_HOOK(name) {#name, reinterpret_cast<void*>(&::name)},
    CLPROF_HOOKED_FUNCTIONS(CLPROF_NAMED_HOOK)
#undef CLPROF_NAMED_HOOK
};

int hook_index(const char* name) {
  if (!name || name[0] != 'c' || name[1] != 'l') return -1;
  for (size_t i = 0; i < sizeof(kHooks) / sizeof(kHooks[0]); ++i) {
    if (std::strcmp(kHooks[i].name, name) == 0) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

void* hook_address(const char* name) {
  const int i = hook_index(name);
  return i < 0 ? nullptr : kHooks[i].hook;
}

void* real_address(const char* name) {
  const int i = hook_index(name);
  if (i < 0) return nullptr;
  const RealTable& t = real();
  // The table is the X-macro list in order, hooked functions first: index matches.
  static_assert(sizeof(RealTable) % sizeof(void*) == 0);
  void* const* slots = reinterpret_cast<void* const*>(&t);
  return slots[i];
}

}  // namespace clprof::shim
