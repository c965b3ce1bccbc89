// Native non-conv layers, NCHW and NHWC f32: activations, GELU, add, mul, concat, pooling,
// global average pooling, fully connected, flatten, softmax (channel layers: layers_channel.cc).
#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "libs/native/layer_prim.h"

namespace lw::native {
namespace {

// Activations, add and mul: elementwise (mul may broadcast a N x C x 1 x 1 scale).
class Eltwise : public LayerPrim {
 public:
  // An NHWC activation writes any output pixel stride (into a concat's slice).
  explicit Eltwise(const PrimitiveArgs& a) : LayerPrim(a) {
    if (nhwc_ && is_activation(layer_.kind) && a.in_shapes.size() == 1 && a.out_pixel_stride > a.in_shapes[0].c)
      out_pixel_stride_ = a.out_pixel_stride;
  }
  bool can_run_in_place() const override { return out_pixel_stride_ == 0; }
  Status run() override {
    const LayerKind kind = layer_.kind, act = is_activation(kind) ? kind : layer_.fused_activation;
    const Shape& s = out_shape_;
    const float* a = x_[0];
    const float* b = x_.size() > 1 ? x_[1] : nullptr;
    float* y = y_;
    if (out_pixel_stride_ > 0) return strided(a, y, act);
    if (kind == LayerKind::kMul && in_[1].h * in_[1].w == 1 && s.h * s.w > 1) return scale(a, b, y, act);
    with_activation(act, [&](auto f) {
      parallel_for(threads_, s.elements(), 256, [=](int64_t i0, int64_t i1) {
        if (kind == LayerKind::kAdd) op_act_span(a + i0, b + i0, 1, y + i0, i1 - i0, Plus{}, f);
        else if (kind == LayerKind::kMul) op_act_span(a + i0, b + i0, 1, y + i0, i1 - i0, Times{}, f);
        else act_span(a + i0, y + i0, i1 - i0, f);
      });
    });
    return Status::ok();
  }

 private:
  // y = f(a), pixel by pixel: C values read densely, written out_pixel_stride_ apart.
  Status strided(const float* a, float* y, LayerKind act) const {
    const int64_t C = out_shape_.c, S = out_pixel_stride_;
    with_activation(act, [&](auto f) {
      parallel_for(threads_, out_shape_.elements() / C, 16, [=](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) act_span(a + p * C, y + p * S, C, f);
      });
    });
    return Status::ok();
  }
  // y = f(a * b) with b one value per (image, channel): per channel plane in NCHW, per pixel
  // (b's C values in a row) in NHWC. (Per element, two divisions found b's index.)
  Status scale(const float* a, const float* b, float* y, LayerKind act) const {
    const Shape& s = out_shape_;
    const int64_t hw = int64_t(s.h) * s.w, C = s.c;
    const bool nhwc = nhwc_;
    with_activation(act, [&](auto f) {
      parallel_for(threads_, nhwc ? s.n * hw : s.n * C, [=](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          if (!nhwc) op_act_span(a + r * hw, b + r, 0, y + r * hw, hw, Times{}, f);
          else op_act_span(a + r * C, b + r / hw * C, 1, y + r * C, C, Times{}, f);
        }
      });
    });
    return Status::ok();
  }
};

// GELU, 0.5 x (1 + erf(x / sqrt(2))), with Eigen's vectorised erf (a rational fit accurate to
// a few ulp in float): std::erf would be one scalar call per element.
class Gelu : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  bool can_run_in_place() const override { return true; }
  Status run() override {
    parallel_for(threads_, out_shape_.elements(), 1024, [&](int64_t i0, int64_t i1) {
      Eigen::Map<const Eigen::ArrayXf> x(x_[0] + i0, i1 - i0);
      Eigen::Map<Eigen::ArrayXf> y(y_ + i0, i1 - i0);
      y = 0.5f * x * (1.f + (x * float(M_SQRT1_2)).erf());
    });
    return Status::ok();
  }
};

class Concat : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  // NHWC: an input its producer wrote into the output (with the output's pixel stride) is
  // left out of the copy.
  bool take_input_in_place(int k) override {
    if (!nhwc_ || k < 0 || k >= int(layer_.inputs.size())) return false;
    in_place_.resize(layer_.inputs.size(), false);
    in_place_[size_t(k)] = true;
    return true;
  }
  Status run() override {
    const Shape& s = out_shape_;
    const int64_t hw = int64_t(s.h) * s.w;
    if (!nhwc_) {
      for (int n = 0; n < s.n; ++n) {
        float* dst = y_ + int64_t(n) * s.c * hw;
        for (size_t i = 0; i < x_.size(); ++i) {
          int64_t block = int64_t(in_[i].c) * hw;
          std::memcpy(dst, x_[i] + n * block, sizeof(float) * block);
          dst += block;
        }
      }
      return Status::ok();
    }
    if (!in_place_.empty() && std::all_of(in_place_.begin(), in_place_.end(), [](bool b) { return b; }))
      return Status::ok();
    parallel_for(threads_, int64_t(s.n) * hw, 16, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        float* dst = y_ + p * s.c;
        for (size_t i = 0; i < x_.size(); ++i) {
          if (i >= in_place_.size() || !in_place_[i]) std::memcpy(dst, x_[i] + p * in_[i].c, sizeof(float) * in_[i].c);
          dst += in_[i].c;
        }
      }
    });
    return Status::ok();
  }

 private:
  std::vector<bool> in_place_;  // per input: already in the output (empty: none)
};

// Max / average pooling with PyTorch's divisor rules (see libs/ref).
class Pool : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  Status reshape(const std::vector<Shape>& in) override {
    // Global pooling's window is the whole input, as large as each reshape makes it.
    if (layer_.kind == LayerKind::kGlobalAvgPool && !in.empty()) {
      layer_.window = Window{};
      layer_.window.kh = in[0].h;
      layer_.window.kw = in[0].w;
    }
    return LayerPrim::reshape(in);
  }
  Status run() override {
    const Shape &is = in_[0], &os = out_shape_;
    const bool is_max = layer_.kind == LayerKind::kMaxPool;
    // NCHW: one task per output row of a plane, channel stride HW; NHWC: channels innermost.
    const int64_t cs = nhwc_ ? 1 : int64_t(is.h) * is.w, ps = nhwc_ ? is.c : 1;
    const int64_t ocs = nhwc_ ? 1 : int64_t(os.h) * os.w, ops = nhwc_ ? os.c : 1;
    const int64_t in_n = int64_t(is.c) * is.h * is.w, out_n = int64_t(os.c) * os.h * os.w;
    parallel_for(threads_, int64_t(os.n) * os.h, [&](int64_t r0, int64_t r1) {
      for (int64_t row = r0; row < r1; ++row) {
        int n = int(row / os.h), oh = int(row % os.h);
        for (int ow = 0; ow < os.w; ++ow)
          window(x_[0] + n * in_n, y_ + n * out_n + (int64_t(oh) * os.w + ow) * ops, oh, ow, cs, ps, ocs, is_max);
      }
    });
    return Status::ok();
  }

 private:
  void window(const float* x, float* y, int oh, int ow, int64_t cs, int64_t ps, int64_t ocs, bool is_max) const {
    const Shape& is = in_[0];
    const Window& w = layer_.window;
    int h0 = oh * w.stride_h - w.pad_top, w0 = ow * w.stride_w - w.pad_left;
    int hend = std::min(h0 + w.kh, is.h + w.pad_bottom), wend = std::min(w0 + w.kw, is.w + w.pad_right);
    int hs = std::max(h0, 0), he = std::min(h0 + w.kh, is.h), ws = std::max(w0, 0), we = std::min(w0 + w.kw, is.w);
    int count = std::max(0, he - hs) * std::max(0, we - ws);
    float div = float(layer_.count_include_pad ? (hend - h0) * (wend - w0) : std::max(count, 1));
    for (int c = 0; c < is.c; ++c) y[c * ocs] = is_max ? -std::numeric_limits<float>::infinity() : 0.f;
    for (int ih = hs; ih < he; ++ih)
      for (int iw = ws; iw < we; ++iw) {
        const float* p = x + (int64_t(ih) * is.w + iw) * ps;
        if (is_max)
          for (int c = 0; c < is.c; ++c) y[c * ocs] = std::max(y[c * ocs], p[c * cs]);
        else
          for (int c = 0; c < is.c; ++c) y[c * ocs] += p[c * cs];
      }
    if (!is_max)
      for (int c = 0; c < is.c; ++c) y[c * ocs] /= div;
  }
};

// y[n][O] = x[n][F] * W^T with W re-ordered to the input layout's flatten order.
class FullyConnected : public LayerPrim {
 public:
  explicit FullyConnected(const PrimitiveArgs& a) : LayerPrim(a) {
    const Layer& l = *a.layer;
    const Shape& s = a.in_shapes[0];
    const int O = l.out_channels;
    const int64_t F = int64_t(s.c) * s.h * s.w;
    wt_.resize(size_t(F) * O);
    for (int o = 0; o < O; ++o)
      for (int c = 0; c < s.c; ++c)
        for (int64_t hw = 0; hw < int64_t(s.h) * s.w; ++hw) {
          int64_t src = int64_t(c) * s.h * s.w + hw;            // NCHW flatten order
          int64_t dst = nhwc_ ? hw * s.c + c : src;             // this layout's order
          wt_[dst * O + o] = l.weights[o * F + src];
        }
    bias_.assign(O, 0.f);
    if (!l.bias.empty()) bias_ = l.bias;
    weight_bytes_ = (wt_.size() + bias_.size()) * sizeof(float);
  }
  Status run() override {
    const Shape& s = in_[0];
    const int O = layer_.out_channels, F = s.c * s.h * s.w;
    native_gemm(threads_, s.n, O, F, x_[0], F, wt_.data(), O, y_, O, false);
    bias_act_cols(1, y_, s.n, O, O, bias_.data(), layer_.fused_activation);
    return Status::ok();
  }

 private:
  std::vector<float> wt_, bias_;
};

class Flatten : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  Status run() override {
    const Shape& s = in_[0];
    const int64_t hw = int64_t(s.h) * s.w, per = int64_t(s.c) * hw;
    if (!nhwc_ || hw == 1) {
      std::memcpy(y_, x_[0], sizeof(float) * per * s.n);
      return Status::ok();
    }
    for (int n = 0; n < s.n; ++n)
      for (int c = 0; c < s.c; ++c)
        for (int64_t p = 0; p < hw; ++p) y_[n * per + c * hw + p] = x_[0][n * per + p * s.c + c];
    return Status::ok();
  }
};

class Softmax : public LayerPrim {
 public:
  using LayerPrim::LayerPrim;
  Status run() override {
    const Shape& s = in_[0];
    const int64_t hw = int64_t(s.h) * s.w;
    const int64_t cs = nhwc_ ? 1 : hw;
    for (int n = 0; n < s.n; ++n)
      for (int64_t p = 0; p < hw; ++p) {
        const int64_t base = n * s.c * hw + (nhwc_ ? p * s.c : p);
        const float* x = x_[0] + base;
        float* y = y_ + base;
        float mx = -std::numeric_limits<float>::infinity();
        for (int c = 0; c < s.c; ++c) mx = std::max(mx, x[c * cs]);
        double sum = 0;
        for (int c = 0; c < s.c; ++c) sum += (y[c * cs] = std::exp(x[c * cs] - mx));
        const float inv = float(1.0 / sum);
        for (int c = 0; c < s.c; ++c) y[c * cs] *= inv;
      }
    return Status::ok();
  }
};

}  // namespace

Status supports_layer(const ImplDesc& d, const Layer& l, const std::vector<Shape>& in) {
  if (d.dtype_in != DType::kF32 || d.dtype_out != DType::kF32) return unsupported("f32 only");
  if (d.layout_in != d.layout_out) return unsupported("input and output layouts must match");
  if ((l.kind == LayerKind::kFullyConnected || l.kind == LayerKind::kAffine || l.kind == LayerKind::kLayerNorm) &&
      int64_t(l.weights.size()) != weight_count(l, in))
    return invalid_argument("weights missing or of the wrong size");
  Shape out;
  return infer_layer_shape(l, in, &out);
}

void register_layer_kind(Registry& r, LayerKind kind, CreateFn create, std::initializer_list<Layout> layouts) {
  for (Layout layout : layouts)
    for (int t : kThreadSets) {
      ImplDesc d;
      d.op = kind;
      d.library = Library::kNative;
      d.algorithm = Algorithm::kDefault;
      d.layout_in = d.layout_out = layout;
      d.threads = t;
      r.add({d, supports_layer, create});
    }
}

void register_layers(Registry& r) {
  const KindFactory kinds[] = {
      {LayerKind::kRelu, make<Eltwise>},          {LayerKind::kRelu6, make<Eltwise>},
      {LayerKind::kHardSwish, make<Eltwise>},     {LayerKind::kHardSigmoid, make<Eltwise>},
      {LayerKind::kSigmoid, make<Eltwise>},       {LayerKind::kGelu, make<Gelu>},
      {LayerKind::kAdd, make<Eltwise>},
      {LayerKind::kMul, make<Eltwise>},           {LayerKind::kConcat, make<Concat>},
      {LayerKind::kMaxPool, make<Pool>},          {LayerKind::kAvgPool, make<Pool>},
      {LayerKind::kGlobalAvgPool, make<Pool>},    {LayerKind::kFullyConnected, make<FullyConnected>},
      {LayerKind::kFlatten, make<Flatten>},       {LayerKind::kSoftmax, make<Softmax>},
  };
  for (const KindFactory& k : kinds) register_layer_kind(r, k.kind, k.create);
  register_channel_layers(r);
  register_int8_layers(r);
}

}  // namespace lw::native
