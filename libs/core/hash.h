/// \file
/// FNV-1a, the one hash Layerwise writes into files (weights checksums, model and LUT
/// fingerprints). One definition, so a file written by one component checks in another.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace lw {

constexpr uint64_t kFnv1aOffset = 1469598103934665603ull;
constexpr uint64_t kFnv1aPrime = 1099511628211ull;

/// FNV-1a of `n` bytes, continuing from `h` (pass a previous result to hash in pieces).
inline uint64_t fnv1a(const void* data, size_t n, uint64_t h = kFnv1aOffset) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnv1aPrime;
  return h;
}
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aOffset) { return fnv1a(s.data(), s.size(), h); }

/// FNV-1a of `s` as 16 hex digits (run directories, LUT cache names, sweep cells).
inline std::string fnv1a_hex(std::string_view s) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(s)));
  return buf;
}

}  // namespace lw
