#include "libs/ref/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lw {

float apply_activation(LayerKind kind, float x) {
  switch (kind) {
    case LayerKind::kRelu: return std::max(x, 0.f);
    case LayerKind::kRelu6: return std::min(std::max(x, 0.f), 6.f);
    case LayerKind::kHardSwish: return x * std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f;
    case LayerKind::kHardSigmoid: return std::min(std::max(x + 3.f, 0.f), 6.f) / 6.f;
    case LayerKind::kSigmoid: return 1.f / (1.f + std::exp(-x));
    case LayerKind::kGelu: return gelu_exact(x);
    default: return x;
  }
}

namespace {

// The textbook sum y[n,oc,oh,ow] = b[oc] + sum_{ic,kh,kw} w * x[n, g*cin_g+ic, ih, iw], in double,
// with the loops reordered (ic, kh, kw outside, the output plane inside) so the innermost loop
// walks one input row; padding is still "skip taps outside the input", only the range of ow
// whose tap lands inside the row is found before the loop instead of tested in it.
void conv2d(const Layer& l, const Tensor& x_any, Tensor& y) {
  const Tensor x = x_any.layout() == Layout::kNCHW ? x_any : to_layout(x_any, Layout::kNCHW);
  const Shape &is = x.shape(), &os = y.shape();
  const Window& w = l.window;
  int cin_g = is.c / l.groups, cout_g = os.c / l.groups;
  std::vector<double> acc(size_t(os.h) * os.w);
  for (int n = 0; n < os.n; ++n)
    for (int oc = 0; oc < os.c; ++oc) {
      int g = oc / cout_g;
      std::fill(acc.begin(), acc.end(), l.bias.empty() ? 0.0 : double(l.bias[oc]));
      for (int ic = 0; ic < cin_g; ++ic) {
        const float* plane = x.f32() + (int64_t(n) * is.c + g * cin_g + ic) * is.h * is.w;
        for (int kh = 0; kh < w.kh; ++kh)
          for (int kw = 0; kw < w.kw; ++kw) {
            double wt = l.weights[((int64_t(oc) * cin_g + ic) * w.kh + kh) * w.kw + kw];
            int ow_lo = 0, ow_hi = os.w;  // [ow_lo, ow_hi): iw = ow * stride - pad + kw * dil inside the row
            while (ow_lo < os.w && ow_lo * w.stride_w - w.pad_left + kw * w.dil_w < 0) ++ow_lo;
            while (ow_hi > ow_lo && (ow_hi - 1) * w.stride_w - w.pad_left + kw * w.dil_w >= is.w) --ow_hi;
            for (int oh = 0; oh < os.h; ++oh) {
              int ih = oh * w.stride_h - w.pad_top + kh * w.dil_h;
              if (ih < 0 || ih >= is.h) continue;
              const float* row = plane + int64_t(ih) * is.w;
              const int shift = kw * w.dil_w - w.pad_left;
              double* out = acc.data() + int64_t(oh) * os.w;
              for (int ow = ow_lo; ow < ow_hi; ++ow) out[ow] += wt * row[ow * w.stride_w + shift];
            }
          }
      }
      for (int oh = 0; oh < os.h; ++oh)
        for (int ow = 0; ow < os.w; ++ow)
          y.f32()[y.offset(n, oc, oh, ow)] = apply_activation(l.fused_activation, float(acc[int64_t(oh) * os.w + ow]));
    }
}

void pool(const Layer& l, const Tensor& x, Tensor& y) {
  const Shape &is = x.shape(), &os = y.shape();
  const Window& w = l.window;
  bool is_max = l.kind == LayerKind::kMaxPool;
  for (int n = 0; n < os.n; ++n)
    for (int c = 0; c < os.c; ++c)
      for (int oh = 0; oh < os.h; ++oh)
        for (int ow = 0; ow < os.w; ++ow) {
          int h0 = oh * w.stride_h - w.pad_top, w0 = ow * w.stride_w - w.pad_left;
          // PyTorch's divisor: the window clipped to the padded input (count_include_pad),
          // or to the real input otherwise.
          int hend = std::min(h0 + w.kh, is.h + w.pad_bottom), wend = std::min(w0 + w.kw, is.w + w.pad_right);
          int padded = (hend - h0) * (wend - w0);
          double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
          int count = 0;
          for (int ih = std::max(h0, 0); ih < std::min(h0 + w.kh, is.h); ++ih)
            for (int iw = std::max(w0, 0); iw < std::min(w0 + w.kw, is.w); ++iw) {
              float v = x.f32()[x.offset(n, c, ih, iw)];
              acc = is_max ? std::max(acc, double(v)) : acc + v;
              ++count;
            }
          if (!is_max) acc /= (l.count_include_pad ? padded : std::max(count, 1));
          y.f32()[y.offset(n, c, oh, ow)] = float(acc);
        }
}

void fully_connected(const Layer& l, const Tensor& x, Tensor& y) {
  const Shape& is = x.shape();
  int64_t in_features = int64_t(is.c) * is.h * is.w;
  for (int n = 0; n < is.n; ++n)
    for (int o = 0; o < l.out_channels; ++o) {
      double acc = l.bias.empty() ? 0.0 : l.bias[o];
      // Features in NCHW flatten order, whatever the tensor's layout.
      int64_t k = 0;
      for (int c = 0; c < is.c; ++c)
        for (int h = 0; h < is.h; ++h)
          for (int w = 0; w < is.w; ++w, ++k) acc += double(l.weights[o * in_features + k]) * x.f32()[x.offset(n, c, h, w)];
      y.f32()[y.offset(n, o, 0, 0)] = apply_activation(l.fused_activation, float(acc));
    }
}

template <typename F>
void each(const Tensor& x, F f) {
  const Shape& s = x.shape();
  for (int n = 0; n < s.n; ++n)
    for (int c = 0; c < s.c; ++c)
      for (int h = 0; h < s.h; ++h)
        for (int w = 0; w < s.w; ++w) f(n, c, h, w);
}

void elementwise(const Layer& l, const std::vector<const Tensor*>& in, Tensor& y) {
  const Tensor& a = *in[0];
  each(a, [&](int n, int c, int h, int w) {
    float v = a.f32()[a.offset(n, c, h, w)];
    if (l.kind == LayerKind::kAdd) v += in[1]->f32()[in[1]->offset(n, c, h, w)];
    if (l.kind == LayerKind::kMul) {
      const Tensor& b = *in[1];
      bool scale = b.shape().h == 1 && b.shape().w == 1;
      v *= b.f32()[b.offset(n, c, scale ? 0 : h, scale ? 0 : w)];
    }
    if (l.kind == LayerKind::kAffine) v = v * l.weights[c] + l.weights[a.shape().c + c];
    if (l.kind == LayerKind::kBatchNorm) {
      int C = a.shape().c;
      const auto& p = l.weights;
      v = (v - p[2 * C + c]) / std::sqrt(p[3 * C + c] + l.eps) * p[c] + p[C + c];
    }
    const bool own = is_activation(l.kind) || l.kind == LayerKind::kGelu;
    y.f32()[y.offset(n, c, h, w)] = apply_activation(own ? l.kind : l.fused_activation, v);
  });
}

// Over the channels at each position, in double: (x - mean) / sqrt(var + eps) * scale + shift.
void layer_norm(const Layer& l, const Tensor& x, Tensor& y) {
  const Shape& s = x.shape();
  const auto& p = l.weights;
  for (int n = 0; n < s.n; ++n)
    for (int h = 0; h < s.h; ++h)
      for (int w = 0; w < s.w; ++w) {
        double mean = 0, var = 0;
        for (int c = 0; c < s.c; ++c) mean += x.f32()[x.offset(n, c, h, w)];
        mean /= s.c;
        for (int c = 0; c < s.c; ++c) {
          const double d = x.f32()[x.offset(n, c, h, w)] - mean;
          var += d * d;
        }
        const double inv = 1 / std::sqrt(var / s.c + l.eps);
        for (int c = 0; c < s.c; ++c)
          y.f32()[y.offset(n, c, h, w)] = float((x.f32()[x.offset(n, c, h, w)] - mean) * inv * p[c] + p[s.c + c]);
      }
}

void concat(const std::vector<const Tensor*>& in, Tensor& y) {
  int base = 0;
  for (const Tensor* t : in) {
    each(*t, [&](int n, int c, int h, int w) { y.f32()[y.offset(n, base + c, h, w)] = t->f32()[t->offset(n, c, h, w)]; });
    base += t->shape().c;
  }
}

void softmax(const Tensor& x, Tensor& y) {
  const Shape& s = x.shape();
  for (int n = 0; n < s.n; ++n)
    for (int h = 0; h < s.h; ++h)
      for (int w = 0; w < s.w; ++w) {
        double mx = -std::numeric_limits<double>::infinity(), sum = 0;
        for (int c = 0; c < s.c; ++c) mx = std::max(mx, double(x.f32()[x.offset(n, c, h, w)]));
        for (int c = 0; c < s.c; ++c) sum += std::exp(x.f32()[x.offset(n, c, h, w)] - mx);
        for (int c = 0; c < s.c; ++c)
          y.f32()[y.offset(n, c, h, w)] = float(std::exp(x.f32()[x.offset(n, c, h, w)] - mx) / sum);
      }
}

}  // namespace

Status reference_layer(const Layer& l, const std::vector<const Tensor*>& in, Tensor* out) {
  std::vector<Shape> shapes;
  for (const Tensor* t : in) {
    if (t->dtype() != DType::kF32) return invalid_argument("reference: layer '" + l.name + "' needs f32 inputs");
    shapes.push_back(t->shape());
  }
  Shape os;
  LW_RETURN_IF_ERROR(infer_layer_shape(l, shapes, &os));
  Tensor y = Tensor::create(os, DType::kF32, Layout::kNCHW);
  switch (l.kind) {
    case LayerKind::kInput: return invalid_argument("reference: input layers are not executed");
    case LayerKind::kConv2d: conv2d(l, *in[0], y); break;
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool: pool(l, *in[0], y); break;
    case LayerKind::kGlobalAvgPool: {
      Layer g = l;
      g.window = Window{};
      g.window.kh = in[0]->shape().h;
      g.window.kw = in[0]->shape().w;
      pool(g, *in[0], y);
      break;
    }
    case LayerKind::kFullyConnected: fully_connected(l, *in[0], y); break;
    case LayerKind::kFlatten: {
      int64_t k = 0;
      each(*in[0], [&](int n, int c, int h, int w) { y.f32()[k++] = in[0]->f32()[in[0]->offset(n, c, h, w)]; });
      break;
    }
    case LayerKind::kConcat: concat(in, y); break;
    case LayerKind::kChannelShuffle: {
      // ONNX / PyTorch: view as [g][C/g], transpose: output channel j*g + i is input i*(C/g) + j.
      const int g = l.groups, per = in[0]->shape().c / g;
      each(*in[0], [&](int n, int c, int h, int w) {
        y.f32()[y.offset(n, (c % per) * g + c / per, h, w)] = in[0]->f32()[in[0]->offset(n, c, h, w)];
      });
      break;
    }
    case LayerKind::kChannelSlice:
      each(y, [&](int n, int c, int h, int w) {
        y.f32()[y.offset(n, c, h, w)] = in[0]->f32()[in[0]->offset(n, l.channel_begin + c, h, w)];
      });
      break;
    case LayerKind::kSoftmax: softmax(*in[0], y); break;
    case LayerKind::kLayerNorm: layer_norm(l, *in[0], y); break;
    default: elementwise(l, in, y); break;
  }
  *out = std::move(y);
  return Status::ok();
}

Status reference_forward(const Network& net, const Tensor& input, std::vector<Tensor>* outputs) {
  LW_RETURN_IF_ERROR(check_weights(net));
  if (input.shape() != net.input_shape())
    return invalid_argument("reference: input shape " + input.shape().to_string() + " but network '" + net.name +
                            "' expects " + net.input_shape().to_string());
  outputs->assign(net.layers.size(), Tensor());
  (*outputs)[0] = to_layout(input, Layout::kNCHW);
  for (size_t i = 1; i < net.layers.size(); ++i) {
    std::vector<const Tensor*> in;
    for (int p : net.layers[i].inputs) in.push_back(&(*outputs)[p]);
    LW_RETURN_IF_ERROR(reference_layer(net.layers[i], in, &(*outputs)[i]));
  }
  return Status::ok();
}

}  // namespace lw

