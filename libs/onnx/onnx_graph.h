// Internal to libs/onnx: what the importer knows about every ONNX value while it walks the
// nodes, and the per-node context the operator converters work with. Not a public header.
#pragma once
#include <onnx/onnx_pb.h>

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "libs/onnx/onnx_import.h"

namespace lw::onnx_import {

/// An ONNX value: either a constant (initializer, Constant node, folded shape arithmetic) or a
/// runtime tensor produced by an IR layer. A runtime value may carry a pending rewrite that
/// only certain consumers can absorb (ShuffleNet's 5-D reshape/transpose, a zero Pad in
/// front of a Conv), so no IR layer is ever made for a tensor the IR cannot hold.
struct Value {
  bool is_const = false;
  std::vector<int64_t> dims;  // ONNX dims
  // constant
  std::vector<double> v;  // every element as double: exact for f32 and for int64 below 2^53
  bool is_int = false;
  // runtime
  int layer = -1;
  int shuffle_groups = 0;           // Reshape [N,C,H,W] -> [N,g,C/g,H,W] pending
  bool shuffle_transposed = false;  // ... followed by Transpose(0,2,1,3,4)
  std::array<int, 4> pad{};         // zero Pad pending for a Conv (top, left, bottom, right)
  bool pending() const { return shuffle_groups > 0 || pad != std::array<int, 4>{}; }
  int64_t elements() const;
};

/// Decodes a TensorProto (raw or typed fields, external data relative to `dir`).
Status tensor_to_value(const onnx::TensorProto& t, const std::string& dir, Value* out);

class Ctx {
 public:
  std::string file;  // for messages
  std::string dir;   // external data is relative to it
  int opset = 0;
  Network net;
  std::map<std::string, Value> values;
  const onnx::NodeProto* node = nullptr;

  /// "file: node 'name' (Op, opset N): why" as `unsupported` (fail) or `parse_error` (bad).
  Status fail(const std::string& why) const;
  Status bad(const std::string& why) const;

  int inputs() const { return node->input_size(); }
  bool has_input(int k) const { return k < node->input_size() && !node->input(k).empty(); }
  Status input(int k, const Value** out) const;
  /// Input k must be a runtime value with no pending rewrite.
  Status runtime(int k, const Value** out) const;
  Status constant(int k, const Value** out) const;
  /// Input k as a constant list of integers.
  Status ints(int k, std::vector<int64_t>* out) const;

  bool has_attr(const std::string& name) const;
  int64_t attr_i(const std::string& name, int64_t def) const;
  float attr_f(const std::string& name, float def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  const onnx::TensorProto* attr_t(const std::string& name) const;

  /// Appends `l` reading the given layers and binds it to output k with ONNX `dims`.
  Status add_layer(Layer l, std::vector<int> inputs, std::vector<int64_t> dims, int k = 0);
  void set_output(int k, Value v) {
    if (k < node->output_size() && !node->output(k).empty()) values[node->output(k)] = std::move(v);
  }
  /// The IR shape of a runtime value.
  Shape shape_of(const Value& v) const { return net.layers[v.layer].out; }
};

using OpFn = Status (*)(Ctx&);
struct OpInfo {
  OpFn convert;
  std::set<std::string> attributes;  // any other attribute is unsupported
};
/// Converters by op type: window / matrix ops (onnx_ops_nn.cc), elementwise ops
/// (onnx_ops_eltwise.cc) and shape / constant ops (onnx_ops_shape.cc).
void add_nn_ops(std::map<std::string, OpInfo>* ops);
void add_eltwise_ops(std::map<std::string, OpInfo>* ops);
void add_shape_ops(std::map<std::string, OpInfo>* ops);

/// The largest tensor dimension the importer takes, and the bound of the window attributes
/// and pads read against it, so that the extents computed from them cannot overflow.
constexpr int64_t kMaxExtent = int64_t(1) << 30;

/// Integers clamped to +-4.6e18, so that a file's INT64_MAX ("to the end") or INT64_MIN cannot
/// overflow the index arithmetic after it (attributes; Ctx::ints clamps constants the same way).
std::vector<int64_t> clamped(std::vector<int64_t> v);

/// A constant with these dims and values.
Value make_const(std::vector<int64_t> dims, std::vector<double> v, bool is_int);
/// Normalises a possibly negative axis for `rank`; -1 when out of range.
int norm_axis(int64_t axis, size_t rank);

}  // namespace lw::onnx_import
