// ConvNeXt's operators: LayerNormalization (opset 17) and Gelu (opset 20) over the channels,
// and the same two spelt out in elementary nodes, the way exporters write them for earlier
// opsets (PyTorch: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div for a LayerNorm; Div, Erf,
// Add, Mul, Mul for GELU). A spelt-out one is followed node by node in Value::partial and its
// last node makes the IR layer; its scale and shift (Mul and Add by per-channel constants)
// become affine layers that fold_affine() folds into it. A partial value read by any other
// node is refused like every pending rewrite.
#include <algorithm>
#include <cmath>

#include "libs/onnx/onnx_graph.h"

namespace lw::onnx_import {
namespace {

// Exporters write these constants (sqrt(2), 1, 0.5, 2) in float, float16 converters in float16
// (sqrt(2) as 1.4140625): within float16's precision.
bool is_scalar(const Value& v, double want) {
  return v.is_const && v.elements() == 1 && std::fabs(v.v[0] - want) <= 1e-3 * std::fabs(want);
}

bool same_tensor(const Value& a, const Value& b) {
  return !a.is_const && !b.is_const && a.layer == b.layer && a.channels_last == b.channels_last;
}

bool plain(const Value& v) { return !v.is_const && v.plain_or_channels_last(); }

// Binds output 0 to the next part of `of`'s LayerNorm or GELU.
Status step(Ctx& c, const Value& of, Partial p, std::vector<int64_t> dims, float eps = 0) {
  Value v;
  v.layer = of.layer;
  v.channels_last = of.channels_last;
  v.partial = p;
  v.eps = p == Partial::kVariancePlusEps ? eps : of.eps;
  v.dims = std::move(dims);
  c.set_output(0, v);
  return Status::ok();
}

Status per_channel_into(Ctx& c, const Value* p, int64_t C, const char* what, float* out) {
  if (!p) return Status::ok();
  if (p->elements() != C) return c.bad(std::string(what) + " does not have one value per channel");
  for (int64_t j = 0; j < C; ++j) out[j] = float(p->v[size_t(j)]);
  return Status::ok();
}

Status layer_norm_layer(Ctx& c, const Value& x, float eps, const Value* scale, const Value* shift) {
  if (!(eps > 0)) return c.bad("epsilon must be positive");
  const int64_t C = x.dims[size_t(x.channel_axis())];
  Layer l;
  l.kind = LayerKind::kLayerNorm;
  l.eps = eps;
  l.weights.assign(size_t(2 * C), 0.f);
  std::fill(l.weights.begin(), l.weights.begin() + C, 1.f);
  LW_RETURN_IF_ERROR(per_channel_into(c, scale, C, "scale", l.weights.data()));
  LW_RETURN_IF_ERROR(per_channel_into(c, shift, C, "bias", l.weights.data() + C));
  return c.add_layer(std::move(l), {x.layer}, x.dims, 0, x.channels_last);
}

// Normalised over axes axis..r-1, which must be the channels and 1s: a channels-last 4-D
// tensor with axis -1 (ConvNeXt's), or [N, C] / [N, C, 1, 1] with axis 1.
Status layer_normalization(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.runtime_view(0, &x));
  const int r = int(x->dims.size()), axis = norm_axis(c.attr_i("axis", -1), size_t(r));
  bool channels_only = axis >= 0 && x->channel_axis() >= axis;
  for (int i = std::max(axis, 0); channels_only && i < r; ++i) channels_only = i == x->channel_axis() || x->dims[i] == 1;
  if (!channels_only) return c.fail("LayerNormalization over other than the channels");
  for (int k = 1; k < c.node->output_size(); ++k)
    if (!c.node->output(k).empty()) return c.fail("the Mean / InvStdDev outputs (training)");
  const Value *scale, *shift = nullptr;
  LW_RETURN_IF_ERROR(c.constant(1, &scale));
  if (c.has_input(2)) LW_RETURN_IF_ERROR(c.constant(2, &shift));
  return layer_norm_layer(c, *x, c.attr_f("epsilon", 1e-5f), scale, shift);
}

Status gelu(Ctx& c) {
  const std::string approximate = c.attr_s("approximate", "none");
  if (approximate != "none") return c.fail("approximate='" + approximate + "' (only the exact, erf form)");
  return activation_layer(c, LayerKind::kGelu);
}

// The unary steps: Erf of x / sqrt(2), Pow(x - mean, 2), Sqrt(variance + eps).
Status unary_step(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  const std::string& op = c.node->op_type();
  if (op == "Erf" && x->partial == Partial::kGeluScaled) return step(c, *x, Partial::kGeluErf, x->dims);
  if (op == "Sqrt" && x->partial == Partial::kVariancePlusEps) return step(c, *x, Partial::kStdDev, x->dims);
  if (op == "Pow" && x->partial == Partial::kCentered) {
    const Value* e;
    LW_RETURN_IF_ERROR(c.constant(1, &e));
    if (is_scalar(*e, 2)) return step(c, *x, Partial::kSquares, x->dims);
  }
  return c.fail(op + " other than in a LayerNorm's or GELU's usual spelling");
}

// Output 0 is read by `op` nodes only.
bool read_only_by(const Ctx& c, const std::string& op) {
  auto it = c.readers.find(c.node->output(0));
  if (it == c.readers.end() || it->second.empty()) return false;
  return std::all_of(it->second.begin(), it->second.end(), [&](const std::string& r) { return r == op; });
}

bool compose_layer_norm(Ctx& c, const std::string& op, const Value& a, const Value& b, Status* s) {
  if (op == "Sub" && plain(a) && b.partial == Partial::kMean && same_tensor(a, b)) {
    *s = step(c, a, Partial::kCentered, a.dims);
  } else if (op == "Mul" && a.partial == Partial::kCentered && b.partial == Partial::kCentered && same_tensor(a, b)) {
    *s = step(c, a, Partial::kSquares, a.dims);
  } else if (op == "Add" && (a.partial == Partial::kVariance || b.partial == Partial::kVariance)) {
    const Value& var = a.partial == Partial::kVariance ? a : b;
    const Value& eps = a.partial == Partial::kVariance ? b : a;
    if (!eps.is_const || eps.elements() != 1) *s = c.fail("a variance plus other than a constant epsilon");
    else *s = step(c, var, Partial::kVariancePlusEps, var.dims, float(eps.v[0]));
  } else if (op == "Div" && a.partial == Partial::kCentered && b.partial == Partial::kStdDev && same_tensor(a, b)) {
    *s = layer_norm_layer(c, a, b.eps, nullptr, nullptr);
  } else {
    return false;
  }
  return true;
}

bool compose_gelu(Ctx& c, const std::string& op, const Value& a, const Value& b, Status* s) {
  // GELU(x) = x * (1 + erf(x / sqrt(2))) * 0.5: the division starts it only when Erf alone
  // reads its result (elsewhere it is an ordinary scale).
  const bool div_sqrt2 = op == "Div" && plain(a) && is_scalar(b, std::sqrt(2.0));
  const bool mul_rsqrt2 = op == "Mul" && ((plain(a) && is_scalar(b, std::sqrt(0.5))) || (plain(b) && is_scalar(a, std::sqrt(0.5))));
  if ((div_sqrt2 || mul_rsqrt2) && read_only_by(c, "Erf")) {
    const Value& x = plain(a) ? a : b;
    *s = step(c, x, Partial::kGeluScaled, x.dims);
  } else if (op == "Add" && ((a.partial == Partial::kGeluErf && is_scalar(b, 1)) ||
                             (b.partial == Partial::kGeluErf && is_scalar(a, 1)))) {
    const Value& erf = a.partial == Partial::kGeluErf ? a : b;
    *s = step(c, erf, Partial::kGeluErfPlusOne, erf.dims);
  } else if (op == "Mul" && (a.partial == Partial::kGeluErfPlusOne || b.partial == Partial::kGeluErfPlusOne)) {
    const Value& sum = a.partial == Partial::kGeluErfPlusOne ? a : b;
    const Value& other = a.partial == Partial::kGeluErfPlusOne ? b : a;
    if (!plain(other) || !same_tensor(sum, other)) *s = c.fail("1 + erf(x / sqrt(2)) times other than x");
    else *s = step(c, sum, Partial::kGeluTwice, sum.dims);
  } else if (op == "Mul" && (a.partial == Partial::kGeluTwice || b.partial == Partial::kGeluTwice)) {
    const Value& twice = a.partial == Partial::kGeluTwice ? a : b;
    if (!is_scalar(a.partial == Partial::kGeluTwice ? b : a, 0.5)) *s = c.fail("x * (1 + erf(x / sqrt(2))) times other than 0.5");
    else {
      Layer l;
      l.kind = LayerKind::kGelu;
      *s = c.add_layer(std::move(l), {twice.layer}, twice.dims, 0, twice.channels_last);
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool compose_binary(Ctx& c, const Value& a, const Value& b, Status* s) {
  const std::string& op = c.node->op_type();
  return compose_layer_norm(c, op, a, b, s) || compose_gelu(c, op, a, b, s);
}

bool compose_reduce_mean(Ctx& c, const Value& x, const std::vector<int64_t>& axes, Status* s) {
  if (x.is_const || axes.size() != 1 || norm_axis(axes[0], x.dims.size()) != x.channel_axis()) return false;
  const bool mean = plain(x), variance = x.partial == Partial::kSquares;
  if (!mean && !variance) return false;
  if (!c.attr_i("keepdims", 1)) {
    *s = c.fail("a mean over the channels without keepdims (not a LayerNorm's)");
    return true;
  }
  std::vector<int64_t> dims = x.dims;
  dims[size_t(x.channel_axis())] = 1;
  *s = step(c, x, mean ? Partial::kMean : Partial::kVariance, dims);
  return true;
}

Status pointwise_matmul(Ctx& c, const Value& x, const Value& w) {
  if (x.dims.size() != 4 || w.dims.size() != 2) return c.fail("MatMul of a channels-last tensor by other than a 2-D constant");
  const int64_t C = x.dims[3], K = w.dims[1];
  if (w.dims[0] != C) return c.bad("inner dimensions differ");
  if (K < 1 || K > kMaxExtent) return c.bad("output width out of range");
  Layer l;
  l.kind = LayerKind::kConv2d;
  l.out_channels = int(K);
  l.weights.resize(size_t(K * C));
  for (int64_t o = 0; o < K; ++o)
    for (int64_t k = 0; k < C; ++k) l.weights[size_t(o * C + k)] = float(w.v[size_t(k * K + o)]);
  std::vector<int64_t> dims = x.dims;
  dims[3] = K;
  return c.add_layer(std::move(l), {x.layer}, dims, 0, true);
}

void add_compose_ops(std::map<std::string, OpInfo>* ops) {
  (*ops)["LayerNormalization"] = {layer_normalization, {"axis", "epsilon", "stash_type"}};
  (*ops)["Gelu"] = {gelu, {"approximate"}};
  for (const char* op : {"Erf", "Pow", "Sqrt"}) (*ops)[op] = {unary_step, {}};
}

}  // namespace lw::onnx_import
