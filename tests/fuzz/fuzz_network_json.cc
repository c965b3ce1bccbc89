// libFuzzer harness: network JSON (README "Network files") as `layerwise --model x.json` reads it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "libs/ir/network_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lw::Network net;
  // No weights directory: a "weights" reference must fail cleanly, not be followed anywhere.
  lw::Status s = lw::network_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json",
                                       "/nonexistent-fuzz-dir", &net);
  if (s.is_ok()) lw::network_to_json(net, "");  // a network that loads must also write back
  return 0;
}
