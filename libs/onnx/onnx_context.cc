// The per-node context (messages, inputs, attributes, adding layers) and TensorProto decoding.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_graph.h"

namespace lw::onnx_import {

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

Value make_const(std::vector<int64_t> dims, std::vector<double> v, bool is_int) {
  Value c;
  c.is_const = true;
  c.dims = std::move(dims);
  c.v = std::move(v);
  c.is_int = is_int;
  return c;
}

int norm_axis(int64_t axis, size_t rank) {
  int64_t a = axis < 0 ? axis + int64_t(rank) : axis;
  return a < 0 || a >= int64_t(rank) ? -1 : int(a);
}

std::vector<int64_t> nhwc_to_nchw(const std::vector<int64_t>& d) { return {d.at(0), d.at(3), d.at(1), d.at(2)}; }

namespace {

// Above any weight tensor a CPU model has; guards the dims product of a corrupt file.
constexpr int64_t kMaxElements = int64_t(1) << 32;

// float16 and bfloat16 bit patterns widened to float: exact, every such value is a float.
float half_bits_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) return (sign ? -1.f : 1.f) * std::ldexp(float(man), -24);  // zero, subnormal
  const uint32_t bits = sign | (exp == 0x1f ? 0x7f800000u | (man << 13) : ((exp + 112) << 23) | (man << 13));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat16_bits_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool is_16_bit_float(int type) {
  return type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16;
}

float bits16_to_float(uint16_t bits, int type) {
  return type == onnx::TensorProto::FLOAT16 ? half_bits_to_float(bits) : bfloat16_bits_to_float(bits);
}

// Element size and whether the type is integral; 0 for types we do not decode.
size_t elem_size(int type, bool* is_int) {
  using T = onnx::TensorProto;
  *is_int = true;
  switch (type) {
    case T::FLOAT: *is_int = false; return 4;
    case T::DOUBLE: *is_int = false; return 8;
    case T::FLOAT16: case T::BFLOAT16: *is_int = false; return 2;
    case T::INT64: return 8;
    case T::INT32: return 4;
    case T::INT8: case T::UINT8: case T::BOOL: return 1;
    default: return 0;
  }
}

double decode(const char* p, int type) {
  using T = onnx::TensorProto;
  switch (type) {
    case T::FLOAT: { float f; std::memcpy(&f, p, 4); return f; }
    case T::DOUBLE: { double d; std::memcpy(&d, p, 8); return d; }
    case T::INT64: { int64_t i; std::memcpy(&i, p, 8); return double(i); }
    case T::INT32: { int32_t i; std::memcpy(&i, p, 4); return i; }
    case T::INT8: return double(int8_t(*p));
    case T::FLOAT16: case T::BFLOAT16: { uint16_t b; std::memcpy(&b, p, 2); return bits16_to_float(b, type); }
    default: return double(uint8_t(*p));
  }
}

Status external_bytes(const onnx::TensorProto& t, const std::string& dir, size_t want, std::string* out) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    else if (e.key() == "offset") offset = std::stoll(e.value());
    else if (e.key() == "length") length = std::stoll(e.value());
  }
  if (location.empty() || location.find("..") != std::string::npos || location[0] == '/')
    return parse_error("external data needs a relative 'location' inside the model's folder");
  std::string path = dir + "/" + location;
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error("external data file " + path + " cannot be opened");
  if (length < 0) length = int64_t(want);
  if (size_t(length) != want) return parse_error("external data length " + std::to_string(length) + ", expected " + std::to_string(want));
  out->resize(want);
  f.seekg(offset);
  if (!f.read(&(*out)[0], std::streamsize(want)))
    return parse_error("external data file " + path + " is shorter than offset + length");
  return Status::ok();
}

}  // namespace

Status tensor_to_value(const onnx::TensorProto& t, const std::string& dir, Value* out) {
  bool is_int = false;
  size_t es = elem_size(t.data_type(), &is_int);
  if (es == 0) return unsupported("tensor '" + t.name() + "' of data type " + std::to_string(t.data_type()));
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return parse_error("tensor '" + t.name() + "' has a negative dimension");
    if (d > 0 && n > kMaxElements / d) return parse_error("tensor '" + t.name() + "' is implausibly large");
    n *= d;
  }
  std::vector<double> v;
  using T = onnx::TensorProto;
  std::string external;
  const std::string* raw = t.has_raw_data() ? &t.raw_data() : nullptr;
  if (t.data_location() == T::EXTERNAL) {
    LW_RETURN_IF_ERROR(external_bytes(t, dir, size_t(n) * es, &external));
    raw = &external;
  }
  if (raw) {
    if (raw->size() != size_t(n) * es)
      return parse_error("tensor '" + t.name() + "' holds " + std::to_string(raw->size()) + " bytes, dims need " +
                         std::to_string(size_t(n) * es));
    v.reserve(size_t(n));
    for (int64_t i = 0; i < n; ++i) v.push_back(decode(raw->data() + i * es, t.data_type()));
  } else if (t.data_type() == T::FLOAT) {
    v.assign(t.float_data().begin(), t.float_data().end());
  } else if (t.data_type() == T::DOUBLE) {
    v.assign(t.double_data().begin(), t.double_data().end());
  } else if (t.data_type() == T::INT64) {
    for (int64_t x : t.int64_data()) v.push_back(double(x));
  } else if (is_16_bit_float(t.data_type())) {  // bit patterns in int32_data
    for (int32_t x : t.int32_data()) v.push_back(bits16_to_float(uint16_t(x), t.data_type()));
  } else {
    for (int32_t x : t.int32_data()) v.push_back(double(x));  // int32, int8, uint8, bool
  }
  if (int64_t(v.size()) != n)
    return parse_error("tensor '" + t.name() + "' holds " + std::to_string(v.size()) + " values, dims need " +
                       std::to_string(n));
  *out = make_const(std::move(dims), std::move(v), is_int);
  return Status::ok();
}

Status Ctx::fail(const std::string& why) const {
  return unsupported(file + ": node '" + node->name() + "' (" + node->op_type() + ", opset " + std::to_string(opset) +
                     "): " + why);
}

Status Ctx::bad(const std::string& why) const {
  return parse_error(file + ": node '" + node->name() + "' (" + node->op_type() + ", opset " + std::to_string(opset) +
                     "): " + why);
}

Status Ctx::input(int k, const Value** out) const {
  if (!has_input(k)) return bad("missing input " + std::to_string(k));
  auto it = values.find(node->input(k));
  if (it == values.end())
    return bad("input '" + node->input(k) + "' is neither an initializer, a graph input nor an earlier node's output");
  *out = &it->second;
  return Status::ok();
}

Status Ctx::runtime(int k, const Value** out) const {
  LW_RETURN_IF_ERROR(input(k, out));
  if ((*out)->is_const) return fail("input '" + node->input(k) + "' is a constant where a computed tensor is expected");
  if ((*out)->pending())
    return fail("input '" + node->input(k) + "' is a reshaped/transposed/padded tensor or a partial LayerNorm / GELU, "
                "which this op cannot take");
  return Status::ok();
}

Status Ctx::runtime_view(int k, const Value** out) const {
  LW_RETURN_IF_ERROR(input(k, out));
  if ((*out)->is_const) return fail("input '" + node->input(k) + "' is a constant where a computed tensor is expected");
  if (!(*out)->plain_or_channels_last())
    return fail("input '" + node->input(k) + "' is a reshaped/padded tensor or a partial LayerNorm / GELU, which this op "
                "cannot take");
  return Status::ok();
}

Status Ctx::constant(int k, const Value** out) const {
  LW_RETURN_IF_ERROR(input(k, out));
  if (!(*out)->is_const) return fail("input '" + node->input(k) + "' must be a constant (initializer)");
  return Status::ok();
}

std::vector<int64_t> clamped(std::vector<int64_t> v) {
  for (int64_t& e : v) e = std::clamp<int64_t>(e, -4600000000000000000LL, 4600000000000000000LL);
  return v;
}

Status Ctx::ints(int k, std::vector<int64_t>* out) const {
  const Value* v;
  LW_RETURN_IF_ERROR(constant(k, &v));
  // INT64_MAX ("to the end") is 2^63 as a double, out of int64 range: clamp first.
  out->clear();
  for (double e : v->v) out->push_back(int64_t(std::clamp(e, -4.6e18, 4.6e18)));
  return Status::ok();
}

namespace {
const onnx::AttributeProto* find_attr(const onnx::NodeProto* n, const std::string& name) {
  for (const auto& a : n->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
}  // namespace

bool Ctx::has_attr(const std::string& name) const { return find_attr(node, name) != nullptr; }
int64_t Ctx::attr_i(const std::string& name, int64_t def) const {
  auto* a = find_attr(node, name);
  return a ? a->i() : def;
}
float Ctx::attr_f(const std::string& name, float def) const {
  auto* a = find_attr(node, name);
  return a ? a->f() : def;
}
std::string Ctx::attr_s(const std::string& name, const std::string& def) const {
  auto* a = find_attr(node, name);
  return a ? a->s() : def;
}
std::vector<int64_t> Ctx::attr_ints(const std::string& name) const {
  auto* a = find_attr(node, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}
const onnx::TensorProto* Ctx::attr_t(const std::string& name) const {
  auto* a = find_attr(node, name);
  return a && a->has_t() ? &a->t() : nullptr;
}

Status Ctx::add_layer(Layer l, std::vector<int> inputs, std::vector<int64_t> dims, int k, bool channels_last) {
  if (k >= node->output_size()) return bad("no output " + std::to_string(k));
  std::string base = node->name().empty() ? node->output(k) : node->name();
  if (k > 0) base += ":" + std::to_string(k);
  l.name = base;
  for (int i = 2; net.find(l.name) >= 0; ++i) l.name = base + "#" + std::to_string(i);
  l.inputs = std::move(inputs);
  std::vector<Shape> in;
  for (int p : l.inputs) in.push_back(net.layers[p].out);
  Status s = infer_layer_shape(l, in, &l.out);
  if (!s.is_ok()) return bad(s.message());
  Shape want;
  s = onnx_dims_to_shape(channels_last ? nhwc_to_nchw(dims) : dims, &want);
  if (!s.is_ok()) return fail(s.message());
  if (want != l.out) return fail("output shape " + l.out.to_string() + " disagrees with ONNX's " + want.to_string());
  net.layers.push_back(std::move(l));
  Value v;
  v.layer = int(net.layers.size()) - 1;
  v.dims = std::move(dims);
  v.channels_last = channels_last;
  set_output(k, v);
  return Status::ok();
}

}  // namespace lw::onnx_import
