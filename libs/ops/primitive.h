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
#include <optional>
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
  /// Elements from one pixel of the NHWC output to the next, when the output is a slice of
  /// a wider tensor (a concat's: the executor lets producers write straight into it); 0:
  /// dense (the output's channels). A primitive that honours it reports it back
  /// (Primitive::output_pixel_stride); one that does not writes densely. (oneDNN 2.6 runs
  /// its reference kernel for a strided destination, "ref:any" for brgconv: its convs
  /// write densely.)
  int64_t out_pixel_stride = 0;
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
  /// The input the primitive adds its result to (a conv that absorbed a residual add), or
  /// -1. When `out` is that input's buffer nothing is copied (the executor places it there
  /// when the input dies at this step); otherwise run() first copies the input into `out`.
  virtual int accumulate_input() const { return -1; }
  /// Input k already lies at its place in `out` (its producer wrote it there, see
  /// PrimitiveArgs::out_pixel_stride): run() must not copy it. False when the primitive
  /// cannot leave an input out (then it still copies it).
  virtual bool take_input_in_place(int k) { return false; }
  /// Runs the library's own entry path once on a tiny problem of its own (untimed; none of
  /// this primitive's data touched, nothing of it changed). The profiler calls it last before
  /// each cold run (Protocol::warm_call_path): in the network the library ran a step moments
  /// before, so its dispatch code and bookkeeping sit in the caches, where the cold protocol
  /// has evicted them with the data. Only LibTorch's primitives need it: its dispatcher is
  /// the heavy path (results/reference/call-path/).
  virtual void warm_call_path() {}

  const std::string& name() const { return name_; }
  const Shape& output_shape() const { return out_shape_; }
  DType output_dtype() const { return out_dtype_; }
  size_t packed_weight_bytes() const { return weight_bytes_; }
  size_t workspace_bytes() const { return workspace_bytes_; }
  Layout output_layout() const { return out_layout_; }
  /// Elements between consecutive pixels of the NHWC output as written: the honoured
  /// PrimitiveArgs::out_pixel_stride, or 0 (dense).
  int64_t output_pixel_stride() const { return out_pixel_stride_; }
  /// Bytes of the output buffer (a blocked layout pads channels to its block).
  size_t output_bytes() const { return tensor_bytes(out_shape_, out_dtype_, out_layout_); }

 protected:
  std::string name_;
  Shape out_shape_;
  DType out_dtype_ = DType::kF32;
  Layout out_layout_ = Layout::kNCHW;  // only its padding matters: set by blocked producers
  size_t weight_bytes_ = 0;
  size_t workspace_bytes_ = 0;
  int64_t out_pixel_stride_ = 0;
};

/// "failed to <verb> <name>: <reason>" with the code of `why`.
Status primitive_error(const char* verb, const std::string& name, const Status& why);

/// Layers whose int8 form writes in its input's quantisation: max and average pooling (and
/// global average) take the max or the mean of input values, which never leave the input's
/// range, so they pool the int8 values as they are, without requantising. The executor gives
/// their output that quantisation and the profiler times them so.
bool int8_keeps_input_quant(LayerKind k);

/// What the `fused` implementation of a conv absorbs (runtime fusion). Either its only
/// consumer when that is an activation, or its only consumer when that is a residual add
/// whose other operand was produced earlier (so it exists when the conv runs), and then the
/// add's static activation or its only consumer when that is an activation. A conv+add
/// accumulates into the residual: out = act(conv(x) + residual).
struct RuntimeFusion {
  int add = -1;                              // the absorbed add layer
  int residual = -1;                         // the add's other input
  LayerKind activation = LayerKind::kInput;  // applied last (kInput: none)
  int activation_layer = -1;                 // the absorbed activation layer (-1: none or static)
  bool any() const { return add >= 0 || activation != LayerKind::kInput; }
};
RuntimeFusion runtime_fusion(const Network& net, int i);
/// The layer whose `fused` implementation absorbs layer j directly: the conv for an
/// activation or add it absorbs, the absorbed add for the activation after it; -1 if none.
/// That layer's `fused` flag passes the absorption on: an absorbed add takes the flagged
/// pseudo-implementation (`add_..._native_fused_fused_t1`) when its activation is absorbed too.
int absorber_of(const Network& net, int j);

/// Copy of `layer` as a runtime-fused conv must see it: fused_activation = `activation`.
Layer runtime_fusion_layer(const Layer& layer, LayerKind activation);
/// The same for everything `f` absorbs (fused_residual set when it absorbs an add).
Layer runtime_fusion_layer(const Layer& layer, const RuntimeFusion& f);
/// True when layer i of `net` can take a `fused` implementation (runtime_fusion(net, i).any()).
bool can_fuse_next_activation(const Network& net, int i);
/// The `fused` pseudo-implementation of a layer of kind `op` absorbed by `producer`: it
/// keeps the producer's output format (layout and dtype) on both sides.
ImplDesc fused_partner(const ImplDesc& producer, LayerKind op);
/// Layer i's pseudo-implementation when assignment `a` (filled below i) makes its absorber
/// `fused`, with the flag set where it passes the absorption on; nullopt otherwise.
std::optional<ImplDesc> absorbed_partner(const Network& net, const std::vector<ImplDesc>& a, int i);
/// The activation layer i would absorb by runtime fusion; kInput when it cannot fuse.
LayerKind fusable_activation(const Network& net, int i);

}  // namespace lw
