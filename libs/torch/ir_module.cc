#include "libs/torch/ir_module.h"

#include <cstring>
#include <limits>
#include <string>

namespace lw::ir_torch {
namespace {

// torch.nn.BatchNorm2d's default, so running statistics mean what PyTorch users expect.
constexpr double kBatchNormMomentum = 0.1;

std::string where(const Layer& l) { return "torch: layer '" + l.name + "' (" + to_string(l.kind) + "): "; }

at::Tensor copy_of(const std::vector<float>& v, at::IntArrayRef sizes) {
  at::Tensor t = at::empty(sizes, at::kFloat);
  if (!v.empty()) std::memcpy(t.data_ptr<float>(), v.data(), v.size() * sizeof(float));
  return t;
}

void copy_into(const at::Tensor& t, float* dst, int64_t n) {
  at::Tensor c = t.detach().contiguous();
  std::memcpy(dst, c.data_ptr<float>(), size_t(n) * sizeof(float));
}

at::Tensor activation(LayerKind kind, const at::Tensor& x) {
  switch (kind) {
    case LayerKind::kRelu: return at::relu(x);
    case LayerKind::kRelu6: return at::hardtanh(x, 0.0, 6.0);
    case LayerKind::kHardSwish: return at::hardswish(x);
    case LayerKind::kHardSigmoid: return at::hardsigmoid(x);
    case LayerKind::kSigmoid: return at::sigmoid(x);
    default: return x;
  }
}

bool symmetric(const Window& w) { return w.pad_top == w.pad_bottom && w.pad_left == w.pad_right; }

at::Tensor conv2d(const Layer& l, const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const Window& w = l.window;
  at::Tensor in = x;
  int64_t ph = w.pad_top, pw = w.pad_left;
  // LibTorch's conv only pads symmetrically; asymmetric padding (TF "same") is explicit zeros.
  if (!symmetric(w)) {
    in = at::constant_pad_nd(x, {w.pad_left, w.pad_right, w.pad_top, w.pad_bottom}, 0.0);
    ph = pw = 0;
  }
  return at::conv2d(in, weight, bias, {w.stride_h, w.stride_w}, {ph, pw}, {w.dil_h, w.dil_w}, l.groups);
}

Status pool(const Layer& l, const at::Tensor& x, at::Tensor* y) {
  const Window& w = l.window;
  bool is_max = l.kind == LayerKind::kMaxPool;
  at::Tensor in = x;
  int64_t ph = w.pad_top, pw = w.pad_left;
  if (!symmetric(w)) {
    // Explicit padding changes ceil mode's "last window starts inside" rule and the
    // divisor of count_include_pad=false, so those combinations have no exact equivalent.
    if (w.ceil_mode || (!is_max && !l.count_include_pad))
      return unsupported(where(l) + "asymmetric padding with ceil_mode or count_include_pad=false");
    double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    in = at::constant_pad_nd(x, {w.pad_left, w.pad_right, w.pad_top, w.pad_bottom}, fill);
    ph = pw = 0;
  }
  if (is_max)
    *y = at::max_pool2d(in, {w.kh, w.kw}, {w.stride_h, w.stride_w}, {ph, pw}, {w.dil_h, w.dil_w}, w.ceil_mode);
  else
    *y = at::avg_pool2d(in, {w.kh, w.kw}, {w.stride_h, w.stride_w}, {ph, pw}, w.ceil_mode, l.count_include_pad);
  return Status::ok();
}

}  // namespace

at::Tensor to_aten(const Tensor& t) {
  LW_CHECK(t.dtype() == DType::kF32);
  Tensor nchw = t.layout() == Layout::kNCHW ? t : to_layout(t, Layout::kNCHW);
  const Shape& s = nchw.shape();
  at::Tensor a = at::empty({s.n, s.c, s.h, s.w}, at::kFloat);
  std::memcpy(a.data_ptr<float>(), nchw.f32(), nchw.bytes());
  return a;
}

Status from_aten(const at::Tensor& t, Tensor* out) {
  if (t.scalar_type() != at::kFloat) return invalid_argument("torch: expected an f32 tensor");
  Shape s;
  if (t.dim() == 4) s = Shape{int(t.size(0)), int(t.size(1)), int(t.size(2)), int(t.size(3))};
  else if (t.dim() == 2) s = Shape{int(t.size(0)), int(t.size(1)), 1, 1};
  else return invalid_argument("torch: expected a 2-D or 4-D tensor, got " + std::to_string(t.dim()) + "-D");
  Tensor y = Tensor::create(s);
  copy_into(t, y.f32(), s.elements());
  *out = std::move(y);
  return Status::ok();
}

Status IrModule::create(const Network& net, IrModule* out) {
  LW_RETURN_IF_ERROR(check_weights(net));
  IrModule m;
  m.net_ = net;
  m.tensors_.resize(net.layers.size());
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    Tensors& t = m.tensors_[i];
    int64_t oc = l.out_channels;
    if (l.kind == LayerKind::kConv2d) {
      int64_t ic = input_shapes(net, int(i))[0].c / l.groups;
      t.weight = copy_of(l.weights, {oc, ic, l.window.kh, l.window.kw}).set_requires_grad(true);
    } else if (l.kind == LayerKind::kFullyConnected) {
      t.weight = copy_of(l.weights, {oc, int64_t(l.weights.size()) / oc}).set_requires_grad(true);
    } else if (l.kind == LayerKind::kBatchNorm) {
      int64_t c = l.out.c;
      at::Tensor p = copy_of(l.weights, {4, c});
      t.weight = p[0].clone().set_requires_grad(true);
      t.bias = p[1].clone().set_requires_grad(true);
      t.running_mean = p[2].clone();
      t.running_var = p[3].clone();
    } else if (l.kind == LayerKind::kAffine || l.kind == LayerKind::kLayerNorm) {
      at::Tensor p = copy_of(l.weights, {2, int64_t(l.weights.size()) / 2});
      t.weight = p[0].clone().set_requires_grad(true);
      t.bias = p[1].clone().set_requires_grad(true);
    }
    if (!l.bias.empty()) t.bias = copy_of(l.bias, {int64_t(l.bias.size())}).set_requires_grad(true);
  }
  *out = std::move(m);
  return Status::ok();
}

Status IrModule::run_layer(size_t i, const std::vector<at::Tensor>& in, bool training, at::Tensor* y) const {
  const Layer& l = net_.layers[i];
  const Tensors& t = tensors_[i];
  switch (l.kind) {
    case LayerKind::kInput: return invalid_argument(where(l) + "input layers are not executed");
    case LayerKind::kConv2d: *y = conv2d(l, in[0], t.weight, t.bias); break;
    case LayerKind::kBatchNorm:
      *y = at::batch_norm(in[0], t.weight, t.bias, t.running_mean, t.running_var, training, kBatchNormMomentum, l.eps,
                          /*cudnn_enabled=*/false);
      break;
    case LayerKind::kMaxPool:
    case LayerKind::kAvgPool: LW_RETURN_IF_ERROR(pool(l, in[0], y)); break;
    case LayerKind::kGlobalAvgPool: *y = at::adaptive_avg_pool2d(in[0], {1, 1}); break;
    case LayerKind::kFullyConnected:
      // Features in NCHW flatten order, as the IR defines them; output kept 4-D.
      *y = at::linear(in[0].flatten(1), t.weight, t.bias).unsqueeze(-1).unsqueeze(-1);
      break;
    case LayerKind::kAdd: *y = at::add(in[0], in[1]); break;
    case LayerKind::kMul: *y = at::mul(in[0], in[1]); break;  // broadcasts an N x C x 1 x 1 scale
    case LayerKind::kConcat: *y = at::cat(in, 1); break;
    case LayerKind::kFlatten: *y = in[0].flatten(1).unsqueeze(-1).unsqueeze(-1); break;
    case LayerKind::kSoftmax: *y = at::softmax(in[0], 1); break;
    case LayerKind::kAffine: *y = in[0] * t.weight.view({1, -1, 1, 1}) + t.bias.view({1, -1, 1, 1}); break;
    case LayerKind::kChannelShuffle: {  // ShuffleNet's own view-transpose-reshape
      const auto s = in[0].sizes();
      *y = in[0].reshape({s[0], l.groups, s[1] / l.groups, s[2], s[3]}).transpose(1, 2).reshape(s);
      break;
    }
    case LayerKind::kChannelSlice: *y = in[0].narrow(1, l.channel_begin, l.out_channels).contiguous(); break;
    case LayerKind::kGelu: *y = at::gelu(in[0]); break;
    case LayerKind::kLayerNorm: {  // ConvNeXt's LayerNorm2d: channels last, normalised, back
      const int64_t c = in[0].size(1);
      *y = at::layer_norm(in[0].permute({0, 2, 3, 1}), {c}, t.weight, t.bias, l.eps).permute({0, 3, 1, 2}).contiguous();
      break;
    }
    default:
      if (!is_activation(l.kind)) return unsupported(where(l) + "no LibTorch mapping");
      *y = activation(l.kind, in[0]);
      return Status::ok();
  }
  if (l.fused_activation != LayerKind::kInput) *y = activation(l.fused_activation, *y);
  return Status::ok();
}

Status IrModule::forward(const at::Tensor& x, bool training, at::Tensor* y, std::vector<at::Tensor>* all) const {
  if (net_.layers.empty()) return invalid_argument("torch: empty network");
  const Shape& s = net_.input_shape();
  if (x.dim() != 4 || x.size(1) != s.c || x.size(2) != s.h || x.size(3) != s.w)
    return invalid_argument("torch: network '" + net_.name + "' expects N x " + std::to_string(s.c) + " x " +
                            std::to_string(s.h) + " x " + std::to_string(s.w) + " input");
  std::vector<at::Tensor> outs(net_.layers.size());
  outs[0] = x;
  try {
    for (size_t i = 1; i < net_.layers.size(); ++i) {
      std::vector<at::Tensor> in;
      for (int p : net_.layers[i].inputs) in.push_back(outs[p]);
      LW_RETURN_IF_ERROR(run_layer(i, in, training, &outs[i]));
    }
  } catch (const c10::Error& e) {
    return failed("torch: network '" + net_.name + "': " + e.what_without_backtrace());
  }
  *y = outs.back();
  if (all) *all = std::move(outs);
  return Status::ok();
}

std::vector<at::Tensor> IrModule::parameters() const {
  std::vector<at::Tensor> p;
  for (const Tensors& t : tensors_)
    for (const at::Tensor* a : {&t.weight, &t.bias})
      if (a->defined() && a->requires_grad()) p.push_back(*a);
  return p;
}

Status IrModule::export_to(Network* net) const {
  if (net->layers.size() != net_.layers.size()) return invalid_argument("torch: export into a different network");
  for (size_t i = 0; i < net_.layers.size(); ++i) {
    Layer& l = net->layers[i];
    const Tensors& t = tensors_[i];
    if (l.kind != net_.layers[i].kind || l.weights.size() != net_.layers[i].weights.size() ||
        l.bias.size() != net_.layers[i].bias.size())
      return invalid_argument(where(l) + "differs from the network the module was made from");
    if (l.kind == LayerKind::kBatchNorm) {
      int64_t c = l.out.c;
      copy_into(t.weight, l.weights.data(), c);
      copy_into(t.bias, l.weights.data() + c, c);
      copy_into(t.running_mean, l.weights.data() + 2 * c, c);
      copy_into(t.running_var, l.weights.data() + 3 * c, c);
      continue;
    }
    if (l.kind == LayerKind::kAffine || l.kind == LayerKind::kLayerNorm) {  // scale, shift in one vector
      const int64_t c = int64_t(l.weights.size()) / 2;
      copy_into(t.weight, l.weights.data(), c);
      copy_into(t.bias, l.weights.data() + c, c);
      continue;
    }
    if (t.weight.defined()) copy_into(t.weight, l.weights.data(), int64_t(l.weights.size()));
    if (t.bias.defined()) copy_into(t.bias, l.bias.data(), int64_t(l.bias.size()));
  }
  return Status::ok();
}

Status torch_layer(const Layer& layer, const std::vector<const Tensor*>& in, Tensor* out) {
  // A one-layer network whose inputs are the given tensors, so the layer runs exactly as in
  // a whole network.
  Network net;
  net.name = "torch_layer";
  std::vector<at::Tensor> xs;
  for (size_t k = 0; k < in.size(); ++k) {
    Layer src;
    src.name = "in" + std::to_string(k);
    src.out = in[k]->shape();
    if (k > 0) src.kind = LayerKind::kInput;
    net.layers.push_back(src);
    xs.push_back(to_aten(*in[k]));
  }
  Layer l = layer;
  l.inputs.clear();
  for (size_t k = 0; k < in.size(); ++k) l.inputs.push_back(int(k));
  std::vector<Shape> shapes;
  for (const Tensor* t : in) shapes.push_back(t->shape());
  LW_RETURN_IF_ERROR(infer_layer_shape(l, shapes, &l.out));
  net.layers.push_back(l);
  IrModule m;
  // check_weights() looks at every layer, and extra inputs are fine there (no weights).
  LW_RETURN_IF_ERROR(IrModule::create(net, &m));
  int last = int(net.layers.size()) - 1;
  at::NoGradGuard no_grad;
  at::Tensor y;
  try {
    std::vector<at::Tensor> ins(xs.begin(), xs.end());
    LW_RETURN_IF_ERROR(m.run_layer(size_t(last), ins, /*training=*/false, &y));
  } catch (const c10::Error& e) {
    return failed(where(layer) + e.what_without_backtrace());
  }
  return from_aten(y, out);
}

Status torch_forward(const Network& net, const Tensor& input, std::vector<Tensor>* outputs) {
  IrModule m;
  LW_RETURN_IF_ERROR(IrModule::create(net, &m));
  at::NoGradGuard no_grad;
  at::Tensor y;
  std::vector<at::Tensor> all;
  LW_RETURN_IF_ERROR(m.forward(to_aten(input), /*training=*/false, &y, &all));
  outputs->assign(all.size(), Tensor());
  for (size_t i = 0; i < all.size(); ++i) LW_RETURN_IF_ERROR(from_aten(all[i], &(*outputs)[i]));
  return Status::ok();
}

}  // namespace lw::ir_torch
