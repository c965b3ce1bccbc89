// The int8 activations' table lookup with AVX512-VBMI (activation_int8.cc), kept out of the
// portable objects (tests/check_portable_objects.sh): its own target attribute, so it builds
// under any -march and runs only where the CPU has VBMI.
#include <immintrin.h>

#include "libs/native/layer_prim.h"

namespace lw::native {

// 64 lookups per step: two 128-entry halves of the table by vpermi2b, the index's top bit
// picking the half. The scalar loop took ConvNeXt's first GELU (1.2 M elements) 0.92 ms,
// slower than the f32 one it would replace (0.51 ms over 4x the bytes). Compiled for
// AVX512-VBMI here and called only where the CPU has it (the build stays portable).
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi(const int8_t* table, const int8_t* x, int8_t* y,
                                                                        int64_t n) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i flip = _mm512_set1_epi8(char(0x80));  // q -> q + 128, the table index
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i idx = _mm512_xor_si512(_mm512_loadu_si512(x + i), flip);
    const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1), high = _mm512_permutex2var_epi8(t2, idx, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high));
  }
  lookup_scalar(table, x + i, y + i, n - i);
}

}  // namespace lw::native
