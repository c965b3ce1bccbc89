// int8 channel concat, NCHW and NHWC. Each input keeps its own quantisation up to here
// (a branch's range), so each is requantised into the concat's through a 256-entry table:
// exactly quantize(dequantize(q)), the int8 reference, for any pair of quantisations. An
// input already in the concat's quantisation has the identity table and is copied.
#include <array>
#include <cstring>
#include <vector>

#include "libs/native/layer_prim.h"
#include "libs/quant/quant.h"

namespace lw::native {
namespace {

class ConcatInt8 : public Primitive {
 public:
  explicit ConcatInt8(const PrimitiveArgs& a)
      : Primitive(a.desc.name()), layer_(*a.layer), nhwc_(a.desc.layout_in == Layout::kNHWC), threads_(a.desc.threads),
        in_q_(a.in_quant), out_q_(a.out_quant) {
    out_dtype_ = DType::kI8;
  }

  Status reshape(const std::vector<Shape>& in) override {
    if (in.size() != in_q_.size()) return invalid_argument("expects the quantisation of every input");
    in_ = in;
    tables_.assign(in.size(), {});
    copy_.assign(in.size(), false);
    for (size_t i = 0; i < in.size(); ++i) {
      copy_[i] = in_q_[i].scale == out_q_.scale && in_q_[i].zero_point == out_q_.zero_point;
      for (int q = kInt8Min; q <= kInt8Max; ++q)
        tables_[i][size_t(q - kInt8Min)] = quantize_value(dequantize_value(int8_t(q), in_q_[i]), out_q_);
    }
    return infer_layer_shape(layer_, in, &out_shape_);
  }

  Status setup(const std::vector<const void*>& in, void* out, void* /*workspace*/) override {
    if (in.size() != in_.size() || !out) return invalid_argument("wrong number of inputs or null output");
    x_.clear();
    for (const void* p : in) {
      if (!p) return invalid_argument("null input");
      x_.push_back(static_cast<const int8_t*>(p));
    }
    y_ = static_cast<int8_t*>(out);
    return Status::ok();
  }

  Status run() override {
    const Shape& s = out_shape_;
    const int64_t hw = int64_t(s.h) * s.w;
    if (!nhwc_) {  // per image, each input's channels are one contiguous block
      for (int n = 0; n < s.n; ++n) {
        int8_t* dst = y_ + int64_t(n) * s.c * hw;
        for (size_t i = 0; i < x_.size(); ++i) {
          const int64_t block = int64_t(in_[i].c) * hw;
          put(i, x_[i] + n * block, dst, block);
          dst += block;
        }
      }
      return Status::ok();
    }
    parallel_for(threads_, int64_t(s.n) * hw, 64, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        int8_t* dst = y_ + p * s.c;
        for (size_t i = 0; i < x_.size(); ++i) {
          put(i, x_[i] + p * in_[i].c, dst, in_[i].c);
          dst += in_[i].c;
        }
      }
    });
    return Status::ok();
  }

 private:
  void put(size_t i, const int8_t* src, int8_t* dst, int64_t n) const {
    if (copy_[i]) {
      std::memcpy(dst, src, size_t(n));
      return;
    }
    const int8_t* t = tables_[i].data();
    for (int64_t k = 0; k < n; ++k) dst[k] = t[int(src[k]) - kInt8Min];
  }

  Layer layer_;
  bool nhwc_;
  int threads_;
  std::vector<QuantParams> in_q_;
  QuantParams out_q_;
  std::vector<Shape> in_;
  std::vector<std::array<int8_t, 256>> tables_;
  std::vector<bool> copy_;
  std::vector<const int8_t*> x_;
  int8_t* y_ = nullptr;
};

Status supports_concat_int8(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.dtype_in != DType::kI8 || d.dtype_out != DType::kI8 || d.layout_in != d.layout_out)
    return unsupported("int8 in and out, one layout");
  if (l.fused_activation != LayerKind::kInput) return unsupported("a concat with a fused activation");
  Shape out;
  return infer_layer_shape(l, in, &out);
}

Status create_concat_int8(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.in_quant.size() != a.in_shapes.size())
    return invalid_argument("failed to create " + a.desc.name() + ": needs the quantisation of every input");
  return make<ConcatInt8>(a, out);
}

}  // namespace

void register_int8_kind(Registry& r, LayerKind kind, SupportsFn supports, CreateFn create) {
  for (Layout layout : {Layout::kNCHW, Layout::kNHWC})
    for (int t : kThreadSets) {
      ImplDesc d;
      d.op = kind;
      d.library = Library::kNative;
      d.algorithm = Algorithm::kDefault;
      d.dtype_in = d.dtype_out = DType::kI8;
      d.layout_in = d.layout_out = layout;
      d.threads = t;
      r.add({d, supports, create});
    }
}

void register_int8_layers(Registry& r) {
  register_int8_kind(r, LayerKind::kConcat, supports_concat_int8, create_concat_int8);
  register_activations_int8(r);
}

}  // namespace lw::native
