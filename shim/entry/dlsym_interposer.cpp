// The dlsym interposer (libc's own dlsym behind it is base/real_dlsym.cpp).
#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "base/process_settings.hpp"
#include "base/real_opencl.hpp"
#include "entry/blas_call.hpp"
#include "entry/hook_addresses.hpp"
#include "entry/hooks_extensions.hpp"

using clprof::shim::hook_address;
using clprof::shim::real_address;
using clprof::shim::real_dlsym;

namespace {

#if !defined(__x86_64__) && !defined(__aarch64__)
// dlsym(RTLD_NEXT, name) means "after the caller", and glibc finds the caller from the
// return address, which inside this interposer is libclprof.so. Forwarding as is would
// resolve after the shim instead: another preloaded wrapper (a malloc tracer, say) that
// asks for the next malloc would get its own and recurse. So: walk the link map from the
// real caller on and return the first definition made by the object itself. dlopen and
// dlclose are libc's own (dlvsym): sanitizer runtimes resolve their interceptors through
// dlsym(RTLD_NEXT) before their dlopen wrapper can work.
template <class Fn>
CLPROF_NO_SANITIZE Fn libc_function(const char* name) {
  return reinterpret_cast<Fn>(clprof::shim::libc_symbol(name));
}

// Looked up once, into a constant-initialised pointer (see clprof_real_dlsym for why).
template <class Fn>
CLPROF_NO_SANITIZE Fn cached_libc_function(Fn* cache, const char* name) {
  Fn fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (!fn) {
    fn = libc_function<Fn>(name);
    __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

CLPROF_NO_SANITIZE void* libc_dlopen(const char* file, int mode) {
  using Fn = void* (*)(const char*, int);
  static Fn cache = nullptr;
  const Fn fn = cached_libc_function(&cache, "dlopen");
  return fn ? fn(file, mode) : nullptr;
}

CLPROF_NO_SANITIZE int libc_dlclose(void* handle) {
  using Fn = int (*)(void*);
  static Fn cache = nullptr;
  const Fn fn = cached_libc_function(&cache, "dlclose");
  return fn ? fn(handle) : -1;
}

CLPROF_NO_SANITIZE void* dlsym_next_after(const void* caller, const char* name) {
  Dl_info info;
  struct link_map* from = nullptr;
  struct link_map* self = nullptr;
  static const int kAnchor = 0;
  if (!dladdr1(caller, &info, reinterpret_cast<void**>(&from), RTLD_DL_LINKMAP) || !from ||
      !dladdr1(&kAnchor, &info, reinterpret_cast<void**>(&self), RTLD_DL_LINKMAP) || !self) {
    return real_dlsym(RTLD_NEXT, name);
  }
  // A caller loaded before the shim: "next after the caller" and "next after the shim"
  // differ only in the shim's own few symbols. glibc answers that exactly.
  for (struct link_map* l = from->l_next; l; l = l->l_next) {
    if (l == self) return real_dlsym(RTLD_NEXT, name);
  }
  for (struct link_map* l = from->l_next; l; l = l->l_next) {
    if (!l->l_name || !l->l_name[0]) continue;
    void* handle = libc_dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    void* found = real_dlsym(handle, name);
    libc_dlclose(handle);
    if (!found) continue;
    Dl_info where;
    struct link_map* owner = nullptr;
    if (dladdr1(found, &where, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) && owner == l)
      return found;
  }
  return nullptr;
}

#endif  // !__x86_64__ && !__aarch64__

}  // namespace

// Whether `name` may be a BLAS function clprof hooks (entry/blas_call.hpp): a prefix test
// by hand, as the rest of this path is not instrumented.
static CLPROF_NO_SANITIZE bool has_prefix(const char* name, const char* prefix) {
  for (; *prefix; ++prefix, ++name)
    if (*name != *prefix) return false;
  return true;
}
static CLPROF_NO_SANITIZE bool may_be_blas(const char* name) {
  return name && (has_prefix(name, "CLBlast") || has_prefix(name, "clblas") ||
                  has_prefix(name, "_ZN7clblast"));
}

// Apps such as Arm Compute Library dlopen libOpenCL privately and call through dlsym:
// give them the hook, but only when the symbol found is the very function the hook
// forwards to. Anything else (the ICD loader looking up a vendor driver's functions,
// other libraries' cl* names) gets the real answer, or the loader would call us back.
// RTLD_NEXT never reaches this (see dlsym below).
extern "C" __attribute__((visibility("hidden"))) CLPROF_NO_SANITIZE void* clprof_dlsym_other(
    void* handle, const char* name) {
  void* found = real_dlsym(handle, name);
  if (clprof::shim::t_resolving_real_opencl) return found;
  // A BLAS entry point: entry/blas_call.hpp says what it becomes.
  if (may_be_blas(name) && clprof::shim::blas_dlsym(name, found)) return found;
  if (!found || name[0] != 'c' || name[1] != 'l') return found;
  if (!clprof::shim::hooks_may_be_handed_out()) return found;
  void* hook = hook_address(name);
  if (hook && found != hook && found == real_address(name)) return hook;
  // An extension a vendor's libOpenCL exports (Arm Compute Library loads
  // clImportMemoryARM this way): some come wrapped.
  if (!hook) {
    if (void* wrapper = clprof::shim::extension_hook(nullptr, name, found)) return wrapper;
  }
  return found;
}

#if defined(__x86_64__)
// The interposed dlsym. dlsym(RTLD_NEXT, name) means "the next definition after the
// caller", and glibc finds the caller from its own return address: jumping to libc's
// dlsym (not calling it) leaves the app's return address in place, so glibc answers
// exactly as without clprof, from any caller, at any time. That includes a sanitizer
// runtime resolving its interceptors before anything is initialised, where looking
// objects up one by one (dlopen RTLD_NOLOAD) would run constructors too early
// (ThreadSanitizer-built apps crashed). Other handles go to clprof_dlsym_other.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, @function
  .p2align 4
dlsym:
  .cfi_startproc
  endbr64
  cmpq $-1, %rdi
  jne clprof_dlsym_other
  movq clprof_real_dlsym(%rip), %rax
  testq %rax, %rax
  jz 1f
  jmp *%rax
1:
  pushq %rdi
  .cfi_adjust_cfa_offset 8
  pushq %rsi
  .cfi_adjust_cfa_offset 8
  subq $8, %rsp
  .cfi_adjust_cfa_offset 8
  call clprof_resolve_real_dlsym
  addq $8, %rsp
  .cfi_adjust_cfa_offset -8
  popq %rsi
  .cfi_adjust_cfa_offset -8
  popq %rdi
  .cfi_adjust_cfa_offset -8
  testq %rax, %rax
  jz 2f
  jmp *%rax
2:
  ret
  .cfi_endproc
  .size dlsym, .-dlsym
)");
#elif defined(__aarch64__)
// The same on AArch64: glibc's dlsym takes the caller from the link register, which a
// branch (not a call) to it leaves as the app set it. x16 (IP0) is free to clobber at a
// function's entry, and BR x16 may land on a BTI "c" pad. RTLD_NEXT is (void*)-1.
asm(R"(
  .text
  .globl dlsym
  .type dlsym, %function
  .p2align 4
dlsym:
  .cfi_startproc
  hint 34
  cmn x0, #1
  b.eq 0f
  b clprof_dlsym_other
0:
  adrp x16, clprof_real_dlsym
  ldr x16, [x16, :lo12:clprof_real_dlsym]
  cbz x16, 1f
  br x16
1:
  stp x29, x30, [sp, #-32]!
  .cfi_def_cfa_offset 32
  .cfi_offset 29, -32
  .cfi_offset 30, -24
  mov x29, sp
  stp x0, x1, [sp, #16]
  bl clprof_resolve_real_dlsym
  mov x16, x0
  ldp x0, x1, [sp, #16]
  ldp x29, x30, [sp], #32
  .cfi_restore 29
  .cfi_restore 30
  .cfi_def_cfa_offset 0
  cbz x16, 2f
  br x16
2:
  mov x0, #0
  ret
  .cfi_endproc
  .size dlsym, .-dlsym
)");
#else
// Elsewhere: walk the link map from the real caller (dlsym_next_after).
CLPROF_EXPORT CLPROF_NO_SANITIZE void* dlsym(void* handle, const char* name) {
  if (handle == RTLD_NEXT) return dlsym_next_after(__builtin_return_address(0), name);
  return clprof_dlsym_other(handle, name);
}
#endif
