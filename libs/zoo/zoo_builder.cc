#include "libs/zoo/zoo_builder.h"

#include <cstdio>

namespace lw {

NetBuilder::NetBuilder(std::string name, Shape input) {
  net_.name = std::move(name);
  Layer in;
  in.name = "input";
  in.kind = LayerKind::kInput;
  in.out = input;
  net_.layers.push_back(in);
}

int NetBuilder::push(Layer l, const std::string& what) {
  std::string base = what.empty() ? std::string(to_string(l.kind)) : what;
  l.name = scope_.empty() ? base : scope_ + "." + base;
  if (net_.find(l.name) >= 0) l.name += "_" + std::to_string(counter_);
  ++counter_;
  std::vector<Shape> in;
  for (int p : l.inputs) in.push_back(net_.layers[p].out);
  Status s = infer_layer_shape(l, in, &l.out);
  if (!s.is_ok()) {
    std::fprintf(stderr, "zoo builder %s: %s\n", net_.name.c_str(), s.to_string().c_str());
    LW_CHECK(false);
  }
  net_.layers.push_back(std::move(l));
  return int(net_.layers.size()) - 1;
}

int NetBuilder::conv_window(int x, int out_c, const Window& w, int groups, bool bias, const std::string& what) {
  Layer l;
  l.kind = LayerKind::kConv2d;
  l.inputs = {x};
  l.out_channels = out_c;
  l.window = w;
  l.groups = groups;
  l.has_bias = bias;
  return push(l, what);
}

int NetBuilder::conv(int x, int out_c, int k, int stride, int pad, int groups, bool bias, const std::string& what) {
  Window w;
  w.kh = w.kw = k;
  w.stride_h = w.stride_w = stride;
  if (pad < 0) pad = (k - 1) / 2;
  w.pad_top = w.pad_left = w.pad_bottom = w.pad_right = pad;
  return conv_window(x, out_c, w, groups, bias, what);
}

int NetBuilder::bn(int x, const std::string& what) {
  Layer l;
  l.kind = LayerKind::kBatchNorm;
  l.inputs = {x};
  return push(l, what);
}

int NetBuilder::conv_bn(int x, int out_c, int k, int stride, int groups, LayerKind act_kind, const std::string& what) {
  int y = bn(conv(x, out_c, k, stride, -1, groups, false, what), what + "_bn");
  return act_kind == LayerKind::kInput ? y : act(y, act_kind);
}

int NetBuilder::act(int x, LayerKind kind, const std::string& what) {
  Layer l;
  l.kind = kind;
  l.inputs = {x};
  return push(l, what);
}

int NetBuilder::pool(LayerKind kind, int x, int k, int stride, int pad, bool ceil_mode) {
  Layer l;
  l.kind = kind;
  l.inputs = {x};
  l.window.kh = l.window.kw = k;
  l.window.stride_h = l.window.stride_w = stride;
  l.window.pad_top = l.window.pad_left = l.window.pad_bottom = l.window.pad_right = pad;
  l.window.ceil_mode = ceil_mode;
  return push(l, "");
}

int NetBuilder::max_pool(int x, int k, int stride, int pad, bool ceil_mode) {
  return pool(LayerKind::kMaxPool, x, k, stride, pad, ceil_mode);
}

int NetBuilder::avg_pool(int x, int k, int stride, int pad) { return pool(LayerKind::kAvgPool, x, k, stride, pad, false); }

int NetBuilder::global_avg_pool(int x) {
  Layer l;
  l.kind = LayerKind::kGlobalAvgPool;
  l.inputs = {x};
  return push(l, "gap");
}

int NetBuilder::fc(int x, int out, bool bias, const std::string& what) {
  Layer l;
  l.kind = LayerKind::kFullyConnected;
  l.inputs = {x};
  l.out_channels = out;
  l.has_bias = bias;
  return push(l, what);
}

static Layer binary(LayerKind k, std::vector<int> in) {
  Layer l;
  l.kind = k;
  l.inputs = std::move(in);
  return l;
}
int NetBuilder::add(int a, int b) { return push(binary(LayerKind::kAdd, {a, b}), "add"); }
int NetBuilder::mul(int a, int b) { return push(binary(LayerKind::kMul, {a, b}), "mul"); }
int NetBuilder::concat(const std::vector<int>& xs) { return push(binary(LayerKind::kConcat, xs), "concat"); }
int NetBuilder::flatten(int x) { return push(binary(LayerKind::kFlatten, {x}), "flatten"); }
int NetBuilder::softmax(int x) { return push(binary(LayerKind::kSoftmax, {x}), "softmax"); }

Network NetBuilder::finish() {
  Status s = infer_shapes(net_);
  if (!s.is_ok()) {
    std::fprintf(stderr, "zoo builder %s: %s\n", net_.name.c_str(), s.to_string().c_str());
    LW_CHECK(false);
  }
  return net_;
}

}  // namespace lw
