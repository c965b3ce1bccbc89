// libFuzzer harness: an ONNX model as `--model net.onnx` reads it. The importer takes a path
// (external data files resolve beside the model), so each input is written to a private
// file first; it lives in /dev/shm when there is one, to keep the fuzzer fast.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "libs/onnx/onnx_import.h"

namespace {
std::string scratch_path() {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/layerwise-fuzz-" + std::to_string(getpid()) + ".onnx";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_path();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  lw::Network net;
  (void)lw::import_onnx(path, &net);  // any status is fine; only a crash or a sanitizer report fails
  return 0;
}
