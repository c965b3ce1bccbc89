// Converters of elementwise ops: activations (Relu, Sigmoid, HardSigmoid, HardSwish, Clip),
// Add / Sub / Mul / Div (two tensors, a tensor and a per-channel constant, or two constants),
// Concat, Identity and Dropout.
#include <cmath>
#include <limits>

#include "libs/onnx/onnx_graph.h"

namespace lw::onnx_import {

Status activation_layer(Ctx& c, LayerKind kind) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.runtime_view(0, &x));
  Layer l;
  l.kind = kind;
  return c.add_layer(std::move(l), {x->layer}, x->dims, 0, x->channels_last);
}

namespace {

Status relu(Ctx& c) { return activation_layer(c, LayerKind::kRelu); }
Status sigmoid(Ctx& c) { return activation_layer(c, LayerKind::kSigmoid); }
Status hardswish(Ctx& c) { return activation_layer(c, LayerKind::kHardSwish); }

// The IR's hardsigmoid is PyTorch's relu6(x + 3) / 6, i.e. ONNX's alpha = 1/6, beta = 1/2.
Status hardsigmoid(Ctx& c) {
  const float alpha = c.attr_f("alpha", 0.2f), beta = c.attr_f("beta", 0.5f);
  if (std::fabs(alpha - 1.f / 6) > 1e-6f || std::fabs(beta - 0.5f) > 1e-6f)
    return c.fail("alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta) + " (only 1/6, 1/2)");
  return activation_layer(c, LayerKind::kHardSigmoid);
}

// The bounds are inputs from opset 11 on, attributes before.
Status clip(Ctx& c) {
  double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
  const Value* b;
  if (c.has_attr("min")) lo = c.attr_f("min", 0);
  if (c.has_attr("max")) hi = c.attr_f("max", 0);
  if (c.has_input(1)) { LW_RETURN_IF_ERROR(c.constant(1, &b)); lo = b->v.at(0); }
  if (c.has_input(2)) { LW_RETURN_IF_ERROR(c.constant(2, &b)); hi = b->v.at(0); }
  // Opset 6's defaults are the float range: as unbounded.
  if (lo <= std::numeric_limits<float>::lowest()) lo = -std::numeric_limits<double>::infinity();
  if (hi >= std::numeric_limits<float>::max()) hi = std::numeric_limits<double>::infinity();
  if (lo == 0 && hi == 6) return activation_layer(c, LayerKind::kRelu6);
  if (lo == 0 && std::isinf(hi)) return activation_layer(c, LayerKind::kRelu);
  return c.fail("Clip to [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (only [0, 6] and [0, inf))");
}

double apply(const std::string& op, double a, double b, bool is_int) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  return is_int ? double(int64_t(a) / int64_t(b)) : a / b;
}

// Both constant (shape arithmetic): same dims or one scalar.
Status fold(Ctx& c, const Value& a, const Value& b) {
  const std::string& op = c.node->op_type();
  const bool is_int = a.is_int && b.is_int;
  const Value& big = a.elements() >= b.elements() ? a : b;
  if (a.elements() != b.elements() && a.elements() != 1 && b.elements() != 1)
    return c.fail("constant broadcasting beyond a scalar");
  if (is_int && op == "Div")
    for (double d : b.v)
      if (d == 0) return c.bad("integer division by zero");
  std::vector<double> v(size_t(big.elements()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = apply(op, a.v[a.elements() == 1 ? 0 : i], b.v[b.elements() == 1 ? 0 : i], is_int);
  c.set_output(0, make_const(big.dims, std::move(v), is_int));
  return Status::ok();
}

// A constant that varies at most along the channel axis of runtime tensor `x`: its value for
// every channel, or false.
bool per_channel(const Value& x, const Value& k, std::vector<double>* out) {
  const size_t axis = size_t(x.channel_axis());
  const int64_t C = x.dims.size() > 1 ? x.dims[axis] : 0;
  if (k.elements() == 1) { out->assign(size_t(C), k.v[0]); return true; }
  if (k.dims.size() > x.dims.size() || k.elements() != C) return false;
  // Right-aligned broadcasting: the dim facing the channels must be C, the others 1.
  const size_t off = x.dims.size() - k.dims.size();
  for (size_t i = 0; i < k.dims.size(); ++i)
    if (k.dims[i] != (off + i == axis ? C : 1)) return false;
  *out = k.v;
  return true;
}

// x op k (or k op x) with a per-channel constant k is a per-channel affine layer.
Status affine(Ctx& c, const Value& x, const Value& k, bool const_first) {
  const std::string& op = c.node->op_type();
  std::vector<double> kc;
  if (!x.plain_or_channels_last()) return c.fail("input is a pending reshape or pad, or a partial LayerNorm or GELU");
  if (!per_channel(x, k, &kc)) return c.fail("broadcasting a constant other than a scalar or one value per channel");
  if (op == "Div" && const_first) return c.fail("constant divided by a tensor");
  const size_t C = kc.size();
  Layer l;
  l.kind = LayerKind::kAffine;
  l.weights.assign(2 * C, 0.f);
  for (size_t j = 0; j < C; ++j) {
    double scale = 1, shift = 0;
    if (op == "Add") shift = kc[j];
    else if (op == "Sub") { scale = const_first ? -1 : 1; shift = const_first ? kc[j] : -kc[j]; }
    else if (op == "Mul") scale = kc[j];
    else scale = 1 / kc[j];
    l.weights[j] = float(scale);
    l.weights[C + j] = float(shift);
  }
  return c.add_layer(std::move(l), {x.layer}, x.dims, 0, x.channels_last);
}

Status binary(Ctx& c) {
  const Value *a, *b;
  LW_RETURN_IF_ERROR(c.input(0, &a));
  LW_RETURN_IF_ERROR(c.input(1, &b));
  if (a->is_const && b->is_const) return fold(c, *a, *b);
  Status composed;
  if (compose_binary(c, *a, *b, &composed)) return composed;
  if (a->is_const || b->is_const) return affine(c, a->is_const ? *b : *a, a->is_const ? *a : *b, a->is_const);
  LW_RETURN_IF_ERROR(c.runtime_view(0, &a));
  LW_RETURN_IF_ERROR(c.runtime_view(1, &b));
  const std::string& op = c.node->op_type();
  if (op != "Add" && op != "Mul") return c.fail("two computed tensors (only Add and Mul take two)");
  Layer l;
  l.kind = op == "Add" ? LayerKind::kAdd : LayerKind::kMul;
  if (a->dims == b->dims && a->channels_last == b->channels_last)
    return c.add_layer(std::move(l), {a->layer, b->layer}, a->dims, 0, a->channels_last);
  LW_RETURN_IF_ERROR(c.runtime(0, &a));
  LW_RETURN_IF_ERROR(c.runtime(1, &b));
  // Squeeze-excite: a tensor times its N x C x 1 x 1 channel scale, either way round.
  const Shape sa = c.shape_of(*a), sb = c.shape_of(*b);
  const bool b_scale = sb.h * sb.w == 1 && sb.n == sa.n && sb.c == sa.c && b->dims.size() == a->dims.size();
  const bool a_scale = sa.h * sa.w == 1 && sa.n == sb.n && sa.c == sb.c && a->dims.size() == b->dims.size();
  if (l.kind == LayerKind::kMul && b_scale) return c.add_layer(std::move(l), {a->layer, b->layer}, a->dims);
  if (l.kind == LayerKind::kMul && a_scale) return c.add_layer(std::move(l), {b->layer, a->layer}, b->dims);
  return c.fail("broadcasting two computed tensors other than a channel scale");
}

Status concat(Ctx& c) {
  std::vector<const Value*> in(c.inputs());
  bool all_const = true, any_const = false;
  for (int k = 0; k < c.inputs(); ++k) {
    LW_RETURN_IF_ERROR(c.input(k, &in[k]));
    all_const = all_const && in[k]->is_const;
    any_const = any_const || in[k]->is_const;
  }
  if (!c.has_attr("axis")) return c.bad("missing axis");
  const int axis = norm_axis(c.attr_i("axis", 0), in[0]->dims.size());
  if (all_const) {
    if (axis != 0) return c.fail("constant concat along an axis other than 0");
    Value v = *in[0];
    for (size_t k = 1; k < in.size(); ++k) {
      v.v.insert(v.v.end(), in[k]->v.begin(), in[k]->v.end());
      v.dims[0] += in[k]->dims.at(0);
      v.is_int = v.is_int && in[k]->is_int;
    }
    c.set_output(0, v);
    return Status::ok();
  }
  if (any_const) return c.fail("concat of computed tensors and constants");
  if (axis != 1) return c.fail("concat along an axis other than the channels");
  std::vector<int> layers;
  std::vector<int64_t> dims = in[0]->dims;
  dims[1] = 0;
  for (int k = 0; k < c.inputs(); ++k) {
    const Value* v;
    LW_RETURN_IF_ERROR(c.runtime(k, &v));
    layers.push_back(v->layer);
    dims[1] += v->dims[1];
  }
  Layer l;
  l.kind = LayerKind::kConcat;
  return c.add_layer(std::move(l), layers, dims);
}

// Identity, and Dropout at inference (its mask output, when asked for, is not supported).
Status identity(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  if (c.node->op_type() == "Dropout") {
    if (c.node->output_size() > 1 && !c.node->output(1).empty()) return c.fail("the mask output");
    const Value* t;
    if (c.has_input(2) && c.constant(2, &t).is_ok() && !t->v.empty() && t->v[0] != 0) return c.fail("training_mode=true");
  }
  Value v = *x;
  c.set_output(0, v);
  return Status::ok();
}

}  // namespace

void add_eltwise_ops(std::map<std::string, OpInfo>* ops) {
  (*ops)["Relu"] = {relu, {}};
  (*ops)["Sigmoid"] = {sigmoid, {}};
  (*ops)["HardSwish"] = {hardswish, {}};
  (*ops)["HardSigmoid"] = {hardsigmoid, {"alpha", "beta"}};
  (*ops)["Clip"] = {clip, {"min", "max"}};  // attributes before opset 11
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) (*ops)[op] = {binary, {}};
  (*ops)["Concat"] = {concat, {"axis"}};
  (*ops)["Identity"] = {identity, {}};
  (*ops)["Dropout"] = {identity, {"seed", "ratio"}};  // ratio: an attribute before opset 12
}

}  // namespace lw::onnx_import
