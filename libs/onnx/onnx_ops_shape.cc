// Converters of shape and constant ops. Exporters compute Reshape targets and Slice bounds
// with Shape / Gather / Unsqueeze / Concat / arithmetic on constants: all of it is folded
// here. On computed tensors: Reshape (flatten; ShuffleNet's 5-D reshape + Transpose + reshape
// = channel shuffle), Transpose to and from channels last (a view: Value::channels_last),
// Slice and Split along the channels, Pad with zeros in front of a Conv.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "libs/onnx/onnx_graph.h"

namespace lw::onnx_import {
namespace {

Status constant(Ctx& c) {
  if (const onnx::TensorProto* t = c.attr_t("value")) {
    Value v;
    Status s = tensor_to_value(*t, c.dir, &v);
    if (!s.is_ok()) return c.fail(s.message());
    c.set_output(0, v);
  } else if (c.has_attr("value_float")) {
    c.set_output(0, make_const({}, {c.attr_f("value_float", 0)}, false));
  } else if (c.has_attr("value_int")) {
    c.set_output(0, make_const({}, {double(c.attr_i("value_int", 0))}, true));
  } else if (c.has_attr("value_ints")) {
    auto v = c.attr_ints("value_ints");
    c.set_output(0, make_const({int64_t(v.size())}, std::vector<double>(v.begin(), v.end()), true));
  } else {
    return c.fail("a Constant other than value, value_float, value_int or value_ints");
  }
  return Status::ok();
}

Status shape(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  const int64_t r = int64_t(x->dims.size());
  int64_t lo = c.attr_i("start", 0), hi = c.attr_i("end", r);
  if (lo < 0) lo += r;
  if (hi < 0) hi += r;
  lo = std::clamp<int64_t>(lo, 0, r), hi = std::clamp<int64_t>(hi, lo, r);
  c.set_output(0, make_const({hi - lo}, std::vector<double>(x->dims.begin() + lo, x->dims.begin() + hi), true));
  return Status::ok();
}

Status gather(Ctx& c) {
  const Value *d, *idx;
  LW_RETURN_IF_ERROR(c.constant(0, &d));
  LW_RETURN_IF_ERROR(c.constant(1, &idx));
  if (d->dims.empty() || norm_axis(c.attr_i("axis", 0), d->dims.size()) != 0) return c.fail("Gather along an axis other than 0");
  const int64_t rows = d->dims[0], row = d->elements() / std::max<int64_t>(rows, 1);
  std::vector<int64_t> dims = idx->dims;
  dims.insert(dims.end(), d->dims.begin() + 1, d->dims.end());
  std::vector<double> v;
  for (double fi : idx->v) {
    int64_t i = int64_t(fi) < 0 ? int64_t(fi) + rows : int64_t(fi);
    if (i < 0 || i >= rows) return c.bad("index out of range");
    v.insert(v.end(), d->v.begin() + i * row, d->v.begin() + (i + 1) * row);
  }
  c.set_output(0, make_const(dims, v, d->is_int));
  return Status::ok();
}

// Unsqueeze / Squeeze: constants change dims; computed tensors only when the IR shape stays.
Status squeeze(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (c.has_input(1)) LW_RETURN_IF_ERROR(c.ints(1, &axes));
  const bool un = c.node->op_type() == "Unsqueeze";
  std::vector<int64_t> dims = x->dims;
  if (un) {
    const size_t r = dims.size() + axes.size();
    for (auto& a : axes) a = norm_axis(a, r);
    std::sort(axes.begin(), axes.end());
    for (int64_t a : axes) {
      if (a < 0) return c.bad("axis out of range");
      dims.insert(dims.begin() + a, 1);
    }
  } else {
    if (axes.empty())
      for (size_t i = 0; i < dims.size(); ++i)
        if (dims[i] == 1) axes.push_back(int64_t(i));
    for (auto& a : axes) a = norm_axis(a, dims.size());
    std::sort(axes.rbegin(), axes.rend());
    for (int64_t a : axes) {
      if (a < 0 || dims[a] != 1) return c.bad("squeezing a dimension that is not 1");
      dims.erase(dims.begin() + a);
    }
  }
  Value v = *x;
  v.dims = dims;
  if (!x->is_const) {
    Shape want;
    if (x->pending() || !onnx_dims_to_shape(dims, &want).is_ok() || want != c.shape_of(*x))
      return c.fail("changing the rank of a computed tensor beyond the IR's N x C x H x W");
  }
  c.set_output(0, v);
  return Status::ok();
}

// Rounds to the nearest value with `significant` bits (ties to even; the smallest spacing
// 2^min_exponent, beyond `largest` infinity): float16 is (11, -24, 65504), bfloat16 (8, -133, ~3.39e38).
double round_to_float_format(double x, int significant, int min_exponent, double largest) {
  if (!std::isfinite(x) || x == 0) return x;
  int e;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const int q = std::max(e - significant, min_exponent);
  const double y = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
  return std::fabs(y) > largest ? std::copysign(INFINITY, x) : y;
}

// Constants are cast exactly. A computed tensor cast to float16 / bfloat16 stays f32: imports
// run in f32 (a float16 model's activations are not rounded; its weights widen exactly).
Status cast(Ctx& c) {
  using T = onnx::TensorProto;
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  const int64_t to = c.attr_i("to", 0);
  const bool to_int = to == T::INT64 || to == T::INT32;
  const bool to_float = to == T::FLOAT || to == T::DOUBLE || to == T::FLOAT16 || to == T::BFLOAT16;
  if (!to_int && !to_float) return c.fail("Cast to type " + std::to_string(to));
  Value v = *x;
  if (x->is_const) {
    v.is_int = to_int;
    for (double& e : v.v)
      e = to_int            ? double(int64_t(e))
          : to == T::FLOAT16  ? round_to_float_format(e, 11, -24, 65504.0)
          : to == T::BFLOAT16 ? round_to_float_format(e, 8, -133, 3.3895313892515355e38)
                              : double(float(e));
  } else if (to_int) {
    return c.fail("Cast of a computed tensor to an integer type");
  }
  c.set_output(0, v);
  return Status::ok();
}

// The flatten that classifier heads do with Reshape(x, [N, -1]).
Status flatten_to(Ctx& c, const Value& x, const std::vector<int64_t>& dims) {
  const Shape s = c.shape_of(x);
  Value v = x;
  v.dims = dims;
  if (s.h * s.w == 1) {
    c.set_output(0, v);
    return Status::ok();
  }
  Layer l;
  l.kind = LayerKind::kFlatten;
  return c.add_layer(std::move(l), {x.layer}, dims);
}

Status reshape(Ctx& c) {
  const Value* x;
  std::vector<int64_t> t;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  LW_RETURN_IF_ERROR(c.ints(1, &t));
  const bool allowzero = c.attr_i("allowzero", 0) != 0;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == 0 && !allowzero) {
      if (i >= x->dims.size()) return c.bad("0 in the target shape past the input rank");
      t[i] = x->dims[i];
    }
    if (t[i] == -1) infer = int64_t(i);
    else known *= t[i];
  }
  if (infer >= 0) t[infer] = known ? x->elements() / known : 0;
  if (std::accumulate(t.begin(), t.end(), int64_t(1), std::multiplies<int64_t>()) != x->elements())
    return c.bad("target shape does not hold the input's elements");
  Value v = *x;
  v.dims = t;
  if (x->is_const || t == x->dims) {
    c.set_output(0, v);
    return Status::ok();
  }
  if (x->pad != std::array<int, 4>{}) return c.fail("reshaping a padded tensor");
  if (x->partial != Partial::kNone) return c.fail("reshaping a part of a spelt-out LayerNorm or GELU");
  if (x->channels_last) {  // [N, 1, 1, C] is N x C x 1 x 1 whichever way round
    if (x->dims.size() != 4 || x->dims[1] * x->dims[2] != 1) return c.fail("reshaping a channels-last (transposed) tensor");
    v.channels_last = false;
  }
  const auto& d = x->dims;
  if (x->shuffle_groups == 0) {
    Shape want;
    if (onnx_dims_to_shape(t, &want).is_ok() && want == c.shape_of(*x)) {  // [N, C] <-> [N, C, 1, 1]
      c.set_output(0, v);
      return Status::ok();
    }
    if (t.size() == 2 && t[0] == d[0] && d.size() >= 2) return flatten_to(c, *x, t);
    if (d.size() == 4 && t.size() == 5 && t[0] == d[0] && t[3] == d[2] && t[4] == d[3]) {
      v.shuffle_groups = int(t[1]);  // [N, g, C/g, H, W]: wait for the Transpose
      c.set_output(0, v);
      return Status::ok();
    }
    return c.fail("reshape of a computed tensor other than a flatten or a channel shuffle");
  }
  if (!x->shuffle_transposed || t.size() != 4 || t[0] != d[0] || t[2] != d[3] || t[3] != d[4])
    return c.fail("5-D reshape that is not a channel shuffle");
  Layer l;
  l.kind = LayerKind::kChannelShuffle;
  l.groups = x->shuffle_groups;
  return c.add_layer(std::move(l), {x->layer}, t);
}

Status transpose(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  std::vector<int64_t> perm = c.attr_ints("perm");
  if (perm.empty())
    for (size_t i = x->dims.size(); i-- > 0;) perm.push_back(int64_t(i));
  if (perm.size() != x->dims.size()) return c.bad("perm does not match the input rank");
  std::vector<int64_t> sorted = perm, axes(perm.size());
  std::sort(sorted.begin(), sorted.end());
  std::iota(axes.begin(), axes.end(), 0);
  if (sorted != axes) return c.bad("perm is not a permutation of the input's axes");  // found by fuzzing
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x->dims.at(size_t(p)));
  Value v = *x;
  v.dims = dims;
  std::vector<int64_t> id(perm.size());
  std::iota(id.begin(), id.end(), 0);
  if (perm == id) {
    c.set_output(0, v);
    return Status::ok();
  }
  if (x->is_const && x->dims.size() == 2) {
    const int64_t R = x->dims[0], C = x->dims[1];
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) v.v[j * R + i] = x->v[i * C + j];
    c.set_output(0, v);
    return Status::ok();
  }
  if (x->shuffle_groups > 0 && !x->shuffle_transposed && perm == std::vector<int64_t>{0, 2, 1, 3, 4}) {
    v.shuffle_transposed = true;
    c.set_output(0, v);
    return Status::ok();
  }
  // ConvNeXt: to channels last around its LayerNorm and Linear layers, and back.
  const bool to_last = perm == std::vector<int64_t>{0, 2, 3, 1}, to_first = perm == std::vector<int64_t>{0, 3, 1, 2};
  if (!x->is_const && x->plain_or_channels_last() && (x->channels_last ? to_first : to_last)) {
    v.channels_last = to_last;
    c.set_output(0, v);
    return Status::ok();
  }
  return c.fail("transpose other than a channel shuffle's or to and from channels last");
}

// Adds a channel-slice [begin, begin + n) of x as output k (an alias when it keeps everything).
Status channel_slice(Ctx& c, const Value& x, int64_t begin, int64_t n, int k) {
  std::vector<int64_t> dims = x.dims;
  dims[1] = n;
  if (begin == 0 && n == x.dims[1]) {
    c.set_output(k, x);
    return Status::ok();
  }
  if (n <= 0) return c.fail("empty slice");
  Layer l;
  l.kind = LayerKind::kChannelSlice;
  l.channel_begin = int(begin);
  l.out_channels = int(n);
  return c.add_layer(std::move(l), {x.layer}, dims, k);
}

Status slice(Ctx& c) {
  const Value* x;
  std::vector<int64_t> starts, ends, axes, steps;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  if (c.opset < 10) {  // attributes before opset 10
    starts = clamped(c.attr_ints("starts")), ends = clamped(c.attr_ints("ends")), axes = c.attr_ints("axes");
  } else {
    LW_RETURN_IF_ERROR(c.ints(1, &starts));
    LW_RETURN_IF_ERROR(c.ints(2, &ends));
    if (c.has_input(3)) LW_RETURN_IF_ERROR(c.ints(3, &axes));
    if (c.has_input(4)) LW_RETURN_IF_ERROR(c.ints(4, &steps));
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return c.bad("starts, ends, axes and steps differ in length");
  int64_t begin = 0, n = 0, axis_seen = -1;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int a = norm_axis(axes[i], x->dims.size());
    if (a < 0) return c.bad("axis out of range");
    if (steps[i] != 1) return c.fail("Slice with a step other than 1");
    const int64_t dim = x->dims[a];
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i], e = ends[i] < 0 ? ends[i] + dim : ends[i];
    s = std::clamp<int64_t>(s, 0, dim), e = std::clamp<int64_t>(e, s, dim);
    if (s == 0 && e == dim) continue;  // keeps the whole axis
    if (axis_seen >= 0) return c.fail("Slice along more than one axis");
    axis_seen = a, begin = s, n = e - s;
  }
  if (axis_seen < 0) {
    c.set_output(0, *x);
    return Status::ok();
  }
  if (x->is_const) {
    if (x->dims.size() != 1) return c.fail("constant Slice of rank other than 1");
    c.set_output(0, make_const({n}, std::vector<double>(x->v.begin() + begin, x->v.begin() + begin + n), x->is_int));
    return Status::ok();
  }
  const Value* rt;
  LW_RETURN_IF_ERROR(c.runtime(0, &rt));
  if (axis_seen != 1) return c.fail("Slice of a computed tensor along other than the channels");
  return channel_slice(c, *rt, begin, n, 0);
}

Status split(Ctx& c) {
  const Value* x;
  LW_RETURN_IF_ERROR(c.runtime(0, &x));
  if (norm_axis(c.attr_i("axis", 0), x->dims.size()) != 1) return c.fail("Split along other than the channels");
  std::vector<int64_t> sizes = c.attr_ints("split");
  if (c.has_input(1)) LW_RETURN_IF_ERROR(c.ints(1, &sizes));
  const int outs = c.node->output_size();
  const int64_t channels = x->dims[1];
  if (c.has_attr("num_outputs")) {  // opset 18: equal parts, the last one smaller when uneven
    const int64_t n = c.attr_i("num_outputs", 0);
    if (!sizes.empty()) return c.bad("both num_outputs and split sizes");
    if (n != outs) return c.bad("num_outputs " + std::to_string(n) + " but " + std::to_string(outs) + " outputs");
    const int64_t part = (channels + n - 1) / n;
    if (part * (n - 1) >= channels) return c.bad("num_outputs leaves an empty part");
    sizes.assign(size_t(n - 1), part);
    sizes.push_back(channels - part * (n - 1));
  }
  if (sizes.empty()) {
    if (channels % outs) return c.fail("channels do not split evenly");
    sizes.assign(size_t(outs), channels / outs);
  }
  for (int64_t size : sizes)  // bounded before they are summed
    if (size < 0 || size > channels) return c.bad("split size " + std::to_string(size) + " out of range");
  if (int(sizes.size()) != outs || std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != channels)
    return c.bad("split sizes do not add up to the channels");
  int64_t begin = 0;
  const Value in = *x;  // channel_slice adds values; keep a copy
  for (int k = 0; k < outs; ++k) {
    LW_RETURN_IF_ERROR(channel_slice(c, in, begin, sizes[k], k));
    begin += sizes[k];
  }
  return Status::ok();
}

// Opset 18's `axes` input: `p` pads only those axes (begins, then ends); spread it over all `r`.
Status pads_over_axes(Ctx& c, size_t r, std::vector<int64_t>* p) {
  std::vector<int64_t> axes;
  LW_RETURN_IF_ERROR(c.ints(3, &axes));
  if (p->size() != 2 * axes.size()) return c.bad("pads do not match the axes");
  std::vector<int64_t> full(2 * r, 0);
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int a = norm_axis(axes[i], r);
    if (a < 0 || seen[size_t(a)]) return c.bad("axis " + std::to_string(axes[i]) + " out of range or repeated");
    seen[size_t(a)] = true;
    full[size_t(a)] = (*p)[i], full[r + size_t(a)] = (*p)[axes.size() + i];
  }
  *p = std::move(full);
  return Status::ok();
}

// Zero padding of H and W stays pending until the Conv that reads it takes it as its own.
Status pad(Ctx& c) {
  const Value* x;
  std::vector<int64_t> p;
  LW_RETURN_IF_ERROR(c.input(0, &x));
  if (c.attr_s("mode", "constant") != "constant") return c.fail("pad mode '" + c.attr_s("mode", "") + "'");
  if (c.opset < 11) {  // pads and value: attributes before opset 11
    p = clamped(c.attr_ints("pads"));
    if (c.attr_f("value", 0) != 0) return c.fail("padding with a value other than 0");
  } else {
    LW_RETURN_IF_ERROR(c.ints(1, &p));
    const Value* cv;
    if (c.has_input(2)) {
      LW_RETURN_IF_ERROR(c.constant(2, &cv));
      if (!cv->v.empty() && cv->v[0] != 0) return c.fail("padding with a value other than 0");
    }
  }
  const size_t r = x->dims.size();
  if (c.has_input(3)) LW_RETURN_IF_ERROR(pads_over_axes(c, r, &p));
  if (p.size() != 2 * r) return c.bad("pads do not match the input rank");
  if (std::all_of(p.begin(), p.end(), [](int64_t v) { return v == 0; })) {
    c.set_output(0, *x);
    return Status::ok();
  }
  if (x->is_const || x->shapes_pending() || (r != 3 && r != 4) || p[0] || p[1] || p[r] || p[r + 1])
    return c.fail("padding other than zeros around H and W of a computed tensor");
  for (int64_t v : p)
    if (v < 0) return c.fail("negative pads");
    else if (v > kMaxExtent) return c.bad("pads beyond 2^30");
  Value v = *x;
  const int64_t top = r == 4 ? p[2] : 0, bottom = r == 4 ? p[r + 2] : 0;
  v.pad[0] += int(top), v.pad[1] += int(p[r - 1]), v.pad[2] += int(bottom), v.pad[3] += int(p[2 * r - 1]);
  if (r == 4) v.dims[2] += top + bottom;
  v.dims[r - 1] += p[r - 1] + p[2 * r - 1];
  c.set_output(0, v);
  return Status::ok();
}

}  // namespace

void add_shape_ops(std::map<std::string, OpInfo>* ops) {
  (*ops)["Constant"] = {constant, {"value", "value_float", "value_int", "value_ints"}};
  (*ops)["Shape"] = {shape, {"start", "end"}};
  (*ops)["Gather"] = {gather, {"axis"}};
  (*ops)["Unsqueeze"] = {squeeze, {"axes"}};
  (*ops)["Squeeze"] = {squeeze, {"axes"}};
  (*ops)["Cast"] = {cast, {"to", "saturate", "round_mode"}};  // the last two: float8 / float4 only
  (*ops)["Reshape"] = {reshape, {"allowzero"}};
  (*ops)["Transpose"] = {transpose, {"perm"}};
  (*ops)["Slice"] = {slice, {"starts", "ends", "axes"}};  // attributes before opset 10
  (*ops)["Split"] = {split, {"axis", "split", "num_outputs"}};
  (*ops)["Pad"] = {pad, {"mode", "pads", "value"}};  // pads, value: attributes before opset 11
}

}  // namespace lw::onnx_import
