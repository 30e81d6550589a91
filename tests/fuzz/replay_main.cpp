// Replays inputs through the fuzz targets' entry points in a plain build (no clang, no
// libFuzzer): `fuzz_replay TARGET PATH...`, each PATH a file or a directory of files. Every
// kept finding (regressions/TARGET/) and every seed must go through without a crash, a
// sanitizer report or an exception other than InputError escaping.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define X(name) extern "C" int clprof_fuzz_##name(const uint8_t* data, size_t size);
#include "fuzz_targets.inc"
#undef X

namespace {

struct Target {
  const char* name;
  int (*run)(const uint8_t*, size_t);
};

const Target kTargets[] = {
#define X(name) {#name, clprof_fuzz_##name},
#include "fuzz_targets.inc"
#undef X
};

void collect(const std::string& path, std::vector<std::string>& files) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return;  // a target without regressions yet
  if (!S_ISDIR(st.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir))
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  ::closedir(dir);
  for (const auto& n : names) collect(path + "/" + n, files);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET PATH...\n");
    return 2;
  }
  const Target* target = nullptr;
  for (const auto& t : kTargets)
    if (std::strcmp(t.name, argv[1]) == 0) target = &t;
  if (!target) {
    std::fprintf(stderr, "fuzz_replay: unknown target '%s'\n", argv[1]);
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) collect(argv[i], files);
  if (files.empty()) {  // every target has seeds: nothing found means a wrong path
    std::fprintf(stderr, "fuzz_replay %s: no input found\n", target->name);
    return 1;
  }
  int failed = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    try {
      target->run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FAIL %s: %s: exception escaped: %s\n", target->name, f.c_str(),
                   e.what());
      ++failed;
    } catch (...) {
      std::fprintf(stderr, "FAIL %s: %s: a non-std exception escaped\n", target->name, f.c_str());
      ++failed;
    }
  }
  std::printf("fuzz_replay %s: %zu inputs, %d failed\n", target->name, files.size(), failed);
  return failed ? 1 : 0;
}
