// XNNPACK convolution and fully-connected: f32, int8 per-tensor weights (qs8) and int8
// per-channel weights (qc8, convolution only in this XNNPACK).
#include <cmath>

#include "libs/quant/quant.h"
#include "libs/xnnpack/xnn_common.h"

namespace lw::xnn {
namespace {

bool is_int8(const ImplDesc& d) { return d.dtype_in == DType::kI8; }

// [K][Cg][kh][kw] -> [K][kh][kw][Cg] (XNNPACK's OHWI, groups outermost in K).
template <typename T>
std::vector<T> to_ohwi(const std::vector<T>& w, int k, int cg, int kh, int kw) {
  std::vector<T> r(w.size());
  for (int o = 0; o < k; ++o)
    for (int c = 0; c < cg; ++c)
      for (int y = 0; y < kh; ++y)
        for (int x = 0; x < kw; ++x) r[((size_t(o) * kh + y) * kw + x) * cg + c] = w[((size_t(o) * cg + c) * kh + y) * kw + x];
  return r;
}

// FC weights [O][C*H*W in NCHW order] -> the flatten order of an NHWC input.
template <typename T>
std::vector<T> fc_weights_for(const std::vector<T>& w, int o, const Shape& s, bool nhwc) {
  if (!nhwc || int64_t(s.h) * s.w == 1) return w;
  std::vector<T> r(w.size());
  const int64_t hw = int64_t(s.h) * s.w, f = hw * s.c;
  for (int k = 0; k < o; ++k)
    for (int c = 0; c < s.c; ++c)
      for (int64_t p = 0; p < hw; ++p) r[k * f + p * s.c + c] = w[k * f + c * hw + p];
  return r;
}

// The int8 parameters an int8 create needs: in/out quantisation and the output clamp.
struct Int8Args {
  QuantParams in, out;
  int8_t lo = -128, hi = 127;
};
Status int8_args(const PrimitiveArgs& a, Int8Args* r) {
  if (a.in_quant.empty()) return invalid_argument("int8 primitive needs the input QuantParams");
  r->in = a.in_quant[0];
  r->out = a.out_quant;
  for (const QuantParams& q : {r->in, r->out}) {
    if (!(q.scale > 0.f) || !std::isfinite(q.scale)) return invalid_argument("quantisation scale must be positive and finite");
    if (q.zero_point < kInt8Min || q.zero_point > kInt8Max) return invalid_argument("int8 zero point out of range");
  }
  return activation_bounds_int8(a.layer->fused_activation, r->out, &r->lo, &r->hi);
}

class Conv : public XnnPrim {
 public:
  using XnnPrim::XnnPrim;
  Status create(const Layer& l, const Shape& in, const PrimitiveArgs& a);
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("conv2d takes one input and an output");
    const Shape& s = in_[0];
    if (desc_.algorithm == Algorithm::kQc8)
      return check(xnn_setup_convolution2d_nhwc_qc8(op_, s.n, s.h, s.w, static_cast<const int8_t*>(in[0]),
                                                    static_cast<int8_t*>(out), pool_), "xnn_setup_convolution2d_nhwc_qc8");
    if (is_int8(desc_))
      return check(xnn_setup_convolution2d_nhwc_qs8(op_, s.n, s.h, s.w, static_cast<const int8_t*>(in[0]),
                                                    static_cast<int8_t*>(out), pool_), "xnn_setup_convolution2d_nhwc_qs8");
    return check(xnn_setup_convolution2d_nhwc_f32(op_, s.n, s.h, s.w, static_cast<const float*>(in[0]),
                                                  static_cast<float*>(out), pool_), "xnn_setup_convolution2d_nhwc_f32");
  }
};

Status Conv::create(const Layer& l, const Shape& in, const PrimitiveArgs& a) {
  const Window& w = l.window;
  const int k = l.out_channels, g = l.groups, cg = in.c / g;
  // XNNPACK writes any output pixel stride (its output_channel_stride): into a concat's slice.
  out_pixel_stride_ = a.out_pixel_stride > k ? a.out_pixel_stride : 0;
  const size_t ostride = out_pixel_stride_ > 0 ? size_t(out_pixel_stride_) : size_t(k);
  // Padding order of the XNNPACK API: top, right, bottom, left.
  const uint32_t pt = w.pad_top, pr = w.pad_right, pb = w.pad_bottom, pl = w.pad_left;
  if (!is_int8(desc_)) {
    float lo, hi;
    LW_RETURN_IF_ERROR(f32_bounds(l.fused_activation, &lo, &hi));
    std::vector<float> kernel = to_ohwi(l.weights, k, cg, w.kh, w.kw);
    // XNNPACK does not expose its packed size (padded to its tile); report what we hand it.
    weight_bytes_ = (kernel.size() + l.bias.size()) * sizeof(float);
    return check(xnn_create_convolution2d_nhwc_f32(pt, pr, pb, pl, w.kh, w.kw, w.stride_h, w.stride_w, w.dil_h, w.dil_w, g, cg,
                                                   k / g, in.c, ostride, kernel.data(), l.bias.empty() ? nullptr : l.bias.data(),
                                                   lo, hi, 0, &op_),
                 "xnn_create_convolution2d_nhwc_f32");
  }
  Int8Args q;
  LW_RETURN_IF_ERROR(int8_args(a, &q));
  const WeightQuantization wq = weight_quantization(desc_.algorithm);
  const bool per_channel = wq.per_channel;  // XNNPACK's qc8 operator, else qs8
  QuantizedWeights qw = quantize_weights(l.weights, k, per_channel, wq.qmax);
  std::vector<int32_t> bias = quantize_bias(l.bias, k, q.in.scale, qw);
  std::vector<int8_t> kernel = to_ohwi(qw.q, k, cg, w.kh, w.kw);
  weight_bytes_ = kernel.size() + bias.size() * sizeof(int32_t) + (per_channel ? k * sizeof(float) : 0);
  if (per_channel)
    return check(xnn_create_convolution2d_nhwc_qc8(pt, pr, pb, pl, w.kh, w.kw, w.stride_h, w.stride_w, w.dil_h, w.dil_w, g, cg,
                                                   k / g, in.c, ostride, int8_t(q.in.zero_point), q.in.scale, qw.scales.data(),
                                                   kernel.data(), bias.data(), int8_t(q.out.zero_point), q.out.scale, q.lo,
                                                   q.hi, 0, &op_),
                 "xnn_create_convolution2d_nhwc_qc8");
  return check(xnn_create_convolution2d_nhwc_qs8(pt, pr, pb, pl, w.kh, w.kw, w.stride_h, w.stride_w, w.dil_h, w.dil_w, g, cg,
                                                 k / g, in.c, ostride, int8_t(q.in.zero_point), q.in.scale, qw.scales[0],
                                                 kernel.data(), bias.data(), int8_t(q.out.zero_point), q.out.scale, q.lo, q.hi,
                                                 0, &op_),
               "xnn_create_convolution2d_nhwc_qs8");
}

class FullyConnected : public XnnPrim {
 public:
  using XnnPrim::XnnPrim;
  Status create(const Layer& l, const Shape& in, const PrimitiveArgs& a) {
    const size_t f = size_t(in.c) * in.h * in.w, o = l.out_channels;
    const bool nhwc = desc_.layout_in == Layout::kNHWC;
    if (!is_int8(desc_)) {
      float lo, hi;
      LW_RETURN_IF_ERROR(f32_bounds(l.fused_activation, &lo, &hi));
      std::vector<float> kernel = fc_weights_for(l.weights, int(o), in, nhwc);
      weight_bytes_ = (kernel.size() + l.bias.size()) * sizeof(float);
      return check(xnn_create_fully_connected_nc_f32(f, o, f, o, kernel.data(), l.bias.empty() ? nullptr : l.bias.data(), lo,
                                                     hi, 0, &op_),
                   "xnn_create_fully_connected_nc_f32");
    }
    Int8Args q;
    LW_RETURN_IF_ERROR(int8_args(a, &q));
    QuantizedWeights qw = quantize_weights_per_tensor(l.weights);
    std::vector<int32_t> bias = quantize_bias(l.bias, int(o), q.in.scale, qw);
    std::vector<int8_t> kernel = fc_weights_for(qw.q, int(o), in, nhwc);
    weight_bytes_ = kernel.size() + bias.size() * sizeof(int32_t);
    return check(xnn_create_fully_connected_nc_qs8(f, o, f, o, int8_t(q.in.zero_point), q.in.scale, qw.scales[0], kernel.data(),
                                                   bias.data(), int8_t(q.out.zero_point), q.out.scale, q.lo, q.hi, 0, &op_),
                 "xnn_create_fully_connected_nc_qs8");
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("fully-connected takes one input and an output");
    if (is_int8(desc_))
      return check(xnn_setup_fully_connected_nc_qs8(op_, in_[0].n, static_cast<const int8_t*>(in[0]), static_cast<int8_t*>(out),
                                                    pool_), "xnn_setup_fully_connected_nc_qs8");
    return check(xnn_setup_fully_connected_nc_f32(op_, in_[0].n, static_cast<const float*>(in[0]), static_cast<float*>(out),
                                                  pool_), "xnn_setup_fully_connected_nc_f32");
  }
};

template <typename P>
Status make(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  LW_RETURN_IF_ERROR(initialize());
  if (a.in_shapes.size() != 1) return invalid_argument("expects one input shape");
  auto p = std::make_unique<P>(a);
  LW_RETURN_IF_ERROR(p->create(*a.layer, a.in_shapes[0], a));
  *out = std::move(p);
  return Status::ok();
}

// Shared checks: weights present, dtype and layout pair of this backend.
Status supports_weighted(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (in.size() != 1) return invalid_argument("expects one input");
  if (int64_t(l.weights.size()) != weight_count(l, in)) return invalid_argument("weights missing or of the wrong size");
  if (d.dtype_in != d.dtype_out) return unsupported("xnnpack keeps the dtype (no int8-f32 output here)");
  if (d.layout_in != d.layout_out) return unsupported("xnnpack keeps the layout");
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, in, &out));
  if (d.dtype_in == DType::kI8) {
    int8_t lo, hi;
    return activation_bounds_int8(l.fused_activation, QuantParams{}, &lo, &hi);
  }
  float lo, hi;
  return f32_bounds(l.fused_activation, &lo, &hi);
}

}  // namespace

Status supports_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(supports_weighted(d, l, in));
  if (d.layout_in != Layout::kNHWC) return unsupported("xnnpack convolution is NHWC");
  LayerKind a = l.fused_activation;
  if (a != LayerKind::kInput && a != LayerKind::kRelu && a != LayerKind::kRelu6)
    return unsupported(std::string("xnnpack fuses only relu / relu6 as an output clamp, not ") + to_string(a));
  return Status::ok();
}

Status supports_fc(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  return supports_weighted(d, l, in);
}

Status create_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return make<Conv>(a, out); }
Status create_fc(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return make<FullyConnected>(a, out); }

}  // namespace lw::xnn
