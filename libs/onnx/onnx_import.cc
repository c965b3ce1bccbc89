// Loads the ModelProto, decodes tensors, binds the graph input and walks the nodes in order
// (ONNX requires topological order), handing each to its converter.
#include "libs/core/files.h"
#include "libs/onnx/onnx_import.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_graph.h"

namespace lw {
namespace onnx_import {
namespace {

// 7 to 10 and 18 to 27: every version of the operators the converters read checked against ONNX
// 1.22's Changelog (README).
constexpr int kMinOpset = 7, kMaxOpset = 27;

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string stem_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

Status load_model(const std::string& path, onnx::ModelProto* m) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(path, &data));
  if (data.empty()) return parse_error(path + ": empty file, not an ONNX model");
  if (!m->ParseFromString(data))
    return parse_error(path + ": not an ONNX model (protobuf parse failed: truncated or not ONNX)");
  // Stray bytes can parse as a protobuf by chance; a real model has an IR version and a graph.
  if (m->ir_version() <= 0 || !m->has_graph() || m->graph().node_size() == 0)
    return parse_error(path + ": not an ONNX model (no IR version or no graph nodes)");
  return Status::ok();
}

Status find_opset(const onnx::ModelProto& m, const std::string& path, int* opset) {
  *opset = 0;
  for (const auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") *opset = int(o.version());
  if (*opset < kMinOpset || *opset > kMaxOpset)
    return unsupported(path + ": opset " + std::to_string(*opset) + " (supported: " + std::to_string(kMinOpset) +
                       " to " + std::to_string(kMaxOpset) + ")");
  return Status::ok();
}

// Binds the single runtime graph input to the IR's input layer.
Status bind_input(const onnx::ValueInfoProto& in, const OnnxImportOptions& o, Ctx& ctx) {
  const std::string where = ctx.file + ": graph input '" + in.name() + "': ";
  // A float16 / bfloat16 model runs in f32 like every import (its weights widen exactly).
  const int type = in.type().has_tensor_type() ? in.type().tensor_type().elem_type() : 0;
  if (type != onnx::TensorProto::FLOAT && type != onnx::TensorProto::FLOAT16 && type != onnx::TensorProto::BFLOAT16)
    return unsupported(where + "must be a float tensor (float, float16 or bfloat16)");
  std::vector<int64_t> dims;
  const auto& shape = in.type().tensor_type().shape();
  const int rank = shape.dim_size(), given = int(o.input_dims.size());
  if (given > 0 && given != rank && !(given == 2 && rank == 4))
    return unsupported(where + "has rank " + std::to_string(rank) + "; the input shape asked has " +
                       std::to_string(given) + " dimensions");
  for (int k = 0; k < rank; ++k) {
    const auto& d = shape.dim(k);
    if (given > 0 && k >= rank - given) dims.push_back(o.input_dims[size_t(k - (rank - given))]);
    else if (d.has_dim_value() && d.dim_value() > 0) dims.push_back(d.dim_value());
    else if (k == 0) dims.push_back(o.batch);  // symbolic batch
    else return unsupported(where + "dynamic shape in dimension " + std::to_string(k) + " ('" + d.dim_param() +
                            "'); give one after the file name (net.onnx@HxW) or export with a fixed input size");
  }
  Shape s;
  Status st = onnx_dims_to_shape(dims, &s);
  if (!st.is_ok()) return unsupported(where + st.message());
  Layer l;
  l.name = in.name();
  l.kind = LayerKind::kInput;
  l.out = s;
  ctx.net.layers.push_back(l);
  Value v;
  v.layer = 0;
  v.dims = dims;
  ctx.values[in.name()] = v;
  return Status::ok();
}

Status bind_initializers_and_inputs(const onnx::GraphProto& g, const OnnxImportOptions& o, Ctx& ctx) {
  for (const auto& t : g.initializer()) {
    Value v;
    Status s = tensor_to_value(t, ctx.dir, &v);
    if (!s.is_ok()) return Status(s.code(), ctx.file + ": initializer '" + t.name() + "': " + s.message());
    ctx.values[t.name()] = std::move(v);
  }
  const onnx::ValueInfoProto* runtime = nullptr;
  for (const auto& in : g.input()) {
    if (ctx.values.count(in.name())) continue;  // an initializer (old exporters list them as inputs)
    auto f = o.constant_files.find(in.name());
    if (f != o.constant_files.end()) {
      onnx::TensorProto t;
      std::string data;
      LW_RETURN_IF_ERROR(read_file(f->second, &data));
      if (!t.ParseFromString(data)) return parse_error(f->second + ": not a TensorProto");
      Value v;
      LW_RETURN_IF_ERROR(tensor_to_value(t, dir_of(f->second), &v));
      ctx.values[in.name()] = std::move(v);
      continue;
    }
    if (runtime) return unsupported(ctx.file + ": more than one runtime graph input ('" + runtime->name() + "', '" +
                                    in.name() + "'); the IR has one input");
    runtime = &in;
  }
  if (!runtime) return unsupported(ctx.file + ": no runtime graph input");
  return bind_input(*runtime, o, ctx);
}

// "Op", or "domain.Op" outside ONNX's default domain.
std::string op_name(const onnx::NodeProto& node) {
  const bool foreign = !node.domain().empty() && node.domain() != "ai.onnx";
  return foreign ? node.domain() + "." + node.op_type() : node.op_type();
}

// The operators of `g` the importer has no converter for, with their counts in order of first
// use ("Erf x18, Pow x19"): a refusal names them all, so that one read tells a user everything
// their model needs, not only the first problem.
std::string unknown_operators(const onnx::GraphProto& g, const std::map<std::string, OpInfo>& ops) {
  std::vector<std::pair<std::string, int>> seen;
  for (const auto& node : g.node()) {
    const std::string op = op_name(node);
    if (ops.count(op)) continue;
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& e) { return e.first == op; });
    if (it == seen.end()) seen.emplace_back(op, 1);
    else ++it->second;
  }
  std::string out;
  for (const auto& [op, n] : seen) out += (out.empty() ? "" : ", ") + op + " x" + std::to_string(n);
  return out;
}

Status convert_each_node(const onnx::GraphProto& g, const std::map<std::string, OpInfo>& ops, Ctx& ctx) {
  for (const auto& node : g.node()) {
    ctx.node = &node;
    if (!node.domain().empty() && node.domain() != "ai.onnx") return ctx.fail("operator domain '" + node.domain() + "'");
    auto it = ops.find(node.op_type());
    if (it == ops.end()) return ctx.fail("unsupported operator");
    // Every converter names and binds output 0 (found by fuzzing: a node without outputs).
    if (node.output_size() < 1 || node.output(0).empty()) return ctx.bad("no output");
    for (const auto& a : node.attribute())
      if (!it->second.attributes.count(a.name())) return ctx.fail("unsupported attribute '" + a.name() + "'");
    LW_RETURN_IF_ERROR(it->second.convert(ctx));
  }
  return Status::ok();
}

Status convert_nodes(const onnx::GraphProto& g, Ctx& ctx) {
  std::map<std::string, OpInfo> ops;
  add_nn_ops(&ops);
  add_eltwise_ops(&ops);
  add_shape_ops(&ops);
  add_compose_ops(&ops);
  for (const auto& node : g.node())
    for (const auto& in : node.input()) ctx.readers[in].push_back(node.op_type());
  for (const auto& out : g.output()) ctx.readers[out.name()].push_back("");
  Status s = convert_each_node(g, ops, ctx);
  if (s.is_ok()) return s;
  const std::string unknown = unknown_operators(g, ops);
  if (unknown.empty() || (ctx.node && unknown == op_name(*ctx.node) + " x1")) return s;  // nothing to add
  return Status(s.code(), s.message() + " (operators in the model the importer does not read: " + unknown + ")");
}

Status bind_output(const onnx::GraphProto& g, Ctx& ctx) {
  if (g.output_size() != 1)
    return unsupported(ctx.file + ": " + std::to_string(g.output_size()) + " graph outputs (the IR has one)");
  const std::string& name = g.output(0).name();
  auto it = ctx.values.find(name);
  if (it == ctx.values.end()) return parse_error(ctx.file + ": graph output '" + name + "' is produced by no node");
  const Value& v = it->second;
  if (v.is_const || v.pending() || v.layer <= 0)
    return unsupported(ctx.file + ": graph output '" + name + "' is not computed by a supported layer");
  // The IR's output is its last layer; layers after the output feed only values nobody reads.
  ctx.net.layers.resize(v.layer + 1);
  return Status::ok();
}

}  // namespace
}  // namespace onnx_import

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

Status onnx_dims_to_shape(const std::vector<int64_t>& dims, Shape* out) {
  for (int64_t d : dims)
    if (d < 1 || d > onnx_import::kMaxExtent) return unsupported("dimension " + std::to_string(d) + " out of range");
  switch (dims.size()) {
    case 2: *out = Shape{int(dims[0]), int(dims[1]), 1, 1}; return Status::ok();
    case 3: *out = Shape{int(dims[0]), int(dims[1]), 1, int(dims[2])}; return Status::ok();
    case 4: *out = Shape{int(dims[0]), int(dims[1]), int(dims[2]), int(dims[3])}; return Status::ok();
    default: return unsupported("rank " + std::to_string(dims.size()) + " tensor (the IR holds rank 2 to 4)");
  }
}

Status import_onnx(const std::string& path, Network* net, const OnnxImportOptions& options) {
  onnx::ModelProto m;
  LW_RETURN_IF_ERROR(onnx_import::load_model(path, &m));
  onnx_import::Ctx ctx;
  ctx.file = path;
  ctx.dir = onnx_import::dir_of(path);
  LW_RETURN_IF_ERROR(onnx_import::find_opset(m, path, &ctx.opset));
  const auto& g = m.graph();
  LW_RETURN_IF_ERROR(onnx_import::bind_initializers_and_inputs(g, options, ctx));
  LW_RETURN_IF_ERROR(onnx_import::convert_nodes(g, ctx));
  LW_RETURN_IF_ERROR(onnx_import::bind_output(g, ctx));
  ctx.net.name = onnx_import::stem_of(path);
  Status s = infer_shapes(ctx.net);
  if (!s.is_ok()) return Status(s.code(), path + ": " + s.message());
  s = check_weights(ctx.net);
  if (!s.is_ok()) return Status(s.code(), path + ": " + s.message());
  *net = std::move(ctx.net);
  return Status::ok();
}

Status read_onnx_tensor(const std::string& path, OnnxTensor* out) {
  std::string data;
  LW_RETURN_IF_ERROR(read_file(path, &data));
  onnx::TensorProto t;
  if (!t.ParseFromString(data)) return parse_error(path + ": not a TensorProto");
  onnx_import::Value v;
  Status s = onnx_import::tensor_to_value(t, onnx_import::dir_of(path), &v);
  if (!s.is_ok()) return Status(s.code(), path + ": " + s.message());
  out->name = t.name();
  out->dims = v.dims;
  out->data.assign(v.v.begin(), v.v.end());
  return Status::ok();
}

Status onnx_graph_inputs(const std::string& path, std::vector<std::string>* names) {
  onnx::ModelProto m;
  LW_RETURN_IF_ERROR(onnx_import::load_model(path, &m));
  std::set<std::string> init;
  for (const auto& t : m.graph().initializer()) init.insert(t.name());
  names->clear();
  for (const auto& in : m.graph().input())
    if (!init.count(in.name())) names->push_back(in.name());
  return Status::ok();
}

}  // namespace lw
