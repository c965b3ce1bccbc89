#include "libs/core/tensor.h"

#include <cstdlib>
#include <cstring>

#include "libs/core/enum_names.h"
#include "libs/core/status.h"

namespace lw {

namespace {
struct DTypeRow {
  DType value;
  const char* name;
  size_t bytes;
};
constexpr DTypeRow kDTypes[] = {
#define X(e, s, b) {DType::e, s, b},
#include "libs/core/dtype.inc"
#undef X
};

struct LayoutRow {
  Layout value;
  const char* name;
  int block;  // channels per block; 1 = plain
};
constexpr LayoutRow kLayouts[] = {
#define X(e, s, b) {Layout::e, s, b},
#include "libs/core/layout.inc"
#undef X
};
}  // namespace

const char* to_string(DType d) { return name_of(kDTypes, d); }
const char* to_string(Layout l) { return name_of(kLayouts, l); }
std::optional<DType> parse_dtype(const std::string& s) { return parse_name(kDTypes, s); }
std::optional<Layout> parse_layout(const std::string& s) { return parse_name(kLayouts, s); }

size_t dtype_bytes(DType d) {
  const DTypeRow* r = find_row(kDTypes, d);
  return r ? r->bytes : 0;
}

int layout_block(Layout l) {
  const LayoutRow* r = find_row(kLayouts, l);
  return r ? r->block : 1;
}

int64_t stored_elements(const Shape& s, Layout l) {
  const int b = layout_block(l);
  return int64_t(s.n) * ((s.c + b - 1) / b * b) * s.h * s.w;
}

size_t tensor_bytes(const Shape& s, DType dt, Layout l) { return size_t(stored_elements(s, l)) * dtype_bytes(dt); }

std::string Shape::to_string() const {
  return std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
}

Tensor Tensor::create(Shape shape, DType dtype, Layout layout) {
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.layout_ = layout;
  // Round up so aligned_alloc's size rule holds; +64 keeps SIMD tails in bounds.
  size_t bytes = (t.bytes() + 64 + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  LW_CHECK(p != nullptr);
  std::memset(p, 0, bytes);
  t.owner_ = std::shared_ptr<void>(p, std::free);
  t.data_ = p;
  return t;
}

Tensor Tensor::view(void* data, Shape shape, DType dtype, Layout layout) {
  Tensor t;
  t.shape_ = shape;
  t.dtype_ = dtype;
  t.layout_ = layout;
  t.data_ = data;
  return t;
}

int64_t Tensor::offset(int n, int c, int h, int w) const {
  const Shape& s = shape_;
  if (layout_ == Layout::kNCHW) return ((int64_t(n) * s.c + c) * s.h + h) * s.w + w;
  if (layout_ == Layout::kNHWC) return ((int64_t(n) * s.h + h) * s.w + w) * s.c + c;
  const int b = layout_block(layout_), cb = (s.c + b - 1) / b;
  return (((int64_t(n) * cb + c / b) * s.h + h) * s.w + w) * b + c % b;
}

Tensor Tensor::clone() const {
  Tensor t = create(shape_, dtype_, layout_);
  t.quant_ = quant_;
  std::memcpy(t.data_, data_, bytes());
  return t;
}

Tensor to_layout(const Tensor& src, Layout to) {
  if (src.layout() == to) return src.clone();
  Tensor dst = Tensor::create(src.shape(), src.dtype(), to);
  dst.set_quant(src.quant());
  const Shape& s = src.shape();
  const size_t eb = dtype_bytes(src.dtype());
  const auto* in = static_cast<const uint8_t*>(src.data());
  auto* out = static_cast<uint8_t*>(dst.data());
  for (int n = 0; n < s.n; ++n)
    for (int c = 0; c < s.c; ++c)
      for (int h = 0; h < s.h; ++h)
        for (int w = 0; w < s.w; ++w)
          std::memcpy(out + dst.offset(n, c, h, w) * eb, in + src.offset(n, c, h, w) * eb, eb);
  return dst;
}

}  // namespace lw
