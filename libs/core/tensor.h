/// \file
/// Dense 4-D activations (N, C, H, W logical order) in NCHW or NHWC memory layout, f32 or
/// int8 with per-tensor affine quantisation. Everything in libs/ passes tensors; fully
/// connected outputs are N x C x 1 x 1.
#pragma once
#include <cstddef>
#include <cstdint>
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
#define X(e, s) e,
#include "libs/core/layout.inc"
#undef X
};

const char* to_string(DType d);
const char* to_string(Layout l);
std::optional<DType> parse_dtype(const std::string& s);
std::optional<Layout> parse_layout(const std::string& s);
size_t dtype_bytes(DType d);

struct Shape {
  int n = 1, c = 0, h = 1, w = 1;
  int64_t elements() const { return int64_t(n) * c * h * w; }
  bool operator==(const Shape& o) const { return n == o.n && c == o.c && h == o.h && w == o.w; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string to_string() const;  // "1x64x56x56"
};

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
  size_t bytes() const { return size_t(shape_.elements()) * dtype_bytes(dtype_); }
  bool empty() const { return data_ == nullptr; }

  void* data() { return data_; }
  const void* data() const { return data_; }
  float* f32() { return static_cast<float*>(data_); }
  const float* f32() const { return static_cast<const float*>(data_); }
  int8_t* i8() { return static_cast<int8_t*>(data_); }
  const int8_t* i8() const { return static_cast<const int8_t*>(data_); }

  /// Element offset of logical (n, c, h, w) in this tensor's layout.
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

/// Copy `src` into a new tensor with layout `to` (f32 or int8; quantisation kept).
Tensor to_layout(const Tensor& src, Layout to);

}  // namespace lw
