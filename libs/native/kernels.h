// Internal to libs/native and libs/openblas: conv geometry, activation epilogues and the
// shared conv primitive base. Not a public header of the backend.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "libs/native/native.h"
#include "libs/ops/thread_pool.h"

namespace lw::native {

struct ConvGeom {
  int n = 0, c = 0, h = 0, w = 0, k = 0, oh = 0, ow = 0;
  int kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, dh = 1, dw = 1, groups = 1;
  int cg() const { return c / groups; }
  int kg() const { return k / groups; }
  int64_t ohw() const { return int64_t(oh) * ow; }
  int64_t hw() const { return int64_t(h) * w; }
};
ConvGeom conv_geom(const Layer& layer, const Shape& in, const Shape& out);

// Activation functors: the kind is switched once outside the loop. The clamping ones also
// take 4 lanes: maxps(0, x) is std::max(x, 0.f) lane by lane (NaN and -0 included, as
// minps(6, x) is std::min(x, 6.f)); from the scalar forms GCC built compare-and-blend
// sequences in the portable build, 3x the instructions (relu6 at a third of XNNPACK's speed).
struct ActNone {
  static constexpr bool kLanes = true;
  float operator()(float x) const { return x; }
#if defined(__SSE2__)
  __m128 operator()(__m128 x) const { return x; }
#endif
};
struct ActRelu {
  static constexpr bool kLanes = true;
  float operator()(float x) const { return std::max(x, 0.f); }
#if defined(__SSE2__)
  __m128 operator()(__m128 x) const { return _mm_max_ps(_mm_setzero_ps(), x); }
#endif
};
// min(max(x, 0), 6) in one lane or four: the clamp relu6, hardswish and hardsigmoid share.
inline float clamp_0_6(float x) { return std::min(std::max(x, 0.f), 6.f); }
#if defined(__SSE2__)
inline __m128 clamp_0_6(__m128 x) { return _mm_min_ps(_mm_set1_ps(6.f), _mm_max_ps(_mm_setzero_ps(), x)); }
#endif
struct ActRelu6 {
  static constexpr bool kLanes = true;
  float operator()(float x) const { return clamp_0_6(x); }
#if defined(__SSE2__)
  __m128 operator()(__m128 x) const { return clamp_0_6(x); }
#endif
};
struct ActHardSwish {
  static constexpr bool kLanes = true;
  float operator()(float x) const { return x * clamp_0_6(x + 3.f) * (1.f / 6.f); }
#if defined(__SSE2__)
  __m128 operator()(__m128 x) const {
    return _mm_mul_ps(_mm_mul_ps(x, clamp_0_6(_mm_add_ps(x, _mm_set1_ps(3.f)))), _mm_set1_ps(1.f / 6.f));
  }
#endif
};
struct ActHardSigmoid {
  static constexpr bool kLanes = true;
  float operator()(float x) const { return clamp_0_6(x + 3.f) * (1.f / 6.f); }
#if defined(__SSE2__)
  __m128 operator()(__m128 x) const { return _mm_mul_ps(clamp_0_6(_mm_add_ps(x, _mm_set1_ps(3.f))), _mm_set1_ps(1.f / 6.f)); }
#endif
};
struct ActSigmoid { float operator()(float x) const { return 1.f / (1.f + std::exp(-x)); } };

#if defined(__SSE2__)
// Whether f also takes 4 lanes (kLanes).
template <typename F, typename = void>
struct HasLanes : std::false_type {};
template <typename F>
struct HasLanes<F, std::void_t<decltype(F::kLanes)>> : std::true_type {};
#endif

// The two operations elementwise layers and conv epilogues combine with an activation.
struct Plus {
  float operator()(float a, float b) const { return a + b; }
#if defined(__SSE2__)
  __m128 operator()(__m128 a, __m128 b) const { return _mm_add_ps(a, b); }
#endif
};
struct Times {
  float operator()(float a, float b) const { return a * b; }
#if defined(__SSE2__)
  __m128 operator()(__m128 a, __m128 b) const { return _mm_mul_ps(a, b); }
#endif
};

/// y[i] = f(a[i]) for i < n; a and y the same buffer (in place) or not overlapping.
template <typename F>
void act_span(const float* a, float* y, int64_t n, F f) {
  int64_t i = 0;
#if defined(__SSE2__)
  if constexpr (HasLanes<F>::value)
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, f(_mm_loadu_ps(a + i)));
#endif
  for (; i < n; ++i) y[i] = f(a[i]);
}

/// y[i] = f(op(a[i], b[i * b_step])) for i < n: b_step 1 elementwise, 0 one value for all.
/// a (or b) and y may be the same buffer, never partly overlapping.
template <typename Op, typename F>
void op_act_span(const float* a, const float* b, int64_t b_step, float* y, int64_t n, Op op, F f) {
  int64_t i = 0;
#if defined(__SSE2__)
  if constexpr (HasLanes<F>::value) {
    if (b_step == 0) {
      const __m128 k = _mm_set1_ps(b[0]);
      for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, f(op(_mm_loadu_ps(a + i), k)));
    } else {
      for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, f(op(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i))));
    }
  }
#endif
  for (; i < n; ++i) y[i] = f(op(a[i], b[i * b_step]));
}

template <typename F>
void with_activation(LayerKind kind, F&& f) {
  switch (kind) {
    case LayerKind::kRelu: f(ActRelu{}); break;
    case LayerKind::kRelu6: f(ActRelu6{}); break;
    case LayerKind::kHardSwish: f(ActHardSwish{}); break;
    case LayerKind::kHardSigmoid: f(ActHardSigmoid{}); break;
    case LayerKind::kSigmoid: f(ActSigmoid{}); break;
    default: f(ActNone{}); break;
  }
}

/// NCHW epilogue: rows = channels (bias per row), each `cols` long with stride ldc.
void bias_act_rows(int threads, float* c, int rows, int64_t cols, int64_t ldc, const float* bias, LayerKind act);
/// NHWC epilogue: `rows` pixels of `cols` channels (bias per column), stride ldc.
void bias_act_cols(int threads, float* c, int64_t rows, int cols, int64_t ldc, const float* bias, LayerKind act);

/// Shared state of every conv primitive: geometry, bias, activation, packed weights.
class ConvBase : public Primitive {
 public:
  ConvBase(const PrimitiveArgs& a);
  Status reshape(const std::vector<Shape>& in) override;
  Status setup(const std::vector<const void*>& in, void* out, void* workspace) override;

 protected:
  /// Called by reshape once geom_ is known: set workspace_bytes_.
  virtual size_t workspace_for(const ConvGeom& g) const { return 0; }
  void epilogue(float* y) const;  // bias + activation over the whole output, in layout_
  const Layer& layer() const { return layer_; }

  Layer layer_;  // weights dropped after packing; geometry kept
  Layout layout_;
  int threads_;
  LayerKind act_;
  std::vector<float> bias_;  // K entries (zeros without bias)
  std::vector<float> packed_;
  ConvGeom g_;
  const float* x_ = nullptr;
  float* y_ = nullptr;
  float* ws_ = nullptr;
};

/// Packs the constant right operand B[k x n] of row-major C[m x n] = A[m x k] * B once,
/// outside run(), for native_gemm_with_packed_b. packed_b (n * k floats) must be 64-byte
/// aligned: Eigen's packed panels are read with aligned loads.
void native_gemm_pack_b(int n, int k, const float* b, int ldb, float* packed_b);

/// Applied by the packed GEMMs below to each block of C while it is in cache: C starts at
/// the bias (one per output channel: per column of C for with_packed_b, per row for
/// with_packed_a; nullptr: zero), then `act` (a non-activation kind: none) once the block's
/// products are complete.
struct GemmEpilogue {
  const float* bias = nullptr;
  LayerKind act = LayerKind::kInput;
};

/// The conv drivers' GEMMs with the weights packed once at create time (the same packing
/// as above; pack_a packs a constant left operand A[m x k]): each run packs only the
/// activations, in blocks of bounded depth and rows, into `buffer`, one slice per thread
/// of native_gemm_buffer_floats(threads, rows of the activation operand, k) floats,
/// 64-byte aligned. with_packed_b splits A's rows over the threads (NHWC: pixels x C),
/// with_packed_a B's columns (NCHW: C x pixels). Neither allocates.
void native_gemm_pack_a(int m, int k, const float* a, int lda, float* packed_a);
int64_t native_gemm_buffer_floats(int threads, int64_t rows, int k);
void native_gemm_with_packed_b(int threads, int m, int n, int k, const float* a, int lda, const float* packed_b,
                               float* c, int ldc, float* buffer, const GemmEpilogue& epilogue = {});
void native_gemm_with_packed_a(int threads, int m, int n, int k, const float* packed_a, const float* b, int ldb,
                               float* c, int ldc, float* buffer, const GemmEpilogue& epilogue = {});

/// Eigen reads its packed panels with aligned loads: packed weights and GEMM buffers start
/// at align64 of their storage (which holds 16 floats of slack).
template <typename F>
F* align64(F* p) {
  return reinterpret_cast<F*>((reinterpret_cast<uintptr_t>(p) + 63) & ~uintptr_t(63));
}

/// Packs [K][Cg][kh][kw] weights as [g][kh][kw][Cg][Kg] (B operand of NHWC GEMMs).
std::vector<float> pack_hwio(const Layer& l, int cg);

// Factories of the conv algorithms (conv_*.cc).
Status create_direct_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_depthwise_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_im2row_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_kn2row_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);
Status create_winograd_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out);

/// x (layout `from`) into y (layout `to`), same logical shape s, elements of element_bytes (1,
/// 2 or 4: int8, bf16, f32) on `threads` threads; a blocked destination's padding channels get
/// zeros (conversions_layout.cc).
void convert_layout(int threads, const void* x, void* y, size_t element_bytes, const Shape& s, Layout from,
                    Layout to);

// Registration helpers (layers.cc, conversions.cc).
void register_layers(Registry& r);
void register_conversions(Registry& r);

}  // namespace lw::native
