// Direct conversion edges of the conversion graph: layout changes between every pair of
// layouts (NCHW <-> NHWC transposes, reorders to and from the blocked nChw16c / nChw8c:
// conversions_layout.cc), dtype changes between f32, bf16 and int8 (round to nearest even;
// int8 per-tensor affine) and thread-set changes.
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

class LayoutConvert : public ConvertPrim {
 public:
  using ConvertPrim::ConvertPrim;
  Status run() override {
    convert_layout(threads(), x_, y_, dtype_bytes(d_.from.dtype), out_shape_, d_.from.layout, d_.to.layout);
    return Status::ok();
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
