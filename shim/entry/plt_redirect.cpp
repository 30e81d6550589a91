#include "entry/plt_redirect.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace clprof::shim {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_X86_64_GLOB_DAT;
constexpr bool kSupported = true;
#elif defined(__aarch64__)
constexpr std::uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr std::uint32_t kGlobDat = R_AARCH64_GLOB_DAT;
constexpr bool kSupported = true;
#else
constexpr std::uint32_t kJumpSlot = 0;
constexpr std::uint32_t kGlobDat = 0;
constexpr bool kSupported = false;
#endif

struct Walk {
  const PltRedirect* redirects;
  std::size_t count;
  std::uintptr_t self;  // an address inside this library
  std::uintptr_t page;
  std::size_t rewritten = 0;
};

// The dynamic loader rebases the address entries of an object's dynamic section in place
// when that section is writable (as on x86-64 and AArch64); where it did not, they are
// still link-time addresses below the load bias.
std::uintptr_t rebased(ElfW(Addr) value, ElfW(Addr) bias) {
  return value < bias ? value + bias : value;
}

bool holds(const dl_phdr_info* info, std::uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    const std::uintptr_t from = info->dlpi_addr + p.p_vaddr;
    if (p.p_type == PT_LOAD && address >= from && address - from < p.p_memsz) return true;
  }
  return false;
}

// Stores `target` in `slot`. The dynamic loader made only whole pages of RELRO read-only
// (its end rounded down), so only a slot on one of those needs mprotect, and gets its
// read-only page back after the store.
bool store(const dl_phdr_info* info, std::uintptr_t page, void** slot, void* target) {
  const auto at = reinterpret_cast<std::uintptr_t>(slot);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_GNU_RELRO) continue;
    const std::uintptr_t from = (info->dlpi_addr + p.p_vaddr) & ~(page - 1);
    const std::uintptr_t to = (info->dlpi_addr + p.p_vaddr + p.p_memsz) & ~(page - 1);
    if (at < from || at >= to) continue;
    void* const first = reinterpret_cast<void*>(at & ~(page - 1));
    if (mprotect(first, page, PROT_READ | PROT_WRITE) != 0) return false;
    __atomic_store_n(slot, target, __ATOMIC_RELEASE);
    mprotect(first, page, PROT_READ);
    return true;
  }
  __atomic_store_n(slot, target, __ATOMIC_RELEASE);
  return true;
}

void rewrite(const dl_phdr_info* info, Walk& walk, const ElfW(Rela) * relocs, std::size_t bytes,
             const ElfW(Sym) * symbols, const char* names) {
  for (std::size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = relocs[i];
    const auto type = static_cast<std::uint32_t>(ELF64_R_TYPE(r.r_info));
    const auto symbol = ELF64_R_SYM(r.r_info);
    // Imports only: an object's reference to its own definition (a sanitizer runtime's
    // interceptor, libc's sigaction) is its own business.
    if ((type != kJumpSlot && type != kGlobDat) || symbol == 0 ||
        symbols[symbol].st_shndx != SHN_UNDEF) {
      continue;
    }
    const char* name = names + symbols[symbol].st_name;
    for (std::size_t k = 0; k < walk.count; ++k) {
      if (std::strcmp(name, walk.redirects[k].name) != 0) continue;
      auto** slot = reinterpret_cast<void**>(info->dlpi_addr + r.r_offset);
      if (*slot != walk.redirects[k].target &&
          store(info, walk.page, slot, walk.redirects[k].target)) {
        ++walk.rewritten;
      }
    }
  }
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  Walk& walk = *static_cast<Walk*>(data);
  const char* object = info->dlpi_name ? info->dlpi_name : "";
  if (holds(info, walk.self) || std::strncmp(object, "linux-", 6) == 0) return 0;  // vDSO
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (!dynamic) return 0;
  const ElfW(Addr) bias = info->dlpi_addr;
  std::uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  std::size_t jmprel_bytes = 0, rela_bytes = 0;
  bool plt_is_rela = true;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symtab = rebased(d->d_un.d_ptr, bias);
        break;
      case DT_STRTAB:
        strtab = rebased(d->d_un.d_ptr, bias);
        break;
      case DT_JMPREL:
        jmprel = rebased(d->d_un.d_ptr, bias);
        break;
      case DT_PLTRELSZ:
        jmprel_bytes = d->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_is_rela = d->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        rela = rebased(d->d_un.d_ptr, bias);
        break;
      case DT_RELASZ:
        rela_bytes = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (!symtab || !strtab) return 0;
  const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const auto* names = reinterpret_cast<const char*>(strtab);
  if (jmprel && plt_is_rela) {
    rewrite(info, walk, reinterpret_cast<const ElfW(Rela)*>(jmprel), jmprel_bytes, symbols, names);
  }
  if (rela)
    rewrite(info, walk, reinterpret_cast<const ElfW(Rela)*>(rela), rela_bytes, symbols, names);
  return 0;
}

}  // namespace

std::size_t redirect_plt_calls(const PltRedirect* redirects, std::size_t count) {
  if (!kSupported || count == 0) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  Walk walk{redirects, count, reinterpret_cast<std::uintptr_t>(&redirect_plt_calls),
            static_cast<std::uintptr_t>(page > 0 ? page : 4096)};
  dl_iterate_phdr(&visit, &walk);
  return walk.rewritten;
}

}  // namespace clprof::shim
