/// \file
/// Dense 4-D activations (N, C, H, W logical order) in NCHW, NHWC or channel-blocked
/// nChw16c / nChw8c memory layout (oneDNN's blocked formats: channels padded with zeros to
/// the block), f32, bf16 or int8 with per-tensor affine quantisation. Everything in libs/
/// passes tensors; fully connected outputs are N x C x 1 x 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

namespace lw {

enum class DType {
#define X(e, s, b) e,
#include "libs/core/dtype.inc"
#undef X
};
enum class Layout {
#define X(e, s, b) e,
#include "libs/core/layout.inc"
#undef X
};
/// How many entries each list has (one-hot widths of observations and features).
constexpr int kNumDTypes = 0
#define X(e, s, b) +1
#include "libs/core/dtype.inc"
#undef X
    ;
constexpr int kNumLayouts = 0
#define X(e, s, b) +1
#include "libs/core/layout.inc"
#undef X
    ;

const char* to_string(DType d);
const char* to_string(Layout l);
std::optional<DType> parse_dtype(const std::string& s);
std::optional<Layout> parse_layout(const std::string& s);
size_t dtype_bytes(DType d);
/// Channel block of a layout: 1 for plain layouts, 16 / 8 for nChw16c / nChw8c.
int layout_block(Layout l);

struct Shape {
  int n = 1, c = 0, h = 1, w = 1;
  int64_t elements() const { return int64_t(n) * c * h * w; }
  bool operator==(const Shape& o) const { return n == o.n && c == o.c && h == o.h && w == o.w; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string to_string() const;  // "1x64x56x56"
};

/// Elements stored for `s` in layout `l`: blocked layouts pad C up to the block.
int64_t stored_elements(const Shape& s, Layout l);
/// Bytes of a tensor of `s` in `dt` and `l` (what every buffer of it must hold).
size_t tensor_bytes(const Shape& s, DType dt, Layout l);

/// bfloat16: the top 16 bits of an f32 (8-bit mantissa). Rounds to nearest even; NaN kept.
/// Inline so that the conversion loops over tensors vectorise (a call per element kept
/// them scalar: bf16 -> f32 ran 13x slower than int8 -> f32).
inline uint16_t f32_to_bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}
inline float bf16_to_f32(uint16_t x) {
  const uint32_t u = uint32_t(x) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Affine quantisation: real = scale * (q - zero_point).
struct QuantParams {
  float scale = 1.f;
  int32_t zero_point = 0;
};

/// A tensor either owns its 64-byte aligned buffer or views memory owned elsewhere
/// (the executor's memory pool); copying a Tensor shares the buffer.
class Tensor {
 public:
  Tensor() = default;
  static Tensor create(Shape shape, DType dtype = DType::kF32, Layout layout = Layout::kNCHW);
  static Tensor view(void* data, Shape shape, DType dtype, Layout layout);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  QuantParams quant() const { return quant_; }
  void set_quant(QuantParams q) { quant_ = q; }
  size_t bytes() const { return tensor_bytes(shape_, dtype_, layout_); }
  bool empty() const { return data_ == nullptr; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  float* f32() { return static_cast<float*>(data_); }
  const float* f32() const { return static_cast<const float*>(data_); }
  int8_t* i8() { return static_cast<int8_t*>(data_); }
  const int8_t* i8() const { return static_cast<const int8_t*>(data_); }
  uint16_t* bf16() { return static_cast<uint16_t*>(data_); }
  const uint16_t* bf16() const { return static_cast<const uint16_t*>(data_); }

  /// Element offset of logical (n, c, h, w) in this tensor's layout (blocked: padded C).
  int64_t offset(int n, int c, int h, int w) const;
  /// Deep copy with the same layout.
  Tensor clone() const;

 private:
  Shape shape_;
  DType dtype_ = DType::kF32;
  Layout layout_ = Layout::kNCHW;
  QuantParams quant_;
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
};

/// Copy `src` into a new tensor with layout `to` (any dtype; quantisation kept; the
/// channel padding of a blocked result is zero).
Tensor to_layout(const Tensor& src, Layout to);

}  // namespace lw
