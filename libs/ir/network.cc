#include "libs/ir/network.h"

#include <cmath>
#include <random>

namespace lw {

namespace {
struct KindInfo {
  LayerKind kind;
  const char* name;
  int min_inputs, max_inputs;
};
constexpr KindInfo kKinds[] = {
#define X(e, s, lo, hi) {LayerKind::e, s, lo, hi},
#include "libs/ir/layer_kind.inc"
#undef X
};
const KindInfo& info(LayerKind k) { return kKinds[static_cast<int>(k)]; }

std::string where(const Layer& l) { return "layer '" + l.name + "' (" + to_string(l.kind) + "): "; }

// Output extent of a sliding window; PyTorch's rule, including ceil mode's
// "the last window must start inside the input or left padding".
int window_extent(int in, int k, int stride, int pad_lo, int pad_hi, int dil, bool ceil_mode) {
  int span = in + pad_lo + pad_hi - dil * (k - 1) - 1;
  if (span < 0) return 0;
  int out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_lo) --out;
  return out;
}

Status window_shape(const Layer& l, const Shape& in, int out_c, Shape* out) {
  const Window& w = l.window;
  if (w.kh < 1 || w.kw < 1 || w.stride_h < 1 || w.stride_w < 1 || w.dil_h < 1 || w.dil_w < 1)
    return invalid_argument(where(l) + "kernel, stride and dilation must be >= 1");
  if (w.pad_top < 0 || w.pad_left < 0 || w.pad_bottom < 0 || w.pad_right < 0)
    return invalid_argument(where(l) + "padding must be >= 0");
  int oh = window_extent(in.h, w.kh, w.stride_h, w.pad_top, w.pad_bottom, w.dil_h, w.ceil_mode);
  int ow = window_extent(in.w, w.kw, w.stride_w, w.pad_left, w.pad_right, w.dil_w, w.ceil_mode);
  if (oh < 1 || ow < 1)
    return invalid_argument(where(l) + "window larger than padded input " + in.to_string());
  *out = Shape{in.n, out_c, oh, ow};
  return Status::ok();
}

// Mul: both inputs of one shape, or (squeeze-excite) the second a per-channel scale, N x C x 1 x 1.
Status mul_shape(const Layer& l, const std::vector<Shape>& in, Shape* out) {
  const bool scale = in[1].n == in[0].n && in[1].c == in[0].c && in[1].h == 1 && in[1].w == 1;
  if (in[0] != in[1] && !scale)
    return invalid_argument(where(l) + "second input must match " + in[0].to_string() + " or be " +
                            std::to_string(in[0].n) + "x" + std::to_string(in[0].c) + "x1x1, got " + in[1].to_string());
  *out = in[0];
  return Status::ok();
}

// Concat along channels: every input of the first one's batch and spatial size.
Status concat_shape(const Layer& l, const std::vector<Shape>& in, Shape* out) {
  Shape s = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].n != s.n || in[i].h != s.h || in[i].w != s.w)
      return invalid_argument(where(l) + "concat inputs differ outside channels: " + in[0].to_string() + " vs " +
                              in[i].to_string());
    s.c += in[i].c;
  }
  *out = s;
  return Status::ok();
}

}  // namespace

const char* to_string(LayerKind k) { return info(k).name; }

std::optional<LayerKind> parse_layer_kind(const std::string& s) {
  for (const auto& k : kKinds)
    if (s == k.name) return k.kind;
  return std::nullopt;
}

bool is_activation(LayerKind k) {
  return k == LayerKind::kRelu || k == LayerKind::kRelu6 || k == LayerKind::kHardSwish ||
         k == LayerKind::kHardSigmoid || k == LayerKind::kSigmoid;
}

bool conv_can_absorb(LayerKind k) { return is_activation(k) || k == LayerKind::kGelu; }

float gelu_exact(float x) { return float(0.5 * x * (1 + std::erf(x * M_SQRT1_2))); }

int Network::find(const std::string& layer_name) const {
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == layer_name) return int(i);
  return -1;
}

std::vector<std::vector<int>> Network::consumers() const {
  std::vector<std::vector<int>> out(layers.size());
  for (size_t i = 0; i < layers.size(); ++i)
    for (int p : layers[i].inputs) out[p].push_back(int(i));
  return out;
}

Status infer_layer_shape(const Layer& l, const std::vector<Shape>& in, Shape* out) {
  switch (l.kind) {
    case LayerKind::kInput:
      if (l.out.c < 1 || l.out.h < 1 || l.out.w < 1 || l.out.n < 1)
        return invalid_argument(where(l) + "input shape must be positive");
      *out = l.out;
      return Status::ok();
    case LayerKind::kConv2d:
      if (l.out_channels < 1 || l.groups < 1) return invalid_argument(where(l) + "out_channels and groups must be >= 1");
      if (in[0].c % l.groups || l.out_channels % l.groups)
        return invalid_argument(where(l) + "groups " + std::to_string(l.groups) + " must divide input channels " +
                                std::to_string(in[0].c) + " and out_channels " + std::to_string(l.out_channels));
      return window_shape(l, in[0], l.out_channels, out);
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool:
      return window_shape(l, in[0], in[0].c, out);
    case LayerKind::kGlobalAvgPool:
      *out = Shape{in[0].n, in[0].c, 1, 1};
      return Status::ok();
    case LayerKind::kFullyConnected:
      if (l.out_channels < 1) return invalid_argument(where(l) + "out_channels must be >= 1");
      *out = Shape{in[0].n, l.out_channels, 1, 1};
      return Status::ok();
    case LayerKind::kFlatten:
      *out = Shape{in[0].n, in[0].c * in[0].h * in[0].w, 1, 1};
      return Status::ok();
    case LayerKind::kAdd:
      if (in[0] != in[1])
        return invalid_argument(where(l) + "input shapes differ: " + in[0].to_string() + " vs " + in[1].to_string());
      *out = in[0];
      return Status::ok();
    case LayerKind::kMul:
      return mul_shape(l, in, out);
    case LayerKind::kChannelShuffle:
      if (l.groups < 1 || in[0].c % l.groups)
        return invalid_argument(where(l) + "groups " + std::to_string(l.groups) + " must divide channels " +
                                std::to_string(in[0].c));
      *out = in[0];
      return Status::ok();
    case LayerKind::kChannelSlice:
      if (l.channel_begin < 0 || l.out_channels < 1 || l.channel_begin + l.out_channels > in[0].c)
        return invalid_argument(where(l) + "channels [" + std::to_string(l.channel_begin) + ", " +
                                std::to_string(l.channel_begin + l.out_channels) + ") outside input " +
                                in[0].to_string());
      *out = Shape{in[0].n, l.out_channels, in[0].h, in[0].w};
      return Status::ok();
    case LayerKind::kConcat:
      return concat_shape(l, in, out);
    default:  // batch-norm, activations, softmax keep the shape
      *out = in[0];
      return Status::ok();
  }
}

Status infer_shapes(Network& net) {
  if (net.layers.empty() || net.layers[0].kind != LayerKind::kInput)
    return invalid_argument("network '" + net.name + "': the first layer must be the input");
  for (size_t i = 0; i < net.layers.size(); ++i) {
    Layer& l = net.layers[i];
    const KindInfo& k = info(l.kind);
    int n = int(l.inputs.size());
    if (n < k.min_inputs || (k.max_inputs >= 0 && n > k.max_inputs))
      return invalid_argument(where(l) + "takes " + std::to_string(k.min_inputs) +
                              (k.max_inputs == k.min_inputs ? "" : ".." + (k.max_inputs < 0 ? std::string("n") : std::to_string(k.max_inputs))) +
                              " inputs, got " + std::to_string(n));
    if (i > 0 && l.kind == LayerKind::kInput) return invalid_argument(where(l) + "only the first layer may be an input");
    std::vector<Shape> in;
    for (int p : l.inputs) {
      if (p < 0 || p >= int(i))
        return invalid_argument(where(l) + "input index " + std::to_string(p) + " is not an earlier layer (cycle or unknown)");
      in.push_back(net.layers[p].out);
    }
    LW_RETURN_IF_ERROR(infer_layer_shape(l, in, &l.out));
  }
  return Status::ok();
}

int64_t weight_count(const Layer& l, const std::vector<Shape>& in) {
  switch (l.kind) {
    case LayerKind::kConv2d:
      return int64_t(l.out_channels) * (in[0].c / l.groups) * l.window.kh * l.window.kw;
    case LayerKind::kFullyConnected:
      return int64_t(l.out_channels) * in[0].c * in[0].h * in[0].w;
    case LayerKind::kBatchNorm:
      return 4 * int64_t(in[0].c);
    case LayerKind::kAffine:
    case LayerKind::kLayerNorm:
      return 2 * int64_t(in[0].c);
    default:
      return 0;
  }
}

int64_t bias_count(const Layer& l) {
  bool has = (l.kind == LayerKind::kConv2d || l.kind == LayerKind::kFullyConnected) && l.has_bias;
  return has ? l.out_channels : 0;
}

std::vector<Shape> input_shapes(const Network& net, int i) {
  std::vector<Shape> in;
  for (int p : net.layers[i].inputs) in.push_back(net.layers[p].out);
  return in;
}

int64_t layer_params(const Network& net, int i) {
  const Layer& l = net.layers[i];
  // BatchNorm's learnable parameters are gamma and beta; running statistics are buffers.
  if (l.kind == LayerKind::kBatchNorm) return 2 * int64_t(l.out.c);
  return weight_count(l, input_shapes(net, i)) + bias_count(l);
}

int64_t layer_macs(const Network& net, int i) {
  const Layer& l = net.layers[i];
  if (l.kind == LayerKind::kConv2d || l.kind == LayerKind::kFullyConnected)
    return weight_count(l, input_shapes(net, i)) / l.out_channels * l.out.elements();
  return 0;
}

int64_t total_params(const Network& net) {
  int64_t s = 0;
  for (size_t i = 0; i < net.layers.size(); ++i) s += layer_params(net, int(i));
  return s;
}

int64_t total_macs(const Network& net) {
  int64_t s = 0;
  for (size_t i = 0; i < net.layers.size(); ++i) s += layer_macs(net, int(i));
  return s;
}

void init_random_weights(Network& net, uint64_t seed) {
  net.random_weights = true;
  std::mt19937_64 rng(seed);
  // Our own uniform from raw bits: std distributions differ between standard libraries.
  auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * float((rng() >> 11) * (1.0 / 9007199254740992.0)); };
  for (size_t i = 0; i < net.layers.size(); ++i) {
    Layer& l = net.layers[i];
    auto in = input_shapes(net, int(i));
    int64_t nw = weight_count(l, in);
    l.weights.resize(nw);
    l.bias.resize(bias_count(l));
    if (l.kind == LayerKind::kBatchNorm) {
      int c = l.out.c;
      for (int j = 0; j < c; ++j) {
        l.weights[j] = uniform(0.8f, 1.2f);          // gamma
        l.weights[c + j] = uniform(-0.1f, 0.1f);     // beta
        l.weights[2 * c + j] = uniform(-0.1f, 0.1f); // running mean
        l.weights[3 * c + j] = uniform(0.8f, 1.2f);  // running var
      }
      continue;
    }
    if (l.kind == LayerKind::kAffine || l.kind == LayerKind::kLayerNorm) {  // scale, shift
      for (int j = 0; j < l.out.c; ++j) {
        l.weights[j] = uniform(0.8f, 1.2f);
        l.weights[l.out.c + j] = uniform(-0.1f, 0.1f);
      }
      continue;
    }
    if (nw == 0) continue;
    float fan_in = float(nw / l.out_channels);
    float bound = std::sqrt(6.f / fan_in);  // He-uniform keeps ReLU activations O(1)
    for (auto& w : l.weights) w = uniform(-bound, bound);
    for (auto& b : l.bias) b = uniform(-0.1f, 0.1f);
  }
}

Status check_weights(const Network& net) {
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    int64_t want = weight_count(l, input_shapes(net, int(i)));
    if (int64_t(l.weights.size()) != want || int64_t(l.bias.size()) != bias_count(l))
      return invalid_argument(where(l) + "expects " + std::to_string(want) + " weights and " +
                              std::to_string(bias_count(l)) + " biases, has " + std::to_string(l.weights.size()) +
                              " and " + std::to_string(l.bias.size()));
  }
  return Status::ok();
}

namespace {
// A per-channel y = (x + pre) * scale + post: a BatchNorm's inference form (pre = -mean,
// scale = gamma / sqrt(var + eps), post = beta) or an affine layer's (pre = 0). Kept in this
// form so that a folded BatchNorm rounds as it always has.
struct ScaleShift {
  std::vector<float> pre, scale, post;
};

ScaleShift scale_shift_of(const Layer& l) {
  const int c = l.out.c;
  ScaleShift f{std::vector<float>(c, 0.f), std::vector<float>(c), std::vector<float>(c)};
  for (int j = 0; j < c; ++j) {
    if (l.kind == LayerKind::kAffine) {
      f.scale[j] = l.weights[j];
      f.post[j] = l.weights[c + j];
      continue;
    }
    f.pre[j] = -l.weights[2 * c + j];
    f.scale[j] = l.weights[j] / std::sqrt(l.weights[3 * c + j] + l.eps);
    f.post[j] = l.weights[c + j];
  }
  return f;
}

// What a scale and shift folds into: a conv2d / fully-connected (weights and bias) or a
// layer-norm (its own scale and shift) that feeds nothing else and applies no activation.
bool absorbs_scale_shift(const Layer& producer, size_t consumers) {
  const LayerKind k = producer.kind;
  const bool linear = k == LayerKind::kConv2d || k == LayerKind::kFullyConnected || k == LayerKind::kLayerNorm;
  return linear && consumers == 1 && producer.fused_activation == LayerKind::kInput;
}

void absorb(const ScaleShift& f, Layer* p) {
  const int c = int(f.scale.size());
  if (p->kind == LayerKind::kLayerNorm) {
    for (int j = 0; j < c; ++j) {
      p->weights[j] *= f.scale[j];
      p->weights[c + j] = (p->weights[c + j] + f.pre[j]) * f.scale[j] + f.post[j];
    }
    return;
  }
  const int64_t per = int64_t(p->weights.size()) / c;
  if (p->bias.empty()) p->bias.assign(c, 0.f);
  p->has_bias = true;
  for (int j = 0; j < c; ++j) {
    for (int64_t k = 0; k < per; ++k) p->weights[j * per + k] *= f.scale[j];
    p->bias[j] = (p->bias[j] + f.pre[j]) * f.scale[j] + f.post[j];
  }
}

// One that cannot be folded stays an affine layer: y = x * scale + (pre * scale + post).
Layer affine_layer(const Layer& l, const ScaleShift& f, int input) {
  Layer a;
  a.name = l.name;
  a.kind = LayerKind::kAffine;
  a.inputs = {input};
  const size_t c = f.scale.size();
  a.weights.resize(2 * c);
  for (size_t j = 0; j < c; ++j) {
    a.weights[j] = f.scale[j];
    a.weights[c + j] = f.post[j] + f.pre[j] * f.scale[j];
  }
  return a;
}
}  // namespace

Status fold_affine(const Network& in, Network* out) {
  LW_RETURN_IF_ERROR(check_weights(in));
  auto consumers = in.consumers();
  std::vector<int> remap(in.layers.size(), -1);
  Network net;
  net.name = in.name;
  net.random_weights = in.random_weights;
  for (size_t i = 0; i < in.layers.size(); ++i) {
    const Layer& l = in.layers[i];
    if (l.kind == LayerKind::kBatchNorm || l.kind == LayerKind::kAffine) {
      const int p = l.inputs[0];
      const ScaleShift f = scale_shift_of(l);
      // The producer as folded so far: a bias add and a scale after the same conv both fold.
      if (absorbs_scale_shift(net.layers[remap[p]], consumers[p].size())) {
        absorb(f, &net.layers[remap[p]]);
        remap[i] = remap[p];
        continue;
      }
      net.layers.push_back(affine_layer(l, f, remap[p]));
      remap[i] = int(net.layers.size()) - 1;
      continue;
    }
    Layer copy = l;
    for (int& p : copy.inputs) p = remap[p];
    remap[i] = int(net.layers.size());
    net.layers.push_back(std::move(copy));
  }
  LW_RETURN_IF_ERROR(infer_shapes(net));
  *out = std::move(net);
  return Status::ok();
}

}  // namespace lw
