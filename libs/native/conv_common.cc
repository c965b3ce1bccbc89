// Shared pieces of every conv implementation: geometry, epilogues, the primitive base,
// argument checks and weight packing.
#include <cstring>

#include "libs/native/kernels.h"

namespace lw {

Status supports_f32_conv(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.dtype_in != DType::kF32 || d.dtype_out != DType::kF32) return unsupported("f32 only");
  if (d.layout_in != d.layout_out) return unsupported("input and output layouts must match");
  if (in.size() != 1) return invalid_argument("conv2d takes one input");
  if (l.groups < 1 || in[0].c % l.groups != 0 || l.out_channels % l.groups != 0)
    return invalid_argument("channels not divisible by groups");
  if (int64_t(l.weights.size()) != weight_count(l, in)) return invalid_argument("weights missing or of the wrong size");
  if (d.fused_activation && l.fused_activation != LayerKind::kInput && !is_activation(l.fused_activation))
    return unsupported(std::string("native convs fuse relu, relu6, hardswish, hardsigmoid or sigmoid, not ") +
                       to_string(l.fused_activation));
  return Status::ok();
}

Status supports_conv_algorithm(Algorithm algo, Layout layout, const Layer& l, const std::vector<Shape>& in) {
  const Window& w = l.window;
  bool nchw = layout == Layout::kNCHW;
  bool dil1 = w.dil_h == 1 && w.dil_w == 1, s1 = w.stride_h == 1 && w.stride_w == 1;
  switch (algo) {
    case Algorithm::kDirect: return Status::ok();
    case Algorithm::kIm2col: return nchw ? Status::ok() : unsupported("im2col is the NCHW lowering (use im2row)");
    case Algorithm::kIm2row: return !nchw ? Status::ok() : unsupported("im2row is the NHWC lowering (use im2col)");
    case Algorithm::kGemm1x1:
      if (w.kh != 1 || w.kw != 1 || !s1 || w.pad_top || w.pad_left || w.pad_bottom || w.pad_right)
        return unsupported("needs a 1x1 kernel, stride 1, no padding");
      return Status::ok();
    case Algorithm::kKn2row:
      if (!nchw) return unsupported("kn2row is implemented for NCHW");
      if (!s1 || !dil1 || l.groups != 1) return unsupported("needs stride 1, dilation 1, groups 1");
      return Status::ok();
    case Algorithm::kWinogradF2:
    case Algorithm::kWinogradF4:
    case Algorithm::kWinogradF6: {
      // F(m x m, 3x3) for m = 2, 4, 6 and F(m x m, 5x5) for m = 2, 4 (tiles of 6 and 8, the
      // 3x3 ones' points); F(6x6, 5x5) would need a 10x10 tile, whose points round too much.
      const bool k3 = w.kh == 3 && w.kw == 3, k5 = w.kh == 5 && w.kw == 5;
      if (!(k3 || k5) || !s1 || !dil1 || l.groups != 1)
        return unsupported("needs a 3x3 or 5x5 kernel, stride 1, dilation 1, groups 1");
      if (k5 && algo == Algorithm::kWinogradF6) return unsupported("no F(6x6, 5x5) (a 10x10 tile): winograd_f2 or _f4");
      return Status::ok();
    }
    case Algorithm::kDepthwise:
      if (l.groups != in[0].c || l.out_channels != in[0].c)
        return unsupported("needs groups == in channels == out channels");
      return Status::ok();
    default: return unsupported(std::string("no conv algorithm '") + to_string(algo) + "'");
  }
}

namespace native {

ConvGeom conv_geom(const Layer& l, const Shape& in, const Shape& out) {
  ConvGeom g;
  g.n = in.n, g.c = in.c, g.h = in.h, g.w = in.w, g.k = out.c, g.oh = out.h, g.ow = out.w;
  const Window& w = l.window;
  g.kh = w.kh, g.kw = w.kw, g.sh = w.stride_h, g.sw = w.stride_w, g.pt = w.pad_top, g.pl = w.pad_left;
  g.dh = w.dil_h, g.dw = w.dil_w, g.groups = l.groups;
  return g;
}

void bias_act_rows(int threads, float* c, int rows, int64_t cols, int64_t ldc, const float* bias, LayerKind act) {
  with_activation(act, [&](auto f) {
    parallel_for(threads, rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) op_act_span(c + r * ldc, bias + r, 0, c + r * ldc, cols, Plus{}, f);
    });
  });
}

void bias_act_cols(int threads, float* c, int64_t rows, int cols, int64_t ldc, const float* bias, LayerKind act) {
  with_activation(act, [&](auto f) {
    parallel_for(threads, rows, 8, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) op_act_span(c + r * ldc, bias, 1, c + r * ldc, cols, Plus{}, f);
    });
  });
}

ConvBase::ConvBase(const PrimitiveArgs& a)
    : Primitive(a.desc.name()), layer_(*a.layer), layout_(a.desc.layout_in), threads_(a.desc.threads),
      act_(a.layer->fused_activation) {
  bias_.assign(a.layer->out_channels, 0.f);
  if (!a.layer->bias.empty()) bias_ = a.layer->bias;
  release_weights(layer_);  // the derived class packs from a.layer; this copy keeps geometry
}

Status ConvBase::reshape(const std::vector<Shape>& in) {
  if (in.size() != 1) return invalid_argument("conv2d takes one input");
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(layer_, in, &out));
  if (g_.c != 0 && in[0].c != g_.c) return invalid_argument("input channels changed since create");
  out_shape_ = out;
  g_ = conv_geom(layer_, in[0], out);
  workspace_bytes_ = workspace_for(g_);
  weight_bytes_ = (packed_.size() + bias_.size()) * sizeof(float);
  return Status::ok();
}

Status ConvBase::setup(const std::vector<const void*>& in, void* out, void* workspace) {
  if (in.size() != 1 || !in[0] || !out) return invalid_argument("null input or output");
  if (workspace_bytes_ > 0 && !workspace) return invalid_argument("workspace required");
  x_ = static_cast<const float*>(in[0]);
  y_ = static_cast<float*>(out);
  ws_ = static_cast<float*>(workspace);
  return Status::ok();
}

void ConvBase::epilogue(float* y) const {
  if (layout_ == Layout::kNCHW) {
    for (int n = 0; n < g_.n; ++n) bias_act_rows(threads_, y + int64_t(n) * g_.k * g_.ohw(), g_.k, g_.ohw(), g_.ohw(), bias_.data(), act_);
  } else {
    bias_act_cols(threads_, y, int64_t(g_.n) * g_.ohw(), g_.k, g_.k, bias_.data(), act_);
  }
}

std::vector<float> pack_hwio(const Layer& l, int cg) {
  const Window& w = l.window;
  int K = l.out_channels, G = l.groups, kg = K / G;
  std::vector<float> p(l.weights.size());
  for (int g = 0; g < G; ++g)
    for (int ko = 0; ko < kg; ++ko)
      for (int ci = 0; ci < cg; ++ci)
        for (int r = 0; r < w.kh; ++r)
          for (int s = 0; s < w.kw; ++s) {
            int64_t src = ((int64_t(g * kg + ko) * cg + ci) * w.kh + r) * w.kw + s;
            int64_t dst = ((((int64_t(g) * w.kh + r) * w.kw + s) * cg + ci) * kg) + ko;
            p[dst] = l.weights[src];
          }
  return p;
}

}  // namespace native
}  // namespace lw
