// int8 activations (relu, relu6, hardswish, hardsigmoid, sigmoid, GELU), NCHW and NHWC: one
// 256-entry table per layer, quantize(f(dequantize(q))) from the input's quantisation to the
// output's, so an int8 deployment keeps a standalone activation in int8 instead of
// dequantising, applying it in f32 and quantising again (two conversions per activation:
// ConvNeXt's GELUs between int8 convs, MobileNetV3's hardswish where no conv absorbs it).
#include <array>
#include <cmath>

#include "libs/core/cpu.h"
#include "libs/native/kernels.h"
#include "libs/native/layer_prim.h"
#include "libs/quant/quant.h"

namespace lw::native {

void lookup_scalar(const int8_t* table, const int8_t* x, int8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[int(x[i]) - kInt8Min];
}

namespace {

// f in float as the f32 layers compute it; GELU exact, in double (the table is built once).
float activate(LayerKind k, float x) {
  if (k == LayerKind::kGelu) return gelu_exact(x);
  float y = x;
  with_activation(k, [&](auto f) { y = f(x); });
  return y;
}

class ActivationInt8 : public Primitive {
 public:
  explicit ActivationInt8(const PrimitiveArgs& a)
      : Primitive(a.desc.name()), layer_(*a.layer), threads_(a.desc.threads), in_q_(a.in_quant[0]), out_q_(a.out_quant) {
    out_dtype_ = DType::kI8;
    lookup_ = cpu_has("avx512vbmi") && cpu_has("avx512bw") ? lookup_vbmi : lookup_scalar;
    for (int q = kInt8Min; q <= kInt8Max; ++q)
      table_[size_t(q - kInt8Min)] = quantize_value(activate(layer_.kind, dequantize_value(int8_t(q), in_q_)), out_q_);
  }
  bool can_run_in_place() const override { return true; }

  Status reshape(const std::vector<Shape>& in) override {
    if (in.size() != 1) return invalid_argument("an activation takes one input");
    return infer_layer_shape(layer_, in, &out_shape_);
  }

  Status setup(const std::vector<const void*>& in, void* out, void* /*workspace*/) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("one input and an output");
    x_ = static_cast<const int8_t*>(in[0]);
    y_ = static_cast<int8_t*>(out);
    return Status::ok();
  }

  Status run() override {
    const int8_t* t = table_.data();
    parallel_for(threads_, out_shape_.elements(), 4096, [&](int64_t i0, int64_t i1) {
      lookup_(t, x_ + i0, y_ + i0, i1 - i0);
    });
    return Status::ok();
  }

 private:
  Layer layer_;
  int threads_;
  QuantParams in_q_, out_q_;
  std::array<int8_t, 256> table_{};
  void (*lookup_)(const int8_t*, const int8_t*, int8_t*, int64_t) = lookup_scalar;
  const int8_t* x_ = nullptr;
  int8_t* y_ = nullptr;
};

Status supports_activation_int8(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.dtype_in != DType::kI8 || d.dtype_out != DType::kI8 || d.layout_in != d.layout_out)
    return unsupported("int8 in and out, one layout");
  if (l.fused_activation != LayerKind::kInput) return unsupported("an activation with a fused activation");
  if (in.size() != 1) return invalid_argument("an activation takes one input");
  Shape out;
  return infer_layer_shape(l, in, &out);
}

Status create_activation_int8(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.in_quant.size() != 1)
    return invalid_argument("failed to create " + a.desc.name() + ": needs the input's quantisation");
  return make<ActivationInt8>(a, out);
}

}  // namespace

void register_activations_int8(Registry& r) {
  for (LayerKind k : {LayerKind::kRelu, LayerKind::kRelu6, LayerKind::kHardSwish, LayerKind::kHardSigmoid,
                      LayerKind::kSigmoid, LayerKind::kGelu})
    register_int8_kind(r, k, supports_activation_int8, create_activation_int8);
}

}  // namespace lw::native
