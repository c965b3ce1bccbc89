/// \file
/// The primitive interface every backend implements (XNNPACK's operator life cycle):
///   create  — check arguments, pack weights (never timed; done by the backend's factory)
///   reshape — size the output and the workspace for the input shapes
///   setup   — bind input, output and workspace pointers
///   run     — compute; the only timed call; must not allocate
/// Layer primitives and conversions (conversion.h) share it, so the executor and the
/// profiler treat both alike.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"
#include "libs/ir/network.h"
#include "libs/ops/descriptor.h"

namespace lw {

/// What a layer primitive is created from. `layer` only has to outlive create().
/// For a `fused` descriptor the caller sets layer.fused_activation to the activation that
/// follows (see runtime_fusion_layer()).
struct PrimitiveArgs {
  ImplDesc desc;
  const Layer* layer = nullptr;
  std::vector<Shape> in_shapes;
  /// Quantisation of each input and of the output; read only by int8 primitives
  /// (calibration, which chooses them, is not a primitive's business).
  std::vector<QuantParams> in_quant;
  QuantParams out_quant;
};

class Primitive {
 public:
  explicit Primitive(std::string name) : name_(std::move(name)) {}
  virtual ~Primitive() = default;
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;

  /// Sizes output and workspace for these input shapes. Called once after create and
  /// again whenever the shapes change (channel counts must stay those of create).
  virtual Status reshape(const std::vector<Shape>& in) = 0;
  /// Binds pointers. `workspace` must hold workspace_bytes() (may be null when 0).
  virtual Status setup(const std::vector<const void*>& in, void* out, void* workspace) = 0;
  /// Computes. Never allocates.
  virtual Status run() = 0;
  /// True when `out` may be the same buffer as in[0] (elementwise primitives).
  virtual bool can_run_in_place() const { return false; }

  const std::string& name() const { return name_; }
  const Shape& output_shape() const { return out_shape_; }
  DType output_dtype() const { return out_dtype_; }
  size_t packed_weight_bytes() const { return weight_bytes_; }
  size_t workspace_bytes() const { return workspace_bytes_; }
  Layout output_layout() const { return out_layout_; }
  /// Bytes of the output buffer (a blocked layout pads channels to its block).
  size_t output_bytes() const { return tensor_bytes(out_shape_, out_dtype_, out_layout_); }

 protected:
  std::string name_;
  Shape out_shape_;
  DType out_dtype_ = DType::kF32;
  Layout out_layout_ = Layout::kNCHW;  // only its padding matters: set by blocked producers
  size_t weight_bytes_ = 0;
  size_t workspace_bytes_ = 0;
};

/// "failed to <verb> <name>: <reason>" with the code of `why`.
Status primitive_error(const char* verb, const std::string& name, const Status& why);

/// Copy of `layer` as a runtime-fused conv must see it: fused_activation = `activation`.
Layer runtime_fusion_layer(const Layer& layer, LayerKind activation);
/// True when layer i of `net` can take a `fused` implementation: it is a conv2d without a
/// static fused activation whose only consumer is an activation layer.
bool can_fuse_next_activation(const Network& net, int i);
/// The `fused` pseudo-implementation of `activation` after the fused conv `producer`: it
/// keeps the producer's output format (layout and dtype) on both sides.
ImplDesc fused_partner(const ImplDesc& producer, LayerKind activation);
/// The activation layer i would absorb by runtime fusion; kInput when it cannot fuse.
LayerKind fusable_activation(const Network& net, int i);

}  // namespace lw
