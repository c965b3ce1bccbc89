// Direct conversion edges of the conversion graph: layout changes between every pair of
// layouts (NCHW <-> NHWC transposes, reorders to and from the blocked nChw16c / nChw8c),
// dtype changes between f32, bf16 and int8 (round to nearest even; int8 per-tensor affine)
// and thread-set changes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#if defined(__SSE__) || defined(__x86_64__)
#include <immintrin.h>
#endif

#include "libs/native/kernels.h"

namespace lw::native {
namespace {

class ConvertPrim : public Primitive {
 public:
  ConvertPrim(const ConversionDesc& d, const Shape& s, QuantParams q) : Primitive(d.name()), d_(d), q_(q) {
    out_shape_ = s;
    out_dtype_ = d.to.dtype;
    out_layout_ = d.to.layout;
  }
  Status reshape(const std::vector<Shape>& in) override {
    if (in.size() != 1) return invalid_argument("a conversion takes one input");
    out_shape_ = in[0];
    return Status::ok();
  }
  Status setup(const std::vector<const void*>& in, void* out, void* workspace) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("null input or output");
    x_ = in[0];
    y_ = out;
    return Status::ok();
  }

 protected:
  int threads() const { return d_.to.threads; }
  ConversionDesc d_;
  QuantParams q_;
  const void* x_ = nullptr;
  void* y_ = nullptr;
};

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

class LayoutConvert : public ConvertPrim {
 public:
  using ConvertPrim::ConvertPrim;
  Status run() override {
    switch (dtype_bytes(d_.from.dtype)) {
      case 1: go(static_cast<const int8_t*>(x_), static_cast<int8_t*>(y_)); break;
      case 2: go(static_cast<const uint16_t*>(x_), static_cast<uint16_t*>(y_)); break;
      default: go(static_cast<const float*>(x_), static_cast<float*>(y_)); break;
    }
    return Status::ok();
  }

 private:
  template <typename T>
  void go(const T* x, T* y) {
    const Shape& s = out_shape_;
    const Layout a = d_.from.layout, b = d_.to.layout;
    const int ba = layout_block(a), bb = layout_block(b);
    if (ba > 1 && bb > 1) return reorder(threads(), x, y, s, a, b);
    if (bb > 1) return plain_blocked(threads(), x, y, s, a, bb, true);
    if (ba > 1) return plain_blocked(threads(), x, y, s, b, ba, false);
    int64_t hw = int64_t(s.h) * s.w;
    // NCHW -> NHWC transposes [C][HW]; NHWC -> NCHW transposes [HW][C].
    transpose(threads(), x, y, s.n, a == Layout::kNCHW ? s.c : hw, a == Layout::kNCHW ? hw : s.c);
  }
};

// Elementwise dtype change over the stored elements, a span at a time; a blocked layout's
// padding channels are then set to zero again (a quantised zero is the zero point, not the
// 0 byte oneDNN expects in padding).
template <typename In, typename Out, typename Span>
void map_spans(int threads, const void* x, void* y, const Shape& s, Layout l, Span span) {
  const int64_t n = stored_elements(s, l);
  parallel_for(threads, n, 256, [x, y, span](int64_t i0, int64_t i1) {
    span(static_cast<const In*>(x) + i0, static_cast<Out*>(y) + i0, i1 - i0);
  });
  const int b = layout_block(l);
  if (b == 1 || s.c % b == 0) return;
  const int64_t hw = int64_t(s.h) * s.w, cp = (s.c + b - 1) / b * b;
  Out* ys = static_cast<Out*>(y);
  for (int img = 0; img < s.n; ++img) {
    Out* last = ys + (img * cp + cp - b) * hw;  // the partly filled last block
    for (int64_t p = 0; p < hw; ++p)
      for (int ci = s.c % b; ci < b; ++ci) last[p * b + ci] = Out(0);
  }
}

template <typename In, typename Out, typename F>
void map_elements(int threads, const void* x, void* y, const Shape& s, Layout l, F f) {
  map_spans<In, Out>(threads, x, y, s, l, [f](const In* __restrict xs, Out* __restrict ys, int64_t n) {
    for (int64_t i = 0; i < n; ++i) ys[i] = f(xs[i]);
  });
}

// Vectorisable form of clamp(nearbyint(x * inv) + zp): round-to-nearest-even by the
// 1.5 * 2^23 trick instead of a nearbyintf call (int8 stores through a call kept the loop
// scalar). Pre-clamping to +-256 keeps the trick exact and changes no result: zp is in
// [-128, 127].
// The clamps must not branch: the compiler turned std::min / std::max into compares and
// jumps here, so the converter's speed depended on the data. Post-ReLU activations (zero or
// not at random, zero point -128) mispredicted every other element: 1.6 ms against 0.33 ms
// on the profiler's timing data, which never clamps (issue 16 item 3: quantise steps took
// 1.5-2.5x their LUT figure in the network). maxss / minss take 0.37 ms on either. A NaN
// clamps to lo, as before.
inline float clamp_branch_free(float x, float lo, float hi) {
#if defined(__SSE__) || defined(__x86_64__)
  return _mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(x), _mm_set_ss(lo)), _mm_set_ss(hi)));
#else
  return std::min(hi, std::max(lo, x));
#endif
}

struct QuantiseFn {
  float inv, zp;
  int8_t operator()(float x) const {
    constexpr float kRound = 12582912.f;  // 1.5 * 2^23
    float r = clamp_branch_free(x * inv, -256.f, 256.f);
    r = (r + kRound) - kRound;
    return int8_t(clamp_branch_free(r + zp, -128.f, 127.f));
  }
};

// QuantiseFn over a span, 16 elements at a time with SSE2 (the x86-64 baseline, so the
// portable build has it): the same pre-clamp, the same rounding trick, a truncating convert
// of the now integral values, the zero point added in int32 and the clamp to int8 done by
// the saturating packs. Bit-identical to QuantiseFn, NaN included (maxps returns its second
// operand for a NaN, as maxss does). The scalar loop kept quantising 10x slower than
// dequantising: 0.3 ms for ResNet-50's 56x56x256 tensor, a fifth of an int8 deployment.
void quantise_span(const float* x, int8_t* y, int64_t n, QuantiseFn q) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 inv = _mm_set1_ps(q.inv), lo = _mm_set1_ps(-256.f), hi = _mm_set1_ps(256.f);
  const __m128 round = _mm_set1_ps(12582912.f);
  const __m128i zp = _mm_set1_epi32(int32_t(q.zp));
  auto four = [&](const float* p) {
    __m128 v = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_loadu_ps(p), inv), lo), hi);
    v = _mm_sub_ps(_mm_add_ps(v, round), round);
    return _mm_add_epi32(_mm_cvttps_epi32(v), zp);
  };
  for (; i + 16 <= n; i += 16) {
    const __m128i a = _mm_packs_epi32(four(x + i), four(x + i + 4));
    const __m128i b = _mm_packs_epi32(four(x + i + 8), four(x + i + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi16(a, b));
  }
#endif
  for (; i < n; ++i) y[i] = q(x[i]);
}

// f32 to bf16 over a span, 8 at a time with SSE2: f32_to_bf16's rounding (to nearest even)
// and its NaN select on 32-bit lanes, then the high halves packed, sign-extended first so that
// the signed saturating pack keeps every bit pattern. Bit-identical to f32_to_bf16; the scalar
// loop ran at a third of bf16 -> f32's speed.
void bf16_span(const float* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i one = _mm_set1_epi32(1), bias = _mm_set1_epi32(0x7fff), abs_mask = _mm_set1_epi32(0x7fffffff);
  const __m128i inf = _mm_set1_epi32(0x7f800000), quiet = _mm_set1_epi32(0x40);
  auto four = [&](const float* p) {
    const __m128i u = _mm_castps_si128(_mm_loadu_ps(p)), hi = _mm_srli_epi32(u, 16);
    const __m128i rounded = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(u, bias), _mm_and_si128(hi, one)), 16);
    const __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(u, abs_mask), inf);  // signed: both below 2^31
    const __m128i r = _mm_or_si128(_mm_and_si128(nan, _mm_or_si128(hi, quiet)), _mm_andnot_si128(nan, rounded));
    return _mm_srai_epi32(_mm_slli_epi32(r, 16), 16);
  };
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm_packs_epi32(four(x + i), four(x + i + 4)));
#endif
  for (; i < n; ++i) y[i] = f32_to_bf16(x[i]);
}

// bf16 to int8 through a small f32 buffer, so that both halves run vectorised.
void quantise_bf16_span(const uint16_t* x, int8_t* y, int64_t n, QuantiseFn q) {
  constexpr int64_t kChunk = 256;
  float f[kChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const int64_t m = std::min(kChunk, n - i0);
    for (int64_t i = 0; i < m; ++i) f[i] = bf16_to_f32(x[i0 + i]);
    quantise_span(f, y + i0, m, q);
  }
}

class DTypeConvert : public ConvertPrim {
 public:
  using ConvertPrim::ConvertPrim;
  Status run() override {
    const DType a = d_.from.dtype, b = d_.to.dtype;
    const Shape& s = out_shape_;
    const Layout l = d_.to.layout;
    const int t = threads();
    const QuantiseFn q{1.f / q_.scale, float(q_.zero_point)};
    const float scale = q_.scale;
    const int32_t zp = q_.zero_point;
    auto deq = [scale, zp](int8_t v) { return scale * float(int32_t(v) - zp); };
    if (a == DType::kF32 && b == DType::kI8)
      map_spans<float, int8_t>(t, x_, y_, s, l, [q](const float* xs, int8_t* ys, int64_t n) { quantise_span(xs, ys, n, q); });
    else if (a == DType::kI8 && b == DType::kF32) map_elements<int8_t, float>(t, x_, y_, s, l, deq);
    // (lambdas, not the functions themselves: a function pointer was called per element)
    else if (a == DType::kF32 && b == DType::kBF16)
      map_spans<float, uint16_t>(t, x_, y_, s, l, [](const float* xs, uint16_t* ys, int64_t n) { bf16_span(xs, ys, n); });
    else if (a == DType::kBF16 && b == DType::kF32)
      map_elements<uint16_t, float>(t, x_, y_, s, l, [](uint16_t v) { return bf16_to_f32(v); });
    else if (a == DType::kBF16 && b == DType::kI8)
      map_spans<uint16_t, int8_t>(t, x_, y_, s, l,
                                  [q](const uint16_t* xs, int8_t* ys, int64_t n) { quantise_bf16_span(xs, ys, n, q); });
    else if (a == DType::kI8 && b == DType::kBF16)
      map_elements<int8_t, uint16_t>(t, x_, y_, s, l, [deq](int8_t v) { return f32_to_bf16(deq(v)); });
    else return unsupported(std::string("no conversion from ") + to_string(a) + " to " + to_string(b));
    return Status::ok();
  }
};

// Both thread sets share cpu0 and the same memory: changing sets moves no data. Placed in
// the arena as an in-place step, so its measured cost is the dispatch alone.
class ThreadChange : public ConvertPrim {
 public:
  using ConvertPrim::ConvertPrim;
  bool can_run_in_place() const override { return true; }
  Status run() override {
    if (x_ != y_) std::memcpy(y_, x_, output_bytes());
    return Status::ok();
  }
};

template <typename P>
CreateConversionFn factory() {
  return [](const ConversionDesc& d, const Shape& s, QuantParams q, std::unique_ptr<Primitive>* out) {
    bool quantised = (d.from.dtype == DType::kI8) != (d.to.dtype == DType::kI8);
    if (quantised && (!(q.scale > 0.f) || !std::isfinite(q.scale)))
      return invalid_argument("quantisation scale must be positive and finite");
    *out = std::make_unique<P>(d, s, q);
    return Status::ok();
  };
}

}  // namespace

// Every layout to every other and every activation dtype to every other, direct: a chain
// may change dtype only once (conversion_graph.h), so int8 <-> bf16 needs its own edge.
void register_conversions(Registry& r) {
  for (const Format& f : all_formats()) {
    for (Layout l : all_layouts())
      if (l != f.layout) r.add_conversion({{f, {l, f.dtype, f.threads}}, factory<LayoutConvert>()});
    for (DType d : activation_dtypes())
      if (d != f.dtype) r.add_conversion({{f, {f.layout, d, f.threads}}, factory<DTypeConvert>()});
    Format threads = f;
    threads.threads = f.threads == 1 ? 2 : 1;
    r.add_conversion({{f, threads}, factory<ThreadChange>()});
  }
}

}  // namespace lw::native
