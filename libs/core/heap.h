/// \file
/// Bytes the C heap holds right now (glibc mallinfo2: in-use chunks + mmapped blocks). The
/// executor measures a plan's real memory with it, and primitives whose library keeps
/// copies of the weights we cannot see (LibTorch's quantized prepack) measure their own.
#pragma once
#include <malloc.h>

#include <cstddef>

// Under AddressSanitizer malloc is ASan's, and glibc's mallinfo2 reads 0: ask ASan instead.
#if defined(__SANITIZE_ADDRESS__)
#define LW_ASAN_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LW_ASAN_HEAP 1
#endif
#endif
#ifdef LW_ASAN_HEAP
#include <sanitizer/allocator_interface.h>
#endif

namespace lw {

inline size_t heap_in_use() {
#ifdef LW_ASAN_HEAP
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

/// How much the heap grew since heap_in_use() returned `before` (0 if it shrank).
inline size_t heap_growth_since(size_t before) {
  const size_t now = heap_in_use();
  return now > before ? now - before : 0;
}

}  // namespace lw
