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

/// A LayerNorm or GELU spelt out in elementary nodes (LayerNormalization before opset 17,
/// Gelu before 20), part way: each node takes the part one step further, and the last one
/// makes the layer (onnx_ops_compose.cc).
enum class Partial {
  kNone,
  kMean,              // ReduceMean(x) over the channels
  kCentered,          // x - mean
  kSquares,           // (x - mean)^2
  kVariance,          // ReduceMean((x - mean)^2)
  kVariancePlusEps,   // variance + eps
  kStdDev,            // Sqrt(variance + eps); (x - mean) / it is the layer norm
  kGeluScaled,        // x / sqrt(2)
  kGeluErf,           // Erf(x / sqrt(2))
  kGeluErfPlusOne,    // 1 + Erf(x / sqrt(2))
  kGeluTwice,         // x * (1 + Erf(x / sqrt(2))); times 0.5 it is GELU
};

/// An ONNX value: either a constant (initializer, Constant node, folded shape arithmetic) or a
/// runtime tensor produced by an IR layer. A runtime value may carry a pending rewrite that
/// only certain consumers can absorb (ShuffleNet's 5-D reshape/transpose, a zero Pad in
/// front of a Conv, a channels-last view, a partial LayerNorm or GELU), so no IR layer is
/// ever made for a tensor the IR cannot hold.
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
  // Transpose(0, 2, 3, 1) of a 4-D tensor (ConvNeXt's blocks): dims are [N, H, W, C], the IR
  // tensor of `layer` stays N x C x H x W. Elementwise ops, LayerNorm and MatMul over the
  // channels read it; Transpose(0, 3, 1, 2) ends it.
  bool channels_last = false;
  Partial partial = Partial::kNone;  // of the tensor of `layer` (in its channels_last view)
  float eps = 0;                     // kVariancePlusEps, kStdDev
  bool pending() const { return shapes_pending() || pad != std::array<int, 4>{}; }
  /// Anything but a zero pad pending (which a Conv or an AveragePool absorbs).
  bool shapes_pending() const { return shuffle_groups > 0 || channels_last || partial != Partial::kNone; }
  /// A computed tensor as it is or in its channels-last view, nothing else pending.
  bool plain_or_channels_last() const {
    return shuffle_groups == 0 && pad == std::array<int, 4>{} && partial == Partial::kNone;
  }
  /// The ONNX axis of the IR's channels.
  int channel_axis() const { return channels_last ? int(dims.size()) - 1 : 1; }
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
  /// The op types of the nodes reading each value ("" for a graph output): lets a converter
  /// see whether its result starts a spelt-out GELU.
  std::map<std::string, std::vector<std::string>> readers;
  const onnx::NodeProto* node = nullptr;

  /// "file: node 'name' (Op, opset N): why" as `unsupported` (fail) or `parse_error` (bad).
  Status fail(const std::string& why) const;
  Status bad(const std::string& why) const;

  int inputs() const { return node->input_size(); }
  bool has_input(int k) const { return k < node->input_size() && !node->input(k).empty(); }
  Status input(int k, const Value** out) const;
  /// Input k must be a runtime value with no pending rewrite.
  Status runtime(int k, const Value** out) const;
  /// Input k as a runtime value with no pending rewrite but, perhaps, a channels-last view.
  Status runtime_view(int k, const Value** out) const;
  Status constant(int k, const Value** out) const;
  /// Input k as a constant list of integers.
  Status ints(int k, std::vector<int64_t>* out) const;

  bool has_attr(const std::string& name) const;
  int64_t attr_i(const std::string& name, int64_t def) const;
  float attr_f(const std::string& name, float def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  const onnx::TensorProto* attr_t(const std::string& name) const;

  /// Appends `l` reading the given layers and binds it to output k with ONNX `dims`; with
  /// `channels_last`, dims are [N, H, W, C] of the layer's N x C x H x W.
  Status add_layer(Layer l, std::vector<int> inputs, std::vector<int64_t> dims, int k = 0, bool channels_last = false);
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
/// An IR activation of input 0, in its channels-last view too (onnx_ops_eltwise.cc).
Status activation_layer(Ctx& c, LayerKind kind);
/// LayerNormalization, Gelu and Erf, Pow, Sqrt (onnx_ops_compose.cc).
void add_compose_ops(std::map<std::string, OpInfo>* ops);

/// The steps of a spelt-out LayerNorm or GELU that an elementwise op or ReduceMean takes
/// (onnx_ops_compose.cc): true when `c`'s node is one (then `*s` is its outcome).
bool compose_binary(Ctx& c, const Value& a, const Value& b, Status* s);
bool compose_reduce_mean(Ctx& c, const Value& x, const std::vector<int64_t>& axes, Status* s);
/// MatMul of a channels-last [N, H, W, C] tensor by a constant C x K: a 1x1 conv.
Status pointwise_matmul(Ctx& c, const Value& x, const Value& w);

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
/// 4-D dims [N, H, W, C] as [N, C, H, W].
std::vector<int64_t> nhwc_to_nchw(const std::vector<int64_t>& nhwc);

}  // namespace lw::onnx_import
