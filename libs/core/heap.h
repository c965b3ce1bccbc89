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

}  // namespace lw
