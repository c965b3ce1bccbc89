// The native layout conversions: NCHW <-> NHWC transposes in register tiles, plain <-> blocked
// (nChw8c / nChw16c) reorders read in order, and blocked <-> blocked element by element
// (conversions.cc registers them as conversion edges, with the dtype changes).
#include <algorithm>
#include <cstring>
#include <type_traits>
#if defined(__SSE__) || defined(__x86_64__)
#include <immintrin.h>
#endif

#include "libs/native/kernels.h"

namespace lw::native {
namespace {

#if defined(__SSE2__)
// Square tiles transposed in registers, K x K elements: K loads, K stores.
inline void tile4x4_32(const void* src, int64_t ld_src, void* dst, int64_t ld_dst) {
  const float* s = static_cast<const float*>(src);
  float* d = static_cast<float*>(dst);
  __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + ld_src), e = _mm_loadu_ps(s + 2 * ld_src),
         f = _mm_loadu_ps(s + 3 * ld_src);
  _MM_TRANSPOSE4_PS(a, b, e, f);
  _mm_storeu_ps(d, a), _mm_storeu_ps(d + ld_dst, b), _mm_storeu_ps(d + 2 * ld_dst, e), _mm_storeu_ps(d + 3 * ld_dst, f);
}
// 8 x 8 of 16-bit elements: pairs, quads, then halves interleaved.
inline void tile8x8_16(const void* src, int64_t ld_src, void* dst, int64_t ld_dst) {
  const uint16_t* s = static_cast<const uint16_t*>(src);
  uint16_t* d = static_cast<uint16_t*>(dst);
  __m128i r[8], a[8], b[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * ld_src));
  for (int i = 0; i < 8; i += 2) a[i] = _mm_unpacklo_epi16(r[i], r[i + 1]), a[i + 1] = _mm_unpackhi_epi16(r[i], r[i + 1]);
  for (int i = 0; i < 8; i += 4)
    for (int j = 0; j < 2; ++j)
      b[i + 2 * j] = _mm_unpacklo_epi32(a[i + j], a[i + j + 2]), b[i + 2 * j + 1] = _mm_unpackhi_epi32(a[i + j], a[i + j + 2]);
  for (int j = 0; j < 4; ++j) {  // b[j]: columns 2j, 2j+1 of rows 0-3; b[j + 4] of rows 4-7
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * j * ld_dst), _mm_unpacklo_epi64(b[j], b[j + 4]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (2 * j + 1) * ld_dst), _mm_unpackhi_epi64(b[j], b[j + 4]));
  }
}
// 8 x 8 bytes: 8-byte rows, interleaved as bytes, pairs, then quads.
inline void tile8x8_8(const void* src, int64_t ld_src, void* dst, int64_t ld_dst) {
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t* d = static_cast<uint8_t*>(dst);
  __m128i a[4], b[4];
  for (int i = 0; i < 4; ++i)
    a[i] = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + 2 * i * ld_src)),
                             _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + (2 * i + 1) * ld_src)));
  b[0] = _mm_unpacklo_epi16(a[0], a[1]), b[1] = _mm_unpackhi_epi16(a[0], a[1]);  // rows 0-3: columns 0-3, 4-7
  b[2] = _mm_unpacklo_epi16(a[2], a[3]), b[3] = _mm_unpackhi_epi16(a[2], a[3]);  // rows 4-7
  for (int j = 0; j < 2; ++j) {
    const __m128i lo = _mm_unpacklo_epi32(b[j], b[j + 2]), hi = _mm_unpackhi_epi32(b[j], b[j + 2]);
    uint8_t* o = d + 4 * j * ld_dst;  // columns 4j .. 4j + 3, 8 bytes each
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o), lo);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + ld_dst), _mm_unpackhi_epi64(lo, lo));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 2 * ld_dst), hi);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + 3 * ld_dst), _mm_unpackhi_epi64(hi, hi));
  }
}

// The whole of three f32 planes (an RGB input to channels-last), 4 pixels at a time: 3 loads,
// 3 contiguous stores. Returns the columns done.
inline int64_t three_planes_f32(const float* s, int64_t ld_src, float* d, int64_t cols) {
  int64_t c = 0;
  for (; c + 4 <= cols; c += 4) {
    const __m128 a = _mm_loadu_ps(s + c), b = _mm_loadu_ps(s + ld_src + c), e = _mm_loadu_ps(s + 2 * ld_src + c);
    const __m128 ab = _mm_unpacklo_ps(a, b), ab_hi = _mm_unpackhi_ps(a, b);  // a0 b0 a1 b1, a2 b2 a3 b3
    const __m128 ea = _mm_unpacklo_ps(e, a), ea_hi = _mm_unpackhi_ps(e, a);  // e0 a0 e1 a1, e2 a2 e3 a3
    const __m128 be = _mm_unpacklo_ps(b, e), be_hi = _mm_unpackhi_ps(b, e);  // b0 e0 b1 e1, b2 e2 b3 e3
    float* o = d + 3 * c;
    _mm_storeu_ps(o, _mm_shuffle_ps(ab, ea, _MM_SHUFFLE(3, 0, 1, 0)));            // a0 b0 e0 a1
    _mm_storeu_ps(o + 4, _mm_shuffle_ps(be, ab_hi, _MM_SHUFFLE(1, 0, 3, 2)));     // b1 e1 a2 b2
    _mm_storeu_ps(o + 8, _mm_shuffle_ps(ea_hi, be_hi, _MM_SHUFFLE(3, 2, 3, 0)));  // e2 a3 b3 e3
  }
  return c;
}
#endif

// One [rows][cols] block of a transpose: dst[c * ld_dst + r] = src[r * ld_src + c]. Bounds
// and strides are locals, so the compiler keeps them in registers (through the lambda's
// references it reloaded them per element: 4-5 GB/s f32, 2 GB/s int8, a third of a copy).
template <typename T>
void transpose_block(const T* __restrict src, int64_t ld_src, T* __restrict dst, int64_t ld_dst, int64_t rows,
                     int64_t cols) {
  int64_t r = 0, c_done = 0;
#if defined(__SSE2__)
  constexpr int K = sizeof(T) == 4 ? 4 : 8;
  void (*tile)(const void*, int64_t, void*, int64_t) =
      sizeof(T) == 4 ? tile4x4_32 : sizeof(T) == 2 ? tile8x8_16 : tile8x8_8;
  if (sizeof(T) == 4 && rows == 3 && ld_dst == 3) {
    c_done = three_planes_f32(reinterpret_cast<const float*>(src), ld_src, reinterpret_cast<float*>(dst), cols);
  } else if (sizeof(T) <= 4) {
    const int64_t cols_k = cols / K * K;
    for (; r + K <= rows; r += K) {
      for (int64_t c = 0; c < cols_k; c += K) tile(src + r * ld_src + c, ld_src, dst + c * ld_dst + r, ld_dst);
      for (int64_t c = cols_k; c < cols; ++c)
        for (int64_t i = r; i < r + K; ++i) dst[c * ld_dst + i] = src[i * ld_src + c];
    }
  }
#endif
  // The rest: one column at a time, writing contiguously.
  for (int64_t c = c_done; c < cols; ++c)
    for (int64_t i = r; i < rows; ++i) dst[c * ld_dst + i] = src[i * ld_src + c];
}

// Blocked transpose of each image's [rows][cols] matrix (NCHW: rows = C, cols = HW), in
// 32 x 32 tiles (of 16 x 64, 32 x 64, 64 x 32 and 64 x 64 the best on both directions on the
// Zen 3 VM, bench_conversions): a tile's source rows and destination lines stay in L1.
template <typename T>
void transpose(int threads, const T* x, T* y, int n, int64_t rows, int64_t cols) {
  constexpr int64_t kRows = 32, kCols = 32;
  const int64_t rb = (rows + kRows - 1) / kRows, cb = (cols + kCols - 1) / kCols;
  for (int i = 0; i < n; ++i) {
    const T* src = x + i * rows * cols;
    T* dst = y + i * rows * cols;
    // Split over column blocks when there are few rows (the network input's 3 channels).
    const bool by_rows = rb >= cb;
    parallel_for(threads, by_rows ? rb : cb, [=](int64_t b0, int64_t b1) {
      const int64_t r_end = by_rows ? std::min(rows, b1 * kRows) : rows;
      const int64_t c_beg = by_rows ? 0 : b0 * kCols, c_end = by_rows ? cols : std::min(cols, b1 * kCols);
      for (int64_t r0 = by_rows ? b0 * kRows : 0; r0 < r_end; r0 += kRows)
        for (int64_t c0 = c_beg; c0 < c_end; c0 += kCols)
          transpose_block(src + r0 * cols + c0, cols, dst + c0 * rows + r0, rows, std::min(kRows, r_end - r0),
                          std::min(kCols, c_end - c0));
    });
  }
}

// Strides of logical (n, c, h, w) in a layout: offset = n*sn + (c/b)*scb + (c%b)*sci +
// h*sh + w*sw. Plain layouts are one block of all channels.
struct Strides {
  int64_t b, sn, scb, sci, sh, sw;
};
Strides strides_of(Layout l, const Shape& s) {
  const int64_t hw = int64_t(s.h) * s.w;
  if (l == Layout::kNCHW) return {s.c, s.c * hw, 0, hw, s.w, 1};
  if (l == Layout::kNHWC) return {s.c, s.c * hw, 0, 1, int64_t(s.w) * s.c, s.c};
  const int64_t b = layout_block(l);
  return {b, stored_elements(s, l) / s.n, hw * b, 1, s.w * b, b};
}

// Any layout to any other, one element at a time in the destination's order (sequential
// writes). Blocked destinations get zero channel padding. Left for nChw8c <-> nChw16c; plain
// <-> blocked go through plain_blocked below (1.6-15x faster on the Zen 3 VM:
// results/reference/zen3/transpose-ab/bench_conversions.md).
template <typename T>
void reorder(int threads, const T* x, T* y, const Shape& s, Layout from, Layout to) {
  const Strides a = strides_of(from, s), z = strides_of(to, s);
  const int64_t cb = (s.c + z.b - 1) / z.b;
  // Each channel's offset in the source, once: two divisions per element made these
  // reorders 5-10x slower than the dtype conversions.
  std::vector<int64_t> src(size_t(s.c));
  for (int64_t c = 0; c < s.c; ++c) src[size_t(c)] = (c / a.b) * a.scb + (c % a.b) * a.sci;
  const int64_t* off = src.data();
  for (int n = 0; n < s.n; ++n)
    parallel_for(threads, cb * s.h, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t blk = r / s.h, h = r % s.h, c0 = blk * z.b;
        // Real channels of this block, the rest padding (a plain layout is one block of all
        // channels, so it has none).
        const int64_t cn = std::min<int64_t>(z.b, s.c - c0);
        for (int w = 0; w < s.w; ++w) {
          T* out = y + n * z.sn + blk * z.scb + h * z.sh + w * z.sw;
          const T* in = x + n * a.sn + h * a.sh + w * a.sw;
          for (int64_t ci = 0; ci < cn; ++ci) out[ci * z.sci] = in[off[c0 + ci]];
          for (int64_t ci = cn; ci < z.b; ++ci) out[ci * z.sci] = T(0);
        }
      }
    });
}

// Plain to blocked and back. NCHW: per (image, channel block, row), a [channels][W] slab
// transposed to [W][block] (register tiles). NHWC: per (image, row), each pixel's channels
// split into the blocks, the source read once in order (block by block it was read once per
// block, 2x slower at 8 channels than at 16). A blocked destination's padding channels get
// zeros.

// W runs of the block's n <= B channels, strides ld_x and ld_y apart. The lengths are fixed
// so that the compiler moves whole vectors: with n variable GCC called memmove per pixel (3
// channels: 5 ns a pixel).
template <int B, typename T>
void copy_runs(const T* __restrict x, int64_t ld_x, T* __restrict y, int64_t ld_y, int64_t runs, int64_t n) {
  if (n == B) {
    for (int64_t w = 0; w < runs; ++w)
      for (int i = 0; i < B; ++i) y[w * ld_y + i] = x[w * ld_x + i];
  } else {
    for (int64_t w = 0; w < runs; ++w)
      for (int i = 0; i < B; ++i)
        if (i < n) y[w * ld_y + i] = x[w * ld_x + i];
  }
}

template <int B, typename T>
void plain_blocked(int threads, const T* x, T* y, const Shape& s, Layout plain, bool to_blocked) {
  const int64_t hw = int64_t(s.h) * s.w, cb = (s.c + B - 1) / B, H = s.h, W = s.w, C = s.c;
  const bool nchw = plain == Layout::kNCHW;
  for (int n = 0; n < s.n; ++n) {
    const T* xn = x + n * (to_blocked ? C : cb * B) * hw;
    T* yn = y + n * (to_blocked ? cb * B : C) * hw;
    // NCHW: items are (block, row); NHWC: rows, each over every block.
    parallel_for(threads, nchw ? cb * H : H, [=](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t h = r % H;
        for (int64_t blk = nchw ? r / H : 0; blk < (nchw ? r / H + 1 : cb); ++blk) {
          const int64_t c0 = blk * B, cn = std::min<int64_t>(B, C - c0);
          const int64_t row = (blk * H + h) * W * B, plain_row = nchw ? c0 * hw + h * W : h * W * C + c0;
          if (to_blocked) {
            T* out = yn + row;
            if (cn < B) std::memset(out, 0, sizeof(T) * W * B);  // one pass, not a short fill per pixel
            if (nchw) transpose_block(xn + plain_row, hw, out, B, cn, W);
            else copy_runs<B>(xn + plain_row, C, out, B, W, cn);
          } else if (nchw) {
            transpose_block(xn + row, B, yn + plain_row, hw, W, cn);
          } else {
            copy_runs<B>(xn + row, B, yn + plain_row, C, W, cn);
          }
        }
      }
    });
  }
}

template <typename T>
void plain_blocked(int threads, const T* x, T* y, const Shape& s, Layout plain, int b, bool to_blocked) {
  if (b == 8) plain_blocked<8>(threads, x, y, s, plain, to_blocked);
  else plain_blocked<16>(threads, x, y, s, plain, to_blocked);
}

}  // namespace

// NCHW -> NHWC transposes [C][HW]; NHWC -> NCHW transposes [HW][C]; a blocked side goes
// through plain_blocked, or reorder when both are.
void convert_layout(int threads, const void* x, void* y, size_t element_bytes, const Shape& s, Layout from,
                    Layout to) {
  auto go = [&](auto* typed_y) {
    using T = std::remove_pointer_t<decltype(typed_y)>;
    const T* tx = static_cast<const T*>(x);
    const int ba = layout_block(from), bb = layout_block(to);
    if (ba > 1 && bb > 1) return reorder(threads, tx, typed_y, s, from, to);
    if (bb > 1) return plain_blocked(threads, tx, typed_y, s, from, bb, true);
    if (ba > 1) return plain_blocked(threads, tx, typed_y, s, to, ba, false);
    const int64_t hw = int64_t(s.h) * s.w;
    transpose(threads, tx, typed_y, s.n, from == Layout::kNCHW ? s.c : hw, from == Layout::kNCHW ? hw : s.c);
  };
  switch (element_bytes) {
    case 1: return go(static_cast<int8_t*>(y));
    case 2: return go(static_cast<uint16_t*>(y));
    default: return go(static_cast<float*>(y));
  }
}

}  // namespace lw::native
