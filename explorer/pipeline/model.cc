#include "explorer/pipeline/model.h"

#include <random>

#include "libs/ir/network_json.h"
#include "libs/onnx/onnx_import.h"
#include "libs/zoo/zoo.h"

namespace lw {

Status load_model_unfolded(const std::string& model, Network* out, uint64_t weight_seed) {
  Network net;
  bool is_file = model.find('/') != std::string::npos || model.find(".json") != std::string::npos;
  if (is_onnx_path(model)) {
    LW_RETURN_IF_ERROR(import_onnx(model, &net));
  } else if (is_file) {
    LW_RETURN_IF_ERROR(load_network(model, &net));
  } else {
    Status s = build_zoo_model(model, ZooOptions{}, &net);
    if (!s.is_ok()) return Status(s.code(), s.message() + ", a network .json file or an .onnx file");
  }
  bool has_weights = true;
  for (const Layer& l : net.layers)
    if (l.weights.empty() && weight_count(l, input_shapes(net, net.find(l.name))) > 0) has_weights = false;
  if (!has_weights) init_random_weights(net, weight_seed);
  *out = std::move(net);
  return Status::ok();
}

Status load_model(const std::string& model, Network* out, uint64_t weight_seed) {
  Network net;
  LW_RETURN_IF_ERROR(load_model_unfolded(model, &net, weight_seed));
  return fold_affine(net, out);
}

Tensor random_input(const Network& net, uint64_t seed) {
  Tensor t = Tensor::create(net.input_shape());
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.shape().elements(); ++i) t.f32()[i] = float((rng() >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  return t;
}

}  // namespace lw
