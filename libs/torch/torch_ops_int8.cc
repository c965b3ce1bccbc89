// LibTorch quantized int8 conv2d: quantized::conv2d_prepack (engine QNNPACK or oneDNN,
// chosen at prepack time; the packed object carries its engine) and
// ConvPackedParamsBase::apply. Our int8 is signed with zero point zp; torch's activations
// are quint8, so real = s * (q + 128 - (zp + 128)): the conversion is a flip of the top
// bit, done in run() on the way in and out.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/quantized/PackedParams.h>

#include <algorithm>
#include <cmath>

#include "libs/core/heap.h"
#include "libs/quant/quant.h"
#include "libs/torch/torch_ops_aten.h"

namespace lw::torch_ops {
namespace {

constexpr int32_t kQuint8Offset = 128;  // quint8 = int8 + 128 (same scale)
using Packed = c10::intrusive_ptr<ConvPackedParamsBase<2>>;

at::QEngine engine(Algorithm a) { return onednn_engine(a) ? at::QEngine::ONEDNN : at::QEngine::QNNPACK; }

// int8 weights (ours, so the int8 reference sees the same values) as a torch qint8 tensor.
at::Tensor quantized_weight(const Layer& l, int cin_g, const QuantizedWeights& qw) {
  const Window& w = l.window;
  at::Tensor q = at::from_blob(const_cast<int8_t*>(qw.q.data()), {l.out_channels, cin_g, w.kh, w.kw}, at::kChar).clone();
  if (!qw.per_channel()) return at::_make_per_tensor_quantized_tensor(q, qw.scales[0], 0);
  at::Tensor scales = at::from_blob(const_cast<float*>(qw.scales.data()), {l.out_channels}).to(at::kDouble);
  at::Tensor zps = at::zeros({l.out_channels}, at::kLong);
  return at::_make_per_channel_quantized_tensor(q, scales, zps, 0);
}

Packed prepack(const Layer& l, const at::Tensor& wq, const c10::optional<at::Tensor>& bias) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("quantized::conv2d_prepack", "")
                       .typed<Packed(at::Tensor, c10::optional<at::Tensor>, torch::List<int64_t>, torch::List<int64_t>,
                                     torch::List<int64_t>, int64_t)>();
  const Window& w = l.window;
  return op.call(wq, bias, torch::List<int64_t>({w.stride_h, w.stride_w}), torch::List<int64_t>({w.pad_top, w.pad_left}),
                 torch::List<int64_t>({w.dil_h, w.dil_w}), l.groups);
}

class QConv : public Primitive {
 public:
  QConv(const PrimitiveArgs& a, QuantParams in_q) : Primitive(a.desc.name()), layer_(*a.layer), desc_(a.desc), in_q_(in_q) {
    out_q_ = a.out_quant;
    out_dtype_ = DType::kI8;
    const int cin_g = a.in_shapes[0].c / layer_.groups;
    const WeightQuantization wq = weight_quantization(desc_.algorithm);
    QuantizedWeights qw = quantize_weights(layer_.weights, layer_.out_channels, wq.per_channel, wq.qmax);
    const size_t heap0 = heap_in_use();
    c10::optional<at::Tensor> bias;
    if (!layer_.bias.empty()) bias = at::from_blob(layer_.bias.data(), {layer_.out_channels}).clone();
    at::globalContext().setQEngine(engine(desc_.algorithm));
    packed_ = prepack(layer_, quantized_weight(layer_, cin_g, qw), bias);
    // The packed object keeps the original int8 weights for unpack() beside the engine's own
    // packed copy: count what prepack really kept (ResNet-50 all-int8 held twice the int8
    // weights the arithmetic said), never less than the weights themselves.
    const size_t kept = heap_growth_since(heap0);
    weight_bytes_ = std::max(kept, qw.q.size() + qw.scales.size() * sizeof(float) + layer_.bias.size() * sizeof(float));
    release_weights(layer_);
  }
  Status check_activation() { return activation_bounds_int8(layer_.fused_activation, out_q_, &lo_, &hi_); }
  void warm_call_path() override { warm_dispatcher(); }
  Status reshape(const std::vector<Shape>& in) override {
    in_ = in;
    return infer_layer_shape(layer_, in, &out_shape_);
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("conv2d takes one input and an output");
    const Shape& s = in_[0];
    // The quint8 twin of the input, allocated here so run() only converts into it.
    qx_ = at::_empty_affine_quantized({s.n, s.c, s.h, s.w}, at::TensorOptions().dtype(at::kQUInt8), in_q_.scale,
                                      in_q_.zero_point + kQuint8Offset, memory_format());
    x_ = static_cast<const int8_t*>(in[0]);
    y_ = static_cast<int8_t*>(out);
    set_threads(desc_.threads);
    return Status::ok();
  }
  Status run() override {
    try {
      set_threads(desc_.threads);
      flip(reinterpret_cast<const uint8_t*>(x_), reinterpret_cast<uint8_t*>(qx_.data_ptr()), in_[0].elements());
      at::Tensor y = packed_->apply(qx_, out_q_.scale, out_q_.zero_point + kQuint8Offset);
      if (!y.is_contiguous(memory_format())) y = y.contiguous(memory_format());
      copy_out(reinterpret_cast<const uint8_t*>(y.data_ptr()), out_shape_.elements());
    } catch (const std::exception& e) {
      return failed(std::string("failed to run ") + name_ + ": " + e.what());
    }
    return Status::ok();
  }

 private:
  at::MemoryFormat memory_format() const {
    return desc_.layout_in == Layout::kNHWC ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
  }
  static void flip(const uint8_t* __restrict src, uint8_t* __restrict dst, int64_t n) {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i] ^ 0x80;
  }
  // quint8 -> int8, with a fused relu / relu6 as the int8 clamp. Locals and restrict:
  // through the members, every int8 store might alias lo_, hi_ and y_, so the compiler
  // reloaded all three per element and kept the loop scalar (~1 ns per output element,
  // 3x the oneDNN conv itself on MobileNetV2's expand layers).
  void copy_out(const uint8_t* __restrict src, int64_t n) const {
    int8_t* __restrict y = y_;
    const int8_t lo = lo_, hi = hi_;
    for (int64_t i = 0; i < n; ++i) {
      int8_t v = int8_t(src[i] ^ 0x80);
      y[i] = v < lo ? lo : (v > hi ? hi : v);
    }
  }

  Layer layer_;
  ImplDesc desc_;
  QuantParams in_q_, out_q_;
  int8_t lo_ = -128, hi_ = 127;
  std::vector<Shape> in_;
  Packed packed_;
  at::Tensor qx_;
  const int8_t* x_ = nullptr;
  int8_t* y_ = nullptr;
};

Status check_quant(const QuantParams& q) {
  if (!(q.scale > 0.f) || !std::isfinite(q.scale)) return invalid_argument("quantisation scale must be positive and finite");
  if (q.zero_point < kInt8Min || q.zero_point > kInt8Max) return invalid_argument("int8 zero point out of range");
  return Status::ok();
}

}  // namespace

Status create_conv_int8(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.in_shapes.size() != 1) return invalid_argument("expects one input shape");
  if (a.in_quant.empty()) return invalid_argument("int8 primitive needs the input QuantParams");
  LW_RETURN_IF_ERROR(check_quant(a.in_quant[0]));
  LW_RETURN_IF_ERROR(check_quant(a.out_quant));
  try {
    auto p = std::make_unique<QConv>(a, a.in_quant[0]);
    LW_RETURN_IF_ERROR(p->check_activation());
    *out = std::move(p);
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  return Status::ok();
}

}  // namespace lw::torch_ops
