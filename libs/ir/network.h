/// \file
/// The network IR: a DAG of layers in topological order, with shape inference and
/// parameter / MAC accounting. Zoo builders, the JSON reader, the reference executor and
/// every primitive work on this. BatchNorm exists in the IR so published models keep
/// their published parameter counts; fold_affine() removes it before execution.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"

namespace lw {

enum class LayerKind {
#define X(e, s, lo, hi) e,
#include "libs/ir/layer_kind.inc"
#undef X
};
/// How many layer kinds layer_kind.inc lists.
constexpr int kNumLayerKinds = 0
#define X(e, s, lo, hi) +1
#include "libs/ir/layer_kind.inc"
#undef X
    ;
const char* to_string(LayerKind k);
std::optional<LayerKind> parse_layer_kind(const std::string& s);
bool is_activation(LayerKind k);  // relu, relu6, hardswish, hardsigmoid, sigmoid
/// What a conv may absorb after it at run time (libs/ops/registry.h runtime_fusion): the
/// activations and GELU (ConvNeXt's, after its expanding 1x1 conv). Each backend's fused
/// conv says which of them it computes; the rest are `unsupported` there.
bool conv_can_absorb(LayerKind k);
/// GELU as ONNX and PyTorch define it, 0.5 x (1 + erf(x / sqrt 2)), computed in double: the
/// reference executor and the int8 tables use it; fast kernels approximate it.
float gelu_exact(float x);

/// Window geometry shared by conv2d and pooling. Padding may be asymmetric.
struct Window {
  int kh = 1, kw = 1;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dil_h = 1, dil_w = 1;
  bool ceil_mode = false;  // pooling only (torchvision SqueezeNet / GoogLeNet)
};

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::kInput;
  std::vector<int> inputs;  // indices of producer layers (always earlier in the list)

  Window window;            // conv2d, max-pool, avg-pool
  int out_channels = 0;     // conv2d, fully-connected; channel-slice: channels kept
  int groups = 1;           // conv2d, channel-shuffle
  int channel_begin = 0;    // channel-slice: first input channel kept
  bool has_bias = false;    // conv2d, fully-connected
  bool count_include_pad = true;  // avg-pool
  float eps = 1e-5f;        // batch-norm, layer-norm
  /// Activation fused into a conv2d by static fusion; kInput means none.
  LayerKind fused_activation = LayerKind::kInput;
  /// Runtime fusion only (never in a model file): a conv2d that also computes the residual
  /// add after it. Its second input is the add's other operand, in the conv's output
  /// format; the conv adds its result to it before fused_activation (oneDNN's sum post-op).
  bool fused_residual = false;

  /// conv2d: [out_c][in_c/groups][kh][kw]; fully-connected: [out][in];
  /// batch-norm: gamma, beta, mean, var (4 x C); affine: scale, shift (2 x C).
  std::vector<float> weights;
  std::vector<float> bias;

  Shape out;  // filled by infer_shapes()
};

struct Network {
  std::string name;
  std::vector<Layer> layers;  // layers[0] is the input
  /// The weights are init_random_weights' (a zoo name, a network file without weights), not
  /// trained: a model shaped like a Fashion-MNIST classifier is then judged by its fidelity to
  /// f32, since its top-1 would be chance for every deployment alike (explorer/measure/
  /// deployment.h data_source_for). Kept by fold_affine and the network JSON.
  bool random_weights = false;

  int find(const std::string& layer_name) const;  // -1 if absent
  /// Consumers of every layer (inverse of inputs).
  std::vector<std::vector<int>> consumers() const;
  Shape input_shape() const { return layers.empty() ? Shape{} : layers[0].out; }
  Shape output_shape() const { return layers.empty() ? Shape{} : layers.back().out; }
};

/// Checks topology (known inputs, earlier producers, arity) and fills Layer::out.
/// The error names the layer and the reason.
Status infer_shapes(Network& net);
/// Shape of `layer` given its input shapes (no side effects).
/// Frees a layer's weights and bias, keeping its geometry: what a primitive's private copy of
/// its layer holds once the weights are packed ('clear()' would keep the capacity, i.e. a
/// second f32 copy of every weight alive beside the packed one).
inline void release_weights(Layer& l) {
  std::vector<float>().swap(l.weights);
  std::vector<float>().swap(l.bias);
}

Status infer_layer_shape(const Layer& layer, const std::vector<Shape>& in, Shape* out);

/// Output shapes of layer i's producers, in input order.
std::vector<Shape> input_shapes(const Network& net, int i);

/// Number of weights (and biases) the layer must carry.
int64_t weight_count(const Layer& layer, const std::vector<Shape>& in);
int64_t bias_count(const Layer& layer);

int64_t layer_params(const Network& net, int i);
int64_t layer_macs(const Network& net, int i);  // conv2d and fully-connected MACs
int64_t total_params(const Network& net);
int64_t total_macs(const Network& net);

/// Fills every weight and bias with seeded random values of the right scale (He-uniform;
/// BatchNorm statistics near identity) so random-weight models keep activations bounded.
void init_random_weights(Network& net, uint64_t seed);  // sets net.random_weights
/// Checks that every layer carries the right number of weights.
Status check_weights(const Network& net);

/// Static fusion: folds every batch-norm and affine layer into the conv2d, fully-connected or
/// layer-norm that feeds only it (an imported model's bias add, ConvNeXt's layer scale).
/// Returns a new network. One with any other producer (DenseNet's pre-activation BatchNorm
/// after a concat) becomes, or stays, a per-channel affine layer: y = x * scale + shift.
Status fold_affine(const Network& in, Network* out);

}  // namespace lw
