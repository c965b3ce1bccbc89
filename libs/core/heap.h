/// \file
/// Bytes the C heap holds right now (glibc mallinfo2: in-use chunks + mmapped blocks). The
/// executor measures a plan's real memory with it, and primitives whose library keeps
/// copies of the weights we cannot see (LibTorch's quantized prepack) measure their own.
#pragma once
#include <malloc.h>

#include <cstddef>

namespace lw {

inline size_t heap_in_use() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

/// How much the heap grew since heap_in_use() returned `before` (0 if it shrank).
inline size_t heap_growth_since(size_t before) {
  const size_t now = heap_in_use();
  return now > before ? now - before : 0;
}

}  // namespace lw
