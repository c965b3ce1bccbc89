// Converters of ONNX's window, normalisation and matrix ops: Conv, MaxPool, AveragePool,
// GlobalAveragePool, GlobalMaxPool, ReduceMean (over H, W), BatchNormalization, Gemm, MatMul,
// Softmax, Flatten.
#include <algorithm>
#include <cmath>

#include "libs/onnx/onnx_graph.h"

namespace lw::onnx_import {
namespace {

std::vector<float> floats(const Value& v) { return std::vector<float>(v.v.begin(), v.v.end()); }

// With ceil_mode a last window that would start in the end padding is dropped (PyTorch's rule,
// which opset 22's text spells out and ONNX's reference applies to every opset).
int64_t out_extent(int64_t in, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d, bool ceil_mode) {
  int64_t span = in + pb + pe - ((k - 1) * d + 1);
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// Fills `w` from kernel_shape / strides / pads / dilations / auto_pad / ceil_mode for a rank 3
// or 4 input `x` (plus a pending zero Pad) and returns ONNX's output spatial extents.
Status window(Ctx& c, const Value& x, std::vector<int64_t> kernel, Window* w, std::vector<int64_t>* out) {
  const size_t sp = x.dims.size() - 2;
  if (c.has_attr("kernel_shape")) kernel = c.attr_ints("kernel_shape");
  std::vector<int64_t> strides = c.attr_ints("strides"), dil = c.attr_ints("dilations"), pads = c.attr_ints("pads");
  if (strides.empty()) strides.assign(sp, 1);
  if (dil.empty()) dil.assign(sp, 1);
  if (pads.empty()) pads.assign(2 * sp, 0);
  if (kernel.size() != sp || strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp)
    return c.bad("kernel_shape, strides, dilations or pads do not match the input rank");
  for (size_t i = 0; i < sp; ++i)  // found by fuzzing: a zero stride divided by zero
    if (kernel[i] < 1 || strides[i] < 1 || dil[i] < 1 || pads[i] < 0 || pads[sp + i] < 0)
      return c.bad("kernel_shape, strides and dilations must be positive and pads not negative");
  for (size_t i = 0; i < sp; ++i)  // bounded like tensor dimensions
    if (kernel[i] > kMaxExtent || strides[i] > kMaxExtent || dil[i] > kMaxExtent || pads[i] > kMaxExtent ||
        pads[sp + i] > kMaxExtent)
      return c.bad("kernel_shape, strides, dilations or pads beyond 2^30");
  const std::string auto_pad = c.attr_s("auto_pad", "NOTSET");
  const bool ceil_mode = c.attr_i("ceil_mode", 0) != 0;
  out->clear();
  for (size_t i = 0; i < sp; ++i) {
    const int64_t in = x.dims[2 + i], eff = (kernel[i] - 1) * dil[i] + 1;
    if (auto_pad == "VALID") {
      pads[i] = pads[sp + i] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t total = std::max<int64_t>(0, ((in + strides[i] - 1) / strides[i] - 1) * strides[i] + eff - in);
      pads[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[sp + i] = total - pads[i];
    } else if (auto_pad != "NOTSET") {
      return c.fail("auto_pad '" + auto_pad + "'");
    }
  }
  // Rank 3 [N, C, L] runs as N x C x 1 x L: the single spatial axis is the width.
  const int h = sp == 2 ? 0 : -1, wi = sp == 2 ? 1 : 0;
  auto at = [](const std::vector<int64_t>& v, int i, int64_t def) { return i < 0 ? def : v[i]; };
  w->kh = int(at(kernel, h, 1)), w->kw = int(kernel[wi]);
  w->stride_h = int(at(strides, h, 1)), w->stride_w = int(strides[wi]);
  w->dil_h = int(at(dil, h, 1)), w->dil_w = int(dil[wi]);
  w->pad_top = int(h < 0 ? 0 : pads[h]) + x.pad[0], w->pad_left = int(pads[wi]) + x.pad[1];
  w->pad_bottom = int(h < 0 ? 0 : pads[sp + h]) + x.pad[2], w->pad_right = int(pads[sp + wi]) + x.pad[3];
  w->ceil_mode = ceil_mode;
  // ONNX's extents, from the (already padded) input and the node's own pads.
  for (size_t i = 0; i < sp; ++i)
    out->push_back(out_extent(x.dims[2 + i], kernel[i], strides[i], pads[i], pads[sp + i], dil[i], ceil_mode));
  return Status::ok();
}

Status spatial_input(Ctx& c, const Value** x, bool allow_pad) {
  LW_RETURN_IF_ERROR(c.input(0, x));
  if ((*x)->is_const || (*x)->shapes_pending() || (!allow_pad && (*x)->pending()))
    return c.fail("input must be a computed tensor without a pending reshape, transpose or pad");
  if ((*x)->dims.size() != 3 && (*x)->dims.size() != 4) return c.fail("input of rank " + std::to_string((*x)->dims.size()) + " (1-D and 2-D windows only)");
  return Status::ok();
}

// A windowed layer's output: batch and `channels`, then the window's spatial extents.
Status add_windowed(Ctx& c, Layer l, const Value& x, int64_t channels, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims = {x.dims[0], channels};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return c.add_layer(std::move(l), {x.layer}, dims);
}

Status conv(Ctx& c) {
  const Value *x, *w, *b = nullptr;
  LW_RETURN_IF_ERROR(spatial_input(c, &x, true));
  LW_RETURN_IF_ERROR(c.constant(1, &w));
  if (c.has_input(2)) LW_RETURN_IF_ERROR(c.constant(2, &b));
  if (w->dims.size() != x->dims.size()) return c.bad("weight rank differs from input rank");
  Layer l;
  l.kind = LayerKind::kConv2d;
  l.out_channels = int(w->dims[0]);
  l.groups = int(c.attr_i("group", 1));
  if (l.groups < 1 || w->dims[1] * l.groups != x->dims[1])
    return c.bad("weight " + std::to_string(w->dims[1]) + " channels x group " + std::to_string(l.groups) +
                 " != input channels " + std::to_string(x->dims[1]));
  std::vector<int64_t> spatial;
  LW_RETURN_IF_ERROR(window(c, *x, std::vector<int64_t>(w->dims.begin() + 2, w->dims.end()), &l.window, &spatial));
  l.weights = floats(*w);
  if (b) {
    if (b->elements() != l.out_channels) return c.bad("bias size differs from the output channels");
    l.has_bias = true;
    l.bias = floats(*b);
  }
  return add_windowed(c, std::move(l), *x, w->dims[0], spatial);
}

// A zero Pad in front of an AveragePool (PyTorch's export of count_include_pad=True, e.g.
// Inception v3) becomes the pool's own padding, counted in the average like the zeros it adds.
Status absorb_pad_into_average(Ctx& c, const Value& x, Layer* l) {
  if (!x.pending()) return Status::ok();
  if (c.node->op_type() != "AveragePool") return c.fail("a zero Pad in front of a MaxPool (it pads with -inf)");
  if (c.attr_i("ceil_mode", 0)) return c.fail("a zero Pad in front of a ceil_mode AveragePool");
  bool own_pads = false;
  for (int64_t p : c.attr_ints("pads")) own_pads |= p != 0;
  if (own_pads && !l->count_include_pad)
    return c.fail("a zero Pad in front of an AveragePool that leaves its own padding out of the average");
  l->count_include_pad = true;
  return Status::ok();
}

Status pool(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(spatial_input(c, &x, true));
  if (c.node->output_size() > 1 && !c.node->output(1).empty()) return c.fail("the Indices output");
  for (int64_t d : c.attr_ints("dilations"))
    if (d != 1) return c.fail("pooling dilation other than 1");
  if (!c.has_attr("kernel_shape")) return c.bad("missing kernel_shape");
  Layer l;
  l.kind = c.node->op_type() == "MaxPool" ? LayerKind::kMaxPool : LayerKind::kAvgPool;
  l.count_include_pad = c.attr_i("count_include_pad", 0) != 0;
  LW_RETURN_IF_ERROR(absorb_pad_into_average(c, *x, &l));
  std::vector<int64_t> spatial;
  LW_RETURN_IF_ERROR(window(c, *x, {}, &l.window, &spatial));
  return add_windowed(c, std::move(l), *x, x->dims[1], spatial);
}

Status global_pool(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(spatial_input(c, &x, false));
  std::vector<int64_t> dims(x->dims.size(), 1);
  dims[0] = x->dims[0], dims[1] = x->dims[1];
  Layer l;
  if (c.node->op_type() == "GlobalAveragePool") {
    l.kind = LayerKind::kGlobalAvgPool;
  } else {
    const Shape s = c.shape_of(*x);
    l.kind = LayerKind::kMaxPool;
    l.window.kh = s.h, l.window.kw = s.w;
  }
  return c.add_layer(std::move(l), {x->layer}, dims);
}

// torchvision's x.mean([2, 3]) (MNASNet, ShuffleNet) is a global average pool; a mean over the
// channels starts a spelt-out LayerNorm. The axes are an attribute up to opset 17 and an
// optional input from 18 on.
Status reduce_mean(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (c.has_input(1)) LW_RETURN_IF_ERROR(c.ints(1, &axes));
  Status composed;
  if (compose_reduce_mean(c, *x, axes, &composed)) return composed;
  LW_RETURN_IF_ERROR(c.runtime(0, &x));
  if (axes.empty() && c.attr_i("noop_with_empty_axes", 0)) {
    c.set_output(0, *x);
    return Status::ok();
  }
  for (auto& a : axes) a = norm_axis(a, x->dims.size());
  std::sort(axes.begin(), axes.end());
  if (x->dims.size() != 4 || axes != std::vector<int64_t>{2, 3}) return c.fail("ReduceMean other than over H and W of a 4-D tensor");
  std::vector<int64_t> dims = {x->dims[0], x->dims[1]};
  if (c.attr_i("keepdims", 1)) dims.insert(dims.end(), {1, 1});
  Layer l;
  l.kind = LayerKind::kGlobalAvgPool;
  return c.add_layer(std::move(l), {x->layer}, dims);
}

Status batch_norm(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.runtime(0, &x));
  if (c.attr_i("training_mode", 0)) return c.fail("training_mode=1");
  if (c.attr_i("spatial", 1) != 1) return c.fail("spatial=0 (statistics per position, opsets 7 and 8)");
  for (int k = 1; k < c.node->output_size(); ++k)
    if (!c.node->output(k).empty()) return c.fail("running-statistics outputs (training mode)");
  Layer l;
  l.kind = LayerKind::kBatchNorm;
  l.eps = c.attr_f("epsilon", 1e-5f);
  const int64_t C = x->dims.size() > 1 ? x->dims[1] : 0;
  for (int k = 1; k <= 4; ++k) {
    const Value* p;
    LW_RETURN_IF_ERROR(c.constant(k, &p));
    if (p->elements() != C) return c.bad("parameter " + std::to_string(k) + " does not have one value per channel");
    l.weights.insert(l.weights.end(), p->v.begin(), p->v.end());
  }
  return c.add_layer(std::move(l), {x->layer}, x->dims);
}

// Gemm (A x B^T or A x B, alpha, beta, bias C) and MatMul with a constant right operand are
// fully-connected layers (weights stored [out][in]); a MatMul over the channels of a
// channels-last tensor (ConvNeXt's Linear) is a 1x1 conv.
Status matrix(Ctx& c) {
  const Value *a, *b, *bias = nullptr;
  LW_RETURN_IF_ERROR(c.runtime_view(0, &a));
  LW_RETURN_IF_ERROR(c.constant(1, &b));
  if (a->channels_last && c.node->op_type() == "MatMul") return pointwise_matmul(c, *a, *b);
  LW_RETURN_IF_ERROR(c.runtime(0, &a));
  const bool gemm = c.node->op_type() == "Gemm";
  if (gemm && c.has_input(2)) LW_RETURN_IF_ERROR(c.constant(2, &bias));
  if (a->dims.size() != 2 || b->dims.size() != 2) return c.fail("operands other than 2-D");
  if (c.attr_i("transA", 0)) return c.fail("transA=1");
  const bool tb = c.attr_i("transB", 0) != 0;
  const int64_t K = tb ? b->dims[1] : b->dims[0], M = tb ? b->dims[0] : b->dims[1];
  if (K != a->dims[1]) return c.bad("inner dimensions differ");
  const double alpha = c.attr_f("alpha", 1.f), beta = c.attr_f("beta", 1.f);
  Layer l;
  l.kind = LayerKind::kFullyConnected;
  l.out_channels = int(M);
  l.weights.resize(size_t(M * K));
  for (int64_t o = 0; o < M; ++o)
    for (int64_t k = 0; k < K; ++k) l.weights[o * K + k] = float(alpha * (tb ? b->v[o * K + k] : b->v[k * M + o]));
  if (bias) {
    if (bias->elements() != M && bias->elements() != 1) return c.fail("bias C that is not one value per output");
    l.has_bias = true;
    for (int64_t o = 0; o < M; ++o) l.bias.push_back(float(beta * bias->v[bias->elements() == 1 ? 0 : o]));
  }
  return c.add_layer(std::move(l), {a->layer}, {a->dims[0], M});
}

Status softmax(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.runtime(0, &x));
  const size_t r = x->dims.size();
  const int axis = norm_axis(c.attr_i("axis", c.opset >= 13 ? -1 : 1), r);
  // The IR's softmax runs over channels. Before opset 13 the axis flattens everything after
  // it, which is the same only when nothing follows the channels.
  const Shape s = c.shape_of(*x);
  if (axis != 1 || (c.opset < 13 && s.h * s.w != 1)) return c.fail("softmax over other than the channels");
  Layer l;
  l.kind = LayerKind::kSoftmax;
  return c.add_layer(std::move(l), {x->layer}, x->dims);
}

Status flatten(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  const int axis = norm_axis(c.attr_i("axis", 1), x->dims.size() + 1);
  int64_t inner = 1, outer = 1;
  for (size_t i = 0; i < x->dims.size(); ++i) (int(i) < axis ? outer : inner) *= x->dims[i];
  if (x->is_const) {
    Value v = *x;
    v.dims = {outer, inner};
    c.set_output(0, v);
    return Status::ok();
  }
  if (x->pending()) return c.fail("input is a pending reshape or pad");
  if (axis != 1) return c.fail("Flatten with axis other than 1");
  const Shape s = c.shape_of(*x);
  if (s.h * s.w == 1) {  // nothing to reorder: the IR's N x C x 1 x 1 already is [N, C]
    Value v = *x;
    v.dims = {outer, inner};
    c.set_output(0, v);
    return Status::ok();
  }
  Layer l;
  l.kind = LayerKind::kFlatten;
  return c.add_layer(std::move(l), {x->layer}, {outer, inner});
}

}  // namespace

void add_nn_ops(std::map<std::string, OpInfo>* ops) {
  const std::set<std::string> win = {"auto_pad", "kernel_shape", "pads", "strides", "dilations"};
  auto with = [](std::set<std::string> s, std::initializer_list<const char*> more) {
    for (const char* m : more) s.insert(m);
    return s;
  };
  (*ops)["Conv"] = {conv, with(win, {"group"})};
  (*ops)["MaxPool"] = {pool, with(win, {"ceil_mode", "storage_order"})};
  (*ops)["AveragePool"] = {pool, with(win, {"ceil_mode", "count_include_pad"})};
  (*ops)["GlobalAveragePool"] = {global_pool, {}};
  (*ops)["GlobalMaxPool"] = {global_pool, {}};
  (*ops)["ReduceMean"] = {reduce_mean, {"axes", "keepdims", "noop_with_empty_axes"}};
  (*ops)["BatchNormalization"] = {batch_norm, {"epsilon", "momentum", "training_mode", "spatial"}};
  (*ops)["Gemm"] = {matrix, {"alpha", "beta", "transA", "transB"}};
  (*ops)["MatMul"] = {matrix, {}};
  (*ops)["Softmax"] = {softmax, {"axis"}};
  (*ops)["Flatten"] = {flatten, {"axis"}};
}

}  // namespace lw::onnx_import
