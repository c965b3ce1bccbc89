// libFuzzer harness: the LWW1 weights reader, against a fixed topology (fmnist_resnet's).
// Most mutations break the checksum, which stops the reader early; so when the first byte
// is odd the harness writes the correct FNV-1a into the header first, and the size and
// count checks behind the checksum get fuzzed too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "libs/core/files.h"
#include "libs/core/hash.h"
#include "libs/ir/network_json.h"

namespace {
lw::Network g_net;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("LW_FUZZ_NETWORK");
  std::string text;
  lw::Status s = lw::read_file(path ? path : "configs/models/fmnist_resnet.json", &text);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (s.is_ok() && doc.is_object()) {
    doc.erase("weights");  // topology only: the fuzzer supplies the weights
    s = lw::network_from_json(doc.dump(), "fuzz-topology", ".", &g_net);
  }
  if (!s.is_ok() || !doc.is_object()) {
    std::fprintf(stderr, "fuzz_weights: cannot load the topology (set LW_FUZZ_NETWORK): %s\n", s.message().c_str());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) && bytes.size() >= 20) {
    uint64_t hash = lw::fnv1a(bytes.data() + 20, bytes.size() - 20);
    std::memcpy(&bytes[12], &hash, 8);
  }
  lw::Network net = g_net;
  (void)lw::weights_from_bytes(bytes, "fuzz.weights", &net);  // any status is fine; only a crash or a sanitizer report fails
  return 0;
}
