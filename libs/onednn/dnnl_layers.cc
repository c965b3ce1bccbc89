// Layers without weights: pooling, eltwise activations, binary add / mul (with the
// squeeze-excite per-channel broadcast) and channel concat, in f32 and bf16; pooling in
// int8 too, in its input's quantisation (libs/ops/primitive.h int8_keeps_input_quant).
#include "libs/onednn/dnnl_common.h"

namespace lw::dnnl_ops {
namespace {

using alg = dnnl::algorithm;

Status eltwise_of(LayerKind k, alg* a, float* alpha, float* beta) {
  *alpha = *beta = 0.f;
  switch (k) {
    case LayerKind::kRelu: *a = alg::eltwise_relu; return Status::ok();
    case LayerKind::kRelu6: *a = alg::eltwise_clip, *beta = 6.f; return Status::ok();
    case LayerKind::kHardSwish: *a = alg::eltwise_hardswish; return Status::ok();
    case LayerKind::kSigmoid: *a = alg::eltwise_logistic; return Status::ok();
    case LayerKind::kGelu: *a = alg::eltwise_gelu_erf; return Status::ok();
    default: return unsupported(std::string("no oneDNN eltwise for ") + to_string(k));
  }
}

// Padding on the far side that makes oneDNN's output size ours (ceil mode adds overhang).
int far_pad(int in, int out, int k, int s, int near) { return (out - 1) * s + k - in - near; }

struct Made {
  dnnl::primitive_desc_base pd;
  std::vector<std::pair<int, dnnl::memory::desc>> srcs;
  dnnl::memory::desc dst;
  bool in_place = false;
};

Status make_pool(const ImplDesc& d, const Layer& l, const Shape& in, const Shape& out, Made* m) {
  Window w = l.window;
  if (l.kind == LayerKind::kGlobalAvgPool) w = Window{in.h, in.w, in.h, in.w};
  const int pb = far_pad(in.h, out.h, w.kh, w.stride_h, w.pad_top), pr = far_pad(in.w, out.w, w.kw, w.stride_w, w.pad_left);
  alg a = alg::pooling_max;
  if (l.kind != LayerKind::kMaxPool) {
    // oneDNN's include-padding divisor is the whole window; PyTorch's stops at the declared
    // padding, so a ceil-mode overhang would divide differently.
    if (l.count_include_pad && (pb > w.pad_bottom || pr > w.pad_right))
      return unsupported("average pooling counting padding with a ceil-mode overhang");
    a = l.count_include_pad ? alg::pooling_avg_include_padding : alg::pooling_avg_exclude_padding;
    // int8 padding is the integer 0, whose real value is not 0 unless the zero point is.
    if (d.dtype_in == DType::kI8 && l.count_include_pad && (w.pad_top || w.pad_left || pb || pr))
      return unsupported("int8 average pooling counting padding (oneDNN pads with 0, not the zero point)");
  }
  if (w.dil_h != 1 || w.dil_w != 1) return unsupported("dilated pooling");
  m->srcs = {{DNNL_ARG_SRC, act_md(in, d.dtype_in, d.layout_in)}};
  m->dst = act_md(out, d.dtype_out, d.layout_out);
  dnnl::pooling_forward::desc pd(dnnl::prop_kind::forward_inference, a, m->srcs[0].second, m->dst, {w.stride_h, w.stride_w},
                                 {w.kh, w.kw}, {w.pad_top, w.pad_left}, {pb, pr});
  m->pd = dnnl::pooling_forward::primitive_desc(pd, user_scratchpad_attr(), engine());
  return Status::ok();
}

Status make_eltwise(const ImplDesc& d, const Layer& l, const Shape& in, Made* m) {
  alg a;
  float alpha, beta;
  LW_RETURN_IF_ERROR(eltwise_of(l.kind, &a, &alpha, &beta));
  m->srcs = {{DNNL_ARG_SRC, act_md(in, d.dtype_in, d.layout_in)}};
  m->dst = act_md(in, d.dtype_out, d.layout_out);
  dnnl::eltwise_forward::desc ed(dnnl::prop_kind::forward_inference, a, m->srcs[0].second, alpha, beta);
  m->pd = dnnl::eltwise_forward::primitive_desc(ed, user_scratchpad_attr(), engine());
  m->in_place = true;
  return Status::ok();
}

Status make_binary(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in, Made* m) {
  m->srcs = {{DNNL_ARG_SRC_0, act_md(in[0], d.dtype_in, d.layout_in)}, {DNNL_ARG_SRC_1, act_md(in[1], d.dtype_in, d.layout_in)}};
  m->dst = act_md(in[0], d.dtype_out, d.layout_out);
  // Found the same way on a Zen 3 (AVX2): 2.6's binary kernel for nChw16c with a partial
  // last block stores 32 bytes past the output and adds wrongly (2x21x5x3).
  if (layout_block(d.layout_in) == 16 && in[0].c % 16 != 0 && !avx512_isa())
    return unsupported("oneDNN 2.6 without AVX-512 writes past an nChw16c output with a partial last block");
  dnnl::primitive_attr attr = user_scratchpad_attr();
  if (l.fused_activation != LayerKind::kInput) {
    // Found by the testers' guard bytes: with an eltwise post-op, 2.6's binary kernel
    // stores whole vectors past the end of an nChw8c output (112 bytes on 2x21x5x3).
    if (d.layout_in == Layout::kNCHW8C) return unsupported("oneDNN 2.6 writes past an nChw8c output with a post-op");
    alg a;
    float alpha, beta;
    LW_RETURN_IF_ERROR(eltwise_of(l.fused_activation, &a, &alpha, &beta));
    dnnl::post_ops po;
    po.append_eltwise(1.f, a, alpha, beta);
    attr.set_post_ops(po);
  }
  dnnl::binary::desc bd(l.kind == LayerKind::kAdd ? alg::binary_add : alg::binary_mul, m->srcs[0].second, m->srcs[1].second,
                        m->dst);
  m->pd = dnnl::binary::primitive_desc(bd, attr, engine());
  m->in_place = true;  // dst may be src0 (src1 is at most as large)
  return Status::ok();
}

Status make_concat(const ImplDesc& d, const std::vector<Shape>& in, const Shape& out, Made* m) {
  std::vector<dnnl::memory::desc> mds;
  for (size_t i = 0; i < in.size(); ++i) {
    mds.push_back(act_md(in[i], d.dtype_in, d.layout_in));
    m->srcs.emplace_back(DNNL_ARG_MULTIPLE_SRC + int(i), mds.back());
  }
  m->dst = act_md(out, d.dtype_out, d.layout_out);
  m->pd = dnnl::concat::primitive_desc(m->dst, 1, mds, engine(), user_scratchpad_attr());
  return Status::ok();
}

Status make(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in, Made* m) {
  LW_RETURN_IF_ERROR(supports_dtype(d.dtype_in));
  if (d.dtype_in != d.dtype_out || d.layout_in != d.layout_out) return unsupported("keeps dtype and layout");
  if (d.dtype_in == DType::kI8 && !int8_keeps_input_quant(l.kind))
    return unsupported("int8 only for convolution, fully-connected and pooling");
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, in, &out));
  switch (l.kind) {
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool:
    case LayerKind::kGlobalAvgPool: LW_RETURN_IF_ERROR(make_pool(d, l, in[0], out, m)); break;
    case LayerKind::kAdd:
    case LayerKind::kMul: LW_RETURN_IF_ERROR(make_binary(d, l, in, m)); break;
    case LayerKind::kConcat: LW_RETURN_IF_ERROR(make_concat(d, in, out, m)); break;
    default:
      if (l.fused_activation != LayerKind::kInput) return unsupported("an activation with a fused activation");
      LW_RETURN_IF_ERROR(make_eltwise(d, l, in[0], m));
      break;
  }
  return reject_reference(m->pd);
}

// Layers without weights: remake is make for the new shapes.
class LayerPrim : public DnnlPrim {
 public:
  explicit LayerPrim(const PrimitiveArgs& a) : DnnlPrim(a.desc.name(), a.desc.threads), desc_(a.desc), layer_(*a.layer) {}
  Status build(const std::vector<Shape>& in) {
    Made m;
    LW_RETURN_IF_ERROR(make(desc_, layer_, in, &m));
    Shape out;
    LW_RETURN_IF_ERROR(infer_layer_shape(layer_, in, &out));
    finish(dnnl::primitive(m.pd.get()), m.pd, m.srcs, m.dst, in, out, desc_.dtype_out, desc_.layout_out);
    set_in_place(m.in_place);
    return Status::ok();
  }

 protected:
  Status remake(const std::vector<Shape>& in) override { return build(in); }

 private:
  ImplDesc desc_;
  Layer layer_;
};

}  // namespace

Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  return guard(StatusCode::kUnsupported, [&] {
    Made m;
    return make(d, l, in, &m);
  });
}

Status create_layer(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  if (a.desc.dtype_in == DType::kI8) {  // pooled as they are: the output is in the input's quantisation
    const QuantParams in = a.in_quant.empty() ? QuantParams{} : a.in_quant[0];
    if (a.in_quant.empty() || in.scale != a.out_quant.scale || in.zero_point != a.out_quant.zero_point)
      return invalid_argument("failed to create " + a.desc.name() + ": int8 pooling writes in its input's quantisation");
  }
  set_threads(a.desc.threads);  // oneDNN sizes the scratchpad and splits work for this team
  return guard(StatusCode::kFailed, [&] {
    auto p = std::make_unique<LayerPrim>(a);
    LW_RETURN_IF_ERROR(p->build(a.in_shapes));
    *out = std::move(p);
    return Status::ok();
  });
}

}  // namespace lw::dnnl_ops
