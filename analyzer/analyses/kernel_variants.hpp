// Kernel variants: kernels of one name built from other sources or with other build options
// (OpenCV builds `morph` with -D OP_ERODE and with -D OP_DILATE) are rows of their own in
// kernels, layers' kernels, compare and the report; one source built with the same options
// twice (a program per context, a repeated build) stays one row.
//
// While streaming, launches are counted per ProgramKernel (name, process, program id): the
// program records may not have been read yet, and those keys are few (kernels x programs).
// Once the run's metadata is known, each ProgramKernel resolves to its KernelVariant (name,
// source hash, build options) and the variants of a name get their row names
// (variant_labels). docs/cli.md (kernels) says how variants are named. Pure functions over
// the model; single-threaded.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "model.hpp"

namespace clprof::analyses {

// A kernel name in one program of one process (program ids are per process; 0: unknown).
struct ProgramKernel {
  std::string name;
  uint32_t process = 0;
  uint64_t program_id = 0;
  bool operator<(const ProgramKernel& o) const {
    return std::tie(name, process, program_id) < std::tie(o.name, o.process, o.program_id);
  }
};

// What a row of kernels is keyed by: the name and its program's source and build options.
struct KernelVariant {
  std::string name;
  bool known = false;       // the program has a record in the run (importers: never)
  std::string source_hash;  // "fnv1a64:..."; "" when the program has none (binary, link)
  std::string options;      // the options of the program's latest successful build
  bool operator<(const KernelVariant& o) const {
    return std::tie(name, known, source_hash, options) <
           std::tie(o.name, o.known, o.source_hash, o.options);
  }
  bool operator==(const KernelVariant& o) const {
    return name == o.name && known == o.known && source_hash == o.source_hash &&
           options == o.options;
  }
};

// The variant of a ProgramKernel, looked up in a run's program records. `run` must outlive it.
class ProgramVariants {
 public:
  explicit ProgramVariants(const model::Run& run);
  KernelVariant of(const ProgramKernel& kernel) const;

 private:
  std::map<std::pair<uint32_t, uint64_t>, const model::Program*> programs_;
};

// The longest tag a variant's row name carries (bytes of options, before "..."): options are
// the app's text and may be kilobytes long.
inline constexpr size_t kMaxVariantTagBytes = 96;

// The row name of each variant in `variants`: the kernel name when no other variant has that
// name, else "NAME [TAG]", TAG telling it from the name's other variants (docs/cli.md):
//   - the build options, when they differ: the words (a "-D X", "-I X" pair is one word)
//     that are not in every variant's options ("-D OP_ERODE"), or, when some variant has no
//     such word, the whole options ("no options" when empty);
//   - "source" and the first 8 hex digits of the source hash, when the sources differ
//     ("no source hash" for a program without one);
//   - "unknown program" for launches whose program has no record.
// Names that still collide get " #2", " #3", ... in variant order. Every name is distinct.
std::map<KernelVariant, std::string> variant_labels(const std::set<KernelVariant>& variants);

}  // namespace clprof::analyses
