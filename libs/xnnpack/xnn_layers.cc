// XNNPACK f32 layers other than conv / FC: pooling, global average pooling, add, multiply,
// relu / relu6 (clamp), hardswish, sigmoid, softmax.
#include <limits>

#include "libs/xnnpack/xnn_common.h"

namespace lw::xnn {
namespace {

// Extra bottom / right padding that makes XNNPACK's floor-mode output size equal PyTorch's
// ceil-mode size (max pooling ignores padding, so the extra rows never win).
int ceil_extra(int in, int k, int stride, int pad_lo, int pad_hi, int dil, int out) {
  int need = (out - 1) * stride + dil * (k - 1) + 1 - (in + pad_lo + pad_hi);
  return need > 0 ? need : 0;
}

class Pool : public XnnPrim {
 public:
  using XnnPrim::XnnPrim;
  Status create(const PrimitiveArgs& a) {
    const Window& w = layer_.window;
    const Shape& s = a.in_shapes[0];
    const size_t c = s.c;
    out_pixel_stride_ = a.out_pixel_stride > int64_t(c) ? a.out_pixel_stride : 0;  // (into a concat's slice)
    const size_t ostride = out_pixel_stride_ > 0 ? size_t(out_pixel_stride_) : c;
    float lo, hi;
    LW_RETURN_IF_ERROR(f32_bounds(layer_.fused_activation, &lo, &hi));
    if (layer_.kind == LayerKind::kGlobalAvgPool)
      return check(xnn_create_global_average_pooling_nwc_f32(c, c, ostride, lo, hi, 0, &op_), "xnn_create_global_average_pooling_nwc_f32");
    if (layer_.kind == LayerKind::kAvgPool)
      return check(xnn_create_average_pooling2d_nhwc_f32(w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kh, w.kw, w.stride_h,
                                                         w.stride_w, c, c, ostride, lo, hi, 0, &op_),
                   "xnn_create_average_pooling2d_nhwc_f32");
    Shape os;
    LW_RETURN_IF_ERROR(infer_layer_shape(layer_, a.in_shapes, &os));
    int pb = w.pad_bottom + ceil_extra(s.h, w.kh, w.stride_h, w.pad_top, w.pad_bottom, w.dil_h, os.h);
    int pr = w.pad_right + ceil_extra(s.w, w.kw, w.stride_w, w.pad_left, w.pad_right, w.dil_w, os.w);
    return check(xnn_create_max_pooling2d_nhwc_f32(w.pad_top, pr, pb, w.pad_left, w.kh, w.kw, w.stride_h, w.stride_w, w.dil_h,
                                                   w.dil_w, c, c, ostride, lo, hi, 0, &op_),
                 "xnn_create_max_pooling2d_nhwc_f32");
  }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("pooling takes one input and an output");
    const Shape& s = in_[0];
    auto x = static_cast<const float*>(in[0]);
    auto y = static_cast<float*>(out);
    if (layer_.kind == LayerKind::kGlobalAvgPool)
      return check(xnn_setup_global_average_pooling_nwc_f32(op_, s.n, size_t(s.h) * s.w, x, y, pool_),
                   "xnn_setup_global_average_pooling_nwc_f32");
    if (layer_.kind == LayerKind::kAvgPool)
      return check(xnn_setup_average_pooling2d_nhwc_f32(op_, s.n, s.h, s.w, x, y, pool_), "xnn_setup_average_pooling2d_nhwc_f32");
    return check(xnn_setup_max_pooling2d_nhwc_f32(op_, s.n, s.h, s.w, x, y, pool_), "xnn_setup_max_pooling2d_nhwc_f32");
  }
};

// add / mul as N-d broadcasting ops over the tensor's memory order (mul's N x C x 1 x 1
// scale broadcasts in both layouts).
class Binary : public XnnPrim {
 public:
  using XnnPrim::XnnPrim;
  Status create(const PrimitiveArgs&) {
    float lo, hi;
    LW_RETURN_IF_ERROR(f32_bounds(layer_.fused_activation, &lo, &hi));
    if (layer_.kind == LayerKind::kAdd) return check(xnn_create_add_nd_f32(lo, hi, 0, &op_), "xnn_create_add_nd_f32");
    return check(xnn_create_multiply_nd_f32(lo, hi, 0, &op_), "xnn_create_multiply_nd_f32");
  }
  // In-place is not documented for XNNPACK binary ops: keep the default (no).

  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 2 || !in[0] || !in[1] || !out) return invalid_argument("binary op takes two inputs and an output");
    size_t a[4], b[4];
    dims(in_[0], a);
    dims(in_[1], b);
    auto x0 = static_cast<const float*>(in[0]), x1 = static_cast<const float*>(in[1]);
    auto y = static_cast<float*>(out);
    if (layer_.kind == LayerKind::kAdd)
      return check(xnn_setup_add_nd_f32(op_, 4, a, 4, b, x0, x1, y, pool_), "xnn_setup_add_nd_f32");
    return check(xnn_setup_multiply_nd_f32(op_, 4, a, 4, b, x0, x1, y, pool_), "xnn_setup_multiply_nd_f32");
  }

 private:
  void dims(const Shape& s, size_t* d) const {
    bool nhwc = desc_.layout_in == Layout::kNHWC;
    d[0] = s.n;
    d[1] = nhwc ? s.h : s.c;
    d[2] = nhwc ? s.w : s.h;
    d[3] = nhwc ? s.c : s.w;
  }
};

// Unary ops over rows: activations treat the tensor as N rows of C*H*W values; softmax as
// N*H*W rows of C channels (NHWC) or N rows (NCHW with 1x1 spatial).
class Unary : public XnnPrim {
 public:
  using XnnPrim::XnnPrim;
  // Strided (into a concat's slice, NHWC): rows of C channels with the output's pixel stride.
  Status create(const PrimitiveArgs& a) {
    const bool strided = desc_.layout_out == Layout::kNHWC && layer_.kind != LayerKind::kSoftmax;
    if (strided && a.out_pixel_stride > a.in_shapes[0].c) out_pixel_stride_ = a.out_pixel_stride;
    return make_op(row_length(a.in_shapes[0]));
  }
  // The row length is fixed when the operator is made: a reshape that changes it (new H x W
  // for an activation) makes a new operator, which costs no packing.
  Status reshape(const std::vector<Shape>& in) override {
    LW_RETURN_IF_ERROR(XnnPrim::reshape(in));
    const size_t c = row_length(in[0]);
    if (c == channels_) return Status::ok();
    xnn_delete_operator(op_);
    op_ = nullptr;
    return make_op(c);
  }
  bool can_run_in_place() const override { return layer_.kind != LayerKind::kSoftmax && out_pixel_stride_ == 0; }
  Status setup(const std::vector<const void*>& in, void* out, void*) override {
    if (in.size() != 1 || !in[0] || !out) return invalid_argument("takes one input and an output");
    const Shape& s = in_[0];
    const size_t rows = size_t(s.elements()) / channels_;
    auto x = static_cast<const float*>(in[0]);
    auto y = static_cast<float*>(out);
    switch (layer_.kind) {
      case LayerKind::kRelu:
      case LayerKind::kRelu6: return check(xnn_setup_clamp_nc_f32(op_, rows, x, y, pool_), "xnn_setup_clamp_nc_f32");
      case LayerKind::kHardSwish: return check(xnn_setup_hardswish_nc_f32(op_, rows, x, y, pool_), "xnn_setup_hardswish_nc_f32");
      case LayerKind::kSigmoid: return check(xnn_setup_sigmoid_nc_f32(op_, rows, x, y, pool_), "xnn_setup_sigmoid_nc_f32");
      default: return check(xnn_setup_softmax_nc_f32(op_, rows, x, y, pool_), "xnn_setup_softmax_nc_f32");
    }
  }

 private:
  size_t row_length(const Shape& s) const {
    return layer_.kind == LayerKind::kSoftmax || out_pixel_stride_ > 0 ? size_t(s.c) : size_t(s.c) * s.h * s.w;
  }
  Status make_op(size_t c) {
    channels_ = c;
    const size_t os = out_pixel_stride_ > 0 ? size_t(out_pixel_stride_) : c;
    switch (layer_.kind) {
      case LayerKind::kRelu: return check(xnn_create_clamp_nc_f32(c, c, os, 0.f, std::numeric_limits<float>::infinity(), 0, &op_), "xnn_create_clamp_nc_f32");
      case LayerKind::kRelu6: return check(xnn_create_clamp_nc_f32(c, c, os, 0.f, 6.f, 0, &op_), "xnn_create_clamp_nc_f32");
      case LayerKind::kHardSwish: return check(xnn_create_hardswish_nc_f32(c, c, os, 0, &op_), "xnn_create_hardswish_nc_f32");
      case LayerKind::kSigmoid: return check(xnn_create_sigmoid_nc_f32(c, c, os, 0, &op_), "xnn_create_sigmoid_nc_f32");
      case LayerKind::kSoftmax: return check(xnn_create_softmax_nc_f32(c, c, c, 0, &op_), "xnn_create_softmax_nc_f32");
      default: return unsupported("no xnnpack unary op for this layer");
    }
  }

  size_t channels_ = 0;
};

template <typename P>
Status make(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  LW_RETURN_IF_ERROR(initialize());
  auto p = std::make_unique<P>(a);
  LW_RETURN_IF_ERROR(p->create(a));
  *out = std::move(p);
  return Status::ok();
}

Status supports_pool(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.layout_in != Layout::kNHWC) return unsupported("xnnpack pooling is NHWC");
  if (l.kind == LayerKind::kGlobalAvgPool) return Status::ok();
  const Window& w = l.window;
  if (w.kh * w.kw == 1) return unsupported("xnnpack pooling needs a window larger than 1x1");
  if (l.kind == LayerKind::kAvgPool) {
    // XNNPACK divides by the number of real pixels in the window; PyTorch's default counts
    // the padding too.
    bool padded = w.pad_top || w.pad_left || w.pad_bottom || w.pad_right;
    if (padded && l.count_include_pad) return unsupported("xnnpack average pooling excludes padding from the divisor");
    if (w.ceil_mode) return unsupported("xnnpack average pooling has no ceil mode");
    if (w.dil_h != 1 || w.dil_w != 1) return unsupported("xnnpack average pooling has no dilation");
  }
  return Status::ok();
}

}  // namespace

Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.dtype_in != DType::kF32 || d.dtype_out != DType::kF32) return unsupported("xnnpack layers here are f32");
  if (d.layout_in != d.layout_out) return unsupported("xnnpack keeps the layout");
  Shape out;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, in, &out));
  float lo, hi;
  LW_RETURN_IF_ERROR(f32_bounds(l.fused_activation, &lo, &hi));
  switch (l.kind) {
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool:
    case LayerKind::kGlobalAvgPool: return supports_pool(d, l, in);
    case LayerKind::kSoftmax:
      if (d.layout_in == Layout::kNCHW && int64_t(in[0].h) * in[0].w != 1)
        return unsupported("xnnpack softmax runs over the innermost dimension: NHWC, or NCHW with 1x1 spatial");
      return Status::ok();
    default: return Status::ok();
  }
}

Status create_layer(const PrimitiveArgs& a, std::unique_ptr<Primitive>* out) {
  switch (a.layer->kind) {
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool:
    case LayerKind::kGlobalAvgPool: return make<Pool>(a, out);
    case LayerKind::kAdd:
    case LayerKind::kMul: return make<Binary>(a, out);
    default: return make<Unary>(a, out);
  }
}

}  // namespace lw::xnn
