/// \file
/// ONNX import: reads a model exported by PyTorch (or any ONNX producer, opsets 7 to 27) into
/// the network IR, so every stage after it (profile, search, filter, replay, infer) sees an
/// imported model exactly like a zoo model. Initializers (and external data files) become
/// weights; BatchNorm stays in the IR and is folded later by fold_affine(), as for the zoo.
/// The constant shape arithmetic exporters emit (Shape, Gather, Unsqueeze, Concat, Constant
/// feeding Reshape, Slice) is evaluated at import time. An operator or attribute the IR cannot
/// express is an `unsupported` status naming the file, the node, its op type and the opset.
///
/// Tensors map onto the IR's N x C x H x W: rank 4 as is, rank 3 [N, C, L] as N x C x 1 x L
/// (how ONNX's 1-D conv and pooling map onto 2-D), rank 2 [N, C] as N x C x 1 x 1.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"

namespace lw {

struct OnnxImportOptions {
  /// Graph inputs to bind to constants read from TensorProto files (name -> .pb path). ONNX's
  /// node tests pass weights as graph inputs; a deployed model carries them as initializers.
  std::map<std::string, std::string> constant_files;
  /// A symbolic batch dimension of the graph input becomes this.
  int batch = 1;
  /// The graph input's shape instead of the declared one: H, W (the last two dimensions of a
  /// rank-4 input) or every dimension; fills symbolic ones and replaces fixed ones. Empty:
  /// as declared (a symbolic dimension other than the batch is then an error).
  std::vector<int64_t> input_dims;
};

/// Imports `path` (unfolded: BatchNorm layers kept). The network is named after the file.
Status import_onnx(const std::string& path, Network* net, const OnnxImportOptions& options = {});

/// A dense f32 tensor read from a serialized TensorProto (ONNX's test_data_set_N/*.pb).
struct OnnxTensor {
  std::string name;
  std::vector<int64_t> dims;
  std::vector<float> data;
};
Status read_onnx_tensor(const std::string& path, OnnxTensor* out);

/// The graph inputs of `path` that are not initializers, in order.
Status onnx_graph_inputs(const std::string& path, std::vector<std::string>* names);

/// The IR shape of an ONNX tensor shape (rank 2, 3 or 4; see the \file note).
Status onnx_dims_to_shape(const std::vector<int64_t>& dims, Shape* out);

/// True when `path` names an ONNX file (by its extension).
bool is_onnx_path(const std::string& path);

}  // namespace lw
