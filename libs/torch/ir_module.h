/// \file
/// LibTorch bridge for the network IR: runs a Network with LibTorch functional ops (f32,
/// NCHW). It is the independent check of the reference executor (test_torch_ref) and the
/// differentiable model that `layerwise train` optimises; trained parameters and BatchNorm
/// running statistics go back into the IR, so our own executors run the trained network.
/// Only LibTorch code may include this header (it pulls in ATen).
#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"

namespace lw::ir_torch {

/// Copies an f32 tensor (any layout) into a contiguous NCHW at::Tensor.
at::Tensor to_aten(const Tensor& t);
/// Copies a 4-D (or 2-D, read as N x C x 1 x 1) f32 at::Tensor into a new NCHW tensor.
Status from_aten(const at::Tensor& t, Tensor* out);

/// One layer on LibTorch in inference mode: the counterpart of reference_layer().
Status torch_layer(const Layer& layer, const std::vector<const Tensor*>& in, Tensor* out);

/// The whole network on LibTorch (inference); `outputs` gets every layer's output.
Status torch_forward(const Network& net, const Tensor& input, std::vector<Tensor>* outputs);

/// A network as LibTorch tensors: conv / fully-connected weights and biases and BatchNorm
/// gamma / beta are trainable parameters; BatchNorm running mean / variance are buffers.
class IrModule {
 public:
  /// Copies the network's weights (check_weights must pass) into LibTorch tensors.
  static Status create(const Network& net, IrModule* out);

  /// Runs a batch x [N, C, H, W]. With `training`, BatchNorm normalises with batch
  /// statistics and updates its running statistics (momentum 0.1, as torch.nn.BatchNorm2d).
  /// `all` (optional) receives every layer's output.
  Status forward(const at::Tensor& x, bool training, at::Tensor* y, std::vector<at::Tensor>* all = nullptr) const;

  /// Trainable tensors, in layer order.
  std::vector<at::Tensor> parameters() const;

  /// Writes parameters and running statistics back into `net`, which must have the
  /// topology this module was created from.
  Status export_to(Network* net) const;

  const Network& network() const { return net_; }

 private:
  struct Tensors {
    at::Tensor weight, bias;              // conv2d, fully-connected; BatchNorm gamma, beta
    at::Tensor running_mean, running_var;  // BatchNorm only
  };
  friend Status torch_layer(const Layer& layer, const std::vector<const Tensor*>& in, Tensor* out);
  Status run_layer(size_t i, const std::vector<at::Tensor>& in, bool training, at::Tensor* y) const;

  Network net_;  // topology (weights kept as loaded; the live values are in tensors_)
  std::vector<Tensors> tensors_;
};

}  // namespace lw::ir_torch
