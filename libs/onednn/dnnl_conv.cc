// Convolution and inner product (fully-connected): f32, bf16 and int8. The weights are
// reordered once, here, into the format the primitive picked (format_tag::any).
#include <cmath>
#include <cstring>

#include "libs/core/cpu.h"
#include "libs/onednn/dnnl_common.h"
#include "libs/quant/quant.h"

namespace lw::dnnl_ops {
namespace {

using dims_t = dnnl::memory::dims;

// The activation as eltwise post-ops. int8: the post-ops see the requantised value before
// the output zero point is added, i.e. real / out_scale, so only the clamps relu / relu6
// have a form there (as the other int8 backends).
Status append_activation(LayerKind act, DType dtype, QuantParams out_q, dnnl::post_ops* po) {
  const float top = dtype == DType::kI8 ? 6.f / out_q.scale : 6.f;
  switch (act) {
    case LayerKind::kInput: return Status::ok();
    case LayerKind::kRelu: po->append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f); return Status::ok();
    case LayerKind::kRelu6: po->append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, top); return Status::ok();
    default: break;
  }
  if (dtype == DType::kI8) return unsupported(std::string("int8 fuses only relu / relu6, not ") + to_string(act));
  switch (act) {
    case LayerKind::kHardSwish: po->append_eltwise(1.f, dnnl::algorithm::eltwise_hardswish, 0.f, 0.f); break;
    case LayerKind::kHardSigmoid:  // clip(x / 6 + 1/2, 0, 1): oneDNN 2.6 has no hardsigmoid
      po->append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f / 6.f, 0.5f);
      po->append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 1.f);
      break;
    case LayerKind::kSigmoid: po->append_eltwise(1.f, dnnl::algorithm::eltwise_logistic, 0.f, 0.f); break;
    case LayerKind::kGelu: po->append_eltwise(1.f, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f); break;
    default: return unsupported(std::string("no post-op for ") + to_string(act));
  }
  return Status::ok();
}

bool is_conv(const Layer& l) { return l.kind == LayerKind::kConv2d; }

// int8 quantisation of a layer: its input, output and (an absorbed add) residual, and the
// per-channel weight scales.
struct Quants {
  QuantParams in, out, residual;
  std::vector<float> w_scales;
};

// The zero point of the source as the primitive reads it: as u8 the executor's s8 values
// have their top bit flipped (+128), and so has the zero point.
int32_t source_zero_point(QuantParams in_q, bool u8_src) { return u8_src ? in_q.zero_point - kInt8Min : in_q.zero_point; }

// Attributes: scratchpad, fused activation, and for int8 the per-channel output scales
// in_scale * w_scale[k] / out_scale and the activation zero points.
Status make_attr(const ImplDesc& d, const Layer& l, const Quants& q, bool u8_src, dnnl::primitive_attr* attr) {
  *attr = user_scratchpad_attr();
  dnnl::post_ops po;
  // dst = conv + scale * dst: the residual placed in dst. int8 works in output units (real /
  // out_scale), so the residual's int8 values are scaled by s_res / s_out; its zero point
  // is folded into the bias (Weighted::make), which any int8 kernel takes.
  if (l.fused_residual) po.append_sum(d.dtype_in == DType::kI8 ? q.residual.scale / q.out.scale : 1.f);
  LW_RETURN_IF_ERROR(append_activation(l.fused_activation, d.dtype_in, q.out, &po));
  attr->set_post_ops(po);
  if (d.dtype_in != DType::kI8) return Status::ok();
  const QuantParams in_q = q.in, out_q = q.out;
  std::vector<float> scales(q.w_scales.size());
  for (size_t k = 0; k < scales.size(); ++k) scales[k] = in_q.scale * q.w_scales[k] / out_q.scale;
  attr->set_output_scales(scales.size() > 1 ? 1 << 1 : 0, scales);
  // oneDNN 2.6's inner product takes no zero points: Weighted::make folds them into its bias.
  if (!is_conv(l)) return Status::ok();
  const int32_t src_zp = source_zero_point(in_q, u8_src);
  if (src_zp != 0) attr->set_zero_points(DNNL_ARG_SRC, 0, {src_zp});
  if (out_q.zero_point != 0) attr->set_zero_points(DNNL_ARG_DST, 0, {out_q.zero_point});
  return Status::ok();
}

// User-side weight description (our [out][in/groups][kh][kw] or [out][in] order) and the
// primitive's "any" one.
dnnl::memory::desc user_weights(const Layer& l, const Shape& in, dt type) {
  if (!is_conv(l)) return {{l.out_channels, in.c, in.h, in.w}, type, tag::oihw};
  const int g = l.groups, k = l.out_channels;
  if (g == 1) return {{k, in.c, l.window.kh, l.window.kw}, type, tag::oihw};
  return {{g, k / g, in.c / g, l.window.kh, l.window.kw}, type, tag::goihw};
}

struct Made {
  dnnl::primitive_desc_base pd;
  dnnl::memory::desc src, dst, user_w;
  bool u8_src = false;  // the primitive reads u8 (DnnlPrim::set_u8_staging)
};

// oneDNN 2.6's AVX2 int8 1x1 kernel with a stride (it first copies the strided input to unit
// stride) writes wrong outputs at 2 threads when the batch is more than 1: 33-182 steps off
// the int8 reference, 1-thread and batch-1 runs right (tests/test_onednn; u8 and s8 sources,
// with and without zero points, stride 3 another kernel and right).
Status reject_strided_int8_1x1_batches(const ImplDesc& d, const Layer& l, const Shape& in,
                                       const dnnl::primitive_desc_base& pd) {
  const Window& w = l.window;
  const bool strided_1x1 = w.kh == 1 && w.kw == 1 && (w.stride_h > 1 || w.stride_w > 1);
  if (d.dtype_in != DType::kI8 || d.threads < 2 || in.n < 2 || !strided_1x1) return Status::ok();
  const std::string impl = pd.impl_info_str();
  if (impl.rfind("jit_uni_int8_1x1", 0) != 0) return Status::ok();
  return unsupported("oneDNN 2.6's " + impl + " computes strided 1x1 convs wrongly at 2 threads for a batch > 1");
}

// The primitive descriptor for this layer and implementation; the weights in the format
// `weights` when given, else in the one the primitive picks.
Status make_pd_as(const ImplDesc& d, const Layer& l, const Shape& in, const Quants& q, bool u8_src, Made* m,
                  const dnnl::memory::desc* weights) {
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, {in}, &out));
  dnnl::primitive_attr attr;
  LW_RETURN_IF_ERROR(make_attr(d, l, q, u8_src, &attr));
  const dt wt = d.dtype_in == DType::kBF16 ? dt::bf16 : d.dtype_in == DType::kI8 ? dt::s8 : dt::f32;
  m->u8_src = u8_src;
  m->src = act_md(in, d.dtype_in, d.layout_in);
  if (u8_src) m->src.data.data_type = dnnl_u8;
  m->user_w = user_weights(l, in, d.dtype_in == DType::kI8 ? dt::s8 : dt::f32);
  dnnl::memory::desc w_any = weights ? *weights : dnnl::memory::desc(m->user_w.dims(), wt, tag::any);
  dnnl::memory::desc bias({l.out_channels}, dt::f32, tag::x);
  if (is_conv(l)) {
    m->dst = act_md(out, d.dtype_out, d.layout_out);
    const Window& w = l.window;
    const auto algo = d.algorithm == Algorithm::kWinograd ? dnnl::algorithm::convolution_winograd
                                                          : dnnl::algorithm::convolution_direct;
    dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference, algo, m->src, w_any,
                                       bias, m->dst, {w.stride_h, w.stride_w}, {w.dil_h - 1, w.dil_w - 1},
                                       {w.pad_top, w.pad_left}, {w.pad_bottom, w.pad_right});
    m->pd = dnnl::convolution_forward::primitive_desc(cd, attr, engine());
    LW_RETURN_IF_ERROR(reject_strided_int8_1x1_batches(d, l, in, m->pd));
  } else {  // inner product: 2-D output (N x K), stored as N x K x 1 x 1 in any plain layout
    m->dst = dnnl::memory::desc({out.n, out.c}, data_type(d.dtype_out), tag::nc);
    dnnl::inner_product_forward::desc ipd(dnnl::prop_kind::forward_inference, m->src, w_any, bias, m->dst);
    m->pd = dnnl::inner_product_forward::primitive_desc(ipd, attr, engine());
  }
  return reject_reference(m->pd);
}

// A non-negative int8 input (zero point -128, libs/quant) is exactly u8 with zero point 0:
// VNNI multiplies u8 x s8 natively and oneDNN drops its source zero-point compensation
// (tests/bench_onednn_u8: 1.04x ... 1.5x per conv here, far more than the flip costs). A
// conv takes it as u8 where oneDNN has a kernel for that, else as s8.
//
// qc7 (7-bit weights, for CPUs without VNNI) always reads u8, whatever the zero point: an
// s8 source makes oneDNN halve the weights in its reorder there (a bit of precision lost,
// off the int8 reference), while u8 x 7-bit s8 pair sums stay exact in vpmaddubsw.
Status make_pd(const ImplDesc& d, const Layer& l, const Shape& in, const Quants& q, Made* m,
               const dnnl::memory::desc* weights = nullptr) {
  if (d.dtype_in == DType::kI8 && d.algorithm == Algorithm::kQc7) return make_pd_as(d, l, in, q, true, m, weights);
  if (d.dtype_in == DType::kI8 && is_conv(l) && q.in.zero_point == kInt8Min &&
      guard(StatusCode::kUnsupported, [&] { return make_pd_as(d, l, in, q, true, m, weights); }).is_ok())
    return Status::ok();
  return make_pd_as(d, l, in, q, false, m, weights);
}

// A conv that absorbed a residual add takes the residual as its second input, in the
// output's shape and format.
Status check_residual(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (!is_conv(l)) return unsupported("only a convolution absorbs a residual add");
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, {in[0]}, &out));
  if (in[1] != out) return invalid_argument("the residual must have the output's shape");
  if (d.layout_in != d.layout_out) return unsupported("a residual add with the input and output in different layouts");
  // What the registry fuses after an absorbed add is a relu (ResNet) or nothing (MobileNets).
  if (l.fused_activation != LayerKind::kInput && l.fused_activation != LayerKind::kRelu)
    return unsupported(std::string("a residual add followed by ") + to_string(l.fused_activation) + " (only relu is absorbed)");
  return Status::ok();
}

Status check_impl(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (in.size() != (l.fused_residual ? 2u : 1u))
    return invalid_argument(l.fused_residual ? "expects an input and the residual" : "expects one input");
  LW_RETURN_IF_ERROR(supports_dtype(d.dtype_in));
  if (l.fused_residual) LW_RETURN_IF_ERROR(check_residual(d, l, in));
  if (d.dtype_in != d.dtype_out) return unsupported("input and output dtype must agree");
  if (int64_t(l.weights.size()) != weight_count(l, in)) return invalid_argument("wrong number of weights");
  return Status::ok();
}

// An int8 conv's residual zero point as bias: + (s_res / s_out) (r - zp_res) in output units
// is + (s_res / s_out) r - s_res zp_res / (s_in w_scale[k]) in accumulator units.
void fold_residual_zero_point(const Quants& q, std::vector<float>* bias) {
  for (size_t k = 0; k < bias->size(); ++k)
    (*bias)[k] = float(double((*bias)[k]) - double(q.residual.scale) * q.residual.zero_point / (double(q.in.scale) * q.w_scales[k]));
}

// Inner product without zero-point attributes: sum (x - zp_in) w = sum x w - zp_in sum w
// (exact in integers, no padding to spoil it), and + zp_out after the output scale s_k is
// + zp_out / s_k before it; rounding and saturation then happen where they would.
void fold_zero_points(const QuantizedWeights& qw, QuantParams in_q, QuantParams out_q, std::vector<float>* bias) {
  const size_t k_count = bias->size(), per_k = qw.q.size() / k_count;
  for (size_t k = 0; k < k_count; ++k) {
    int64_t wsum = 0;
    for (size_t j = 0; j < per_k; ++j) wsum += qw.q[k * per_k + j];
    const double s = double(in_q.scale) * qw.scale(int(k)) / out_q.scale;
    (*bias)[k] = float(double((*bias)[k]) - double(in_q.zero_point) * double(wsum) + out_q.zero_point / s);
  }
}

class Weighted : public DnnlPrim {
 public:
  explicit Weighted(const PrimitiveArgs& a)
      : DnnlPrim(a.desc.name(), a.desc.threads), desc_(a.desc), layer_(*a.layer) {
    // Geometry for remake; the weights are packed by make. oneDNN cannot reorder out of its
    // Winograd weights format, so a Winograd conv keeps its plain weights to repack them.
    if (a.desc.algorithm != Algorithm::kWinograd) release_weights(layer_);
    q_.out = a.out_quant;
    if (!a.in_quant.empty()) q_.in = a.in_quant[0];
    if (a.in_quant.size() > 1) q_.residual = a.in_quant[1];
    residual_ = layer_.fused_residual;
  }

  // With a residual the output must start as the residual (the sum post-op reads dst).
  int accumulate_input() const override { return residual_ ? 1 : -1; }
  Status setup(const std::vector<const void*>& in, void* out, void* workspace) override {
    if (!residual_) return DnnlPrim::setup(in, out, workspace);
    if (in.size() != 2 || !in[1]) return invalid_argument("expects an input and the residual");
    residual_src_ = in[1];
    out_ = out;
    return DnnlPrim::setup({in[0]}, out, workspace);
  }
  Status run() override {
    if (residual_ && residual_src_ != out_) std::memcpy(out_, residual_src_, output_bytes());
    return DnnlPrim::run();
  }

  Status make(const PrimitiveArgs& a) {
    const Layer& l = *a.layer;
    const Shape& in = a.in_shapes[0];
    created_for_ = in;
    const bool int8 = a.desc.dtype_in == DType::kI8;
    if (int8 && residual_ && a.in_quant.size() != 2)
      return invalid_argument("an int8 conv that adds a residual needs the input's and the residual's quantisation");
    QuantizedWeights qw;
    const WeightQuantization wq = weight_quantization(a.desc.algorithm);
    if (int8) qw = quantize_weights(l.weights, l.out_channels, wq.per_channel, wq.qmax);
    q_.w_scales = qw.scales;
    Made m;
    LW_RETURN_IF_ERROR(make_pd(a.desc, l, in, q_, &m));
    // int8 bias in accumulator units (in_scale * w_scale), added before the output scale.
    std::vector<float> bias(size_t(l.out_channels), 0.f);
    if (int8) {
      std::vector<int32_t> bq = quantize_bias(l.bias, l.out_channels, q_.in.scale, qw);
      for (size_t k = 0; k < bias.size(); ++k) bias[k] = float(bq[k]);
      if (!is_conv(l)) fold_zero_points(qw, {q_.in.scale, source_zero_point(q_.in, m.u8_src)}, q_.out, &bias);
      if (residual_) fold_residual_zero_point(q_, &bias);
    } else if (!l.bias.empty()) {
      bias = l.bias;
    }
    const dnnl::memory::desc bias_md({l.out_channels}, dt::f32, tag::x);
    const void* w = int8 ? static_cast<const void*>(qw.q.data()) : static_cast<const void*>(l.weights.data());
    add_constant(DNNL_ARG_WEIGHTS, packed(w, m.user_w, m.pd.weights_desc(0)));
    add_constant(DNNL_ARG_BIAS, packed(bias.data(), bias_md, bias_md));
    return bind(m, a.in_shapes);
  }

 protected:
  // The packed weights' own format first (no reorder); where no JIT kernel takes it for the
  // new shapes, the format the new primitive picks, reordered from the packed copy.
  Status remake(const std::vector<Shape>& in) override {
    if (in.size() != (residual_ ? 2u : 1u)) return invalid_argument(residual_ ? "expects an input and the residual" : "expects one input");
    const Shape& s0 = created_for_;
    if (in[0].c != s0.c) return invalid_argument("input channels changed since create");
    if (!is_conv(layer_) && (in[0].h != s0.h || in[0].w != s0.w))
      return invalid_argument("fully-connected weights fix the input's C x H x W");
    Made m;
    if (desc_.algorithm == Algorithm::kWinograd) {  // f32 only: repack the kept plain weights
      LW_RETURN_IF_ERROR(make_pd(desc_, layer_, in[0], q_, &m));
      add_constant(DNNL_ARG_WEIGHTS, packed(layer_.weights.data(), m.user_w, m.pd.weights_desc(0)));
      return bind(m, in);
    }
    const dnnl::memory::desc packed_md = constant(DNNL_ARG_WEIGHTS).get_desc();
    Status s = guard(StatusCode::kUnsupported,
                     [&] { return make_pd(desc_, layer_, in[0], q_, &m, &packed_md); });
    if (!s.is_ok()) {
      LW_RETURN_IF_ERROR(make_pd(desc_, layer_, in[0], q_, &m));
      if (m.pd.weights_desc(0) != packed_md) {
        dnnl::memory from = constant(DNNL_ARG_WEIGHTS), to(m.pd.weights_desc(0), engine());
        dnnl::reorder(from, to).execute(stream(), from, to);
        stream().wait();
        add_constant(DNNL_ARG_WEIGHTS, to);
      }
    }
    return bind(m, in);
  }

 private:
  Status bind(const Made& m, const std::vector<Shape>& in) {
    Shape out;
    LW_RETURN_IF_ERROR(infer_layer_shape(layer_, {in[0]}, &out));  // in[1]: the residual, if any
    // An inner product writes N x K: the same bytes in every plain layout.
    set_u8_staging(m.u8_src);
    finish(dnnl::primitive(m.pd.get()), m.pd, {{DNNL_ARG_SRC, m.src}}, m.dst, in, out, desc_.dtype_out,
           is_conv(layer_) ? desc_.layout_out : Layout::kNCHW);
    return Status::ok();
  }

  ImplDesc desc_;
  Layer layer_;
  Shape created_for_;
  Quants q_;
  bool residual_ = false;
  const void* residual_src_ = nullptr;
  void* out_ = nullptr;
};

// Stand-in quantisation for support checks: a non-zero zero point, so that a kernel that
// cannot take one is found out here rather than at create.
constexpr QuantParams kProbeQuant{0.05f, 3};
Quants probe_quants(const Layer& l) {
  return {kProbeQuant, kProbeQuant, kProbeQuant, std::vector<float>(size_t(l.out_channels), 0.01f)};
}

// Without VNNI oneDNN multiplies u8 x s8 with vpmaddubsw, whose pairwise sums saturate at
// 16 bits (255 * 127 * 2 > 32767): on a Zen 3 its u8 convs were off the int8 reference by
// tens of steps, its s8 convs (it halves their weights in its reorder) by 2 and its inner
// products by up to 69 (tests/test_onednn). qc8 is refused there, never wrong; qc7's weights
// in [-63, 63] keep the sums exact (255 * 63 * 2 = 32130), and it reads u8 (make_pd). With
// VNNI qc8 is exact and as fast, so qc7 would only lose precision.
Status supports_int8_dot(const ImplDesc& d) {
  if (d.dtype_in != DType::kI8) return Status::ok();
  if (d.algorithm == Algorithm::kQc7 && cpu_has_int8_dot())
    return unsupported("7-bit weights (qc7) are for CPUs without VNNI; with VNNI qc8 is exact and as fast");
  if (d.algorithm != Algorithm::kQc7 && !cpu_has_int8_dot())
    return unsupported("oneDNN's int8 conv / inner product without VNNI saturates 16-bit u8 x s8 pair sums (vpmaddubsw); "
                       "qc7 (7-bit weights) runs there");
  return Status::ok();
}

}  // namespace

Status supports_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(check_impl(d, l, in));
  LW_RETURN_IF_ERROR(supports_int8_dot(d));
  if (d.algorithm == Algorithm::kWinograd && (l.window.kh != 3 || l.window.kw != 3 || l.window.stride_h != 1 ||
                                              l.window.stride_w != 1 || l.groups != 1))
    return unsupported("oneDNN's Winograd is for dense 3x3 stride-1 convolutions");
  Status s = guard(StatusCode::kUnsupported, [&] {
    Made m;
    return make_pd(d, l, in[0], probe_quants(l), &m);
  });
  if (!s.is_ok() && d.algorithm == Algorithm::kWinograd) return unsupported("no oneDNN Winograd kernel here: " + s.message());
  return s;
}

Status supports_fc(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  LW_RETURN_IF_ERROR(check_impl(d, l, in));
  LW_RETURN_IF_ERROR(supports_int8_dot(d));
  if (layout_block(d.layout_out) > 1) return unsupported("an inner product writes a plain N x K output");
  if (l.fused_activation != LayerKind::kInput) return unsupported("fully-connected with a fused activation");
  return guard(StatusCode::kUnsupported, [&] {
    Made m;
    return make_pd(d, l, in[0], probe_quants(l), &m);
  });
}

Status create_conv(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  set_threads(a.desc.threads);  // oneDNN sizes the scratchpad and splits work for this team
  auto p = std::make_unique<Weighted>(a);
  LW_RETURN_IF_ERROR(guard(StatusCode::kFailed, [&] { return p->make(a); }));
  *out = std::move(p);
  return Status::ok();
}

Status create_fc(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) { return create_conv(a, out); }

}  // namespace lw::dnnl_ops
