// libFuzzer harness: the deployment-bundle reader (env/bundle.h), everything before the
// executor. Most mutations break the trailing checksum, which stops the reader early; so
// when the first byte is odd the harness writes the correct FNV-1a at the end first, and the
// size checks, the manifest and the weights behind the checksum get fuzzed too.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "env/bundle.h"
#include "libs/core/hash.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) && bytes.size() >= 8) {
    uint64_t h = lw::fnv1a(bytes.data(), bytes.size() - 8);
    std::memcpy(&bytes[bytes.size() - 8], &h, 8);
  }
  lw::Bundle b;
  (void)lw::bundle_from_bytes(bytes, "fuzz", &b);
  return 0;
}
