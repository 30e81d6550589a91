// libFuzzer's entry point for one target (CLPROF_FUZZ_TARGET, set per executable).
#include <cstddef>
#include <cstdint>

extern "C" int CLPROF_FUZZ_TARGET(const uint8_t* data, size_t size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return CLPROF_FUZZ_TARGET(data, size);
}
